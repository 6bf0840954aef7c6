"""OpenCode sessions (the terminal coding agent, anomalyco/opencode, formerly sst/opencode), as
its JSON storage keeps them, → `Session`s.

What the writer writes (packages/opencode/src in anomalyco/opencode, the files as the code
index holds them: storage/storage.ts @ 17db7910ca, session/index.ts @ 0002b1fa7d,
session/message-v2.ts @ 007a9409ba, session/processor.ts @ 002d982286, session/revert.ts
@ 089ee8d0e6, session/compaction.ts @ 001aa6cc6a, tool/task.ts @ 005201e9a2, global/index.ts
@ 0259f2c139, storage/json-migration.ts @ 062aa8c024, session/session.sql.ts @ 063e8306d9):

* where: `Global.Path.data` is xdg-basedir's data folder + `opencode` (`$XDG_DATA_HOME/opencode`,
  else `~/.local/share/opencode`, on every platform); `Storage` keeps one JSON file per item
  under its `storage/` folder, `JSON.stringify(value, null, 2)` (no final newline), rewritten
  whole at each change: `session/<project id>/<session id>.json` (Session.Info: `id`,
  `version`, `projectID`, `directory`, `parentID` for a subagent's session, `title`, `time`
  {created, updated}, `summary`, `share`, `revert`, `permission`), `message/<session
  id>/<message id>.json`, `part/<message id>/<part id>.json` (`_layout`). Ids are the
  writer's (`ses_`, `msg_`, `prt_` + time-ordered hex + random): messages and parts sort in
  the order made; a project's id is its repository's first commit, or `global`;
* a message (message-v2.ts `Info`): `role` user (`time.created`, `agent`, `model`, `system`,
  `tools`, `summary`) or assistant (`time` {created, completed}, `modelID`, `providerID`,
  `mode`/`agent`, `path` {cwd, root}, `cost`, `tokens` {input, output, reasoning, cache {read,
  write}} of its last model call, `finish`, `summary: true` for a compaction's summary, and
  `error`, a NamedError `{name, data: {message}}`: MessageAbortedError when the person
  stopped the turn, APIError, ProviderAuthError, UnknownError, MessageOutputLengthError, ...);
  the first versions kept the system prompt on it (`system`, a list);
* a part (message-v2.ts `Part`, by `type`): text (`text`, `synthetic` for OpenCode's own words,
  `ignored`, `time`), reasoning (`text`, `metadata`, `time`), tool (`callID`, `tool`, `state`:
  `_tools`), file (an attachment), agent (@agent), subtask (a command run as a subagent),
  step-start / step-finish (one model call: `tokens`, `cost`, `reason`), snapshot and patch
  (git tree hashes of the files a step changed), compaction (a compaction asked for), retry
  (an API error retried: `attempt`, `error`, `time.created`);
* compaction (compaction.ts): a user message holding a compaction part, then an assistant
  message with `summary: true` whose text is the summary, then (automatic) a synthetic user
  text telling the model to continue;
* a subagent (tool/task.ts): a session of its own: `_subagents`;
* the person's `!command` (session/prompt.ts `shell`): a user message whose one text is the
  synthetic "The following tool was executed by the user", then an assistant message (no
  model) running it with a bash tool part;
* undo (session/revert.ts): `revert` {messageID, partID, snapshot, diff} on the session; the
  messages from `messageID` on are hidden, and deleted (files removed) when the next prompt
  is sent (`cleanup`); undoing the undo clears `revert`. What was deleted is not in the log.

What forsy takes: a session file is one session, read with its messages and parts (each file
one record, cited by the evidence name `_layout.SCHEME` + its place in the storage folder) and
its subagents' sessions. A user's text is a `user` event (in a subagent's session the task
its parent gave: a `subagent_input` note); a synthetic one a note; an assistant's text
`agent_text` (a summary's: a `compaction`), reasoning `reasoning`, a tool part a `tool_call`
with its exact `tool`, `callID` and `state.input`, and its `state.output` or `state.error` the
`tool_result` (failed on error, or on a bash exit status other than 0; rejected when the
person refused it; a stopped call's output so far, `state.metadata.output`, before its
error); a message's error an `interrupt` (the person's stop) or an API error.
Times are the epoch milliseconds the records hold, written as ISO 8601 UTC (derived, R-time):
a part's own (`time.start`, a call's `state.time.start` and `.end`), else its message's. The
messages from a revert point on are abandoned (R-abandoned). Models, agents, providers,
tokens (each model call's, from step-finish parts), cost, the title the title agent gave and
the directory are session facts. Every record no step cites is marked (`_rules`).

Since 1.2 (storage/db.ts @ 032cb74b09) the sessions are in an SQLite database in the data
folder (`opencode.db`, `opencode-<channel>.db`), whose `session`, `message` and `part` tables
hold the same objects: `_db` reads it, one input holding several sessions, each row a record
(`_db.SCHEME`), each message and part read by the same `_build.Builder`. A session the JSON
storage beside it holds too (storage/json-migration.ts copied it once and left the files) is
read from the database only: `discover` leaves the JSON copy out and `session_of` gives it to
the database.

Not read: the layout before storage.ts's first migration (`project/<dir>/storage/session/
{info,message,part}/`, copied into `storage/` by that migration and left beside it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from ...errors import InputError
from ...evidence import Session
from .. import ReadContext
from ..lines import open_regular, sniff_file, source_name
from ..listing import unlisted
from . import _db, _layout
from ._dbread import read_db
from ._session import read_thread
from ._subagents import read_subagents

# a session's info as the writer writes it: `{\n  "id": "ses_…",` (createNext's first key)
_SESSION_HEAD = re.compile(rb'\{\s*"id"\s*:\s*"ses_')


class OpenCodeSource:
    name: ClassVar[str] = "opencode"
    # the storage folder under the home folder (xdg-basedir's data folder: `env_roots`); not the
    # data folder, which holds a git object store per project (`snapshot/`) and the credentials
    # and the database beside it, named alone (a sweep lists a root's files, and the data folder
    # holds the credentials and a git object store per project)
    default_roots: ClassVar[tuple[str, ...]] = (".local/share/opencode/storage", ".local/share/opencode/opencode.db")
    schemes: ClassVar[tuple[str, ...]] = (_layout.SCHEME, _db.SCHEME)
    # OpenCode 1.2's database (storage/db.ts: `opencode.db`, `opencode-<channel>.db`): its name
    # tells it from other SQLite files, so a folder's walk offers it
    log_names: ClassVar[re.Pattern[str]] = _db.NAME

    def env_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """XDG_DATA_HOME stands for `~/.local/share` when set and not blank (xdg-basedir)."""
        top = env.get("XDG_DATA_HOME", "").strip()
        data = Path(top).expanduser() / "opencode"
        return [data / "storage", data / "opencode.db"] if top else []

    def read_back(self, name: str, roots: Sequence[Path]) -> bytes | None:
        return _db.read_back(name, roots) if name.startswith(_db.SCHEME) else _layout.read_back(name, roots)

    def sniff(self, path: Path, head: bytes) -> bool:
        if head.startswith(_db.SQLITE_MAGIC):
            return bool(_db.NAME.match(path.name))
        h = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
        if not _SESSION_HEAD.match(h):
            return False
        # and a field of a session's info besides (a file cut short keeps its first ones)
        return any(k in h[:4096] for k in (b'"projectID"', b'"version"', b'"directory"'))

    def discover(self, path: Path) -> list[Path]:
        """The databases of a data folder (or of the home folder holding it, or beside a storage
        folder given), each read whole (`read`: its sessions), then the main sessions' info files
        of a storage folder (or the data or home folder holding it, or its `session/` folder) or
        of one project's folder that no database beside it holds (json-migration.ts copied them
        into it); a subagent's session is read with the one that ran it. Every file of those
        folders is offered, recognised or not (an empty or broken one is read, and says what is
        wrong with it)."""
        if path.is_file():
            return [path] if sniff_file(path, self.sniff) else []
        if not path.is_dir():
            return []
        storage = _layout.storage_at(path)
        if storage is None and path.parent.name == "session" and _layout.is_storage(path.parent.parent):
            storage = path.parent.parent
        # given any folder of the storage, the database beside it: it holds the sessions whose
        # JSON copies are left out here, and what OpenCode wrote since
        dbs = _db.dbs_at(storage.parent if storage is not None else path)
        return dbs + [f for f in self._json_sessions(path) if self.session_of(f) is None]

    def _json_sessions(self, path: Path) -> list[Path]:
        storage = _layout.storage_at(path)
        if storage is not None:
            try:
                folders = sorted(p for p in (storage / "session").iterdir() if p.is_dir() and _listed(p))
            except OSError as e:
                unlisted(e)  # said with what the walk found (`listing`)
                return []
        elif path.parent.name == "session" and _layout.is_storage(path.parent.parent):
            folders = [path]
        else:
            return []
        return [folder / f"{sid}.json" for folder in folders for sid in _layout.parents(folder)
                if _layout.top_of(folder, sid) == sid]

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        if _db.is_db(path):
            return read_db(path, ctx)
        storage = _layout.storage_of(path)
        top = read_thread(path, ctx, storage, "agent", None)
        db = _db.migrated(storage, path.stem) if storage is not None else None
        if db is not None:  # named alone (discover leaves it out): said, and read as asked
            top.session.warn("migrated", f"the database beside this storage ({db.name}) holds this session too, "
                             "copied by json-migration.ts: this JSON copy is read as named, the database's "
                             "(which OpenCode writes since) is not", source_name(path, ctx.root), None)
        if storage is not None:
            folder = path.parent
            read_subagents(top, lambda sid: [(f.stem, source_name(f, ctx.root)) for f in _layout.children(folder, sid)],
                           lambda cid, up: read_thread(folder / f"{cid}.json", ctx, storage, f"subagent:{cid}", up),
                           lambda cid: _unread(folder / f"{cid}.json", ctx))
        return [top.session]

    def session_of(self, path: Path) -> Path | None:
        """A message's or part's file, a subagent's session, a session's or project's state:
        the main session they belong to (`_layout.session_of`); the database beside the storage
        when it holds that session (a JSON copy json-migration.ts left: read from the database)."""
        owner = _layout.session_of(path)
        top = owner or (path if path.suffix == ".json" and _layout.storage_of(path) is not None else None)
        storage = _layout.storage_of(top) if top is not None else None
        db = _db.migrated(storage, top.stem) if storage is not None and top is not None else None
        return db or owner


def _listed(folder: Path) -> bool:
    """Whether a project's folder of sessions may be listed; one that may not is said (`listing`)
    where reading it as empty would leave its sessions out unsaid."""
    try:
        os.listdir(folder)
    except OSError as e:
        unlisted(e)
        return False
    return True


def _unread(path: Path, ctx: ReadContext) -> str | None:
    """The name of a subagent's session file a task call names that may not be read (so its
    parent is not known: it is among no session's children), else None."""
    try:
        with open_regular(path):
            return None
    except InputError:  # a file that is there: reading it as the call's subagent says why it cannot be
        return source_name(path, ctx.root) if os.path.lexists(path) else None
