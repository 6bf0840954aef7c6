"""Events of one Qwen Code transcript (a session's chat, or a subagent's), record by record.

What each record type becomes is said in `source`'s docstring; the system records in
`_system`. The parts of a record's `message` are Gemini's (`part_texts`, `response_id`).
"""

from __future__ import annotations

from typing import Any

from ...evidence import Event, Ref, Session, pointer
from ...payloads import MessageInfo, NoteInfo, ResultInfo
from .._records import Record, omitted_mark
from ..gemini import part_texts, response_id
from ._shell import qwen_shell_outcome
from ._system import compaction_refs, system_mark

NOTE_WHY = "notes are not steps"
NO_WORDS_WHY = "a user message with no words"
# core/coreToolScheduler.ts: the reason a call gets when the person answers No (or Esc) to its
# confirmation; the response then says "[Operation Cancelled] Reason: User did not allow tool call"
DECLINED = "User did not allow tool call"
FAILED = frozenset({"error", "cancelled"})  # core/coreToolScheduler.ts Status: a call that did not succeed
# atCommandProcessor.ts: the parts after the typed query hold the files an `@path` named, between these
REFERENCED = "--- Content from referenced files ---"
REMINDER = "<system-reminder>"  # text the CLI adds to a turn for the model (environmentContext.ts)
TOKEN_KEYS = {  # GenerateContentResponseUsageMetadata → forsy's names; the 0.x summary kept forsy's own
    "promptTokenCount": "input", "candidatesTokenCount": "output", "cachedContentTokenCount": "cached",
    "thoughtsTokenCount": "thoughts", "toolUsePromptTokenCount": "tool", "totalTokenCount": "total",
    "input": "input", "output": "output", "cached": "cached", "thoughts": "thoughts", "tool": "tool",
    "total": "total",
}


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _parts(d: dict[str, Any]) -> list[Any]:
    p = _dict(d.get("message")).get("parts")
    return p if isinstance(p, list) else []


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v.strip() else None


def _attachment(part: dict[str, Any]) -> str | None:
    """The stated omission of a part that carries a file's bytes or address (Gemini's `inlineData`,
    `fileData`), as the Claude Code reader states an image it does not copy; None for another part."""
    for key in ("inlineData", "fileData"):
        if isinstance(part.get(key), dict):
            return omitted_mark(key, part[key].get("mimeType"))
    return None


class Transcript:
    """Reads the records of one transcript into `s.events` (in file order)."""

    def __init__(self, s: Session, actor: str = "agent", *, subagent: bool = False) -> None:
        self.s = s
        self.actor = actor  # the agent whose transcript this is
        self.subagent = subagent  # a subagent's transcript: its first prompt is the task it was given
        self.abandoned = False  # the record being read is off the chain (rewound away)
        self.calls: dict[str, str | None] = {}  # call id → tool name, for every call read
        self.answered: set[str] = set()
        self.task_given = False
        self.slash: tuple[str, str] | None = None  # (uuid, rawCommand) of a command the model was sent

    # -- helpers -------------------------------------------------------------------------------
    def _ev(self, kind: Any, rec: Record, ptr: str, **fields: Any) -> Event:
        ts = rec.data.get("timestamp") if isinstance(rec.data.get("timestamp"), str) else None
        ev = Event(kind, fields.pop("actor", self.actor), ts, [Ref(rec.ev.id, ptr)],
                   ts_ref=Ref(rec.ev.id, "/timestamp") if ts else None, **fields)
        ev.abandoned = self.abandoned
        if ev.abandoned:
            self.s.quality.abandoned_events += 1
        self.s.events.append(ev)
        return ev

    def _note(self, rec: Record, texts: list[tuple[str, str]], subtype: str, actor: str = "system") -> None:
        for ptr, text in texts:
            self._ev("note", rec, ptr, actor=actor, text=text, info=NoteInfo(subtype=subtype))
        self.s.mark(rec.ev.id, "set_aside", NOTE_WHY, subtype)

    def record(self, rec: Record) -> None:
        t = rec.data.get("type")
        if t == "user":
            self._user(rec)
        elif t == "assistant":
            self._assistant(rec)
        elif t == "tool_result":
            self._tool_result(rec)
        elif t == "system":
            self._system(rec)
        else:
            self.s.quality.unknown_records += 1
            self.s.warn("unknown-record", f"record type {t!r} is not one Qwen Code writes; skipped", rec.ev.source,
                        rec.ev.line)

    # -- user ----------------------------------------------------------------------------------
    def _user(self, rec: Record) -> None:
        d = rec.data
        parts = _parts(d)
        sub, prov, payload = d.get("subtype"), d.get("provenance"), _dict(d.get("systemPayload"))
        if any(isinstance(p, dict) and "functionResponse" in p for p in parts):
            # responses sent as a user turn: read as the calls' results
            if not self._responses(rec, parts):
                self.s.mark(rec.ev.id, "set_aside", "a tool result with no response in it", "user")
            return
        shown = _str(payload.get("displayText"))
        said = part_texts(parts, "/message/parts", thoughts=False)
        given = said or ([("/systemPayload/displayText", shown)] if shown else [])
        if sub in ("notification", "cron", "goal_runtime") or prov in ("system", "goal_runtime", "goal_control"):
            # the CLI's words sent in the person's place: a background task's notice, a scheduled
            # prompt, a goal's runtime message (chatRecordingService.ts recordNotification...)
            self._note(rec, given, str(sub or prov))
        elif isinstance(d.get("externalInputKind"), str):  # a message another agent sent a subagent
            self._note(rec, said, f"external_{d['externalInputKind']}", actor="agent")
        elif self.subagent and not self.task_given:  # the task the launching agent gave
            self.task_given = True
            self._note(rec, said, "subagent_input", actor="agent")
        elif sub in (None, "mid_turn_user_message", "realtime_message"):
            self._typed(rec, shown, said)
        else:
            self._note(rec, given, f"user_{sub}")

    def _typed(self, rec: Record, shown: str | None, said: list[tuple[str, str]]) -> None:
        s, slash, self.slash = self.s, self.slash, None
        words = [("/systemPayload/displayText", shown)] if shown else []
        extra: list[tuple[str, str]] = []
        if not shown:
            for ptr, text in said:  # the typed query, then what the CLI put after it for the model
                if extra or text.strip().startswith(REFERENCED) or text.lstrip().startswith(REMINDER):
                    extra.append((ptr, text))
                else:
                    words.append((ptr, text))
        if slash is not None and rec.data.get("parentUuid") == slash[0]:
            if [t for _, t in words] == [slash[1]]:  # the command as typed, sent on: its invocation is read
                s.mark(rec.ev.id, "duplicate", "the slash command as typed, sent to the model (its slash_command "
                       "record is read)")
            else:  # what the command made of the typed words for the model
                self._note(rec, words + extra, "slash_command_prompt")
            return
        for ptr, text in words:
            self._ev("user", rec, ptr, actor="user", text=text)
        attached = [(i, m) for i, p in enumerate(_parts(rec.data)) if isinstance(p, dict) and (m := _attachment(p))]
        if not words and attached:
            # the person's turn of images or files alone (displayText empty): still their turn; no
            # caption is made up, the text states each part, as an excerpt, citing the parts
            ev = self._ev("user", rec, f"/message/parts/{attached[0][0]}", actor="user", excerpt=True,
                          text="\n".join(m for _, m in attached), info=MessageInfo(attachments_omitted=len(attached)))
            ev.refs += [Ref(rec.ev.id, f"/message/parts/{i}") for i, _ in attached[1:]]
        for ptr, text in extra:
            kind = "at_command_content" if not text.lstrip().startswith(REMINDER) else "system_reminder"
            self._ev("note", rec, ptr, actor="system", text=text, info=NoteInfo(subtype=kind))
        if not words and not attached:
            s.mark(rec.ev.id, "set_aside", NOTE_WHY if extra else NO_WORDS_WHY, "user")

    # -- assistant -----------------------------------------------------------------------------
    def _assistant(self, rec: Record) -> None:
        d, s = rec.data, self.s
        model = d.get("model")
        if isinstance(model, str) and model and model not in s.meta.models:
            s.meta.models.append(model)
        usage = d.get("usageMetadata")
        for k, v in _dict(usage).items():
            if k in TOKEN_KEYS and isinstance(v, int) and not isinstance(v, bool):
                s.meta.token_usage[TOKEN_KEYS[k]] = s.meta.token_usage.get(TOKEN_KEYS[k], 0) + v
        parts = _parts(d)
        before = len(s.events)
        for ptr, text in part_texts(parts, "/message/parts", thoughts=True):
            self._ev("reasoning", rec, ptr, text=text)
        for ptr, text in part_texts(parts, "/message/parts", thoughts=False):
            self._ev("agent_text", rec, ptr, text=text)
        run, rnd = d.get("agentRunId"), d.get("agentRound")
        # a subagent writes each call as a record of its own; the calls of one round were asked together
        group = f"{run}:{rnd}" if isinstance(run, str) and isinstance(rnd, int) else str(d.get("uuid") or rec.ev.id)
        for i, part in enumerate(parts):
            fc = part.get("functionCall") if isinstance(part, dict) else None
            if not isinstance(fc, dict):
                continue
            name = fc.get("name") if isinstance(fc.get("name"), str) else None
            call_id = fc["id"] if isinstance(fc.get("id"), str) and fc["id"] else f"{rec.ev.id}:{i}"
            self.calls[call_id] = name
            self._ev("tool_call", rec, pointer("message", "parts", i, "functionCall", "args"), call_id=call_id,
                     tool=name, args=fc.get("args"), group=group,
                     name_ref=Ref(rec.ev.id, pointer("message", "parts", i, "functionCall", "name")) if name else None)
        if len(s.events) == before:
            s.mark(rec.ev.id, "metadata", "model and token usage of a turn with no content" if usage or model
                   else "an assistant turn with no content")

    # -- tool results --------------------------------------------------------------------------
    def _tool_result(self, rec: Record) -> None:
        parts = _parts(rec.data)
        if not self._responses(rec, parts):
            self.s.mark(rec.ev.id, "set_aside", "a tool result with no response in it", "tool_result")
            self.s.warn("no-result", "a tool_result record holds no functionResponse part; skipped", rec.ev.source,
                        rec.ev.line)

    def _responses(self, rec: Record, parts: list[Any]) -> bool:
        """The results in a record's `functionResponse` parts (each with the text parts after it,
        as the scheduler's convertToFunctionResponse writes them). True when one was read."""
        tcr = _dict(rec.data.get("toolCallResult"))
        status = tcr.get("status") if isinstance(tcr.get("status"), str) else None
        starts = [j for j, p in enumerate(parts) if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)]
        read = False
        for n, j in enumerate(starts):
            fr = parts[j]["functionResponse"]
            call_id = response_id(parts[j])
            if call_id is None and len(starts) == 1 and isinstance(tcr.get("callId"), str):
                call_id = tcr["callId"]
            if call_id is not None and call_id in self.answered:
                continue
            refs, texts, key = self._result_texts(rec, parts, j, starts[n + 1] if n + 1 < len(starts) else len(parts))
            if not refs:
                self.s.quality.missing_results += 1
                self.s.warn("no-result", f"the response to call {call_id} holds no output text", rec.ev.source,
                            rec.ev.line)
                continue
            name = fr.get("name") if isinstance(fr.get("name"), str) else self.calls.get(call_id or "")
            text = "\n".join(texts)
            info = ResultInfo()
            failed = status in FAILED if status is not None else key == "error"
            if status == "cancelled" and DECLINED in text:  # the person said No to the call
                info.rejected = True
                self.s.quality.extra["rejected_calls"] = self.s.quality.extra.get("rejected_calls", 0) + 1
            failed = qwen_shell_outcome(name, text, failed, info)  # a shell call's status is not its exit
            if call_id is None or call_id not in self.calls:
                info.orphan = True
            if call_id is not None:
                self.answered.add(call_id)
            ts = rec.data.get("timestamp") if isinstance(rec.data.get("timestamp"), str) else None
            ev = Event("tool_result", self.actor, ts, refs, text=text, call_id=call_id or f"{rec.ev.id}:{j}",
                       tool=name, is_error=failed, ts_ref=Ref(rec.ev.id, "/timestamp") if ts else None, info=info)
            ev.abandoned = self.abandoned
            self.s.events.append(ev)
            read = True
        if starts and not read:
            self.s.mark(rec.ev.id, "duplicate", "responses to calls whose results were read already")
            return True
        return read

    def _result_texts(self, rec: Record, parts: list[Any], j: int, end: int) -> tuple[list[Ref], list[str], str | None]:
        resp = _dict(parts[j]["functionResponse"].get("response"))
        refs: list[Ref] = []
        texts: list[str] = []
        key = next((k for k in ("output", "error") if isinstance(resp.get(k), str)), None)
        if key is not None:
            refs.append(Ref(rec.ev.id, pointer("message", "parts", j, "functionResponse", "response", key)))
            texts.append(resp[key])
        for k in range(j + 1, end):  # media and text the tool returned beside its response
            p = parts[k]
            if isinstance(p, dict) and isinstance(p.get("text"), str) and p["text"].strip():
                refs.append(Ref(rec.ev.id, pointer("message", "parts", k, "text")))
                texts.append(p["text"])
        if not refs:  # no text for the model (an image): what the terminal showed, when it is text
            shown = _dict(rec.data.get("toolCallResult")).get("resultDisplay")
            if isinstance(shown, str) and shown.strip():
                refs.append(Ref(rec.ev.id, "/toolCallResult/resultDisplay"))
                texts.append(shown)
        return refs, texts, key

    # -- system --------------------------------------------------------------------------------
    def _system(self, rec: Record) -> None:
        d, s = rec.data, self.s
        sub = d.get("subtype")
        payload = _dict(d.get("systemPayload"))
        if sub == "slash_command" and payload.get("phase") == "invocation" and _str(payload.get("rawCommand")):
            self._ev("user", rec, "/systemPayload/rawCommand", actor="user", text=payload["rawCommand"])
            if payload.get("sentToModel") is True:
                self.slash = (str(d.get("uuid")), payload["rawCommand"])
            return
        if sub == "chat_compression":
            refs = compaction_refs(payload)
            for ptr, text in refs:
                self._ev("compaction", rec, ptr, actor="system", text=text, info=NoteInfo(subtype="chat_compression"))
            if refs:
                s.quality.compactions += 1
                return
        if sub in ("at_command", "background_task_completed", "agent_launch_prompt"):
            key = {"at_command": "userText", "background_task_completed": "displayText",
                   "agent_launch_prompt": "displayText"}[sub]
            said = _str(payload.get(key))
            if said is not None:
                self._note(rec, [(f"/systemPayload/{key}", said)], sub, actor="system" if sub != "agent_launch_prompt"
                           else "agent")
                return
        if sub == "turn_result" and payload.get("state") == "cancelled":
            self._ev("interrupt", rec, "/systemPayload/state", actor="user", text="cancelled",
                     info=NoteInfo(subtype="turn_cancelled", reason="cancelled"))
            s.mark(rec.ev.id, "metadata", "interrupt (termination_reason)")
            return
        if sub == "turn_result" and payload.get("state") == "error":
            self._turn_error(rec, _dict(payload.get("error")))
            return
        if sub == "managed_session_event_v1":
            self._managed(_dict(d.get("managedSession")))
        if sub == "custom_title" and _str(payload.get("customTitle")):
            s.meta.extra["title"] = payload["customTitle"]
        if sub == "parent_session" and _str(payload.get("parentSessionId")):
            s.meta.extra["parent_session_id"] = payload["parentSessionId"]
        if sub == "session_model" and _str(payload.get("modelId")):
            s.meta.extra["session_model"] = payload["modelId"]
        mark = system_mark(sub)
        if mark is None:
            s.quality.unknown_records += 1
            s.warn("unknown-record", f"system record of subtype {sub!r} is not one forsy knows; skipped",
                   rec.ev.source, rec.ev.line)
            return
        s.mark(rec.ev.id, mark[0], mark[1], str(sub))

    def _turn_error(self, rec: Record, err: dict[str, Any]) -> None:
        """A turn that failed (`turn_result` of state `error`, its `error` as normalizeTurnResultError
        writes it: `message`, `code` when the error had one): an error step, as a failed model call
        is elsewhere, its text the message then the code, each cited."""
        said = [(f"/systemPayload/error/{k}", err[k]) for k in ("message", "code") if _str(err.get(k))]
        ev = self._ev("agent_text", rec, said[0][0] if said else "/systemPayload/state",
                      text="\n".join(t for _, t in said) or None, info=MessageInfo(api_error=True))
        ev.refs += [Ref(rec.ev.id, ptr) for ptr, _ in said[1:]]

    def _managed(self, event: dict[str, Any]) -> None:
        """Count a managed session's events and the messages among them: their content is kept by
        reference (`contentRef`) in Qwen Code's managed-session store, not in this file (source.py
        says so, or refuses the session)."""
        q = self.s.quality.extra
        q["managed_events"] = q.get("managed_events", 0) + 1
        if event.get("kind") == "message.committed":
            q["managed_messages"] = q.get("managed_messages", 0) + 1
