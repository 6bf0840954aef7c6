"""One Codex thread (one rollout file) → events and session facts.

Rules (each stated where it is applied):

* typed vs injected: a user-role text is injected context when it starts with a marker
  Codex uses (`_codex_text.context_kind`); in a file that has `event_msg` user_message
  records (Codex's own record of what a person typed), a user message is typed only when
  one of them confirms it (`_codex_index`). One `user` event per typed text block, never
  joined: each block is a separate input item Codex sent.
* injected context met before the first typed message goes to `SessionMeta` (AGENTS.md →
  `memory`, the rest → `extra["context"]`); later it becomes a `note` event.
* groups: items of one model response share `group`; a response ends at the next model
  input (tool output, user/developer message), token_count, turn_context or turn start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...evidence import Event, Ref, Session, SessionMeta, pointer
from ...payloads import PAYLOAD_FOR_KIND, MessageInfo, NoteInfo, Payload
from ._activity import review_rendered, review_results, settings
from ._fork import FindParent, ForkInfo, own_start
from ._index import COMPACTION_ITEMS, WINDOW, Index, build_index, compaction_mirror
from ._kinds import (
    ACTION_KINDS,
    META_EXTRA_KEYS,
    NOTE_EVENTS,
    PLAN_ITEMS,
    SET_ASIDE_KINDS,
    SILENT_EVENTS,
    SILENT_ITEMS,
    SILENT_KINDS,
    TEXT_EVENTS,
    TURN_KEYS,
)
from ._read import LoadedFile, Rec, bad_type, typed
from ._text import context_kind, env_cwd, request_span
from ._tools import CALLS, RESULTS, ToolTracker

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def redelivered(rec: Rec) -> bool:
    """An assistant message the harness wrote again as retained context (history's
    RetainedContext::DeliveredAssistantMessage, persisted as a response item whose metadata
    names `delivered_assistant_message`): a repeat of a message already delivered, or, when
    the delivery was incomplete, a placeholder in Codex's words; never the agent's new words."""
    return rec.harness is not None and rec.harness.get("delivered_assistant_message") is not None


@dataclass
class Thread:
    lf: LoadedFile
    thread_id: str
    actor: str
    meta: SessionMeta
    events: list[Event]
    fork: ForkInfo
    parent_thread_id: str | None = None
    subagent: str | None = None  # "thread_spawn", "review", ... for subagent threads
    spawned: dict[str, str] = field(default_factory=dict)  # child thread id -> spawning call_id
    spawn_rules: dict[str, str] = field(default_factory=dict)  # child thread id -> how it was linked
    spawn_marker: str | None = None  # forked spawn: the spawning call's id, written by Codex
    call_ids: set[str] = field(default_factory=set)
    meta_idx: int | None = None  # the thread's own session_meta (before `fork.start`, not a copy)


class ThreadBuilder:
    def __init__(self, lf: LoadedFile, session: Session, find_parent: FindParent) -> None:
        self.lf, self.session, self.find_parent = lf, session, find_parent
        self.meta = SessionMeta(agent="codex-cli")
        self.events: list[Event] = []
        self.thread_id = _file_uuid(lf) or lf.path.name
        self.actor = "agent"
        self.parent_actor = "agent"
        self.parent_thread_id: str | None = None
        self.subagent: str | None = None
        self.group: str | None = None
        self.turn_id: str | None = None
        self.seen_dialogue = False
        self.user_idx: list[int] = []
        self.warned: set[str] = set()
        self.last_compaction: tuple[int, int] | None = None  # (record idx, events then)
        self.spawn_marker: str | None = None
        self.usage_from_count = False  # token_count gave the thread's usage
        self.index = Index()
        self.tools = ToolTracker(session, lf.source, self.index, self._event)

    # ------------------------------------------------------------------ driver
    def build(self) -> Thread:
        meta_rec, fork = self._own_meta()
        if meta_rec is not None:
            self._read_meta(meta_rec)
        self.index = build_index(self.lf.recs, fork.start)
        self.tools.index = self.index
        if fork.rule:
            self.meta.extra["fork"] = {"parent_id": fork.parent_id, "rule": fork.rule, "copied": fork.copied}
            if fork.parent_file:
                self.meta.extra["fork"]["parent_file"] = fork.parent_file
        for rec in self.lf.recs[fork.start :]:
            if rec is not meta_rec and rec.idx not in fork.restated:  # a fork's checkpoint: _fork
                self._record(rec)
        self.tools.finish()
        spawned = {**self.tools.spawned, **self.index.spawned}
        rules = {k: "spawn_agent_output" for k in self.tools.spawned}
        rules.update(self.index.spawn_rules)
        return Thread(
            self.lf, self.thread_id, self.actor, self.meta, self.events, fork, self.parent_thread_id,
            self.subagent, spawned, rules, self.spawn_marker, set(self.tools.calls),
            meta_rec.idx if meta_rec is not None else None,
        )  # fmt: skip

    def _own_meta(self) -> tuple[Rec | None, ForkInfo]:
        metas = [r for r in self.lf.recs if r.kind in ("session_meta", "bare_header")]
        if not metas:
            return None, ForkInfo(0)
        own = metas[0]
        for m in metas[1:]:
            # A later meta forked from the first: the lines before it are the parent's copy.
            if own.payload.get("id") and m.payload.get("forked_from_id") == own.payload.get("id"):
                return m, ForkInfo(m.idx + 1, str(own.payload["id"]), "history_before_meta", m.idx)
        if own.idx > 0:
            self.session.warn("records_before_meta", "records precede session_meta", self.lf.source)
            return own, ForkInfo(0)
        return own, own_start(self.lf, own, self.session, self.find_parent)

    def _record(self, rec: Rec) -> None:
        kind = rec.kind
        if kind == "response_item":
            self._item(rec)
        elif kind == "event_msg":
            self._event_msg(rec)
        elif kind == "turn_context":
            self._turn_context(rec)
        elif kind == "compacted":
            self._compaction(rec)
        elif kind in ("fork_reference", "rollout_reference"):
            raw = {k: v for k, v in rec.payload.items() if k != "type"}
            self._event("note", rec, actor="system", info=NoteInfo(subtype=kind, raw=raw))
        elif kind == "inter_agent_communication":
            self._inter_agent(rec)
        elif kind == "token_usage_record":
            self._usage_record(rec)
        elif kind in ("session_meta", "bare_header"):
            self._warn_once("extra_session_meta", rec, "another session_meta inside the thread; skipped")
        elif kind not in SILENT_KINDS and kind not in SET_ASIDE_KINDS:
            self._unknown(rec, kind)

    # ------------------------------------------------------------------ events
    def _event(
        self, kind: Any, rec: Rec, *parts: str | int, actor: str | None = None, info: Payload | None = None,
        **fields: Any,
    ) -> Event:
        info = info if info is not None else PAYLOAD_FOR_KIND[kind]()
        info.turn_id, info.lossy_utf8 = self.turn_id, rec.lossy
        ev = Event(kind, actor or self.actor, rec.ts, [Ref(rec.ev, pointer(*rec.base, *parts))], info=info, **fields)
        self.events.append(ev)
        return ev

    def _group(self, rec: Rec) -> str:
        if self.group is None:
            tag = "" if self.actor == "agent" else f"{self.thread_id}:"
            self.group = f"{tag}L{rec.line}"
        return self.group

    def _note(self, rec: Rec, subtype: str, *parts: str | int, text: str | None = None, **info: Any) -> Event:
        return self._event("note", rec, *parts, actor="system", text=text, info=NoteInfo(subtype=subtype, **info))

    def _warn_once(self, code: str, rec: Rec, message: str) -> None:
        if code not in self.warned:
            self.warned.add(code)
            self.session.warn(code, message + " (reported once)", self.lf.source, rec.line)

    def _typed(self, rec: Rec, obj: dict[str, Any], key: str, *want: type) -> Any:
        return typed(self.session, self.lf.source, rec.line, obj, key, *want)

    def _blocks(self, rec: Rec, obj: dict[str, Any], key: str) -> list[tuple[int, dict[str, Any]]]:
        """The content blocks (objects) of a list field, with their positions; anything
        else in their place is a warning."""
        blocks = self._typed(rec, obj, key, list) or []
        out = []
        for i, b in enumerate(blocks):
            if isinstance(b, dict):
                out.append((i, b))
            else:
                bad_type(self.session, self.lf.source, rec.line, i, b, (dict,))
        return out

    def _count(self, rec: Rec, obj: dict[str, Any], key: str) -> int:
        items = self._typed(rec, obj, key, list)
        return len(items) if items else 0

    def _unknown(self, rec: Rec, what: str) -> None:
        self.session.quality.unknown_records += 1
        self._warn_once(f"unknown:{what}", rec, f"unknown record type {what!r}; skipped")

    # ---------------------------------------------------------------- response items
    def _item(self, rec: Rec) -> None:
        sub = rec.sub or ""
        if sub == "message":
            self._message(rec)
        elif sub == "reasoning":
            self._reasoning(rec)
        elif sub in CALLS:
            self.seen_dialogue = True
            self.tools.call(rec, self._group(rec))
        elif sub in RESULTS:
            self.group = None
            self._result(rec)
        elif sub in COMPACTION_ITEMS:
            if not compaction_mirror(self.lf.recs, rec):
                self._compaction(rec)
        elif sub == "agent_message":
            self._agent_message(rec)
        elif sub == "additional_tools":
            tools = self._typed(rec, rec.payload, "tools", list) or []
            names = [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
            self.meta.extra.setdefault("additional_tools", []).extend(n for n in names if n not in
                                                                       self.meta.extra.get("additional_tools", []))
        elif sub == "configuration_update":  # a durable input control (reasoning settings) the backend reads
            self.meta.extra.setdefault("configuration_updates", []).append(rec.payload.get("reasoning"))
        elif sub not in SILENT_ITEMS:
            self._unknown(rec, f"response_item:{sub}")

    def _agent_message(self, rec: Rec) -> None:
        """ResponseItem::AgentMessage {author, recipient, content}: another agent's message to this
        thread (multi-agent mode): a note naming both; encrypted parts are counted, not read."""
        p = rec.payload
        raw = {k: p[k] for k in ("author", "recipient") if isinstance(p.get(k), str)}
        texts = [(i, b["text"]) for i, b in self._blocks(rec, p, "content") if isinstance(b.get("text"), str)]
        for i, text in texts:
            self._note(rec, "agent_message", "content", i, "text", text=text, raw=raw)
        if not texts:
            self._note(rec, "agent_message", raw=raw)
        self.group = None

    def _result(self, rec: Rec) -> None:
        call_id = rec.payload.get("call_id")
        if self.subagent and self.lf.recs and self.spawn_marker is None and not self.tools.calls:
            if isinstance(call_id, str) and self.meta.extra.get("forked_from_id"):
                # A forked spawn: Codex writes the spawning call's output into the child.
                self.spawn_marker = call_id
                out = rec.payload.get("output")
                self._note(rec, "forked_spawn_output", "output", text=out if isinstance(out, str) else None,
                           spawn_call_id=call_id)
                return
        self.tools.result(rec)

    def _message(self, rec: Rec) -> None:
        role = self._typed(rec, rec.payload, "role", str)
        blocks = self._blocks(rec, rec.payload, "content")
        if role == "assistant" and redelivered(rec):
            return  # the ledger says what it is (its words, when complete, are the earlier message's)
        if role == "assistant":
            phase = self._typed(rec, rec.payload, "phase", str)
            for i, b in blocks:
                text = self._typed(rec, b, "text", str)
                if text:
                    self.seen_dialogue = True
                    self._event("agent_text", rec, "content", i, "text", text=text, group=self._group(rec),
                                info=MessageInfo(phase=phase))
            return
        self.group = None
        if role == "user":
            self._user_message(rec, blocks)
            return
        for i, b in blocks:
            text = self._typed(rec, b, "text", str)
            if text is not None and text.strip():
                self._context(context_kind(text) or str(role), rec, i, text, str(role))

    def _user_message(self, rec: Rec, blocks: list[tuple[int, dict[str, Any]]]) -> None:
        typed_ok = not self.index.has_user_events or rec.idx in self.index.typed
        images = sum(1 for _, b in blocks if b.get("type") == "input_image")
        for i, b in blocks:
            text = self._typed(rec, b, "text", str)
            if text is None or not text.strip():
                continue
            kind = context_kind(text)
            if kind is not None:
                self._context(kind, rec, i, text, "user")
            elif self.subagent:
                self._subagent_input(rec, ("content", i, "text"), text)
            elif not typed_ok:
                self._context("unconfirmed_user_text", rec, i, text, "user")
            else:
                self._user(rec, ("content", i, "text"), text).images, images = images, 0

    def _user(self, rec: Rec, parts: tuple[str | int, ...], text: str) -> MessageInfo:
        span = request_span(text)
        info = MessageInfo()
        if span:
            # The client's context above the words (active file, open tabs, files mentioned) is
            # what the agent was shown with them: kept as the other slice of the same string.
            info = MessageInfo(span=(span[0], span[1]), wrapped="ide_context", context=text[: span[0]],
                               context_span=(0, span[0]))
        self._event("user", rec, *parts, actor="user", text=text[span[0] : span[1]] if span else text, info=info)
        self.user_idx.append(len(self.events) - 1)
        self.seen_dialogue = True
        return info

    def _subagent_input(self, rec: Rec, parts: tuple[str | int, ...], text: str) -> None:
        # In a subagent's thread the "user" is the agent that spawned it, not a person; in a
        # review thread (SubAgentSource::Review) it is the review request Codex built from the
        # person's /review choice: Codex's words, the thread's task.
        if self.subagent == "review":
            self._event("note", rec, *parts, actor="system", text=text, info=NoteInfo(subtype="review_request"))
        else:
            self._event("note", rec, *parts, actor=self.parent_actor, text=text,
                        info=NoteInfo(subtype="subagent_input"))
        self.seen_dialogue = True

    def _context(self, kind: str, rec: Rec, i: int, text: str, role: str) -> None:
        parts = ("content", i, "text")
        if kind == "user_action" and (span := review_results(text)) and not review_rendered(self.lf.recs, rec.idx,
                                                                                                WINDOW):
            # a /review's findings written back only here (no assistant message renders them)
            self._event("agent_text", rec, *parts, text=text[span[0] : span[1]], group=self._group(rec),
                        info=MessageInfo(span=span, wrapped="user_action"))
            self.seen_dialogue = True
            return
        if kind == "turn_aborted" and not self.index.has_abort_events:
            self._event("interrupt", rec, *parts, actor="user", text=text, info=NoteInfo(subtype="turn_aborted_notice"))
            return
        if self.seen_dialogue or kind in ACTION_KINDS:
            self._note(rec, kind, *parts, text=text, role=role)
            return
        ref = {"ev": rec.ev, "pointer": pointer(*rec.base, *parts)}
        self.meta.extra.setdefault("context", []).append({"kind": kind, "role": role, "text": text, **ref})
        if kind in ("agents_md", "user_instructions") and self.meta.memory is None:
            # Project instructions (AGENTS.md; `<user_instructions>` in older versions).
            self.meta.memory = text
            self.meta.extra["memory_ref"] = ref
        if kind == "environment_context" and self.meta.cwd is None and (cwd := env_cwd(text)):
            self.meta.cwd = cwd
            self.meta.extra["cwd_from"] = ref

    def _reasoning(self, rec: Rec) -> None:
        p = rec.payload
        found = False
        for part, key in (("summary", "summary"), ("raw", "content")):
            for i, b in self._blocks(rec, p, key):
                text = self._typed(rec, b, "text", str)
                if text:
                    found = True
                    self._event("reasoning", rec, key, i, "text", text=text, group=self._group(rec),
                                info=MessageInfo(part=part))
        if not found and p.get("encrypted_content"):
            self.session.quality.encrypted_reasoning += 1

    # ---------------------------------------------------------------- event_msg
    def _event_msg(self, rec: Rec) -> None:
        sub = rec.sub or ""
        p = rec.payload
        if rec.idx in self.index.mirrored:
            q = self.session.quality.extra
            q["event_msg_mirrors"] = q.get("event_msg_mirrors", 0) + 1
        elif sub in TEXT_EVENTS and self._typed(rec, p, TEXT_EVENTS[sub], str) is None:
            self._unknown(rec, f"event_msg:{sub}")  # the text this event exists for is missing
        elif sub == "user_message":
            self.group = None
            if self.subagent:
                self._subagent_input(rec, ("message",), p["message"])
            else:
                info = self._user(rec, ("message",), p["message"])
                info.images = self._count(rec, p, "images") + self._count(rec, p, "local_images")
        elif sub == "agent_message":
            self.seen_dialogue = True
            self._event("agent_text", rec, "message", text=p["message"], group=self._group(rec),
                        info=MessageInfo(phase=self._typed(rec, p, "phase", str)))
        elif sub in ("agent_reasoning", "agent_reasoning_raw_content"):
            self._event("reasoning", rec, "text", text=p["text"], group=self._group(rec),
                        info=MessageInfo(part="summary" if sub == "agent_reasoning" else "raw"))
        elif sub == "token_count":
            self.group = None
            self._tokens(rec, p)
        elif sub in ("task_started", "turn_started"):
            self.group = None
            self.turn_id = self._typed(rec, p, "turn_id", str) or self.turn_id
        elif sub == "turn_aborted":
            self.group = None
            self._aborted(rec)
        elif sub == "context_compacted":
            if not compaction_mirror(self.lf.recs, rec):
                self._compaction(rec)
        elif sub == "thread_rolled_back":
            self._rollback(rec)
        else:
            self._other_event(rec, sub)

    def _other_event(self, rec: Rec, sub: str) -> None:
        p = rec.payload
        if sub in NOTE_EVENTS:
            msg = self._typed(rec, p, "message", str)
            self._note(rec, sub, *("message",) if msg is not None else (), text=msg)
        elif sub == "injected_message":  # a prompt Codex sent for a timer or a tool, not a person's words
            text = self._typed(rec, p, "content", str)
            raw = {"source": p["source"]} if isinstance(p.get("source"), str) else None
            self._note(rec, sub, *("content",) if text is not None else (), text=text, raw=raw)
        elif sub == "item_completed":
            item = self._typed(rec, p, "item", dict)
            # TurnItem is tagged by its variant's name ("Plan"); "plan" as forsy read it before
            if item is not None and item.get("type") in PLAN_ITEMS and (text := self._typed(rec, item, "text", str)):
                self._note(rec, "plan", "item", "text", text=text)
        elif sub == "thread_name_updated" and (name := self._typed(rec, p, "thread_name", str)) is not None:
            self.meta.extra["thread_name"] = name
        elif sub == "thread_goal_updated":
            self._goal(rec)
        elif sub == "thread_settings_applied" and (applied := settings(rec.payload)) is not None:
            changes: list[dict[str, Any]] = self.meta.extra.setdefault("thread_settings", [])
            if not changes or {k: v for k, v in changes[-1].items() if k != "line"} != applied:
                changes.append({**applied, "line": rec.line})
        elif sub in ("task_complete", "turn_complete"):
            self.group = None
        elif sub not in SILENT_EVENTS:
            self._unknown(rec, f"event_msg:{sub}")

    def _goal(self, rec: Rec) -> None:
        """ThreadGoalUpdatedEvent {threadId, turnId, goal: {objective, status, tokenBudget,
        tokensUsed, …}} (camelCase), sent at each change and each use of the budget: the thread's
        goals as set (`/goal`, or the model's create_goal) and each status they took, with the line."""
        goal = self._typed(rec, rec.payload, "goal", dict)
        if goal is None:
            return
        seen = {k: goal[k] for k in ("objective", "status", "tokenBudget") if isinstance(goal.get(k), str | int)}
        goals: list[dict[str, Any]] = self.meta.extra.setdefault("goals", [])
        if seen and (not goals or {k: v for k, v in goals[-1].items() if k != "line"} != seen):
            goals.append({**seen, "line": rec.line})

    def _aborted(self, rec: Rec) -> None:
        reason = rec.payload.get("reason")
        parts = ("reason",) if "reason" in rec.payload else ()
        if reason == "interrupted":
            self._event("interrupt", rec, *parts, actor="user", info=NoteInfo(reason=reason))
        else:
            self._note(rec, "turn_aborted", *parts, reason=reason)

    def _rollback(self, rec: Rec) -> None:
        n = self._typed(rec, rec.payload, "num_turns", int)
        if n is not None and n > 0 and self.user_idx:
            # Codex drops the last n user turns from the model's history: mark them.
            cut = self.user_idx[-min(n, len(self.user_idx))]
            for ev in self.events[cut:]:
                if not ev.abandoned:
                    ev.abandoned = True
                    self.session.quality.abandoned_events += 1
            del self.user_idx[-min(n, len(self.user_idx)) :]
        self._note(rec, "thread_rolled_back", num_turns=rec.payload.get("num_turns"))

    def _compaction(self, rec: Rec) -> None:
        if self.last_compaction is not None:
            idx, count = self.last_compaction
            if rec.idx - idx <= WINDOW and count == len(self.events):
                return  # the twin of the compaction just recorded
        msg = self._typed(rec, rec.payload, "message", str) if rec.kind == "compacted" else None
        text = msg or None
        hist = self._typed(rec, rec.payload, "replacement_history", list)
        info = NoteInfo(replacement_history_items=len(hist) if hist is not None else None,
                        encrypted=rec.kind == "response_item")
        self._event("compaction", rec, *("message",) if text else (), actor="system", text=text, info=info)
        self.session.quality.compactions += 1
        self.group = None
        self.last_compaction = (rec.idx, len(self.events))

    def _inter_agent(self, rec: Rec) -> None:
        """InterAgentCommunication {author, recipient, other_recipients, content, trigger_turn}:
        a message between agents (multi-agent v2), which Codex counts as a turn's start. Sent to
        this subagent thread by the agent path it runs as, it is its input (its task, the first
        time: `subagent_input`); any other, a note naming both."""
        p = rec.payload
        self.group = None
        key = next((k for k in ("message", "content", "text") if isinstance(p.get(k), str)), None)
        own = self.meta.extra.get("agent_path")
        if key and self.subagent and isinstance(own, str) and p.get("recipient") == own and p[key].strip():
            self._subagent_input(rec, (key,), p[key])
            return
        raw = {k: p[k] for k in ("author", "recipient") if isinstance(p.get(k), str)}
        self._note(rec, "inter_agent_communication", *(key,) if key else (), text=p.get(key) if key else None,
                   raw=raw or None)

    # ---------------------------------------------------------------- session facts
    def _tokens(self, rec: Rec, p: dict[str, Any]) -> None:
        info = self._typed(rec, p, "info", dict)
        if info is None:
            return
        total = self._typed(rec, info, "total_token_usage", dict)
        if total is not None:
            # Cumulative for the thread: the last one is the total, never a sum.
            usage = {k: v for k in total if (v := self._typed(rec, total, k, int)) is not None}
            self.meta.token_usage = usage
            self.usage_from_count = True
        if (window := self._typed(rec, info, "model_context_window", int)) is not None:
            self.meta.extra["model_context_window"] = window

    def _usage_record(self, rec: Rec) -> None:
        """One model response's usage (TokenUsageRecord, newer Codex): its `thread_token_usage`
        is the thread's running total, read when no token_count event gives it."""
        total = self._typed(rec, rec.payload, "thread_token_usage", dict)
        if total is not None and not self.usage_from_count:
            self.meta.token_usage = {k: v for k, v in total.items() if type(v) is int}

    def _turn_context(self, rec: Rec) -> None:
        self.group = None
        p = rec.payload
        model = self._typed(rec, p, "model", str)
        if model is not None and model not in self.meta.models:
            self.meta.models.append(model)
        if (turn_id := self._typed(rec, p, "turn_id", str)) is not None:
            self.turn_id = turn_id
        cwd = self._typed(rec, p, "cwd", str)
        if self.meta.cwd is None and cwd is not None:
            self.meta.cwd = cwd
        settings = {k: p[k] for k in TURN_KEYS if k in p}
        mode = self._typed(rec, p, "collaboration_mode", dict)
        if mode is not None:
            st = self._typed(rec, mode, "settings", dict) or {}
            settings["collaboration_mode"] = {
                "mode": mode.get("mode"),
                "reasoning_effort": st.get("reasoning_effort"),
            }
        turns: list[dict[str, Any]] = self.meta.extra.setdefault("turns", [])
        last = {k: v for k, v in turns[-1].items() if k != "line"} if turns else None
        if last != settings:
            turns.append({**settings, "line": rec.line})

    def _read_meta(self, rec: Rec) -> None:
        p = rec.payload
        m = self.meta
        if thread_id := self._typed(rec, p, "id", str):
            self.thread_id = thread_id
        m.agent_version = self._typed(rec, p, "cli_version", str)
        if p.get("history_mode") == "paginated":
            # policy.rs: item_completed turn items stand in for the *_end events (read by _activity)
            m.extra["history_mode"] = "paginated"
        if rec.kind == "bare_header" and (ts := self._typed(rec, p, "timestamp", str)) is not None:
            m.started_at, m.started_at_ref = ts, Ref(rec.ev, pointer(*rec.base, "timestamp"))  # bare items have none
        m.cwd = self._typed(rec, p, "cwd", str)
        git = self._typed(rec, p, "git", dict)
        if git is not None:
            m.git_branch = self._typed(rec, git, "branch", str)
            m.extra["git"] = {k: v for k, v in git.items() if k != "branch"}
        base = self._typed(rec, p, "base_instructions", dict)
        if base is not None and (text := self._typed(rec, base, "text", str)) is not None:
            m.system_prompt = text
            m.system_prompt_ref = Ref(rec.ev, pointer(*rec.base, "base_instructions", "text"))
        if self._typed(rec, p, "instructions", str):
            # Before `base_instructions` (2025 – early 2026) this field held the user's
            # instructions (AGENTS.md), not the system prompt, which was not recorded.
            m.memory = p["instructions"]
            m.extra["memory_ref"] = {"ev": rec.ev, "pointer": pointer(*rec.base, "instructions")}
        tools = self._typed(rec, p, "dynamic_tools", list)
        if tools is not None:
            m.tools = [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
        m.extra.update({k: p[k] for k in META_EXTRA_KEYS if p.get(k) is not None})
        self._read_source(p)

    def _read_source(self, p: dict[str, Any]) -> None:
        src = p.get("source")
        sub = src.get("subagent") if isinstance(src, dict) else None
        parent = p.get("parent_thread_id")
        if isinstance(sub, dict) and isinstance(sub.get("thread_spawn"), dict):
            self.subagent = "thread_spawn"
            parent = sub["thread_spawn"].get("parent_thread_id") or parent
            if isinstance(path := sub["thread_spawn"].get("agent_path"), str):
                self.meta.extra.setdefault("agent_path", path)  # SubAgentSource::ThreadSpawn's
        elif isinstance(sub, dict) and sub:
            self.subagent = str(next(iter(sub)))
        elif isinstance(sub, str):
            self.subagent = sub
        elif isinstance(parent, str):
            self.subagent = "thread_spawn"
        if self.subagent:
            self.actor = f"subagent:{self.thread_id}"
            self.parent_thread_id = parent if isinstance(parent, str) else None
            self.meta.extra["subagent"] = self.subagent
            if self.parent_thread_id:
                self.meta.extra["parent_thread_id"] = self.parent_thread_id


def _file_uuid(lf: LoadedFile) -> str | None:
    found = _UUID.findall(lf.path.name)
    return found[-1] if found else None
