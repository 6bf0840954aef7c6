"""Looking at files without reading them: the walk (one stat per file) and, only for files
that changed, a fingerprint (the first block and the last complete line)."""

from __future__ import annotations

import functools
import hashlib
import os
import stat as stat_
from dataclasses import dataclass
from typing import Literal

from ..sources import Source, available
from ..sources.lines import utf16
from ..sources.walk import copy_of_log, log_name, packed_log

HEAD_BLOCK = 4096
_CHUNK = 65536
# what the walk looks at under a root: the names of every kind of log a source reads (JSONL
# sessions, JSON chats and task files, terminal recordings, shell and Aider histories);
# other files (tool-results/*.txt, …) are read, when a session needs them, through the
# session that names them. A file here that no source reads is remembered as ignored.
SESSION_SUFFIXES = (".jsonl", ".jsonl.zst", ".json", ".cast", "_history", ".history", ".aider.chat.history.md")
SESSION_NAMES = frozenset({"history.db"})  # atuin


def session_like(name: str) -> bool:
    """A file the walk looks at: a kind of log a source reads (by its suffix, or a name a
    source declares: `sources.walk.log_name`), or a copy of one or a log kept compressed
    (never read, but named once, when it first appears: `sources.walk.copy_of_log`,
    `packed_log`)."""
    return (name.endswith(SESSION_SUFFIXES) or name in SESSION_NAMES or copy_of_log(name) or packed_log(name)
            or log_name(name, sweep_sources()))


@functools.cache
def sweep_sources() -> list[Source]:
    """The sources, asked once: the walk looks at every name under the roots, and the plan
    asks which session each new file belongs to."""
    return available()


# formats written a line at a time, where a last line without its newline is still being
# written; a JSON document (a Gemini chat, a Cline task file) is rewritten whole instead
LINE_SUFFIXES = (".jsonl", ".cast", "_history", ".history")


def line_oriented(path: str) -> bool:
    return path.endswith(LINE_SUFFIXES)


@dataclass(frozen=True)
class Stat:
    dev: int
    ino: int
    size: int
    mtime_ns: int

    @staticmethod
    def of(st: os.stat_result) -> Stat:
        return Stat(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


LINK = "a symbolic link to a folder (not followed: name its target as a root) or to nothing"
NOT_A_FILE = "not a regular file (a pipe, socket or device with a session file's name): never opened"


def walk(root: str, blocked: dict[str, str] | None = None,
         links: list[tuple[str, str]] | None = None) -> dict[str, Stat]:
    """Every session-like regular file at or under `root`, or link to one (links to folders
    are not followed: a loop or a link out of the tree must not make a sweep endless; they,
    session-like links to nothing, and session-like names that are no file (a FIFO would
    block its reader) go into `links` with why, for the caller to name). A folder that cannot be
    listed goes into `blocked` with why: it hides only itself, and the caller names it (its
    files are neither new nor gone, only out of sight)."""
    out: dict[str, Stat] = {}
    try:
        st = os.stat(root)
    except OSError as e:
        if blocked is not None and not isinstance(e, FileNotFoundError):
            blocked[root] = why(e)
        return out
    if stat_.S_ISREG(st.st_mode):
        out[root] = Stat.of(st)
        return out
    stack = [root]
    while stack:
        d = stack.pop()
        try:
            entries = list(os.scandir(d))
        except FileNotFoundError:
            continue  # removed since its parent was listed: the next run sees it gone
        except OSError as e:
            if blocked is not None:
                blocked[d] = f"cannot list this folder: {why(e)}"
            continue
        for ent in entries:
            try:
                if ent.is_dir(follow_symlinks=False):
                    stack.append(ent.path)
                elif session_like(ent.name) and ent.is_file():  # a link to a session file is read, as retrace does
                    out[ent.path] = Stat.of(ent.stat())
                elif links is not None and ent.is_symlink() and (session_like(ent.name) or ent.is_dir()):
                    links.append((ent.path, LINK))  # a link to a folder, or to nothing
                elif links is not None and session_like(ent.name):
                    links.append((ent.path, NOT_A_FILE))
            except OSError:
                continue  # vanished between listing and stat: next run sees it gone
    return out


def why(e: OSError) -> str:
    """An OSError in a few words for a summary line (`permission denied`, `no such file or directory`)."""
    return (e.strerror or type(e).__name__).lower()


def stat_path(path: str) -> Stat | None:
    try:
        return Stat.of(os.stat(path))
    except OSError:
        return None


@dataclass(frozen=True)
class Fingerprint:
    head_sha256: str  # of the first min(HEAD_BLOCK, size) bytes
    tail_sha256: str | None  # of the last complete line (None: no complete line)
    tail_offset: int  # where that line starts
    read_to: int  # the byte after its newline: everything before is complete lines
    complete: bool  # the file ends with a newline (or is empty)
    bytes_read: int


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fingerprint(path: str, size: int) -> Fingerprint:
    """Hashes of the first block and of the last complete line, reading back from `size`
    only as far as that line (a grown file costs its new tail, not its whole length). Each
    block is searched once and kept apart (not joined to what was read before it), so a line
    of any length costs one read of it."""
    with open(path, "rb") as f:
        head = f.read(min(HEAD_BLOCK, size))
        n = len(head)
        end = size
        read_to = -1  # the end of the last complete line
        start = -1  # the start of that line
        blocks: list[tuple[int, bytes]] = []  # (offset, bytes), from the end of the file back
        pos = size
        while pos > 0 and start < 0:
            step = min(_CHUNK, pos)
            pos -= step
            f.seek(pos)
            chunk = f.read(step)
            n += len(chunk)
            blocks.append((pos, chunk))
            before = len(chunk)  # where the line's start is looked for, in this block
            if read_to < 0:
                i = chunk.rfind(b"\n")
                if i < 0:
                    continue
                read_to = pos + i + 1
                before = i
            j = chunk.rfind(b"\n", 0, before)
            if j >= 0:
                start = pos + j + 1
        if read_to < 0:
            return Fingerprint(_sha(head), None, 0, 0, size == 0, n)
        start = max(start, 0)
        line = hashlib.sha256()
        for at, chunk in reversed(blocks):
            lo, hi = max(start - at, 0), min(read_to - at, len(chunk))
            if lo < hi:
                line.update(chunk[lo:hi])
        # a UTF-16 log ends in "\n\0": not a line being written, a file forsy refuses at once, saying why
        complete = read_to == end or (read_to == end - 1 and utf16(head) == "UTF-16LE")
        return Fingerprint(_sha(head), line.hexdigest(), start, read_to, complete, n)


Change = Literal["grown", "rewritten"]


def classify(path: str, now: Stat, head_sha256: str, old_size: int, tail_sha256: str | None, tail_offset: int,
             read_to: int, old: Stat) -> tuple[Change, int]:
    """How a known file changed: `grown` (same file, same first block, its last complete
    line still in place, longer) or `rewritten` (anything else); and the bytes read to tell."""
    if (now.dev, now.ino) != (old.dev, old.ino) or now.size < read_to or path.endswith(".zst"):
        return "rewritten", 0
    try:
        with open(path, "rb") as f:
            head = f.read(min(HEAD_BLOCK, old_size))
            n = len(head)
            if _sha(head) != head_sha256:
                return "rewritten", n
            if tail_sha256 is None:
                return ("grown" if now.size > old_size else "rewritten"), n
            f.seek(tail_offset)
            line = f.read(read_to - tail_offset)
            n += len(line)
    except OSError:
        return "rewritten", 0
    if _sha(line) != tail_sha256:
        return "rewritten", n
    return ("grown" if now.size > read_to else "rewritten"), n
