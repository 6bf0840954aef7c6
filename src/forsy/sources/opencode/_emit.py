"""What every part reader of one OpenCode session uses: its session, the actor its events are
by, and how an event, a time and a ledger mark are made from a record."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ...evidence import Event, Ref, Session, pointer
from .._records import Record

Time = tuple[str | None, Ref | None]
NO_TIME: Time = (None, None)


def iso_ms(ms: Any) -> str | None:
    """An epoch-milliseconds time (OpenCode's `Date.now()`) as ISO 8601 UTC, or None."""
    if not isinstance(ms, int) or isinstance(ms, bool) or not 0 < ms < 10**14:
        return None
    # whole seconds, then the ms as they are: `ms / 1000` is a float that loses a ms near 10**14
    t = datetime.fromtimestamp(ms // 1000, tz=UTC).replace(microsecond=ms % 1000 * 1000)
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def get(d: Any, *path: str) -> Any:
    for k in path:
        d = d.get(k) if isinstance(d, dict) else None
    return d


class Emitter:
    """Events of one session (`s`) by `actor`; `abandoned` while the messages read are after a
    revert point (each event made then is flagged and counted)."""

    def __init__(self, s: Session, actor: str) -> None:
        self.s, self.actor = s, actor
        self.abandoned = False

    def ev(self, kind: Any, rec: Record, ptr: str, t: Time, **fields: Any) -> Event:
        e = Event(kind, fields.pop("actor", self.actor), t[0], [Ref(rec.ev.id, ptr)], ts_from=t[1], **fields)
        e.abandoned = self.abandoned
        self.s.events.append(e)
        if self.abandoned:
            self.s.quality.abandoned_events += 1
        return e

    @staticmethod
    def time(rec: Record | None, *path: str) -> Time:
        """A time the record holds (epoch ms, written as ISO: derived, R-time, from its place)."""
        iso = iso_ms(get(rec.data, *path)) if rec is not None else None
        return (iso, Ref(rec.ev.id, pointer(*path))) if rec is not None and iso else NO_TIME

    @staticmethod
    def first(*times: Time) -> Time:
        """The first of `times` that is a time (a part's own, else its message's)."""
        return next((t for t in times if t[0]), NO_TIME)

    def mark(self, rec: Record | None, heading: Any, name: str) -> None:
        """Why a record no step may cite was read (its record type is its role or part type)."""
        if rec is not None:
            self.s.mark(rec.ev.id, heading, name)

    def count(self, key: str) -> None:
        self.s.quality.extra[key] = self.s.quality.extra.get(key, 0) + 1
