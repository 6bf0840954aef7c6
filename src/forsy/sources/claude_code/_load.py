"""Claude Code records: read, slimmed, and marked in the ledger when they carry no work."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from ...evidence import LedgerHeading, Session, SourceFile
from .. import ReadContext
from .._records import Record, iter_json_array, iter_jsonl_lines
from ..lines import LineStream, read_bytes, sha256, source_name
from ._events import _BOOL_FIELDS, _STR_FIELDS, check_record
from ._later_records import LATER_TYPES
from ._rich import Slimmed
from ._senders import forked_copy

# Later versions' records, no step in them: `content-replacement` the Agent SDK writes
# (claude-agent-sdk-python, session_mutations.py), the others as public readers of Claude Code
# 2.1.145 name them
NEWER_TYPES: dict[str, tuple[LedgerHeading, str]] = {
    "content-replacement": ("set_aside", "content-replacement"),
    "agent-setting": ("metadata", "agent setting"),
    "agent-color": ("metadata", "agent color"),
    "worktree-state": ("metadata", "worktree state"),
    "bridge-session": ("metadata", "bridge session"),
    "isolation-latch": ("metadata", "isolation latch"),
    "attribution-snapshot": ("set_aside", "attribution-snapshot"),
    "fork-context-ref": ("set_aside", "fork-context-ref"),
    "marble-origami-commit": ("set_aside", "marble-origami-commit"),
    "marble-origami-snapshot": ("set_aside", "marble-origami-snapshot"),
    "speculation-accept": ("set_aside", "speculation-accept"),
    "frame-link": ("set_aside", "frame-link"),
    # 2.1.198+ as public readers of such transcripts describe it: a file backup's delta, beside the
    # snapshots (messageId, snapshotMessageId, trackingPath, backup)
    "file-history-delta": ("set_aside", "file-history-delta"),
    # later still: a move to another session, the cost counted, a status line (`_later_records`)
    **LATER_TYPES,
}
_BY_TYPE: dict[str, tuple[LedgerHeading, str]] = {
    "file-history-snapshot": ("set_aside", "file-history-snapshot"),
    "queue-operation": ("set_aside", "queue-operation"),
    "last-prompt": ("set_aside", "last-prompt"),
    "attachment": ("set_aside", "attachment"),
    "summary": ("metadata", "title"),
    "custom-title": ("metadata", "title"),
    "title": ("metadata", "title"),
    "ai-title": ("metadata", "title"),
    "agent-name": ("metadata", "agent name"),
    "tag": ("metadata", "tag"),
    "pr-link": ("metadata", "pull request link"),
    "x-summary": ("metadata", "title"),
    "mode": ("metadata", "mode"),
    "permission-mode": ("metadata", "permission mode"),
    "result": ("metadata", "usage"),
    "teleported-from": ("metadata", "the remote session this one was teleported from"),
    "teleport-skipped-branch": ("set_aside", "teleport-skipped-branch"),
    **NEWER_TYPES,
}

_RECORD_KEYS = ("uuid", "sessionId", "parentUuid", "leafUuid", "messageId")


def _is_top_record(d: dict[str, Any]) -> bool:
    """What a whole Claude Code record looks like, for recovery from a damaged line: a type
    and one of the keys every record type carries (a nested message has no sessionId...)."""
    return isinstance(d.get("type"), str) and any(k in d for k in _RECORD_KEYS)


def load_records(path: Path, ctx: ReadContext, session: Session) -> list[Record]:
    rel = source_name(path, ctx.root)
    with LineStream(path, ctx.limits) as stream:
        if stream.starts_with(b"["):
            data = read_bytes(path, ctx.limits)
            session.files.append(SourceFile(rel, str(path), "claude_code", len(data), sha256(data)))
            counters: dict[str, int] = {}
            recs = _load(iter_json_array(data, rel, session.warnings, counters), session)
            del data
        else:
            # streamed: the file is never held whole beside its records (a third of the read's peak)
            file = SourceFile(rel, str(path), "claude_code", 0, "")
            session.files.append(file)
            counters = {}
            recs = _load(iter_jsonl_lines(stream, rel, session.warnings, counters, _is_top_record, _light),
                         session)
            file.bytes, file.sha256 = stream.size, stream.sha256
    session.quality.records += counters.get("records", 0)
    session.quality.unparsable_records += counters.get("unparsable", 0)
    return recs


FORK_COPY = "a fork's copy of its parent's history"


def _load(read: Iterator[Record], session: Session) -> list[Record]:
    recs: list[Record] = []
    copies: dict[str, int] = {}
    pool: dict[str, str] = {}
    for r in read:
        session.add_evidence(r.ev)
        if type(r.data) is _Stub:  # decoded by `_light`: checked and slim already
            _mark_by_type(Record(r.ev, {"type": r.data["type"], "data": {"type": r.data.data_type}}), session)
            recs.append(Record(r.ev, _shared(dict(r.data), pool), r.prefix))
            continue
        checked = check_record(r, session.warn)
        if checked is None:
            session.quality.unknown_records += 1
            continue
        parent = forked_copy(checked.data)
        if parent is not None:  # /branch, --fork-session: the parent's records, copied under new uuids
            session.mark(r.ev.id, "set_aside", FORK_COPY)
            copies[parent] = copies.get(parent, 0) + 1
        else:
            _mark_by_type(checked, session)
        recs.append(_slim(checked))
        _shared(checked.data, pool)
    for parent, n in copies.items():
        session.meta.extra.setdefault("forked_from", parent)
        session.quality.extra["forked_copies"] = session.quality.extra.get("forked_copies", 0) + n
        session.warn("forked-session", f"{n} records are the history of session {parent} this session was forked "
                     "from, copied: set aside (they are that session's work)", session.files[-1].path)
    return recs
# Fields whose value repeats on every record of a session (its id, folder, version, branch...):
# each record's copy is replaced by one shared string, as most of a session's records are kept
# until its events are built
_SHARED = ("type", "sessionId", "cwd", "version", "gitBranch", "slug", "userType", "entrypoint")
_SHARED_MESSAGE = ("model", "role", "type", "stop_reason")


def _shared(d: dict[str, Any], pool: dict[str, str]) -> dict[str, Any]:
    for k in _SHARED:
        v = d.get(k)
        if type(v) is str:
            d[k] = pool.setdefault(v, v)
    msg = d.get("message")
    if type(msg) is dict:
        for k in _SHARED_MESSAGE:
            v = msg.get(k)
            if type(v) is str:
                msg[k] = pool.setdefault(v, v)
    return d


# system subtypes that are not work; any other subtype no event is made of stays `unknown`
# (2.1.8x+: `scheduled_task_fire` markers, `away_summary` recaps, `agents_killed`; a refusal's
# records are failed model calls, read by `_events`)
_SYSTEM_SET_ASIDE = frozenset({"informational", "turn_duration", "stop_hook_summary", "microcompact_boundary",
                               "bridge_status", "away_summary", "scheduled_task_fire", "agents_killed"})


def _mark_by_type(r: Record, session: Session) -> None:
    d = r.data
    t = d.get("type")
    if t == "progress":
        data = d.get("data")
        sub = data.get("type") if isinstance(data, dict) and isinstance(data.get("type"), str) else None
        rule = ("agent_progress copies a subagent's message" if sub == "agent_progress"
                else "progress records carry no work")
        session.mark(r.ev.id, "set_aside", rule, sub)
    elif t == "assistant":
        session.mark(r.ev.id, "metadata", "model and usage")  # when no step cites it (e.g. an empty split line)
    elif t == "system":
        sub = d.get("subtype") if isinstance(d.get("subtype"), str) else None
        if sub == "init":
            session.mark(r.ev.id, "metadata", "tools", sub)
        elif sub == "compact_boundary":
            session.mark(r.ev.id, "metadata", "compaction trigger", sub)
        elif sub in _SYSTEM_SET_ASIDE or (sub is None and "level" in d):  # 1.0.x: hook run notices
            session.mark(r.ev.id, "set_aside", "system notices are not steps", sub)
    elif isinstance(t, str) and t in _BY_TYPE:
        heading, name = _BY_TYPE[t]
        sub = d.get("operation") if t == "queue-operation" and isinstance(d.get("operation"), str) else None
        if t == "attachment":  # which kind of attachment was set aside, in the ledger's words
            att = d.get("attachment")
            sub = att["type"] if isinstance(att, dict) and isinstance(att.get("type"), str) else None
        session.mark(r.ev.id, heading, name, sub)


_STUB_KEYS: tuple[str, ...] = ("type", "uuid", "parentUuid", "logicalParentUuid", "isSidechain", "timestamp",
                               "sessionId", "version", "cwd", "gitBranch")


def _is_agent_progress(d: dict[str, Any]) -> bool:
    return d.get("type") == "progress" and isinstance(d.get("data"), dict) and d["data"].get("type") == "agent_progress"


# what is read of a message's usage (the session's token counts); the rest (the cache's split by
# duration, server tool use, service tier...) is dropped with the record
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _slim(r: Record) -> Record:
    """Hook/bash progress and file snapshots carry no work: keep only what the graph and the
    metadata need (most lines of a 2.1 log are progress records; this bounds memory). A tool
    result's `toolUseResult` is kept as later rules read it (`_rich.Slimmed`), a message's
    usage as far as it is read (`USAGE_KEYS`)."""
    d = r.data
    t = d.get("type")
    if t == "file-history-snapshot" or (t == "progress" and not _is_agent_progress(d)):
        r.data = {k: d[k] for k in _STUB_KEYS if k in d}
    elif t == "user" and d.get("toolUseResult") is not None:
        d["toolUseResult"] = Slimmed.of(d["toolUseResult"])  # a third of a large session's bytes
    elif t == "assistant" and type(msg := d.get("message")) is dict and type(u := msg.get("usage")) is dict:
        msg["usage"] = {k: u[k] for k in USAGE_KEYS if k in u}
    return r


# Most lines of a 2.1 log are hook/bash progress records and file snapshots, of which only the
# stub above is kept: they are decoded straight into these fields (msgspec skips the rest
# without building it). Every field `check_record` checks is typed as it requires, so a line
# with a field of another kind, a `forkedFrom`, or a progress record whose data has no string
# type is parsed whole and warned about as before.
_Str = str | None | UnsetType
_Bool = bool | None | UnsetType


class _DataType(msgspec.Struct):
    type: str


# the fields `check_record` checks, each of the kind it requires (its own lists: one definition)
_Light = msgspec.defstruct("_Light", [
    ("type", str),
    *((k, _Str, UNSET) for k in _STR_FIELDS),
    *((k, _Bool, UNSET) for k in _BOOL_FIELDS),
    ("data", msgspec.Raw | UnsetType, UNSET),
    ("forkedFrom", msgspec.Raw | UnsetType, UNSET),
])


_LIGHT = msgspec.json.Decoder(_Light).decode
_DATA_TYPE = msgspec.json.Decoder(_DataType).decode
_LIGHT_MARKS = (b'"progress"', b'"file-history-snapshot"')


def _light(raw: bytes) -> dict[str, Any] | None:
    """A progress (not agent_progress) or snapshot line cut down to its stub, or None to
    parse the line whole."""
    if _LIGHT_MARKS[0] not in raw and _LIGHT_MARKS[1] not in raw:
        return None
    try:
        rec: Any = _LIGHT(raw)  # a struct made from field lists: its attributes are not known statically
        if rec.forkedFrom is not UNSET:
            return None
        sub = None
        if rec.type == "progress":
            if rec.data is UNSET:
                return None
            sub = _DATA_TYPE(rec.data).type
            if sub == "agent_progress":
                return None
        elif rec.type != "file-history-snapshot":
            return None
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    out = _Stub((k, v) for k in _STUB_KEYS if (v := getattr(rec, k)) is not UNSET)
    out.data_type = sub
    return out


class _Stub(dict[str, Any]):
    """A record as `_light` decoded it: its stub, every field of the kind `check_record`
    requires, no `forkedFrom`; `data_type` is a progress record's data type (its ledger mark
    names it). `_load` marks it and keeps the stub as a plain dict."""

    __slots__ = ("data_type",)
    data_type: str | None
