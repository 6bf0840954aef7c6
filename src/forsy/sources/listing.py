"""Folders a source's layout lists below the one it is given, and the ones it could not list.

A source's `discover` searches its agent's layout (Codex's dated folders, Gemini's chats, the
repositories holding Aider's files). Python's own searches (`Path.rglob`, `os.walk` without
`onerror`) pass over a folder they may not list without a word, so its sessions were left out
of a run that said nothing of them. A layout lists folders with `files_below` or `walk`, and
whoever asked (`sources.walk`) gets, through `collecting_unlisted`, every folder that could not
be listed, and why, to name them with what was found; and every file a layout looked at and
could not read (`unread`: a session file the user may not read is no session of no format).
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


NOT_READ = "not read: "  # how the reason for a file `unread` names starts (the folders' reasons do not)


def unread(path: Path, why: str) -> None:
    """Say that the file `path`, which a layout looked at, could not be read (`why`)."""
    where = _UNLISTED.get()
    if where is not None:
        where.append((path, f"{NOT_READ}{why}"))


def walk(root: Path) -> Iterator[tuple[str, list[str], list[str]]]:
    """`os.walk(root)` (links to folders not followed) that says each folder it cannot list."""
    return os.walk(root, onerror=unlisted)


def matching(folder: Path, pattern: str) -> list[Path]:
    """`folder.glob(pattern)` for a pattern of names (`*/events.jsonl`, no `**`), in path order;
    a folder on the way that cannot be listed is said (`unlisted`), where a glob passes over it."""
    parts = pattern.split("/")
    level = [folder]
    for i, part in enumerate(parts):
        found: list[Path] = []
        for d in level:
            try:
                with os.scandir(d) as it:  # a folder's name matches only a part before the last
                    found += [Path(e.path) for e in it if fnmatch.fnmatchcase(e.name, part)
                              and (i == len(parts) - 1 or e.is_dir())]
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError as e:
                unlisted(e)
        level = found
    return sorted(level)


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
