"""A session whose agents wrote one file each (a parent and the subagents it spawned): their
events interleaved by time, and a subagent's file read on its own folded into its parent's session."""

from __future__ import annotations

import dataclasses
import heapq

from ..evidence import Event, Quality, Session


def interleave(streams: list[list[Event]]) -> list[Event]:
    """Interleave threads by timestamp; each keeps its own order (heapq.merge only ever
    takes from the front of a stream), and the first stream wins ties. An event without a time
    sorts at the time before it in its stream (at the start: the stream's first time)."""

    def keyed(events: list[Event], rank: int) -> list[tuple[str, int, int, Event]]:
        out, last = [], next((ev.ts for ev in events if ev.ts), "")
        for i, ev in enumerate(events):
            last = ev.ts or last
            out.append((last, rank, i, ev))
        return out

    merged = heapq.merge(*(keyed(s, r) for r, s in enumerate(streams)), key=lambda t: (t[0], t[1], t[2]))
    return [t[3] for t in merged]


def fold(sub: Session, into: Session) -> None:
    """What reading `sub` saw (files, evidence, ledger marks, warnings, counts) added to `into`;
    its events and session facts are the caller's to place."""
    into.files.extend(sub.files)
    for ev_id, ev in sub.evidence.items():
        into.evidence.setdefault(ev_id, ev)
    into.ledger.update(sub.ledger)
    into.warnings.extend(sub.warnings)
    add_quality(sub.quality, into.quality)


def add_quality(q: Quality, into: Quality) -> None:
    for f in dataclasses.fields(Quality):
        if f.name == "extra":
            for k, v in q.extra.items():
                into.extra[k] = into.extra.get(k, 0) + v
        else:
            setattr(into, f.name, getattr(into, f.name) + getattr(q, f.name))
