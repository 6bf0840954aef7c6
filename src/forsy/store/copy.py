"""`forsy store copy`: move a local store's traces into another (usually the team's shared one).

What is copied: every trace with its folder files (redacted trace.json, manifest.json,
provenance.json, README.md, artifacts/…), its search texts and its draft status. Raw logs
never are. With `ship_evidence`, each trace also gets `evidence.jsonl`: the log records its
provenance cites, read from the logs on this machine (checked against their sha256) and
redacted — only when asked, since a redacted record still carries more than the trace.

Idempotent: a trace already in the destination is left as it is (trace ids are content
hashes), so running it twice adds nothing. A trace's `prior_trace_id` is copied before it.
What is not copied is counted in the report, not dropped silently: review proposals and
audit records stay in the source store.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..assemble import Assembled
from ..errors import InputError
from ..models import Manifest, Provenance, Trace
from . import Store
from .models import NewTrace, StoredFile, TraceQuery, TraceRow
from .sink import search_texts

EVIDENCE_FILE = "evidence.jsonl"


@dataclass
class CopyReport:
    copied: int = 0
    already: int = 0  # in the destination before
    status_set: int = 0
    evidence_shipped: int = 0  # records
    evidence_missing: list[str] = field(default_factory=list)  # "trace: why"
    not_copied: list[str] = field(default_factory=list)


def copy_store(src: Store, dst: Store, now: str, *, ship_evidence: bool = False) -> CopyReport:
    rep = CopyReport()
    rows = {r.trace_id: r for r in src.traces(TraceQuery(limit=10**9))}
    done: set[str] = set()

    def one(row: TraceRow) -> None:
        if row.trace_id in done:
            return
        done.add(row.trace_id)
        if row.prior_trace_id and row.prior_trace_id in rows:
            one(rows[row.prior_trace_id])  # the prior first: the link is a foreign key
        files = src.trace_files(row.trace_id)
        if ship_evidence:
            files.append(StoredFile(EVIDENCE_FILE, _evidence(row, files, rep)))
        if dst.add_trace(_new_trace(row, files), row.created_at):
            rep.copied += 1
        else:
            rep.already += 1
        there = dst.trace(row.trace_id)
        if there is not None and there.status == "pending" and row.status != "pending":
            dst.set_draft_status(row.trace_id, row.status, "forsy store copy", now, f"copied from {src.url}")
            rep.status_set += 1

    for row in sorted(rows.values(), key=lambda r: (r.created_at, r.trace_id)):
        with dst.transaction():
            one(row)
    props = sum(len(src.proposals(t)) for t in rows) if hasattr(src, "proposals") else 0
    if props:
        rep.not_copied.append(f"{props} review proposal(s) (they stay in {src.url})")
    return rep


def _new_trace(row: TraceRow, files: list[StoredFile]) -> NewTrace:
    by_name = {f.name: f.data for f in files}
    a = Assembled(trace=Trace.model_validate_json(by_name["trace.json"]),
                  provenance=Provenance.model_validate_json(by_name["provenance.json"]),
                  manifest=Manifest.model_validate_json(by_name["manifest.json"]), files={})
    return NewTrace(trace_id=row.trace_id, source_kind=row.source_kind, session_id=row.session_id,
                    unit_path=row.unit_path, agent=row.agent, project=row.project, started_at=row.started_at,
                    ended_at=row.ended_at, confidence=row.confidence, steps=row.steps, turns=row.turns,
                    task=row.task, files=files, texts=search_texts(a), prior_trace_id=row.prior_trace_id)


def _evidence(row: TraceRow, files: list[StoredFile], rep: CopyReport) -> bytes:
    """The records the trace cites, redacted, one JSON object a line (sorted by id): `id`,
    `source`, `line`, `sha256` (of the raw record) and `record` (its redacted text), or
    `missing` (why it could not be read here)."""
    from ..redact import Redactor

    prov = Provenance.model_validate_json(next(f.data for f in files if f.name == "provenance.json"))
    root = Path(row.unit_path).parent
    redactor = Redactor()
    cache: dict[str, bytes | None] = {}
    out: list[bytes] = []
    for ev_id, info in sorted(prov.evidence.items()):
        entry: dict[str, object] = {"id": ev_id, "source": info.source, "line": info.line, "sha256": info.sha256}
        if info.source not in cache:
            p = root / info.source
            try:
                cache[info.source] = p.read_bytes() if ":" not in info.source and p.is_file() else None
            except OSError:
                cache[info.source] = None
        data = cache[info.source]
        raw = data[info.byte_offset: info.byte_offset + info.byte_length] if data is not None else None
        if raw is None:
            entry["missing"] = "its log is not on this machine"
        elif hashlib.sha256(raw).hexdigest() != info.sha256:
            entry["missing"] = "the log changed since the trace was made (sha256 differs)"
        else:
            entry["record"] = redactor.redact(raw.decode("utf-8", "replace"))
            rep.evidence_shipped += 1
        if "missing" in entry:
            rep.evidence_missing.append(f"{row.trace_id}: {info.source}:{info.line}: {entry['missing']}")
        out.append(json.dumps(entry, ensure_ascii=False, sort_keys=True).encode() + b"\n")
    return b"".join(out)


def check_copyable(src: Store, dst: Store) -> None:
    if src.url == dst.url:
        raise InputError("copying a store onto itself")


__all__ = ["EVIDENCE_FILE", "CopyReport", "check_copyable", "copy_store"]
