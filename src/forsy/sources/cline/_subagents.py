"""Cline SDK subagents and teammates: each writes a transcript of its own beside its root
session's, read with it.

What the SDK writes (sdk/packages/core/src): a subagent's messages go to
`<sessions>/<root session id>/<agent id>.messages.json`, a teammate's team task to
`<agent id>__<task id>.messages.json` (services/session-artifacts.ts
`subagentArtifactPaths`), beside the root's `<root session id>.messages.json`; their header's
`agent` is `subagent` or `teammate`, `origin.parentThreadId` the session that ran them
(services/session-data.ts `resolveMessagesFileContext`). The call that ran a subagent returns
its answer, not its id (extensions/tools/team/configured-agent-tool.ts): the task it was given
(`subAgent.run(input.prompt)`) is what ties them.

Reading a root session also reads the other transcripts in its folder. Their events get actor
`subagent:<agent id>` and are interleaved with the root's by time; their first event and first
own event are linked to the call, in the thread that ran them, whose arguments hold their first
task exactly, when exactly one call does (rule `identical-prompt`); else they are placed by
time with no link, and said. A transcript that cannot be read is said, the root read all the
same. A transcript whose root is not beside it is read on its own (`discover`, `session_of`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...evidence import Event, Session
from ...payloads import NoteInfo
from .. import ReadContext
from .._threads import IDENTICAL_PROMPT, add_subagent, fold, interleave, link_by_task, read_thread
from ..lines import name_text, source_name
from ._sdk import SUFFIX

ReadOne = Callable[[Path, ReadContext], Session]


def root_of(path: Path) -> Path | None:
    """The root session's transcript a subagent's or teammate's belongs to: the one named after
    their folder, when it is not `path` itself; else None."""
    root = path.parent / f"{path.parent.name}{SUFFIX}"
    if not path.name.endswith(SUFFIX) or path.name == root.name or not root.is_file():
        return None
    return root


def read_subagents(path: Path, s: Session, ctx: ReadContext, read_one: ReadOne) -> None:
    """Add to the root session `s` (read from `path`) the other transcripts in its folder."""
    if root_of(path) is not None or path.name != f"{path.parent.name}{SUFFIX}":
        return  # not a root's transcript: nothing beside it is its own
    subs: dict[str, Session] = {}
    for f in sorted(p for p in path.parent.glob("*" + SUFFIX) if p.is_file() and p != path):
        sub = read_thread(s, "transcript", source_name(f, ctx.root), read_one, f, ctx)
        if sub is None:
            continue
        fold(sub, s)  # a damaged one says so itself, and gives no events
        kind = sub.meta.extra.get("sdk_agent")
        if isinstance(kind, str) and kind not in ("subagent", "teammate"):
            s.warn("not-a-subagent", f"a transcript beside the root session's whose header says agent {kind!r}, "
                   "not a subagent or a teammate; read as a subagent's all the same", source_name(f, ctx.root))
        if sub.events:
            subs[name_text(f.name[: -len(SUFFIX)])] = sub  # its actor's name: text
    if not subs:
        return
    # each transcript's own events first, then who ran it: its parent may be another subagent
    for agent, sub in subs.items():
        for e in sub.events:
            if e.actor == "agent" and not _given(e):
                e.actor = f"subagent:{agent}"
    by_session = {sub.session_id: agent for agent, sub in subs.items()}
    for agent, sub in subs.items():
        origin = sub.meta.extra.get("sdk_origin")
        parent_id = origin.get("parentThreadId") if isinstance(origin, dict) else None
        parent = by_session.get(parent_id) if isinstance(parent_id, str) and parent_id != sub.session_id else None
        _adopt(agent, sub, s, (parent, subs[parent]) if parent is not None else (None, s))
    s.events = interleave([s.events, *(sub.events for sub in subs.values())])


def _given(e: Event) -> bool:
    return isinstance(e.info, NoteInfo) and e.info.subtype == "subagent_input"


def _task(events: list[Event]) -> str | None:
    first = next((e for e in events if _given(e)), None)
    return first.text if first is not None else None


def _adopt(agent: str, sub: Session, root: Session, parent: tuple[str | None, Session]) -> None:
    """`sub`'s task given by the agent that ran it (`parent`: its agent id, None for the root's
    agent, and its session), and its first events linked to the call that gave it."""
    actor, (parent_agent, parent_session) = f"subagent:{agent}", parent
    parent_actor = f"subagent:{parent_agent}" if parent_agent is not None else "agent"
    events = sub.events
    for e in events:
        if _given(e):
            e.actor = parent_actor
    thread = parent_session.session_id
    call = link_by_task(agent, events, _task(events), parent_session.events, parent_actor, thread, root,
                        sub.files[0].path if sub.files else None)
    add_subagent(root.meta, sub.meta.models, {
        "id": agent, "actor": actor, "file": sub.files[0].path if sub.files else None,
        "kind": sub.meta.extra.get("sdk_agent"), "parent_thread_id": thread if call else None,
        "parent_call_id": call, "link_rule": IDENTICAL_PROMPT if call else None, "models": list(sub.meta.models),
        "token_usage": dict(sub.meta.token_usage)})
