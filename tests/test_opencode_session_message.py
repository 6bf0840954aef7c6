"""An OpenCode database whose messages are in the newer `session_message` table (packages/core
session/projector.ts: one row per message, `type`, `seq`, `data`), which forsy does not read: the
session says how many of its rows there were left unread, whether or not the database also has the
`message`/`part` tables, and a database without them is not an error. Synthetic databases."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from forsy.sources import ReadContext
from forsy.sources.opencode._db import DbReader

SESSION = ("CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL,"
           " directory text NOT NULL, title text NOT NULL, version text NOT NULL, time_created integer NOT NULL,"
           " time_updated integer NOT NULL)")
NEW = ("CREATE TABLE session_message (id text PRIMARY KEY, session_id text NOT NULL, type text NOT NULL,"
       " seq integer NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)")
OLD = ("CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,"
       " time_updated integer NOT NULL, data text NOT NULL)",
       "CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,"
       " time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)")


def make(tmp_path: Path, old: bool) -> Path:
    db = tmp_path / "opencode.db"
    con = sqlite3.connect(db)
    for sql in (SESSION, NEW, *(OLD if old else ())):
        con.execute(sql)
    con.execute("INSERT INTO session VALUES ('ses_1', 'p', NULL, 's', '/w', 't', '1.2.0', 1, 2)")
    rows = [("msg_1", "user", 1, {"text": "hello", "time": {"created": 1}}),
            ("msg_2", "assistant", 2, {"agent": "build", "content": [], "time": {"created": 2}})]
    con.executemany("INSERT INTO session_message VALUES (?, 'ses_1', ?, ?, 1, 1, ?)",
                    [(i, t, n, json.dumps(d)) for i, t, n, d in rows])
    con.commit()
    con.close()
    return db


@pytest.mark.parametrize("old", [True, False])
def test_rows_in_session_message_are_said_unread(tmp_path: Path, old: bool) -> None:
    db = make(tmp_path, old)
    s = DbReader(db, ReadContext(root=tmp_path)).thread("ses_1", "agent", None).session
    where = "the database's message table" if old else "the database (it has no message table)"
    assert [(w.code, w.message) for w in s.warnings] == [
        ("session-message-unread", "2 row(s) of this session in the database's session_message table (OpenCode's "
         "newer message store) were not read: forsy reads only the message and part tables"),
        ("no-messages", f"no messages of this session in {where}")]
