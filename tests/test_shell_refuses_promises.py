"""Which files given as `--history` the shell source refuses, and why (`refuses`): a plain bash
history has no signature, so a file of any name is taken unless it is plainly something else:
JSON or binary whatever its name, or a document or source file by its suffix (any letter case).
A file with a history's name or a history's own signature is never refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from forsy.sources.shell import ShellHistorySource

SRC = ShellHistorySource()


@pytest.mark.parametrize(("name", "head", "why"), [
    ("cmds", b"ls -la\ngit status\n", None),  # any name: a bash history has no signature
    ("notes.txt", b"ls -la\n", "a .txt file, not a shell history"),
    ("README.MD", b"# title\n", "a .MD file, not a shell history"),
    ("run.py", b"print(1)\n", "a .py file, not a shell history"),
    ("x.jsonl", b"ls\n", "a .jsonl file, not a shell history"),
    ("cmds", b'  {"type": "user"}\n', "JSON or binary data, not a shell history"),
    ("cmds", b"[1, 2]\n", "JSON or binary data, not a shell history"),
    ("cmds", b"ls\n\x00\x01binary", "JSON or binary data, not a shell history"),
    ("cmds.md", b"\x00", "JSON or binary data, not a shell history"),  # what it holds, before its name
    ("notes.txt", b": 1700000000:0;ls -la\n", None),  # zsh's extended history signature
    (".bash_history", b"ls\n", None), ("work_history", b"ls\n", None),  # a history's name, any suffix rule aside
    ("x.sh_history", b"ls\n", None),
])
def test_what_is_refused_as_a_history_and_why(name: str, head: bytes, why: str | None) -> None:
    assert SRC.refuses(Path("/logs") / name, head) == why
