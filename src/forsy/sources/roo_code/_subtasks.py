"""Roo Code subtasks: a `new_task` call opens a task of its own, in a folder beside its parent's.

What the writer records (RooCodeInc/Roo-Code): the child's history entry names its parent
and root (`parentTaskId`, `rootTaskId`: Task.ts, taskMetadata.ts), written to the child's
folder as `history_item.json` from February 2026 (TaskHistoryStore.ts, b598efb422; before,
only in the editor's state, which forsy does not read); the parent's entry lists its children
(`childIds`, from 9b5f6392df, November 2025). In the parent's API history, from 9b5f6392df, the
child's return is the new_task call's result "Subtask <child id> completed.\\n\\nResult:\\n…"
(ClineProvider.ts `reopenParentFromDelegation`); before, "Successfully created new task in <mode>
mode with message: …" and, when the child ended, "[new_task completed] Result: …" (no id).

Reading a task also reads, depth first, every task beside it whose history entry names it as
parent: their events get actor `subagent:<task id>`, the child's first words (the message the
new_task call gave it) are a `subagent_input` note of the parent's actor, and they follow the
call that ran them, linked to it by the result that names the child's id (rule
`roo-subtask-id`) or, when none does, by the child's task being the `message` of exactly one
new_task call (`identical-prompt`); a child no call can be tied to is placed by time and said.
A child whose entry names no parent (older tasks) is read alone; the parent lists the ids its
results name (`agent_config.subtasks_named`).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from pathlib import Path

from ...evidence import Event, Session
from ...payloads import Link, NoteInfo
from .. import ReadContext
from .._side import unreadable
from .._threads import (
    IDENTICAL_PROMPT,
    add_subagent,
    calls_giving,
    fold,
    interleave,
    link_thread,
    place_threads,
    read_thread,
)
from ..lines import HEAD, source_name

LINK_RULE = "roo-subtask-id"
HISTORY = "history_item.json"
PARENT = re.compile(rb'"parentTaskId"\s*:\s*"([^"\\/]+)"')
ReadTask = Callable[[Path, ReadContext], Session]


def children(folder: Path) -> list[Path]:
    """The task folders beside `folder` whose history entry names it as their parent."""
    tasks = folder.parent
    try:
        stamp = os.stat(tasks).st_mtime_ns
    except OSError:
        return []
    return [tasks / c for c in _index(str(tasks), stamp).get(folder.name, [])]


@functools.lru_cache(maxsize=8)
def _index(tasks: str, stamp: int) -> dict[str, list[str]]:
    """parent id -> its children's ids, from every history entry in the tasks folder (once per
    change of the folder)."""
    out: dict[str, list[str]] = {}
    try:
        entries = sorted(os.scandir(tasks), key=lambda e: e.name)
    except OSError:
        return out
    for e in entries:
        try:
            with open(os.path.join(e.path, HISTORY), "rb") as f:
                m = PARENT.search(f.read(HEAD))
        except OSError:
            continue
        if m is not None and (pid := m.group(1).decode("utf-8", "replace")) != e.name:
            out.setdefault(pid, []).append(e.name)
    return out


def read_subtasks(folder: Path, s: Session, ctx: ReadContext, read: ReadTask) -> None:
    """Add to `s` (read from `folder`) its subtasks', and theirs (module docstring)."""
    subs: dict[str, Session] = {}
    parent: dict[str, str] = {}
    queue = [folder]
    while queue:
        f = queue.pop(0)
        kids = children(f)
        _unread(f, kids, subs.get(f.name, s), s, ctx)
        for c in kids:
            if c.name in subs or c.name == s.session_id:
                continue  # a chain that loops: read once
            sub = read_thread(s, "task", source_name(c, ctx.root), read, c, ctx)
            if sub is None:
                continue
            fold(sub, s)
            subs[c.name], parent[c.name] = sub, f.name
            queue.append(c)
    if subs:
        _place(s, subs, parent)


def _unread(f: Path, kids: list[Path], task: Session, s: Session, ctx: ReadContext) -> None:
    """The subtasks the task of `f` names (its `childIds`, a result) that are not among its
    children because their history entry, which says whose they are, may not be read: named
    on `s` with the task's file, their work not here."""
    extra = task.meta.extra
    named = [*(extra.get("child_task_ids") or []), *(extra.get("subtasks_named") or {})]
    for cid in dict.fromkeys(c for c in named if isinstance(c, str) and c.strip(".") and "/" not in c):
        c = f.parent / cid
        if c in kids or cid == f.name:
            continue
        try:
            with open(c / HISTORY, "rb"):
                continue
        except (FileNotFoundError, NotADirectoryError):
            continue  # no such folder here, or one of a task older than history entries: nothing to tell
        except OSError as e:
            unreadable(s, task.files[0].path if task.files else None, f"{source_name(c, ctx.root)}/", e,
                       "a subtask's work is not here")


def _place(s: Session, subs: dict[str, Session], parent: dict[str, str]) -> None:
    sessions = {s.session_id: s, **subs}
    actor = {s.session_id: "agent", **{c: f"subagent:{c}" for c in subs}}
    runs: dict[tuple[str, str], str] = {}  # (thread, call) -> the subtask it ran
    ran_by: dict[str, tuple[str, str, str]] = {}
    for cid, sub in subs.items():
        for e in sub.events:
            if e.actor == "agent":
                e.actor = actor[cid]
        pid = parent[cid]
        task = _given(sub, actor[pid])
        named = sessions[pid].meta.extra.get("subtasks_named")
        call = named.get(cid) if isinstance(named, dict) else None
        rule = LINK_RULE
        if not call:
            calls = [e for e in calls_giving(task, sessions[pid].events, actor[pid]) if e.tool == "new_task"] \
                if task else []
            call, rule = (calls[0].call_id, IDENTICAL_PROMPT) if len(calls) == 1 else (None, "")
        if call and (pid, call) not in runs:
            runs[(pid, call)] = cid
            ran_by[cid] = (pid, call, rule)
    placed: set[str] = set()

    def adopt(child: str, at: str, call: Event) -> list[Event]:
        _adopt(subs[child], child, ran_by.get(child), s)
        return subs[child].events

    def threaded(events: list[Event], tid: str) -> list[Event]:
        return place_threads(events, tid, lambda at, call: runs.get((at, call)), adopt, placed)

    streams = [threaded(s.events, s.session_id)]
    for cid, sub in subs.items():
        if cid not in placed:
            placed.add(cid)
            s.warn("unlinked-subagent", f"subtask {cid}: no new_task call read names it ({LINK_RULE}) or gave it "
                   "its task; its steps are placed by time without a causal link",
                   sub.files[0].path if sub.files else None)
            _adopt(sub, cid, None, s)
            streams.append(threaded(sub.events, cid))
    s.events = interleave(streams) if len(streams) > 1 else streams[0]


def _given(sub: Session, by: str) -> str | None:
    """The subtask's first words, the message its parent's call gave it: a `subagent_input`
    note of the parent's actor (`by`), no longer the person's."""
    first = next((e for e in sub.events if e.kind == "user"), None)
    if first is None:
        return None
    first.kind, first.actor = "note", by
    first.info = NoteInfo(subtype="subagent_input")
    return first.text


def _adopt(sub: Session, cid: str, ran_by: tuple[str, str, str] | None, s: Session) -> None:
    if ran_by is not None:
        link_thread(sub.events, f"subagent:{cid}", Link(subagent=cid, parent_thread_id=ran_by[0],
                                                        parent_call_id=ran_by[1], link_rule=ran_by[2]))
    meta = sub.meta
    add_subagent(s.meta, meta.models, {
        "id": cid, "actor": f"subagent:{cid}", "file": sub.files[0].path if sub.files else None,
        "parent_thread_id": ran_by[0] if ran_by else None, "parent_call_id": ran_by[1] if ran_by else None,
        "link_rule": ran_by[2] if ran_by else None, "mode": meta.extra.get("mode"),
        "token_usage": dict(meta.token_usage)})
