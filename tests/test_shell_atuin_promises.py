"""The atuin reader row by row: what each column becomes, which rows are no command, how a
database in a read-only folder is read (with the rows still in its write-ahead log), and the
errors it says. atuin's client keeps `history.db` in WAL mode (sqlx) with the schema of its
migrations (crates/atuin-client/migrations: create_history, deleted_at, author/intent, shell,
author_kind); expectations are worked out by hand from the rows written here.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from forsy.errors import InputError
from forsy.evidence import Event, Session
from forsy.payloads import ShellInfo
from forsy.sources import ReadContext
from forsy.sources.shell import ShellHistorySource

SRC = ShellHistorySource()
T0 = 1_700_000_000_000_000_000  # 2023-11-14T22:13:20Z in nanoseconds
COLS = ("id timestamp duration exit command cwd session hostname deleted_at author intent shell author_kind").split()
SCHEMA = ("create table history (id text primary key, timestamp integer not null, duration integer not null, "
          "exit integer not null, command text not null, cwd text not null, session text not null, "
          "hostname text not null, deleted_at integer, author text, intent text, shell text, author_kind integer)")


def row(rid: str, ts: object, command: object, **kw: object) -> tuple[object, ...]:
    d: dict[str, object] = {"id": rid, "timestamp": ts, "duration": 0, "exit": 0, "command": command, "cwd": "/w",
                            "session": "s", "hostname": "box:me", "deleted_at": None, "author": None,
                            "intent": None, "shell": None, "author_kind": None}
    d.update(kw)
    return tuple(d[c] for c in COLS)


def make(db: Path, rows: Sequence[tuple[object, ...]], schema: str = SCHEMA) -> None:
    con = sqlite3.connect(db)
    con.execute(schema)
    con.executemany(f"insert into history values ({','.join('?' * len(rows[0]))})", rows)
    con.commit()
    con.close()


def read(db: Path, root: Path | None = None) -> Session:
    (s,) = SRC.read(db, ReadContext(root=root or db.parent))
    return s


def si(e: Event) -> ShellInfo:
    assert isinstance(e.info, ShellInfo)
    return e.info


def test_deleted_and_empty_rows_are_counted_not_read(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    make(db, [row("a", T0, "ls"), row("b", T0 + 1, ""), row("c", T0 + 2, "  \t"),
              row("d", T0 + 3, "rm x", deleted_at=T0 + 9), row("e", T0 + 4, "", deleted_at=T0 + 9)])
    s = read(db)
    assert [e.text for e in s.events] == ["ls"]
    assert s.quality.records == 1
    assert s.quality.extra["empty_commands"] == 2 and s.quality.extra["deleted_rows"] == 2
    assert s.warnings == []
    only_deleted = tmp_path / "d" / "history.db"
    only_deleted.parent.mkdir()
    make(only_deleted, [row("d", T0, "rm x", deleted_at=T0), row("f", T0 + 1, "rm y", deleted_at=T0)])
    s = read(only_deleted, tmp_path)
    assert s.events == [] and s.quality.extra["deleted_rows"] == 2 and s.quality.records == 0
    assert [(w.code, w.message, w.file) for w in s.warnings] == [
        ("empty_history", "no command found in the atuin history table", "d/history.db")]


def test_each_column_as_the_row_holds_it(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    make(db, [
        row("z", T0 + 1, "second", exit=-1, duration=-1, cwd="", session="", hostname="",
            author="codex", author_kind=1),  # kind 1 (a person) wins over a known agent's name
        row("y", T0 + 1, "third", exit=3, duration=0, author="pi"),  # same time: table order (rowid)
        row("x", T0, "first", exit=0, duration=2_500_000_000, shell="fish", author="me", intent="why",
            author_kind=2),  # kind 2 (an agent) wins over a name atuin does not know
        row("w", T0 + 2, "fourth", author="Codex", author_kind=0),  # no kind atuin knows; names match exactly
        row("v", T0 + 999_999_999, b"caf\xc3\xa9 \xff", author=b"me"),
    ])  # fmt: skip
    s = read(db)
    assert [e.text for e in s.events] == ["first", "second", "third", "fourth", "café \ufffd"]
    assert [e.ts for e in s.events] == ["2023-11-14T22:13:20Z", "2023-11-14T22:13:20.000000Z",
                                        "2023-11-14T22:13:20.000000Z", "2023-11-14T22:13:20.000000Z",
                                        "2023-11-14T22:13:20.999999Z"]
    assert [e.actor for e in s.events] == ["agent:shell", "human:shell", "agent:shell", "human:shell",
                                           "human:shell"]
    first, second, third, fourth, fifth = (si(e) for e in s.events)
    assert (first.atuin_id, first.exit_code, first.duration_s, first.cwd, first.session, first.hostname,
            first.shell, first.author, first.intent, first.author_kind) == (
        "x", 0, 2.5, "/w", "s", "box:me", "fish", "me", "why", 2)
    assert (second.exit_code, second.duration_s, second.cwd, second.session, second.hostname,
            second.author_kind) == (None, None, None, None, None, 1)
    assert (third.exit_code, third.duration_s, third.author_kind) == (3, 0.0, None)
    assert (fourth.author, fourth.author_kind) == ("Codex", 0)
    assert fifth.author == "me"
    # the evidence of a row: its canonical JSON, bytes columns as text
    ev = s.evidence[s.events[4].refs[0].ev]
    assert s.events[4].refs[0].pointer == "/command"
    assert (ev.source, ev.line, ev.byte_offset, ev.record_type) == ("atuin:history.db#v", None, 0, "atuin_history")
    assert SRC.read_back(ev.source, [tmp_path]) == json.dumps(
        {**dict(zip(COLS, row("v", T0 + 999_999_999, "café \ufffd", author="me"), strict=True))},
        sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def test_a_time_that_is_no_integer_is_none(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    loose = SCHEMA.replace("timestamp integer not null", "timestamp not null")
    make(db, [row("a", 1.5e18, "ls"), row("b", "soon", "pwd"), row("c", T0, "id")], schema=loose)
    s = read(db)
    # in time order as sqlite sorts them: numbers (1.5e18 before 1.7e18), then text
    assert [(e.text, e.ts) for e in s.events] == [("ls", None), ("id", "2023-11-14T22:13:20Z"), ("pwd", None)]


def test_errors_are_said_with_what_sqlite_said(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\x01" * 200)
    with pytest.raises(InputError, match=r"history.db: cannot read atuin history \(file is not a database\)$"):
        read(db)
    assert SRC.read_back("atuin:history.db#a", [tmp_path]) is None  # verify says it is gone, no crash
    no_time = tmp_path / "t" / "history.db"
    no_time.parent.mkdir()
    make(no_time, [("a", "ls")], schema="create table history (id text, command text)")
    with pytest.raises(InputError, match=r"history.db: SQLite database without an atuin history table$"):
        read(no_time)
    # a table the query cannot order (no rowid): sqlite's own words, once both ways failed
    odd = tmp_path / "o" / "history.db"
    odd.parent.mkdir()
    make(odd, [("a", 1, "ls")], schema="create table history (id text primary key, timestamp, command) without rowid")
    with pytest.raises(InputError, match=r"history.db: cannot read atuin history \(no such column: rowid\)$"):
        read(odd)


WAL_WRITER = """
import os, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute("pragma journal_mode=wal")
con.execute(sys.argv[2])
con.execute("insert into history (id, timestamp, command) values ('a', 1700000000000000000, 'ls')")
con.commit()
con.execute("pragma wal_checkpoint(TRUNCATE)")
con.execute("pragma wal_autocheckpoint=0")
con.execute("insert into history (id, timestamp, command) values ('b', 1700000001000000000, 'pwd')")
con.commit()
os._exit(0)  # as a killed shell hook leaves it: the last row only in history.db-wal
"""


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """The folder made immutable (root can write to a folder of mode 555, not to an immutable one)."""
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_a_wal_database_in_a_read_only_folder_is_read_whole(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "history.db"
    schema = "create table history (id text primary key, timestamp integer, command text, deleted_at integer)"
    subprocess.run([sys.executable, "-c", WAL_WRITER, str(db), schema], check=True)
    (folder / "history.db-shm").unlink()  # copied without it, or never made
    assert (folder / "history.db-wal").stat().st_size > 0
    with read_only(folder):
        s = read(db, tmp_path)
        assert [e.text for e in s.events] == ["ls", "pwd"]
        # and `forsy verify` reads the row back from there too
        ev = s.evidence[s.events[1].refs[0].ev]
        assert ev.source == "atuin:ro/history.db#b"
        assert SRC.read_back(ev.source, [tmp_path]) == (
            b'{"command":"pwd","deleted_at":null,"id":"b","timestamp":1700000001000000000}')
    assert sorted(p.name for p in folder.iterdir()) == ["history.db", "history.db-wal"]  # nothing written there
