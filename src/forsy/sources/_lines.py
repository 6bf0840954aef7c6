"""Reading line-oriented logs with exact byte positions, tolerant of damage."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError


@dataclass(slots=True)
class RawLine:
    line: int  # 1-based
    offset: int  # byte offset of the first byte of the line
    raw: bytes  # the line without its line terminator
    complete: bool  # False for a last line with no newline (file still being written?)


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except PermissionError:
        raise InputError("permission denied", path=path) from None
    except IsADirectoryError:
        raise InputError("is a directory", path=path) from None
    except OSError as e:
        raise InputError(e.strerror or str(e), path=path) from None


def iter_lines(data: bytes) -> Iterator[RawLine]:
    """Every line of `data` with its number and byte offset; blank lines are skipped."""
    pos = 0
    n = 0
    size = len(data)
    find = data.find
    while pos < size:
        end = find(b"\n", pos)
        n += 1
        if end == -1:
            raw = data[pos:]
            if raw.strip():
                yield RawLine(n, pos, raw.rstrip(b"\r"), False)
            return
        raw = data[pos:end]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if raw.strip():
            yield RawLine(n, pos, raw, True)
        pos = end + 1


def source_name(path: Path, root: Path | None) -> str:
    """The path as evidence names it: relative to the input root, else the file name
    (so evidence ids do not depend on where the logs live on this machine)."""
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.name


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
