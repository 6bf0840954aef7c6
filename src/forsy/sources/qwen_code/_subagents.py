"""Qwen Code subagents: each writes a transcript of its own, read with its session.

What the CLI writes (packages/core/src/agents/agent-transcript.ts, `attachJsonlTranscriptWriter`):

* `<project>/subagents/<session id>/agent-<agent id>.jsonl` beside the project's `chats/`
  folder (both names through `sanitizeFilenameComponent`: `[^a-zA-Z0-9_-]` → `_`): records of the
  main chat's shape, each with `agentId`, `agentName`, `isSidechain: true` and the parent's
  `sessionId`; the task first (a `user` record), then one `assistant` record per round's text
  and one per call, and a `tool_result` per response (`toolCallResult` holds only `callId`);
* `agent-<agent id>.meta.json` beside it (`writeAgentMeta`): `toolUseId`, the call in the
  parent's transcript that launched the agent, and `parentAgentId`, the launching subagent
  (null: the session's own agent). Every transcript lies flat in the session's folder.

Reading a session also reads the transcripts in its folder. Their events get actor
`subagent:<agent id>` (the task is a `subagent_input` note of the launching agent) and follow
the call that launched them, a nested subagent's inside its launcher's; the first of them and
the first own event carry `link` (rule `meta.toolUseId`, else `identical-prompt`: the task is
the `prompt` argument of exactly one call). A transcript no call is found for is placed by time
and said. A transcript read on its own (its session's chat not found) is a session of its own:
its task is the trace's (T-task/delegated).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ...evidence import Event, Session
from ...payloads import Link, NoteInfo
from .._side import entries, unreadable
from .._threads import IDENTICAL_PROMPT, add_subagent, calls_giving, fold, interleave, link_thread, place_threads

META_RULE = "meta.toolUseId"
AGENT_FILE = re.compile(r"agent-(.+)\.jsonl\Z")
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def folder_name(value: str) -> str:
    """A session or agent id as the CLI puts it in a file name (`sanitizeFilenameComponent`)."""
    return _UNSAFE.sub("_", value)


def main_chat(path: Path) -> Path | None:
    """The session chat a subagent transcript (or its `.meta.json`) belongs to: `chats/<id>.jsonl`
    in the project folder, its id naming the transcript's folder; else None."""
    folder = path.parent
    if folder.parent.name != "subagents" or not path.name.startswith("agent-"):
        return None
    chats = folder.parent.parent / "chats"
    exact = chats / f"{folder.name}.jsonl"
    try:
        if exact.is_file():
            return exact
        for cand in sorted(chats.glob("*.jsonl")) if chats.is_dir() else []:
            if folder_name(cand.stem) == folder.name and cand.is_file():
                return cand
    except OSError:  # `chats/` may not be looked in: the transcript is read on its own, not lost
        return None
    return None


def subagents_folder(chat: Path, session_id: str) -> Path | None:
    """The folder of the subagent transcripts of the session whose chat is `chat`
    (`<project>/chats/<id>.jsonl`): `<project>/subagents/<id>/`; None when it has none."""
    if chat.parent.name != "chats" or not session_id:
        return None
    return chat.parent.parent / "subagents" / folder_name(session_id)


def transcripts_of(folder: Path) -> list[Path]:
    """The subagent transcripts in a session's subagents folder; OSError when it may not be
    listed (a glob would find none, and say nothing)."""
    return [p for p in entries(folder, "agent-*.jsonl") if p.is_file()]


def read_meta(path: Path, s: Session) -> dict[str, Any]:
    """The `.meta.json` beside a transcript (empty when there is none or it cannot be read: said)."""
    meta = path.with_name(path.name.removesuffix(".jsonl") + ".meta.json")
    if not meta.is_file():
        return {}
    try:
        value = orjson.loads(meta.read_bytes())
    except OSError as e:  # named from the project folder, as the transcript's folder is
        unreadable(s, s.files[0].path if s.files else None, f"subagents/{path.parent.name}/{meta.name}", e,
                   "the call that launched the subagent is found by its task alone")
        return {}
    except orjson.JSONDecodeError:
        s.warn("bad-meta", "a subagent's .meta.json could not be read", meta.name)
        return {}
    if not isinstance(value, dict):
        s.warn("bad-meta", "a subagent's .meta.json holds no object", meta.name)
        return {}
    return value


@dataclass
class Sub:
    """One subagent's transcript read: its session (events of actor `subagent:<id>`) and sidecar."""

    agent: str
    session: Session
    meta: dict[str, Any] = field(default_factory=dict)
    task: str | None = None  # the task it was given (its first prompt)


def place(s: Session, subs: list[Sub]) -> None:
    """Add the subagents' work to `s` (module docstring), their files and ledger folded in."""
    by_id: dict[str, Sub] = {}
    for sub in subs:
        fold(sub.session, s)
        if sub.agent in by_id:
            s.warn("subagent_id_reused", f"agent id {sub.agent!r} names two transcripts; the second is not here",
                   sub.session.files[0].path if sub.session.files else None)
            continue
        by_id[sub.agent] = sub
    threads: dict[str | None, list[Event]] = {None: s.events, **{a: x.session.events for a, x in by_id.items()}}
    runs: dict[str, tuple[str | None, str, str]] = {}  # agent → (launching agent, call id, rule)
    for agent, sub in by_id.items():
        found = _launch(agent, sub, by_id, threads)
        if found is not None:
            runs[agent] = found
    children: dict[tuple[str | None, str], str] = {}
    for agent, (parent, call, _) in runs.items():
        children.setdefault((parent, call), agent)
    placed: set[str | None] = set()  # the agents placed (None, the main thread, never is)

    def adopt(child: str | None, at: str | None, call: Event) -> list[Event]:
        assert child is not None  # `children` names only agents
        _adopt(by_id[child], runs[child], s)
        return by_id[child].session.events

    def threaded(events: list[Event], owner: str | None) -> list[Event]:
        return place_threads(events, owner, lambda at, cid: children.get((at, cid)), adopt, placed)

    streams = [threaded(s.events, None)]
    for agent, sub in by_id.items():
        if agent not in placed:
            placed.add(agent)
            s.warn("unlinked-subagent", f"subagent {agent}: no call read launched it ({META_RULE}, {IDENTICAL_PROMPT});"
                   " its steps are placed by time without a causal link",
                   sub.session.files[0].path if sub.session.files else None)
            _adopt(sub, None, s)
            streams.append(threaded(sub.session.events, agent))
    s.events = interleave(streams) if len(streams) > 1 else streams[0]


def _launch(agent: str, sub: Sub, by_id: dict[str, Sub],
            threads: dict[str | None, list[Event]]) -> tuple[str | None, str, str] | None:
    """(launching agent, call id, rule) of a subagent: the call its sidecar names, in the
    transcript of the agent that launched it; else the one call giving its task exactly."""
    parent = sub.meta.get("parentAgentId")
    owner = parent if isinstance(parent, str) and parent in by_id and parent != agent else None
    call = sub.meta.get("toolUseId")
    if isinstance(call, str) and any(e.kind == "tool_call" and e.call_id == call for e in threads[owner]):
        return owner, call, META_RULE
    if sub.task is None:
        return None
    actor = "agent" if owner is None else f"subagent:{owner}"
    found = calls_giving(sub.task, threads[owner], actor)
    if len(found) == 1 and found[0].call_id:
        return owner, found[0].call_id, IDENTICAL_PROMPT
    return None


def _adopt(sub: Sub, run: tuple[str | None, str, str] | None, s: Session) -> None:
    """The subagent's task note is its launcher's words; its thread is linked to the call; its
    facts are listed in the session's."""
    launcher = "agent" if run is None or run[0] is None else f"subagent:{run[0]}"
    actor = f"subagent:{sub.agent}"
    events = sub.session.events
    for e in events:
        if e.kind == "note" and isinstance(e.info, NoteInfo) and e.info.subtype == "subagent_input":
            e.actor = launcher
    if run is not None:
        link_thread(events, actor, Link(subagent=sub.agent, parent_thread_id=s.session_id if run[0] is None
                                        else run[0], parent_call_id=run[1], link_rule=run[2]))
    meta = sub.session.meta
    add_subagent(s.meta, meta.models, {
        "id": sub.agent,
        "actor": actor,
        "name": sub.meta.get("agentType") if isinstance(sub.meta.get("agentType"), str) else None,
        "file": sub.session.files[0].path if sub.session.files else None,
        "parent_thread_id": (s.session_id if run[0] is None else run[0]) if run else None,
        "parent_call_id": run[1] if run else None,
        "link_rule": run[2] if run else None,
        "models": list(meta.models),
        "token_usage": dict(meta.token_usage),
    })
