"""Timestamps: one definition of what a time is, how times are ordered, and what is odd about them.

Logs say when things happened as strings, and strings do not sort like times:
"2026-05-01T10:00:00+02:00" sorts after "2026-05-01T09:30:00Z" yet is half an hour earlier,
and "+275760-09-13T00:00:00.000Z" (JavaScript's largest date) sorts before every year 2026.
Everything in forsy that reads, orders or writes a time goes through this module.

What forsy accepts as a time (`parse_iso`)::

    YYYY-MM-DD
    YYYY-MM-DD<sep>hh:mm[:ss[<frac>]][<offset>]
        <sep>     'T', 't' or one space (RFC 3339 allows the space)
        <frac>    '.' or ',' then one or more digits (any length; beyond microseconds is
                  dropped for comparison, the string itself is never rewritten)
        <offset>  'Z', or +hh:mm, +hhmm, +hh (or '-'), strictly within ±24 hours

ASCII digits only; the date must exist (no 30 February, hour 24 or second 60). A time without
an offset is accepted (it is ISO 8601) but cannot be placed exactly: for ordering forsy reads
it as UTC, like `timeline` and the git source do, and `forsy validate` warns about it (H002).
This is a strict subset of what `datetime.fromisoformat` (and so the independent checker
forsy_check.py) reads: week dates, ordinal dates, the basic format ("20260501T100000Z") and a
lowercase 'z' are refused, so a time forsy writes is one every reader of the format can read.

A time is *placeable* (`instant`) when it parses and lies in [1990-01-01, 2100-01-01) UTC.
Outside that range a timestamp is not a reliable time but a zero value or a broken clock:
1970-01-01 (epoch 0, also shifted by a time zone into 1969), 1980 and 1904 (the DOS and Mac
epochs), 9999-12-31 sentinels, JavaScript's +275760. No log forsy reads can predate 1990 —
the agent logs are from 2023 on, bash began writing history timestamps in 2004, atuin in
2021 — and a fixed bound keeps the output the same whatever the clock of the machine running
forsy says. Unplaceable times are never used to order anything and never written to a trace
(see docs/rules.md, T-times).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Literal

from .errors import InputError
from .evidence import Event, ReadingWarning, Session

EARLIEST = datetime(1990, 1, 1, tzinfo=UTC)
LATEST = datetime(2100, 1, 1, tzinfo=UTC)  # exclusive

# Records of one thread of one file whose times go backwards by no more than this are not
# reported. Measured on the real Claude Code and Codex logs in ../shared/real_logs: within a
# (file, thread) the largest step back is 56 ms (records written by concurrent tasks).
ORDER_TOLERANCE = timedelta(seconds=1)

Status = Literal["ok", "unparsable", "out_of_range"]

_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"(?:[Tt ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]+)?)?(?:Z|[+-][0-9]{2}(?::?[0-9]{2})?)?)?"
)
# ISO 8601's expanded years ("+275760-09-13T00:00:00.000Z"): a time, but not one any trace
# reader can hold (datetime stops at 9999), so it is out of range rather than unparsable.
_EXPANDED = re.compile(r"[+-][0-9]{5,}-[0-9]{2}-[0-9]{2}(?:[Tt ].*)?", re.DOTALL)


def parse_iso(value: object) -> datetime | None:
    """The datetime a timestamp states, as written (naive when it has no offset), or None
    when it is not a time in the form described above."""
    if not isinstance(value, str) or not _TIME.fullmatch(value):
        return None
    try:
        # the reading of forsy_check.py, restricted by the pattern to forms every reader accepts
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:  # a date that does not exist, an offset of 24 hours or more
        return None


def time_bound(value: str, name: str) -> str:
    """A time given to filter by (`--since`, `until`), as given, when it is one: a typo is
    refused naming `name`, never a filter that silently matches nothing (or everything), as
    text compared with the stored times would."""
    if parse_iso(value) is None:
        raise InputError(f"unknown {name} {value[:40]!r}; give a date (2026-01-31) or an ISO time "
                         "(2026-01-31T10:00, 2026-01-31T10:00:00Z, 2026-01-31T12:00:00+02:00)")
    return value


def aware(dt: datetime) -> datetime:
    """`dt` with a time zone: a time written without an offset is read as UTC."""
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def in_range(dt: datetime) -> bool:
    return EARLIEST <= aware(dt) < LATEST


def status(value: object) -> Status:
    dt = parse_iso(value)
    if dt is not None:
        return "ok" if in_range(dt) else "out_of_range"
    if isinstance(value, str) and _EXPANDED.fullmatch(value):
        return "out_of_range"
    return "unparsable"


def instant(value: object) -> datetime | None:
    """The aware datetime of a placeable time (parses, within range), else None."""
    return _instant(value) if isinstance(value, str) else None


@lru_cache(maxsize=1 << 16)  # a step's times are read again by each stage (datetimes do not change)
def _instant(value: str) -> datetime | None:
    dt = parse_iso(value)
    if dt is None or not in_range(dt):
        return None
    return aware(dt)


def forget() -> None:
    """Drop the times read so far (a file is done): kept, the cache's strings and datetimes,
    made while the file was read, pin the memory pages the file's records were freed from."""
    _instant.cache_clear()


def order_key(value: object) -> tuple[int, datetime]:
    """Sort key that orders times as times; values that are not placeable sort last."""
    t = instant(value)
    return (0, t) if t is not None else (1, LATEST)


def span(values: Iterable[str | None]) -> tuple[str | None, str | None]:
    """The earliest and the latest placeable value, each exactly as written (the first one
    written wins a tie), or (None, None) when none is placeable."""
    first: tuple[datetime, str] | None = None
    last: tuple[datetime, str] | None = None
    for v in values:
        t = instant(v)
        if t is None or v is None:
            continue
        if first is None or t < first[0]:
            first = (t, v)
        if last is None or t > last[0]:
            last = (t, v)
    if first is None or last is None:
        return None, None
    return first[1], last[1]


# ---------------------------------------------------------------------- the session check
@dataclass
class _Finding:
    """Odd times of one kind in one file: how many records, and the first one."""

    count: int
    line: int | None
    detail: str


def _shown(value: str) -> str:
    return repr(value[:40]) + ("…" if len(value) > 40 else "")


def check_times(session: Session) -> list[ReadingWarning]:
    """Warnings about the session's timestamps, at most one per kind per file, each naming the
    file and the line of the first record concerned. The events are not changed.

    * time-unparsable: a timestamp that is not a time in the accepted form;
    * time-out-of-range: a time before 1990 or from 2100 on;
    * time-out-of-order: a record timed more than ORDER_TOLERANCE before the record before it
      in the same file and thread (a subagent's records are a thread of their own).

    Call it before redaction: a message quotes the first odd value (shortened), and redaction
    masks warnings like everything else.
    """
    found: dict[tuple[str, str], _Finding] = {}
    seen: set[str] = set()  # evidence ids: one record with several events counts once
    placed: dict[tuple[str, str], list[tuple[int, int, datetime, str]]] = {}
    for e in session.events:
        where = _where(session, e)
        if e.ts is None or where is None:
            continue
        eid, source, line, offset = where
        if eid in seen:
            continue
        seen.add(eid)
        t = instant(e.ts)
        if t is not None:
            thread = e.actor if e.actor.startswith("subagent:") else "main"
            placed.setdefault((source, thread), []).append((line or 0, offset, t, e.ts))
            continue
        st = status(e.ts)
        f = found.get((st, source))
        if f is None:
            found[(st, source)] = _Finding(1, line, _shown(e.ts))
        else:
            f.count += 1
    for (source, _thread), recs in placed.items():
        _order(recs, source, found)
    return [_warning(kind, source, f) for (kind, source), f in found.items()]


def _where(session: Session, e: Event) -> tuple[str, str, int | None, int] | None:
    ref = e.ts_ref or (e.refs[0] if e.refs else None)
    ev = session.evidence.get(ref.ev) if ref is not None else None
    if ev is None:
        return None
    return ev.id, ev.source, ev.line, ev.byte_offset


def _order(recs: list[tuple[int, int, datetime, str]], source: str,
           found: dict[tuple[str, str], _Finding]) -> None:
    recs.sort(key=lambda r: (r[0], r[1]))  # file order: line, then byte offset
    for prev, cur in zip(recs, recs[1:], strict=False):
        if prev[2] - cur[2] <= ORDER_TOLERANCE:
            continue
        f = found.get(("out_of_order", source))
        if f is None:
            found[("out_of_order", source)] = _Finding(
                1, cur[0] or None, f"{_shown(cur[3])} after {_shown(prev[3])}")
        else:
            f.count += 1


def _warning(kind: str, source: str, f: _Finding) -> ReadingWarning:
    if kind == "unparsable":
        msg = (f"{f.count} record(s) have a timestamp that is not an ISO 8601 time forsy reads "
               f"(first: {f.detail}); their steps get no time from it")
    elif kind == "out_of_range":
        msg = (f"{f.count} record(s) have a timestamp before 1990 or after 2099, a zero value or a broken "
               f"clock (first: {f.detail}); their steps get no time from it")
    else:
        msg = (f"{f.count} time(s) go back more than {ORDER_TOLERANCE.total_seconds():g} s from the record "
               f"before (first: {f.detail}); steps keep the log's order, trace times are the true "
               f"earliest and latest")
    return ReadingWarning(f"time-{kind.replace('_', '-')}", msg, source, f.line)
