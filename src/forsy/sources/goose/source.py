"""Goose sessions (the open-source agent by Block, block/goose) → `Session`s.

What the writer writes, read in block/goose (crates/goose/src: session/storage.rs @ 01a262b229,
message.rs @ 1f2f6b143c, conversation/message.rs and conversation/tool_result_serde.rs @
05132966065f, session/legacy.rs @ 0fc5e54062, session/session_manager.rs @ 0164300649;
crates/goose-mcp/src/developer/shell.rs @ 84650ca3af; agents' DECLINED_RESPONSE):

* where: the data folder of etcetera's app strategy + `sessions/` (`~/.local/share/goose/
  sessions`, `$XDG_DATA_HOME/goose/sessions`); until the SQLite store each session was
  `<id>.jsonl` (the id a `yyyymmdd_hhmmss` time or a name the person gave), rewritten whole
  at each save (`save_messages_with_metadata`); later versions keep `sessions.db` there and
  import the `.jsonl` files into it once, leaving them;
* the first line is `SessionMetadata`, snake_case fields (`working_dir`, `description`,
  `schedule_id`, `message_count`, `total_tokens`, `input_tokens`, `output_tokens`,
  `accumulated_total_tokens`, `accumulated_input_tokens`, `accumulated_output_tokens`; the
  first versions had no `working_dir`); a file whose first line is not that is all messages;
* every other line one `Message`, camelCase: `id` (null until later versions), `role` (user,
  assistant), `created` (epoch seconds), `content` (a list of parts tagged by `type`),
  `metadata` {`userVisible`, `agentVisible`} (from conversation/message.rs on);
* the parts: `text` {text, annotations}, `image` {data, mimeType}, `toolRequest` {id,
  toolCall, thoughtSignature}, `toolResponse` {id, toolResult}, `toolConfirmationRequest` {id,
  toolName, arguments, prompt}, `actionRequired` {data: {actionType: toolConfirmation |
  elicitation | elicitationResponse, ...}}, `frontendToolRequest` {id, toolCall}, `thinking`
  {thinking, signature}, `redactedThinking` {data}, `contextLengthExceeded` {msg},
  `summarizationRequested` {msg}, `conversationCompacted` {msg} (an older part, which later
  versions drop when they read a session), `systemNotification` {notificationType, msg};
* `toolCall` is `{status: "success", value: {name, arguments}}` or `{status: "error", error}`;
  `toolResult` the same with `value` the list of MCP contents (mcp_core era) or, since rmcp,
  a CallToolResult `{content, isError, structuredContent}` (the deserializer takes both);
  an error's text is the ErrorData's `"<code>: <message>"`;
* a tool is named `<extension>__<tool>` (`developer__shell`, `developer__text_editor`,
  `platform__read_resource`...). The mcp_core-era developer tools give each output twice, a
  content for the assistant and one for the user (`annotations.audience`); the text editor's
  view gives the model the file as an embedded resource (`{type: "resource", resource: {uri,
  mimeType, text}}`); that era's shell returns the output (stderr joined) whatever the exit
  status and never states it. The rmcp-era shell ends a failed command's one text with
  `Command exited with code N` and marks the result an error. A call the person declined is
  answered with DECLINED_RESPONSE, a success value.

What forsy takes: the metadata line is metadata (the directory, the description Goose's model
gave the session as its title, the accumulated tokens); each message one record. A user's
text is a `user` event, an assistant's `agent_text`, thinking `reasoning` (redacted thinking
counted as encrypted), unless the message is `userVisible: false`: Goose's own words to the
model, in either role (notes of the system). A compaction (`_compaction`, found before the
messages are read) is a `compaction` event, its summary's text (R-compaction, counted in
`quality.compactions`; a notice of it written before, counted there); the words telling the
model to go on a note; the user message right after them, when it holds the same words as the
last text-only user message before the summary (since the compaction before): Goose's copy, a
`duplicate` in the ledger (`quality.duplicate_records`), and the message it copies, if the
compaction hid it from both, the person's. Each tool request a `tool_call` (the id, the exact
name, the arguments; the calls of a message one group), each tool response its `tool_result` (the texts
the model was shown, texts and embedded resources' texts: an annotated content whose audience
leaves out the assistant is the user's copy and not read; several joined by a newline), failed on an error status or
`isError`, and rejected and failed when its text is DECLINED_RESPONSE (R-call/goose-declined);
a shell call's exit code is read only from the `Command exited with code N` line. Context
overflow, summarization requests, compaction notices, notifications and elicitations are
notes; confirmation prompts and images are counted. Times are `created` (epoch seconds)
written as ISO 8601 UTC (derived, R-time). An unknown part type is a counted `unknown-record`
warning; a line that is not JSON is named by file and line and skipped.

Later versions (session/session_manager.rs) keep every session in `sessions/sessions.db`, an
SQLite database in WAL mode whose `sessions` and `messages` tables hold the same facts and
parts: `_db` reads it, one input holding several sessions, each row a record (`_db.SCHEME`),
each message read by the same `_messages.Transcript`. It imported the `.jsonl` sessions beside
it once (ids unchanged) and left the files: `discover` leaves out a file whose session the
database holds, and a file named alone is read with a `migrated` warning.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from ...evidence import Quality, Session, SessionMeta, SourceFile
from .. import ReadContext
from .._records import Record, iter_jsonl
from ..lines import head_values, read_bytes, sha256, sniff_file, sniffed, source_name
from ..listing import matching
from . import _db
from ._messages import Transcript

KIND = "goose"
SESSIONS = ("goose", "sessions")  # under the data folder (etcetera's app strategy, app name "goose")
MESSAGE_KEYS = frozenset({"id", "role", "created", "content", "metadata"})
TOKENS = {"accumulated_input_tokens": "input", "accumulated_output_tokens": "output",
          "accumulated_total_tokens": "total"}


def is_metadata(d: Any) -> bool:
    """SessionMetadata: the two fields its deserializer requires, no field of a message."""
    return (isinstance(d, dict) and isinstance(d.get("description"), str)
            and isinstance(d.get("message_count"), int) and "role" not in d and "content" not in d)


def is_message(d: Any) -> bool:
    """A Goose Message: role, created (epoch seconds), a content list, and no other field."""
    return (isinstance(d, dict) and d.get("role") in ("user", "assistant") and isinstance(d.get("created"), int)
            and isinstance(d.get("content"), list) and set(d) <= MESSAGE_KEYS)


def _is_record(d: dict[str, Any]) -> bool:
    return is_metadata(d) or ("role" in d and "content" in d and "created" in d)


class GooseSource:
    name: ClassVar[str] = KIND
    default_roots: ClassVar[tuple[str, ...]] = (".local/share/goose/sessions",)
    schemes: ClassVar[tuple[str, ...]] = (_db.SCHEME,)
    # the store's name tells it from other SQLite files, so a folder's walk offers it
    log_names: ClassVar[re.Pattern[str]] = _db.NAME

    def read_back(self, name: str, roots: Sequence[Path]) -> bytes | None:
        return _db.read_back(name, roots)

    def env_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """XDG_DATA_HOME stands for `~/.local/share` when set and not blank (etcetera's Xdg)."""
        top = env.get("XDG_DATA_HOME", "").strip()
        return [Path(top).expanduser().joinpath(*SESSIONS)] if top else []

    def sniff(self, path: Path, head: bytes) -> bool:
        if head.startswith(_db.SQLITE_MAGIC):
            return bool(_db.NAME.match(path.name)) and _db.sniff_db(head)
        s = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if not s.startswith(b"{"):
            return False
        first = next(head_values(s, 5), None)
        if is_metadata(first):
            return True
        # a file with no metadata line: Goose names its session files `<id>.jsonl`
        return path.suffix == ".jsonl" and is_message(first)

    def discover(self, path: Path) -> list[Path]:
        """The session files of a sessions folder, of Goose's data folder or of a home folder
        (`.local/share/goose/sessions`), or a session file named."""
        if path.is_file():
            return [path] if sniff_file(path, self.sniff) else []
        if not path.is_dir():
            return []
        for folder in (path / ".local" / "share" / SESSIONS[0] / SESSIONS[1], path / SESSIONS[1], path):
            if folder.is_dir():
                found = self._in_folder(folder)
                if found:
                    return found
        return []

    def _in_folder(self, folder: Path) -> list[Path]:
        """The store, then the `.jsonl` sessions it does not hold (it imported them once)."""
        db = folder / "sessions.db"
        dbs = [db] if sniff_file(db, self.sniff) else []  # (one that may not be read is said: `lines`)
        held = _db.session_ids(db) if dbs else frozenset()
        return dbs + [p for p in sniffed(matching(folder, "*.jsonl"), self.sniff) if p.stem not in held]

    def session_of(self, path: Path) -> Path | None:
        """A `.jsonl` session the database beside it holds (Goose imported it once and left the
        file): the database, which reads it."""
        db = path.parent / "sessions.db"
        if path.suffix != ".jsonl" or not _db.is_db(db):
            return None
        return db if path.stem in _db.session_ids(db) else None

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        if _db.is_db(path):
            return _db.read_db(path, ctx)
        data = read_bytes(path, ctx.limits)
        name = source_name(path, ctx.root)
        file = SourceFile(name, str(path.resolve()), KIND, len(data), sha256(data))
        s = Session(KIND, path.stem, [file], {}, [], SessionMeta(agent="goose"), Quality())
        counters: dict[str, int] = {}
        recs = list(iter_jsonl(data, name, s.warnings, counters, _is_record))
        del data
        s.quality.records = counters.get("records", 0)
        s.quality.unparsable_records = counters.get("unparsable", 0)
        t = Transcript(s)
        t.plan(recs)
        for rec in recs:
            meta = rec.ev.line == 1 and is_metadata(rec.data)
            role = rec.data.get("role")
            # a record's type in the ledger: the metadata line, else the message's role
            rec.ev = replace(rec.ev, record_type="metadata" if meta else role if isinstance(role, str) else None)
            s.add_evidence(rec.ev)
            if meta:
                _metadata(s, rec)
            else:
                t.message(rec)
        for call_id, tool in t.calls.items():
            if call_id not in t.answered:
                s.quality.missing_results += 1
                s.warn("no-result", f"tool call {call_id} ({tool}) has no result in the log", name)
        db = path.parent / "sessions.db"
        if _db.is_db(db) and path.stem in _db.session_ids(db):  # named alone (discover leaves it out)
            s.warn("migrated", f"the database beside this file ({db.name}) holds this session too, imported by "
                   "Goose: this file is read as named, the database's copy (which Goose writes since) is not",
                   name, None)
        return [s]


def _metadata(s: Session, rec: Record) -> None:
    d, m = rec.data, s.meta
    if isinstance(d.get("working_dir"), str) and d["working_dir"].strip():
        m.cwd = d["working_dir"]
    if isinstance(d.get("description"), str) and d["description"].strip():
        m.extra["ai_title"] = d["description"]  # the model's few words for the session
    if isinstance(d.get("schedule_id"), str) and d["schedule_id"]:
        m.extra["schedule_id"] = d["schedule_id"]
    for k, dst in TOKENS.items():
        v = d.get(k)
        if isinstance(v, int) and not isinstance(v, bool):
            m.token_usage[dst] = v
    s.mark(rec.ev.id, "metadata", "session metadata")
