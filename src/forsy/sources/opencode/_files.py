"""One file of OpenCode's storage read as one record of a session: listed among its files,
its bytes its evidence, its JSON object parsed; a file that cannot be read, is empty, is not
JSON, is no object or nests deeper than forsy follows is said by a warning naming it (and the
line where it breaks), and counted unparsable."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from ...errors import InputError
from ...evidence import Evidence, Session
from ...jsontext import valid_value
from .._records import Record, too_deep
from .._side import read_side
from ..lines import Limits, sha256

BOM = b"\xef\xbb\xbf"


def load(path: Path, name: str, type_of: Callable[[dict[str, Any]], str], s: Session, limits: Limits | None,
         what: str) -> Record | None:
    """`path` as one record of `s` (named `name` in the evidence, its record type `type_of` its
    object), or None when it cannot be used; `what` is the file's kind in the warnings."""
    try:
        data = read_side(path, name, "opencode", s, limits)
    except InputError as e:
        s.warn("unreadable", f"{what} could not be read ({e.message}); skipped", name, None)
        return None
    return record(s, name, data, type_of, what)


def record(s: Session, name: str, data: bytes, type_of: Callable[[dict[str, Any]], str], what: str) -> Record | None:
    """One JSON object (a file's or a database row's bytes) as one record of `s`, counted; what
    cannot be read is warned about (`what`: its kind) and None."""
    s.quality.records += 1
    value, line, why = parse(data)
    if value is None:
        s.quality.unparsable_records += 1
        s.warn("too-deep" if why.startswith("nests") else "unparsable", f"{what} {why}; skipped", name, line)
        return None
    ev = Evidence.make(name, 1, 0, data, sha256(data), type_of(value))
    s.add_evidence(ev)
    return Record(ev, value)


def parse(data: bytes) -> tuple[dict[str, Any] | None, int, str]:
    """The JSON object of a file's bytes (OpenCode writes `JSON.stringify(value, null, 2)`), or
    None with the line where it breaks and why. A BOM is skipped; bytes that are not UTF-8
    are read as U+FFFD, as `forsy verify` reads them."""
    body = data.removeprefix(BOM)
    if not body.strip():
        return None, 1, "is empty"
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        try:
            value = valid_value(json.loads(body.decode("utf-8", "replace")))
        except json.JSONDecodeError as e:
            return None, e.lineno, f"is not JSON ({e.msg}, line {e.lineno} column {e.colno})"
        except RecursionError:
            return None, 1, "nests deeper than forsy follows"
    if too_deep(body, value):
        return None, 1, "nests deeper than forsy follows"
    if not isinstance(value, dict):
        return None, 1, f"is a JSON {type(value).__name__}, not an object"
    return value, 1, ""


