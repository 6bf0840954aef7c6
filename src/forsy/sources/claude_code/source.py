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
  unique), or the `.meta.json`'s `toolUseId`. A subagent spawned by a subagent (2.1.x nests
  them; every transcript still lies flat in `subagents/`) is linked by the same keys to the call
  in its spawner's transcript and placed inside its steps. Warmup threads are not work.
  Compaction agents (`agent-acompact-*`) are skipped. A fork subagent's transcript (2.1.232+)
  opens with a `fork-context-ref` naming the session it was forked in; records of that session
  copied into it (the same uuid) are the session's work, set aside there (`_threads`).
  A subagent file retraced on its own: the prompt its parent sent is the task.
* **Refusals and failed model calls** (`_refusals`): `api_error` records, and a refusal's
  `model_refusal_fallback` / `model_refusal_no_fallback` records, are the agent's error steps;
  the words of an answer the API ended with `stop_reason` `refusal` are that failed call's, not
  an answer; the records a fallback withdrew (`retractedMessageUuids`) are kept, their
  words the refused call's (not flagged abandoned: no rewind by the person). Server tool
  results (`_server`): an error object or `is_error` fails the call.
* **Denials** (`_denials`): a result whose user record names a `toolDenialKind` (2.1.2xx) is the
  person's rejection only as `user-rejected` with a rejection's words; another kind (a deny rule
  or hook, the auto-mode classifier, an interrupt, a cancel) or `user-rejected` without those
  words is a denied call that failed (R-call/claude-denied, citing the kind), whatever it says.
* **Print mode**: a run saved from `claude -p --output-format stream-json` (or as one JSON
  array of the same messages) is read by `_stream.py`, with this module's event builder.
* **Ledger**: every record no step cites is marked (`Session.mark`) as metadata, set aside
  by a named rule (docs/rules.md) or a duplicate; the manifest's ledger counts them.
* **Who said it** (`_senders`): another sender's envelope or `origin`, a prompt Claude Code wrote
  itself (`promptSource` "system": a /goal check-in…), a print/SDK-mode interrupt before 2.1.236
  (written on SIGTERM too) are notes, never the person's words or interrupt.
* **Metadata** records (summary, file-history-snapshot, queue-operation, progress,
  attachment, last-prompt, titles, modes…) feed `SessionMeta` (the person's latest
  `custom-title` is `agent_config.title`) and are otherwise skipped;
  an unknown record type is one warning per type. Later versions' `continued-in` (the
  conversation moved into another session) names that session and, when no turn follows it,
  declares the ending `partial_then_stopped` (the rest of the work is in that session's file);
  `cost-state` is the cost Claude Code counted, `task-summary` a status line set aside
  (`_later_records`).
* **Hooks**: what a hook gave the model, as a `<system-reminder>` line or (newer versions) an
  attachment (`_hook_texts`), is the hook's note; a hook output Claude Code saved to a file
  (`<persisted-output>`) keeps the preview the model saw, the file read into the ledger.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import orjson

from ...errors import ForsyError, InputError
from ...evidence import Event, Evidence, LedgerHeading, Quality, Ref, Session, SessionMeta, SourceFile
from ...payloads import NoteInfo, Persisted, ResultInfo
from .. import ReadContext
from .._records import Record
from .._side import why
from ..base import read_head
from ..lines import read_bytes, sha256, source_name
from ._events import EventBuilder, kind_of
from ._graph import _abandoned, _dedupe
from ._later_records import read_later_records
from ._load import NEWER_TYPES, USAGE_KEYS, _is_agent_progress, load_records
from ._opening import opening
from ._refusals import note_fallback, withdrawn
from ._stream import is_stream, read_stream
from ._threads import AGENT_FILE, HELPERS, WORK_TYPES, Thread, _merge_threads, _root_prompt, _thread_events, _threads

KNOWN_TYPES = frozenset(
    "user assistant system summary file-history-snapshot queue-operation progress attachment "
    "last-prompt custom-title title mode tag agent-name pr-link x-summary result permission-mode ai-title "
    "teleported-from teleport-skipped-branch".split()
) | frozenset(NEWER_TYPES)
# the first record of a fork subagent's transcript (2.1.232+ forks by default): the parent session and
# the point of its conversation the fork was given, in place of a copy of it (as public readers describe it)
FORK_CONTEXT = "fork-context-ref"
# `<persisted-output>\nOutput too large (69.2KB). Full output saved to: <path>\n\nPreview ...`:
# the path as the writing machine spells it (a Windows one has backslashes, maybe blanks)
SAVED_OUTPUT_WHY = "a call's whole output the agent saved beside its log (copied into the trace's artifacts)"
PERSISTED = re.compile(r"Full output saved to: ([^\r\n]+?)[ \t]*$", re.M)


class ClaudeCodeSource:
    name: ClassVar[str] = "claude_code"

    def sniff(self, path: Path, head: bytes) -> bool:
        if is_stream(head):
            return True
        s = head.lstrip(b"\xef\xbb\xbf \t\r\n")  # a BOM (a Windows editor's save) too
        if s.startswith(b"["):
            return b'"sessionId"' in head and (b'"parentUuid"' in head or b'"leafUuid"' in head)
        lines = head.split(b"\n")
        for i, raw in enumerate(lines[:40]):
            if not raw.strip():
                continue
            try:
                d = orjson.loads(raw)
            except orjson.JSONDecodeError:
                if i < len(lines) - 1:
                    continue  # a damaged line says nothing of the format: the next one does
                # the head's last line, with no end in the head: a record longer than the head (a
                # first prompt of many KB) is told by its members before the cut, by the same rules
                if b'"type"' not in raw:
                    return False  # no member names a type: none of Claude Code's records (not parsed)
                d = opening(raw.lstrip(b"\xef\xbb\xbf \t\r"))
                if d is None:
                    return False
            if not isinstance(d, dict):
                return False
            if _gemini_shaped(d):
                return False  # Qwen Code's (a Gemini CLI fork): Claude Code's record keys around Gemini's Content
            t = d.get("type")
            if t is not None and not isinstance(t, str):
                continue  # a damaged record (its type no text) says nothing of the format: the next one does
            if isinstance(t, str) and t not in KNOWN_TYPES and isinstance(d.get("sessionId"), str):
                continue  # a record of a later version (it names its session as every record does): the next decides
            # a session teleported from claude.ai starts with a stub naming the remote session; a fork
            # subagent's transcript with the `fork-context-ref` naming the session it was forked in
            keys = ("sessionId", "parentUuid", "leafUuid", "messageId", "isSidechain", "remoteSessionId",
                    "parentSessionId")
            return t in KNOWN_TYPES and any(k in d for k in keys)
        return False

    def discover(self, path: Path) -> list[Path]:
        return discover_sessions(path)

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        if is_stream(read_head(path)):
            if ctx.root is None:
                ctx = replace(ctx, root=path.parent)
            return [_finish(read_stream(path, ctx))]
        return [read_session(path, ctx)]


def _gemini_shaped(d: dict[str, object]) -> bool:
    """A record no Claude Code version writes: Qwen Code's `tool_result` type, its own top-level
    fields (`systemPayload`, `toolCallResult`, `usageMetadata`), or a `message` of Gemini `parts`
    with no `content` (chatRecordingService.ts `ChatRecord`)."""
    msg = d.get("message")
    return (d.get("type") == "tool_result" or any(k in d for k in ("systemPayload", "toolCallResult", "usageMetadata"))
            or (isinstance(msg, dict) and isinstance(msg.get("parts"), list) and "content" not in msg))


def _is_session_file(p: Path) -> bool:
    """A session's file: `<id>.jsonl`, or a `.json` this source reads (a transcript a hook re-saved
    as one array, a print-mode run saved whole), which may lie among them: the walk takes the
    other files beside a session found as its parts, so one not offered here is never read."""
    if p.name.startswith("agent-") or p.suffix not in (".jsonl", ".json") or not p.is_file():
        return False
    if p.suffix == ".jsonl":
        return True
    try:
        return ClaudeCodeSource().sniff(p, read_head(p))
    except (ForsyError, OSError):
        return False


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


# The ledger (manifest.json): what a record that no step cites was read for, by its type
# (docs/rules.md names each rule). user/assistant/system records are marked by what they
# became (`_mark_notes`); a type not here and not read as work is `unknown`.


def _prompt_is_the_delegation(events: list[Event], recs: list[Record], helper: bool) -> list[Event]:
    """A subagent transcript retraced on its own: the prompt it was started with (the first
    user record) is the trace's task (T-task/delegated), never a person's message. The parent
    agent wrote it (actor `agent`); for Claude Code's own helper (prompt suggestion), Claude
    Code did (actor `system`). The rest of the thread stays the subagent's."""
    first = next((r for r in recs if r.data.get("type") == "user"), None)
    for i, e in enumerate(events):
        if (first is not None and e.kind == "note" and isinstance(e.info, NoteInfo)
                and e.info.subtype == "subagent_prompt" and e.refs and e.refs[0].ev == first.ev.id):
            events[i] = Event("note", "system" if helper else "agent", e.ts, e.refs, text=e.text, ts_ref=e.ts_ref,
                              info=NoteInfo(subtype="subagent_input"))
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


def read_session(path: Path, ctx: ReadContext) -> Session:
    """Read one session file (and the subagent transcripts that belong to it)."""
    if ctx.root is None:
        ctx = replace(ctx, root=path.parent)  # the rest of the context (its limits too) stands
    session = Session("claude_code", "", [], {}, [], SessionMeta(agent="claude-code"), Quality())
    recs = _dedupe(load_records(path, ctx, session), session)
    main = [r for r in recs if not r.data.get("isSidechain")]
    inline = [r for r in recs if r.data.get("isSidechain")]
    _collect_meta(recs, session)
    read_later_records(recs, session)
    for r in inline:  # progress copies are read from the main chain only
        if _is_agent_progress(r.data):
            session.warn("unread-content", "agent_progress record marked isSidechain; its copy of a subagent "
                         "message was not read", r.ev.source, r.ev.line)
    session.session_id = session.session_id or path.stem  # the records' sessionId, else the file name
    agent_file = AGENT_FILE.match(path.name)
    helper = agent_file is not None and agent_file.group(1).startswith(HELPERS)
    # a record skipped as of no known type (a damaged `{"type": ...}` line too) says nothing of
    # whether the file is a subagent's transcript: only the records read decide; a fork subagent's
    # opens with the reference to the context it was given, which is not marked sidechain
    unmarked = [r for r in main if r.data.get("type") in KNOWN_TYPES]
    fork = any(r.data.get("type") == FORK_CONTEXT for r in main)
    if agent_file is not None and (not unmarked or helper or fork):
        # a subagent transcript given on its own: its prompt came from the parent agent (or,
        # for Claude Code's own helpers, from Claude Code, which may not mark it a sidechain)
        agent_id = agent_file.group(1)
        th = Thread(agent_id, recs if helper else inline, "file", _root_prompt(recs if helper else inline))
        if (th.prompt or "").strip() == "Warmup":
            session.warn("warmup-only", "a Warmup sidechain (cache priming), not work", session.files[-1].path)
            for r in inline:
                session.mark(r.ev.id, "set_aside", "Warmup sidechains are not work")
            return session
        session.events = _prompt_is_the_delegation(_thread_events(th, session), th.records, helper)
        _attach_persisted(session.events, path, ctx, session)
        _mark_notes(session.events, session)
        return session
    refused = withdrawn(main, session.warn)
    abandoned = _abandoned(main, session, refused)
    builder = EventBuilder("agent", abandoned, session.warn)
    builder.withdrawn = refused
    events: list[Event] = []
    for r in main:
        if r.data.get("type") in WORK_TYPES:
            events.extend(builder.from_record(r))
    threads = _threads(path, ctx, session, main, inline)
    session.events = _merge_threads(events, threads, session)
    _attach_persisted(session.events, path, ctx, session)  # subagents' outputs too
    return _finish(session)


def _finish(session: Session) -> Session:
    """The session's notes marked in the ledger, and what its events count."""
    _mark_notes(session.events, session)
    session.quality.abandoned_events = sum(1 for e in session.events if e.abandoned)
    session.quality.compactions = sum(1 for e in session.events if e.kind == "compaction")
    first = next((e for e in session.events if e.kind != "note"), None)
    if first is not None and first.kind == "compaction":
        session.quality.extra["starts_from_summary"] = 1  # the earlier work is logged elsewhere
    unattended = sum(1 for e in session.events if e.kind == "note" and e.actor == "system"
                     and isinstance(e.info, NoteInfo) and e.info.subtype == "interrupt")
    if unattended:  # print/SDK-mode interrupts no one at a prompt made (`_senders.unattended_interrupt`)
        session.quality.extra["unattributed_interrupts"] = unattended
    session.quality.encrypted_reasoning = sum(
        1 for e in session.events
        if e.kind == "note" and isinstance(e.info, NoteInfo) and e.info.subtype == "encrypted_reasoning"
    )
    return session


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
        if t in ("permission-mode", "ai-title", "custom-title"):
            _mode_or_title(r, meta, session)
        if t == "teleported-from" and isinstance(d.get("remoteSessionId"), str):
            meta.extra["teleported_from"] = d["remoteSessionId"]
        if t == "system":
            note_fallback(d, r.ev.line, meta)  # a refusal retried on another model: both were used
            models.update(meta.models)
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
                for k in USAGE_KEYS:
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


# the string field each record names its value in (the first found is read)
_VALUE_KEYS = {"permission-mode": ("permissionMode", "mode"), "ai-title": ("aiTitle", "title"),
               "custom-title": ("customTitle", "title")}


def _mode_or_title(r: Record, meta: SessionMeta, session: Session) -> None:
    """2.1.16x+: `permission-mode` (the mode the user switched to) → agent_config.permission_modes,
    in order; `ai-title` (the title Claude Code generated) → the card; `custom-title` (the name the
    person gave the session: `/rename`, `--name`, a rename from the desktop app or claude.ai) →
    agent_config.title. Claude Code writes a title again after later turns (CHANGELOG 2.1.239: so
    `/resume` finds it): the latest stands. Read from the one string field the record carries
    besides its envelope."""
    d = r.data
    keys = _VALUE_KEYS[d["type"]]
    value = next((d[k] for k in keys if isinstance(d.get(k), str)), None)
    if value is None:
        session.warn("field-type", f"{d['type']} record without a string {keys[0]}; not read", r.ev.source, r.ev.line)
        return
    if d["type"] == "ai-title":
        meta.extra["ai_title"] = value  # the latest title stands
        return
    if d["type"] == "custom-title":
        if value.strip():  # a name cleared leaves no title of the person's
            meta.extra["title"] = value
        else:
            meta.extra.pop("title", None)
        return
    modes: list[str] = meta.extra.setdefault("permission_modes", [])
    if not modes or modes[-1] != value:
        modes.append(value)


def _attach_persisted(events: list[Event], path: Path, ctx: ReadContext, session: Session) -> None:
    """Large outputs Claude Code saved to `<session>/tool-results/<id>.txt`: read them when present."""
    tr_dir = path.parent / path.stem / "tool-results"
    for e in events:
        saved = e.text is not None and ("<persisted-output>" in e.text or "Output too large (" in e.text)
        if saved and e.kind == "note" and isinstance(e.info, NoteInfo) and e.info.subtype in HOOK_NOTES:
            _saved_hook_output(e, path, ctx, session, tr_dir)
            continue
        # a server-side result (web search, no ResultInfo) is the API's: Claude Code saves none to
        # disk, and a page quoting these words names no file of this session
        if e.kind != "tool_result" or not e.text or not saved or not isinstance(e.info, ResultInfo):
            continue
        m = PERSISTED.search(e.text)
        if not m:
            continue
        info = e.info
        info.persisted_path = m.group(1)
        try:
            f = _persisted_file(m.group(1), path, tr_dir)
            mark: tuple[LedgerHeading, str] = ("metadata", SAVED_OUTPUT_WHY)
            got = None if f is None else _read_saved(f, ctx, session, "tool-result-file", mark)
        except (InputError, OSError) as err:  # there, but the user may not read it: as missing, and said
            _saved_unreadable(e, m.group(1), err, session)
            got = None
        if got is None:
            session.quality.truncated_outputs += 1
            info.persisted_missing = True
            continue
        ev, data = got
        info.persisted = Persisted(ref=Ref(ev.id, ""), text=data.decode("utf-8", "replace"), source=ev.source)


def _saved_unreadable(e: Event, written: str, err: InputError | OSError, session: Session) -> None:
    """A saved output found beside the log that could not be read: the trace holds the preview."""
    said = session.evidence.get(e.refs[0].ev) if e.refs else None
    session.warn("saved-output-unreadable", f"the whole output saved to {written} could not be read ({why(err)}): the "
                 "trace holds only the preview the model was given",
                 said.source if said is not None else None, said.line if said is not None else None)


def _read_saved(f: Path, ctx: ReadContext, session: Session, record_type: str,
                mark: tuple[LedgerHeading, str]) -> tuple[Evidence, bytes]:
    """A file Claude Code saved beside its log, read whole into the session: its evidence, its
    ledger mark, one of the session's files."""
    data = read_bytes(f)
    rel = source_name(f, ctx.root)
    ev = Evidence.make(rel, None, 0, data, sha256(data), record_type)
    session.add_evidence(ev)
    session.mark(ev.id, *mark)
    session.files.append(SourceFile(rel, str(f), "claude_code", len(data), sha256(data)))
    return ev, data


# the notes a hook's output is read as (`_events`): R-hook's, and a SessionStart hook's context
HOOK_NOTES = ("hook", "injected")
SAVED_HOOK_WHY = "a hook's whole output Claude Code saved beside its log (the model was given its preview, the note)"


def _saved_hook_output(e: Event, path: Path, ctx: ReadContext, session: Session, tr_dir: Path) -> None:
    """A hook's output over Claude Code's limit (2.1.89+) is saved to `tool-results/hook-<id>-stdout.txt`
    and the model given `<persisted-output>` with its path and a preview, as a call's large
    output is. The note keeps the preview (what the model was given); the saved file is read into
    the session's evidence and ledger, counted (`saved_hook_outputs`) and warned about, since a
    note carries no output file of its own; a missing one is counted in `truncated_outputs`."""
    m = PERSISTED.search(e.text or "")
    if not m:
        return
    said = session.evidence.get(e.refs[0].ev) if e.refs else None  # the record that gave the note
    source, line = (said.source, said.line) if said is not None else (None, None)
    try:
        f = _persisted_file(m.group(1), path, tr_dir)
        got = None if f is None else _read_saved(f, ctx, session, "hook-output-file", ("set_aside", SAVED_HOOK_WHY))
    except (InputError, OSError) as err:  # there, but the user may not read it
        session.quality.truncated_outputs += 1
        _saved_unreadable(e, m.group(1), err, session)
        return
    if got is None:
        session.quality.truncated_outputs += 1
        session.warn("saved-output-missing", f"a hook's output was saved to {m.group(1)}, which is not beside this "
                     "log: the trace holds only the preview the model was given", source, line)
        return
    ev, _ = got
    rel = ev.source
    session.quality.extra["saved_hook_outputs"] = session.quality.extra.get("saved_hook_outputs", 0) + 1
    session.warn("hook-output-saved", f"a hook's whole output was saved to {rel}: the trace holds the preview "
                 "the model was given (the hook's note), the file is in the ledger, not a step", source, line)


def _persisted_file(written: str, path: Path, tr_dir: Path) -> Path | None:
    """Where a saved output is on this machine. The path was written where Claude Code ran
    (`C:\\Users\\...\\<session>\\tool-results\\<id>.txt` on Windows, drive letter in any case):
    its file name and the session folder before `tool-results` are looked for beside this
    log, the session's own folder first (a subagent's file sits below that folder)."""
    parts = [p for p in re.split(r"[\\/]", written) if p]
    if not parts:
        return None
    name = parts[-1]
    sid = parts[-3] if len(parts) >= 3 and parts[-2] == "tool-results" else None
    dirs = [tr_dir]
    if sid:
        dirs += [a / sid / "tool-results" for a in path.parents[:4]]
        dirs += [a / "tool-results" for a in path.parents[:4] if a.name == sid]
    for d in dirs:
        f = d / name
        if f.is_file():
            return f
    return None
