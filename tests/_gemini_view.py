"""A Gemini CLI reading as plain values a test compares whole (the promise tests of the
gemini reader): each event's fields that differ from their defaults (refs as (line, pointer)),
the ledger by line, the warnings."""

from __future__ import annotations

import json
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from forsy.evidence import Event, Ref, Session
from forsy.sources import ReadContext
from forsy.sources.gemini import GeminiSource

ALWAYS = ("kind", "actor", "ts", "refs")


def at(s: Session, ref: Ref | None) -> tuple[int | None, str] | None:
    return None if ref is None else (s.evidence[ref.ev].line, ref.pointer)


def events(s: Session) -> list[dict[str, Any]]:
    out = []
    for e in s.events:
        d: dict[str, Any] = {}
        for f in fields(Event):
            v = getattr(e, f.name)
            if f.name == "refs":
                v = [at(s, r) for r in v]
            elif isinstance(v, Ref):
                v = at(s, v)
            if f.name in ALWAYS or (f.default is not MISSING and v != f.default):
                d[f.name] = v
        out.append(d)
    return out


def ledger(s: Session) -> dict[int | None, tuple[str, str, str | None]]:
    return {s.evidence[k].line: (m.heading, m.name, m.subtype) for k, m in s.ledger.items()}


def warnings(s: Session) -> list[tuple[str, str, str | None, int | None]]:
    return [(w.code, w.message, w.file, w.line) for w in s.warnings]


def write_lines(path: Path, recs: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in recs), "utf-8")
    return path


def read(path: Path) -> Session:
    [s] = GeminiSource().read(path, ReadContext(root=path.parent))
    return s


def ev(kind: str, actor: str, ts: str | None, refs: list[tuple[int, str]], **more: Any) -> dict[str, Any]:
    return {"kind": kind, "actor": actor, "ts": ts, "refs": refs, **more}
