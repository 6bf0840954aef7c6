"""Reading a trace folder's JSON files for `forsy validate`, saying what is wrong with them.

Python's `json` is the reference: it reports what other parsers pass over (a repeated key,
NaN, over-deep nesting). It is also slow on the tens of megabytes a large trace folder holds,
so a file is first read with orjson, and that value is used only when it provably is what
`json` would return with nothing to report: orjson refuses NaN/Infinity, integers beyond 64
bits, invalid UTF-8 and nesting past 1024 levels; writing the value back in the layout forsy
writes (2-space indent, a final newline) gives the file's very bytes, so no key is repeated
(the value would hold fewer keys than the text) and every number reads back as written; and
no line is indented deeper than `_DEEP` levels, far from `json`'s recursion limit. A file
that is anything else (hand-written, another tool's, damaged) takes the reference path.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from ._base import Sink

_DEEP = 200  # levels of nesting the fast path accepts (json's recursion limit is near 1000)
_DEEP_LINE = b"\n" + b" " * (2 * _DEEP)


def load_json(path: Path, sink: Sink, rules: tuple[str, str, str]) -> dict[str, Any] | None:
    """Parse a JSON object file; `rules` are the ids for unreadable, not JSON, not an object."""
    unreadable, invalid, not_object = rules
    try:
        data = path.read_bytes()
    except OSError as exc:
        sink.add(unreadable, f"cannot read {path.name}: {exc}", field=path.name)
        return None
    value = as_written(data)
    if isinstance(value, dict):
        return value
    return _load_reference(path, data, sink, (unreadable, invalid, not_object))


def as_written(data: bytes) -> Any:
    """The value of `data` when it is a JSON document exactly as forsy writes one (see the
    module's docstring); None otherwise."""
    if _DEEP_LINE in data:
        return None
    try:
        value = orjson.loads(data)
        same = _written_so(value, data)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return None
    return value if same else None


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2)


def _written_so(value: Any, data: bytes) -> bool:
    """`data == dumps(value) + b"\n"` in forsy's layout, compared in place a part at a time: a
    top-level item, and each element of a top-level list (a trace's steps) alone, so the tens
    of megabytes are never written out once more beside the file and its value."""
    if not isinstance(value, dict) or not value:
        out = _dumps(value)
        return len(data) == len(out) + 1 and data.endswith(b"\n") and data.startswith(out)
    at = 0

    def part(piece: bytes) -> bool:
        nonlocal at
        at += len(piece)
        return data.startswith(piece, at - len(piece))

    if not part(b"{\n"):
        return False
    for n, (k, v) in enumerate(value.items()):
        if n and not part(b",\n"):
            return False
        if not (isinstance(v, list) and v):  # `  "k": value` as the whole document has it
            if not part(_dumps({k: v})[2:-2]):
                return False
            continue
        if not part(_dumps({k: []})[2:-3]):  # `  "k": [`, then each element 4 deeper
            return False
        for i, item in enumerate(v):
            if not part((b",\n    " if i else b"\n    ") + _dumps(item).replace(b"\n", b"\n    ")):
                return False
        if not part(b"\n  ]"):
            return False
    return part(b"\n}\n") and at == len(data)


def _load_reference(path: Path, data: bytes, sink: Sink, rules: tuple[str, str, str]) -> dict[str, Any] | None:
    unreadable, invalid, not_object = rules
    try:
        text = data.decode("utf-8")
    except ValueError as exc:  # UnicodeDecodeError is a ValueError
        sink.add(unreadable, f"cannot read {path.name}: {exc}", field=path.name)
        return None
    duplicates: list[str] = []
    try:
        value = json.loads(text, object_pairs_hook=_pairs_hook(duplicates), parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        sink.add(invalid, f"{path.name} is not valid JSON: {exc}", field=path.name)
        return None
    for key in dict.fromkeys(duplicates):
        sink.add("F004", f"{path.name} repeats the key {key!r} in an object", field=path.name)
    if not isinstance(value, dict):
        kind = type(value).__name__ if value is not None else "null"
        sink.add(not_object, f"{path.name} holds a JSON {kind}, not an object", field=path.name)
        return None
    return value


def _pairs_hook(duplicates: list[str]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    # json.loads keeps the last of repeated keys without a word; we want to say so
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj:
                duplicates.append(key)
            obj[key] = value
        return obj

    return hook


def _reject_constant(name: str) -> Any:
    # NaN and Infinity are accepted by Python's json but are not JSON
    raise ValueError(f"{name} is not a JSON value")
