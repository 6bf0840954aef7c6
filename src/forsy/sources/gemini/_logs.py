"""The project's `logs.json` (`~/.gemini/tmp/<project>/logs.json`, written by Gemini CLI's
`Logger`, packages/core/src/core/logger.ts): what the person typed, `{sessionId, messageId,
type, message, timestamp}` per entry. Read with the chat of its session (its prompts confirm the
chat's, the ones the chat lacks are added at their time) or, for sessions whose chat is not
beside it, alone (one session of prompts per `sessionId`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import InputError
from ...evidence import Event, Ref, Session, SessionMeta, SourceFile
from .. import ReadContext
from .._records import Record, iter_json_array
from .._side import unreadable
from ..lines import open_regular, read_bytes, sha256, source_name

PROJECT_LOGS = "gemini-project:"  # evidence name of the logs.json above `chats/` (read back by the source)


def _new_session(sid: str, file: SourceFile) -> Session:
    return Session("gemini", sid, [file], {}, [], SessionMeta(agent="gemini-cli"))


def _chats_beside(logs: Path) -> set[str | None]:
    """Session ids of the chats Gemini keeps beside a logs.json (in `chats/`, or in its folder)."""
    found = [*logs.parent.glob("session-*.json*"), *(logs.parent / "chats").glob("**/*.json*")]
    return {_chat_id(p) for p in found if p.is_file()} - {None}


def _read_logs(path: Path, data: bytes, name: str, file: SourceFile) -> list[Session]:
    """logs.json alone: one session of typed prompts per sessionId, in file order. A session
    whose chat is beside it is read with that chat (its prompts merged there), not here."""
    sessions: dict[str, Session] = {}
    warnings: list[Any] = []
    counters: dict[str, int] = {}
    with_chat = _chats_beside(path)
    recs = list(iter_json_array(data, name, warnings, counters))
    if all(_str_of(r.data, "sessionId") in with_chat for r in recs):
        with_chat = set()  # named alone, every session with its chat: its prompts are still what it holds
    skipped: set[str] = set()
    for rec in recs:
        sid = _str_of(rec.data, "sessionId") or "unknown"
        if sid in with_chat:
            skipped.add(sid)
            continue
        s = sessions.get(sid) or sessions.setdefault(sid, _new_session(sid, file))
        s.quality.records += 1
        s.add_evidence(rec.ev)
        _log_prompt(s, rec)
    out = list(sessions.values()) or [_new_session(Path(name).stem, file)]
    if skipped:
        out[0].warn("logs-json-with-chat", f"{len(skipped)} session(s) of this logs.json have their chat beside it "
                    "and are read with it (retrace the chat or the project folder)", name, None)
    out[0].warnings.extend(warnings)
    out[0].quality.unparsable_records += counters.get("unparsable", 0)
    return out


def _str_of(d: dict[str, Any], key: str) -> str | None:
    """A logs.json field as text, None when it is anything else (a list there must not be
    compared as a key: it cannot be one)."""
    v = d.get(key)
    return v if isinstance(v, str) else None


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
            if path.parent.name != "chats":
                s.warn("logs-json-outside-root", f"{cand} is outside the input root; its prompts were not read "
                       "(give the project folder to read them)", name)
                return
            name = PROJECT_LOGS + "logs.json"  # Gemini's own place for it: beside chats/ (read_back)
        try:
            data = read_bytes(cand, ctx.limits)
        except InputError as e:  # named as evidence names it: the message never holds a path of this machine
            unreadable(s, name, name, e, "the prompts it holds that the chat lacks are not here",
                       "logs-json-unreadable")
            return
        recs = [r for r in iter_json_array(data, name, s.warnings, {}) if _str_of(r.data, "sessionId") == s.session_id]
        if not recs:
            return
        s.files.append(SourceFile(name, str(cand.resolve()), "gemini", len(data), sha256(data)))
        typed = {(e.text, e.ts) for e in s.events if e.kind == "user"}
        texts = {e.text for e in s.events if e.kind == "user"}
        confirmed = 0
        extra: list[Event] = []
        for rec in recs:
            msg, ts = _str_of(rec.data, "message"), _str_of(rec.data, "timestamp")
            # a `!cmd` is logged as the command alone, and is `!cmd` in the chat (R-user/bash-input)
            if (msg, ts) in typed or (rec.data.get("type") == "user" and (msg in texts or f"!{msg}" in texts)):
                confirmed += 1
                s.add_evidence(rec.ev)  # read, so accounted for: the chat's own record is the step's
                s.mark(rec.ev.id, "duplicate", "a prompt the chat holds (logs.json confirms it)", "logs.json")
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
    return {_str_of(r.data, "sessionId") for r in iter_json_array(data, path.name, [], {})}
