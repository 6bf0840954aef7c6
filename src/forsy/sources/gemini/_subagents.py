"""Gemini CLI subagents: each writes a chat of its own, read with its main chat.

What the CLI writes (packages/core/src):

* a subagent's chat is `chats/<main session id>/<agent id>.jsonl`, its header `kind:
  "subagent"` and `sessionId` the agent's id (services/chatRecordingService.ts `initialize`;
  the folder's name is the session id through utils/fileUtils.ts `sanitizeFilenamePart`). A
  subagent's own subagents go in the same folder: agents/local-executor.ts keeps the main
  session's id as every agent's `parentSessionId`. Its calls' ids are the model's, else
  `<agent id>#<turn>-<index>` (local-executor.ts `processFunctionCalls`);
* the call that ran a subagent records its id, `toolCalls[].agentId` (core/geminiChat.ts
  `recordCompletedToolCalls`, since April 2026), in the main chat or in a subagent's; the
  invocations that return no `data.agentId` (agents/local-session-invocation.ts, the
  AgentSession path; agents/browser/browserAgentInvocation.ts) record none;
* the call's `resultDisplay` is the agent's progress (`isSubagentProgress: true`), whose
  `recentActivity` items of type `tool_call` carry the ids of the agent's own calls as its
  chat records them (local agents since May 2026, the browser agent since March 2026; the last
  3 in the AgentSession path, the last 20 for the browser agent, all in the older path, whose
  calls name their agent; before, and for items of type `thought`, ids of their own).

Reading a main chat also reads the subagent chats in its folder. Their events get actor
`subagent:<agent id>`; the task each was given (a `subagent_input` note) is its spawning
agent's. A subagent's events follow the call that ran it, its own subagents' inside them;
the first of them and its first own event carry `link`: rule `toolCalls.agentId` when the
call names the agent, else `toolCalls.resultDisplay.recentActivity.id` when the call's
progress lists calls of that agent's chat and of no other's, and no other call lists that
agent's. A subagent neither key ties to one call is placed by time with no link, and said. A
chat that cannot be read is said, its main chat read all the same. A subagent chat whose main
chat is not beside its folder is read on its own (`discover`, `session_of`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ...errors import InputError
from ...evidence import Event, Session
from ...payloads import Link, NoteInfo
from .. import ReadContext
from .._side import companion, entries
from .._threads import add_subagent, fold, interleave, link_thread, place_threads, read_thread
from ..lines import open_regular, source_name

LINK_RULE = "toolCalls.agentId"
LISTED_RULE = "toolCalls.resultDisplay.recentActivity.id"
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


@dataclass
class Spawns:
    """What a chat's calls record of the agents they ran (module docstring)."""

    named: dict[str, str] = field(default_factory=dict)  # the agent a call ran (its agentId) → the call id
    listed: dict[str, list[str]] = field(default_factory=dict)  # a call → its agent's call ids it lists

    def note(self, tc: Mapping[str, Any], call_id: str) -> None:
        if isinstance(tc.get("agentId"), str):
            self.named.setdefault(tc["agentId"], call_id)
        shown = tc.get("resultDisplay")
        if not isinstance(shown, dict) or shown.get("isSubagentProgress") is not True:
            return
        items = shown.get("recentActivity")
        ids = [i["id"] for i in (items if isinstance(items, list) else [])
               if isinstance(i, dict) and i.get("type") == "tool_call" and isinstance(i.get("id"), str) and i["id"]]
        if ids:
            self.listed[call_id] = ids


@dataclass
class Chat:
    """One chat read: its session, and what its calls record of the agents they ran."""

    session: Session
    spawned: Spawns


ReadChat = Callable[[Path, ReadContext], Chat]


def folder_name(session_id: str) -> str:
    """The folder a main session's subagent chats are kept in (fileUtils.sanitizeFilenamePart)."""
    return _UNSAFE.sub("_", session_id)


def header(path: Path) -> dict[str, object]:
    """A chat file's first line as an object (empty when it is none or cannot be read)."""
    try:
        with open_regular(path) as f:
            first = f.readline(1 << 20)
        value = orjson.loads(first)
    except (InputError, OSError, orjson.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def is_subagent_chat(path: Path) -> bool:
    return path.suffix == ".jsonl" and header(path).get("kind") == "subagent"


def _opens(path: Path) -> bool:
    try:
        with open_regular(path):
            return True
    except InputError:
        return False


def main_chat(path: Path) -> Path | None:
    """The main chat a subagent chat belongs to: beside its folder, its session id naming the
    folder (the main chat's file name holds the id's first 8 characters); else None."""
    folder = path.parent
    if folder.parent.name != "chats" or not is_subagent_chat(path):  # the name first: no file opened
        return None
    for cand in sorted(folder.parent.glob(f"session-*-{folder.name[:8]}.jsonl")):
        sid = header(cand).get("sessionId")
        if cand.is_file() and isinstance(sid, str) and folder_name(sid) == folder.name:
            return cand
    return None


def read_subagents(path: Path, main: Chat, ctx: ReadContext, read_chat: ReadChat) -> None:
    """Add to `main` (read from `path`) the subagent chats in its folder (module docstring)."""
    s = main.session
    folder = path.parent / folder_name(s.session_id)
    if not s.session_id or folder == path.parent:
        return
    found = companion(s, s.files[0].path if s.files else None, f"{source_name(folder, ctx.root)}/",
                      "its subagents' work is not here", entries, folder, "*.jsonl")
    subs: dict[str, Chat] = {}
    for f in (p for p in found or [] if p.is_file()):
        # a chat whose header may not be read may be a subagent's: read as one, its failure said
        if not is_subagent_chat(f) and _opens(f):
            continue
        chat = read_thread(s, "chat", source_name(f, ctx.root), read_chat, f, ctx)
        if chat is None:
            continue
        fold(chat.session, s)
        if chat.session.session_id in subs or chat.session.session_id == s.session_id:
            s.warn("subagent_id_reused", f"agent id {chat.session.session_id!r} names another chat read already; "
                   "its events are not here", source_name(f, ctx.root))
            continue
        subs[chat.session.session_id] = chat
    if subs:
        _place(main, subs)


def _place(main: Chat, subs: dict[str, Chat]) -> None:
    s = main.session
    threads = [(s.session_id, main), *subs.items()]
    # which agent each thread's calls ran: the first call naming an agent read here runs it
    runs: dict[str, dict[str, str]] = {}  # thread id -> call id -> agent id
    rule: dict[str, str] = {}  # agent id -> the link rule that tied it to its call
    for tid, chat in threads:
        for agent, call in chat.spawned.named.items():
            if agent in subs and agent != tid and agent not in rule:
                rule[agent] = LINK_RULE
                runs.setdefault(tid, {})[call] = agent
    ambiguous = _by_listed(threads, subs, runs, rule)
    placed: set[str] = set()

    def adopt(child: str, at: str, call: Event) -> list[Event]:
        _adopt(subs[child], child, (at, call.call_id), rule[child], s)
        return subs[child].session.events

    def threaded(events: list[Event], tid: str) -> list[Event]:
        # each call followed by the work of the agent it ran, theirs inside it: a chain of agents
        # as long as the folder holds
        return place_threads(events, tid, lambda at, cid: runs.get(at, {}).get(cid), adopt, placed)

    streams = [threaded(s.events, s.session_id)]
    # no call names these (older CLIs), or only calls of agents never reached (a cycle of ids)
    for agent, chat in sorted(subs.items(), key=lambda kv: kv[0] in rule):
        if agent not in placed:
            placed.add(agent)
            how = "naming it" if rule.get(agent) == LINK_RULE else "listing its calls"
            why = (f"the call {how} is in a chat not reached" if agent in rule else ambiguous.get(agent)
                   or "no call read names it or lists its calls")
            s.warn("unlinked-subagent", f"subagent {agent}: {why} (toolCalls.agentId, "
                   "resultDisplay.recentActivity); its steps are placed by time without a causal link",
                   chat.session.files[0].path if chat.session.files else None)
            _adopt(chat, agent, None, None, s)
            streams.append(threaded(chat.session.events, agent))
    s.events = interleave(streams) if len(streams) > 1 else streams[0]


def _by_listed(threads: list[tuple[str, Chat]], subs: dict[str, Chat], runs: dict[str, dict[str, str]],
               rule: dict[str, str]) -> dict[str, str]:
    """Tie to the calls naming no agent the agents whose calls their progress lists (the
    AgentSession path, the browser agent: no `agentId`), into `runs` and `rule`: a call whose
    ids are of one agent's chat alone, an agent no other call lists. What stays untied and why."""
    owner: dict[str, set[str]] = {}  # a call id -> the agents whose chats record a call of that id
    for agent, chat in subs.items():
        for e in chat.session.events:
            if e.kind == "tool_call" and e.call_id:
                owner.setdefault(e.call_id, set()).add(agent)
    claims: dict[str, list[tuple[str, str]]] = {}  # agent -> (thread, call) listing its calls
    ambiguous: dict[str, str] = {}
    for tid, chat in threads:
        named = set(chat.spawned.named.values())
        for call, ids in chat.spawned.listed.items():
            if call in named:
                continue  # its agentId says which agent it ran, whether that chat is here or not
            agents = set().union(*(owner.get(i, set()) for i in ids)) - {tid}
            if len(agents) > 1:
                for agent in agents:
                    ambiguous[agent] = f"call {call} lists calls of {len(agents)} agents' chats"
            elif agents:
                claims.setdefault(agents.pop(), []).append((tid, call))
    for agent, calls in claims.items():
        if agent in rule or agent in ambiguous:
            continue
        if len(calls) > 1:
            ambiguous[agent] = f"{len(calls)} calls list its calls"
            continue
        tid, call = calls[0]
        rule[agent] = LISTED_RULE
        runs.setdefault(tid, {})[call] = agent
    return {a: why for a, why in ambiguous.items() if a not in rule}


def _actor(tid: str, main_id: str) -> str:
    return "agent" if tid == main_id else f"subagent:{tid}"


def _adopt(chat: Chat, agent: str, ran_by: tuple[str, str | None] | None, link_rule: str | None,
           s: Session) -> None:
    """`chat`'s events relabelled as the subagent's, linked to the call that ran it (`ran_by`:
    the thread and the call; `link_rule`: the key that tied them), and its facts added to the
    main session's."""
    actor = f"subagent:{agent}"
    parent = _actor(ran_by[0], s.session_id) if ran_by is not None else "agent"
    events = chat.session.events
    for e in events:
        if e.actor == "agent":
            given = isinstance(e.info, NoteInfo) and e.info.subtype == "subagent_input"
            e.actor = parent if given else actor
    if ran_by is not None:
        link_thread(events, actor, Link(subagent=agent, parent_thread_id=ran_by[0], parent_call_id=ran_by[1],
                                        link_rule=link_rule))
    meta = chat.session.meta
    unknown = meta.extra.get("unknown_fields")
    if isinstance(unknown, dict):
        seen = s.meta.extra.setdefault("unknown_fields", {})
        for name, n in unknown.items():
            seen[name] = seen.get(name, 0) + n
    add_subagent(s.meta, meta.models, {
        "id": agent,
        "actor": actor,
        "file": chat.session.files[0].path if chat.session.files else None,
        "parent_thread_id": ran_by[0] if ran_by else None,
        "parent_call_id": ran_by[1] if ran_by else None,
        "link_rule": link_rule if ran_by else None,
        "models": list(meta.models),
        "token_usage": dict(meta.token_usage),
    })
