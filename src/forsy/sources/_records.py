"""Records of JSON logs (JSONL, or one JSON array) with exact byte positions.

Each record comes with its `Evidence` (source, line, byte offset and length, sha256 of the
bytes). Damaged lines are reported and skipped, never fatal: a line that is not JSON, two
records spliced on one line (the readable first one is kept), NUL runs, invalid UTF-8.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from ..evidence import Evidence, Warning_
from ._lines import iter_lines, sha256


@dataclass(slots=True)
class Record:
    ev: Evidence
    data: dict[str, Any]


# a JSON number of 19+ digits starts right after one of : , [ (and optional spaces); looking
# only there is several times faster than scanning every digit run inside strings
_LONG_DIGITS = re.compile(rb"[:,\[]\s*-?\d{19}")


def _loads(raw: bytes) -> Any:
    if _LONG_DIGITS.search(raw) is None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    # else: orjson turns integers beyond 64 bits into floats (losing digits); the stdlib keeps them
    # orjson refuses invalid UTF-8, lone surrogates, integers beyond 64 bits and >1024-deep
    # nesting; the stdlib parser takes the rest (depth up to the recursion limit). What it
    # returns is made writable again: bad bytes and lone surrogates become U+FFFD, integers
    # beyond 64 bits stay exact Python ints (the writer falls back to the stdlib for them).
    try:
        return _scrub(json.loads(raw.decode("utf-8", "replace")))
    except (ValueError, RecursionError):
        return _MISSING


def _scrub(v: Any) -> Any:
    if isinstance(v, str):
        try:
            v.encode("utf-8")
            return v
        except UnicodeEncodeError:
            return _SURROGATE.sub("\ufffd", v)
    if isinstance(v, list):
        return [_scrub(x) for x in v]
    if isinstance(v, dict):
        return {_scrub(k): _scrub(x) for k, x in v.items()}
    return v


_MISSING = object()
_SURROGATE = re.compile("[\ud800-\udfff]")


def _objects(raw: bytes) -> list[tuple[dict[str, Any], int, int]]:
    """Every complete JSON object of a damaged line (e.g. two records spliced on one line),
    with its byte start and end inside the line."""
    text = raw.decode("utf-8", "surrogateescape")
    dec = json.JSONDecoder()
    out: list[tuple[dict[str, Any], int, int]] = []
    pos = 0
    while True:
        start = text.find("{", pos)
        if start == -1:
            return out
        try:
            value, end = dec.raw_decode(text, start)
        except (ValueError, RecursionError):
            pos = start + 1
            continue
        if isinstance(value, dict):
            b0 = len(text[:start].encode("utf-8", "surrogateescape"))
            b1 = b0 + len(text[start:end].encode("utf-8", "surrogateescape"))
            out.append((_scrub(value), b0, b1))
        pos = end


def iter_jsonl(
    data: bytes, source: str, warnings: list[Warning_], counters: dict[str, int]
) -> Iterator[Record]:
    """Records of a JSONL log; problems go to `warnings` with file and line."""
    for rl in iter_lines(data):
        raw = rl.raw
        value = _loads(raw)
        if value is _MISSING and b"\x00" in raw:
            stripped = raw.replace(b"\x00", b"")
            if not stripped.strip():
                counters["unparsable"] = counters.get("unparsable", 0) + 1
                warnings.append(Warning_("nul-run", f"a run of {len(raw)} NUL bytes; skipped", source, rl.line))
                continue
            value = _loads(stripped)
            if value is not _MISSING:
                warnings.append(Warning_("nul-bytes", "NUL bytes removed from the line", source, rl.line))
        if value is _MISSING:
            yield from _recover(rl.raw, rl.offset, rl.complete, source, rl.line, warnings, counters)
            continue
        if not rl.complete:
            warnings.append(Warning_("no-final-newline", "last line has no newline (file still being written?)",
                                     source, rl.line))
        counters["records"] = counters.get("records", 0) + 1
        if not isinstance(value, dict):
            counters["unparsable"] = counters.get("unparsable", 0) + 1
            warnings.append(Warning_("not-an-object", "line is JSON but not an object; skipped", source, rl.line))
            continue
        yield _record(source, rl.line, rl.offset, raw, value)


def _record(source: str, line: int, offset: int, raw: bytes, value: dict[str, Any]) -> Record:
    rtype = value.get("type") if isinstance(value.get("type"), str) else None
    return Record(Evidence.make(source, line, offset, raw, sha256(raw), rtype), value)


def _recover(raw: bytes, offset: int, complete: bool, source: str, line: int, warnings: list[Warning_],
             counters: dict[str, int]) -> Iterator[Record]:
    """What can still be read from a damaged line: each complete object on it."""
    found = _objects(raw) if len(raw) < 64_000_000 else []
    if not found:
        counters["unparsable"] = counters.get("unparsable", 0) + 1
        if not complete:
            warnings.append(Warning_("truncated-line", "last line is cut off (file still being written?); "
                                     "skipped", source, line))
        else:
            warnings.append(Warning_("unparsable-line", f"line is not JSON ({len(raw)} bytes); skipped",
                                     source, line))
        return
    warnings.append(Warning_("damaged-line", f"line is damaged (spliced, cut or with junk); kept the {len(found)} "
                             "complete record(s) in it", source, line))
    counters["damaged"] = counters.get("damaged", 0) + 1
    for value, b0, b1 in found:
        counters["records"] = counters.get("records", 0) + 1
        yield _record(source, line, offset + b0, raw[b0:b1], value)


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
