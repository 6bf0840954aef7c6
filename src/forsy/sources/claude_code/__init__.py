"""Claude Code session logs (`~/.claude/projects/<project>/<session>.jsonl`), versions 1.0–2.1.

What this module handles, and the rule it follows for each:

* **Dedupe**: a resumed session can re-write earlier lines; a record whose `uuid` was seen
  before with the same content is skipped (counted in `quality.duplicate_records`); one with
  other content under the same `uuid` is kept and warned about (file and line).
* **Field kinds**: every field a rule reads is checked where the record is read
  (`check_record`, and the content blocks in `EventBuilder`); one of the wrong kind is a
  warning with file and line and is read as absent, and the rest of the file goes through.
* **Branches and rewinds**: the work is the `parentUuid` chain from the last message back
  to the root (following `logicalParentUuid` across compactions). Records off that chain
  that merely hang off it (results of parallel calls, split assistant lines of the same
  `message.id`, notices) are part of it; typed messages and model turns off it, and all
  their descendants, are an *abandoned* branch: kept as events flagged `abandoned`, so
  what happened stays visible but is not presented as the work.
* **Subagents**: inline sidechain lines (1.0.x), sibling `agent-<id>.jsonl` files, and
  `agent-<id>.jsonl` (+ `.meta.json`) at any depth under `<session>/subagents/` (workflow
  agents: `subagents/workflows/wf_<id>/`); when no file holds a subagent's
  transcript, its `agent_progress` copies in the main log are used. A thread is linked to
  its spawning Task/Agent call only by an exact key: `toolUseResult.agentId`, the progress
  record's `parentToolUseID`, or a prompt identical to the call's `prompt` argument (and
  unique). Warmup threads are not work. Compaction agents (`agent-acompact-*`) are skipped.
  A subagent file retraced on its own: the prompt its parent sent is the task.
* **Ledger**: every record no step cites is marked (`Session.mark`) as metadata, set aside
  by a named rule (docs/rules.md) or a duplicate; the manifest's ledger counts them.
* **Metadata** records (summary, file-history-snapshot, queue-operation, progress,
  attachment, last-prompt, titles, modes…) feed `SessionMeta` and are otherwise skipped;
  an unknown record type is one warning per type.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import orjson

from ...errors import InputError
from ...evidence import Event, Evidence, LedgerHeading, Quality, Ref, Session, SessionMeta, SourceFile
from ...payloads import Link, NoteInfo, Persisted, ResultInfo
from .. import ReadContext
from .._lines import read_bytes, sha256, source_name
from .._records import Record, iter_json_array, iter_jsonl
from ._events import EventBuilder, check_record, classify_user_text, kind_of

KNOWN_TYPES = frozenset(
    "user assistant system summary file-history-snapshot queue-operation progress attachment "
    "last-prompt custom-title title mode tag agent-name pr-link x-summary result permission-mode ai-title".split()
)
WORK_TYPES = frozenset({"user", "assistant", "system"})
PERSISTED = re.compile(r"Full output saved to: (\S+)")
AGENT_FILE = re.compile(r"^agent-(.+)\.jsonl$")


@dataclass
class Thread:
    """A subagent transcript and how it was linked."""

    agent_id: str
    records: list[Record]
    source: str  # "file", "inline", "progress"
    prompt: str | None = None
    warmup: bool = False
    call_id: str | None = None
    link_rule: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class ClaudeCodeSource:
    name: ClassVar[str] = "claude_code"

    def sniff(self, path: Path, head: bytes) -> bool:
        s = head.lstrip()
        if s.startswith(b"["):
            return b'"sessionId"' in head and (b'"parentUuid"' in head or b'"leafUuid"' in head)
        for raw in head.split(b"\n")[:40]:
            if not raw.strip():
                continue
            try:
                d = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(d, dict):
                return False
            t = d.get("type")
            keys = ("sessionId", "parentUuid", "leafUuid", "messageId", "isSidechain")
            return t in KNOWN_TYPES and any(k in d for k in keys)
        return False

    def discover(self, path: Path) -> list[Path]:
        return discover_sessions(path)

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        return [read_session(path, ctx)]


def _is_session_file(p: Path) -> bool:
    return p.suffix == ".jsonl" and not p.name.startswith("agent-") and p.is_file()


def discover_sessions(path: Path) -> list[Path]:
    """Session files under a project dir, a projects root, a session dir, Claude Code's own
    folder (`~/.claude`) or a home folder (`~`, whose `.claude/projects` is the root)."""
    for root in (path / ".claude" / "projects", path / "projects"):
        if root.is_dir() and not (path / f"{path.name}.jsonl").exists():
            path = root
            break
    try:
        if (path.parent / f"{path.name}.jsonl").is_file() and (
            (path / "subagents").is_dir() or (path / "tool-results").is_dir()
        ):
            return [path.parent / f"{path.name}.jsonl"]  # a session directory
        direct = sorted(p for p in path.iterdir() if _is_session_file(p))
        if direct:
            return direct
        nested: list[Path] = []
        for sub in sorted(p for p in path.iterdir() if p.is_dir() and not p.is_symlink()):
            nested.extend(sorted(p for p in sub.iterdir() if _is_session_file(p)))
        return nested
    except PermissionError:
        raise InputError("permission denied", path=path) from None
    except OSError as e:
        raise InputError(e.strerror or str(e), path=path) from None


_RECORD_KEYS = ("uuid", "sessionId", "parentUuid", "leafUuid", "messageId")


def _is_top_record(d: dict[str, Any]) -> bool:
    """What a whole Claude Code record looks like, for recovery from a damaged line: a type
    and one of the keys every record type carries (a nested message has no sessionId...)."""
    return isinstance(d.get("type"), str) and any(k in d for k in _RECORD_KEYS)


def load_records(path: Path, ctx: ReadContext, session: Session) -> list[Record]:
    data = read_bytes(path)
    rel = source_name(path, ctx.root)
    session.files.append(SourceFile(rel, str(path), "claude_code", len(data), sha256(data)))
    counters: dict[str, int] = {}
    if data.lstrip()[:1] == b"[":
        read = iter_json_array(data, rel, session.warnings, counters)
    else:
        read = iter_jsonl(data, rel, session.warnings, counters, _is_top_record)
    recs: list[Record] = []
    for r in read:
        session.add_evidence(r.ev)
        checked = check_record(r, session.warn)
        if checked is None:
            session.quality.unknown_records += 1
            continue
        _mark_by_type(checked, session)
        recs.append(_slim(checked))
    session.quality.records += counters.get("records", 0)
    session.quality.unparsable_records += counters.get("unparsable", 0)
    return recs


# The ledger (manifest.json): what a record that no step cites was read for, by its type
# (docs/rules.md names each rule). user/assistant/system records are marked by what they
# became (`_mark_notes`); a type not here and not read as work is `unknown`.
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
}
# system subtypes that are not work; any other subtype no event is made of stays `unknown`
_SYSTEM_SET_ASIDE = frozenset({"informational", "turn_duration", "stop_hook_summary", "microcompact_boundary",
                               "bridge_status"})


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
        session.mark(r.ev.id, heading, name, sub)


def _prompt_is_the_task(events: list[Event], recs: list[Record]) -> list[Event]:
    """A subagent transcript retraced on its own: the prompt its parent sent (the first user
    record) is the task, so it becomes the user message, copied verbatim; the rest of the
    thread stays the subagent's."""
    first = next((r for r in recs if r.data.get("type") == "user"), None)
    for i, e in enumerate(events):
        if (first is not None and e.kind == "note" and isinstance(e.info, NoteInfo)
                and e.info.subtype == "subagent_prompt" and e.refs and e.refs[0].ev == first.ev.id):
            events[i] = Event("user", "user", e.ts, e.refs, text=e.text, ts_ref=e.ts_ref)
            break
    return events


def _mark_notes(events: list[Event], session: Session) -> None:
    """Records that became only notes (injected text, isMeta lines, local command output...):
    the segmenter makes no step of a note; the ledger names the note's kind."""
    for e in events:
        if e.kind == "interrupt":
            for ref in e.refs:
                session.mark(ref.ev, "metadata", "interrupt (termination_reason)")
        elif e.kind == "note":
            sub = e.info.subtype if isinstance(e.info, NoteInfo) else None
            if sub == "compact_boundary":
                continue
            for ref in e.refs:
                session.mark(ref.ev, "set_aside", "notes are not steps", sub)


_STUB_KEYS = ("type", "uuid", "parentUuid", "logicalParentUuid", "isSidechain", "timestamp", "sessionId",
              "version", "cwd", "gitBranch")


def _is_agent_progress(d: dict[str, Any]) -> bool:
    return d.get("type") == "progress" and isinstance(d.get("data"), dict) and d["data"].get("type") == "agent_progress"


def _slim(r: Record) -> Record:
    """Hook/bash progress and file snapshots carry no work: keep only what the graph and the
    metadata need (most lines of a 2.1 log are progress records; this bounds memory)."""
    d = r.data
    t = d.get("type")
    if t == "file-history-snapshot" or (t == "progress" and not _is_agent_progress(d)):
        r.data = {k: d[k] for k in _STUB_KEYS if k in d}
    return r


def read_session(path: Path, ctx: ReadContext) -> Session:
    """Read one session file (and the subagent transcripts that belong to it)."""
    if ctx.root is None:
        ctx = ReadContext(root=path.parent, debug=ctx.debug, extra=ctx.extra)
    session = Session("claude_code", "", [], {}, [], SessionMeta(agent="claude-code"), Quality())
    recs = _dedupe(load_records(path, ctx, session), session)
    main = [r for r in recs if not r.data.get("isSidechain")]
    inline = [r for r in recs if r.data.get("isSidechain")]
    _collect_meta(recs, session)
    for r in inline:  # progress copies are read from the main chain only
        if _is_agent_progress(r.data):
            session.warn("unread-content", "agent_progress record marked isSidechain; its copy of a subagent "
                         "message was not read", r.ev.source, r.ev.line)
    session.session_id = session.session_id or path.stem  # the records' sessionId, else the file name
    if AGENT_FILE.match(path.name) and not main:
        # a subagent transcript given on its own: its prompt came from the parent agent
        agent_id = AGENT_FILE.match(path.name).group(1)  # type: ignore[union-attr]
        th = Thread(agent_id, inline, "file", _root_prompt(inline))
        if (th.prompt or "").strip() == "Warmup":
            session.warn("warmup-only", "a Warmup sidechain (cache priming), not work", session.files[-1].path)
            for r in inline:
                session.mark(r.ev.id, "set_aside", "Warmup sidechains are not work")
            return session
        session.events = _prompt_is_the_task(_thread_events(th, session), inline)
        _mark_notes(session.events, session)
        return session
    abandoned = _abandoned(main, session)
    builder = EventBuilder("agent", abandoned, session.warn)
    events: list[Event] = []
    for r in main:
        if r.data.get("type") in WORK_TYPES:
            events.extend(builder.from_record(r))
    threads = _threads(path, ctx, session, main, inline)
    _attach_persisted(events, path, ctx, session)
    session.events = _merge_threads(events, threads, session)
    _mark_notes(session.events, session)
    session.quality.abandoned_events = sum(1 for e in session.events if e.abandoned)
    session.quality.compactions = sum(1 for e in session.events if e.kind == "compaction")
    first = next((e for e in session.events if e.kind != "note"), None)
    if first is not None and first.kind == "compaction":
        session.quality.extra["starts_from_summary"] = 1  # the earlier work is logged elsewhere
    session.quality.encrypted_reasoning = sum(
        1 for e in session.events
        if e.kind == "note" and isinstance(e.info, NoteInfo) and e.info.subtype == "encrypted_reasoning"
    )
    return session


# What a record says (as opposed to where and when it was written): a resumed session's
# replay of a record repeats these exactly.
_CONTENT_KEYS = ("type", "subtype", "message", "content", "toolUseResult", "data", "summary", "isMeta",
                 "isCompactSummary")


def _same_content(a: Record, b: Record) -> bool:
    return a.ev.sha256 == b.ev.sha256 or all(a.data.get(k) == b.data.get(k) for k in _CONTENT_KEYS)


def _dedupe(recs: list[Record], session: Session) -> list[Record]:
    seen: dict[str, Record] = {}
    out: list[Record] = []
    for r in recs:
        u = r.data.get("uuid")
        if isinstance(u, str):
            first = seen.get(u)
            if first is None:
                seen[u] = r
            elif _same_content(first, r):
                session.quality.duplicate_records += 1
                session.mark(r.ev.id, "duplicate", "resume replay of an earlier line")
                continue
            else:
                session.warn("uuid-reused", f"uuid {u!r} was already used at line {first.ev.line} by a record "
                             "with other content; both are kept", r.ev.source, r.ev.line)
        out.append(r)
    if session.quality.duplicate_records:
        session.warn("duplicate-records", f"{session.quality.duplicate_records} records repeated by uuid "
                     "(resumed session?) were read once", session.files[-1].path)
    return out


def _collect_meta(recs: list[Record], session: Session) -> None:
    meta = session.meta
    models = set(meta.models)
    usage: dict[str, dict[str, int]] = {}
    unknown: dict[str, int] = {}
    titles: list[str] = []
    for r in recs:
        d = r.data
        t = d.get("type")
        if t not in KNOWN_TYPES:
            if t not in unknown:
                session.warn("unknown-record-type", f"record type {t!r} is not known; skipped",
                             r.ev.source, r.ev.line)
            unknown[str(t)] = unknown.get(str(t), 0) + 1
            continue
        if t == "summary" and isinstance(d.get("summary"), str):
            titles.append(d["summary"])
        if t in ("permission-mode", "ai-title"):
            _mode_or_title(r, meta, session)
        if isinstance(d.get("sessionId"), str) and not d.get("isSidechain") and session.session_id == "":
            session.session_id = d["sessionId"]
        if isinstance(d.get("version"), str):
            meta.agent_version = d["version"]
        if isinstance(d.get("cwd"), str) and meta.cwd is None:
            meta.cwd = d["cwd"]
        if isinstance(d.get("gitBranch"), str) and d["gitBranch"] and meta.git_branch is None:
            meta.git_branch = d["gitBranch"]
        if t == "system" and d.get("subtype") == "init" and isinstance(d.get("tools"), list):
            meta.tools = [x for x in d["tools"] if isinstance(x, str)]
            if len(meta.tools) < len(d["tools"]):
                session.warn("field-type", "tools lists names that are not strings; those were not read",
                             r.ev.source, r.ev.line)
        msg = d.get("message")
        if t == "assistant" and isinstance(msg, dict):
            model = msg.get("model")
            if isinstance(model, str) and model != "<synthetic>" and model not in models:
                models.add(model)
                meta.models.append(model)
            u = msg.get("usage")
            if isinstance(u, dict) and isinstance(msg.get("id"), str):
                key = ("side:" if d.get("isSidechain") else "") + msg["id"]
                cur = usage.setdefault(key, {})
                for k in ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
                    v = u.get(k)
                    if isinstance(v, int) and not isinstance(v, bool):
                        cur[k] = max(cur.get(k, 0), v)  # split lines repeat (or grow) one message's usage
                    elif v is not None:
                        session.warn("field-type", f"message.usage.{k} is {kind_of(v)}, not a whole number; "
                                     "not counted", r.ev.source, r.ev.line)
    total: dict[str, int] = defaultdict(int)
    side: dict[str, int] = defaultdict(int)
    for key, u in usage.items():
        for k, v in u.items():
            (side if key.startswith("side:") else total)[k] += v
    meta.token_usage = dict(total)
    if side:
        meta.extra["sidechain_token_usage"] = dict(side)
    if titles:
        meta.extra["titles"] = titles
    if unknown:
        session.quality.unknown_records += sum(unknown.values())


def _mode_or_title(r: Record, meta: SessionMeta, session: Session) -> None:
    """2.1.16x+: `permission-mode` (the mode the user switched to) → agent_config.permission_modes,
    in order; `ai-title` (the title Claude Code generated) → the card. Read from the one
    string field the record carries besides its envelope."""
    d = r.data
    keys = ("permissionMode", "mode") if d["type"] == "permission-mode" else ("aiTitle", "title")
    value = next((d[k] for k in keys if isinstance(d.get(k), str)), None)
    if value is None:
        session.warn("field-type", f"{d['type']} record without a string {keys[0]}; not read", r.ev.source, r.ev.line)
        return
    if d["type"] == "ai-title":
        meta.extra["ai_title"] = value  # the latest title stands
        return
    modes: list[str] = meta.extra.setdefault("permission_modes", [])
    if not modes or modes[-1] != value:
        modes.append(value)


def _parent(d: dict[str, Any]) -> str | None:
    p = d.get("parentUuid") or d.get("logicalParentUuid")
    return p if isinstance(p, str) else None


def _is_typed(d: dict[str, Any]) -> bool:
    """A user record holding words someone typed (not a tool result, not injected)."""
    if d.get("type") != "user" or d.get("isMeta") or d.get("isCompactSummary"):
        return False
    c = (d.get("message") or {}).get("content") if isinstance(d.get("message"), dict) else None
    if isinstance(c, str):
        return classify_user_text(c)[0] in ("typed", "slash-command", "bash-input")
    if isinstance(c, list):
        return any(
            isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
            and classify_user_text(b["text"])[0] in ("typed", "slash-command", "bash-input")
            for b in c
        )
    return False


def _roots(by_uuid: dict[str, Record]) -> dict[str, str]:
    """Each uuid's root: its farthest ancestor by parent links inside `by_uuid` (a loop's
    root is the record where the walk closed it). Linear: every uuid is walked once, each
    walk ending at a uuid whose root is already known."""
    root_of: dict[str, str] = {}
    for start in by_uuid:
        chain: list[str] = []
        on_chain: set[str] = set()
        u = start
        while u not in root_of:
            chain.append(u)
            on_chain.add(u)
            p = _parent(by_uuid[u].data)
            if p is None or p not in by_uuid or p in on_chain:
                break
            u = p
        r = root_of.get(u, u)
        for c in chain:
            root_of[c] = r
    return root_of


def _abandoned(main: list[Record], session: Session) -> set[str]:
    """uuids of records on branches the user rewound away from."""
    by_uuid: dict[str, Record] = {}
    for r in main:  # a uuid reused with other content: the graph follows its first record
        if isinstance(r.data.get("uuid"), str):
            by_uuid.setdefault(r.data["uuid"], r)
    leaf = next((r for r in reversed(main) if r.data.get("type") in ("user", "assistant")
                 and isinstance(r.data.get("uuid"), str)), None)
    if leaf is None:
        return set()
    path: set[str] = set()
    cur: Record | None = leaf
    while cur is not None and cur.data["uuid"] not in path:
        path.add(cur.data["uuid"])
        p = _parent(cur.data)
        cur = by_uuid.get(p) if p else None
    root_of = _roots(by_uuid)
    leaf_root = root_of[leaf.data["uuid"]]
    path_msgs = {(r.data.get("message") or {}).get("id") for r in main
                 if r.data.get("uuid") in path and r.data.get("type") == "assistant"}
    on_path = [r for r in main if r.data.get("uuid") in path
               or (r.data.get("type") == "assistant" and (r.data.get("message") or {}).get("id") in path_msgs)]
    path_calls = _calls_of(on_path)
    abandoned: set[str] = set()
    for r in main:
        u = r.data.get("uuid")
        if not isinstance(u, str) or u in path or r.data.get("type") not in ("user", "assistant", "system"):
            continue
        if root_of[u] != leaf_root:
            continue  # another tree (a continued session): not a rewind
        p = _parent(r.data)
        d = r.data
        if p in abandoned or _is_typed(d):
            abandoned.add(u)
        elif d.get("type") == "assistant" and (d.get("message") or {}).get("id") not in path_msgs:
            abandoned.add(u)
        elif d.get("type") == "user" and _result_ids(d) and not _result_ids(d) <= path_calls:
            abandoned.add(u)
    if abandoned:
        session.warn("abandoned-branch", f"{len(abandoned)} records are on branches the user rewound away from; "
                     "they are kept and marked abandoned", session.files[-1].path)
    return abandoned


def _calls_of(recs: list[Record]) -> set[str]:
    out: set[str] = set()
    for r in recs:
        c = (r.data.get("message") or {}).get("content") if isinstance(r.data.get("message"), dict) else None
        if isinstance(c, list):
            out.update(str(b.get("id")) for b in c if isinstance(b, dict) and b.get("type") == "tool_use")
    return out


def _result_ids(d: dict[str, Any]) -> set[str]:
    c = (d.get("message") or {}).get("content") if isinstance(d.get("message"), dict) else None
    if not isinstance(c, list):
        return set()
    return {str(b.get("tool_use_id")) for b in c if isinstance(b, dict) and b.get("type") == "tool_result"}


# ---------------------------------------------------------------- subagents


def _root_prompt(recs: list[Record]) -> str | None:
    for r in recs:
        if r.data.get("type") == "user":
            c = (r.data.get("message") or {}).get("content")
            if isinstance(c, str):
                return c
            if isinstance(c, list):
                texts = [b.get("text") for b in c if isinstance(b, dict) and b.get("type") == "text"]
                return "\n".join(t for t in texts if isinstance(t, str)) or None
            return None
    return None


def _threads(path: Path, ctx: ReadContext, session: Session, main: list[Record],
             inline: list[Record]) -> list[Thread]:
    threads: list[Thread] = []
    seen_ids: set[str] = set()
    for f in _subagent_files(path, session.session_id):
        agent_id = AGENT_FILE.match(f.name).group(1)  # type: ignore[union-attr]
        if agent_id.startswith("acompact"):
            session.quality.extra["compaction_agents"] = session.quality.extra.get("compaction_agents", 0) + 1
            continue
        sub = Session("claude_code", agent_id, session.files, session.evidence, [], session.meta, session.quality,
                      session.warnings, session.ledger)
        recs = _dedupe(load_records(f, ctx, sub), sub)
        th = Thread(agent_id, recs, "file", _root_prompt(recs))
        meta_file = f.with_suffix(".meta.json")
        if meta_file.is_file():
            try:
                meta = orjson.loads(meta_file.read_bytes())
            except (orjson.JSONDecodeError, OSError):
                session.warn("bad-meta", "unreadable subagent .meta.json", meta_file.name)
            else:
                if isinstance(meta, dict):
                    th.meta = meta
                else:
                    session.warn("bad-meta", f"subagent .meta.json holds {kind_of(meta)}, not an object",
                                 meta_file.name)
        threads.append(th)
        seen_ids.add(agent_id)
    threads.extend(_inline_threads(inline))
    threads.extend(_progress_threads(main, seen_ids, session))
    for th in threads:
        th.warmup = (th.prompt or "").strip() == "Warmup"
        if th.warmup:
            for r in th.records:
                session.mark(r.ev.id, "set_aside", "Warmup sidechains are not work")
    _link(threads, main, session)
    return threads


def _subagent_files(path: Path, session_id: str) -> list[Path]:
    found: list[Path] = []
    sub_dir = path.parent / path.stem / "subagents"
    if sub_dir.is_dir():
        # at any depth: 2.1.1xx writes workflow agents under subagents/workflows/wf_<id>/
        found.extend(sorted((p for p in sub_dir.rglob("agent-*.jsonl") if AGENT_FILE.match(p.name) and p.is_file()),
                            key=lambda p: p.relative_to(sub_dir).parts))
    # pre-2.1 layout: agent-<id>.jsonl beside the session files, tied by sessionId
    for p in sorted(path.parent.glob("agent-*.jsonl")):
        try:
            with p.open("rb") as fh:
                head = fh.read(8192)
        except OSError:
            continue
        if session_id and f'"sessionId":"{session_id}"'.encode() in head.replace(b": ", b":"):
            found.append(p)
    return found


def _inline_threads(inline: list[Record]) -> list[Thread]:
    """Inline sidechain records grouped by the root of their parent chain (one subagent each)."""
    by_uuid: dict[str, Record] = {}
    for r in inline:
        if isinstance(r.data.get("uuid"), str):
            by_uuid.setdefault(r.data["uuid"], r)
    root_of = _roots(by_uuid)
    groups: dict[str, list[Record]] = defaultdict(list)
    for r in inline:
        u = r.data.get("uuid")
        p = _parent(r.data)
        if isinstance(u, str):
            groups[root_of[u]].append(r)
        else:  # no uuid: it belongs to its parent's thread, else it starts its own
            groups[root_of[p] if p in root_of else "None"].append(r)
    out = []
    for root_uuid, recs in groups.items():
        agent_id = next((str(r.data["agentId"]) for r in recs if r.data.get("agentId")), root_uuid[:8])
        out.append(Thread(agent_id, recs, "inline", _root_prompt(recs)))
    return out


def _progress_threads(main: list[Record], have: set[str], session: Session) -> list[Thread]:
    """Subagent messages copied into `agent_progress` records, for agents with no file."""
    groups: dict[str, list[Record]] = defaultdict(list)
    calls: dict[str, str] = {}
    prompts: dict[str, str] = {}
    for r in main:
        d = r.data
        data = d.get("data") if d.get("type") == "progress" else None
        if not isinstance(data, dict) or data.get("type") != "agent_progress":
            continue
        agent_id, inner = data.get("agentId"), data.get("message")
        if not isinstance(agent_id, str) or not agent_id or not isinstance(inner, dict):
            what = (f"data.agentId that is {kind_of(agent_id)}" if not isinstance(agent_id, str) or not agent_id
                    else f"data.message that is {kind_of(inner)}")
            session.warn("field-type", f"agent_progress record with {what}; its subagent message was not read",
                         r.ev.source, r.ev.line)
            continue
        if agent_id in have:
            continue  # the subagent's own file holds this message
        # re-root the copy so the event builder sees an ordinary record; its pointers get a prefix
        copy = check_record(Record(r.ev, inner, "/data/message"), session.warn)
        if copy is None:
            continue
        if copy.data.get("type") not in WORK_TYPES:
            session.warn("unread-content", f"agent_progress message of type {copy.data.get('type')!r}; not read",
                         r.ev.source, r.ev.line)
            continue
        groups[agent_id].append(copy)
        if isinstance(d.get("parentToolUseID"), str):
            calls.setdefault(agent_id, d["parentToolUseID"])
        if isinstance(data.get("prompt"), str):
            prompts.setdefault(agent_id, data["prompt"])
        elif data.get("prompt") is not None:
            session.warn("field-type", f"data.prompt is {kind_of(data['prompt'])}, not a string; read as absent",
                         r.ev.source, r.ev.line)
    out = []
    for agent_id, recs in groups.items():
        th = Thread(agent_id, recs, "progress", prompts.get(agent_id) or _root_prompt(recs))
        if agent_id in calls:
            th.call_id, th.link_rule = calls[agent_id], "progress.parentToolUseID"
        out.append(th)
    return out


def _link(threads: list[Thread], main: list[Record], session: Session) -> None:
    by_agent: dict[str, str] = {}
    prompt_calls: dict[str, list[str]] = defaultdict(list)
    for r in main:
        rich = r.data.get("toolUseResult")
        if isinstance(rich, dict) and isinstance(rich.get("agentId"), str):
            for cid in _result_ids(r.data):
                by_agent[rich["agentId"]] = cid
        msg = r.data.get("message")
        if r.data.get("type") == "assistant" and isinstance(msg, dict) and isinstance(msg.get("content"), list):
            for b in msg["content"]:
                inp = b.get("input") if isinstance(b, dict) and b.get("type") == "tool_use" else None
                if isinstance(inp, dict) and isinstance(inp.get("prompt"), str):
                    prompt_calls[inp["prompt"]].append(str(b.get("id")))
    for th in threads:
        if th.call_id or th.warmup:
            continue
        if th.agent_id in by_agent:
            th.call_id, th.link_rule = by_agent[th.agent_id], "toolUseResult.agentId"
        elif th.prompt and len(prompt_calls.get(th.prompt, [])) == 1:
            th.call_id, th.link_rule = prompt_calls[th.prompt][0], "identical-prompt"
        else:
            session.warn("unlinked-subagent", f"subagent {th.agent_id}: spawning call not identified exactly; "
                         "its steps are placed by time without a causal link")


def _thread_events(th: Thread, session: Session) -> list[Event]:
    builder = EventBuilder(f"subagent:{th.agent_id}", set(), session.warn)
    out: list[Event] = []
    for r in th.records:
        prefix = r.prefix
        evs = builder.from_record(r)
        for e in evs:
            if prefix:
                e.refs = [Ref(x.ev, prefix + x.pointer) for x in e.refs]
                if e.ts_ref is not None:
                    e.ts_ref = Ref(e.ts_ref.ev, prefix + e.ts_ref.pointer)
                if e.name_ref is not None:
                    e.name_ref = Ref(e.name_ref.ev, prefix + e.name_ref.pointer)
                if isinstance(e.info, ResultInfo) and e.info.rich_ref is not None:
                    e.info.rich_ref = Ref(e.info.rich_ref.ev, prefix + e.info.rich_ref.pointer)
        out.extend(evs)
    for e in out:  # every event knows its spawning call: the segmenter links the first action
        e.link = Link(subagent=th.agent_id, parent_call_id=th.call_id, link_rule=th.link_rule,
                      thread_source=th.source)
    return out


def _merge_threads(events: list[Event], threads: list[Thread], session: Session) -> list[Event]:
    """Main events in log order; each linked subagent's events follow its spawning call(s),
    one subagent after another in the order they were spawned, before any result returns
    (as Claude Code writes inline sidechains). Parallel subagents are therefore grouped by
    subagent, not interleaved by time. Unlinked threads go before the first main event
    that is later than their start."""
    work = [th for th in threads if not th.warmup]
    if len(threads) > len(work):
        session.quality.extra["warmup_threads"] = len(threads) - len(work)
    by_call: dict[str, list[Event]] = {}
    order: dict[str, int] = {}  # inline threads keep the file's order; others the spawning order
    loose: list[list[Event]] = []
    for th in work:
        evs = _thread_events(th, session)
        if not evs:
            continue
        if th.call_id and th.call_id not in by_call:
            by_call[th.call_id] = evs
            order[th.call_id] = (th.records[0].ev.line or 0) if th.source == "inline" else 10**12 + len(order)
        else:
            loose.append(evs)
    loose.sort(key=lambda evs: evs[0].ts or "")
    out: list[Event] = []
    opened: list[list[Event]] = []
    opened_keys: list[int] = []
    used: set[str] = set()
    next_loose = 0  # loose threads before this index are placed
    for e in events:
        if e.kind != "tool_call":
            for _k, evs in sorted(zip(opened_keys, opened, strict=True), key=lambda kv: kv[0]):
                out.extend(evs)
            opened, opened_keys = [], []
        while next_loose < len(loose) and e.ts is not None and (loose[next_loose][0].ts or "") < e.ts:
            out.extend(loose[next_loose])
            next_loose += 1
        out.append(e)
        if e.kind == "tool_call" and e.call_id in by_call and e.call_id not in used:
            used.add(e.call_id)
            opened.append(by_call[e.call_id])
            opened_keys.append(order[e.call_id])
    for evs in opened:
        out.extend(evs)
    for evs in loose[next_loose:]:
        out.extend(evs)
    for cid, evs in by_call.items():  # spawning call not in the log: keep the thread at the end
        if cid not in used:
            out.extend(evs)
    return out


def _attach_persisted(events: list[Event], path: Path, ctx: ReadContext, session: Session) -> None:
    """Large outputs Claude Code saved to `<session>/tool-results/<id>.txt`: read them when present."""
    tr_dir = path.parent / path.stem / "tool-results"
    for e in events:
        if e.kind != "tool_result" or not e.text or "<persisted-output>" not in e.text:
            continue
        m = PERSISTED.search(e.text)
        if not m:
            continue
        if not isinstance(e.info, ResultInfo):
            e.info = ResultInfo()
        info = e.info
        info.persisted_path = m.group(1)
        f = tr_dir / Path(m.group(1)).name
        if not f.is_file():
            session.quality.truncated_outputs += 1
            info.persisted_missing = True
            continue
        data = read_bytes(f)
        rel = source_name(f, ctx.root)
        ev = Evidence.make(rel, None, 0, data, sha256(data), "tool-result-file")
        session.add_evidence(ev)
        session.files.append(SourceFile(rel, str(f), "claude_code", len(data), sha256(data)))
        info.persisted = Persisted(ref=Ref(ev.id, ""), text=data.decode("utf-8", "replace"), source=rel)
