"""Every field of what the Claude Code reader made, in a form a test can compare whole.

Refs are shown as (line, pointer): the line of the record they cite and the JSON pointer in
it, so an expected value is written by hand from the records of the test's session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _small_logs import write
from forsy.evidence import Event, Ref, Session
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def session_of(tmp_path: Path, records: list[Any], name: str = "s.jsonl") -> Session:
    return read(write(tmp_path / name, records))


def at(s: Session, ref: Ref | None) -> tuple[int | None, str] | None:
    return None if ref is None else (s.evidence[ref.ev].line, ref.pointer)


def view(s: Session, e: Event) -> dict[str, Any]:
    """The event's fields that differ from an empty event's, refs as (line, pointer)."""
    out: dict[str, Any] = {"kind": e.kind, "actor": e.actor, "ts": e.ts, "refs": [at(s, r) for r in e.refs]}
    for k in ("text", "call_id", "tool", "args", "is_error", "group", "info", "link", "ts_from"):
        if getattr(e, k) is not None:
            out[k] = getattr(e, k)
    for k in ("abandoned", "excerpt"):
        if getattr(e, k) is not False:  # a flag left None (not False) is shown too
            out[k] = getattr(e, k)
    for k in ("ts_ref", "name_ref"):
        if getattr(e, k) is not None:
            out[k] = at(s, getattr(e, k))
    return out


def views(s: Session) -> list[dict[str, Any]]:
    return [view(s, e) for e in s.events]


def warnings(s: Session) -> list[tuple[str, str, str | None, int | None]]:
    return [(w.code, w.message, w.file, w.line) for w in s.warnings]


def marks(s: Session) -> dict[int | None, tuple[str, str, str | None]]:
    """The ledger by line: (heading, name, subtype)."""
    return {s.evidence[k].line: (m.heading, m.name, m.subtype) for k, m in s.ledger.items()}
