"""A file beside a session's log, read with it (a manifest, a conversation's state, a compacted
view): listed among the session's files, and, when it is one JSON object, one record of it.

Such a companion (a file or a folder: a subagent's transcript, a task's metadata, a folder of
messages) that may not be read (mode 000, as a user who is not root meets it) costs the session
what it held, never the session: it is named once, with the session file it belongs to, saying
what the trace may lack for it (`unreadable`, `companion`). A folder is listed with `entries`,
which says it could not be: `Path.glob` passes over such a folder as if it were empty.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import orjson

from ..errors import InputError
from ..evidence import Evidence, Session, SourceFile
from .lines import Limits, read_bytes, sha256

UNREADABLE = "companion_unreadable"  # the code of the warning that names a companion not read
T = TypeVar("T")
P = ParamSpec("P")


def why(err: OSError | InputError) -> str:
    """The reason a file or folder could not be read, as a warning says it: never an OSError's
    text, which names the path on this machine (a warning names files as evidence does)."""
    return err.message if isinstance(err, InputError) else (err.strerror or type(err).__name__)


def unreadable(s: Session, file: str | None, name: str, err: OSError | InputError, missing: str,
               code: str = UNREADABLE) -> None:
    """Say on `s`, once, that `name` (a companion of the session file `file`, named relative to
    where the logs are: never a path of this machine) could not be read, why, and what the trace
    may lack for it (`missing`). `code`: a reader's own, where it had one for this companion."""
    head = f"{name} could not be read ("
    if any(w.code == code and w.file == file and w.message.startswith(head) for w in s.warnings):
        return
    s.warn(code, f"{head}{why(err)}): {missing}", file)


def companion(s: Session, file: str | None, name: str, missing: str, read: Callable[P, T], *args: P.args,
              **kwargs: P.kwargs) -> T | None:
    """`read(*args, **kwargs)` of a companion of `s`, or None when it cannot be read: said
    (`unreadable`), and the session read all the same."""
    try:
        return read(*args, **kwargs)
    except (InputError, OSError) as err:
        unreadable(s, file, name, err, missing)
        return None


def entries(folder: Path, pattern: str = "*") -> list[Path]:
    """The entries of `folder` whose names match `pattern`, in path order; none when there is
    no such folder. OSError when it may not be listed (the caller names it: `unreadable`)."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(folder / n for n in names if fnmatch.fnmatchcase(n, pattern))


def read_side(path: Path, name: str, kind: str, s: Session, limits: Limits | None) -> bytes:
    """`path` read whole and listed among `s`'s files, as evidence names it (`name`). Raises
    InputError when it cannot be read: the caller says so, in its own words."""
    data = read_bytes(path, limits)
    s.files.append(SourceFile(name, str(path.resolve()), kind, len(data), sha256(data)))
    return data


def one_object(data: bytes, name: str, record_type: str, s: Session) -> tuple[dict[str, Any] | None, Evidence]:
    """`data` as one record of `s` (its evidence, counted as read) and its JSON object; None
    when it is none (counted unparsable: the caller says why)."""
    ev = Evidence.make(name, 1, 0, data, sha256(data), record_type)
    s.add_evidence(ev)
    return parsed_object(data, s), ev


def parsed_object(data: bytes, s: Session) -> dict[str, Any] | None:
    """`data`'s JSON object, counted as a record of `s` read; None when it is none (counted
    unparsable: the caller says why)."""
    s.quality.records += 1
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        doc = None
    if not isinstance(doc, dict):
        s.quality.unparsable_records += 1
        return None
    return doc
