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
TABLES = ("sessions", "messages")
JSON_COLUMNS = ("content_json", "metadata_json")


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
    if table == "messages":
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
    for k in ("session_type", "provider_name", "schedule_id"):
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


def _messages(s: Session, file: SourceFile, rows: list[dict[str, Any]]) -> None:
    t = Transcript(s, DB_KEYS)
    recs = [_record(s, file, "messages", r, r["role"] if isinstance(r.get("role"), str) else None) for r in rows]
    t.plan(recs)
    for rec in recs:
        t.message(rec)
    for call_id, tool in t.calls.items():
        if call_id not in t.answered:
            s.quality.missing_results += 1
            s.warn("no-result", f"tool call {call_id} ({tool}) has no result in the database", file.path)
