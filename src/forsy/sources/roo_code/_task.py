"""One Roo Code task's API history and UI messages → events (what `source` reads per folder).

The API history (`api_conversation_history.json`, core/task-persistence/apiMessages.ts) is a
JSON array of Anthropic messages with Roo Code's fields (`ApiMessage`): `ts` on each (epoch ms,
since December 2024), and on some `isSummary` / `condenseId` / `condenseParent` (condense),
`isTruncationMarker` / `truncationId` / `truncationParent` (sliding-window truncation),
`reasoning_details`, `reasoning_content`, `id` (the provider's response id); from 3.31.3 to
3.32.0 (0fdbd392e8 to 4a9ff8f4ef, November 2025) an encrypted reasoning item was saved as an
entry of its own (`{type: "reasoning", encrypted_content, summary, ts}`, no role). Task.ts
`addToApiConversationHistory` puts reasoning at the head of an assistant message as a
`thinking` block (Anthropic), a `reasoning` block (`text`, or `encrypted_content`), and a
provider's signature as a `thoughtSignature` block.

Each message is read in file order: a condense keeps the messages it hides (non-destructive
from 23605bed93, December 2025: tagged `condenseParent`), which are the earlier work, read as
it happened; the summary (`isSummary`) is a compaction at its place; a truncation marker is a
note, and the messages it hid (`truncationParent`) are counted. Before December 2025 both
deleted what they replaced: the log no longer holds it.
"""

from __future__ import annotations

import json
from typing import Any

from ...evidence import Event, Ref, Session
from ...payloads import CallInfo, MessageInfo, NoteInfo, ResultInfo
from .._records import Record
from ..cline import content_blocks, cut_notice, events, iso_ms, kind_of, request_tokens, split
from . import _texts
from ._xml import GRAMMAR, RULE, header

FAILURE_RULE = "R-call/roo-failure-text"
NO_RESPONSE = "Failure: I did not provide a response."  # Roo Code's stand-in when the model gave nothing


def _bump(s: Session, key: str, n: int = 1) -> None:
    s.quality.extra[key] = s.quality.extra.get(key, 0) + n


def is_xml(call: Event) -> bool:
    return isinstance(call.info, CallInfo) and call.info.parsed_by == RULE


class Task:
    """The events of one task folder, in `s` (module docstring)."""

    def __init__(self, s: Session, api: list[Record], ui: list[Record]) -> None:
        self.s, self.api, self.ui = s, api, ui
        self.pending: list[Event] = []
        self.calls: dict[str, Event] = {}
        self.feedback: list[Record] = []  # the UI's user_feedback records not yet placed
        self.task: Record | None = None
        self.named: dict[str, str] = {}  # a subtask's id -> the call whose result names it

    # ------------------------------------------------------------------ the whole task
    def build(self) -> None:
        self._read_ui()
        for rec in self.api:
            d = rec.data
            self._hidden(d)
            if d.get("type") == "reasoning" and "role" not in d:
                self._reasoning_item(rec)
            elif d.get("isSummary") is True:
                self._summary(rec)
            elif d.get("role") == "assistant":
                self._missing()
                self._assistant(rec)
            elif d.get("role") == "user":
                if d.get("isTruncationMarker") is True:
                    self._marker(rec)
                else:
                    self._user(rec)
            else:
                self.s.quality.unknown_records += 1
                self.s.warn("unknown-record", f"message role {d.get('role')!r}; skipped", rec.ev.source, rec.ev.line)
        last = self.pending[-1] if self.pending else None
        if last is not None and last.tool == "attempt_completion":
            self.pending.pop()  # the task ended on it: no answer is missing
            _bump(self.s, "completion_unanswered")
        self._missing()
        for rec in self.feedback:
            self.s.warn("feedback-unplaced", "user feedback in the UI that no API message holds; kept at the end",
                        rec.ev.source, rec.ev.line)
            self._from_ui(rec)
        self.feedback = []

    def _read_ui(self) -> None:
        for i, rec in enumerate(self.ui):
            d = rec.data
            kind = kind_of(d)
            if i == 0 and kind == ("say", "text"):
                self.task = rec
            elif kind == ("say", "user_feedback"):
                self.feedback.append(rec)
            elif kind is not None and kind[0] == "ask":
                _bump(self.s, f"asks_{kind[1]}")
            if kind == ("say", "api_req_started"):
                for k, v in (request_tokens(d) or {}).items():
                    self.s.meta.token_usage[k] = self.s.meta.token_usage.get(k, 0) + v

    def _hidden(self, d: dict[str, Any]) -> None:
        if isinstance(d.get("condenseParent"), str):
            _bump(self.s, "messages_condensed")  # earlier work a summary replaced for the model: read
        if isinstance(d.get("truncationParent"), str):
            _bump(self.s, "messages_truncated")  # hidden from the model by a truncation: read

    # ------------------------------------------------------------------ helpers
    def _ev(self, kind: Any, rec: Record, ptr: str, **fields: Any) -> Event:
        ts = iso_ms(rec.data.get("ts"))
        ev = Event(kind, fields.pop("actor", "agent"), ts, [Ref(rec.ev.id, ptr)],
                   ts_from=Ref(rec.ev.id, "/ts") if ts else None, **fields)
        self.s.events.append(ev)
        return ev

    @staticmethod
    def _tptr(ptr: str, b: dict[str, Any]) -> str:
        return ptr if b.get("_whole") else ptr + "/text"

    def _note(self, rec: Record, ptr: str, text: str, subtype: str, actor: str = "system") -> None:
        _bump(self.s, f"roo_{subtype}")
        self.s.mark(rec.ev.id, "set_aside", "notes are not steps", subtype)
        self._ev("note", rec, ptr, actor=actor, text=text, info=NoteInfo(subtype=subtype))

    def _missing(self) -> None:
        for call in self.pending:
            self.s.quality.missing_results += 1
            self.s.warn_at("no-result", f"tool call {call.call_id} ({call.tool}) has no result", call)
        self.pending = []

    # ------------------------------------------------------------------ reasoning, context
    def _reasoning_item(self, rec: Record) -> None:
        """An encrypted reasoning item saved as an entry of its own (3.31.3 to 3.32.0)."""
        self._summary_texts(rec, rec.data.get("summary"), "/summary")
        if rec.data.get("encrypted_content"):
            self.s.quality.encrypted_reasoning += 1
            self.s.mark(rec.ev.id, "set_aside", "encrypted reasoning is not readable", "reasoning")

    def _summary_texts(self, rec: Record, summary: object, ptr: str) -> None:
        for i, item in enumerate(summary if isinstance(summary, list) else []):
            if isinstance(item, dict) and isinstance(item.get("text"), str) and item["text"].strip():
                self._ev("reasoning", rec, f"{ptr}/{i}/text", text=item["text"], info=MessageInfo(part="summary"))

    def _summary(self, rec: Record) -> None:
        """A condense summary: what the model got in place of the messages before it (the
        first text block; the rest is Roo Code's context: workflows, folded files, environment)."""
        blocks = content_blocks(rec, self.s)
        first = next(((p, b) for p, b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)), None)
        if first is None:
            self.s.warn("empty-summary", "a condense summary with no text", rec.ev.source, rec.ev.line)
            self.s.mark(rec.ev.id, "set_aside", "a condense summary with no text", "summary")
            return
        self.s.quality.compactions += 1
        ptr, b = first
        self._ev("compaction", rec, self._tptr(ptr, b), actor="system", text=b["text"],
                 info=NoteInfo(subtype="condense_summary"))
        _bump(self.s, "summary_context_blocks", len(blocks) - 1)

    def _marker(self, rec: Record) -> None:
        text = rec.data.get("content")
        if isinstance(text, str):
            _bump(self.s, "truncation_markers")
            self.s.mark(rec.ev.id, "set_aside", "notes are not steps", "context_truncated")
            self._ev("note", rec, "/content", actor="system", text=text, info=NoteInfo(subtype="context_truncated"))
        else:
            self.s.mark(rec.ev.id, "set_aside", "a truncation marker with no text", "truncation_marker")

    # ------------------------------------------------------------------ assistant
    def _assistant(self, rec: Record) -> None:
        d = rec.data
        if isinstance(d.get("reasoning_content"), str) and d["reasoning_content"].strip():
            self._ev("reasoning", rec, "/reasoning_content", text=d["reasoning_content"])
        details = d.get("reasoning_details")
        for i, item in enumerate(details if isinstance(details, list) else []):
            if not isinstance(item, dict):
                continue
            field = "text" if item.get("type") == "reasoning.text" else "summary"
            if isinstance(item.get(field), str) and item[field].strip():
                self._ev("reasoning", rec, f"/reasoning_details/{i}/{field}", text=item[field])
            elif item.get("type") == "reasoning.encrypted":
                self.s.quality.encrypted_reasoning += 1
        blocks = content_blocks(rec, self.s)
        native = any(b.get("type") == "tool_use" for _, b in blocks)
        group = f"M{rec.ev.id}"
        before = len(self.s.events)
        for ptr, b in blocks:
            bt = b.get("type")
            if bt == "thinking" and isinstance(b.get("thinking"), str) and b["thinking"].strip():
                self._ev("reasoning", rec, ptr + "/thinking", text=b["thinking"])
            elif bt == "reasoning":
                if isinstance(b.get("text"), str) and b["text"].strip():
                    self._ev("reasoning", rec, ptr + "/text", text=b["text"])
                else:
                    self._summary_texts(rec, b.get("summary"), ptr + "/summary")
                if b.get("encrypted_content"):
                    self.s.quality.encrypted_reasoning += 1
            elif bt == "redacted_thinking":
                self.s.quality.encrypted_reasoning += 1
            elif bt == "thoughtSignature":
                _bump(self.s, "thought_signatures")
            elif bt == "text" and isinstance(b.get("text"), str) and b["text"].strip():
                self._text(rec, self._tptr(ptr, b), b["text"], None if native else group)
            elif bt == "tool_use":
                name = b.get("name") if isinstance(b.get("name"), str) else None
                cid = b["id"] if isinstance(b.get("id"), str) else f"{rec.ev.id}{ptr}"
                ev = self._ev("tool_call", rec, ptr + "/input", call_id=cid, tool=name, args=b.get("input"),
                              group=group, name_ref=Ref(rec.ev.id, ptr + "/name") if name else None)
                self.pending.append(ev)
                self.calls[cid] = ev
            elif bt not in ("text", "thinking"):
                self.s.quality.unknown_records += 1
                self.s.warn("unknown-block", f"assistant block type {bt!r}; skipped", rec.ev.source, rec.ev.line)
        if len(self.s.events) == before:  # nothing readable in it
            self.s.mark(rec.ev.id, "set_aside", "encrypted reasoning is not readable", "assistant")
            _bump(self.s, "unreadable_messages")

    def _text(self, rec: Record, ptr: str, text: str, group: str | None) -> None:
        """The model's words; with a `group` (no native call beside them), the calls written in
        them as XML read out; Roo Code's notice that it stopped the stream, a note."""
        ts = iso_ms(rec.data.get("ts"))
        at = Ref(rec.ev.id, "/ts") if ts else None
        if text.strip() == NO_RESPONSE:
            self._ev("agent_text", rec, ptr, text=text, info=MessageInfo(api_error=True))
            return
        cut = cut_notice(text, len(text))
        end = cut[1][0] if cut is not None else len(text)
        pieces = split(text, end, GRAMMAR) if group is not None else None
        if pieces is None and cut is None:
            self._ev("agent_text", rec, ptr, text=text)
            return
        if pieces is None and (words := text[:end].rstrip()).strip():
            self._ev("agent_text", rec, ptr, text=words, info=MessageInfo(span=(0, len(words))))
        for ev in events(rec.ev.id, ptr, text, pieces or [], cut, ts, at, group or "", self.s.quality.extra, RULE):
            self.s.events.append(ev)
            if ev.kind == "tool_call":
                self.pending.append(ev)
                self.calls[ev.call_id or ""] = ev

    # ------------------------------------------------------------------ user
    def _user(self, rec: Record) -> None:
        blocks, taken = content_blocks(rec, self.s), -1
        for i, (ptr, b) in enumerate(blocks):
            if i == taken:
                continue
            bt = b.get("type")
            if bt == "tool_result":
                self._native_result(rec, ptr, b)
                continue
            if bt == "image":
                _bump(self.s, "images")
                continue
            text = b.get("text")
            if bt != "text" or not isinstance(text, str):
                self.s.quality.unknown_records += 1
                self.s.warn("unknown-block", f"user block type {bt!r}; skipped", rec.ev.source, rec.ev.line)
                continue
            tptr = self._tptr(ptr, b)
            first = self.pending[0] if self.pending else None
            if first is not None and is_xml(first) and header(text, first.tool or ""):
                k = i + 1 if i + 1 < len(blocks) and blocks[i + 1][1].get("type") == "text" \
                    and isinstance(blocks[i + 1][1].get("text"), str) else None
                self.pending.pop(0)
                more = (self._tptr(*blocks[k]), str(blocks[k][1]["text"])) if k is not None else None
                taken = k if k is not None else taken
                self._result(rec, [(tptr, text)] + ([more] if more else []), first)
            elif (m := _texts.SKIPPED.match(text.lstrip())) or _texts.NOT_RUN.match(text.lstrip()):
                self._not_run(rec, tptr, text, m.group(1) if m else text.split("[", 1)[1].split("]", 1)[0],
                              rejected=m is not None)
            elif (kind := _texts.notice(text)) is not None:
                if (done := _texts.SUBTASK_DONE.match(text.lstrip())) is not None:
                    self.named.setdefault(done.group(1), "")
                self._note(rec, tptr, text, kind, "tool" if kind == "subtask_completed" else "system")
            elif text.lstrip().startswith(_texts.INJECTED):
                _bump(self.s, "injected_context")
                self.s.mark(rec.ev.id, "set_aside", "context Roo Code injected (environment details, resumption "
                            "notice), counted as injected_context")
            else:
                self._prompt(rec, tptr, text)

    def _not_run(self, rec: Record, ptr: str, text: str, tool: str, rejected: bool) -> None:
        call = next((c for c in self.pending if c.tool == tool), None)
        if call is None:
            self.s.warn("orphan-result", f"Roo Code's words for a {tool!r} call it did not run answer no call; kept as "
                        "a note", rec.ev.source, rec.ev.line)
            self._note(rec, ptr, text, "call_not_run")
            return
        self.pending.remove(call)
        self._result(rec, [(ptr, text)], call, rejected=rejected)

    def _native_result(self, rec: Record, ptr: str, b: dict[str, Any]) -> None:
        cid = b.get("tool_use_id")
        call = self.calls.get(cid) if isinstance(cid, str) else None
        if call is None or call not in self.pending:
            self.s.warn("orphan-result", f"tool_result for unknown call {cid!r}; kept as a note", rec.ev.source,
                        rec.ev.line)
            c = b.get("content")
            if isinstance(c, str):
                self._note(rec, ptr + "/content", c, "unanswered_result", "tool")
            return
        self.pending.remove(call)
        c = b.get("content")
        if isinstance(c, str):
            parts = [(ptr + "/content", c)]
        else:
            parts = [(f"{ptr}/content/{i}/text", x["text"]) for i, x in enumerate(c if isinstance(c, list) else [])
                     if isinstance(x, dict) and isinstance(x.get("text"), str)]
        if not parts:
            parts = [(ptr, "")]
        self._result(rec, parts, call, flagged=b.get("is_error") is True)

    def _result(self, rec: Record, parts: list[tuple[str, str]], call: Event, flagged: bool = False,
                rejected: bool = False) -> None:
        """A call's result: the blocks `parts` (pointer, text) joined; refused by the person, a
        rejection; one of Roo Code's failures, failed (FAILURE_RULE)."""
        text = "\n".join(t for _, t in parts)
        body = parts[-1][1]
        no = rejected or _texts.denied(body)
        if no:
            _bump(self.s, "rejected_calls")
        failed = None if no else _texts.failed(body)
        ev = self._ev("tool_result", rec, parts[0][0], call_id=call.call_id, tool=call.tool, text=text,
                      is_error=True if no or flagged or failed else failed,  # None: the log does not say
                      info=ResultInfo(rejected=True) if no else ResultInfo(failure_rule=FAILURE_RULE)
                      if failed and not flagged else None)
        ev.refs += [Ref(rec.ev.id, p) for p, _ in parts[1:]]
        for child in (_texts.SUBTASK_DONE.match(body), _texts.DELEGATED.match(body)):
            if child is not None and call.call_id:
                self.named[child.group(1)] = call.call_id
        for p, t in parts:
            for wrapper, span in _texts.feedback(t):
                self._person(rec, p, t, span, wrapper)

    def _person(self, rec: Record, ptr: str, text: str, span: tuple[int, int], wrapper: str) -> None:
        """The person's words inside Roo Code's text: the UI record that holds them (copied from
        there: the task, or a `user_feedback`), else the slice (C-span). `span` (-1, -1): the
        words are escaped inside a JSON status, found only by their UI record."""
        a, z = span
        said = text[a:z] if a >= 0 else None
        ui = ([self.task] if self.task is not None else []) + self.feedback
        if said is not None:
            rec_ui = next((f for f in ui if _words(f) == said.strip() != ""), None)
        else:
            rec_ui = next((f for f in ui if _words(f) and json.dumps(f.data["text"])[1:-1] in text), None)
        if rec_ui is not None:
            self._copied(rec)
            if rec_ui is self.task:
                self.task = None
            else:
                self.feedback.remove(rec_ui)
            self._from_ui(rec_ui)
        elif said is not None and said.strip():
            self._ev("user", rec, ptr, actor="user", text=said,
                     info=MessageInfo(span=span, wrapped=wrapper, context=text[:a] if text[:a].strip() else None))
        else:
            self.s.warn("feedback-unplaced", "the person's words inside a result could not be cut out of it",
                        rec.ev.source, rec.ev.line)

    def _copied(self, rec: Record) -> None:
        self.s.mark(rec.ev.id, "duplicate", "the person's words as the API history wraps them (copied from the UI "
                    "record that holds them as typed)")

    def _from_ui(self, rec: Record) -> None:
        text = rec.data.get("text")
        if isinstance(text, str) and text.strip():
            ts = iso_ms(rec.data.get("ts"))
            self.s.events.append(Event("user", "user", ts, [Ref(rec.ev.id, "/text")], text=text,
                                       ts_from=Ref(rec.ev.id, "/ts") if ts else None))

    def _prompt(self, rec: Record, ptr: str, text: str) -> None:
        found = _texts.wrapped(text)
        if found is not None:
            self._person(rec, ptr, text, found[1], found[0])
            return
        for fb in self.feedback:
            said = fb.data.get("text")
            if isinstance(said, str) and said.strip() and said in text:
                self.feedback.remove(fb)
                self._copied(rec)
                self._from_ui(fb)
                return
        self._ev("user", rec, ptr, actor="user", text=text)


def ui_reasoning(s: Session, ui: list[Record], api: list[Record]) -> list[Event]:
    """The model's reasoning the UI shows (`say: "reasoning"`) that no API message holds: before
    November 2025 (7715158d51) Roo Code kept it only there. Each at its record's time."""
    # texts only: a field of another kind (a damaged record) holds no reasoning and cannot be compared
    held = {t for rec in api for b in _listed(rec.data.get("content")) if isinstance(b, dict)
            for k in ("thinking", "text") if isinstance(t := b.get(k), str)}
    held |= {t for rec in api if isinstance(t := rec.data.get("reasoning_content"), str)}
    out = []
    for rec in ui:
        text = rec.data.get("text")
        if kind_of(rec.data) == ("say", "reasoning") and isinstance(text, str) and text.strip() \
                and rec.data.get("partial") is not True and text not in held:
            ts = iso_ms(rec.data.get("ts"))
            out.append(Event("reasoning", "agent", ts, [Ref(rec.ev.id, "/text")],
                             ts_from=Ref(rec.ev.id, "/ts") if ts else None, text=text))
    return out


def _listed(v: object) -> list[object]:
    return v if isinstance(v, list) else []


def _words(rec: Record) -> str:
    text = rec.data.get("text")
    return text.strip() if isinstance(text, str) else ""
