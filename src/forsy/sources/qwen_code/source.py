"""Qwen Code sessions (`~/.qwen/projects/<project>/chats/<session id>.jsonl`) → `Session`s.

Qwen Code (QwenLM/qwen-code) is a fork of Gemini CLI whose session files look like Claude
Code's records (`uuid`, `parentUuid`, `sessionId`, `timestamp`, `type`, `cwd`, `version`,
`gitBranch`) but hold Gemini `Content` (`message: {role, parts}`). Read from the writer's code,
packages/core/src/services/chatRecordingService.ts: its first JSONL form (commit 1ef5167,
types `user` / `assistant` / `tool_result`, `usageMetadata` as `{input, output, cached,
thoughts, tool, total}`) and the current one (commit 015346f: `system` records with a
`subtype` and a `systemPayload`, `provenance`, `usageMetadata` as the API's
`GenerateContentResponseUsageMetadata`); the paths from config/storage.ts (013e660,
96a2647) and utils/paths.ts; the history's reading from services/sessionService.ts and
utils/conversation-chain.ts; subagents from agents/agent-transcript.ts (015f283).

Where: `<runtime>/projects/<cwd with every [^a-zA-Z0-9] as ->/chats/<session id>.jsonl`, one
file per session, appended to (a resumed session goes on in its file); `<runtime>` is
`$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen` (the `advanced.runtimeOutputDir` setting
can move it too: name that folder). Subagents write `<runtime>/projects/<project>/subagents/
<session id>/agent-<id>.jsonl` (`_subagents`). Before the JSONL files (2025), Qwen Code kept
Gemini CLI's chat JSON, `~/.qwen/tmp/<sha256 of the cwd>/chats/session-*.json`: the Gemini
reader takes those files by their shape (they are not looked for under `~/.qwen`).

Each line is one record, one `Evidence`; what each gives:

* `user` (`recordUserMessage`): the person's words: `systemPayload.displayText` when the
  record has it (what was typed; `message` holds what the model got), else the text parts of
  `message` up to the files an `@path` pulled in (`--- Content from referenced files ---`,
  notes) and text the CLI added (`<system-reminder>`, a note); a turn of `inlineData` /
  `fileData` parts and no words (an image with no caption) is the person's turn, its text
  stating each part (`_events._attachment`), never a caption. Subtype `mid_turn_user_message`
  (typed while the agent worked) and `realtime_message` are typed words too. Provenance
  `system` / `goal_*` (subtypes `notification`, `cron`, `goal_runtime`: a background task's
  notice, a scheduled prompt, a goal's runtime message) and a subagent's `externalInputKind`
  messages are the CLI's or another agent's words: notes, never the person's. A user record
  right after a `slash_command` sent to the model holds that command as typed (a duplicate) or
  what it made of it (a note);
* `assistant` (`recordAssistantTurn`): parts marked `thought` are reasoning, other text the
  agent's, each `functionCall` a call (exact `name`, `args`, its `id`; the calls of a record, or
  of a subagent's round, `agentRunId`:`agentRound`, one group). `model` and `usageMetadata`
  feed the session facts; a record with neither words nor calls is metadata;
* `tool_result` (`recordToolResult`): each `functionResponse` (`response.output`, or
  `.error`; the text parts after it are the tool's too) is the result of the call its `id`
  names (else `toolCallResult.callId`). It failed when `toolCallResult.status` is `error` or
  `cancelled` (a subagent's, which has no status: when it holds `error`); `cancelled` with
  "User did not allow tool call" is the person's No (rejected). `toolCallResult.error` is an
  `Error` written by JSON.stringify (`{}`): not read. A response read already is a duplicate;
* `system`: `slash_command` invocation → the typed `rawCommand` (the person's words); its
  `result` phase and the bookkeeping subtypes are set aside; `chat_compression` → a compaction
  (the summary, `compressedHistory[0]`); `rewind` → metadata, the turns it took back flagged
  abandoned; the rest as `_system` says.

The history is the `parentUuid` chain from the file's last record (`_graph`); the work off it
(what a `/rewind` took back) is read and flagged abandoned. A record written again byte for byte
is a duplicate. The session's facts: `sessionId`, `version`, `cwd`, `gitBranch` and the first
`timestamp` of the records; the title (`custom_title`), the parent session of a sub-session.
Not in the format: the system prompt, the tools offered. A managed session (the managed engine:
`managed_session_*` records) keeps its messages by reference in Qwen Code's managed-session store,
which forsy does not read: said, and no trace made when it holds nothing else (`_managed`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from ...evidence import Quality, Ref, Session, SessionMeta, SourceFile
from ...payloads import MessageInfo
from .. import ReadContext
from .._records import Record, iter_jsonl
from .._side import companion
from .._threads import read_thread
from ..lines import head_values, inside, read_bytes, sha256, sniff_file, sniffed, source_name
from ..listing import matching, unlisted
from ._events import Transcript
from ._graph import chain, dedupe
from ._subagents import AGENT_FILE, Sub, main_chat, place, read_meta, subagents_folder, transcripts_of

KIND = "qwen_code"
PROJECT = "qwen-project:"  # a subagent transcript named from its project folder (read back by this source)
TYPES = frozenset({"user", "assistant", "tool_result", "system"})
OWN_FIELDS = ("systemPayload", "toolCallResult", "usageMetadata")  # fields only Qwen Code's records have


def qwen_record(d: dict[str, Any]) -> bool | None:
    """Whether a JSONL record is Qwen Code's: True, False, or None when it cannot tell (an
    assistant record with no message and no usage: the next record decides)."""
    if not (isinstance(d.get("uuid"), str) and isinstance(d.get("sessionId"), str) and "parentUuid" in d):
        return False
    if d.get("type") not in TYPES:
        return False
    if d.get("type") == "tool_result" or any(k in d for k in OWN_FIELDS):
        return True
    msg = d.get("message")
    if isinstance(msg, dict):  # Gemini Content: parts, never Claude Code's content
        return isinstance(msg.get("parts"), list) and "content" not in msg
    return None


def _is_record(d: dict[str, Any]) -> bool:
    """What a whole record looks like, for recovery from a damaged line."""
    return isinstance(d.get("type"), str) and isinstance(d.get("uuid"), str)


class QwenCodeSource:
    name: ClassVar[str] = KIND
    default_roots: ClassVar[tuple[str, ...]] = (".qwen/projects",)  # under the home folder
    schemes: ClassVar[tuple[str, ...]] = (PROJECT,)

    def env_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """QWEN_RUNTIME_DIR, else QWEN_HOME, holds `projects/` in place of ~/.qwen
        (config/storage.ts `getRuntimeBaseDir`; a blank variable is unset)."""
        top = env.get("QWEN_RUNTIME_DIR", "").strip() or env.get("QWEN_HOME", "").strip()
        if not top:
            return []
        base = home / top[2:] if top.startswith(("~/", "~\\")) else home if top == "~" else Path(top)
        return [base / "projects"]

    def sniff(self, path: Path, head: bytes) -> bool:
        s = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if not s.startswith(b"{"):
            return False
        for d in head_values(s, 40):
            if not isinstance(d, dict):
                return False
            verdict = qwen_record(d)
            if verdict is not None:
                return verdict
        return False

    def discover(self, path: Path) -> list[Path]:
        """Session files under a session file, a `chats/` folder, a project folder (holding
        `chats/`), Qwen Code's folder or its `projects/`, or a home folder (`~/.qwen/projects`);
        a subagent's transcript only when its session's chat is not there (it is read with it)."""
        if path.is_file():
            return [path] if sniff_file(path, self.sniff) else []
        if not path.is_dir():
            return []
        projects = next((p for p in (path / ".qwen" / "projects", path / "projects") if p.is_dir()), None)
        if (path / "chats").is_dir() or (path / "subagents").is_dir():
            folders = [path]
        else:  # Qwen Code's folder, its projects/, or a home folder
            top = sorted(p for p in (projects or path).iterdir() if p.is_dir())
            folders = [p for p in top if _project(p)]
        found: list[Path] = []
        for project in folders:  # a folder that may not be listed is said (`listing`), the rest found
            found += sniffed(matching(project / "chats", "*.jsonl"), self.sniff)
            found += [p for p in sniffed(matching(project / "subagents", "*/agent-*.jsonl"), self.sniff)
                      if main_chat(p) is None]
        if not folders:  # a folder of collected files: its own session files (not its subagents')
            found = [p for p in sniffed(path.glob("*.jsonl"), self.sniff) if main_chat(p) is None]
        return found

    def session_of(self, path: Path) -> Path | None:
        """A subagent's transcript and its `.meta.json` are parts of their session's chat."""
        return main_chat(path) if path.name.endswith((".jsonl", ".meta.json")) else None

    def read_back(self, name: str, roots: Sequence[Path]) -> bytes | None:
        """`qwen-project:subagents/<session>/agent-<id>.jsonl`: the transcript in the project
        folder a root is (or holds, or whose `chats/` folder it is)."""
        rest = name.removeprefix(PROJECT)
        if rest == name or not rest.startswith("subagents/"):
            return None
        for root in roots:
            base = root.resolve()
            base = base.parent if base.is_file() else base
            projects = [base.parent] if base.name == "chats" else [base]
            for top in (base / "projects", base / ".qwen" / "projects"):
                projects += sorted(p for p in top.iterdir() if p.is_dir()) if top.is_dir() else []
            for project in projects:
                cand = inside(project, rest)
                if cand is not None and cand.is_file():
                    return cand.read_bytes()
        return None

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        s, agent = _read(path, ctx, _name(path, ctx), "agent")
        if agent is not None:  # a subagent's transcript read on its own
            s.meta.extra["subagent"] = agent
            return [s]
        subs = []
        folder = subagents_folder(path, s.session_id)
        # named from the project folder (`_name`): the folder is beside `chats/`, outside the input's root
        found = companion(s, _name(path, ctx), f"subagents/{folder.name}/", "its subagents' work is not here",
                          transcripts_of, folder) if folder is not None else []
        for f in found or []:
            sub = read_thread(s, "transcript", _name(f, ctx), _read_sub, f, ctx)
            if sub is not None:
                subs.append(sub)
        if subs:
            place(s, subs)
        _managed(s, path)
        return [s]


def _project(folder: Path) -> bool:
    """Whether `folder` is a project's (it holds `chats/` or `subagents/`); one that may not be
    looked in is said (`listing`), and the other projects searched all the same."""
    try:
        return (folder / "chats").is_dir() or (folder / "subagents").is_dir()
    except OSError as e:
        unlisted(OSError(e.errno, e.strerror, str(folder)))
        return False


def _name(path: Path, ctx: ReadContext) -> str:
    """How evidence names a file: relative to the input root; a subagent's transcript outside
    it (beside `chats/`, where Qwen Code keeps it) from its project folder, under `PROJECT`."""
    if ctx.root is not None and not path.resolve().is_relative_to(ctx.root.resolve()) \
            and path.parent.parent.name == "subagents":
        return f"{PROJECT}subagents/{path.parent.name}/{path.name}"
    return source_name(path, ctx.root)


def _read_sub(path: Path, ctx: ReadContext) -> Sub:
    agent = AGENT_FILE.match(path.name)
    fallback = agent.group(1) if agent else path.stem
    s, own = _read(path, ctx, _name(path, ctx), None, fallback_agent=fallback)
    aid = own or fallback
    sub = Sub(aid, s, read_meta(path, s))
    sub.task = next((e.text for e in s.events if e.kind == "note" and e.text and getattr(e.info, "subtype", None)
                     == "subagent_input"), None)
    return sub


def _read(path: Path, ctx: ReadContext, name: str, actor: str | None,
          fallback_agent: str | None = None) -> tuple[Session, str | None]:
    """One transcript's session, and the agent id when it is a subagent's (its records say
    `isSidechain`). Its events are `actor`'s (None: `subagent:<agent id>`, a subagent read with
    its session)."""
    data = read_bytes(path, ctx.limits)
    s = Session(KIND, path.stem, [SourceFile(name, str(path.resolve()), KIND, len(data), sha256(data))], {}, [],
                SessionMeta(agent="qwen-code"), Quality())
    counters: dict[str, int] = {}
    recs: list[Record] = []
    for rec in iter_jsonl(data, name, s.warnings, counters, _is_record):
        s.add_evidence(rec.ev)
        recs.append(rec)
    del data
    s.quality.records = counters.get("records", 0)
    s.quality.unparsable_records = counters.get("unparsable", 0)
    recs = dedupe(recs, s)
    _facts(recs, s)
    side = [r for r in recs if isinstance(r.data.get("uuid"), str)]
    agent = None
    if side and all(r.data.get("isSidechain") is True for r in side):
        own = next((r.data["agentId"] for r in side if isinstance(r.data.get("agentId"), str)), None)
        agent = own or fallback_agent or path.stem
    g = chain(recs, s)
    t = Transcript(s, actor or f"subagent:{agent}", subagent=agent is not None)
    for rec in g.records:
        t.abandoned = rec.ev.id in g.off_chain
        d = rec.data
        # a subagent's record inside the session's chat (the transcripts are files of their own)
        inline = agent is None and d.get("isSidechain") is True and isinstance(d.get("agentId"), str)
        t.actor = f"subagent:{d['agentId']}" if inline else (actor or f"subagent:{agent}")
        t.record(rec)
    off = sum(1 for e in s.events if e.abandoned)
    if off:
        s.warn("abandoned-branch", f"{off} events are on turns a rewind took back" if g.rewound else
               f"{off} events are off the chain from the last record (no rewind record on it); kept and marked "
               "abandoned", name)
    _missing_results(t, s, name)
    return s, agent


def _facts(recs: list[Record], s: Session) -> None:
    """The session's facts from its records: the first session id (else the file's name stays
    the id), the last version, the first cwd, git branch and time."""
    m = s.meta
    named = False
    for r in recs:
        d = r.data
        if not named and isinstance(d.get("sessionId"), str) and d["sessionId"]:
            s.session_id, named = d["sessionId"], True
        if isinstance(d.get("version"), str) and d["version"] and d["version"] != "unknown":
            m.agent_version = d["version"]
        if isinstance(d.get("cwd"), str) and d["cwd"] and m.cwd is None:
            m.cwd = d["cwd"]
        if isinstance(d.get("gitBranch"), str) and d["gitBranch"] and m.git_branch is None:
            m.git_branch = d["gitBranch"]
        if isinstance(d.get("timestamp"), str) and m.started_at is None:
            m.started_at, m.started_at_ref = d["timestamp"], Ref(r.ev.id, "/timestamp")


def _managed(s: Session, path: Path) -> None:
    """A managed session (`session_execution_engine` `managed`; managed-session-records.ts): the
    file holds its events (`managed_session_event_v1`), a message committed naming its content by
    reference (`contentRef`) in Qwen Code's managed-session store, not its words. With no work of
    its own besides (a history imported before it became managed is read), no trace is made of it,
    saying why ("no work" would not be true). Else the trace lacks those messages: said."""
    n = s.quality.extra.get("managed_messages", 0)
    if not n:
        return
    why = (f"{n} message(s) of this Qwen Code managed session are stored by reference (contentRef) in Qwen Code's "
           "managed-session store, which forsy does not read")
    # a failed turn's error step (turn_result) is no message: alone it would be a trace of one error
    own = [e for e in s.events if e.kind in ("user", "agent_text", "tool_call")
           and not (isinstance(e.info, MessageInfo) and e.info.api_error)]
    where = s.files[0].path if s.files else None
    if not own:  # skipped with this reason (run.session), read again only when the file changes
        s.warn("work-elsewhere", f"{why}; the file holds no message of its own, so no trace is made of it", where)
        s.events = []
        return
    s.warn("managed-session", f"{why}: they are not in the trace", where)


def _missing_results(t: Transcript, s: Session, name: str) -> None:
    """Calls no result answered (the session ended, or was cut, before they returned): said."""
    for call_id, tool in t.calls.items():
        if call_id not in t.answered:
            s.quality.missing_results += 1
            call = next((e for e in s.events if e.kind == "tool_call" and e.call_id == call_id), None)
            s.warn_at("no-result", f"tool call {call_id} ({tool}) has no result in the log", call, name)
