"""OpenCode subagents: each runs in a session of its own, read with the session that ran it.

The task tool (tool/task.ts) creates the subagent's session in the same project, its
`parentID` the calling session, and names it in the call's `state.metadata.sessionId`; the
session's first user message is the call's `prompt`. A subagent may run subagents of its own
(when its agent may use the task tool), and a call with `task_id` goes on in a session made
before. Reading a main session also reads, depth first, every session whose `parentID` is one
read: their events get actor `subagent:<session id>`, their user words are the task their
parent's actor gave (`subagent_input` notes), and they follow the call that ran them (inside
it, before its result), linked to it by the id the call names (rule `state.metadata.sessionId`)
or, when no call names it, by its task being the prompt of exactly one task call
(`identical-prompt`). A session no call can be tied to is placed by time, unlinked, and said.
"""

from __future__ import annotations

from collections.abc import Callable

from ...evidence import Event, Session
from ...payloads import Link, NoteInfo
from .._threads import IDENTICAL_PROMPT, add_subagent, fold, interleave, link_thread, place_threads, read_thread
from ._build import Thread

LINK_RULE = "state.metadata.sessionId"
# the sessions whose parent is a session id, each as (its id, its name in the evidence): the
# storage's project folder or the database's session table says
Children = Callable[[str], list[tuple[str, str]]]
ReadChild = Callable[[str, str], Thread]  # (a subagent's session id, its parent's actor) -> its thread
# the name of a session a call names whose parent could not be known (its file may not be read),
# or None: read as a child all the same, its failure said
Unknown = Callable[[str], str | None]


def read_subagents(top: Thread, children: Children, read: ReadChild, unknown: Unknown | None = None) -> None:
    """Add to `top` the sessions of its subagents, theirs too."""
    s = top.session
    threads: dict[str, Thread] = {}
    parent_of: dict[str, str] = {}
    queue = [top]
    while queue:
        t = queue.pop(0)
        kids = children(t.session.session_id)
        known = {cid for cid, _ in kids}
        kids += [(cid, name) for cid in t.spawned if unknown is not None and cid not in known
                 and (name := unknown(cid)) is not None]
        for cid, name in kids:
            if cid in threads or cid == s.session_id:
                continue  # a parent chain that loops: read once
            child = read_thread(s, "session", name, read, cid, t.actor)
            if child is None:
                continue
            fold(child.session, s)
            threads[cid], parent_of[cid] = child, t.session.session_id
            queue.append(child)
    if threads:
        _place(top, threads, parent_of)


def _task_of(t: Thread) -> str | None:
    return next((e.text for e in t.session.events if e.kind == "note" and isinstance(e.info, NoteInfo)
                 and e.info.subtype == "subagent_input" and e.text), None)


def _place(top: Thread, subs: dict[str, Thread], parent_of: dict[str, str]) -> None:
    s = top.session
    ran_by: dict[str, tuple[str, str, str]] = {}  # subagent -> (its parent's id, the call, the rule)
    runs: dict[tuple[str, str], str] = {}  # (thread, call) -> the subagent it ran
    for cid, child in subs.items():
        pid = parent_of[cid]
        pt = top if pid == s.session_id else subs[pid]
        call = pt.spawned.get(cid)
        rule = LINK_RULE
        if call is None or (pid, call) in runs:
            task = _task_of(child)
            calls = [e.call_id for e in pt.tasks if task and isinstance(e.args, dict) and e.args.get("prompt") == task
                     and e.call_id and (pid, e.call_id) not in runs]
            call, rule = (calls[0], IDENTICAL_PROMPT) if len(calls) == 1 else (None, "")
        if call is not None:
            ran_by[cid] = (pid, call, rule)
            runs[(pid, call)] = cid
    placed: set[str] = set()

    def adopt(child: str, at: str, call: Event) -> list[Event]:
        _adopt(subs[child], child, ran_by[child], s, abandoned=call.abandoned)
        return subs[child].session.events

    def threaded(events: list[Event], tid: str) -> list[Event]:
        # each task call followed by the work of the subagent it ran, theirs inside it
        return place_threads(events, tid, lambda at, cid: runs.get((at, cid)), adopt, placed)

    streams = [threaded(s.events, s.session_id)]
    for cid, child in subs.items():
        if cid not in placed:
            placed.add(cid)
            s.warn("unlinked-subagent", f"subagent session {cid}: no task call read names it ({LINK_RULE}) or gave "
                   "it its task; its steps are placed by time without a causal link",
                   child.session.files[0].path if child.session.files else None)
            _adopt(child, cid, None, s, abandoned=False)
            streams.append(threaded(child.session.events, cid))
    s.events = interleave(streams) if len(streams) > 1 else streams[0]


def _adopt(child: Thread, cid: str, ran_by: tuple[str, str, str] | None, s: Session, *, abandoned: bool) -> None:
    """`child`'s events linked to the call that ran it and its facts listed among the main
    session's; all of them abandoned when that call is (a reverted turn ran it)."""
    events = child.session.events
    if abandoned:
        for e in events:
            if not e.abandoned:
                e.abandoned = True
                s.quality.abandoned_events += 1
    if ran_by is not None:
        link_thread(events, child.actor, Link(subagent=cid, parent_thread_id=ran_by[0], parent_call_id=ran_by[1],
                                              link_rule=ran_by[2]))
    meta = child.session.meta
    add_subagent(s.meta, meta.models, {
        "id": cid,
        "actor": child.actor,
        "file": child.session.files[0].path if child.session.files else None,
        "parent_thread_id": ran_by[0] if ran_by else None,
        "parent_call_id": ran_by[1] if ran_by else None,
        "link_rule": ran_by[2] if ran_by else None,
        "title": meta.extra.get("ai_title"),
        "models": list(meta.models),
        "token_usage": dict(meta.token_usage),
    })
