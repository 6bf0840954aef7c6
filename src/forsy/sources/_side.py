"""A file beside a session's log, read with it (a manifest, a conversation's state, a compacted
view): listed among the session's files, and, when it is one JSON object, one record of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from ..evidence import Evidence, Session, SourceFile
from .lines import Limits, read_bytes, sha256


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
