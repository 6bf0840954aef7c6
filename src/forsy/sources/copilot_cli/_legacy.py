"""Copilot CLI's first session format: `~/.copilot/history-session-state/session_<id>_<ms>.json`.

Up to 0.0.341 the CLI saved a session as one JSON document (its `history-session` store):
`{sessionId, startTime, chatMessages, timeline, selectedModel}`. `chatMessages` is the
conversation as the model got it (OpenAI chat messages: `system`/`developer`, `user`,
`assistant` with `tool_calls`, `tool` with `tool_call_id`; content a string or text parts);
`timeline` is what the terminal showed, entries `{type, id, timestamp, ...}` of type `user`,
`copilot`, `info`, `error`, `tool_call_requested`, `tool_call_completed` (with
`result.type` success / failure / rejected / denied). From 0.0.342 a legacy session is
copied into the new log when resumed (`session.import_legacy`, its `legacySession` the same
document): both are read here, the messages by `read_chat_messages`.

The messages carry no time: the timeline's do. A call's outcome is only in its timeline entry
(`result.type`; the messages have no error flag): the result is read from that entry (`result.log`,
what the tool reported, and the type), its message to the model a duplicate; the other timeline
entries repeat the messages and are set aside. The user's words are the message's
text up to the `<reminder>` the CLI appended for the model (its UI cut it there too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import orjson

from ...evidence import Event, Quality, Ref, Session, SessionMeta, SourceFile, pointer
from ...payloads import CallInfo, MessageInfo, ResultInfo
from .._records import Record, too_deep
from ..json_doc import read_object_array


class Transcript(Protocol):
    """What the legacy reader needs of `_events.Transcript` (the calls read and answered)."""

    calls: dict[str, str | None]
    answered: set[str]

REMINDER = "<reminder>"  # the CLI's note to the model after the person's words (its UI cuts it off)
OUTCOMES = {"success": False, "failure": True, "rejected": True, "denied": True}  # timeline result.type → failed


def _text(content: Any, ptr: str) -> list[tuple[str, str]]:
    """The texts of a message's content (a string, or parts of type text), with their pointers."""
    if isinstance(content, str):
        return [(ptr, content)] if content.strip() else []
    out = []
    for i, part in enumerate(content if isinstance(content, list) else []):
        if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str) \
                and part["text"].strip():
            out.append((pointer(*ptr.lstrip("/").split("/"), i, "text") if ptr else pointer(i, "text"), part["text"]))
    return out


def read_chat_messages(s: Session, rec: Record, msgs: Any, base: str, t: Transcript,
                       outcomes: dict[str, Record] | None = None) -> int:
    """Events of the chat messages `msgs` found at `base` in record `rec`; how many were read."""
    n = 0
    for i, msg in enumerate(msgs if isinstance(msgs, list) else []):
        before = len(s.events)
        if isinstance(msg, dict):
            chat_message(s, rec, msg, f"{base}/{i}", t, outcomes or {})
        n += len(s.events) > before
    return n


def chat_message(s: Session, rec: Record, msg: dict[str, Any], ptr: str, t: Transcript,
                 outcomes: dict[str, Record]) -> None:
    role = msg.get("role")
    if role in ("system", "developer"):
        said = _text(msg.get("content"), f"{ptr}/content")
        if said and s.meta.system_prompt is None and role == "system":
            s.meta.system_prompt, s.meta.system_prompt_ref = said[0][1], Ref(rec.ev.id, said[0][0])
    elif role == "user":
        for p, text in _text(msg.get("content"), f"{ptr}/content"):
            cut = text.rfind(REMINDER)
            words = text[:cut].rstrip() if cut > 0 else text
            info = MessageInfo(span=(0, len(words))) if len(words) < len(text) else None
            if words.strip():
                s.events.append(Event("user", "user", None, [Ref(rec.ev.id, p)], text=words, info=info))
    elif role == "assistant":
        for p, text in _text(msg.get("content"), f"{ptr}/content"):
            s.events.append(Event("agent_text", "agent", None, [Ref(rec.ev.id, p)], text=text))
        _calls(s, rec, msg, ptr, t)
    elif role in ("tool", "function"):
        _result(s, rec, msg, ptr, t, outcomes)
    else:
        s.quality.unknown_records += 1
        s.warn("unknown-record", f"chat message role {role!r} is not one Copilot CLI writes; skipped", rec.ev.source,
               rec.ev.line)


def _calls(s: Session, rec: Record, msg: dict[str, Any], ptr: str, t: Transcript) -> None:
    calls = msg.get("tool_calls")
    for i, call in enumerate(calls if isinstance(calls, list) else []):
        if not isinstance(call, dict):
            continue
        kind = "custom" if isinstance(call.get("custom"), dict) else "function"
        got = call.get(kind)
        fn: dict[str, Any] = got if isinstance(got, dict) else {}
        name = fn.get("name") if isinstance(fn.get("name"), str) else None
        key = "input" if kind == "custom" else "arguments"
        raw = fn.get(key)
        info = CallInfo()
        args: Any = raw
        if kind == "function" and isinstance(raw, str):
            try:
                parsed = orjson.loads(raw)
            except orjson.JSONDecodeError:
                info.args_unparsed = True
            else:  # nested past what the later stages walk: kept as the text it is
                if too_deep(raw.encode("utf-8", "surrogatepass"), parsed):
                    info.args_unparsed = True
                else:
                    args, info.inner_pointer = parsed, ""
        call_id = call["id"] if isinstance(call.get("id"), str) and call["id"] else f"{rec.ev.id}{ptr}:{i}"
        t.calls[call_id] = name
        at = f"{ptr}/tool_calls/{i}/{kind}"
        s.events.append(Event("tool_call", "agent", None, [Ref(rec.ev.id, f"{at}/{key}")], call_id=call_id,
                              tool=name, args=args, group=f"{rec.ev.id}{ptr}", info=info,
                              name_ref=Ref(rec.ev.id, f"{at}/name") if name else None))


def _result(s: Session, rec: Record, msg: dict[str, Any], ptr: str, t: Transcript,
            outcomes: dict[str, Record]) -> None:
    """A tool's answer: from its timeline entry when there is one (the outcome is only there: its
    `result.type`, and `result.log`, what the tool reported), else the message the model got."""
    call_id = msg.get("tool_call_id") if isinstance(msg.get("tool_call_id"), str) else None
    if call_id is not None and call_id in t.answered:
        return  # a second answer to a call: the first was read
    shown = outcomes.get(call_id) if call_id is not None else None
    got = shown.data.get("result") if shown is not None else None
    kind = got.get("type") if isinstance(got, dict) else None
    if shown is not None and isinstance(got, dict) and isinstance(kind, str) and kind in OUTCOMES:
        _shown_result(s, shown, got, kind, call_id or "", t)
        return
    said = _text(msg.get("content"), f"{ptr}/content")
    call_id = call_id or f"{rec.ev.id}{ptr}"
    info = ResultInfo(orphan=call_id not in t.calls)
    if len(said) > 1:
        info.parts, info.joined = [p.removeprefix(f"{ptr}/content") for p, _ in said], "\n"
    t.answered.add(call_id)
    s.events.append(Event("tool_result", "agent", None, [Ref(rec.ev.id, f"{ptr}/content")],
                          text="\n".join(x for _, x in said) if said else None, call_id=call_id,
                          tool=t.calls.get(call_id), info=info))


def _shown_result(s: Session, shown: Record, got: dict[str, Any], kind: str, call_id: str, t: Transcript) -> None:
    log = got.get("log") if isinstance(got.get("log"), str) else None
    info = ResultInfo(orphan=call_id not in t.calls, rejected=kind in ("rejected", "denied"))
    ts = shown.data.get("timestamp") if isinstance(shown.data.get("timestamp"), str) else None
    t.answered.add(call_id)
    at = shown.prefix  # the entry's place in its record (inside an import_legacy event)
    s.events.append(Event("tool_result", "agent", ts, [Ref(shown.ev.id, f"{at}/result/log" if log is not None
                                                           else f"{at}/result/type")],
                          text=log, call_id=call_id, tool=t.calls.get(call_id), is_error=OUTCOMES[kind], info=info,
                          ts_ref=Ref(shown.ev.id, f"{at}/timestamp") if ts else None))


def read_legacy(data: bytes, name: str, file: SourceFile, fallback_id: str,
                transcript: Callable[[Session], Transcript]) -> Session:
    """A legacy session document's session (its chat messages and the outcomes in its timeline);
    `transcript` makes the transcript that keeps the calls read (`_events.Transcript`)."""

    s = Session("copilot_cli", fallback_id, [file], {}, [], SessionMeta(agent="copilot-cli"), Quality())
    doc = read_object_array(data, name, "chatMessages")
    line = read_object_array(data, name, "timeline")
    if doc is None or line is None:
        s.warn("not-a-session", "not a JSON object: nothing read", name, None)
        return s
    for code, msg, at in doc.problems:
        s.warn(code, msg, name, at)
    sid = doc.header.get("sessionId")
    if isinstance(sid, str) and sid:
        s.session_id = sid
    model = doc.header.get("selectedModel")
    if isinstance(model, str) and model:
        s.meta.models.append(model)
    s.quality.records = doc.elements + line.elements
    s.quality.unparsable_records = doc.elements - len(doc.records) + line.elements - len(line.records)
    outcomes: dict[str, Record] = {}
    for rec in line.records:
        s.add_evidence(rec.ev)
        d = rec.data
        if d.get("type") == "tool_call_completed" and isinstance(d.get("callId"), str):
            outcomes[d["callId"]] = rec
        if s.meta.started_at is None and isinstance(d.get("timestamp"), str):
            s.meta.started_at, s.meta.started_at_ref = d["timestamp"], Ref(rec.ev.id, "/timestamp")
    t = transcript(s)
    for rec in doc.records:
        s.add_evidence(rec.ev)
        before = len(s.events)
        chat_message(s, rec, rec.data, "", t, outcomes)
        used = any(r.ev == rec.ev.id for e in s.events[before:] for r in e.refs)
        if not used and rec.data.get("tool_call_id") in outcomes:
            s.mark(rec.ev.id, "duplicate", "a tool's answer as the model got it (its timeline entry, read, "
                   "holds the outcome)")
        elif not used:
            s.mark(rec.ev.id, "metadata", "a chat message with no text (the system prompt, an empty turn)")
    cited = {r.ev for e in s.events for r in e.refs}
    for rec in line.records:
        if rec.ev.id not in cited:
            s.mark(rec.ev.id, "set_aside", "the terminal's timeline (the conversation is read from chatMessages)",
                   str(rec.data.get("type")))
    s.warn("no-times", "a legacy session's messages carry no time (only its timeline's entries do)", name, None)
    return s
