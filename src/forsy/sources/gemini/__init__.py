"""Gemini CLI chats (`~/.gemini/tmp/<project hash>/chats/session-*.json`) and prompt logs
(`~/.gemini/tmp/<project hash>/logs.json`) → `Session`s.

A chat file is one JSON object: `sessionId`, `projectHash`, `startTime`, `lastUpdated` and
`messages`. Each message is one `Evidence` (its exact bytes inside the file) and gives:

* `type: "user"`: a `user` event per text (`content` is a string, or a list of parts with
  `text`), time from `timestamp`;
* `type: "gemini"`: a `reasoning` event per thought (`subject`, then `description`), an
  `agent_text` event for `content`, then for each of `toolCalls` a `tool_call` (exact `name`
  and `args`, its own `timestamp`) and a `tool_result` (each `functionResponse.response`
  `output` or `error`; `status` other than "success" is an error). Calls of one message share
  a group (Gemini sends them in one model turn). `model` and `tokens` feed the session facts;
* `type: "info" | "warning" | "error"`: a `note` (the CLI's notices); other types are
  counted as unknown records and reported.

`logs.json` is the project's log of what the user typed (`sessionId`, `messageId`, `type`,
`message`, `timestamp`). Read alone it gives one session of prompts per `sessionId`. Read
with a chat whose session it names (the file next to the chat or one folder up, under the
input root), its prompts confirm the chat's user messages (`quality.extra
["logs_json_confirmed"]`); a prompt the chat does not hold (slash commands are not saved
in the chat) is added as a `user` event at its time.

What the format does not record: the working directory (only a hash of it), the system
prompt, the tools offered; none of them is filled.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from ...errors import InputError
from ...evidence import Event, Ref, Session, SessionMeta, SourceFile, pointer
from .. import ReadContext
from .._lines import open_regular, read_bytes, sha256, sniff_file, sniffed, source_name
from .._records import Record, iter_json_array
from ._doc import read_object_array

NOTE_TYPES = frozenset({"info", "warning", "error"})
TOKEN_KEYS = ("input", "output", "cached", "thoughts", "tool", "total")


class GeminiSource:
    name: ClassVar[str] = "gemini"
    searches_below: ClassVar[bool] = True  # its discover(dir) looks in every folder below (sources._walk)
    default_roots: ClassVar[tuple[str, ...]] = (".gemini/tmp",)  # under the home folder

    def sniff(self, path: Path, head: bytes) -> bool:
        h = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if h.startswith(b"{"):
            return b'"sessionId"' in h[:4096] and b'"messages"' in h and (
                b'"projectHash"' in h[:4096] or b'"startTime"' in h[:4096])
        if h.startswith(b"[") and path.name == "logs.json":
            return b'"sessionId"' in h[:4096] and b'"messageId"' in h[:4096]
        return False

    def discover(self, path: Path) -> list[Path]:
        if path.is_file():
            return [path] if sniff_file(path, self.sniff) else []
        if not path.is_dir():
            return []
        chats = sniffed((p for p in path.rglob("*.json") if p.name != "logs.json"), self.sniff)
        logs = sniffed(path.rglob("logs.json"), self.sniff)
        # a logs.json whose every session has its chat here adds nothing of its own
        have = {_chat_id(p) for p in chats}
        return chats + [p for p in logs if not _log_ids(p) <= have]

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        data = read_bytes(path, ctx.limits)
        name = source_name(path, ctx.root)
        file = SourceFile(name, str(path.resolve()), self.name, len(data), sha256(data))
        if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
            return _read_logs(data, name, file)
        return [_read_chat(path, data, name, file, ctx)]


def _new_session(sid: str, file: SourceFile) -> Session:
    return Session("gemini", sid, [file], {}, [], SessionMeta(agent="gemini-cli"))


def _str(s: Session, rec: Record, obj: dict[str, Any], key: str) -> str | None:
    v = obj.get(key)
    if v is None or isinstance(v, str):
        return v
    s.warn("field-type", f"{key} is {type(v).__name__}, not text; read as absent", rec.ev.source, rec.ev.line)
    return None


def _read_chat(path: Path, data: bytes, name: str, file: SourceFile, ctx: ReadContext) -> Session:
    doc = read_object_array(data, name, "messages")
    if doc is None:
        raise InputError("not a Gemini CLI chat: not a JSON object with a messages list", path=path)
    sid = doc.header.get("sessionId")
    s = _new_session(sid if isinstance(sid, str) and sid else path.stem, file)
    for code, msg, line in doc.problems:
        s.warn(code, msg, name, line)
    s.quality.records = doc.elements
    s.quality.unparsable_records = doc.elements - len(doc.records)
    if "messages" not in doc.header and not doc.records and not doc.elements:
        s.warn("no-messages", "the chat has no messages list", name, None)
    builder = _Chat(s)
    for rec in doc.records:
        s.add_evidence(rec.ev)
        builder.message(rec)
    _merge_logs(path, s, ctx)
    return s


class _Chat:
    def __init__(self, s: Session) -> None:
        self.s = s

    def _ev(self, kind: Any, rec: Record, ptr: str, ts: str | None, ts_ptr: str | None, **fields: Any) -> Event:
        ev = Event(kind, fields.pop("actor", "agent"), ts, [Ref(rec.ev.id, ptr)],
                   ts_ref=Ref(rec.ev.id, ts_ptr) if ts and ts_ptr else None, **fields)
        self.s.events.append(ev)
        return ev

    def message(self, rec: Record) -> None:
        d, s = rec.data, self.s
        mtype = _str(s, rec, d, "type")
        ts = _str(s, rec, d, "timestamp")
        if mtype == "user":
            self._user(rec, ts)
        elif mtype == "gemini":
            self._gemini(rec, ts)
        elif mtype in NOTE_TYPES:
            text = _str(s, rec, d, "content")
            self._ev("note", rec, "/content", ts, "/timestamp", actor="system", text=text)
        else:
            s.quality.unknown_records += 1
            s.warn("unknown-record", f"message type {mtype!r} is not one forsy knows; skipped", rec.ev.source,
                   rec.ev.line)

    def _user(self, rec: Record, ts: str | None) -> None:
        content = rec.data.get("content")
        if isinstance(content, str):
            if content.strip():
                self._ev("user", rec, "/content", ts, "/timestamp", actor="user", text=content)
            return
        if isinstance(content, list):
            for i, part in enumerate(content):
                text = part.get("text") if isinstance(part, dict) else None
                if isinstance(text, str) and text.strip():
                    self._ev("user", rec, pointer("content", i, "text"), ts, "/timestamp", actor="user", text=text)
                else:
                    self.s.warn("user-part", f"content[{i}] of a user message holds no text (an image or file?); "
                                "not copied", rec.ev.source, rec.ev.line)
            return
        self.s.warn("field-type", "a user message has no text content; skipped", rec.ev.source, rec.ev.line)

    def _gemini(self, rec: Record, ts: str | None) -> None:
        d, s = rec.data, self.s
        model = _str(s, rec, d, "model")
        if model and model not in s.meta.models:
            s.meta.models.append(model)
        tokens = d.get("tokens")
        if isinstance(tokens, dict):
            for k in TOKEN_KEYS:
                v = tokens.get(k)
                if isinstance(v, int) and not isinstance(v, bool):
                    s.meta.token_usage[k] = s.meta.token_usage.get(k, 0) + v
        thoughts = d.get("thoughts")
        for i, t in enumerate(thoughts if isinstance(thoughts, list) else []):
            if not isinstance(t, dict):
                continue
            t_ts = t.get("timestamp") if isinstance(t.get("timestamp"), str) else None
            for key in ("subject", "description"):
                text = t.get(key)
                if isinstance(text, str) and text.strip():
                    self._ev("reasoning", rec, pointer("thoughts", i, key), t_ts or ts,
                             pointer("thoughts", i, "timestamp") if t_ts else "/timestamp", text=text)
        content = d.get("content")
        if isinstance(content, str) and content.strip():
            self._ev("agent_text", rec, "/content", ts, "/timestamp", text=content)
        calls = d.get("toolCalls")
        group = d.get("id") if isinstance(d.get("id"), str) else f"L{rec.ev.line}"
        for i, tc in enumerate(calls if isinstance(calls, list) else []):
            if isinstance(tc, dict):
                self._call(rec, i, tc, ts, str(group))
            else:
                s.warn("field-type", f"toolCalls[{i}] is not an object; skipped", rec.ev.source, rec.ev.line)

    def _call(self, rec: Record, i: int, tc: dict[str, Any], ts: str | None, group: str) -> None:
        s = self.s
        base = ("toolCalls", i)
        call_id = tc.get("id") if isinstance(tc.get("id"), str) else f"{rec.ev.id}:{i}"
        name = tc.get("name") if isinstance(tc.get("name"), str) else None
        c_ts = tc.get("timestamp") if isinstance(tc.get("timestamp"), str) else None
        ts_ptr = pointer(*base, "timestamp") if c_ts else "/timestamp"
        self._ev("tool_call", rec, pointer(*base, "args"), c_ts or ts, ts_ptr, call_id=call_id, tool=name,
                 args=tc.get("args"), group=group, name_ref=Ref(rec.ev.id, pointer(*base, "name")) if name else None)
        status = tc.get("status")
        result = tc.get("result")
        refs: list[Ref] = []
        texts: list[str] = []
        for j, part in enumerate(result if isinstance(result, list) else []):
            resp = part.get("functionResponse", {}).get("response") if isinstance(part, dict) else None
            if not isinstance(resp, dict):
                continue
            for key in ("output", "error"):
                if isinstance(resp.get(key), str):
                    refs.append(Ref(rec.ev.id, pointer(*base, "result", j, "functionResponse", "response", key)))
                    texts.append(resp[key])
        if not refs:
            s.quality.missing_results += 1
            s.warn("no-result", f"tool call {call_id} ({name}) has no result output (status {status!r})",
                   rec.ev.source, rec.ev.line)
            return
        self.s.events.append(Event("tool_result", "agent", c_ts or ts, refs, text="\n".join(texts),
                                   call_id=call_id, tool=name, is_error=status != "success",
                                   ts_ref=Ref(rec.ev.id, ts_ptr) if (c_ts or ts) else None))


def _read_logs(data: bytes, name: str, file: SourceFile) -> list[Session]:
    """logs.json alone: one session of typed prompts per sessionId, in file order."""
    sessions: dict[str, Session] = {}
    warnings: list[Any] = []
    counters: dict[str, int] = {}
    for rec in iter_json_array(data, name, warnings, counters):
        sid = rec.data.get("sessionId")
        sid = sid if isinstance(sid, str) and sid else "unknown"
        s = sessions.get(sid) or sessions.setdefault(sid, _new_session(sid, file))
        s.quality.records += 1
        s.add_evidence(rec.ev)
        _log_prompt(s, rec)
    out = list(sessions.values()) or [_new_session(Path(name).stem, file)]
    out[0].warnings.extend(warnings)
    out[0].quality.unparsable_records += counters.get("unparsable", 0)
    return out


def _log_prompt(s: Session, rec: Record) -> Event | None:
    msg, ts = rec.data.get("message"), rec.data.get("timestamp")
    if rec.data.get("type") != "user" or not isinstance(msg, str):
        s.quality.unknown_records += 1
        s.warn("unknown-record", "a logs.json entry that is not a user message with text; skipped", rec.ev.source,
               rec.ev.line)
        return None
    ts = ts if isinstance(ts, str) else None
    ev = Event("user", "user", ts, [Ref(rec.ev.id, "/message")], text=msg,
               ts_ref=Ref(rec.ev.id, "/timestamp") if ts else None)
    s.events.append(ev)
    return ev


def _merge_logs(path: Path, s: Session, ctx: ReadContext) -> None:
    """Prompts of this chat's session in the project's logs.json (module docstring)."""
    for cand in (path.parent / "logs.json", path.parent.parent / "logs.json"):
        if not cand.is_file():
            continue
        name = source_name(cand, ctx.root)
        under = ctx.root is not None and cand.resolve().is_relative_to(ctx.root.resolve())
        if not under and cand.parent != path.parent:
            s.warn("logs-json-outside-root", f"{cand} is outside the input root; its prompts were not read "
                   "(give the project folder to read them)", None, None)
            return
        try:
            data = read_bytes(cand, ctx.limits)
        except InputError as e:
            s.warn("logs-json-unreadable", f"{cand}: {e.message}", None, None)
            return
        recs = [r for r in iter_json_array(data, name, s.warnings, {}) if r.data.get("sessionId") == s.session_id]
        if not recs:
            return
        s.files.append(SourceFile(name, str(cand.resolve()), "gemini", len(data), sha256(data)))
        typed = {(e.text, e.ts) for e in s.events if e.kind == "user"}
        texts = {e.text for e in s.events if e.kind == "user"}
        confirmed = 0
        extra: list[Event] = []
        for rec in recs:
            msg, ts = rec.data.get("message"), rec.data.get("timestamp")
            if (msg, ts) in typed or (rec.data.get("type") == "user" and msg in texts):
                confirmed += 1
                continue
            scratch = Session("gemini", s.session_id, [], {}, [], SessionMeta())
            ev = _log_prompt(scratch, rec)
            s.warnings.extend(scratch.warnings)
            if ev is not None:
                s.add_evidence(rec.ev)
                extra.append(ev)
        s.quality.extra["logs_json_confirmed"] = confirmed
        if extra:
            s.quality.extra["logs_json_added"] = len(extra)
            s.events = _by_time(s.events, extra)
        return


def _by_time(events: list[Event], extra: list[Event]) -> list[Event]:
    """Each added prompt goes before the first event that is later than it (ISO strings of one
    writer compare in time order); an untimed one goes at the end."""
    out = list(events)
    for ev in extra:
        at = next((i for i, e in enumerate(out) if ev.ts and e.ts and e.ts > ev.ts), len(out))
        out.insert(at, ev)
    return out


def _chat_id(path: Path) -> str | None:
    try:
        with open_regular(path) as f:
            head = f.read(4096)
    except (InputError, OSError):
        return None
    i = head.find(b'"sessionId"')
    if i < 0:
        return None
    rest = head[i + 11 :].lstrip(b" \t\r\n:").split(b'"')
    return rest[1].decode("utf-8", "replace") if len(rest) > 1 else None


def _log_ids(path: Path) -> set[str | None]:
    try:
        data = read_bytes(path)
    except InputError:
        return {None}
    return {r.data.get("sessionId") for r in iter_json_array(data, path.name, [], {})}
