"""A session whose agents wrote one file each (a parent and the subagents it spawned): their
events interleaved by time, a subagent's file read on its own folded into its parent's session,
its thread linked to the call that ran it, and listed in the session's facts."""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Callable, Hashable
from typing import Any, ParamSpec, TypeVar

from ..errors import InputError
from ..evidence import Event, Quality, Session, SessionMeta
from ..payloads import Link
from ._side import why


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


T = TypeVar("T")
P = ParamSpec("P")
IDENTICAL_PROMPT = "identical-prompt"  # the link rule of a subagent tied to its call by its task


def read_thread(into: Session, what: str, name: str | None, read: Callable[P, T], *args: P.args,
                **kwargs: P.kwargs) -> T | None:
    """A subagent's file read by `read(*args, **kwargs)`, or None when it cannot be, said on
    `into` (the session it belongs to is read all the same). `what`: the agent's word for it."""
    try:
        return read(*args, **kwargs)
    except (InputError, OSError) as err:
        into.warn("subagent_unreadable", f"a subagent's {what} could not be read, its events are not here: "
                  f"{why(err)}", name)
        return None


def link_by_task(agent: str, events: list[Event], task: str | None, parent_events: list[Event], parent_actor: str,
                 parent_thread: str, into: Session, file: str | None) -> str | None:
    """Link the thread `events` of subagent `agent` to the call of its parent (actor
    `parent_actor`) that gave it `task`, when exactly one call did (`IDENTICAL_PROMPT`); else
    say on `into` that it is placed by time. The call's id, or None."""
    calls = calls_giving(task, parent_events, parent_actor) if task else []
    call = calls[0].call_id if len(calls) == 1 else None
    if call is not None:
        link_thread(events, f"subagent:{agent}", Link(subagent=agent, parent_thread_id=parent_thread,
                                                      parent_call_id=call, link_rule=IDENTICAL_PROMPT))
    else:
        why = "no call gave it its task" if not calls else f"{len(calls)} calls gave it the same task"
        into.warn("unlinked-subagent", f"subagent {agent}: {why}; its steps are placed by time without a causal "
                  "link", file)
    return call


K = TypeVar("K", bound=Hashable)


def place_threads(events: list[Event], owner: K, child_of: Callable[[K, str], K | None],
                  adopt: Callable[[K, K, Event], list[Event]], placed: set[K]) -> list[Event]:
    """`events` (of thread `owner`) with each call followed by the events of the thread it ran
    (`child_of(owner, call id)`; `adopt(child, owner, call)` links it and gives its events), and
    theirs inside them: depth first without recursion, so a chain of agents as deep as the log
    holds. Each thread is placed once (`placed`); the caller places those no call ran."""
    out: list[Event] = []
    stack = [(iter(events), owner)]
    while stack:
        it, at = stack[-1]
        e = next(it, None)
        if e is None:
            stack.pop()
            continue
        out.append(e)
        child = child_of(at, e.call_id) if e.kind == "tool_call" and e.call_id else None
        if child is not None and child not in placed:
            placed.add(child)
            stack.append((iter(adopt(child, at, e)), child))
    return out
