"""A session whose agents wrote one file each (a parent and the subagents it spawned): their
events interleaved by time, a subagent's file read on its own folded into its parent's session,
its thread linked to the call that ran it, and listed in the session's facts."""

from __future__ import annotations

import dataclasses
import heapq
from typing import Any

from ..evidence import Event, Quality, Session, SessionMeta
from ..payloads import Link


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


def link_thread(events: list[Event], actor: str, link: Link) -> None:
    """`link` on a subagent thread's first event and on its first event by `actor` itself (the
    first may be the task its parent wrote)."""
    own = next((e for e in events if e.actor == actor), None)
    for e in {id(e): e for e in [*events[:1], *([own] if own else [])]}.values():
        e.link = dataclasses.replace(link)


def calls_giving(task: str, events: list[Event], actor: str) -> list[Event]:
    """The calls by `actor` one of whose arguments, or a value of one (a map of tasks), is `task`
    exactly: how a subagent's task ties it to its call when the call's result does not name it."""
    def holds(args: object) -> bool:
        return isinstance(args, dict) and any(
            v == task or (isinstance(v, dict) and task in v.values()) for v in args.values())
    return [e for e in events if e.kind == "tool_call" and e.actor == actor and holds(e.args)]


def add_subagent(into: SessionMeta, models: list[str], entry: dict[str, Any]) -> None:
    """A subagent's models among the session's, and its entry in `agent_config.subagents`."""
    for model in models:
        if model not in into.models:
            into.models.append(model)
    into.extra.setdefault("subagents", []).append(entry)
