"""`forsy store copy`: move a local store's traces into another (usually the team's shared one).

What is copied: every trace with its folder files (redacted trace.json, manifest.json,
provenance.json, README.md, artifacts/…), its search texts and its draft's review history:
status, version, the reviewed-trace links (reviewed_as, review_of, validation_level), the
reviewers' proposals (with the values they replaced) and the audit records (who, when, the
trace hashes before and after), each as it was in the source, plus one `review_copied` audit
record saying where it came from. So `forsy review export` on the destination publishes what
was reviewed locally, and its audit log still says who reviewed what. Raw logs never are
copied. With `ship_evidence`, each trace also gets `evidence.jsonl`: the log records its
provenance cites, read from the logs on this machine (checked against their sha256) and
redacted — only when asked, since a redacted record still carries more than the trace.

Idempotent: a trace already in the destination is left as it is (trace ids are content
hashes), and a review history found there as the source has it counts as already there, so
running it twice adds nothing. A trace's `prior_trace_id` is copied before it, and a draft's
reviewed trace right after it, in the same transaction. A review history is only given to a
destination draft that has none of its own; one that has (reviewed or given a status there) is
left untouched and the trace is listed in `not_copied` with why: two histories are never merged;
the trace that draft's approval made in the source is then not copied (listed too), since the
destination would publish an approval it holds no record of.
A status an older forsy's copy set (it copied nothing else) is no history of the destination's:
such a draft is given the history it stood for, after that record.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..assemble import Assembled
from ..errors import InputError
from ..models import Manifest, Provenance, Trace
from ..urls import shown_url
from . import Store
from ._query import COPY_ACTION, has_history, old_copy_record
from .models import AuditRow, DraftState, NewTrace, ProposalRow, StoredFile, TraceQuery, TraceRow
from .sink import model_values, search_texts

EVIDENCE_FILE = "evidence.jsonl"
ALL = 10**9


@dataclass
class CopyReport:
    copied: int = 0
    already: int = 0  # in the destination before
    reviews_copied: int = 0  # drafts whose review history was carried
    reviews_already: int = 0  # ... found there already, as the source has it (an earlier copy)
    proposals_copied: int = 0
    audit_copied: int = 0  # audit records carried (besides the one `review_copied` record each)
    status_set: int = 0  # of the histories carried, those whose draft is no longer pending
    evidence_shipped: int = 0  # records
    evidence_missing: list[str] = field(default_factory=list)  # "trace: why"
    not_copied: list[str] = field(default_factory=list)  # "trace: what and why"


@dataclass(frozen=True)
class _History:
    state: DraftState
    proposals: list[ProposalRow]
    audit: list[AuditRow]  # without the draft's `draft_created` (each store has its own)

    @staticmethod
    def of(store: Store, trace_id: str) -> _History | None:
        state = store.draft_state(trace_id)
        if state is None:
            return None
        audit = [a for a in store.audit(trace_id, limit=ALL) if a.action != "draft_created"]
        return _History(state, store.proposals(trace_id), audit)

    def key(self) -> tuple[object, ...]:
        """What two copies of one history share (not the row ids, which are each store's own, nor
        the records copies add: `review_copied`, and an older forsy's status records)."""
        s = self.state
        return ((s.status, s.version, s.updated_at, s.reviewed_as, s.review_of, s.validation_level),
                [(p.path, p.value_json, p.origin, p.actor, p.created_at, p.replaced_json, p.citations_json)
                 for p in self.proposals],
                [(a.at, a.actor, a.action, a.detail_json, a.before_sha256, a.after_sha256)
                 for a in self.audit if a.action != COPY_ACTION and not old_copy_record(a)])

    def describe(self) -> str:
        return (f"{self.state.status}, version {self.state.version}, {len(self.proposals)} proposal(s), "
                f"{len(self.audit)} audit record(s)")


def copy_store(src: Store, dst: Store, now: str, *, ship_evidence: bool = False) -> CopyReport:
    rep = CopyReport()
    rows = {r.trace_id: r for r in src.traces(TraceQuery(limit=ALL))}
    done: set[str] = set()
    refused: set[str] = set()  # drafts whose review history the destination did not take
    unread: set[str] = set()  # traces whose stored files could not be read (not copied)
    note = f"copied from {shown_url(src.url)}"

    def one(row: TraceRow) -> None:
        if row.trace_id in done:
            return
        done.add(row.trace_id)
        if row.prior_trace_id and row.prior_trace_id in rows:
            one(rows[row.prior_trace_id])  # the prior first: the link is a foreign key
            if row.prior_trace_id in unread:
                unread.add(row.trace_id)
                rep.not_copied.append(f"{row.trace_id}: its prior trace {row.prior_trace_id} "
                                      "could not be read")
                return
        have = _History.of(src, row.trace_id)
        if have is not None and have.state.review_of in refused:
            # the trace an approval made, without that approval: the destination would publish a
            # review it holds no record of, of a draft that has another history there
            rep.not_copied.append(f"{row.trace_id}: it is the trace the approval of "
                                  f"{have.state.review_of} made, whose review history was not copied")
            return
        try:
            files = src.trace_files(row.trace_id)
        except InputError as e:  # this trace, not the copy: the others are copied
            unread.add(row.trace_id)
            rep.not_copied.append(f"{row.trace_id}: {e.message}")
            return
        if ship_evidence:
            files.append(StoredFile(EVIDENCE_FILE, _evidence(row, files, rep)))
        if dst.add_trace(_new_trace(row, files), row.created_at):
            rep.copied += 1
        else:
            rep.already += 1
        if have is None:
            return
        if not _carry_review(src.url, dst, have, note, now, rep):
            refused.add(row.trace_id)
        if have.state.reviewed_as in rows:
            one(rows[have.state.reviewed_as])  # an approved draft and the trace its approval made: together

    for row in sorted(rows.values(), key=lambda r: (r.created_at, r.trace_id)):
        with dst.transaction():
            one(row)
    return rep


def _carry_review(src_url: str, dst: Store, have: _History, note: str, now: str, rep: CopyReport) -> bool:
    """Give the destination's draft the source's review history, when it has one; False when
    the destination's draft has a history of its own (reported)."""
    trace_id = have.state.trace_id
    if not has_history(have.state, len(have.proposals), len(have.audit)):
        return True
    if dst.import_review(trace_id, have.state, have.proposals, have.audit, note, now):
        rep.reviews_copied += 1
        rep.proposals_copied += len(have.proposals)
        rep.audit_copied += len(have.audit)
        rep.status_set += int(have.state.status != "pending")
        return True
    there = _History.of(dst, trace_id)
    if there is not None and there.key() == have.key():
        rep.reviews_already += 1  # an earlier copy of this very history
        return True
    rep.not_copied.append(
        f"{trace_id}: its review history ({have.describe()}) stays in {shown_url(src_url)}: the destination's "
        f"draft has its own review history ({there.describe() if there else 'gone'}); histories are never merged")
    return False


def _new_trace(row: TraceRow, files: list[StoredFile]) -> NewTrace:
    by_name = {f.name: f.data for f in files}
    a = Assembled(trace=Trace.model_validate_json(by_name["trace.json"]),
                  provenance=Provenance.model_validate_json(by_name["provenance.json"]),
                  manifest=Manifest.model_validate_json(by_name["manifest.json"]), files={})
    return NewTrace(trace_id=row.trace_id, source_kind=row.source_kind, session_id=row.session_id,
                    unit_path=row.unit_path, agent=row.agent, project=row.project, started_at=row.started_at,
                    ended_at=row.ended_at, confidence=row.confidence, steps=row.steps, turns=row.turns,
                    task=row.task, files=files, texts=search_texts(a), prior_trace_id=row.prior_trace_id,
                    model_values=model_values(a))


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
