"""The only place ids are made.

Every id is a hash of canonical content and position, never of the clock or a random
number, so the same input always gives byte-identical output.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from .jsontext import valid_text


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical(value: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, no whitespace, UTF-8. A string that is not text (a
    file name's bytes that are not UTF-8, kept as surrogate escapes) is hashed as it is written,
    each such byte U+FFFD (`valid_text`)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return orjson.dumps(_as_text(value), option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def _as_text(value: Any) -> Any:
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        return {_as_text(k): _as_text(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_as_text(v) for v in value]
    return value


def make_id(prefix: str, *parts: Any, length: int = 16) -> str:
    """`prefix_` + the first `length` hex digits of sha256 over the canonical parts."""
    return f"{prefix}_{sha256_hex(canonical(list(parts)))[:length]}"


def evidence_id(source: str, line: int | None, offset: int, length: int, digest: str) -> str:
    """Id of one evidence record: its source, position and the sha256 of its bytes.

    Hot path (one call per record read): a plain separator join instead of canonical JSON.
    """
    key = f"{source}\x00{line}\x00{offset}\x00{length}\x00{digest}".encode("utf-8", "surrogatepass")
    return "ev_" + hashlib.sha256(key).hexdigest()[:16]


def trace_id(kind: str, session_id: str, content_digests: list[str]) -> str:
    """Id of a trace: what was traced (source kind, session) and the exact bytes read."""
    return make_id("forsy", kind, session_id, sorted(content_digests), length=20)


@dataclass(slots=True, frozen=True)
class Ref:
    """A value's place: evidence id + RFC 6901 JSON pointer inside the parsed record."""

    ev: str
    pointer: str = ""
