"""Which `*_history` files are a shell's: a `*_history` name is still taken for one (a plain
history has no signature, and HISTFILE is the user's choice: tests/test_walk_beside.py), but
not the names of programs known not to be shells (CPython's `.python_history`, psql's,
sqlite3's, mysql's, node's…), whose lines are no shell commands: those are found by no folder
walk or sweep, and refused naming what they are, unless their content is one only a shell's
history has. A libedit `_HiStOrY_V2_` file is never read (its entries are escaped)."""

from __future__ import annotations

from pathlib import Path

import pytest

from forsy.errors import ExitCode, UnsupportedFormat
from forsy.run.discovery import NOT_READ, discover
from forsy.sources import detect
from forsy.sources.shell import ShellHistorySource

SRC = ShellHistorySource()
PY = b'import os\nos.listdir(".")\nprint("hi")\n'
LIBEDIT = b"_HiStOrY_V2_\nselect\\040*\\040from\\040t;\n"


@pytest.mark.parametrize("name", [
    ".bash_history", ".zsh_history", "fish_history", ".bash_eternal_history", ".zhistory", ".histfile",
    ".sh_history", ".mksh_history", ".ash_history", "zsh_history", "plain.bash_history",
    "x.sh_history", "work_history", "old_history",
])
def test_a_shell_s_history_is_taken_by_its_name(name: str) -> None:
    assert SRC.sniff(Path("/h") / name, b"ls\ncd /tmp\n")


@pytest.mark.parametrize("name", [
    ".python_history", ".psql_history", ".sqlite_history", ".mysql_history", ".node_repl_history",
    ".irb_history", ".rediscli_history", ".gdb_history", ".lua_history", "x.python_history",
])
def test_another_program_s_history_is_taken_by_no_name(name: str) -> None:
    assert not SRC.sniff(Path("/h") / name, PY)


@pytest.mark.parametrize("name", [".bash_history", ".sh_history", ".sqlite_history", "cmds"])
def test_a_libedit_history_is_never_read(name: str) -> None:
    assert not SRC.sniff(Path("/h") / name, LIBEDIT)
    assert SRC.refuses(Path("/h") / name, LIBEDIT) == (
        "a libedit history (its first line `_HiStOrY_V2_`, as sqlite3, psql, mysql, python and the other programs "
        "built with libedit write it), whose escaped lines forsy does not read: forsy reads bash, zsh, fish, ksh "
        "and ash histories and atuin's database")


def test_a_shell_s_content_is_taken_under_any_name() -> None:
    # HISTFILE is the user's choice: zsh's extended lines, fish's records, `#epoch` pairs
    for head in (b": 1700000000:0;ls\n", b"- cmd: ls\n  when: 1700000000\n", b"#1700000000\nls\n#1700000001\npwd\n"):
        assert SRC.sniff(Path("/h/.python_history"), head)
        assert SRC.sniff(Path("/h/notes"), head)


@pytest.mark.parametrize(("name", "what"), [
    (".python_history", "a Python REPL history (CPython's site.py)"),
    (".psql_history", "a psql (PostgreSQL) history"),
    (".mysql_history", "a MySQL client history"),
    (".node_repl_history", "a Node.js REPL history"),
    (".rediscli_history", "a redis-cli history"),
])
def test_another_program_s_history_is_refused_naming_it(name: str, what: str) -> None:
    assert SRC.refuses(Path("/h") / name, PY) == (
        f"{what}, not a shell's: forsy reads bash, zsh, fish, ksh and ash histories and atuin's database")


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".python_history").write_bytes(PY)
    (home / ".psql_history").write_bytes(b"SELECT 1;\n\\dt\n")
    (home / ".sqlite_history").write_bytes(LIBEDIT)
    return home


def test_a_folder_walk_takes_none_of_them_and_says_so(tmp_path: Path) -> None:
    home = _home(tmp_path)
    (tmp_path / "cast.cast").write_bytes(b'{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "$ "]\n')
    unread: list[tuple[Path, str]] = []
    found = discover([tmp_path], unread)
    assert [(s.name, p.name) for s, p in found] == [("asciinema", "cast.cast")]
    assert sorted((p.name, why) for p, why in unread) == [
        (".psql_history", NOT_READ), (".python_history", NOT_READ), (".sqlite_history", NOT_READ)]
    # beside a shell's history, the walk takes that one alone (files beside a session found are
    # its agent's: `sources.walk`)
    (home / ".ash_history").write_bytes(b"ls\n")
    assert [(s.name, p.name) for s, p in discover([home])] == [("shell", ".ash_history")]
    assert SRC.discover(home) == [home / ".ash_history"]


def test_a_folder_of_only_them_gives_no_session(tmp_path: Path) -> None:
    home = _home(tmp_path)
    with pytest.raises(Exception, match="3 file\\(s\\) that look like logs, in no format forsy reads"):
        discover([home])


def test_one_named_is_refused_as_unsupported(tmp_path: Path) -> None:
    home = _home(tmp_path)
    with pytest.raises(UnsupportedFormat) as e:
        detect(home / ".python_history")
    assert e.value.exit_code == ExitCode.UNSUPPORTED


def test_a_ksh_or_ash_history_in_a_home_folder_is_found(tmp_path: Path) -> None:
    for n in (".sh_history", ".mksh_history", ".ash_history"):
        (tmp_path / n).write_bytes(b"ls\n")
    (tmp_path / ".bash_history").write_bytes(b"pwd\n")
    assert sorted(p.name for p in SRC.discover(tmp_path)) == [
        ".ash_history", ".bash_history", ".mksh_history", ".sh_history"]
    # mksh's own binary format (its two magic bytes, then per command 0xff, a 4-byte number, the
    # command and a NUL) is no text history: not found
    records = b"".join(b"\xff" + n.to_bytes(4, "big") + b"ls\x00" for n in range(1, 21))
    (tmp_path / ".mksh_history").write_bytes(b"\xab\xcd" + records)
    assert sorted(p.name for p in SRC.discover(tmp_path)) == [".ash_history", ".bash_history", ".sh_history"]


@pytest.mark.parametrize("name", ["ConsoleHost_history.txt", "Visual Studio Code Host_history.txt"])
def test_a_powershell_history_is_refused_naming_it(tmp_path: Path, name: str) -> None:
    # PSReadLine's `<host name>_history.txt`: a backtick continues a command; not read yet, so named
    p = tmp_path / name
    p.write_bytes(b"Get-ChildItem -Recurse `\r\n  -Filter *.log\r\ngit status\r\n")
    with pytest.raises(UnsupportedFormat) as e:
        detect(p)
    assert e.value.message.startswith("a PowerShell history (PSReadLine writes `<host name>_history.txt`), "
                                      "which forsy does not read yet: forsy reads bash, zsh")
    assert e.value.exit_code == ExitCode.UNSUPPORTED
