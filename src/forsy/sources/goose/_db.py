"""Goose's SQLite store (`sessions/sessions.db`, session/session_manager.rs): its rows as
records, its sessions read.

session_manager.rs keeps the sessions in two tables: `sessions` (`id`, `name`, `description`,
`user_set_name`, `session_type`, `working_dir`, `created_at`, `updated_at`, `extension_data`,
the token columns, `schedule_id`, `recipe_json`, `user_recipe_values_json`; later
`provider_name`, `model_config_json`, `tenant_id`, `user_id`) and `messages` (`id` an integer
key, `message_id` later, `session_id`, `role`, `content_json` the message's parts as
serde_json writes them, `created_timestamp` epoch seconds, `timestamp`, `tokens`,
`metadata_json` {userVisible, agentVisible}). Goose reads a session's messages back by
`timestamp` (CURRENT_TIMESTAMP, whole seconds); forsy in `id` order, the order they were
inserted, which messages of the same second keep. The first time it
makes the database it imports the `.jsonl` sessions beside it (session/legacy.rs), ids
unchanged, and leaves the files.

Schema v10 (session/migrations.rs) adds `threads` (`id`, `name`, `user_set_name`,
`working_dir`, `archived_at`, `metadata_json`), `thread_messages` (`thread_id`, `session_id`
(may be NULL), `message_id`, `role`, `content_json`, `created_timestamp`, `metadata_json`) and
`sessions.thread_id`. The ACP server (goose acp/server.rs) keeps there the conversation as the
person sees it (a thread is what an ACP client calls a session; the `sessions` rows with its
`thread_id` are the agent's working contexts, several over its life): `ThreadManager::
append_message` (session/thread_manager.rs) writes the person's prompt and every message the
agent's reply streams, with the working session's id, the text of a text-only message added to
the row before it; the agent writes its own copy to `messages`. `fork_thread` copies a thread's
rows, `session_id` kept. So a thread row whose session is read is a copy of what that session's
messages hold: not read, counted (`thread_copies`) and said on that session. A thread none of
whose rows names a session read (NULL, or a session with no messages) is a conversation
`messages` does not hold: read as a session of its own (its id the thread's, the `threads` row
its facts: `working_dir`, `name`, the model named in `metadata_json`). A thread that has rows of
both kinds: the rows naming no session read are not read, counted (`thread_rows_unread`) and
said, since the code does not say what such a row is.

Each row read is one record, named `SCHEME` + the database's path (as evidence names files) +
`#<table>/<id>`; its bytes are the canonical JSON (`forsy.ids.canonical`) of the row as
`SELECT *` returns it, its `content_json` and `metadata_json` columns as the JSON values they
hold (so a pointer reaches each part); each is listed among the session's sources under that
name, as a JSON storage's files are. `read_back` makes the same bytes from the database at that
path under a root given to `forsy verify`, or below one (the folder `forsy retrace` was given).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from ...errors import InputError
from ...evidence import Evidence, Quality, Session, SessionMeta, SourceFile
from ...ids import canonical
from .. import ReadContext
from .._records import Record
from .._side import unreadable
from .._sqlite import WAL_MISSING, ids_while_unchanged, read_only_query, row_back, without_wal
from ..lines import sha256, source_name
from ._messages import DB_KEYS, Transcript

SCHEME = "goose-db:"
NAME = re.compile(r"^sessions\.db$")
SQLITE_MAGIC = b"SQLite format 3\x00"
TABLES = ("sessions", "messages", "threads", "thread_messages")
JSON_COLUMNS = ("content_json", "metadata_json")
MESSAGE_TABLES = ("messages", "thread_messages")  # their JSON columns hold a message's parts


def is_db(path: Path) -> bool:
    """A file named as session_manager.rs names the store, an SQLite file with a messages table
    of Goose's (its `content_json` column named in the schema)."""
    if not NAME.match(path.name) or not path.is_file():
        return False
    try:
        with path.open("rb") as f:
            head = f.read(65536)
    except OSError:
        return False
    return sniff_db(head)


def sniff_db(head: bytes) -> bool:
    return head.startswith(SQLITE_MAGIC) and b"content_json" in head and b"created_timestamp" in head


def query(db: Path, sql: str, args: tuple[str, ...] = (), unread_wal: list[OSError] | None = None) \
        -> list[dict[str, Any]]:
    """The rows of a read-only query, nothing written beside the database (Goose keeps it in WAL mode)."""
    return read_only_query(db, sql, args, what="goose", unread_wal=unread_wal)


def session_ids(db: Path) -> frozenset[str]:
    """The ids of the database's sessions (none when it cannot be read), read once while the
    database and its log are unchanged: a folder's walk asks it of every file beside it."""
    return ids_while_unchanged(db, "sessions", what="goose")


def _text(v: Any) -> Any:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def row_value(table: str, row: dict[str, Any]) -> dict[str, Any]:
    """The row as a record holds it: each column as stored, a message's JSON columns parsed
    (a column that does not parse is kept as its text)."""
    out = {k: _text(v) for k, v in row.items()}
    if table in MESSAGE_TABLES:
        for k in JSON_COLUMNS:
            if isinstance(out.get(k), str):
                try:
                    out[k] = orjson.loads(out[k])
                except orjson.JSONDecodeError:
                    pass
    return out


def read_back(name: str, roots: Sequence[Path]) -> bytes | None:
    """The row `name` names, from the database at that path under one of `roots`."""
    found = row_back(name, SCHEME, TABLES, roots, is_db, what="goose")
    return canonical(row_value(*found)) if found is not None else None


def read_db(db: Path, ctx: ReadContext) -> list[Session]:
    """Every session of the database that has messages, in id order (one Goose made and never
    wrote to has no work)."""
    src = source_name(db, ctx.root)
    wal: list[OSError] = []  # its write-ahead log, when it may not be read: said on each session
    try:
        sessions = query(db, "SELECT * FROM sessions ORDER BY id", unread_wal=wal)
        messages = query(db, "SELECT * FROM messages ORDER BY id", unread_wal=wal)
        names = {r["name"] for r in query(db, "SELECT name FROM sqlite_master WHERE type = 'table'", unread_wal=wal)}
        # schema v10 on; an older database has no thread tables
        trows = query(db, "SELECT * FROM thread_messages ORDER BY id", unread_wal=wal) \
            if "thread_messages" in names else []
        threads = query(db, "SELECT * FROM threads ORDER BY id", unread_wal=wal) \
            if trows and "threads" in names else []
        data = db.read_bytes()
    except sqlite3.Error as e:  # the main file alone, its log not read, may hold no table yet
        raise InputError(f"cannot read Goose's database ({e}){without_wal(wal)}", path=db) from None
    except OSError as e:
        raise InputError(f"cannot read Goose's database ({e.strerror or e})", path=db) from None
    file = SourceFile(src, str(db.resolve()), "goose", len(data), sha256(data))
    del data
    by_session: dict[str, list[dict[str, Any]]] = {}
    for m in messages:
        by_session.setdefault(str(m.get("session_id")), []).append(m)
    out = []
    for row in sessions:
        rows = by_session.pop(str(row.get("id")), [])
        if rows:
            out.append(_session(file, row, rows))
    for sid, rows in by_session.items():
        s = Session("goose", sid, [file], {}, [], SessionMeta(agent="goose"), Quality())
        s.warn("no-session", f"{len(rows)} message row(s) of session {sid}, which has no row in the sessions "
               "table: read with no session facts", f"{SCHEME}{src}#sessions/{sid}", None)
        _messages(s, file, rows)
        out.append(s)
    out.extend(_threads(out, file, threads, trows))
    for s in out if wal else []:
        unreadable(s, src, f"{src}-wal", wal[0], WAL_MISSING)
    return out


def _record(s: Session, file: SourceFile, table: str, row: dict[str, Any], rtype: str | None) -> Record:
    """A row as one record of `s`, listed among its sources under its own name (as a JSON
    storage's files are), so provenance names every source its evidence comes from."""
    value = row_value(table, row)
    data = canonical(value)
    name = f"{SCHEME}{file.path}#{table}/{row.get('id')}"
    ev = Evidence.make(name, None, 0, data, sha256(data), rtype)
    s.add_evidence(ev)
    s.files.append(SourceFile(name, file.abs_path, "goose", len(data), ev.sha256))
    s.quality.records += 1
    return Record(ev, value)


def _session(file: SourceFile, row: dict[str, Any], rows: list[dict[str, Any]]) -> Session:
    sid = str(row.get("id"))
    s = Session("goose", sid, [file], {}, [], SessionMeta(agent="goose"), Quality())
    rec = _record(s, file, "sessions", row, "session")
    d, m = rec.data, s.meta
    if isinstance(d.get("working_dir"), str) and d["working_dir"].strip():
        m.cwd = d["working_dir"]
    title = d.get("name") if isinstance(d.get("name"), str) and d["name"].strip() else d.get("description")
    if isinstance(title, str) and title.strip():
        m.extra["title" if d.get("user_set_name") in (1, True) else "ai_title"] = title
    for k in ("session_type", "provider_name", "schedule_id", "thread_id"):
        if isinstance(d.get(k), str) and d[k]:
            m.extra[k] = d[k]
    try:
        model = orjson.loads(d["model_config_json"]) if isinstance(d.get("model_config_json"), str) else None
    except orjson.JSONDecodeError:
        model = None
    if isinstance(model, dict) and isinstance(model.get("model_name"), str) and model["model_name"]:
        m.models.append(model["model_name"])
    for k, dst in (("accumulated_input_tokens", "input"), ("accumulated_output_tokens", "output"),
                   ("accumulated_total_tokens", "total")):
        if isinstance(d.get(k), int) and not isinstance(d.get(k), bool):
            m.token_usage[dst] = d[k]
    s.mark(rec.ev.id, "metadata", "the session's row")
    _messages(s, file, rows)
    return s


def _messages(s: Session, file: SourceFile, rows: list[dict[str, Any]], table: str = "messages") -> None:
    t = Transcript(s, DB_KEYS)
    recs = [_record(s, file, table, r, r["role"] if isinstance(r.get("role"), str) else None) for r in rows]
    t.plan(recs)
    for rec in recs:
        t.message(rec)
    for call_id, tool in t.calls.items():
        if call_id not in t.answered:
            s.quality.missing_results += 1
            s.warn("no-result", f"tool call {call_id} ({tool}) has no result in the database", file.path)


def _threads(read: list[Session], file: SourceFile, threads: list[dict[str, Any]],
             rows: list[dict[str, Any]]) -> list[Session]:
    """The thread rows: a copy of a session read is counted on it; a thread whose rows no
    session read holds is read as a session of its own (the module's docstring says why)."""
    by_id = {s.session_id: s for s in read}
    facts = {str(t.get("id")): t for t in threads}
    by_thread: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_thread.setdefault(str(r.get("thread_id")), []).append(r)
    out = []
    for tid, trows in by_thread.items():
        held = [r for r in trows if isinstance(r.get("session_id"), str) and r["session_id"] in by_id]
        if not held:
            out.append(_thread_session(file, tid, facts.get(tid), trows))
            continue
        copies: dict[str, int] = {}
        for r in held:
            copies[r["session_id"]] = copies.get(r["session_id"], 0) + 1
        for sid, n in copies.items():
            s = by_id[sid]
            s.quality.extra["thread_copies"] = s.quality.extra.get("thread_copies", 0) + n
            s.warn("thread-copy", f"{n} row(s) of thread {tid} in the thread_messages table are the thread's copy "
                   "of this session's messages (as the person saw them): not read, the messages table is",
                   f"{SCHEME}{file.path}#threads/{tid}", None)
        left = len(trows) - len(held)
        if left:
            s = by_id[held[0]["session_id"]]
            s.quality.extra["thread_rows_unread"] = s.quality.extra.get("thread_rows_unread", 0) + left
            s.warn("thread-rows-unread", f"{left} row(s) of thread {tid} in the thread_messages table name no "
                   "session whose messages the database holds; not read", f"{SCHEME}{file.path}#threads/{tid}", None)
    return out


def _thread_session(file: SourceFile, tid: str, row: dict[str, Any] | None, rows: list[dict[str, Any]]) -> Session:
    s = Session("goose", tid, [file], {}, [], SessionMeta(agent="goose"), Quality())
    s.meta.extra["thread_id"] = tid
    where = f"{SCHEME}{file.path}#threads/{tid}"
    s.warn("thread-only", f"thread {tid}: its {len(rows)} row(s) in the thread_messages table are a conversation "
           "no session's messages hold; read as a session of its own", where, None)
    if row is None:
        s.warn("no-thread", f"thread {tid} has no row in the threads table: read with no thread facts", where, None)
    else:
        rec = _record(s, file, "threads", row, "thread")
        s.mark(rec.ev.id, "metadata", "the thread's row")
        d = rec.data
        if isinstance(d.get("working_dir"), str) and d["working_dir"].strip():
            s.meta.cwd = d["working_dir"]
        # the name the person gave the thread is its title; the writer's own ("New Chat", "Fork
        # of …") is kept as written
        if isinstance(d.get("name"), str) and d["name"].strip():
            s.meta.extra["title" if d.get("user_set_name") in (1, True) else "thread_name"] = d["name"]
        if isinstance(d.get("archived_at"), str) and d["archived_at"]:
            s.meta.extra["archived_at"] = d["archived_at"]
        try:
            meta = orjson.loads(d["metadata_json"]) if isinstance(d.get("metadata_json"), str) else None
        except orjson.JSONDecodeError:
            meta = None
        if isinstance(meta, dict) and isinstance(meta.get("model_name"), str) and meta["model_name"]:
            s.meta.models.append(meta["model_name"])
    _messages(s, file, rows, "thread_messages")
    return s
