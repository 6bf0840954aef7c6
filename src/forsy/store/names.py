"""File names that are not UTF-8, kept in the store and given back unchanged.

On POSIX a file name is bytes; Python shows the bytes that are not UTF-8 as lone surrogates
(`os.fsdecode`'s surrogateescape: `caf\\xe9.jsonl` is `'caf\\udce9.jsonl'`). Neither SQLite
nor PostgreSQL takes a lone surrogate in a text column, so a path is written with each of
them spelled `ESC` + two hex digits (and `ESC` itself doubled), and read back into the very
same string: `os.fsencode` of it opens the file again. A name that is valid UTF-8 and holds
no `ESC` is stored as it is. The code is applied character by character, so a root's
encoding is a prefix of the encoding of every path below it (range queries on paths hold).
"""

from __future__ import annotations

import dataclasses
import re

from .models import NewTrace, RunRow, TraceRow

ESC = "\ue000"  # a private-use character: in no name forsy has met
_RAW = re.compile("[\ue000\udc80-\udcff]")
_CODED = re.compile("\ue000(\ue000|[0-9a-f]{2})")


def _code(m: re.Match[str]) -> str:
    c = m.group()
    return ESC + ESC if c == ESC else ESC + f"{ord(c) - 0xDC00:02x}"


def _uncode(m: re.Match[str]) -> str:
    g = m.group(1)
    return ESC if g == ESC else chr(0xDC00 + int(g, 16))


def to_db(text: str) -> str:
    """`text` (a path, possibly with surrogate-escaped bytes) as text a database takes."""
    return _RAW.sub(_code, text) if _RAW.search(text) else text


def from_db(text: str) -> str:
    """The string `to_db` was given."""
    return _CODED.sub(_uncode, text) if ESC in text else text


def to_db_opt(text: str | None) -> str | None:
    return None if text is None else to_db(text)


def from_db_opt(text: str | None) -> str | None:
    return None if text is None else from_db(text)


def shown(text: str) -> str:
    """A path for people: bytes that are not UTF-8 as `\\xNN` (what `ls -b` shows)."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# ---- the rows that carry names, as each backend writes and reads them
def below(path: str, root: str) -> bool:
    root = root.rstrip("/") or "/"
    return path == root or path.startswith(root if root.endswith("/") else root + "/")


def with_failure(run: RunRow, failure: str | None) -> RunRow:
    """A run stopped by the environment is stored `interrupted` with why (see migration
    0006_sweep_faults) and shown as `failed`."""
    if failure is None:
        return run
    return dataclasses.replace(run, status="failed", failure=failure)


def coded_trace(t: NewTrace) -> NewTrace:
    """The names taken from file and folder names (which need not be UTF-8), as the store keeps them."""
    return dataclasses.replace(t, unit_path=to_db(t.unit_path), session_id=to_db(t.session_id),
                               project=to_db_opt(t.project), task=to_db(t.task),
                               texts=[(w, to_db(x)) for w, x in t.texts])


def uncoded_row(r: TraceRow) -> TraceRow:
    return dataclasses.replace(r, unit_path=from_db(r.unit_path), session_id=from_db(r.session_id),
                               project=from_db_opt(r.project), task=from_db(r.task))
