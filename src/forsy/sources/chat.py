"""Chat messages (OpenAI's shape, which Invariant's event list shares) → events, and the
file plumbing the JSON-document importers share.

* a `system` message with Invariant metadata saying it was a Forsy `system` step (a
  compaction) → a compaction event; else the first one is the session's system prompt, and
  any other `system` message is kept as a note and warned about (it is not a
  step);
* `user` → a user event with the exact content;
* `assistant` → its content as agent text, then one tool call per `tool_calls` entry (the
  calls of one message share a group: they were issued together). `arguments` as an object
  is the call's arguments; as text it is parsed when it holds a JSON object written compactly
  (so the step's input is the text itself), else kept as text. Invariant metadata
  `raw_input: true` says the object `{"input": text}` stands for the text, `no_input: true`
  that the call was logged without arguments;
* `tool` → the result of `tool_call_id` (Invariant allows it absent: then, as Invariant's own
  reader does, the last call, and a warning says so). `metadata.success: false` is the error
  flag;
* actor and times come from Invariant-style `metadata` (actor, started_at, ended_at) when
  present, each cited by its pointer; else the actor is the role's (`user` / `agent`).

Content given as parts (`[{"type": "text", "text": ...}]`) is read when it is one text part;
otherwise the message is skipped with a warning (never joined into a text the file does not
hold).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ..evidence import Event, Ref, Session, SessionMeta, SourceFile
from ..jsontext import json_text
from ..payloads import NoteInfo
from . import ReadContext
from ._records import MAX_DEPTH, _long_number, too_deep
from .lines import read_bytes, sha256, source_name


@dataclass
class Doc:
    data: bytes
    source: str  # the file's name in evidence
    file: SourceFile


def load_doc(path: Path, ctx: ReadContext, kind: str) -> Doc:
    data = read_bytes(path, ctx.limits)
    src = source_name(path, ctx.root)
    return Doc(data, src, SourceFile(src, str(path.resolve()), kind, len(data), sha256(data)))


def parsed(doc: Doc) -> Any:
    """The document's JSON, or None when it is not one JSON value orjson reads (the reader then
    warns). orjson reads an integer past 64 bits as a float, losing digits: a document holding
    one is read again by Python's parser, which keeps it exact (None if it nests too deep for it)."""
    data = doc.data.removeprefix(_BOM)  # a Windows editor's mark, no part of the JSON
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _with_bad_bytes(data)
    if not _long_number(data):
        return value
    try:
        return json.loads(data)  # orjson took it: UTF-8, no NaN, no lone surrogate
    except RecursionError:
        return None


_BOM = b"\xef\xbb\xbf"


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _with_bad_bytes(data: bytes) -> Any:
    """A document that is JSON but for bytes that are not UTF-8 (a disk or a copy damaged a
    few): read with each bad byte as U+FFFD, as a JSONL line is (`_records._loads`), rather
    than losing the whole file for them. Anything else orjson refuses stays refused (None)."""
    try:
        data.decode("utf-8")
        return None  # valid UTF-8: refused for what it says (NaN, a lone surrogate, broken JSON)
    except UnicodeDecodeError:
        pass
    try:
        value = json.loads(data.decode("utf-8", "replace"), parse_constant=_refuse)
        orjson.dumps(value)  # a lone surrogate escaped in the text is refused, as in a UTF-8 file
    except (ValueError, RecursionError, TypeError, orjson.JSONEncodeError):
        return None
    return value


def unreadable(data: bytes, shape: str, *, orjson_only: bool = True) -> tuple[str, int | None]:
    """Why a document is not the object its reader wants, and the line where it breaks: Python's
    json says where a damaged file breaks; a file it reads is of another `shape`, or (for a
    reader parsing with orjson) holds what orjson refuses (NaN, Infinity, a lone surrogate)."""
    try:
        value = json.loads(data)
    except json.JSONDecodeError as e:
        return f"not JSON ({e.msg}, column {e.colno})", e.lineno
    except RecursionError as e:
        return f"not JSON ({e})", _too_deep_line(data)
    except ValueError as e:  # UnicodeDecodeError is a ValueError
        return f"not JSON ({e})", None
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        if orjson_only:
            return "JSON holding NaN, Infinity or a lone surrogate, which forsy does not read", None
    return (shape if isinstance(value, dict) else f"a JSON {type(value).__name__}, not an object"), None


# a JSON string (skipped whole: brackets inside it are text), a bracket, a line break
_DEPTH_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}\n]', re.DOTALL)


def _too_deep_line(data: bytes) -> int | None:
    """The line where the document nests deeper than MAX_DEPTH: where the parser gave up."""
    depth, line = 0, 1
    for m in _DEPTH_TOKENS.finditer(data):
        tok = m.group()
        if tok in (b"[", b"{"):
            depth += 1
            if depth > MAX_DEPTH:
                return line
        elif tok in (b"]", b"}"):
            depth -= 1
        else:
            line += tok.count(b"\n")
    return None


def new_session(kind: str, session_id: str, doc: Doc, agent: str) -> Session:
    return Session(kind, session_id, [doc.file], {}, [], SessionMeta(agent=agent))


def one_text(content: Any, ptr: str) -> tuple[str | None, str] | None:
    """(text, its pointer); None when the content is neither text nor one text part."""
    if content is None or isinstance(content, str):
        return content, ptr
    if (isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict)
            and content[0].get("type") == "text" and isinstance(content[0].get("text"), str)):
        return content[0]["text"], f"{ptr}/0/text"
    return None


def provider_error(value: Any) -> bool:
    """An error object in the content of a tool the model's provider ran, as Anthropic's Messages
    API writes one (`web_search_tool_result_error`, `advisor_tool_result_error`…): its `type`
    ends in `_error`."""
    return isinstance(value, dict) and isinstance(value.get("type"), str) and value["type"].endswith("_error")


def provider_content(ev_id: str, at: str, content: Any) -> tuple[list[Ref], list[str]]:
    """What a tool the model's provider ran returned, in the provider's own shape (text, an
    object, a list of search results or text blocks), as texts with where each is: a string as
    it is; a list element by element, a text block by its text, another element as its JSON
    text; any other value as its JSON text."""
    if content is None:
        return [], []
    if not isinstance(content, list):
        return [Ref(ev_id, at)], [content if isinstance(content, str) else json_text(content)]
    refs, texts = [], []
    for i, part in enumerate(content):
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            refs.append(Ref(ev_id, f"{at}/{i}/text"))
            texts.append(part["text"])
        elif part is not None:
            refs.append(Ref(ev_id, f"{at}/{i}"))
            texts.append(part if isinstance(part, str) else json_text(part))
    return refs, texts


def _args(fn: dict[str, Any], meta: dict[str, Any], ptr: str) -> tuple[Any, str]:
    raw = fn.get("arguments")
    if meta.get("no_input") is True:
        return None, ptr
    if meta.get("raw_input") is True and isinstance(raw, dict) and isinstance(raw.get("input"), str):
        return raw["input"], f"{ptr}/input"
    if isinstance(raw, str):
        try:
            v = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw, ptr
        if too_deep(raw.encode("utf-8", "surrogatepass"), v):
            return raw, ptr  # kept as the text it is: a value that deep is not written back whole
        return (v, ptr) if isinstance(v, dict) and json_text(v) == raw else (raw, ptr)
    return raw, ptr


def _meta(m: dict[str, Any]) -> dict[str, Any]:
    v = m.get("metadata")
    return v if isinstance(v, dict) else {}


def _time(meta: dict[str, Any], key: str, ev: str, ptr: str) -> tuple[str | None, Ref | None]:
    v = meta.get(key)
    return (v, Ref(ev, f"{ptr}/metadata/{key}")) if isinstance(v, str) else (None, None)


@dataclass
class ChatState:
    """What reading a conversation carries from one message to the next."""

    seen: int = 0  # messages read so far (the first system message is the system prompt)
    last_call: str | None = None  # the last call's id (a tool output without tool_call_id is its result)


def chat_events(s: Session, msgs: list[Any], ev: str, prefix: str, line: int | None) -> None:
    """Append the events of `msgs` (at JSON pointer `prefix` inside evidence `ev`) to `s`."""
    state = ChatState()
    for i, m in enumerate(msgs):
        chat_message(s, m, ev, f"{prefix}/{i}", line, state)


def chat_message(s: Session, m: Any, ev: str, p: str, line: int | None, state: ChatState) -> None:
    """Append the events of message `m`, at JSON pointer `p` inside evidence `ev`."""
    src = s.evidence[ev].source
    where = p or "(the record)"  # a message that is a whole record (an Invariant event list) has no pointer
    first = state.seen == 0
    state.seen += 1
    if not isinstance(m, dict) or not isinstance(m.get("role"), str):
        s.quality.unknown_records += 1
        s.warn("not-a-message", f"element {where} is not a chat message; skipped", src, line)
        return
    role, meta = m["role"], _meta(m)
    got = one_text(m.get("content"), f"{p}/content")
    if got is None:
        s.quality.unknown_records += 1
        s.warn("content-parts", f"message {where} holds content parts other than one text; skipped", src, line)
        return
    text, tptr = got
    actor = meta.get("actor") if isinstance(meta.get("actor"), str) else None
    ts, ts_ref = _time(meta, "started_at", ev, p)
    if role == "system":
        if actor == "system:hook" and meta.get("action") == "agent_step":
            # a hook's intervention exported by forsy: a hook step again (R-hook), never an answer
            s.events.append(Event("note", "system:hook", ts, [Ref(ev, tptr)], text=text, ts_ref=ts_ref,
                                  info=NoteInfo(subtype="hook")))
        elif actor == "system" and meta.get("action") == "agent_step":
            s.events.append(Event("compaction", "system", ts, [Ref(ev, tptr)], text=text, ts_ref=ts_ref))
        elif first and text is not None:
            s.meta.system_prompt, s.meta.system_prompt_ref = text, Ref(ev, tptr)
        else:
            s.events.append(Event("note", "system", ts, [Ref(ev, tptr)], text=text, ts_ref=ts_ref))
            s.warn("system-message", f"system message {p} in the middle of the conversation is kept as a note, "
                   "not a step", src, line)
    elif role == "user":
        s.events.append(Event("user", actor or "user", ts, [Ref(ev, tptr)], text=text, ts_ref=ts_ref))
    elif role == "assistant":
        if text:
            s.events.append(Event("agent_text", actor or "agent", ts, [Ref(ev, tptr)], text=text, ts_ref=ts_ref))
        calls = m.get("tool_calls") or []
        for j, c in enumerate(calls if isinstance(calls, list) else []):
            cp = f"{p}/tool_calls/{j}"
            fn = c.get("function") if isinstance(c, dict) else None
            if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                s.quality.unknown_records += 1
                s.warn("bad-tool-call", f"tool call {cp} has no function name; skipped", src, line)
                continue
            cmeta = _meta(c)
            cid = c.get("id") if isinstance(c.get("id"), str) else f"{ev}:{cp}"
            args, aptr = _args(fn, cmeta, f"{cp}/function/arguments")
            cts, cts_ref = _time(cmeta, "started_at", ev, cp)
            cactor = cmeta.get("actor") if isinstance(cmeta.get("actor"), str) else actor
            s.events.append(Event("tool_call", cactor or "agent", cts or ts, [Ref(ev, aptr)], call_id=cid,
                                  tool=fn["name"], args=args, group=f"{ev}{p}",
                                  ts_ref=cts_ref if cts else ts_ref, name_ref=Ref(ev, f"{cp}/function/name")))
            state.last_call = cid
    elif role == "tool":
        cid = m.get("tool_call_id")
        if not isinstance(cid, str):
            cid = state.last_call
            s.warn("tool-output-unlinked", f"tool output {where} names no tool_call_id: linked to the last call, as "
                   "Invariant's reader does", src, line)
        ets, ets_ref = _time(meta, "ended_at", ev, p)
        ok = meta.get("success")  # forsy wrote it: true and false both say something; absent: unknown
        err = (not ok) if isinstance(ok, bool) else None
        s.events.append(Event("tool_result", actor or "agent", ets, [Ref(ev, tptr)], text=text, call_id=cid,
                              is_error=err, ts_ref=ets_ref))
    else:
        s.quality.unknown_records += 1
        s.warn("unknown-role", f"message {where} has role {role!r}; skipped", src, line)
