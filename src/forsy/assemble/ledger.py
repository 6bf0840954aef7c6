"""The manifest's ledger: every record read from every input file, accounted for.

Each record (a JSONL line, an array element, a history entry, a commit) goes under exactly
one heading, in this order of precedence:

* `cited`: a step field, a step's evidence or a trace field cites it (provenance.json);
* `metadata`, `set_aside`, `duplicate`: the source marked why it read it (`Session.mark`),
  naming what it was used as or the rule that set it aside (docs/rules.md);
* `unparsable`: it could not be parsed (no Evidence, or Evidence the reader could not use):
  counted from the readers' warnings, which name file and line;
* `unknown`: none of the above. A source that marks nothing has all of its uncited records
  here, so a new reader is accounted for without its help; each unknown type is warned about
  once with its first file and line, and the records that carry text lower confidence.

The totals of a file add up to its `records_read` by construction; `forsy validate` (M020)
checks them, and checks the cited total against provenance.json's evidence.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ..evidence import UNPARSABLE_WARNINGS, Evidence, ReadingWarning, Session
from ..models import LEDGER_HEADINGS, UNPARSED, LedgerEntry, LedgerFile

# Keys whose non-empty string value is words someone (or a model) wrote.
TEXT_KEYS = frozenset({"text", "content", "message", "prompt", "summary", "output", "title", "thinking",
                       "reasoning", "instructions", "input", "result", "error", "command"})
_MAX_TEXT_DEPTH = 12


@dataclass(slots=True)
class Ledger:
    files: list[LedgerFile]
    warnings: list[ReadingWarning]
    unknown_with_text: int


def carries_text(raw: bytes) -> bool:
    """Whether a record holds words: a non-empty string under a text key (JSON), or any
    non-blank content (a line that is not JSON: a history entry, a diff)."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return bool(raw.strip())
    return _has_text(value, 0)


def _has_text(v: Any, depth: int) -> bool:
    if depth > _MAX_TEXT_DEPTH:
        return False
    if isinstance(v, dict):
        for k, x in v.items():
            if k in TEXT_KEYS and isinstance(x, str) and x.strip():
                return True
            if isinstance(x, dict | list) and _has_text(x, depth + 1):
                return True
    elif isinstance(v, list):
        return any(_has_text(x, depth + 1) for x in v if isinstance(x, dict | list))
    return False


def build(session: Session, cited: set[str]) -> Ledger:
    """The ledger of `session`, given the evidence ids the trace cites."""
    located, unlocated = _unparsable(session)
    # key: (file, heading, record type, rule) -> [count, with text]
    counts: dict[tuple[str, str, str, str | None], list[int]] = defaultdict(lambda: [0, 0])
    unknown: dict[str, list[Evidence]] = defaultdict(list)
    order: list[str] = [f.path for f in session.files]
    for ev in session.evidence.values():
        rtype = ev.record_type or "(none)"
        mark = session.ledger.get(ev.id)
        if mark is not None and mark.subtype:
            rtype = f"{rtype}/{mark.subtype}"
        if ev.id in cited:
            counts[(ev.source, "cited", rtype, None)][0] += 1
        elif mark is not None:
            counts[(ev.source, mark.heading, rtype, mark.name)][0] += 1
        elif located.get((ev.source, ev.line), 0) > 0:
            # read but not parsed (a reader that keeps Evidence of unparsable lines): count it once
            located[(ev.source, ev.line)] -= 1
            counts[(ev.source, "unparsable", rtype, None)][0] += 1
        else:
            unknown[ev.source].append(ev)
    for (src, _line), n in located.items():
        if n > 0:
            counts[(src, "unparsable", UNPARSED, None)][0] += n
    for src, n in unlocated.items():
        counts[(src, "unparsable", UNPARSED, "not located: warnings past the per-kind limit")][0] += n
    warnings, with_text = _unknown(session, unknown, counts)
    for key in counts:
        if key[0] not in order:
            order.append(key[0])
    by_file: dict[str, list[LedgerEntry]] = defaultdict(list)
    for (src, heading, rtype, rule), (n, text) in sorted(counts.items(), key=lambda kv: _sort_key(kv[0])):
        by_file[src].append(LedgerEntry(heading=heading, record_type=rtype, rule=rule, count=n,  # type: ignore[arg-type]
                                        text=text))
    files = []
    for src in order:
        entries = by_file.get(src, [])
        totals = {h: sum(e.count for e in entries if e.heading == h) for h in LEDGER_HEADINGS}
        files.append(LedgerFile(path=src, records_read=sum(totals.values()), totals=totals,  # type: ignore[arg-type]
                                entries=entries))
    return Ledger(files, warnings, with_text)


def _sort_key(k: tuple[str, str, str, str | None]) -> tuple[str, int, str, str]:
    return (k[0], LEDGER_HEADINGS.index(k[1]), k[2], k[3] or "")


def _unparsable(session: Session) -> tuple[dict[tuple[str, int | None], int], dict[str, int]]:
    """Unparsable records by (file, line) from the readers' warnings; the rest of the
    sources' own count (warnings past a per-kind limit name no line) by file."""
    located: dict[tuple[str, int | None], int] = defaultdict(int)
    last_file = session.files[0].path if session.files else "(unknown file)"
    for w in session.warnings:
        if w.code in UNPARSABLE_WARNINGS and w.line is not None:
            located[(w.file or last_file, w.line)] += 1
            last_file = w.file or last_file
    rest = session.quality.unparsable_records - sum(located.values())
    return dict(located), ({last_file: rest} if rest > 0 else {})


def _unknown(session: Session, unknown: dict[str, list[Evidence]],
             counts: dict[tuple[str, str, str, str | None], list[int]]) -> tuple[list[ReadingWarning], int]:
    """Count the unknown records (reading back only their bytes, to tell which carry text)
    and warn once per record type with the first one's file and line."""
    paths = {f.path: f.abs_path for f in session.files}
    first: dict[str, Evidence] = {}
    with_text = 0
    for src, evs in unknown.items():
        data = _read(paths.get(src))
        for ev in evs:
            rtype = ev.record_type or "(none)"
            first.setdefault(rtype, ev)
            cell = counts[(src, "unknown", rtype, None)]
            cell[0] += 1
            raw = data[ev.byte_offset:ev.byte_offset + ev.byte_length] if data is not None else b""
            if carries_text(raw):
                cell[1] += 1
                with_text += 1
    warnings = [ReadingWarning("ledger-unknown", f"record type {rtype!r}: used by no step and set aside by no rule "
                         "(counted as unknown in the manifest's ledger)", ev.source, ev.line)
                for rtype, ev in sorted(first.items())]
    return warnings, with_text


def _read(abs_path: str | None) -> bytes | None:
    if abs_path is None:
        return None
    try:
        return Path(abs_path).read_bytes()
    except OSError:
        return None
