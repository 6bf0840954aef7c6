"""An asciicast file (v2 or v3) read line by line, each line located exactly.

Both versions are newline-delimited JSON (docs.asciinema.org/manual/asciicast/v2, /v3): the
first line is the header object, every other line one event `[time, code, data]`.

* v2: `time` is seconds since the recording began; header `width`/`height`.
* v3: `time` is the interval since the previous event (so times are summed); header `term`
  (`cols`, `rows`, `type`), `command`, `title`; lines starting with `#` are comments.
* codes: `o` output written to the terminal, `i` input typed (recorded only with
  `--stdin`/input capture), `r` resize (`"COLSxROWS"`), `m` marker, `x` (v3) exit status of
  the recorded process. Other codes are kept as unknown records.

Each line (blank lines aside) becomes one `Evidence` covering its exact bytes; a line that is
not an event is a `Problem` naming it (counted as unparsable, never silently dropped).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from ...evidence import Evidence
from .._records import MAX_DEPTH, Problem, _scrub, too_deep_members
from ..json_doc import read_object_array
from ..lines import iter_lines, sha256

KNOWN_CODES = frozenset("oirmx")
_SURROGATE = re.compile("[\ud800-\udfff]")
_BOM = b"\xef\xbb\xbf"


@dataclass(slots=True)
class CastEvent:
    ev: Evidence  # the line's bytes in the file
    t: float  # seconds since the recording began (v3 intervals summed)
    code: str
    data: str


@dataclass(slots=True)
class Cast:
    version: int
    header: dict[str, Any]
    header_ev: Evidence
    events: list[CastEvent] = field(default_factory=list)
    comments: list[Evidence] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    start: datetime | None = None  # header `timestamp`, when it is a time

    def iso(self, t: float) -> str | None:
        """ISO 8601 UTC of `t` seconds into the recording (header timestamp + t), to the µs."""
        if self.start is None:
            return None
        try:
            dt = self.start + timedelta(microseconds=round(t * 1e6))
        except OverflowError:
            return None
        return dt.isoformat(timespec="microseconds").replace("+00:00", "Z")


def header_of(first_line: bytes) -> dict[str, Any] | None:
    """The header object when `first_line` is an asciicast v2/v3 header, else None."""
    got = _header(first_line)
    return got[0] if got is not None else None


def _header(first_line: bytes) -> tuple[dict[str, Any], list[str]] | None:
    """The header object when `first_line` is an asciicast v2/v3 header, with the names of its
    members left out of it for nesting deeper than MAX_DEPTH (later stages walk values
    recursively, the scrub in `parse` too); else None."""
    try:
        h = json.loads(first_line)
    except ValueError:
        return None
    except RecursionError:  # deeper than the parser goes: its members one by one, the deep ones passed over
        doc = read_object_array(first_line, "", None)
        if doc is None or any(code != "too-deep" for code, _, _ in doc.problems):
            return None
        h, deep = doc.header, doc.deep
    else:
        deep = too_deep_members(first_line, h) if isinstance(h, dict) else []
        for key in deep:
            del h[key]
    if not isinstance(h, dict) or h.get("version") not in (2, 3) or isinstance(h.get("version"), bool):
        return None
    if h["version"] == 2 and not ("width" in h or "height" in h):
        return None
    if h["version"] == 3 and not isinstance(h.get("term"), dict):
        return None
    return h, deep


def parse(data: bytes, source: str) -> Cast | None:
    """The recording in `data`; None when its first line is not an asciicast v2/v3 header."""
    lines = iter_lines(data)
    first = next(lines, None)
    if first is None:
        return None
    # a BOM (a Windows editor's save) is no part of the header: its evidence starts after it,
    # so the bytes cited parse as the JSON they are
    raw, offset = first.raw, first.offset
    bom = raw.startswith(_BOM)
    if bom:
        raw, offset = raw[len(_BOM):], offset + len(_BOM)
    got = _header(raw)
    if got is None:
        return None
    header, deep = got
    hev = Evidence.make(source, first.line, offset, raw, sha256(raw), "header")
    problems: list[Problem] = []
    if bom:
        problems.append(Problem("bom", "the file starts with a UTF-8 byte order mark; read from the byte after it",
                                first.line))
    # left out of the header, as a too-deep record is, and the rest read; the header itself is
    # read (its evidence is metadata), so this is no unparsable record (evidence.UNPARSABLE_WARNINGS)
    for key in deep:
        problems.append(Problem("too-deep-value", f"header member {key!r} nests values more than {MAX_DEPTH} "
                                "levels deep; not read", first.line))
    cast = Cast(int(header["version"]), _scrub(header), hev, problems=problems)  # lone surrogates → U+FFFD
    cast.start = _start(header, cast.problems, first.line)
    clock = 0.0
    for ln in lines:
        if cast.version == 3 and ln.raw.startswith(b"#"):
            cast.comments.append(Evidence.make(source, ln.line, ln.offset, ln.raw, sha256(ln.raw), "comment"))
            continue
        ev = _event(ln.raw, cast.problems, ln.line)
        if ev is None:
            continue
        t, code, text = ev
        if cast.version == 3:
            if t < 0:
                cast.problems.append(Problem("negative-interval", f"interval {t} is negative; read as 0", ln.line))
            clock += max(t, 0.0)
        else:
            if t < clock:
                cast.problems.append(Problem("time-goes-back", f"time {t} is before the event before it ({clock})",
                                             ln.line))
            clock = t
        rtype = f"event_{code}" if code in KNOWN_CODES else "event"
        evd = Evidence.make(source, ln.line, ln.offset, ln.raw, sha256(ln.raw), rtype)
        cast.events.append(CastEvent(evd, clock, code, text))
    return cast


def _start(header: dict[str, Any], problems: list[Problem], line: int) -> datetime | None:
    ts = header.get("timestamp")
    if ts is None:
        problems.append(Problem("no-timestamp", "the header has no timestamp: the commands have no times", line))
        return None
    if isinstance(ts, bool) or not isinstance(ts, int | float):
        problems.append(Problem("bad-timestamp", f"header timestamp {ts!r} is not a number; no times", line))
        return None
    try:
        return datetime.fromtimestamp(ts, tz=UTC)
    except (OverflowError, OSError, ValueError):
        problems.append(Problem("bad-timestamp", f"header timestamp {ts!r} is not a date; no times", line))
        return None


def _event(raw: bytes, problems: list[Problem], line: int) -> tuple[float, str, str] | None:
    try:
        v = json.loads(raw)
    except (ValueError, RecursionError):
        problems.append(Problem("unparsable-line", "not a JSON event line", line))
        return None
    if not (isinstance(v, list) and len(v) == 3):
        problems.append(Problem("unparsable-line", "not a [time, code, data] event", line))
        return None
    t, code, text = v
    if isinstance(t, bool) or not isinstance(t, int | float) or not _finite(t) \
            or not isinstance(code, str) or not isinstance(text, str):
        problems.append(Problem("unparsable-line", "an event whose time, code or data has the wrong type", line))
        return None
    if _SURROGATE.search(text):
        # JSON can escape a lone surrogate, which is no character: it cannot be written as UTF-8
        problems.append(Problem("lossy-text", "data holds a lone surrogate (\\ud800-\\udfff); read as U+FFFD",
                                line))
        text = _SURROGATE.sub("\ufffd", text)
    return float(t), code, text


def _finite(t: int | float) -> bool:
    """A time that is a number of seconds (JSON allows integers past any float, and NaN)."""
    try:
        return math.isfinite(t)
    except OverflowError:
        return False
