"""Events of one Copilot CLI session log (`events.jsonl`), record by record.

What each event type becomes is said in `source`'s docstring. A record is
`{type, data, id, timestamp, parentId[, ephemeral][, agentId]}`; a subagent's events carry the
id of the call that runs it (`agentId`, else `data.parentToolCallId`): their actor is
`subagent:<that id>`, their thread linked to that call.
"""

from __future__ import annotations

import re
from typing import Any

from ...evidence import Event, Ref, Session, pointer
from ...payloads import CallInfo, JSONValue, Link, MessageInfo, NoteInfo, ResultInfo
from .._records import Record, omitted_mark
from .._threads import add_subagent, link_thread
from . import _intent
from ._legacy import read_chat_messages
from ._server_tools import UNREAD_WHY, read_server_tools

NOTE_WHY = "notes are not steps"
LINK_RULE = "parentToolCallId"  # the subagent's events name the call that runs it
EXIT_RULE = "R-call/copilot-exit-code"
# the shell tools' last line when the command ended: `<exited with exit code N>` (0.0.3xx-1.0.x,
# tools' bash), `<shellId: X completed with exit code N>` (1.0.5x on)
_EXIT = re.compile(r"<(?:exited|shellId: [^>\s]+ completed) with exit code (-?\d+)>\s*\Z")
SHELL_TOOLS = frozenset({"bash", "powershell"})
# error.code of a call the person (or a rule) refused: the call's resultType
REFUSED = frozenset({"denied", "rejected"})
# user.message sources that are the CLI's words, not the person's (a skill's prompt, a
# notification's text, the autopilot's continuation)
CLI_SOURCES = frozenset({"system", "jit-instruction", "thinking-exhausted-continuation"})
# user.message source of a prompt another agent sent: `agent-<agent id>` (session-events.ts
# UserMessageData.source, from 1.0.76-5)
AGENT_SOURCE = "agent-"
TOKEN_KEYS = {"inputTokens": "input", "outputTokens": "output", "cacheReadTokens": "cached",
              "cacheWriteTokens": "cache_write", "reasoningTokens": "thoughts", "tokensUsed": "total"}
# event types read as bookkeeping: the session's state, the UI's, streaming and request/answer
# pairs of dialogs whose outcome the tool events hold
METADATA = frozenset({
    "session.compaction_start", "session.snapshot_rewind", "session.usage_info", "session.idle",
    "session.title_changed", "session.mode_changed", "session.permissions_changed", "session.plan_changed",
    "session.workspace_file_changed", "session.remote_steerable_changed", "session.schedule_created",
    "session.schedule_cancelled", "session.autopilot_objective_changed", "session.context_changed",
    "session.shutdown", "session.tools_updated", "session.background_tasks_changed", "session.skills_loaded",
    "session.custom_agents_updated", "session.mcp_servers_loaded", "session.mcp_server_status_changed",
    "session.extensions_loaded", "session.custom_notification", "pending_messages.modified",
    "assistant.turn_start", "assistant.turn_end", "assistant.intent", "assistant.streaming_delta",
    "assistant.message_start", "model.call_failure", "tool.execution_progress", "tool.execution_partial_result",
    "hook.start", "hook.progress", "subagent.started", "subagent.completed", "subagent.deselected",
    "permission.requested", "user_input.requested", "user_input.completed", "elicitation.requested",
    "elicitation.completed", "sampling.requested", "sampling.completed", "mcp.oauth_required",
    "mcp.oauth_completed", "external_tool.requested", "external_tool.completed", "command.queued",
    "command.execute", "command.completed", "auto_mode_switch.requested", "auto_mode_switch.completed",
    "commands.changed", "capabilities.changed", "exit_plan_mode.requested", "exit_plan_mode.completed",
    "mcp_app.tool_call_complete", "session.canvas.opened", "session.canvas.registry_changed",
    "session.canvas.closed", "session.extensions.attachments_pushed",
})
DELTAS = frozenset({"assistant.message_delta", "assistant.reasoning_delta"})


NO_WORDS = "a user message with no words"


def attachment_marker(a: Any) -> str:
    """The stated omission of one attachment of a user.message (session-events.ts `Attachment`):
    its `type` and the media type it names, as the Claude Code reader states an image it does not copy."""
    a = a if isinstance(a, dict) else {}
    kind = a.get("type") if isinstance(a.get("type"), str) and a["type"] else "attachment"
    return omitted_mark(kind, a.get("mimeType"))


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v.strip() else None


def owner(d: dict[str, Any]) -> str | None:
    """The call id of the subagent whose event this is (None: the main agent's)."""
    agent = d.get("agentId")
    if isinstance(agent, str) and agent:
        return agent
    parent = _dict(d.get("data")).get("parentToolCallId")
    return parent if isinstance(parent, str) and parent else None


class Transcript:
    """Reads the records of one events.jsonl into `s.events` (in file order)."""

    def __init__(self, s: Session) -> None:
        self.s = s
        self.actor = "agent"
        self.calls: dict[str, str | None] = {}  # call id → tool name, for every call read
        self.call_events: dict[str, Event] = {}
        self.answered: set[str] = set()
        self.intents: set[str] = set()  # report_intent calls, read as notes (_intent)
        self.user_asked: set[str] = set()  # calls the person ran (tool.user_requested)
        self.refused: set[str] = set()  # calls the person said No to (permission.completed)
        self.reasoned: set[str] = set()  # reasoning texts read from assistant.reasoning
        self.subagents: dict[str, dict[str, Any]] = {}  # call id → the subagent's entry
        self.linked: set[str] = set()

    # -- helpers -------------------------------------------------------------------------------
    def _ev(self, kind: Any, rec: Record, ptr: str, **fields: Any) -> Event:
        ts = rec.data.get("timestamp") if isinstance(rec.data.get("timestamp"), str) else None
        ev = Event(kind, fields.pop("actor", self.actor), ts, [Ref(rec.ev.id, ptr)],
                   ts_ref=Ref(rec.ev.id, "/timestamp") if ts else None, **fields)
        # the link goes on the thread's first event that can be a step (a note is none: the
        # subagent's first step would lose its cause, R-cause/delegation)
        if ev.actor.startswith("subagent:") and ev.actor not in self.linked and kind != "note":
            self.linked.add(ev.actor)
            call = ev.actor.removeprefix("subagent:")
            link_thread([ev], ev.actor, Link(subagent=call, parent_thread_id=self.s.session_id, parent_call_id=call,
                                             link_rule=LINK_RULE))
        self.s.events.append(ev)
        return ev

    def _note(self, rec: Record, ptr: str, text: str | None, subtype: str, actor: str = "system") -> None:
        self._ev("note", rec, ptr, actor=actor, text=text, info=NoteInfo(subtype=subtype))
        self.s.mark(rec.ev.id, "set_aside", NOTE_WHY, subtype)

    def _model(self, v: Any) -> None:
        if isinstance(v, str) and v and v not in self.s.meta.models:
            self.s.meta.models.append(v)

    def record(self, rec: Record) -> None:
        t = rec.data.get("type")
        sub = owner(rec.data)
        self.actor = f"subagent:{sub}" if sub else "agent"
        d = _dict(rec.data.get("data"))
        handler = HANDLERS.get(t) if isinstance(t, str) else None
        if handler is not None:
            handler(self, rec, d)
        elif t in METADATA:
            self._metadata(rec, d, str(t))
        elif t in DELTAS:
            self.s.mark(rec.ev.id, "duplicate", "a streamed piece of a message the log holds whole", str(t))
        else:
            self.s.quality.unknown_records += 1
            self.s.warn("unknown-record", f"event type {t!r} is not one forsy knows of Copilot CLI; skipped",
                        rec.ev.source, rec.ev.line)

    def _metadata(self, rec: Record, d: dict[str, Any], t: str) -> None:
        s = self.s
        if t == "subagent.started" and isinstance(d.get("toolCallId"), str):
            entry = {"id": d["toolCallId"], "actor": f"subagent:{d['toolCallId']}", "name": d.get("agentName"),
                     "parent_thread_id": s.session_id, "parent_call_id": d["toolCallId"], "link_rule": LINK_RULE}
            self.subagents[d["toolCallId"]] = entry
            add_subagent(s.meta, [d["model"]] if isinstance(d.get("model"), str) else [], entry)
        if t == "session.context_changed" and s.meta.cwd is None and _str(d.get("cwd")):
            s.meta.cwd = d["cwd"]
        s.mark(rec.ev.id, "metadata", t.replace("_", " ").replace(".", " "))

    # -- the session ---------------------------------------------------------------------------
    def _start(self, rec: Record, d: dict[str, Any]) -> None:
        m = self.s.meta
        if _str(d.get("copilotVersion")):
            m.agent_version = d["copilotVersion"]
        self._model(d.get("selectedModel"))
        self._context(_dict(d.get("context")))
        if isinstance(d.get("startTime"), str) and m.started_at is None:
            m.started_at, m.started_at_ref = d["startTime"], Ref(rec.ev.id, "/data/startTime")
        self.s.mark(rec.ev.id, "metadata", "session start")

    def _context(self, c: dict[str, Any]) -> None:
        m = self.s.meta
        if m.cwd is None and _str(c.get("cwd")):
            m.cwd = c["cwd"]
        if m.git_branch is None and _str(c.get("branch")):
            m.git_branch = c["branch"]
        if _str(c.get("repository")):
            m.extra.setdefault("repository", c["repository"])

    def _resume(self, rec: Record, d: dict[str, Any]) -> None:
        self._context(_dict(d.get("context")))
        self._model(d.get("selectedModel"))
        self.s.quality.extra["resumes"] = self.s.quality.extra.get("resumes", 0) + 1
        self.s.mark(rec.ev.id, "metadata", "session resume")

    def _said(self, rec: Record, d: dict[str, Any], key: str, subtype: str, actor: str = "system") -> None:
        """A record whose one text (`data[key]`) is a note; without it, metadata."""
        text = _str(d.get(key))
        if text is None:
            self.s.mark(rec.ev.id, "metadata", f"{subtype} with no text")
            return
        self._note(rec, f"/data/{key}", text, subtype, actor)

    def _error(self, rec: Record, d: dict[str, Any]) -> None:
        kind = d.get("errorType") if isinstance(d.get("errorType"), str) else "error"
        self._said(rec, d, "message", f"session_error:{kind}")

    def _info(self, rec: Record, d: dict[str, Any]) -> None:
        t = str(rec.data.get("type"))
        kind = d.get("infoType", d.get("warningType"))
        self._said(rec, d, "message", f"{t.removeprefix('session.')}:{kind}" if isinstance(kind, str) else t)

    def _model_change(self, rec: Record, d: dict[str, Any]) -> None:
        self._model(d.get("newModel"))
        self._said(rec, d, "newModel", "model_change")

    def _truncation(self, rec: Record, d: dict[str, Any]) -> None:
        """Messages dropped to fit the model's window (no summary: nothing replaces them)."""
        self.s.quality.extra["truncations"] = self.s.quality.extra.get("truncations", 0) + 1
        raw: dict[str, JSONValue] = {k: v for k, v in d.items()
                                     if isinstance(v, (int, str)) and not isinstance(v, bool)}
        self._ev("note", rec, "/data", actor="system", text=None, info=NoteInfo(subtype="truncation", raw=raw))
        self.s.mark(rec.ev.id, "set_aside", NOTE_WHY, "truncation")

    def _cleared(self, rec: Record, d: dict[str, Any]) -> None:
        """The host cleared the conversation (session.history.clearContext): the model's context
        starts again, with `initialMessage` when one was set; nothing summarises what was dropped."""
        self.s.quality.extra["context_clears"] = self.s.quality.extra.get("context_clears", 0) + 1
        raw: dict[str, JSONValue] = {"messagesCleared": d["messagesCleared"]} \
            if isinstance(d.get("messagesCleared"), int) and not isinstance(d.get("messagesCleared"), bool) else {}
        text = _str(d.get("initialMessage"))
        self._ev("note", rec, "/data/initialMessage" if text else "/data", actor="system", text=text,
                 info=NoteInfo(subtype="context_cleared", raw=raw))
        self.s.mark(rec.ev.id, "set_aside", NOTE_WHY, "context_cleared")

    def _asset(self, rec: Record, d: dict[str, Any]) -> None:
        """The bytes an attachment or a result refers to by `assetId` (base64): forsy copies no
        binary data, so they are set aside by that rule."""
        self.s.mark(rec.ev.id, "set_aside", "binary data (an attachment's or a result's bytes) is not copied",
                    "binary_asset")

    def _compaction(self, rec: Record, d: dict[str, Any]) -> None:
        if d.get("success") is True and _str(d.get("summaryContent")):
            self._ev("compaction", rec, "/data/summaryContent", actor="system", text=d["summaryContent"],
                     info=NoteInfo(subtype="compaction"))
            self.s.quality.compactions += 1
            return
        if d.get("success") is False:
            self._said(rec, d, "error", "compaction_failed")
            return
        self.s.mark(rec.ev.id, "metadata", "a compaction with no summary")

    def _import_legacy(self, rec: Record, d: dict[str, Any]) -> None:
        """A legacy session's conversation copied in when it was first resumed (its chat messages)."""
        legacy = _dict(d.get("legacySession"))
        self._model(legacy.get("selectedModel"))
        line = legacy.get("timeline")
        outcomes = {e["callId"]: Record(rec.ev, e, f"/data/legacySession/timeline/{i}")
                    for i, e in enumerate(line if isinstance(line, list) else [])
                    if isinstance(e, dict) and e.get("type") == "tool_call_completed"
                    and isinstance(e.get("callId"), str)}
        n = read_chat_messages(self.s, rec, legacy.get("chatMessages"), "/data/legacySession/chatMessages", self,
                               outcomes)
        if n == 0:
            self.s.mark(rec.ev.id, "metadata", "a legacy session import with no messages")

    def _system(self, rec: Record, d: dict[str, Any]) -> None:
        if d.get("role") == "system" and isinstance(d.get("content"), str) and self.s.meta.system_prompt is None:
            self.s.meta.system_prompt = d["content"]
            self.s.meta.system_prompt_ref = Ref(rec.ev.id, "/data/content")
        self.s.mark(rec.ev.id, "metadata", "system prompt")

    def _from_agent(self, rec: Record, text: str | None, agent: str) -> None:
        """A prompt another agent sent (`source` `agent-<agent id>`): its words, not the person's; a
        note naming its author, as Codex's inter-agent messages are read. The CLI runs a turn of
        the main agent for it, as for the person's message: the answer pending ends there, and
        the one after it is the next turn's (R-turn/unlogged), not merged with the one before."""
        if text is None:
            self.s.mark(rec.ev.id, "set_aside", "a user message with no words", "user.message")
            return
        if self.actor == "agent":
            self._ev("note", rec, "", actor="system", text=None, info=NoteInfo(subtype="turn_started"))
        self._ev("note", rec, "/data/content", actor="system", text=text,
                 info=NoteInfo(subtype="inter_agent_communication", raw={"author": agent}))
        self.s.mark(rec.ev.id, "set_aside", NOTE_WHY, "inter_agent_communication")

    # -- the person and the agent --------------------------------------------------------------
    def _user(self, rec: Record, d: dict[str, Any]) -> None:
        text = _str(d.get("content"))
        src = d.get("source") if isinstance(d.get("source"), str) else None
        attached: list[Any] = d["attachments"] if isinstance(d.get("attachments"), list) else []
        if text is None and not attached:
            self.s.mark(rec.ev.id, "set_aside", NO_WORDS, "user.message")
            return
        if src in CLI_SOURCES or (src or "").startswith("skill-") or d.get("isAutopilotContinuation") is True:
            if text is None:  # attachments with no words from the CLI: no words of anyone's
                self.s.mark(rec.ev.id, "set_aside", NO_WORDS, "user.message")
                return
            self._note(rec, "/data/content", text, f"user_message:{src or 'autopilot'}")
            return
        if src is not None and src.startswith(AGENT_SOURCE) and len(src) > len(AGENT_SOURCE):
            self._from_agent(rec, text, src.removeprefix(AGENT_SOURCE))
            return
        if self.actor != "agent":  # the task a subagent was given, in its own thread
            if text is None:
                self.s.mark(rec.ev.id, "set_aside", NO_WORDS, "user.message")
                return
            self._note(rec, "/data/content", text, "subagent_input", actor="agent")
            return
        info = MessageInfo(attachments_omitted=len(attached)) if attached else None
        if text is None:
            # the person's turn of attachments alone (an image pasted with no caption): still their
            # turn; no caption is made up, the text states each attachment, as an excerpt
            marks = "\n".join(attachment_marker(a) for a in attached)
            self._ev("user", rec, "/data/attachments", actor="user", text=marks, excerpt=True, info=info)
            return
        self._ev("user", rec, "/data/content", actor="user", text=text, info=info)

    def _reasoning(self, rec: Record, d: dict[str, Any]) -> None:
        text = _str(d.get("content"))
        if text is None:
            self.s.mark(rec.ev.id, "metadata", "reasoning with no text")
            return
        self.reasoned.add(text)
        self._ev("reasoning", rec, "/data/content", text=text)

    def _assistant(self, rec: Record, d: dict[str, Any]) -> None:
        s = self.s
        self._model(d.get("model"))
        before = len(s.events)
        reasoning = _str(d.get("reasoningText"))
        if reasoning is not None and reasoning not in self.reasoned:
            self._ev("reasoning", rec, "/data/reasoningText", text=reasoning)
        elif reasoning is None and (_str(d.get("reasoningOpaque")) or _str(d.get("encryptedContent"))):
            s.quality.encrypted_reasoning += 1
        # the calls the provider ran itself (a hosted web search) ran before the words that
        # follow from them; they are owed no tool.execution_complete (not in `calls`)
        unread = read_server_tools(s, rec, d["serverTools"], self._ev) if d.get("serverTools") is not None else 0
        if _str(d.get("content")):
            self._ev("agent_text", rec, "/data/content", text=d["content"])
        reqs = d.get("toolRequests")
        group = d.get("messageId") if isinstance(d.get("messageId"), str) else rec.ev.id
        for i, req in enumerate(reqs if isinstance(reqs, list) else []):
            if not isinstance(req, dict):
                s.warn("damaged-record", f"tool request {i} is not an object; skipped", rec.ev.source, rec.ev.line)
                continue
            name = req.get("name") if isinstance(req.get("name"), str) else None
            call_id = req["toolCallId"] if _str(req.get("toolCallId")) else f"{rec.ev.id}:{i}"
            self.calls[call_id] = name
            if name == _intent.TOOL:
                self._intent(rec, pointer("data", "toolRequests", i, "arguments"), call_id, req.get("arguments"))
                continue
            ev = self._ev("tool_call", rec, pointer("data", "toolRequests", i, "arguments"), call_id=call_id,
                          tool=name, args=req.get("arguments"), group=group,
                          name_ref=Ref(rec.ev.id, pointer("data", "toolRequests", i, "name")) if name else None)
            self.call_events[call_id] = ev
            _mcp(ev, req)
            self.calls[call_id] = ev.tool
        if len(s.events) == before and unread:
            s.mark(rec.ev.id, "set_aside", UNREAD_WHY, "server_tools")
        elif len(s.events) == before:
            s.mark(rec.ev.id, "metadata", "an assistant message with no content")

    def _usage(self, rec: Record, d: dict[str, Any]) -> None:
        self._model(d.get("model"))
        for k, v in d.items():
            if k in TOKEN_KEYS and isinstance(v, int) and not isinstance(v, bool):
                self.s.meta.token_usage[TOKEN_KEYS[k]] = self.s.meta.token_usage.get(TOKEN_KEYS[k], 0) + v
        self.s.mark(rec.ev.id, "metadata", "token usage")

    def _abort(self, rec: Record, d: dict[str, Any]) -> None:
        reason = d.get("reason") if isinstance(d.get("reason"), str) else None
        self._ev("interrupt", rec, "/data/reason" if reason else "/type", actor="user", text=reason or "abort",
                 info=NoteInfo(subtype="abort", reason=reason))
        self.s.mark(rec.ev.id, "metadata", "interrupt (abort)")

    def _skill(self, rec: Record, d: dict[str, Any]) -> None:
        name = _str(d.get("name"))
        if name and name not in self.s.meta.skills:
            self.s.meta.skills.append(name)
        self._said(rec, d, "content", f"skill:{name}" if name else "skill")

    def _subagent_failed(self, rec: Record, d: dict[str, Any]) -> None:
        self._said(rec, d, "error", "subagent_failed", actor=self.actor)

    def _custom_agent(self, rec: Record, d: dict[str, Any]) -> None:
        """The person picked a custom agent for the session (`/agent`): the agent that goes on."""
        if _str(d.get("agentName")):
            self.s.meta.extra.setdefault("custom_agents", []).append(d["agentName"])
        self._said(rec, d, "agentName", "custom_agent_selected")

    def _hook_end(self, rec: Record, d: dict[str, Any]) -> None:
        err = _dict(d.get("error"))
        if d.get("success") is False and _str(err.get("message")):
            self._note(rec, "/data/error/message", err["message"], f"hook_failed:{d.get('hookType')}")
            return
        self.s.mark(rec.ev.id, "metadata", "hook end")

    def _notification(self, rec: Record, d: dict[str, Any]) -> None:
        kind = _dict(d.get("kind")).get("type")
        self._said(rec, d, "content", f"notification:{kind}" if isinstance(kind, str) else "notification")

    def _task_complete(self, rec: Record, d: dict[str, Any]) -> None:
        self._said(rec, d, "summary", "task_complete", actor=self.actor)

    def _handoff(self, rec: Record, d: dict[str, Any]) -> None:
        self._said(rec, d, "summary" if _str(d.get("summary")) else "context", "handoff")

    # -- tools ---------------------------------------------------------------------------------
    def _user_requested(self, rec: Record, d: dict[str, Any]) -> None:
        """A command the person ran themselves (`!command`): their words, `!` and the command
        (R-user/bash-input); its output (the completion with this call id) a note."""
        call_id = _str(d.get("toolCallId"))
        cmd = _str(_dict(d.get("arguments")).get("command"))
        if call_id is None or call_id in self.calls or call_id in self.user_asked:
            self.s.mark(rec.ev.id, "metadata", "a tool the person ran, already read")
            return
        self.user_asked.add(call_id)
        if cmd is None:
            self._said(rec, d, "toolName", "user_requested_tool", actor="user")
            return
        self._ev("user", rec, "/data/arguments/command", actor="user", text="!" + cmd,
                 info=MessageInfo(rule="bash-input"))

    def _start_tool(self, rec: Record, d: dict[str, Any]) -> None:
        """The call's start: read as the call only when no message asked for it (else metadata)."""
        call_id = _str(d.get("toolCallId"))
        if call_id is None:
            self.s.warn("damaged-record", "tool.execution_start has no toolCallId; skipped", rec.ev.source,
                        rec.ev.line)
            self.s.mark(rec.ev.id, "set_aside", "a tool start with no call id", "tool.execution_start")
            return
        if call_id in self.calls:
            if call_id in self.call_events:  # 0.0.4xx names an MCP tool's server here only
                _mcp(self.call_events[call_id], d)
                self.calls[call_id] = self.call_events[call_id].tool
            self.s.mark(rec.ev.id, "metadata", _intent.START if call_id in self.intents else "tool execution start")
            return
        name = d.get("toolName") if isinstance(d.get("toolName"), str) else None
        self.calls[call_id] = name
        if name == _intent.TOOL:
            self._intent(rec, "/data/arguments", call_id, d.get("arguments"))
            return
        ev = self._ev("tool_call", rec, "/data/arguments", call_id=call_id, tool=name, args=d.get("arguments"),
                      name_ref=Ref(rec.ev.id, "/data/toolName") if name else None)
        _mcp(ev, d)
        self.calls[call_id] = ev.tool

    def _intent(self, rec: Record, ptr: str, call_id: str, args: Any) -> None:
        """A report_intent call: a note of the intent it reported (_intent), by the actor that made it."""
        said = _intent.intent(args)
        self.intents.add(call_id)
        _intent.count(self.s)
        self._note(rec, f"{ptr}/intent" if said is not None else ptr, said, _intent.SUBTYPE, actor=self.actor)

    def _permission(self, rec: Record, d: dict[str, Any]) -> None:
        kind = _dict(d.get("result")).get("kind")
        if isinstance(d.get("toolCallId"), str) and isinstance(kind, str) and kind.startswith("denied-interactively"):
            self.refused.add(d["toolCallId"])
        self.s.mark(rec.ev.id, "metadata", "permission answer")

    def _complete(self, rec: Record, d: dict[str, Any]) -> None:
        s = self.s
        call_id = _str(d.get("toolCallId"))
        if call_id is None:
            s.warn("damaged-record", "tool.execution_complete has no toolCallId; skipped", rec.ev.source, rec.ev.line)
            s.mark(rec.ev.id, "set_aside", "a tool result with no call id", "tool.execution_complete")
            return
        if call_id in self.answered:
            s.mark(rec.ev.id, "duplicate", "a second result for a call already answered")
            return
        if call_id in self.intents:  # `Intent logged`: the call did nothing but show its words
            self.answered.add(call_id)
            s.mark(rec.ev.id, "metadata", _intent.ANSWER)
            return
        if call_id in self.user_asked and call_id not in self.calls:  # the output of the person's `!command`
            self.answered.add(call_id)
            got = _dict(d.get("result")) if d.get("success") is not False else _dict(d.get("error"))
            key = "content" if d.get("success") is not False else "message"
            where = "result" if key == "content" else "error"
            text = got.get(key) if isinstance(got.get(key), str) else None
            self._note(rec, f"/data/{where}/{key}" if text is not None else "/data", text, "user_shell_output")
            return
        result, err = _dict(d.get("result")), _dict(d.get("error"))
        ok = d.get("success")
        if isinstance(result.get("content"), str) and ok is not False:
            ptr, text = "/data/result/content", result["content"]
        elif isinstance(err.get("message"), str):
            ptr, text = "/data/error/message", err["message"]
        elif isinstance(result.get("content"), str):
            ptr, text = "/data/result/content", result["content"]
        else:
            ptr, text = "/data/success", None
        if ok is None:
            s.warn("damaged-record", f"the result of call {call_id} has no success flag", rec.ev.source, rec.ev.line)
        name = self.calls.get(call_id)
        info = ResultInfo(orphan=call_id not in self.calls)
        failed = ok is False if isinstance(ok, bool) else None
        if err.get("code") in REFUSED or call_id in self.refused:
            info.rejected = True
            s.quality.extra["rejected_calls"] = s.quality.extra.get("rejected_calls", 0) + 1
        if name in SHELL_TOOLS and text is not None:  # a command that ran is a success whatever its exit
            m = _EXIT.search(text)
            if m:
                info.exit_code = int(m.group(1))
                if info.exit_code != 0 and failed is False:
                    failed, info.failure_rule = True, EXIT_RULE
        self.answered.add(call_id)
        self._ev("tool_result", rec, ptr, text=text, call_id=call_id, tool=name, is_error=failed,
                 info=info)


def _mcp(ev: Event, d: dict[str, Any]) -> None:
    """An MCP tool's call is named `mcp:<server>.<tool>` (the spec's MCP naming; its name as written,
    `<server>-<tool>`, kept as `raw_name`) when the event names the server and the tool."""
    server, tool = _str(d.get("mcpServerName")), _str(d.get("mcpToolName"))
    if server is None or tool is None or (ev.tool or "").startswith("mcp:"):
        return
    ev.info = CallInfo(raw_name=ev.tool)
    ev.tool, ev.name_ref = f"mcp:{server}.{tool}", None


HANDLERS = {
    "session.start": Transcript._start, "session.resume": Transcript._resume, "session.error": Transcript._error,
    "session.info": Transcript._info, "session.warning": Transcript._info,
    "session.model_change": Transcript._model_change, "session.truncation": Transcript._truncation,
    "session.compaction_complete": Transcript._compaction, "session.import_legacy": Transcript._import_legacy,
    "session.handoff": Transcript._handoff, "session.task_complete": Transcript._task_complete,
    "system.message": Transcript._system, "system.notification": Transcript._notification,
    "user.message": Transcript._user, "assistant.reasoning": Transcript._reasoning,
    "assistant.message": Transcript._assistant, "assistant.usage": Transcript._usage, "abort": Transcript._abort,
    "skill.invoked": Transcript._skill, "subagent.failed": Transcript._subagent_failed,
    "subagent.selected": Transcript._custom_agent, "hook.end": Transcript._hook_end,
    "tool.user_requested": Transcript._user_requested, "tool.execution_start": Transcript._start_tool,
    "tool.execution_complete": Transcript._complete, "permission.completed": Transcript._permission,
    "session.context_cleared": Transcript._cleared, "session.binary_asset": Transcript._asset,
}
