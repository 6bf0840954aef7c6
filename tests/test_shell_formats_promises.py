"""Which format a shell history is read as (by its name and its first lines), what a zsh line
without its prefix and a time that is no date are said to be, and an atuin row read back for
`forsy verify`, on hand-written files. Expectations worked out by hand.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from forsy.evidence import Session
from forsy.ids import canonical
from forsy.sources import ReadContext
from forsy.sources.shell import ShellHistorySource

SRC = ShellHistorySource()
E = b"4242 me  7 1700000000 ls\n"


def read(path: Path) -> Session:
    (s,) = SRC.read(path, ReadContext(root=path.parent))
    return s


@pytest.mark.parametrize(("name", "data", "fmt"), [
    (".zhistory", b"ls\npwd\n", "zsh_plain"), (".histfile", b"ls\n", "zsh_plain"),
    ("my_zsh_log", b"ls\n", "zsh_plain"), (".zhistory", b"", "zsh_plain"), (".bash_history", b"", "bash"),
    ("work.histfile", b"ls\n", "bash"),  # only zsh's own names, not one ending like them
    (".bash_history", b": 1700000000:0;ls\n", "zsh_extended"),
    ("hist", b"- cmd: ls\n  when: 1700000000\n", "fish"), ("hist", b"- cmd: ls\n  paths:\n  when: 1\n", "fish"),
    ("hist", b"- cmd: ls\npwd\n", "bash"), ("fish_hist", b"ls\n", "fish"),
    ("hist", E * 3, "eternal"), ("hist", E * 2, "bash"), ("x_eternal", E, "eternal"),
    ("x_eternal", b"ls\n" + E * 3, "bash"),
    ("zsh_hist", E * 2, "zsh_plain"), ("hist", b"\n\nls\n" + E * 3, "bash"),
])
def test_the_format_a_history_is_read_as(tmp_path: Path, name: str, data: bytes, fmt: str) -> None:
    p = tmp_path / name
    p.write_bytes(data)
    assert read(p).meta.extra["format"] == fmt


def test_a_zsh_line_without_its_prefix_and_a_time_that_is_no_date(tmp_path: Path) -> None:
    p = tmp_path / ".zsh_history"
    p.write_bytes(b": 1700000000:3;ls\nplain\n: 99999999999999999999:0;pwd\n")
    s = read(p)
    assert [e.text for e in s.events] == ["ls", "plain", "pwd"] and [e.ts for e in s.events][1:] == [None, None]
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("bad_timestamp", "epoch 99999999999999999999 is not a date", ".zsh_history", 3),
        ("zsh_unprefixed_line", "no ': <epoch>:<elapsed>;' prefix", ".zsh_history", 2)]
    plain = s.events[1]
    ev = s.evidence[plain.refs[0].ev]
    assert (ev.line, ev.byte_offset, ev.byte_length, ev.record_type) == (2, 18, 5, "zsh_plain")
    assert s.quality.records == 3


def test_an_atuin_row_is_read_back_by_its_id(tmp_path: Path) -> None:
    db = tmp_path / "h#st" / "history.db"
    db.parent.mkdir()
    con = sqlite3.connect(db)
    con.execute("create table history (id text primary key, timestamp integer, duration integer, exit integer, "
                "command text, cwd text, session text, hostname text, deleted_at integer)")
    con.execute("insert into history values ('r1', 1700000000000000000, 5, 2, 'make', '/x', 's', 'h', null)")
    con.commit()
    con.close()
    want = canonical({"id": "r1", "timestamp": 1700000000000000000, "duration": 5, "exit": 2, "command": "make",
                      "cwd": "/x", "session": "s", "hostname": "h", "deleted_at": None})
    empty = tmp_path / "empty"
    empty.mkdir()
    # a folder name may hold a "#": the row id is what follows the last one
    assert SRC.read_back("atuin:h#st/history.db#r1", [empty, tmp_path]) == want
    assert SRC.read_back("atuin:history.db#nope", [db.parent]) is None
    assert SRC.read_back("atuin:../h#st/history.db#r1", [empty]) is None  # never outside a root
    (s,) = SRC.read(db, ReadContext(root=tmp_path))
    (e,) = s.events
    assert e.info is not None and e.info.exit_code == 2 and s.meta.extra["format"] == "atuin"
    assert s.quality.records == 1
