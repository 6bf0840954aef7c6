"""The Goose reader on a database with threads (schema v10 on).

The database follows the writer: session/session_manager.rs's tables, session/migrations.rs
v10 (block/goose 865e4a030a: `threads`, `thread_messages`, `sessions.thread_id`), and
session/thread_manager.rs (aaif-goose/goose 28495de950): `append_message` inserts a row with
the working session's id (the ACP server passes it for the person's prompt and each message the
agent's reply streams, while the agent writes its own copy to `messages`), adds a text-only
message's text to the row before it when that row is text-only with the same role and metadata,
and `fork_thread` copies a thread's rows (`session_id` kept, new `tmsg_` ids). Every
expectation is worked out by hand from the rows written; each trace made is validated and
verified against the database.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from forsy.run import RetraceOptions, retrace
from forsy.sources import ReadContext
from forsy.sources.goose import GooseSource
from forsy.validation import validate_path
from forsy.verification import verify_folder

SRC = GooseSource()
SID = "20260810_1"
CWD = "/home/dev/kettle"
# session_manager.rs create_schema, with what migrations v10 adds
SCHEMA = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
  user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
  accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
  schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
  tenant_id TEXT, user_id TEXT, thread_id TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT,
  session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content_json TEXT NOT NULL,
  created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER,
  metadata_json TEXT);
CREATE TABLE threads (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT 'New Chat',
  user_set_name BOOLEAN DEFAULT FALSE, working_dir TEXT, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, archived_at TIMESTAMP, metadata_json TEXT DEFAULT '{}');
CREATE TABLE thread_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL REFERENCES threads(id),
  session_id TEXT, message_id TEXT, role TEXT NOT NULL, content_json TEXT NOT NULL,
  created_timestamp INTEGER NOT NULL, metadata_json TEXT DEFAULT '{}');
"""
VIS = json.dumps({"userVisible": True, "agentVisible": True}, separators=(",", ":"))  # serde_json's compact form


def _j(v: Any) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def _text(s: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": s}]


CALL = [{"type": "toolRequest", "id": "t1",
         "toolCall": {"status": "success", "value": {"name": "developer__shell", "arguments": {"command": "make"}}}}]
RESULT = [{"type": "toolResponse", "id": "t1",
           "toolResult": {"status": "success", "value": {"content": [{"type": "text", "text": "ok"}],
                                                         "isError": False}}}]
# the session's conversation: (role, content, created)
TALK = [("user", _text("Build it."), 1786356000), ("assistant", CALL, 1786356002), ("user", RESULT, 1786356004),
        ("assistant", _text("Built."), 1786356005)]


def _db(folder: Path, threads: list[tuple[Any, ...]], rows: list[tuple[Any, ...]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "sessions.db"
    con = sqlite3.connect(db)
    con.executescript(SCHEMA)
    con.executemany("INSERT INTO schema_version (version) VALUES (?)", [(v,) for v in range(1, 14)])
    con.execute("INSERT INTO sessions (id, name, working_dir, thread_id) VALUES (?, ?, ?, ?)",
                (SID, "Kettle build", CWD, "th_1"))
    for i, (role, content, t) in enumerate(TALK):
        con.execute("INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, "
                    "metadata_json) VALUES (?, ?, ?, ?, ?, ?)", (f"m{i}", SID, role, _j(content), t, VIS))
    con.executemany("INSERT INTO threads (id, name, user_set_name, working_dir, metadata_json) VALUES (?, ?, ?, ?, ?)",
                    threads)
    con.executemany("INSERT INTO thread_messages (thread_id, session_id, message_id, role, content_json, "
                    "created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    return db


def _mirror(tid: str, prefix: str = "m") -> list[tuple[Any, ...]]:
    """The thread's copy of the session's conversation, as append_message wrote it."""
    return [(tid, SID, f"{prefix}{i}", role, _j(content), t, VIS) for i, (role, content, t) in enumerate(TALK)]


THREADS = [("th_1", "Kettle build", 0, CWD, "{}"),
           ("th_2", "Caching", 1, "/home/dev/cache", _j({"model_name": "gpt-5", "mode": "auto"})),
           ("th_3", "Fork of Kettle build", 0, CWD, "{}"),
           ("th_4", "New Chat", 0, CWD, "{}")]
# th_2: a conversation only the thread holds (no session's id on its rows); the agent's answer
# streamed in pieces, one row (append_message added each piece to it)
ONLY = [("th_2", None, "tm_1", "user", _j(_text("why is caching slow?")), 1786357000, VIS),
        ("th_2", None, "tm_2", "assistant", _j(_text("The cache key includes the time.")), 1786357002, VIS)]


def _retrace(db: Path, out: Path) -> list[dict[str, Any]]:
    retrace([db], RetraceOptions(out=out, redact=False))
    traces = []
    for t in sorted(out.rglob("trace.json")):
        assert validate_path(t.parent).ok, validate_path(t.parent).errors
        rep = verify_folder(t.parent, [db.parent])
        assert rep.ok, rep
        traces.append(json.loads(t.read_text("utf-8")))
    return traces


def test_a_thread_no_session_holds_is_read_and_copies_are_counted(tmp_path: Path) -> None:
    rows = [*_mirror("th_1"), *ONLY, *_mirror("th_3", "tmsg_")]  # th_3: fork_thread's copy of th_1
    db = _db(tmp_path / "sessions", THREADS, rows)
    found = SRC.read(db, ReadContext(root=db.parent))
    assert [s.session_id for s in found] == [SID, "th_2"]
    s, t = found
    # the session: read from its messages as before; the thread rows copying it counted and said
    assert [(e.kind, e.text) for e in s.events] == [("user", "Build it."), ("tool_call", None),
                                                    ("tool_result", "ok"), ("agent_text", "Built.")]
    assert s.meta.extra["thread_id"] == "th_1"
    assert s.quality.extra == {"thread_copies": 8}
    assert [(w.code, w.message, w.file) for w in s.warnings] == [
        ("thread-copy", f"4 row(s) of thread {tid} in the thread_messages table are the thread's copy of this "
                        "session's messages (as the person saw them): not read, the messages table is",
         f"goose-db:sessions.db#threads/{tid}") for tid in ("th_1", "th_3")]
    # the thread only the thread table holds: a session of its own, its facts from its row
    def where(ev: str) -> str:
        return t.evidence[ev].source.rsplit("#", 1)[-1]
    assert [(e.kind, e.actor, e.text, e.ts, [(where(r.ev), r.pointer) for r in e.refs]) for e in t.events] == [
        ("user", "user", "why is caching slow?", "2026-08-10T10:16:40Z",
         [("thread_messages/5", "/content_json/0/text")]),
        ("agent_text", "agent", "The cache key includes the time.", "2026-08-10T10:16:42Z",
         [("thread_messages/6", "/content_json/0/text")])]
    assert (t.meta.cwd, t.meta.models, t.meta.extra) == ("/home/dev/cache", ["gpt-5"],
                                                         {"thread_id": "th_2", "title": "Caching"})
    assert [w.code for w in t.warnings] == ["thread-only"] and t.quality.records == 3
    (book,) = [v for k, v in t.ledger.items() if where(k) == "threads/th_2"]
    assert (book.heading, book.name) == ("metadata", "the thread's row")
    traces = _retrace(db, tmp_path / "out")
    assert sorted(x["task"] for x in traces) == ["Build it.", "why is caching slow?"]


def test_thread_rows_of_a_thread_that_also_copies_a_session_are_counted_not_read(tmp_path: Path) -> None:
    # th_4 has a row copying the session and one naming no session: what that one is, the
    # writer's code does not say
    rows = [("th_4", SID, "m0", "user", _j(_text("Build it.")), 1786356000, VIS),
            ("th_4", None, "tm_9", "user", _j(_text("and the docs?")), 1786356100, VIS)]
    db = _db(tmp_path / "sessions", THREADS, rows)
    (s,) = SRC.read(db, ReadContext(root=db.parent))
    assert s.quality.extra == {"thread_copies": 1, "thread_rows_unread": 1}
    assert [(w.code, w.message) for w in s.warnings] == [
        ("thread-copy", "1 row(s) of thread th_4 in the thread_messages table are the thread's copy of this "
                        "session's messages (as the person saw them): not read, the messages table is"),
        ("thread-rows-unread", "1 row(s) of thread th_4 in the thread_messages table name no session whose messages "
                               "the database holds; not read")]
    assert "and the docs?" not in [e.text for e in s.events]
    (trace,) = _retrace(db, tmp_path / "out")
    man = json.loads(next((tmp_path / "out").rglob("manifest.json")).read_text())
    assert man["counts"]["thread_rows_unread"] == 1 and trace["task"] == "Build it."


def test_a_thread_with_no_threads_row_is_read_and_said(tmp_path: Path) -> None:
    db = _db(tmp_path / "sessions", [], [*_mirror("th_1"), *ONLY])
    _, t = SRC.read(db, ReadContext(root=db.parent))
    assert [e.text for e in t.events] == ["why is caching slow?", "The cache key includes the time."]
    assert [w.code for w in t.warnings] == ["thread-only", "no-thread"] and t.meta.cwd is None
