"""Folders a source's layout lists below the one it is given, and the ones it could not list.

A source's `discover` searches its agent's layout (Codex's dated folders, Gemini's chats, the
repositories holding Aider's files). Python's own searches (`Path.rglob`, `os.walk` without
`onerror`) pass over a folder they may not list without a word, so its sessions were left out
of a run that said nothing of them. A layout lists folders with `files_below` or `walk`, and
whoever asked (`sources.walk`) gets, through `collecting_unlisted`, every folder that could not
be listed, and why, to name them with what was found.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

_UNLISTED: ContextVar[list[tuple[Path, str]] | None] = ContextVar("forsy_unlisted", default=None)


@contextmanager
def collecting_unlisted() -> Iterator[list[tuple[Path, str]]]:
    """Within this block, the folders a layout could not list are added to the list given."""
    found: list[tuple[Path, str]] = []
    token = _UNLISTED.set(found)
    try:
        yield found
    finally:
        _UNLISTED.reset(token)


def unlisted(err: OSError) -> None:
    """Say that the folder `err` names could not be listed (an `os.walk` `onerror`)."""
    where = _UNLISTED.get()
    if where is not None and err.filename is not None:
        where.append((Path(os.fsdecode(err.filename)), err.strerror or str(err)))


def walk(root: Path) -> Iterator[tuple[str, list[str], list[str]]]:
    """`os.walk(root)` (links to folders not followed) that says each folder it cannot list."""
    return os.walk(root, onerror=unlisted)


def files_below(root: Path, patterns: tuple[str, ...]) -> list[Path]:
    """The files in `root` and every folder below it whose names match one of `patterns`, as
    `root.rglob(pattern)` finds them (hidden folders too, links to folders not followed), in
    path order; a folder that cannot be listed is said (`unlisted`)."""
    out = []
    for dirpath, _dirs, files in walk(root):
        for name in files:
            if any(fnmatch.fnmatchcase(name, p) for p in patterns):
                out.append(Path(dirpath) / name)
    return sorted(out)
