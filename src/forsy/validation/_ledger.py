"""N009/N010: the manifest's ledger adds up (every record read is accounted for once).

N009 (error) is arithmetic inside the manifest: a file's entries sum to its totals, the
totals to its records_read, and the records with evidence (all but the unparsable ones kept
without: record type `(unparsed)`) to `counts.evidence_records`.
N010 (warning) compares with what other parts say: the cited records with the evidence
provenance.json holds, the unparsable ones with `counts.unparsable_records`.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..models import LEDGER_HEADINGS, UNPARSED, Manifest, Provenance
from ._base import Sink


def _ledger(m: Any) -> Manifest | None:
    try:
        man = Manifest.model_validate(m)
    except ValidationError:
        return None  # N003 says why
    return man if man.ledger is not None else None


def check_ledger(m: Any, sink: Sink) -> None:
    man = _ledger(m)
    if man is None:
        return
    assert man.ledger is not None  # for mypy: _ledger returns only manifests with one
    with_evidence = 0
    for i, f in enumerate(man.ledger):
        where = f"manifest.ledger[{i}]"
        for h in LEDGER_HEADINGS:
            summed = sum(e.count for e in f.entries if e.heading == h)
            if f.totals.get(h, 0) != summed:  # type: ignore[call-overload]
                sink.add("N009", f"{f.path}: {h} total is {f.totals.get(h, 0)}, its entries "  # type: ignore[call-overload]
                         f"sum to {summed}", field=f"{where}.totals.{h}")
        total = sum(f.totals.values())
        if total != f.records_read:
            sink.add("N009", f"{f.path}: the headings add up to {total}, not to the {f.records_read} "
                     "records read", field=f"{where}.records_read")
        # an unparsable line a reader kept as Evidence (Codex keeps each line's) has Evidence too
        with_evidence += sum(e.count for e in f.entries if e.heading != "unparsable" or e.record_type != UNPARSED)
    want = man.counts.get("evidence_records")
    if want is not None and want != with_evidence:
        sink.add("N009", f"the ledger accounts for {with_evidence} records with evidence, counts.evidence_records "
                 f"is {want}", field="manifest.ledger")
    unparsable = sum(f.totals.get("unparsable", 0) for f in man.ledger)
    have = man.counts.get("unparsable_records")
    if have is not None and have != unparsable:
        sink.add("N010", f"the ledger has {unparsable} unparsable records, counts.unparsable_records is {have}",
                 field="manifest.ledger")


def ledger_vs_provenance(prov: Provenance, m: Any, sink: Sink) -> None:
    man = _ledger(m)
    if man is None or man.ledger is None:
        return
    cited = sum(f.totals.get("cited", 0) for f in man.ledger)
    if cited != len(prov.evidence):
        sink.add("N010", f"the ledger says {cited} records are cited, provenance.json holds {len(prov.evidence)} "
                 "evidence records", field="manifest.ledger")
