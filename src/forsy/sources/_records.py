"""Records of JSON logs (JSONL, or one JSON array) with exact byte positions.

Each record comes with its `Evidence` (source, line, byte offset and length, sha256 of the
bytes). Damaged lines are reported and skipped, never fatal: a line that is not JSON, two
records spliced on one line (the readable first one is kept), NUL runs, invalid UTF-8.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from ..evidence import Evidence, Warning_
from ._lines import iter_lines, sha256

MAX_DEPTH_HINT = "nested too deep"


@dataclass(slots=True)
class Record:
    ev: Evidence
    data: dict[str, Any]


def _loads(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    # orjson refuses lone surrogates, integers beyond 64 bits and >1024-deep nesting; the
    # stdlib parser accepts the first two (and depth up to the recursion limit).
    try:
        return json.loads(raw.decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError, UnicodeDecodeError):
        return _MISSING


_MISSING = object()


def _first_object(raw: bytes) -> tuple[Any, int] | None:
    """The first complete JSON value of a damaged line (e.g. two records spliced)."""
    text = raw.decode("utf-8", "replace")
    start = text.find("{")
    if start == -1:
        return None
    try:
        value, end = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    return value, end


def iter_jsonl(
    data: bytes, source: str, warnings: list[Warning_], counters: dict[str, int]
) -> Iterator[Record]:
    """Records of a JSONL log; problems go to `warnings` with file and line."""
    for rl in iter_lines(data):
        raw = rl.raw
        value = _loads(raw)
        if value is _MISSING:
            if b"\x00" in raw:
                stripped = raw.replace(b"\x00", b"")
                value = _loads(stripped) if stripped.strip() else _MISSING
                if value is not _MISSING:
                    warnings.append(Warning_("nul-bytes", "NUL bytes removed from the line", source, rl.line))
            if value is _MISSING:
                value = _recover(raw, rl.complete, source, rl.line, warnings, counters)
                if value is _MISSING:
                    continue
        elif not rl.complete:
            warnings.append(
                Warning_("no-final-newline", "last line has no newline (file still being written?)",
                         source, rl.line)
            )
        counters["records"] = counters.get("records", 0) + 1
        if not isinstance(value, dict):
            counters["unparsable"] = counters.get("unparsable", 0) + 1
            warnings.append(Warning_("not-an-object", "line is JSON but not an object; skipped",
                                     source, rl.line))
            continue
        rtype = value.get("type") if isinstance(value.get("type"), str) else None
        ev = Evidence.make(source, rl.line, rl.offset, raw, sha256(raw), rtype)
        yield Record(ev, value)


def _recover(
    raw: bytes, complete: bool, source: str, line: int, warnings: list[Warning_], counters: dict[str, int]
) -> Any:
    counters["unparsable"] = counters.get("unparsable", 0) + 1
    if not complete:
        warnings.append(Warning_("truncated-line", "last line is cut off (file still being written?); skipped",
                                 source, line))
        return _MISSING
    got = _first_object(raw) if len(raw) < 8_000_000 else None
    if got is not None and isinstance(got[0], dict):
        warnings.append(Warning_("spliced-line", "line holds more than one record or trailing junk; "
                                 "kept the first record", source, line))
        counters["unparsable"] -= 1
        return got[0]
    warnings.append(Warning_("unparsable-line", f"line is not JSON ({len(raw)} bytes); skipped", source, line))
    return _MISSING


def iter_json_array(
    data: bytes, source: str, warnings: list[Warning_], counters: dict[str, int]
) -> Iterator[Record]:
    """Records of a log re-saved as one JSON array (a Stop hook's transcript dump).

    Each element's evidence covers its exact bytes inside the array, with the line where
    it starts, so it can be re-read and hashed like a JSONL line.
    """
    text = data.decode("utf-8", "surrogateescape")
    dec = json.JSONDecoder()
    pos = text.find("[") + 1
    byte_pos = len(text[:pos].encode("utf-8", "surrogateescape"))
    line = 1 + text.count("\n", 0, pos)
    n = len(text)
    while True:
        skip = pos
        while skip < n and text[skip] in " \t\r\n,":
            skip += 1
        if skip >= n or text[skip] == "]":
            return
        line += text.count("\n", pos, skip)
        byte_pos += len(text[pos:skip].encode("utf-8", "surrogateescape"))
        try:
            value, end = dec.raw_decode(text, skip)
        except (ValueError, RecursionError):
            counters["unparsable"] = counters.get("unparsable", 0) + 1
            warnings.append(Warning_("unparsable-element", "array element is not JSON; stopped reading",
                                     source, line))
            return
        raw = text[skip:end].encode("utf-8", "surrogateescape")
        counters["records"] = counters.get("records", 0) + 1
        if isinstance(value, dict):
            rtype = value.get("type") if isinstance(value.get("type"), str) else None
            yield Record(Evidence.make(source, line, byte_pos, raw, sha256(raw), rtype), value)
        line += text.count("\n", skip, end)
        byte_pos += len(raw)
        pos = end
