"""Subagent threads of a Claude Code session: found (files, inline sidechains, progress copies), linked to
the call that spawned them by an exact key, and merged into the session's events."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ...errors import InputError
from ...evidence import Event, Ref, Session
from ...payloads import Link, ResultInfo
from .. import ReadContext
from .._records import Record
from .._side import why
from ..lines import source_name
from ._events import EventBuilder, check_record, kind_of
from ._graph import _dedupe, _parent, _result_ids, _roots
from ._load import load_records
from ._refusals import withdrawn
from ._rich import rich_of

MESSAGE_TYPES = frozenset({"user", "assistant", "system"})
# records events are made of: messages, and attachments (a prompt queued while the agent worked)
WORK_TYPES = MESSAGE_TYPES | {"attachment"}
AGENT_FILE = re.compile(r"^agent-(.+)\.jsonl$")
# Claude Code's own background helpers (subagents/agent-aprompt_suggestion-<hex>.jsonl, and the
# `/btw` side questions, agent-aside_question-<hex>.jsonl, which repeat the conversation): not the
# session's work, and not started by the agent
HELPERS = ("aprompt_suggestion", "aside_question")
# a teammate's transcript starts with its spawning prompt wrapped as the team lead's message
TEAM_LEAD = re.compile(r'\s*<teammate-message\s[^>]*?\bteammate_id="team-lead"[^>]*>(.*?)</teammate-message>\s*', re.S)


@dataclass
class Thread:
    """A subagent transcript and how it was linked."""

    agent_id: str
    records: list[Record]
    source: str  # "file", "inline", "progress"
    prompt: str | None = None
    warmup: bool = False
    call_id: str | None = None
    link_rule: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    rich_pointer: str = "/toolUseResult"  # see EventBuilder.rich_pointer
    file: str | None = None  # a "file" thread's transcript, as evidence names it (said even when it holds no record)


# ---------------------------------------------------------------- subagents


def _root_prompt(recs: list[Record]) -> str | None:
    for r in recs:
        if r.data.get("type") == "user":
            c = (r.data.get("message") or {}).get("content")
            if isinstance(c, str):
                return c
            if isinstance(c, list):
                texts = [b.get("text") for b in c if isinstance(b, dict) and b.get("type") == "text"]
                return "\n".join(t for t in texts if isinstance(t, str)) or None
            return None
    return None


def _threads(path: Path, ctx: ReadContext, session: Session, main: list[Record],
             inline: list[Record]) -> list[Thread]:
    threads: list[Thread] = []
    seen_ids: set[str] = set()
    own = {r.data["uuid"] for r in main if isinstance(r.data.get("uuid"), str)}
    where = source_name(path, ctx.root)
    for f in _subagent_files(path, session.session_id, lambda what, e: session.warn(
            "subagent_unreadable", f"{what} could not be read ({why(e)}): a subagent's "
            "work there is not here", where)):
        agent_id = AGENT_FILE.match(f.name).group(1)  # type: ignore[union-attr]
        if agent_id.startswith("acompact"):
            session.quality.extra["compaction_agents"] = session.quality.extra.get("compaction_agents", 0) + 1
            continue
        if agent_id.startswith(HELPERS):
            session.quality.extra["helper_agents"] = session.quality.extra.get("helper_agents", 0) + 1
            continue
        sub = Session("claude_code", agent_id, session.files, session.evidence, [], session.meta, session.quality,
                      session.warnings, session.ledger)
        try:
            loaded = load_records(f, ctx, sub)
        except (InputError, OSError) as e:  # the session is read all the same, and says so
            session.warn("subagent_unreadable", f"subagent {agent_id}'s transcript could not be read, its events "
                         f"are not here: {why(e)}", source_name(f, ctx.root))
            continue
        recs = _without_copies(_dedupe(loaded, sub), own, session, agent_id)
        th = Thread(agent_id, recs, "file", _root_prompt(recs), file=source_name(f, ctx.root))
        meta_file = f.with_suffix(".meta.json")
        if meta_file.is_file():
            try:
                meta = orjson.loads(meta_file.read_bytes())
            except (orjson.JSONDecodeError, OSError):
                session.warn("bad-meta", "unreadable subagent .meta.json", meta_file.name)
            else:
                if isinstance(meta, dict):
                    th.meta = meta
                else:
                    session.warn("bad-meta", f"subagent .meta.json holds {kind_of(meta)}, not an object",
                                 meta_file.name)
        threads.append(th)
        seen_ids.add(agent_id)
    threads.extend(_inline_threads(inline))
    threads.extend(_progress_threads(main, seen_ids, session))
    for th in threads:
        th.warmup = (th.prompt or "").strip() == "Warmup"
        if th.warmup:
            for r in th.records:
                session.mark(r.ev.id, "set_aside", "Warmup sidechains are not work")
    _link(threads, main, session)
    return threads


CONTEXT_COPY = "a copy of its session's record (the context a fork subagent was given)"


def _without_copies(recs: list[Record], own: set[str], session: Session, agent_id: str) -> list[Record]:
    """A subagent transcript's records less those that are records of the session itself (the same
    uuid as one of the main log's): the conversation a fork subagent (2.1.232+ forks by default)
    was given, should its transcript hold a copy of it, as public readers' fixtures show (the
    `fork-context-ref` it opens with names that context instead, as others describe it). The
    session's work, read once there: set aside, counted, warned once per transcript."""
    copies = {id(r) for r in recs if r.data.get("uuid") in own}
    if not copies:
        return recs
    kept = [r for r in recs if id(r) not in copies]
    first = next(r for r in recs if id(r) in copies)
    for r in recs:
        if id(r) in copies:
            session.mark(r.ev.id, "set_aside", CONTEXT_COPY)
    extra = session.quality.extra
    extra["subagent_context_copies"] = extra.get("subagent_context_copies", 0) + len(copies)
    session.warn("subagent-context-copy", f"{len(copies)} records of subagent {agent_id}'s transcript are records "
                 "of the session (the same uuid): the context it was given, set aside (read once, in the session)",
                 first.ev.source, first.ev.line)
    return kept


def _subagent_files(path: Path, session_id: str, unread: Callable[[str, OSError], None]) -> list[Path]:
    """The transcripts of the session's subagents; `unread` is told of each folder that could not
    be listed and each file beside the session that could not be read (named as in the session's
    folder), where a subagent's work may be."""
    found: list[Path] = []
    sub_dir = path.parent / path.stem / "subagents"
    try:
        here = sub_dir.is_dir()
    except OSError as e:  # the session's own folder may not be looked into
        here = False
        unread(f"folder {path.stem}/", e)
    if here:
        # at any depth: 2.1.1xx writes workflow agents under subagents/workflows/wf_<id>/
        listed: list[Path] = []
        for folder, dirs, files in os.walk(sub_dir, onerror=lambda e: unread(
                "folder " + Path(path.stem, Path(e.filename).relative_to(sub_dir.parent)).as_posix() + "/", e)):
            dirs.sort()
            listed.extend(Path(folder, n) for n in files if AGENT_FILE.match(n))
        found.extend(sorted((p for p in listed if p.is_file()), key=lambda p: p.relative_to(sub_dir).parts))
    if AGENT_FILE.match(path.name):
        # a subagent's own file read as a session (some of its records are not marked sidechain):
        # the agent files beside it are its parent's, and one of them is this very file, which
        # was read twice (its records counted twice in the ledger)
        return [p for p in found if p.resolve() != path.resolve()]
    # pre-2.1 layout: agent-<id>.jsonl beside the session files, tied by sessionId
    for p in sorted(path.parent.glob("agent-*.jsonl")):
        try:
            with p.open("rb") as fh:
                head = fh.read(8192)
        except OSError as e:  # it may be this session's (its sessionId is inside)
            unread(p.name, e)
            continue
        if session_id and f'"sessionId":"{session_id}"'.encode() in head.replace(b": ", b":"):
            found.append(p)
    return found


def _inline_threads(inline: list[Record]) -> list[Thread]:
    """Inline sidechain records grouped by the root of their parent chain (one subagent each)."""
    by_uuid: dict[str, Record] = {}
    for r in inline:
        if isinstance(r.data.get("uuid"), str):
            by_uuid.setdefault(r.data["uuid"], r)
    root_of = _roots(by_uuid)
    groups: dict[str, list[Record]] = defaultdict(list)
    for r in inline:
        u = r.data.get("uuid")
        p = _parent(r.data)
        if isinstance(u, str):
            groups[root_of[u]].append(r)
        else:  # no uuid: it belongs to its parent's thread, else it starts its own
            groups[root_of[p] if p in root_of else "None"].append(r)
    out = []
    for root_uuid, recs in groups.items():
        if not any(r.data.get("type") in MESSAGE_TYPES for r in recs):
            continue  # sidechain records with no message (a progress copy): no thread, no steps to place
        agent_id = next((str(r.data["agentId"]) for r in recs if r.data.get("agentId")), root_uuid[:8])
        out.append(Thread(agent_id, recs, "inline", _root_prompt(recs)))
    return out


def _progress_threads(main: list[Record], have: set[str], session: Session) -> list[Thread]:
    """Subagent messages copied into `agent_progress` records, for agents with no file."""
    groups: dict[str, list[Record]] = defaultdict(list)
    calls: dict[str, str] = {}
    prompts: dict[str, str] = {}
    for r in main:
        d = r.data
        data = d.get("data") if d.get("type") == "progress" else None
        if not isinstance(data, dict) or data.get("type") != "agent_progress":
            continue
        agent_id, inner = data.get("agentId"), data.get("message")
        if not isinstance(agent_id, str) or not agent_id or not isinstance(inner, dict):
            what = (f"data.agentId that is {kind_of(agent_id)}" if not isinstance(agent_id, str) or not agent_id
                    else f"data.message that is {kind_of(inner)}")
            session.warn("field-type", f"agent_progress record with {what}; its subagent message was not read",
                         r.ev.source, r.ev.line)
            continue
        if agent_id in have:
            continue  # the subagent's own file holds this message
        # re-root the copy so the event builder sees an ordinary record; its pointers get a prefix
        copy = check_record(Record(r.ev, inner, "/data/message"), session.warn)
        if copy is None:
            continue
        if copy.data.get("type") not in MESSAGE_TYPES:
            session.warn("unread-content", f"agent_progress message of type {copy.data.get('type')!r}; not read",
                         r.ev.source, r.ev.line)
            continue
        groups[agent_id].append(copy)
        if isinstance(d.get("parentToolUseID"), str):
            calls.setdefault(agent_id, d["parentToolUseID"])
        if isinstance(data.get("prompt"), str):
            prompts.setdefault(agent_id, data["prompt"])
        elif data.get("prompt") is not None:
            session.warn("field-type", f"data.prompt is {kind_of(data['prompt'])}, not a string; read as absent",
                         r.ev.source, r.ev.line)
    out = []
    for agent_id, recs in groups.items():
        th = Thread(agent_id, recs, "progress", prompts.get(agent_id) or _root_prompt(recs))
        if agent_id in calls:
            th.call_id, th.link_rule = calls[agent_id], "progress.parentToolUseID"
        out.append(th)
    return out


def _link(threads: list[Thread], main: list[Record], session: Session) -> None:
    """Each thread's spawning call, by an exact key. The call is in the session's records, or, for a
    subagent another subagent spawned (they nest, from 2.1.x), in that subagent's; every
    transcript lies flat in `subagents/`, so the keys are read from all of them alike."""
    keys = _SpawnKeys()
    for th in threads:
        if not th.warmup:
            keys.read(th.records, th.agent_id)
    keys.read(main, None)  # last: where a key is in both (a copy), the session's own record wins
    for th in threads:
        if th.call_id or th.warmup:
            continue
        meta_call = th.meta.get("toolUseId")  # the .meta.json names the spawning call (2.1.x)
        prompt = _spawning_prompt(th.prompt)
        by_agent = keys.by_agent.get(th.agent_id)
        prompt_calls = [cid for cid, owner in keys.prompt_calls.get(prompt or "", []) if owner != th.agent_id]
        if by_agent is not None and by_agent[1] != th.agent_id:
            th.call_id, th.link_rule = by_agent[0], "toolUseResult.agentId"
        elif isinstance(meta_call, str) and keys.call_owner.get(meta_call, th.agent_id) != th.agent_id:
            th.call_id, th.link_rule = meta_call, "meta.toolUseId"
        elif prompt and len(prompt_calls) == 1:
            th.call_id, th.link_rule = prompt_calls[0], "identical-prompt"
        else:
            # said at the thread's first record (its transcript's, or the main log's it was read from)
            at = th.records[0].ev if th.records else None
            session.warn("unlinked-subagent", f"subagent {th.agent_id}: spawning call not identified exactly; "
                         "its steps are placed by time without a causal link", at.source if at else th.file,
                         at.line if at else None)


@dataclass
class _SpawnKeys:
    """What ties a subagent to its spawning call, read from the transcripts, with whose
    transcript each call is in (None: the session's own); a thread is never its own spawner."""

    by_agent: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # agentId -> (call, owner)
    prompt_calls: dict[str, list[tuple[str, str | None]]] = field(default_factory=lambda: defaultdict(list))
    call_owner: dict[str, str | None] = field(default_factory=dict)

    def read(self, records: list[Record], owner: str | None) -> None:
        for r in records:
            rich = rich_of(r.data)
            if isinstance(rich, dict) and isinstance(rich.get("agentId"), str):
                for cid in _result_ids(r.data):
                    self.by_agent[rich["agentId"]] = (cid, owner)
            msg = r.data.get("message")
            if r.data.get("type") == "assistant" and isinstance(msg, dict) and isinstance(msg.get("content"), list):
                for b in msg["content"]:
                    if not isinstance(b, dict) or b.get("type") != "tool_use":
                        continue
                    if isinstance(b.get("id"), str):
                        self.call_owner[b["id"]] = owner
                    inp = b.get("input")
                    if isinstance(inp, dict) and isinstance(inp.get("prompt"), str):
                        self.prompt_calls[inp["prompt"]].append((str(b.get("id")), owner))


def _spawning_prompt(prompt: str | None) -> str | None:
    """The words the spawning call sent: a teammate's first message is them wrapped as the team
    lead's `<teammate-message teammate_id="team-lead" …>` (its body, newlines around it trimmed)."""
    m = TEAM_LEAD.fullmatch(prompt) if prompt else None
    return m.group(1).strip("\n") if m else prompt


def _thread_events(th: Thread, session: Session) -> list[Event]:
    builder = EventBuilder(f"subagent:{th.agent_id}", set(), session.warn)
    builder.rich_pointer = th.rich_pointer
    builder.withdrawn = withdrawn(th.records, session.warn)  # a subagent's refused answer, retried
    out: list[Event] = []
    for r in th.records:
        prefix = r.prefix
        evs = builder.from_record(r)
        for e in evs:
            if prefix:
                e.refs = [Ref(x.ev, prefix + x.pointer) for x in e.refs]
                if e.ts_ref is not None:
                    e.ts_ref = Ref(e.ts_ref.ev, prefix + e.ts_ref.pointer)
                if e.name_ref is not None:
                    e.name_ref = Ref(e.name_ref.ev, prefix + e.name_ref.pointer)
                if isinstance(e.info, ResultInfo) and e.info.rich_ref is not None:
                    e.info.rich_ref = Ref(e.info.rich_ref.ev, prefix + e.info.rich_ref.pointer)
        out.extend(evs)
    for e in out:  # every event knows its spawning call: the segmenter links the first action
        e.link = Link(subagent=th.agent_id, parent_call_id=th.call_id, link_rule=th.link_rule,
                      thread_source=th.source)
    return out


def _merge_threads(events: list[Event], threads: list[Thread], session: Session) -> list[Event]:
    """Main events in log order; each linked subagent's events follow its spawning call(s),
    one subagent after another in the order they were spawned, before any result returns
    (as Claude Code writes inline sidechains). Parallel subagents are therefore grouped by
    subagent, not interleaved by time. A subagent spawned by a subagent is placed the same way
    inside its spawner's events. Unlinked threads go before the first main event that is later
    than their start."""
    work = [th for th in threads if not th.warmup]
    if len(threads) > len(work):
        session.quality.extra["warmup_threads"] = len(threads) - len(work)
    by_call: dict[str, list[Event]] = {}
    inline_line: dict[str, int] = {}  # inline threads keep the file's order (the line they start on)
    loose: list[list[Event]] = []
    for th in work:
        evs = _thread_events(th, session)
        if not evs:
            continue
        if th.call_id and th.call_id not in by_call:
            by_call[th.call_id] = evs
            if th.source == "inline":
                inline_line[th.call_id] = th.records[0].ev.line or 0
        else:
            loose.append(evs)
    loose.sort(key=lambda evs: evs[0].ts or "")
    used: set[str] = set()
    out = _place(events, by_call, inline_line, used, loose)
    for cid, evs in by_call.items():  # spawning call not in the log: keep the thread at the end
        if cid not in used:
            out.extend(_place(evs, by_call, inline_line, used, []))
    return out


def _place(events: list[Event], by_call: dict[str, list[Event]], inline_line: dict[str, int], used: set[str],
           loose: list[list[Event]]) -> list[Event]:
    """`events` with the threads their calls spawned placed after those calls (each call's
    thread once, `used`), and, by time, the `loose` threads."""
    out: list[Event] = []
    opened: list[tuple[int, list[Event]]] = []  # (order key, thread) of the calls since the last non-call

    def flush() -> None:
        for _k, evs in sorted(opened, key=lambda kv: kv[0]):
            out.extend(_place(evs, by_call, inline_line, used, []))
        opened.clear()

    next_loose = 0  # loose threads before this index are placed
    for i, e in enumerate(events):
        if e.kind != "tool_call":
            flush()
        while next_loose < len(loose) and e.ts is not None and (loose[next_loose][0].ts or "") < e.ts:
            out.extend(_place(loose[next_loose], by_call, inline_line, used, []))
            next_loose += 1
        out.append(e)
        if e.kind == "tool_call" and e.call_id in by_call and e.call_id not in used:
            used.add(e.call_id)
            # the others the spawning order: their call's place (after every inline thread's line)
            opened.append((inline_line.get(e.call_id, 10**12 + i), by_call[e.call_id]))
    flush()
    for evs in loose[next_loose:]:
        out.extend(_place(evs, by_call, inline_line, used, []))
    return out
