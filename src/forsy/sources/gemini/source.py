"""Gemini CLI chats (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, `.json` before 2026)
and prompt logs (`~/.gemini/tmp/<project>/logs.json`) → `Session`s.

A chat is either lines (`_jsonl`: a header, message records written again as they change,
`$set` updates, `$rewindTo`) or, before 2026, one JSON object with a `messages` list. Each
message is one `Evidence` (its exact bytes) and gives (the table in docs/sources.md):

* `type: "user"`: a `user` event per text (`displayContent` when the CLI kept what was typed,
  else `content`); tool responses Gemini records as type user are duplicates; text starting
  `<session_context>` / `<hook_context>` is the CLI's, a note; in a subagent's chat the text
  is the parent agent's task (a `subagent_input` note);
* `type: "gemini"`: reasoning per thought (`subject`, `description`, parts marked `thought`),
  `agent_text` for `content`, then per `toolCalls` entry a `tool_call` (exact `name`, `args`,
  own `timestamp`) and a `tool_result` (`functionResponse.response.output` or `.error`;
  failed when `status` is not "success", the shell tool says `Exit Code: N`, N ≠ 0, or a
  subagent's says it failed or stopped short (`_agent_outcome`); a call the person declined is
  a rejection). Calls of one message share a group. `model` and `tokens`
  feed the session facts;
* `type: "info"` `Request cancelled.`: an interrupt; `type: "error"` `[API Error: …]`: an
  error step; other info / warning / error messages: notes; other types: unknown, reported.

`logs.json` is the project's log of what the user typed (`sessionId`, `messageId`, `type`,
`message`, `timestamp`). Read with a chat of its session (beside the chat, or beside its
`chats/` folder, where Gemini keeps it: evidence `gemini-project:logs.json`, read back by
this source), its prompts confirm the chat's (`quality.extra["logs_json_confirmed"]`) and a
prompt the chat lacks (slash commands) is added at its time. Read alone it gives one
session of prompts per `sessionId` whose chat is not beside it.

A main chat's subagents each write a chat of their own, read with it (`_subagents`).

A headless run's output saved as it came, `gemini -p … --output-format stream-json` (events of
one run a line: `init`, the prompt, the model's text in `delta` pieces, `tool_use`,
`tool_result`, `error`, `result`), is read by `_stream_json`, which says what the writer emits;
`--output-format json`'s one object (the answer and counts, no calls) is refused there.

What the format does not record: the working directory (only a hash of it: `.project_root`
beside `chats/` names it since 2026, `_project`), the system prompt, the tools offered, the
CLI's version; none of them is filled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import orjson

from ...errors import InputError
from ...evidence import Event, Ref, Session, SourceFile, pointer
from ...payloads import CallInfo, MessageInfo, NoteInfo, ResultInfo
from .. import ReadContext
from .._records import Record
from ..json_doc import read_object_array
from ..lines import HEAD, inside, read_bytes, sha256, sniff_file, sniffed, source_name
from ..listing import files_below
from . import _jsonl, _turns
from ._agent_outcome import subagent_outcome
from ._logs import PROJECT_LOGS, _chat_id, _log_ids, _merge_logs, _new_session, _read_logs
from ._parts import asked_at, part_at, part_texts, response_id
from ._project import project_root
from ._saved import FOLDER, attach_saved
from ._shell import shell_outcome
from ._stream_json import is_json_result, is_stream, read_stream, refuse_json_result
from ._subagents import Chat, Spawns, main_chat, read_subagents
from ._turns import CLI_TURNS, INJECTED, SHELL_TURN, SYNTHETIC_SIGNATURE

NOTE_TYPES = frozenset({"info", "warning", "error"})
# chatRecordingTypes.ts: BaseMessageRecord + the gemini type's fields; ToolCallRecord
MESSAGE_FIELDS = frozenset({"id", "timestamp", "content", "displayContent", "type", "toolCalls", "thoughts", "tokens",
                            "model"})
CALL_FIELDS = frozenset({"id", "name", "args", "result", "status", "timestamp", "agentId", "displayName", "description",
                         "resultDisplay", "renderOutputAsMarkdown"})
CANCELLED = "Request cancelled."  # useGeminiStream: the info item written when the person cancels
API_ERROR = "[API Error: "  # parseAndFormatApiError: a failed model call
DENIED = "User denied execution."  # scheduler.ts: the reason of a call the person declined
# scheduler.ts: answering Cancel to one call's confirmation cancels the rest of its batch with this
# reason (state-manager.ts cancelAllQueued → toCancelled): never run, by the person's answer
BATCH_CANCELLED = "[Operation Cancelled] Reason: User cancelled operation"
TOKEN_KEYS = ("input", "output", "cached", "thoughts", "tool", "total")
CLIENT_CALLS = frozenset({"activate_skill"})  # ACTIVATE_SKILL_TOOL_NAME: the calls the client makes itself
CHECKPOINT = "/$set/messages/"  # the pointer prefix of a message read from inside a checkpoint


class GeminiSource:
    name: ClassVar[str] = "gemini"
    searches_below: ClassVar[bool] = True  # its discover(dir) looks in every folder below (sources.walk)
    # read with the chats beside it, and named by their reading when it may not be (sources.walk)
    companions: ClassVar[frozenset[str]] = frozenset({"logs.json"})
    default_roots: ClassVar[tuple[str, ...]] = (".gemini/tmp",)  # under the home folder

    def env_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """GEMINI_CLI_HOME stands for the home folder when set (utils/paths.ts `homedir`)."""
        top = env.get("GEMINI_CLI_HOME", "")
        return [Path(top).expanduser() / ".gemini" / "tmp"] if top else []

    # the project's logs.json, one folder above the `chats/` folder a chat is read from
    schemes: ClassVar[tuple[str, ...]] = (PROJECT_LOGS,)

    def read_back(self, name: str, roots: Sequence[Path]) -> bytes | None:
        """`gemini-project:logs.json`, `gemini-project:tool-outputs/…`: the logs.json or a saved
        output beside the `chats/` folder a root is or holds (where Gemini keeps them:
        `~/.gemini/tmp/<project>/logs.json` and `…/tool-outputs/` beside `chats/`)."""
        rest = name.removeprefix(PROJECT_LOGS)
        if rest == name or not (rest == "logs.json" or rest.startswith(FOLDER + "/")):
            return None
        for root in roots:  # a `chats/` folder, or the project folder that holds one
            base = root.resolve()
            project = base.parent if base.name == "chats" else base if (base / "chats").is_dir() else None
            if project is None:
                continue
            cand = inside(project / FOLDER, rest.removeprefix(FOLDER + "/")) if rest != "logs.json" else (
                project / "logs.json")
            if cand is not None and cand.is_file():
                return cand.read_bytes()
        return None

    def sniff(self, path: Path, head: bytes) -> bool:
        if is_stream(head) or is_json_result(head):  # headless output (`_stream_json`)
            return True
        h = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if _jsonl.is_jsonl(h):
            # a chat of lines: its header names the session and the project's hash, and has no
            # `type` (Claude Code's lines name a sessionId too, always with a type)
            try:
                first = orjson.loads(h.split(b"\n", 1)[0])
            except orjson.JSONDecodeError:
                return False
            return isinstance(first, dict) and isinstance(first.get("projectHash"), str) and "type" not in first
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
        listed = files_below(path, ("*.json", "*.jsonl"))
        chats = sniffed(sorted(p for p in listed if p.name != "logs.json"), self.sniff)
        chats = _jsonl.without_migrated(chats)  # a `.json` chat moved to `.jsonl`: set aside, named
        # a subagent's chat is read with its main chat when that one is here (`_subagents`)
        found = set(chats)
        chats = [p for p in chats if p.suffix != ".jsonl" or main_chat(p) not in found]
        logs = sniffed((p for p in listed if p.name == "logs.json"), self.sniff)
        # a logs.json whose every session has its chat here adds nothing of its own
        have = {_chat_id(p) for p in chats}
        return chats + [p for p in logs if not _log_ids(p) <= have]

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        data = read_bytes(path, ctx.limits)
        name = source_name(path, ctx.root)
        file = SourceFile(name, str(path.resolve()), self.name, len(data), sha256(data))
        if is_json_result(data[:HEAD]):
            raise refuse_json_result(path, data[:HEAD])
        if is_stream(data[:HEAD]):
            return read_stream(path, data, name, file)
        if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
            return _read_logs(path, data, name, file)
        if _jsonl.is_jsonl(data):
            chat = _read_chat_lines(path, data, name, file, ctx)
            if not chat.session.meta.extra.get("subagent"):
                del data
                read_subagents(path, chat, ctx, _read_subagent)
            attach_saved(chat.session, path, ctx)
            return [chat.session]
        s = _read_chat(path, data, name, file, ctx)
        if path.suffix == ".json" and (lines := path.with_suffix(".jsonl")).is_file():  # named, so read
            s.warn("migrated_chat", f"read as named, though {lines.name} beside it is {_jsonl.MIGRATED_TWIN}", name)
        attach_saved(s, path, ctx)
        return [s]

    def session_of(self, path: Path) -> Path | None:
        """A subagent's chat is a part of its main chat's session when that chat is beside its
        folder (`_subagents`)."""
        return main_chat(path) if path.suffix == ".jsonl" else None


def _read_subagent(path: Path, ctx: ReadContext) -> Chat:
    data = read_bytes(path, ctx.limits)
    name = source_name(path, ctx.root)
    return _read_chat_lines(path, data, name, SourceFile(name, str(path.resolve()), "gemini", len(data), sha256(data)),
                            ctx, logs=False)


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
    if "messages" in doc.header:  # a member that is no list (a list's elements are the records)
        s.warn("no-messages", f"the chat's messages is {type(doc.header['messages']).__name__}, not a list; "
               "nothing read", name, None)
    elif not doc.has_array:
        s.warn("no-messages", "the chat has no messages list", name, None)
    elif not doc.elements and not doc.problems:  # the writer starts every chat with `messages: []`
        s.warn("no-messages", "the chat's messages list is empty", name, None)
    builder = _Chat(s)
    for rec in doc.records:
        s.add_evidence(rec.ev)
        builder.message(rec)
    _turns.note_start_from_summary(s)
    project_root(path, doc.header.get("projectHash"), s)
    _merge_logs(path, s, ctx)
    return s


def _read_chat_lines(path: Path, data: bytes, name: str, file: SourceFile, ctx: ReadContext, *,
                     logs: bool = True) -> Chat:
    s = _new_session(path.stem, file)
    lines = _jsonl.collect(data, name, s)
    sid = lines.header.get("sessionId")
    s.session_id = sid if isinstance(sid, str) and sid else path.stem
    s.quality.records = lines.records
    s.quality.unparsable_records = lines.unparsable
    builder = _Chat(s)
    if lines.header.get("kind") == "subagent":
        s.meta.extra["subagent"] = True
        builder.subagent = True
    for key in ("summary", "directories"):
        if lines.header.get(key) is not None:
            s.meta.extra[key] = lines.header[key]
    copied = _jsonl.imported(lines.messages)
    if copied:
        s.meta.extra["imported_from"] = lines.messages[0][0].data["content"].removeprefix(_jsonl.IMPORT_MARK)
        s.warn("imported-session", f"{len(copied)} messages are another session's history, copied in by "
               "`gemini --session-file`: set aside (that session's work)", name, lines.messages[0][0].ev.line)
    for rec, abandoned in lines.messages:
        if rec.ev.id in copied:
            s.mark(rec.ev.id, "set_aside", _jsonl.IMPORT_WHY, "message")
            continue
        if rec.data.get("id") in lines.copies:
            s.mark(rec.ev.id, "duplicate", _jsonl.COPY_WHY, "message")
            s.quality.extra["history_copies"] = s.quality.extra.get("history_copies", 0) + 1
            continue
        builder.abandoned = abandoned
        before = len(s.events)
        builder.message(rec)
        s.quality.abandoned_events += (len(s.events) - before) if abandoned else 0
    _turns.note_start_from_summary(s)
    if logs:  # the project's logs.json holds what a person typed: never a subagent's task
        project_root(path, lines.header.get("projectHash"), s)
        _merge_logs(path, s, ctx)
    return Chat(s, builder.spawned)


class _Chat:
    def __init__(self, s: Session) -> None:
        self.s = s
        self.abandoned = False  # the message being read was rewound away ($rewindTo)
        self.subagent = False  # a subagent's chat: its "user" is the agent that delegated to it
        self.compacted: set[str] = set()  # checkpoints whose rebuilt turns were read
        self.part_calls: dict[str, str] = {}  # a call made as a content part (not in toolCalls): name → call id
        self.call_ids: set[str] = set()  # the ids of the calls read from toolCalls
        self.shown: dict[tuple[str, ...], tuple[str, ...]] = {}  # a prompt's displayContent → its content
        self.spawned = Spawns()  # what the calls record of the agents they ran
        self.snapshot = False  # the message before was a compression summary (the CLI's reply follows it)

    def _ev(self, kind: Any, rec: Record, ptr: str, ts: str | None, ts_ptr: str | None, **fields: Any) -> Event:
        # a message inside another record (a `$set` checkpoint) is cited at its place there
        ev = Event(kind, fields.pop("actor", "agent"), ts, [Ref(rec.ev.id, rec.prefix + ptr)],
                   ts_ref=Ref(rec.ev.id, rec.prefix + ts_ptr) if ts and ts_ptr else None, **fields)
        ev.abandoned = self.abandoned
        self.s.events.append(ev)
        return ev

    def message(self, rec: Record) -> None:
        d, s = rec.data, self.s
        self._drift(d)
        mtype = _str(s, rec, d, "type")
        ts = _str(s, rec, d, "timestamp")
        after, self.snapshot = self.snapshot, False
        if rec.prefix.startswith(CHECKPOINT) and mtype in ("user", "gemini"):
            self._rebuilt(rec, mtype, ts)
        elif mtype == "user":
            self._user(rec, ts)
        elif mtype == "gemini" and after and _turns.is_snapshot_reply(d):
            for ptr, text in part_texts(d.get("content"), "/content"):
                self._ev("note", rec, ptr, ts, "/timestamp", actor="system", text=text,
                         info=NoteInfo(subtype="state_snapshot_reply"))
            s.mark(rec.ev.id, "set_aside", "the CLI's reply to a compression summary, in the model's place", "gemini")
        elif mtype == "gemini":
            self._gemini(rec, ts)
        elif mtype == "info" and d.get("content") == CANCELLED:
            # the CLI writes this notice when the person cancels the request (Esc, Ctrl-C)
            self._ev("interrupt", rec, "/content", ts, "/timestamp", actor="user", text=CANCELLED,
                     info=NoteInfo(subtype="request_cancelled", reason=CANCELLED))
            s.mark(rec.ev.id, "set_aside", "the user cancelled the request (an interrupt: the next request's "
                   "causal note, or the trace's termination)", "info")
        elif mtype == "error" and isinstance(d.get("content"), str) and d["content"].startswith(API_ERROR):
            # errorParsing.ts: the model call failed; the CLI shows (and records) its error
            self._ev("agent_text", rec, "/content", ts, "/timestamp", text=d["content"],
                     info=MessageInfo(api_error=True))
        elif mtype in NOTE_TYPES:
            for ptr, text in part_texts(d.get("content"), "/content"):
                self._ev("note", rec, ptr, ts, "/timestamp", actor="system", text=text,
                         info=NoteInfo(subtype=f"cli_{mtype}"))
            s.mark(rec.ev.id, "set_aside", f"a notice the CLI showed ({mtype}), a note", mtype)
        else:
            s.quality.unknown_records += 1
            s.warn("unknown-record", f"message type {mtype!r} is not one forsy knows; skipped", rec.ev.source,
                   rec.ev.line)

    def _rebuilt(self, rec: Record, mtype: str, ts: str | None) -> None:
        """A message only a checkpoint holds: a turn the CLI built into the history it rewrote
        (updateMessagesFromHistory's new turns: the compression summary sent as a user turn, its
        "Got it." reply and copies of the turns it kept, under new ids; the placeholder of a
        response cut off), never typed nor generated:
        a user turn's text is a compaction (what the model got from then on), a model turn's a
        note. `<session_context>` stays the CLI's note."""
        for ptr, text in part_texts(rec.data.get("content"), "/content"):
            tag = text.lstrip()
            kind = next((k for k in INJECTED if tag.startswith(f"<{k}>")), None)
            if kind is not None:
                self._ev("note", rec, ptr, ts, "/timestamp", actor="system", text=text, info=NoteInfo(subtype=kind))
            elif mtype == "user":
                self._ev("compaction", rec, ptr, ts, "/timestamp", actor="system", text=text,
                         info=NoteInfo(subtype="checkpoint_turn"))
                if rec.ev.id not in self.compacted:  # one compaction per checkpoint (the kept turns are copies)
                    self.compacted.add(rec.ev.id)
                    self.s.quality.compactions += 1
            else:
                self._ev("note", rec, ptr, ts, "/timestamp", actor="system", text=text,
                         info=NoteInfo(subtype="checkpoint_model_turn"))

    def _drift(self, d: dict[str, Any]) -> None:
        """Count the fields the writer's types (chatRecordingTypes.ts) do not name: a newer CLI's
        shapes show up as numbers (`quality.extra["unknown_fields"]`, named in `unknown_fields`)."""
        names = [k for k in d if k not in MESSAGE_FIELDS]
        calls = d.get("toolCalls")
        names += [f"toolCalls.{k}" for tc in (calls if isinstance(calls, list) else []) if isinstance(tc, dict)
                  for k in tc if k not in CALL_FIELDS]
        if names:
            q = self.s.quality.extra
            q["unknown_fields"] = q.get("unknown_fields", 0) + len(names)
            seen: dict[str, int] = self.s.meta.extra.setdefault("unknown_fields", {})
            for n in names:
                seen[n] = seen.get(n, 0) + 1

    def _user(self, rec: Record, ts: str | None) -> None:
        d, s = rec.data, self.s
        content = d.get("content")
        if isinstance(content, list) and any(isinstance(p, dict) and "functionResponse" in p for p in content):
            # Gemini records the tool responses it sends back as a message of type user: the
            # results are read from the calls' own records (toolCalls[*].result); text sent with
            # them is the tools' or the CLI's, never typed: a note
            texts = part_texts(content, "/content")
            for ptr, text in texts:
                self._ev("note", rec, ptr, ts, "/timestamp", actor="system", text=text,
                         info=NoteInfo(subtype="tool_response_text"))
            read = self._part_results(rec, content, ts)
            if (self.subagent and self._unrecorded_calls(rec, content, ts)) or read:
                return
            s.mark(rec.ev.id, "set_aside" if texts else "duplicate", "tool responses sent to the model (the calls' "
                   "results hold them)" + ("; the text with them is a note" if texts else ""), "user:functionResponse")
            return
        shown = d.get("displayContent")
        if self._resent(rec, content, shown, ts):
            return
        typed = (part_texts(shown, "/displayContent") if shown is not None else []) or part_texts(content, "/content")
        if not typed:
            if not isinstance(content, str | list):
                s.warn("field-type", "a user message has no text content; skipped", rec.ev.source, rec.ev.line)
            else:
                s.mark(rec.ev.id, "set_aside", "a user message with no text (an image or file)", "user")
            return
        for ptr, text in typed:
            tag = text.lstrip()
            kind = next((k for k in INJECTED if tag.startswith(f"<{k}>")), None)
            turn = next((k for start, k in CLI_TURNS if text.startswith(start)), None)
            if kind is not None:  # context the CLI or a hook put in the user's place
                self._ev("note", rec, ptr, ts, "/timestamp", actor="system", text=text, info=NoteInfo(subtype=kind))
                s.mark(rec.ev.id, "set_aside", f"<{kind}> injected by the CLI, not typed", "user")
            elif _turns.is_snapshot(text):  # chat compression's summary: what the model kept of the work before
                self._ev("compaction", rec, ptr, ts, "/timestamp", actor="system", text=text,
                         info=NoteInfo(subtype="state_snapshot"))
                s.quality.compactions += 1
                self.snapshot = True
            elif turn is not None:  # a turn the CLI wrote in the user's place
                shell = SHELL_TURN.match(text) if turn == "shell_mode_command" else None
                if shell is not None and shell["cmd"].strip():  # the person ran `!cmd` (R-user/bash-input)
                    self._ev("user", rec, ptr, ts, "/timestamp", actor="user", text="!" + shell["cmd"],
                             info=MessageInfo(rule="bash-input"))
                self._ev("note", rec, ptr, ts, "/timestamp", actor="system", text=text, info=NoteInfo(subtype=turn))
                s.mark(rec.ev.id, "set_aside", f"a user turn the CLI wrote ({turn}), not typed", "user")
            elif self.subagent:  # the task the parent agent gave: not a person's words
                self._ev("note", rec, ptr, ts, "/timestamp", actor="agent", text=text,
                         info=NoteInfo(subtype="subagent_input"))
                s.mark(rec.ev.id, "set_aside", "the task the parent agent gave this subagent", "user")
            else:
                self._ev("user", rec, ptr, ts, "/timestamp", actor="user", text=text)

    def _resent(self, rec: Record, content: Any, shown: Any, ts: str | None) -> bool:
        """A turn the CLI sent under the words the person typed before: client.ts sends loop
        recovery feedback ("System: Potential loop detected…"), "Please continue." and an
        AfterAgent hook's reason as new turns with the first turn's `displayContent`, which the
        chat records. Its content is the CLI's or the hook's words: a note, never a second prompt.
        (The person typing the same words again sends the same content.) True when it was one."""
        if shown is None:
            return False
        parts = part_texts(content, "/content")
        said = tuple(t for _, t in parts)
        key = tuple(t for _, t in part_texts(shown, "/displayContent"))
        if not key or not said:
            return False
        first = self.shown.setdefault(key, said)
        if first == said:
            return False
        for ptr, text in parts:
            self._ev("note", rec, ptr, ts, "/timestamp", actor="system", text=text,
                     info=NoteInfo(subtype="cli_resent"))
        self.s.mark(rec.ev.id, "set_aside", "a turn the CLI sent under an earlier prompt's words (loop recovery, "
                    "a continuation, a hook's reason), not typed", "user")
        return True

    def _part_results(self, rec: Record, content: list[Any], ts: str | None) -> bool:
        """The responses to calls made as content parts (no toolCalls record holds them): their
        results, read here. True when one was."""
        read = False
        for j, part in enumerate(content):
            fr = part.get("functionResponse") if isinstance(part, dict) else None
            name = fr.get("name") if isinstance(fr, dict) else None
            call_id = self.part_calls.pop(name, None) if isinstance(name, str) else None
            resp = fr.get("response") if isinstance(fr, dict) else None
            key = next((k for k in ("output", "error") if isinstance(resp, dict) and isinstance(resp.get(k), str)),
                       None)
            if call_id is None or key is None or not isinstance(resp, dict):
                continue
            self._ev("tool_result", rec, pointer("content", j, "functionResponse", "response", key), ts,
                     "/timestamp", call_id=call_id, tool=name, text=resp[key], is_error=key == "error",
                     info=ResultInfo())
            if (rid := response_id(part)) is not None:
                self.call_ids.add(rid)
            read = True
        return read

    def _unrecorded_calls(self, rec: Record, content: list[Any], ts: str | None) -> bool:
        """A subagent's responses to calls no toolCalls record holds: it records only the calls
        it scheduled (local-executor.ts), so one refused before it ran (a tool it may not use,
        arguments that do not parse) is only its error here (the main chat's scheduler records
        those calls too). Read as a call of that name (its
        arguments are not in the log) and its failed result. True when one was."""
        read = False
        for j, part in enumerate(content):
            fr = part.get("functionResponse") if isinstance(part, dict) else None
            call_id, name = response_id(part), fr.get("name") if isinstance(fr, dict) else None
            resp = fr.get("response") if isinstance(fr, dict) else None
            key = next((k for k in ("error", "output") if isinstance(resp, dict) and isinstance(resp.get(k), str)),
                       None)
            if call_id is None or call_id in self.call_ids or not isinstance(name, str) or key is None:
                continue
            assert isinstance(resp, dict)
            at = ("content", j, "functionResponse")
            self._ev("tool_call", rec, pointer(*at, "name"), ts, "/timestamp", call_id=call_id, tool=name,
                     name_ref=Ref(rec.ev.id, pointer(*at, "name")))
            self._ev("tool_result", rec, pointer(*at, "response", key), ts, "/timestamp", call_id=call_id, tool=name,
                     text=resp[key], is_error=key == "error", info=ResultInfo())
            self.call_ids.add(call_id)
            read = True
        return read

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
        for ptr, text in part_texts(content, "/content", thoughts=True):  # thought parts of a synthetic message
            made = part_at(content, ptr).get("thoughtSignature") == SYNTHETIC_SIGNATURE
            if made:  # the CLI's own words in the model's place
                self._ev("note", rec, ptr, ts, "/timestamp", actor="system", text=text,
                         info=NoteInfo(subtype="cli_synthetic_thought"))
            else:
                self._ev("reasoning", rec, ptr, ts, "/timestamp", text=text)
        for ptr, text in part_texts(content, "/content", thoughts=False):
            self._ev("agent_text", rec, ptr, ts, "/timestamp", text=text)
        calls = d.get("toolCalls")
        group = d.get("id") if isinstance(d.get("id"), str) else f"L{rec.ev.line}"
        for i, part in enumerate(content if isinstance(content, list) else []):
            fc = part.get("functionCall") if isinstance(part, dict) else None
            # the one call the client makes itself and records as a content part (useGeminiStream
            # addHistory); any other functionCall part is a turn copied from the history, not read
            if isinstance(fc, dict) and fc.get("name") in CLIENT_CALLS:
                name = str(fc["name"])
                call_id = fc["id"] if isinstance(fc.get("id"), str) else f"{rec.ev.id}:part{i}"
                self._ev("tool_call", rec, pointer("content", i, "functionCall", "args"), ts, "/timestamp",
                         call_id=call_id, tool=name, args=fc.get("args"), group=str(group),
                         name_ref=Ref(rec.ev.id, pointer("content", i, "functionCall", "name")))
                self.part_calls[name] = call_id
                self.call_ids.add(call_id)
            elif isinstance(fc, dict):
                s.mark(rec.ev.id, "set_aside", "a model turn holding its calls as content parts (a turn copied "
                       "from a history), the calls not read", "gemini:functionCall")
        asked = asked_at(ts, calls)
        for i, tc in enumerate(calls if isinstance(calls, list) else []):
            if isinstance(tc, dict):
                self._call(rec, i, tc, ts, str(group), asked)
            else:
                s.warn("field-type", f"toolCalls[{i}] is not an object; skipped", rec.ev.source, rec.ev.line)

    def _call(self, rec: Record, i: int, tc: dict[str, Any], ts: str | None, group: str,
              asked: tuple[str, str] | None = None) -> None:
        s = self.s
        base = ("toolCalls", i)
        call_id: str = tc["id"] if isinstance(tc.get("id"), str) else f"{rec.ev.id}:{i}"
        self.call_ids.add(call_id)
        name = tc.get("name") if isinstance(tc.get("name"), str) else None
        c_ts = tc.get("timestamp") if isinstance(tc.get("timestamp"), str) else None
        ts_ptr = pointer(*base, "timestamp") if c_ts else "/timestamp"
        # a call's own timestamp is when it completed (recordCompletedToolCalls); one of the first
        # calls to complete began when its message asked for it (`_asked`)
        began = asked is not None and c_ts == asked[1]
        args = tc.get("args")
        # edit.ts / write-file.ts createUpdatedParams: the person changed the proposal before accepting it
        edited = isinstance(args, dict) and args.get("modified_by_user") is True
        self._ev("tool_call", rec, pointer(*base, "args"), asked[0] if began and asked else c_ts or ts,
                 "/timestamp" if began else ts_ptr, call_id=call_id, tool=name, args=args, group=group,
                 name_ref=Ref(rec.ev.id, pointer(*base, "name")) if name else None,
                 info=CallInfo(user_edited=Ref(rec.ev.id, rec.prefix + pointer(*base, "args", "modified_by_user")))
                 if edited else None)
        self.spawned.note(tc, call_id)
        status = tc.get("status")
        result = tc.get("result")
        refs: list[Ref] = []
        texts: list[str] = []
        parts = result if isinstance(result, list) else []
        # a result synced from the history (updateMessagesFromHistory) holds the whole user turn: its
        # sibling calls' responses too, each naming its call; when one names this call, only it (and
        # the text parts after it: convertToFunctionResponse) is this call's
        named = any(response_id(p) == call_id for p in parts)
        mine = True
        for j, part in enumerate(parts):
            fr = part.get("functionResponse") if isinstance(part, dict) else None
            if isinstance(fr, dict) and named:
                mine = response_id(part) == call_id
            if not mine:
                continue
            resp = fr.get("response") if isinstance(fr, dict) else None
            if isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"].strip():
                # convertToFunctionResponse: the tool's other text parts follow its functionResponse
                refs.append(Ref(rec.ev.id, pointer(*base, "result", j, "text")))
                texts.append(part["text"])
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
        text = "\n".join(texts)
        failed, info = status != "success", ResultInfo()
        if status == "cancelled" and (DENIED in text or text.strip() == BATCH_CANCELLED):
            # the person answered No to the confirmation (of this call, or of one in its batch)
            info.rejected = True
            s.quality.extra["rejected_calls"] = s.quality.extra.get("rejected_calls", 0) + 1
        failed = shell_outcome(name, text, failed, info)
        failed = subagent_outcome(name, args, text, failed, info)
        self.s.events.append(Event("tool_result", "agent", c_ts or ts, refs, text=text, call_id=call_id, tool=name,
                                   is_error=failed, ts_ref=Ref(rec.ev.id, ts_ptr) if (c_ts or ts) else None,
                                   info=info))
