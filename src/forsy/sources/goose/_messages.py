"""The messages of one Goose session, each a record, read part by part into events.

What each content part becomes is said in `source`'s docstring. A message is
`{id, role, created, content: [part...], metadata}`; each part is tagged by `type` (serde's
`tag = "type", rename_all = "camelCase"` on `MessageContent`), and a tool call's or result's
outcome is `{status: "success", value}` or `{status: "error", error}` (`tool_result_serde`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from ...evidence import Event, Ref, Session, pointer
from ...payloads import NoteInfo, ResultInfo
from .._records import Record
from . import _compaction
from ._compaction import CONTINUATION, COPY, HIDDEN_ORIGINAL, NOTICE, SUMMARY

NOTE_WHY = "notes are not steps"
COPY_WHY = ("Goose's copy, after a compaction, of the last text-only user message the model saw "
            "(read where first written)")
DECLINED_RULE = "R-call/goose-declined"
# agents/tool_execution.rs DECLINED_RESPONSE: the result Goose gives the model in place of a call
# the person declined (a success value, so only its words say the call never ran)
DECLINED = "The user has declined to run this tool."
# the developer extension's shell (goose-mcp developer/shell.rs, rmcp era): a command that exited
# with a status other than 0 ends its one text with this line, and the result is an error
_EXIT = re.compile(r"(?:\A|\n)Command exited with code (-?\d+)\Z")
SHELL_SUFFIX = "__shell"  # the developer extension's shell, named `<extension>__<tool>` as Goose names tools


# where a message's time, parts and visibility are: a JSONL line's fields, a database row's columns
Keys = tuple[str, str, str]
JSONL_KEYS: Keys = ("created", "content", "metadata")
DB_KEYS: Keys = ("created_timestamp", "content_json", "metadata_json")


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v.strip() else None


def iso_s(v: Any) -> str | None:
    """An epoch-seconds time (`Utc::now().timestamp()`, Message.created) as ISO 8601 UTC, or None."""
    if not isinstance(v, int) or isinstance(v, bool) or not 0 < v < 10**11:
        return None
    return datetime.fromtimestamp(v, tz=UTC).isoformat().replace("+00:00", "Z")


def _audience_ok(part: dict[str, Any]) -> bool:
    """Whether the model saw this content: no audience, or one naming the assistant (older
    developer tools wrote each output twice, once for the assistant, once for the user)."""
    aud = _dict(part.get("annotations")).get("audience")
    return not isinstance(aud, list) or "assistant" in aud


def _text_of(c: Any) -> str | None:
    """Where the text of a tool's content is (a pointer inside it), or None: a `text` content's
    `text`, a `resource` content's embedded text (the text editor's view gave the model the
    file as one)."""
    if not isinstance(c, dict):
        return None
    if c.get("type") == "text" and isinstance(c.get("text"), str):
        return "/text"
    if c.get("type") == "resource" and isinstance(_dict(c.get("resource")).get("text"), str):
        return "/resource/text"
    return None


def _resolve(c: dict[str, Any], rel: str) -> str:
    return str(c["text"] if rel == "/text" else c["resource"]["text"])


class Transcript:
    """Reads the message records of one session into `s.events` (in file order)."""

    def __init__(self, s: Session, keys: Keys = JSONL_KEYS) -> None:
        self.s = s
        self.created, self.content, self.metadata = keys
        self.calls: dict[str, str | None] = {}  # call id → tool name, for every call read
        self.answered: set[str] = set()
        self.parts: dict[str, _compaction.Part] = {}  # record id → its part in a compaction
        self.part: _compaction.Part | None = None  # that of the message being read

    def plan(self, recs: list[Record]) -> None:
        """Find the compactions among the session's records, before any is read: what a message
        of one is shows only in the messages after it (`_compaction`)."""
        self.parts = _compaction.find(recs, self.content, self.metadata)

    def _ev(self, kind: Any, rec: Record, ptr: str, **fields: Any) -> Event:
        ts = iso_s(rec.data.get(self.created))
        ev = Event(kind, fields.pop("actor", "agent"), ts, [Ref(rec.ev.id, rec.prefix + ptr)],
                   ts_from=Ref(rec.ev.id, rec.prefix + "/" + self.created) if ts else None, **fields)
        self.s.events.append(ev)
        return ev

    def _note(self, rec: Record, ptr: str, text: str | None, subtype: str, actor: str = "system") -> None:
        self._ev("note", rec, ptr, actor=actor, text=text, info=NoteInfo(subtype=subtype))
        self.s.mark(rec.ev.id, "set_aside", NOTE_WHY, subtype)

    def _count(self, key: str) -> None:
        self.s.quality.extra[key] = self.s.quality.extra.get(key, 0) + 1

    def message(self, rec: Record) -> None:
        s, d = self.s, rec.data
        role = d.get("role")
        content = d.get(self.content)
        if role not in ("user", "assistant") or not isinstance(content, list):
            s.warn("damaged-record", "a message with no user or assistant role, or no content list; skipped",
                   rec.ev.source, rec.ev.line)
            s.mark(rec.ev.id, "set_aside", "a message Goose could not read", "message")
            return
        meta = _dict(d.get(self.metadata))
        self.part = self.parts.get(rec.ev.id)
        if self.part == COPY:
            s.quality.duplicate_records += 1
            s.mark(rec.ev.id, "duplicate", COPY_WHY, "compaction_copy")
            return
        # words never shown to the person (Message::agent_only) are Goose's own to the model,
        # in the person's place or in the assistant's (a compaction's words telling it to go on);
        # but a message a compaction hid from both is the person's when Goose showed its copy
        # in their place
        goose_words = meta.get("userVisible") is False and self.part != HIDDEN_ORIGINAL
        before = len(s.events)
        group = d["id"] if _str(d.get("id")) else rec.ev.id
        for i, part in enumerate(content):
            ptr = pointer(self.content, i)
            t = part.get("type") if isinstance(part, dict) else None
            if not isinstance(part, dict) or not isinstance(t, str):
                s.warn("damaged-record", f"content part {i} has no type; skipped", rec.ev.source, rec.ev.line)
                continue
            handler = PARTS.get(t)
            if handler is None:
                s.quality.unknown_records += 1
                s.warn("unknown-record", f"content type {t!r} is not one forsy knows of Goose; skipped",
                       rec.ev.source, rec.ev.line)
                continue
            handler(self, rec, part, ptr, role, goose_words, group)
        if len(s.events) == before:
            s.mark(rec.ev.id, "metadata", "a message with no words, calls or results")

    # -- words -----------------------------------------------------------------------------------
    def _text(self, rec: Record, p: dict[str, Any], ptr: str, role: str, goose: bool, group: str) -> None:
        text = _str(p.get("text"))
        if text is None:
            return
        if self.part == SUMMARY:
            self._ev("compaction", rec, ptr + "/text", actor="system", text=text,
                     info=NoteInfo(subtype="compaction_summary"))
            self.part = None  # one compaction: a text after the first is Goose's, as any other
            self.s.quality.compactions += 1
        elif goose:
            self._note(rec, ptr + "/text", text, "compaction_continuation" if self.part == CONTINUATION
                       else "goose_to_model")
        elif role == "assistant":
            self._ev("agent_text", rec, ptr + "/text", text=text)
        else:
            self._ev("user", rec, ptr + "/text", actor="user", text=text)

    def _image(self, rec: Record, p: dict[str, Any], ptr: str, role: str, goose: bool, group: str) -> None:
        """An image the person (or a tool) put in the message: counted, its bytes not kept."""
        self._count("images")

    def _thinking(self, rec: Record, p: dict[str, Any], ptr: str, role: str, goose: bool, group: str) -> None:
        text = _str(p.get("thinking"))
        if text is not None and goose:  # in Goose's own message (a summary's): not the agent's reasoning
            self._note(rec, ptr + "/thinking", text, "goose_to_model")
        elif text is not None:
            self._ev("reasoning", rec, ptr + "/thinking", text=text)

    def _redacted(self, rec: Record, p: dict[str, Any], ptr: str, role: str, goose: bool, group: str) -> None:
        self.s.quality.encrypted_reasoning += 1

    def _said(self, rec: Record, p: dict[str, Any], ptr: str, role: str, goose: bool, group: str) -> None:
        """A part whose one text is `msg`: Goose's own words (the context ran out, a summary was
        asked for, a notice in the UI), a note."""
        kind = str(p.get("type"))
        sub = {"contextLengthExceeded": "context_length_exceeded", "summarizationRequested": "summarization_requested",
               "conversationCompacted": "conversation_compacted"}.get(kind, kind)
        if kind == "systemNotification" and isinstance(p.get("notificationType"), str):
            sub = f"notification:{p['notificationType']}"
        text = _str(p.get("msg"))
        self._note(rec, ptr + "/msg" if text else ptr + "/type", text, sub)
        if kind == "conversationCompacted" and self.part != NOTICE:  # a notice's compaction counts at its summary
            self.s.quality.compactions += 1

    def _confirm(self, rec: Record, p: dict[str, Any], ptr: str, role: str, goose: bool, group: str) -> None:
        """Goose asked the person to allow a call (the call's result says what they chose)."""
        self._count("confirmations_asked")

    def _action(self, rec: Record, p: dict[str, Any], ptr: str, role: str, goose: bool, group: str) -> None:
        data = _dict(p.get("data"))
        kind = data.get("actionType")
        if kind == "toolConfirmation":
            self._count("confirmations_asked")
        elif kind == "elicitation" and _str(data.get("message")):
            self._note(rec, ptr + "/data/message", data["message"], "elicitation", actor="agent")
        elif kind == "elicitationResponse":
            self._note(rec, ptr + "/data/userData", None, "elicitation_response", actor="user")
        else:
            self.s.warn("unknown-record", f"action type {kind!r} is not one forsy knows of Goose; skipped",
                        rec.ev.source, rec.ev.line)
            self.s.quality.unknown_records += 1

    # -- tools -----------------------------------------------------------------------------------
    def _call(self, rec: Record, p: dict[str, Any], ptr: str, role: str, goose: bool, group: str) -> None:
        s = self.s
        call_id = p["id"] if _str(p.get("id")) else f"{rec.ev.id}{ptr}"
        outcome = _dict(p.get("toolCall"))
        value = _dict(outcome.get("value"))
        if outcome.get("status") == "error" or not value:
            # the model's call could not be read as one (a name or arguments Goose refused): the
            # call is there, its error the result Goose answers it with
            err = _str(outcome.get("error"))
            self.calls[call_id] = None
            self._ev("tool_call", rec, ptr + ("/toolCall/error" if err else ""), call_id=call_id, tool=None,
                     args=None, group=group)
            self._count("unreadable_calls")
            if err is None:
                s.warn("damaged-record", f"tool call {call_id} holds neither a value nor an error",
                       rec.ev.source, rec.ev.line)
            return
        name = value.get("name") if isinstance(value.get("name"), str) else None
        self.calls[call_id] = name
        self._ev("tool_call", rec, ptr + "/toolCall/value/arguments", call_id=call_id, tool=name,
                 args=value.get("arguments"), group=group,
                 name_ref=Ref(rec.ev.id, rec.prefix + ptr + "/toolCall/value/name") if name else None)
        if p.get("type") == "frontendToolRequest":
            self._count("frontend_calls")

    def _result(self, rec: Record, p: dict[str, Any], ptr: str, role: str, goose: bool, group: str) -> None:
        s = self.s
        call_id = _str(p.get("id"))
        if call_id is None:
            s.warn("damaged-record", f"tool response {ptr} has no id; skipped", rec.ev.source, rec.ev.line)
            return
        if call_id in self.answered:
            self._count("second_results")
            return
        outcome = _dict(p.get("toolResult"))
        info = ResultInfo(orphan=call_id not in self.calls)
        status = outcome.get("status")
        if status == "error":
            err = outcome.get("error") if isinstance(outcome.get("error"), str) else None
            self._answer(rec, call_id, ptr + ("/toolResult/error" if err is not None else "/toolResult"), err,
                         True, info)
            return
        value = outcome.get("value")
        # before rmcp the value was the list of contents (Vec<Content>); since, CallToolResult
        # {content, isError, structuredContent}
        items, base = (value, "/toolResult/value") if isinstance(value, list) else (
            _dict(value).get("content"), "/toolResult/value/content")
        failed: bool | None = _dict(value).get("isError") is True if isinstance(value, dict) else False
        if status != "success" or not isinstance(items, list):
            s.warn("damaged-record", f"the result of call {call_id} holds no contents", rec.ev.source, rec.ev.line)
            failed = None
            items = []
        texts = [(k, rel, _resolve(c, rel)) for k, c in enumerate(items) if (rel := _text_of(c)) is not None]
        seen = [x for x in texts if _audience_ok(items[x[0]])] or texts
        info.images = sum(1 for c in items if isinstance(c, dict) and c.get("type") == "image")
        if len(seen) == 1:
            k, rel, text = seen[0]
            where: str = f"{base}/{k}{rel}"
        elif seen:
            text, where = "\n".join(t for _, _, t in seen), base
            info.parts, info.joined = [f"/{k}{rel}" for k, rel, _ in seen], "\n"
        else:
            text, where = None, base if items else "/toolResult"
        name = self.calls.get(call_id)
        if text is not None and text.startswith(DECLINED):
            info.rejected, info.failure_rule, failed = True, DECLINED_RULE, True
            self._count("rejected_calls")
        if name is not None and name.endswith(SHELL_SUFFIX) and text is not None:
            m = _EXIT.search(text)
            if m:
                info.exit_code = int(m.group(1))
        self._answer(rec, call_id, ptr + where, text, failed, info)

    def _answer(self, rec: Record, call_id: str, ptr: str, text: str | None, failed: bool | None,
                info: ResultInfo) -> None:
        self.answered.add(call_id)
        self._ev("tool_result", rec, ptr, text=text, call_id=call_id, tool=self.calls.get(call_id), is_error=failed,
                 info=info)


PARTS = {
    "text": Transcript._text, "image": Transcript._image, "thinking": Transcript._thinking,
    "redactedThinking": Transcript._redacted, "toolRequest": Transcript._call,
    "frontendToolRequest": Transcript._call, "toolResponse": Transcript._result,
    "toolConfirmationRequest": Transcript._confirm, "actionRequired": Transcript._action,
    "contextLengthExceeded": Transcript._said, "summarizationRequested": Transcript._said,
    "conversationCompacted": Transcript._said, "systemNotification": Transcript._said,
}
