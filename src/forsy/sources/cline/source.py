"""Cline tasks (VS Code globalStorage `saoudrizwan.claude-dev/tasks/<task id>/`) → `Session`s.

A task folder holds two views of one task, and forsy reads both:

* `api_conversation_history.json`: what the model saw and said, a JSON array of Anthropic
  messages. Each message is one `Evidence` (its exact bytes). Assistant messages give
  `reasoning` (thinking blocks), `agent_text` (text blocks) and `tool_call`s (calls of one
  message share a group): tool_use blocks, exact name and input; before native tool calls
  (October 2025, and for models without them after), the calls the model wrote as XML in its
  text, which Cline read out of it and ran (`_xml_calls.py`): name and input derived by
  R-call/cline-xml, the XML's span cited, the prose around them the model's words (C-span),
  the notice Cline appended when it stopped the stream after a call a `system` note. User
  messages give the results: Cline writes each as text, `[<tool> for '<what>'] Result:` and
  the output (one block, or before October 2025 the header's own block and the output's next),
  answering the previous message's calls in order (or, with native tool results, a
  `tool_result` block naming the call). `<environment_details>` blocks and Cline's reminders
  (`# task_progress ...`, `# TODO LIST UPDATE REQUIRED ...`, `[TASK RESUMPTION] ...`) are
  context Cline injected, not the user's words: counted in `quality.extra`, not made events.
  A result saying "The user denied this operation" is the user's rejection: an error, marked
  rejected (the step's eval -1 and its reason, R-error/rejected), counted in
  `quality.extra["rejected_calls"]`; one of Cline's failure messages fails its call
  (R-call/cline-failure-text). Text Cline writes whole into a user message (its notices,
  wrappers, attachments, a command's status spread as a plain block) is never the user's:
  `_harness.py` names its kind (a `system` note, or the result of the call it answers); the
  person's words inside a wrapper are cut out of it (C-span), and so are the model's from the
  interruption notice Cline appends to a response cut short.
* a folder with `ui_messages.json` and no API history is read from the UI alone
  (`_ui_only.py`).
* `ui_messages.json`: what the user saw, with times (`ts`, epoch milliseconds). The first
  record, `say: "text"` (`say: "task"` from February 2026), is the task exactly as typed (the
  API view wraps it in `<task>`), and
  `say: "user_feedback"` records are the user's later words: both are copied from here. An
  assistant message's time is the `ts` of the first UI record that names its place
  (`conversationHistoryIndex` = its index - 1), written as ISO 8601 UTC (derived, R-time); else,
  and for a user message's events (results, prompts), the message's own `ts` (since v3.67.0).
  Approvals asked (`ask: "tool" | "command" | ...`) are counted in `quality.extra`.

`task_metadata.json` and `focus_chain_taskid_*.md` name the task too: any of the task's files
reads the whole folder. The model comes from each message's `modelInfo`, tokens from its
`metrics`, or, when no message has them (older Cline), from the UI's `api_req_started`
records (`tokensIn`, `tokensOut`, `cacheWrites`, `cacheReads`, summed; their `cost` is not a
token count and is not kept). Not recorded: the system prompt and the tools offered (Cline
does not save them).

Since its SDK migration Cline writes `<session id>.messages.json` instead (`_sdk.py`).

Every UI record and each top-level key of `task_metadata.json` is accounted for in the
manifest's ledger (`_ledger.py`): cited by a step, or marked as a time, a count, the UI's
copy of an API message, or Cline's bookkeeping.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from ...errors import InputError
from ...evidence import Event, Ref, Session, SessionMeta, pointer
from ...payloads import MessageInfo, NoteInfo, ResultInfo
from .. import ReadContext
from .._records import Record
from .._side import companion
from ..lines import discover_sniffed, read_bytes, source_name
from ._compaction import read_compaction, session_file
from ._files import content_blocks, load_array, load_file
from ._harness import INJECTED, RESULT, command_failed, harness_kind, no_status, not_run, result_failed, wrapped_words
from ._ledger import ASKED, kind_of, mark_ui, read_metadata, request_tokens
from ._sdk import SUFFIX as SDK_SUFFIX
from ._sdk import is_sdk_messages, iso_ms, read_sdk
from ._subagents import read_subagents, root_of
from ._ui_only import read_ui_only
from ._xml_calls import WAIT, block_text, body_of, cut_notice, events, header, headless, is_xml, split

API = "api_conversation_history.json"
UI = "ui_messages.json"
META = "task_metadata.json"
DENIED = "The user denied this operation"
# the first UI record, the task as typed: `say: "task"` from February 2026 (startTask), `say: "text"` before
TASK_SAYS = ("text", "task")
FAILURE_RULE = "R-call/cline-failure-text"
# what Cline appends to the model's words when a response is cut short (task/index.ts at cline/cline
# 864419d8b0, the abort path of recursivelyMakeClineRequests): Cline's words, not the model's
INTERRUPTED = {"[Response interrupted by user]": "user", "[Response interrupted by API Error]": "api_error"}
# the assistant message Cline writes when the provider returned nothing usable (same file: "Invalid API
# Response", then this in the model's place so the history stays well-formed)
NO_RESPONSE = "Failure: I did not provide a response."
# the person's feedback inside a result, after Cline's own words for it (ToolResultUtils,
# CommandOrchestrator, formatResponse.tooManyMistakes; toolDeniedWithFeedback until February
# 2025): never a file's text that holds the tag
FEEDBACK = re.compile(r"(?:The user provided the following feedback:|The user has provided the following feedback "
                      r"to help guide you:|The user denied this operation and provided the following feedback:)"
                      r"\n<feedback>\n(.*?)\n</feedback>", re.S)
# the person's answer to ask_followup_question / plan_mode_respond as the call's result
# (AskFollowupQuestionToolHandler.ts, PlanModeRespondHandler.ts); the UI says it as user_feedback
ANSWER = re.compile(r"<(answer|user_message)>\n(.*?)\n</\1>", re.S)


# where the extension keeps its tasks: the editor's global storage (context.globalStorageUri),
# in the user-data folder of VS Code or of the fork it runs in
EXTENSION_TASKS = "User/globalStorage/saoudrizwan.claude-dev/tasks"
EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf", "Code - OSS")
EDITOR_SERVERS = (".vscode-server", ".vscode-server-insiders", ".vscodium-server", ".cursor-server", ".windsurf-server")


def cline_data_dir(env: Mapping[str, str], home: Path) -> Path:
    """Cline's data folder outside an editor (its standalone core, JetBrains, the CLI, the SDK),
    as Cline resolves it (resolveClineDataDir, resolveDataDirFromEnv): CLINE_DATA_DIR, else
    CLINE_DIR/data, else ~/.cline/data (each trimmed; set but blank is unset)."""
    data, top = env.get("CLINE_DATA_DIR", "").strip(), env.get("CLINE_DIR", "").strip()
    if data:
        return Path(data).expanduser()
    return (Path(top).expanduser() if top else home / ".cline") / "data"


class ClineSource:
    name: ClassVar[str] = "cline"
    searches_below: ClassVar[bool] = True  # its discover(dir) looks in every folder below (sources.walk)
    # read with the API history beside them, and named by its reading when they may not be (sources.walk)
    companions: ClassVar[frozenset[str]] = frozenset({UI, META})
    # the extension's storage in VS Code and its forks (Linux, macOS, a remote host's server
    # folder), under the home folder; the standalone core's tasks and the SDK's sessions are
    # under Cline's data folder (~/.cline/data unless its variables say: `env_roots`)
    default_roots: ClassVar[tuple[str, ...]] = (
        *(f"{base}/{editor}/{EXTENSION_TASKS}" for editor in EDITORS
          for base in (".config", "Library/Application Support")),
        *(f"{server}/data/{EXTENSION_TASKS}" for server in EDITOR_SERVERS),
        ".cline/data/tasks",
        ".cline/data/sessions",  # the SDK's sessions (`_sdk.py`)
    )

    def env_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """The standalone core's tasks and the SDK's sessions where Cline's variables put them."""
        data = cline_data_dir(env, home)
        sessions = env.get("CLINE_SESSION_DATA_DIR", "").strip()
        return [data / "tasks", Path(sessions).expanduser() if sessions else data / "sessions"]

    def sniff(self, path: Path, head: bytes) -> bool:
        h = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if path.name.endswith(SDK_SUFFIX):
            return is_sdk_messages(path, h)
        if path.name == API:
            return h.startswith(b"[") and b'"role"' in h[:4096]
        if path.name == UI:
            return h.startswith(b"[") and b'"ts"' in h[:4096] and (b'"say"' in h or b'"ask"' in h)
        if path.name == META:
            return h.startswith(b"{") and ((path.parent / API).is_file() or (path.parent / UI).is_file())
        if path.name.startswith("focus_chain_taskid_") and path.suffix == ".md":
            return (path.parent / API).is_file()
        return False

    def discover(self, path: Path) -> list[Path]:
        found = discover_sniffed(path, self.sniff, (API, UI, "*" + SDK_SUFFIX), recursive=True)
        # a task is offered once: by its API history, or by its UI messages when that is missing;
        # a subagent's transcript is read with its root session's when that is beside it
        return [p for p in found if (p.name == API or not (p.parent / API).is_file()) and root_of(p) is None]

    def session_of(self, path: Path) -> Path | None:
        """A subagent's or teammate's transcript is a part of the root session beside it; a
        compacted view (`<id>.compaction.json`), of the session whose transcript it sits beside."""
        own = session_file(path)
        return root_of(path) or (root_of(own) or own if own is not None else None)

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        if path.name.endswith(SDK_SUFFIX):
            s = _read_sdk(path, ctx)
            read_subagents(path, s, ctx, _read_sdk)
            return [s]
        folder = path.parent
        api = folder / API
        s = Session("cline", folder.name, [], {}, [], SessionMeta(agent="cline"))
        if not api.is_file():
            if not (folder / UI).is_file():
                raise InputError(f"a Cline task file without its {API}", path=path)
            return [self._ui_only(folder, s, ctx)]
        api_recs = _load(api, s, ctx)
        main = source_name(api, ctx.root)
        # beside the API history, the UI messages are a companion: the task is read without them
        ui_recs = companion(s, main, source_name(folder / UI, ctx.root), "no times and no typed prompts", _load,
                            folder / UI, s, ctx) if (folder / UI).is_file() else []
        if ui_recs == []:
            s.warn("no-ui-messages", f"{UI} is missing or empty: no times and no typed prompts",
                   source_name(folder / UI, ctx.root))
        task = _Task(s, api_recs, ui_recs or [])
        task.build()
        _metadata(folder, main, s, ctx)  # after the build: its model_usage is checked against the models read
        mark_ui(s, ui_recs or [], api_recs, task.timed, task.tokens_from_ui)
        return [s]


    def _ui_only(self, folder: Path, s: Session, ctx: ReadContext) -> Session:
        """A task whose API history is missing: what the UI messages say (`_ui_only.py`)."""
        ui_recs = _load(folder / UI, s, ctx)
        s.warn("no-api-history", f"{API} is missing: the task is read from {UI} alone (no tool results, "
               "no model, no tokens)", source_name(folder / API, ctx.root))
        s.quality.extra["ui_only"] = 1
        read_ui_only(s, ui_recs, iso_ms)
        _metadata(folder, source_name(folder / UI, ctx.root), s, ctx)
        mark_ui(s, ui_recs, [], set(), False)
        for rec in ui_recs:
            if rec.data.get("partial") is True:
                s.mark(rec.ev.id, "set_aside", "a UI record still streaming (the complete one follows)")
        return s


def _read_sdk(path: Path, ctx: ReadContext) -> Session:
    s = read_sdk(path, read_bytes(path, ctx.limits), source_name(path, ctx.root), ctx)
    read_compaction(path, s, ctx)
    return s


def _metadata(folder: Path, main: str, s: Session, ctx: ReadContext) -> None:
    """The task's `task_metadata.json`, when it is there; one that cannot be read is said (the
    task is read without it)."""
    path = folder / META
    if path.is_file() and (got := companion(s, main, source_name(path, ctx.root), "no Cline version and no "
                                            "files in context", load_file, path, s, ctx, "cline")):
        read_metadata(*got, s)


def _load(path: Path, s: Session, ctx: ReadContext) -> list[Record]:
    return load_array(path, s, ctx, "cline")


def _bump(s: Session, key: str) -> None:
    s.quality.extra[key] = s.quality.extra.get(key, 0) + 1


class _Task:
    def __init__(self, s: Session, api: list[Record], ui: list[Record]) -> None:
        self.s, self.api, self.ui = s, api, ui
        self.times: dict[int, str] = {}  # api message index -> time of its first UI record
        self.time_rec: dict[int, str] = {}  # ... and that record's evidence id
        self.timed: set[str] = set()  # the UI records whose time some event took
        self.tokens_from_ui = False  # token usage summed from api_req_started (no API metrics)
        self.pending: list[Event] = []  # tool calls of the last assistant message, unanswered
        self.calls: dict[str, Event] = {}
        self.feedback: list[Record] = []
        self.task: Record | None = None

    def build(self) -> None:
        self._read_ui()
        for j, rec in enumerate(self.api):
            role = rec.data.get("role")
            if role == "assistant":
                self._missing()
                self._assistant(j, rec)
            elif role == "user":
                self._user(j, rec)
            else:
                self.s.quality.unknown_records += 1
                self.s.warn("unknown-record", f"message role {role!r}; skipped", rec.ev.source, rec.ev.line)
        last = self.pending[-1] if self.pending else None
        if last is not None and last.tool == "attempt_completion":
            self.pending.pop()  # the task ended on it: its answer is the user's next task, if any
            _bump(self.s, "completion_unanswered")
        self._missing()
        for rec in self.feedback:
            self.s.warn("feedback-unplaced", "user feedback in the UI that no API message holds; kept at the end",
                        rec.ev.source, rec.ev.line)
            self._user_ui(rec)
        if not self.s.meta.token_usage:
            self._ui_tokens()

    def _ui_tokens(self) -> None:
        """Older Cline writes no `metrics` in the API history: each request's token counts are
        in its UI `api_req_started` record (a JSON object as text), summed here."""
        usage = self.s.meta.token_usage
        for rec in self.ui:
            if kind_of(rec.data) == ("say", "api_req_started"):
                for k, v in (request_tokens(rec.data) or {}).items():
                    usage[k] = usage.get(k, 0) + v
                    self.tokens_from_ui = True

    def _read_ui(self) -> None:
        for i, rec in enumerate(self.ui):
            d = rec.data
            idx = d.get("conversationHistoryIndex")
            if isinstance(idx, int) and idx + 1 not in self.times and d.get("say") not in ("checkpoint_created",):
                ts = iso_ms(d.get("ts"))
                if ts:
                    self.times[idx + 1] = ts
                    self.time_rec[idx + 1] = rec.ev.id
            if d.get("say") in TASK_SAYS and i == 0:
                self.task = rec
            elif d.get("say") == "user_feedback":
                self.feedback.append(rec)
            elif d.get("type") == "ask" and d.get("ask") in ASKED:
                _bump(self.s, f"asks_{d.get('ask')}")

    def _ev(self, kind: Any, rec: Record, ptr: str, ts: str | None = None, **fields: Any) -> Event:
        if ts is None and (ts := self._own_ts(rec)) is not None:
            fields["ts_from"] = Ref(rec.ev.id, "/ts")
        ev = Event(kind, fields.pop("actor", "agent"), ts, [Ref(rec.ev.id, ptr)], **fields)
        self.s.events.append(ev)
        return ev

    @staticmethod
    def _own_ts(rec: Record) -> str | None:
        """An API message's own time: Cline writes `ts` (epoch ms) on each since v3.67.0
        (shared/messages/content.ts ClineStorageMessage.ts, cline/cline 03ab2968a6; the user message
        when its request is sent, the assistant's when its response is saved). R-time."""
        return iso_ms(rec.data.get("ts"))

    def _user_ui(self, rec: Record) -> None:
        text = rec.data.get("text")
        if isinstance(text, str) and text.strip():
            self._ev("user", rec, "/text", iso_ms(rec.data.get("ts")), actor="user", text=text)

    def _assistant(self, j: int, rec: Record) -> None:
        s, ts = self.s, self.times.get(j)
        # the time is the first UI record naming this message (the API history holds none): cite that
        at = Ref(self.time_rec[j], "/ts") if ts and j in self.time_rec else None
        if ts is None and (ts := self._own_ts(rec)) is not None:  # no UI record names it: its own time
            at = Ref(rec.ev.id, "/ts")
        info = rec.data.get("modelInfo")
        model = info.get("modelId") if isinstance(info, dict) else None
        if isinstance(model, str) and model not in s.meta.models:
            s.meta.models.append(model)
        metrics = rec.data.get("metrics")
        tokens = metrics.get("tokens") if isinstance(metrics, dict) else None
        for k, v in (tokens.items() if isinstance(tokens, dict) else []):
            if isinstance(v, int) and not isinstance(v, bool):
                s.meta.token_usage[k] = s.meta.token_usage.get(k, 0) + v
        before = len(s.events)
        blocks = content_blocks(rec, self.s)
        native = any(b.get("type") == "tool_use" for _, b in blocks)
        for ptr, b in blocks:
            bt = b.get("type")
            if bt == "thinking" and isinstance(b.get("thinking"), str) and b["thinking"].strip():
                self._ev("reasoning", rec, ptr + "/thinking", ts, ts_from=at, text=b["thinking"])
            elif bt == "text" and isinstance(b.get("text"), str) and b["text"].strip():
                # XML calls in it are read where Cline read them: not beside native tool_use blocks
                self._agent_text(rec, ptr if b.get("_whole") else ptr + "/text", b["text"], ts, at,
                                 None if native else f"M{j}")
            elif bt == "tool_use":
                name = b.get("name") if isinstance(b.get("name"), str) else None
                raw_id = b.get("id")
                cid = raw_id if isinstance(raw_id, str) else f"{rec.ev.id}{ptr}"
                ev = self._ev("tool_call", rec, ptr + "/input", ts, ts_from=at, call_id=cid, tool=name,
                              args=b.get("input"), group=f"M{j}",
                              name_ref=Ref(rec.ev.id, ptr + "/name") if name else None)
                self.pending.append(ev)
                self.calls[cid] = ev
            elif bt not in ("thinking", "text", "redacted_thinking"):
                s.quality.unknown_records += 1
                s.warn("unknown-block", f"assistant block type {bt!r}; skipped", rec.ev.source, rec.ev.line)
        if ts and len(s.events) > before and j in self.time_rec:
            self.timed.add(self.time_rec[j])

    def _agent_text(self, rec: Record, ptr: str, text: str, ts: str | None, at: Ref | None,
                    group: str | None = None) -> None:
        """The model's words, without what Cline wrote in its place or after them; with a
        `group`, the calls written in them as XML are read out (`_xml_calls.py`)."""
        if text.strip() == NO_RESPONSE:  # Cline's stand-in for an empty response: the model call failed
            self._ev("agent_text", rec, ptr, ts, ts_from=at, text=text, info=MessageInfo(api_error=True))
            return
        mark = next((m for m in INTERRUPTED if text.rstrip().endswith(m)), None)
        z = len(text.rstrip())
        a = z - len(mark) if mark is not None else len(text)
        cut = cut_notice(text, a) if group is not None and mark is None else None
        end = cut[1][0] if cut is not None else a  # the model's words end here
        pieces = split(text, end) if group is not None else None
        if pieces is None and mark is None and cut is None:
            self._ev("agent_text", rec, ptr, ts, ts_from=at, text=text)
            return
        if pieces is None and (words := text[:end].rstrip()).strip():
            # what the model had said when it was cut off (C-span)
            self._ev("agent_text", rec, ptr, ts, ts_from=at, text=words, info=MessageInfo(span=(0, len(words))))
        for ev in events(rec.ev.id, ptr, text, pieces or [], cut, ts, at, group or "", self.s.quality.extra):
            self.s.events.append(ev)
            if ev.kind == "tool_call":  # waits for its result, as a tool_use does
                self.pending.append(ev)
                self.calls[ev.call_id or ""] = ev
        if mark is None:
            return
        _bump(self.s, "responses_interrupted")
        if INTERRUPTED[mark] == "user":  # the person pressed cancel while the model answered
            self._ev("interrupt", rec, ptr, ts, ts_from=at, actor="user", text=mark,
                     info=NoteInfo(subtype="response_interrupted", span=(a, z)))
        else:  # the stream failed: the model call failed
            self._ev("agent_text", rec, ptr, ts, ts_from=at, text=mark, info=MessageInfo(api_error=True, span=(a, z)))

    def _user(self, j: int, rec: Record) -> None:
        blocks, taken = content_blocks(rec, self.s), -1
        for i, (ptr, b) in enumerate(blocks):
            if i == taken:
                continue  # the text of an XML call's result, read with its header block before it
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
            tptr = ptr if b.get("_whole") else ptr + "/text"
            body = text.lstrip()
            xml = bool(self.pending) and is_xml(self.pending[0])
            m = RESULT.match(body) or header(body, self.pending)
            kind = harness_kind(body)
            skipped = not_run(body)
            if skipped is not None:
                self._not_run(rec, tptr, text, *skipped)
            elif m and self.pending:
                k = body_of(blocks, i, m.group(1)) if xml and body.rstrip() == m.group(0) else None
                if k == WAIT:
                    continue  # the header of a completion the person's feedback answers (`_harness`)
                call = self.pending.pop(0)
                if call.tool != m.group(1):
                    self.s.warn("result-name", f"result names {m.group(1)!r} but answers the {call.tool!r} call "
                                "before it (paired in order)", rec.ev.source, rec.ev.line)
                taken = taken if k is None else k
                self._result(rec, tptr, call, text, more=None if k is None else block_text(blocks, k))
            elif (answered := headless(body, self.pending)) is not None:  # an array's text, no header (May 2025)
                self.pending.remove(answered)
                self._result(rec, tptr, answered, text)
            elif m:  # Cline's result of a call no message left unanswered: Cline's words, never a prompt
                self.s.warn("orphan-result", f"a {m.group(1)!r} result answers no call; kept as a note",
                            rec.ev.source, rec.ev.line)
                self._note(rec, tptr, text, "unanswered_result", "tool")
            elif kind is not None:
                self._harness(rec, tptr, text, kind)
            elif body.startswith(INJECTED):
                _bump(self.s, "injected_context")
                # a message of nothing else (a resumption without new words) is read, not lost
                self.s.mark(rec.ev.id, "set_aside", "context Cline injected (environment details, reminders, "
                            "resumption notice), counted as injected_context")
            elif j == 0 and body.startswith("<task>"):
                self._task_prompt(rec, tptr, text)
            else:
                self._prompt(rec, tptr, text)

    def _not_run(self, rec: Record, ptr: str, text: str, tool: str, rejected: bool) -> None:
        """Cline's words for a call it did not run (`_harness.not_run`), written in place of its
        result: the result of the pending call it names; skipped after the person rejected an
        earlier call of the message, a rejection too (as the batch they stopped); refused because
        another had run, a failure (R-call/cline-failure-text)."""
        call = next((c for c in self.pending if c.tool == tool), None)
        if call is None:
            self.s.warn("orphan-result", f"Cline's words for a {tool!r} call it did not run answer no call; kept as "
                        "a note", rec.ev.source, rec.ev.line)
            self._note(rec, ptr, text, "call_not_run")
            return
        self.pending.remove(call)
        self._result(rec, ptr, call, text, rejected=rejected)

    def _completion(self) -> Event | None:
        """The attempt_completion call waiting for its answer, if the last message made one."""
        return next((c for c in self.pending if c.tool == "attempt_completion"), None)

    def _note(self, rec: Record, ptr: str, text: str, kind: str, actor: str = "system") -> None:
        _bump(self.s, f"cline_{kind}")
        self._ev("note", rec, ptr, None, actor=actor, text=text, info=NoteInfo(subtype=kind))

    def _harness(self, rec: Record, ptr: str, text: str, kind: str) -> None:
        """A block Cline wrote whole (`_harness.py`): never the person's words."""
        call = self._completion()
        if kind == "command_output" and call is not None:
            # the command attempt_completion ran, its result spread as plain blocks (no tool_use id)
            self.pending.remove(call)
            failed = command_failed(text)
            self._ev("tool_result", rec, ptr, None, call_id=call.call_id, tool=call.tool, text=text,
                     is_error=failed, info=ResultInfo(failure_rule=FAILURE_RULE) if failed else None)
            return
        if kind == "completion_feedback_wrapper" and call is not None:
            self.pending.remove(call)  # answered by the person's feedback, in the next block
            _bump(self.s, "completion_feedback")
        if kind == "completion_feedback_wrapper" and wrapped_words(text) is not None:
            self._prompt(rec, ptr, text)  # until November 2025 the words were inside this block
            return
        self._note(rec, ptr, text, kind, "tool" if kind == "command_output" else "system")

    def _task_prompt(self, rec: Record, ptr: str, text: str) -> None:
        t = self.task
        typed = t.data.get("text") if t is not None else None
        if t is not None and isinstance(typed, str) and typed.strip() and typed in text:
            self._user_ui(t)
        else:
            self._ev("user", rec, ptr, None, actor="user", text=text)

    def _prompt(self, rec: Record, ptr: str, text: str) -> None:
        for fb in self.feedback:
            said = fb.data.get("text")
            if isinstance(said, str) and said.strip() and said in text:
                self.feedback.remove(fb)
                self._user_ui(fb)
                return
        wrapped = wrapped_words(text)
        if wrapped is not None:
            # the person's words inside Cline's wrapper: the slice between the tags is theirs
            kind, (a, z) = wrapped
            self._ev("user", rec, ptr, None, actor="user", text=text[a:z],
                     info=MessageInfo(span=(a, z), wrapped=kind, context=text[:a]))
            return
        self._ev("user", rec, ptr, None, actor="user", text=text)

    def _result(self, rec: Record, ptr: str, call: Event, text: str, flagged: bool = False,
                rejected: bool = False, more: tuple[str, str] | None = None) -> None:
        """A call's result; `flagged`: its native tool_result block says `is_error: true`;
        `rejected`: Cline skipped it because the person rejected an earlier call; `more`: the
        block (pointer, text) after a header block that holds the result's text."""
        parts = [(ptr, text)] if more is None else [(ptr, text), more]
        text = "\n".join(t for _, t in parts)
        denied = rejected or DENIED in text
        if denied:
            _bump(self.s, "rejected_calls")
        failed = not denied and not flagged and result_failed(text)
        err: bool | None = flagged or denied or failed or text.lstrip().startswith("[ERROR]")
        ev = self._ev("tool_result", rec, ptr, None, call_id=call.call_id, tool=call.tool, text=text,
                      is_error=None if not err and no_status(text) else err,  # unknown: success is null
                      info=ResultInfo(rejected=True) if denied else  # the user's rejection: feedback on the step
                      ResultInfo(failure_rule=FAILURE_RULE) if failed else None)
        ev.refs += [Ref(rec.ev.id, p) for p, _ in parts[1:]]
        for p, t in parts:
            self._feedback_inside(rec, p, t)

    def _native_result(self, rec: Record, ptr: str, b: dict[str, Any]) -> None:
        cid = b.get("tool_use_id")
        call = self.calls.get(cid) if isinstance(cid, str) else None
        if call is None or call not in self.pending:
            self.s.warn("orphan-result", f"tool_result for unknown call {cid!r}; skipped", rec.ev.source, rec.ev.line)
            return
        self.pending.remove(call)
        c = b.get("content")
        if isinstance(c, str):
            self._result(rec, ptr + "/content", call, c, b.get("is_error") is True)
            return
        parts, people = [], []
        for i, x in enumerate(c if isinstance(c, list) else []):
            if not (isinstance(x, dict) and isinstance(x.get("text"), str)):
                continue
            part = (pointer("content", i), x["text"])
            kind = harness_kind(x["text"])
            # an array result (attempt_completion's) carries Cline's wrapper, the person's
            # feedback and attachments as blocks of their own: only the rest is the result
            if kind is not None and kind != "command_output":
                self._note(rec, ptr + part[0], x["text"], kind)
            elif wrapped_words(x["text"]) is not None:
                people.append(part)
            else:
                parts.append(part)
        text = "\n".join(t for _, t in parts)
        failed = DENIED not in text and b.get("is_error") is not True and result_failed(text)
        ts = self._own_ts(rec)
        ev = Event("tool_result", "agent", ts, [Ref(rec.ev.id, ptr + p) for p, _ in parts] or
                   [Ref(rec.ev.id, ptr)], ts_from=Ref(rec.ev.id, "/ts") if ts else None,
                   call_id=call.call_id, tool=call.tool,
                   text=text if parts or not people else None,  # all of it the person's: no output
                   is_error=b.get("is_error") is True or DENIED in text or failed,
                   info=ResultInfo(rejected=True) if DENIED in text else
                   ResultInfo(failure_rule=FAILURE_RULE) if failed else None)
        if DENIED in text:
            _bump(self.s, "rejected_calls")
        self.s.events.append(ev)
        for p, t in parts:
            self._feedback_inside(rec, ptr + p, t)
        for p, t in people:
            self._prompt(rec, ptr + p, t)

    def _feedback_inside(self, rec: Record, ptr: str, text: str) -> None:
        """The person's feedback Cline put inside a call's result (`<feedback>…</feedback>` after
        "The user provided the following feedback:", or their answer to a question): their
        words, after the result, copied from the UI's record of them when it has one."""
        found = [(m.start(), m.span(1), m.group(1)) for m in FEEDBACK.finditer(text)]
        found += [(m.start(), m.span(2), m.group(2)) for m in ANSWER.finditer(text)]
        for _, span, said in sorted(found):
            fb = next((f for f in self.feedback if isinstance(f.data.get("text"), str)
                       and f.data["text"].strip() and f.data["text"] in said), None)
            if fb is not None:
                self.feedback.remove(fb)
                self._user_ui(fb)
            elif said.strip():
                self._ev("user", rec, ptr, None, actor="user", text=said,
                         info=MessageInfo(span=span, wrapped="tool_feedback"))

    def _missing(self) -> None:
        for call in self.pending:
            self.s.quality.missing_results += 1
            self.s.warn_at("no-result", f"tool call {call.call_id} ({call.tool}) has no result", call)
        self.pending = []
