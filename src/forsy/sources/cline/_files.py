"""Reading a Cline task's files, as Cline and its forks write them (Roo Code's reader uses these
too): a file named in the session with its digest, a JSON array of messages one record each, a
message's content blocks, and the members of a JSON object file one by one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...evidence import ReadingWarning, Session, SourceFile, pointer
from .. import ReadContext
from .._records import Record, iter_json_array
from ..lines import read_bytes, sha256, source_name


def load_file(path: Path, s: Session, ctx: ReadContext, kind: str) -> tuple[bytes, str]:
    """The file's bytes and its evidence name, listed among the session's files (`kind`'s)."""
    data = read_bytes(path, ctx.limits)
    name = source_name(path, ctx.root)
    s.files.append(SourceFile(name, str(path.resolve()), kind, len(data), sha256(data)))
    return data, name


def load_array(path: Path, s: Session, ctx: ReadContext, kind: str) -> list[Record]:
    """A JSON array file, one record per element, each an evidence of the session; what cannot
    be read is warned about with its line and counted."""
    data, name = load_file(path, s, ctx, kind)
    warnings: list[ReadingWarning] = []
    counters: dict[str, int] = {}
    recs = list(iter_json_array(data, name, warnings, counters))
    s.warnings.extend(warnings)
    s.quality.records += counters.get("records", 0)
    s.quality.unparsable_records += counters.get("unparsable", 0)
    for r in recs:
        s.add_evidence(r.ev)
    return recs


def content_blocks(rec: Record, s: Session) -> list[tuple[str, dict[str, Any]]]:
    """(pointer, block) of an API message's content: its blocks, or its text as one text block
    (`_whole`); what is no block is warned about and skipped."""
    c = rec.data.get("content")
    if isinstance(c, str):
        return [("/content", {"type": "text", "text": c, "_whole": True})]
    if not isinstance(c, list):
        s.warn("field-type", "message content is neither text nor a list of blocks; skipped", rec.ev.source,
               rec.ev.line)
        return []
    out = []
    for i, b in enumerate(c):
        if isinstance(b, dict):
            out.append((pointer("content", i), b))
        else:
            s.warn("field-type", f"content[{i}] is not a block; skipped", rec.ev.source, rec.ev.line)
    return out


def members(text: str, start: int, dec: json.JSONDecoder) -> Iterator[tuple[str, int, int]]:
    """(key, start, end) of each top-level member's value of the object at `start`."""
    pos, n = start + 1, len(text)
    while pos < n:
        while pos < n and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= n or text[pos] != '"':
            return
        key, pos = dec.raw_decode(text, pos)
        while pos < n and text[pos] in " \t\r\n:":
            pos += 1
        at = pos
        _, pos = dec.raw_decode(text, pos)
        if isinstance(key, str):
            yield key, at, pos
