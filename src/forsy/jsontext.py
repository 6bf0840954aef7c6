"""A value read from a log, as the JSON text forsy writes of it (tool arguments, structured
results), and text that can be written at all (`valid_text`): one definition for the readers,
the rules and the exports."""

from __future__ import annotations

import json
from typing import Any

import orjson


def json_text(value: Any) -> str:
    """Exact JSON text of a parsed value (key order as in the log); strings stay as they are.
    orjson refuses integers beyond 64 bits: the stdlib writes them exactly."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def valid_text(text: str) -> str:
    """The text with lone surrogates replaced (U+FFFD), so it can be encoded and written. Python
    keeps the bytes of a file name that are not UTF-8 as lone surrogates (surrogate escapes),
    which no JSON writer takes."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        # UTF-16 round trip: joins valid surrogate pairs, replaces lone ones
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def valid_value(v: Any) -> Any:
    """A parsed value with every string (keys too) `valid_text`: what the stdlib decoded from a
    `\\ud800` escape or bad bytes, as the readers keep it and `forsy verify` compares it."""
    if isinstance(v, str):
        return valid_text(v)
    if isinstance(v, list):
        return [valid_value(x) for x in v]
    if isinstance(v, dict):
        return {valid_text(k): valid_value(x) for k, x in v.items()}
    return v
