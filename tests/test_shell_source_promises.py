"""The shell reader (`sources.shell.source`) on what the other shell tests leave unasked: times in
UTC whatever the machine's zone; the size limit of the read; an empty history said with its
file; the session's file named by its absolute path; the whole record cited with the empty
pointer; a U+FFFD written in the file is no invalid UTF-8; every repeated eternal entry and
every atuin row counted; a binary file known by a NUL in its first 4096 bytes only; the folder
search by content and the atuin read back going on past a file they cannot read; an atuin
table of the two columns read; and an atuin database (with rows still in its write-ahead log)
left as it was found. Inputs written here; expectations worked out by hand."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from forsy.errors import InputError
from forsy.evidence import Event, Session, SourceFile
from forsy.payloads import ShellInfo
from forsy.sources import ReadContext
from forsy.sources.lines import Limits
from forsy.sources.shell import ShellHistorySource
from forsy.sources.shell.source import iso_utc

SRC = ShellHistorySource()
T = 1_700_000_000  # 2023-11-14T22:13:20Z


def read(path: Path) -> Session:
    (s,) = SRC.read(path, ReadContext(root=path.parent))
    return s


def si(e: Event) -> ShellInfo:
    assert isinstance(e.info, ShellInfo)
    return e.info


def test_times_are_utc_whatever_the_machine_s_zone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / ".zsh_history"
    p.write_bytes(b": 1700000000:3;ls\n")
    monkeypatch.setenv("TZ", "Asia/Kolkata")  # UTC+05:30: a local time would read 03:43:20
    time.tzset()
    try:
        assert iso_utc(T) == "2023-11-14T22:13:20Z"
        assert iso_utc(T, 123_456_789) == "2023-11-14T22:13:20.123456Z"
        assert [e.ts for e in read(p).events] == ["2023-11-14T22:13:20Z"]
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_history_past_the_size_limit_is_refused(tmp_path: Path) -> None:
    p = tmp_path / ".bash_history"
    p.write_bytes(b"echo one\necho two\n")  # 18 bytes
    with pytest.raises(InputError):
        SRC.read(p, ReadContext(root=tmp_path, limits=Limits(max_file_bytes=17)))
    (s,) = SRC.read(p, ReadContext(root=tmp_path, limits=Limits(max_file_bytes=18)))
    assert [e.text for e in s.events] == ["echo one", "echo two"]


def test_an_empty_history_is_said_with_its_file_and_its_session_names_the_file(tmp_path: Path) -> None:
    p = tmp_path / ".bash_history"
    p.write_bytes(b"")
    s = read(p)
    assert s.events == []
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("empty_history", "no command found", ".bash_history", None)]
    assert s.files == [SourceFile(".bash_history", str(p), "shell", 0, hashlib.sha256(b"").hexdigest())]


def test_the_whole_record_is_cited_with_the_empty_pointer(tmp_path: Path) -> None:
    p = tmp_path / ".zsh_history"
    p.write_bytes(b": 1700000000:3;ls -l\n")
    (e,) = read(p).events
    assert e.refs[0].pointer == ""
    ref = si(e).record_ref
    assert ref is not None and ref.pointer == ""  # the time and duration are read from all of it


def test_a_replacement_character_the_file_holds_is_no_invalid_utf8(tmp_path: Path) -> None:
    p = tmp_path / ".bash_history"
    p.write_bytes("echo \ufffd\n".encode() + b"echo caf\xe9\n")
    s = read(p)
    assert [e.text for e in s.events] == ["echo \ufffd", "echo caf\ufffd"]
    assert [si(e).decoded for e in s.events] == [None, "invalid UTF-8 replaced by U+FFFD"]


def test_every_repeated_eternal_entry_is_counted(tmp_path: Path) -> None:
    p = tmp_path / ".bash_eternal_history"
    p.write_bytes(b"7 me  3 1700000000 ls\n" * 3 + b"7 me  4 1700000005 pwd\n")
    s = read(p)
    assert [si(e).duplicate_of_line for e in s.events] == [None, 1, 1, None]
    assert s.quality.duplicate_records == 2 and s.quality.records == 4


def test_nuls_count_as_binary_in_the_first_4096_bytes_only() -> None:
    text = b"ls\n" * 1365 + b"p"  # 4096 bytes of commands
    assert SRC.sniff(Path(".bash_history"), text + b"\x00")  # a NUL past them: still a history
    # one NUL among them is a damaged line (read, as one later in the file is); many are binary
    assert SRC.sniff(Path(".bash_history"), text[:-1] + b"\x00")
    assert not SRC.sniff(Path(".bash_history"), (b"ls\n" * 30 + b"\x00") * 40)


def test_a_file_the_search_by_content_cannot_open_does_not_end_it(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a_hist").write_bytes(b": 1700000000:0;ls\n")
    (tmp_path / "b_hist").write_bytes(b": 1700000001:0;pwd\n")
    opened = Path.open

    def no_a(self: Path, *args: object, **kwargs: object) -> object:
        if self.name == "a_hist":
            raise PermissionError(13, "Permission denied", str(self))
        return opened(self, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(Path, "open", no_a)
    assert SRC.discover(tmp_path) == [tmp_path / "b_hist"]


WAL_WRITER = """
import os, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute("pragma journal_mode=wal")
con.execute("create table history (id text primary key, timestamp integer, command text)")
con.execute("insert into history values ('a', 1700000000000000000, 'ls')")
con.commit()
con.execute("pragma wal_checkpoint(TRUNCATE)")
con.execute("pragma wal_autocheckpoint=0")
con.execute("insert into history values ('b', 1700000001000000000, 'pwd')")
con.commit()
os._exit(0)  # a shell hook killed: the last row only in history.db-wal
"""


def digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_an_atuin_database_and_its_write_ahead_log_are_left_as_they_were(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    subprocess.run([sys.executable, "-c", WAL_WRITER, str(db)], check=True)
    wal = tmp_path / "history.db-wal"
    before = (digest(db), digest(wal))
    s = read(db)
    assert [e.text for e in s.events] == ["ls", "pwd"] and s.quality.records == 2
    assert SRC.read_back("atuin:history.db#b", [tmp_path]) == (
        b'{"command":"pwd","id":"b","timestamp":1700000001000000000}')
    # opened read-write, the last connection's close would fold the log into the database
    assert (digest(db), digest(wal)) == before


def test_the_read_back_goes_on_past_a_root_whose_file_is_no_database(tmp_path: Path) -> None:
    bad, good = tmp_path / "r1" / "h", tmp_path / "r2" / "h"
    bad.mkdir(parents=True)
    good.mkdir(parents=True)
    (bad / "history.db").write_bytes(b"not a database at all, but a file of that name")
    con = sqlite3.connect(good / "history.db")
    con.execute("create table history (id text, timestamp integer, command text)")
    con.execute("insert into history values ('x', 5, 'make')")
    con.commit()
    con.close()
    assert SRC.read_back("atuin:h/history.db#x", [tmp_path / "r1", tmp_path / "r2"]) == (
        b'{"command":"make","id":"x","timestamp":5}')


def test_a_history_table_of_the_two_needed_columns_is_read(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    con = sqlite3.connect(db)
    con.execute("create table history (command text, timestamp integer)")
    con.execute("insert into history values ('ls', 1700000000000000000)")
    con.commit()
    con.close()
    (e,) = read(db).events
    assert (e.text, e.ts, e.refs[0].pointer) == ("ls", "2023-11-14T22:13:20Z", "/command")
