"""A value read from a log, as the JSON text forsy writes of it (tool arguments, structured
results): one definition for the readers, the rules and the exports."""

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
