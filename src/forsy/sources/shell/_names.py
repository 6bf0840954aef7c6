"""Which `*_history` files are another program's, not a shell's.

Many programs keep a readline or libedit history as `~/.<program>_history`, one line per
entry, as a plain bash history is. A `*_history` file is taken for a shell's by its name (a
plain bash history has no signature, and HISTFILE is the user's choice: `old_history`), but
not one named for a program known not to be a shell (`OTHER_PROGRAMS`): its lines are that
program's input (Python statements, SQL), so it is taken only by a content that only a shell
history has (`_formats.strong_signature`), and refused naming it. A file that starts with
libedit's `_HiStOrY_V2_` line is never read, whatever its name: libedit writes each entry
escaped (strvis: `\\040` for a space), which no reader of forsy undoes, so its lines are not
the commands as typed.
"""

from __future__ import annotations

# libedit's first line (history.c `history_save_fp`: "_HiStOrY_V2_\n")
LIBEDIT_COOKIE = b"_HiStOrY_V2_"
# `~/.<name>` histories of other programs, each by the program that writes it
OTHER_PROGRAMS = {
    "python_history": "a Python REPL history (CPython's site.py)",
    "psql_history": "a psql (PostgreSQL) history",
    "sqlite_history": "an sqlite3 shell history",
    "mysql_history": "a MySQL client history",
    "node_repl_history": "a Node.js REPL history",
    "ts_node_repl_history": "a ts-node REPL history",
    "irb_history": "an irb (Ruby) history",
    "pry_history": "a pry (Ruby) history",
    "rediscli_history": "a redis-cli history",
    "gdb_history": "a gdb history",
    "lua_history": "a Lua REPL history",
    "php_history": "a PHP interactive shell history",
    "duckdb_history": "a DuckDB CLI history",
    "scala_history": "a Scala REPL history",
}
READS = "forsy reads bash, zsh, fish, ksh and ash histories and atuin's database"
# PSReadLine's history file, `$Host.Name + "_history.txt"` (`ConsoleHost_history.txt`): a shell's,
# but its lines (a backtick continues a command) are not read yet; named when refused
PSREADLINE_SUFFIX = "_history.txt"


def _base(name: str) -> str:
    """The part of a file name that names its program: after its last dot (`x.psql_history`,
    `.python_history`)."""
    return name.rpartition(".")[2]


def other_program_name(name: str) -> bool:
    """Whether a file's name is that of another program's history (`OTHER_PROGRAMS`)."""
    return _base(name) in OTHER_PROGRAMS


def libedit(head: bytes) -> bool:
    """Whether a file starts with libedit's history line (`_HiStOrY_V2_`)."""
    return head.startswith(LIBEDIT_COOKIE) and head[len(LIBEDIT_COOKIE):][:1] in (b"\n", b"\r", b"")


def other_program(name: str, head: bytes) -> str | None:
    """What a file is when it is plainly another program's history, or None."""
    if libedit(head):
        return ("a libedit history (its first line `_HiStOrY_V2_`, as sqlite3, psql, mysql, python and the "
                "other programs built with libedit write it), whose escaped lines forsy does not read")
    if name.endswith(PSREADLINE_SUFFIX):
        return ("a PowerShell history (PSReadLine writes `<host name>_history.txt`), which forsy does not read "
                "yet")
    what = OTHER_PROGRAMS.get(_base(name))
    return f"{what}, not a shell's" if what else None
