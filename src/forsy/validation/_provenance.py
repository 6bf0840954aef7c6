"""provenance.json's rules of `forsy validate` (P): the file against its model, then against
the trace, the manifest and itself.

The steps of a large provenance.json are tens of thousands of models (about 140 MB for a
100 MB log, more than the rest of the folder together): each step is validated and checked
alone, then dropped. The findings are those of validating the whole file at once, in the same
order: the model's errors in its fields' order (a step's errors where `steps` comes), and none
of the other rules' findings when the file does not fit its model.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import ErrorDetails

from ..models import STEP_FIELDS, TOP_LEVEL_FIELDS, EvidenceInfo, FieldProvenance, Provenance, StepProvenance
from ._base import Sink, show
from ._folder import error_findings, validated
from ._ledger import ledger_vs_provenance

# Fields that need no provenance entry: structure and labels, not content copied from evidence.
PROVENANCE_EXEMPT = frozenset({"step", "turn", "actor", "action", "eval"})
_STEP_FIELD_SET = frozenset(STEP_FIELDS)
_PROVENANCE_FIELDS = tuple(f for f in STEP_FIELDS if f not in PROVENANCE_EXEMPT)  # in STEP_FIELDS order
_BEFORE_STEPS = frozenset(list(Provenance.model_fields)[: list(Provenance.model_fields).index("steps")])


def check_provenance(raw: Any, t: dict[str, Any], steps: list[Any], manifest: Any, sink: Sink) -> None:
    if not isinstance(raw, dict):
        sink.add("P001", f"provenance is {show(raw)}, not an object", field="provenance")
        return
    errors: list[ErrorDetails] = []
    raw_steps = raw.get("steps")
    if not isinstance(raw_steps, list):  # the model says what is wrong with it
        validated(Provenance, raw, errors)
        error_findings(errors, "P002", "provenance", sink)
        return
    prov = validated(Provenance, {**raw, "steps": []}, errors)  # the rest of the file, with `steps` in its place
    step_errors: list[ErrorDetails] = []
    checked = Sink()  # the steps' findings, kept only if the whole file fits its model
    walk = _StepsWalk(steps, prov.evidence if prov is not None else {}, checked)
    for i, item in enumerate(raw_steps):
        sp = validated(StepProvenance, item, step_errors, ("steps", i))
        if sp is not None and prov is not None and not step_errors:
            walk.step(sp)
    if errors or step_errors:
        before = [e for e in errors if e["loc"] and e["loc"][0] in _BEFORE_STEPS]
        after = [e for e in errors if not (e["loc"] and e["loc"][0] in _BEFORE_STEPS)]
        error_findings(before + step_errors + after, "P002", "provenance", sink)
        return
    assert prov is not None  # for mypy: no error, so the rest of the file was valid
    if prov.trace_id != t.get("trace_id"):
        sink.add(
            "P003", f"provenance trace_id {show(prov.trace_id)} differs from the trace's", field="provenance"
        )
    walk.finish()
    sink.findings += checked.findings
    for f, fp in prov.trace_fields.items():
        if _head(f) not in TOP_LEVEL_FIELDS:
            sink.add("P009", f"provenance.trace_fields names {show(f)}, not a top-level field", field=f)
        _field_provenance(None, f, fp, prov.evidence, sink)
    for ev_id, info in prov.evidence.items():
        if info.source not in prov.sources:
            sink.add(
                "P011",
                f"evidence {ev_id} comes from {show(info.source)}, not in provenance.sources",
                field="provenance.evidence",
            )
    _sources_agree(prov, manifest, sink)
    ledger_vs_provenance(prov, manifest, sink)


class _StepsWalk:
    """The step rules (P004-P007, P009, P010, P012, P008), one provenance step at a time."""

    def __init__(self, steps: list[Any], evidence: dict[str, EvidenceInfo], sink: Sink) -> None:
        self.steps, self.evidence, self.sink = steps, evidence, sink
        self.seen: set[int] = set()

    def step(self, sp: StepProvenance) -> None:
        steps, sink = self.steps, self.sink
        if not 1 <= sp.step <= len(steps):
            sink.add(
                "P004", f"provenance for step {sp.step}, but the trace has {len(steps)} steps", step=sp.step
            )
            return
        if sp.step in self.seen:
            sink.add("P005", "more than one provenance entry for this step", step=sp.step)
            return
        self.seen.add(sp.step)
        for ev_id in sp.evidence:
            if ev_id not in self.evidence:
                sink.add(
                    "P006", f"cites evidence {show(ev_id)}, absent from provenance.evidence", step=sp.step
                )
        s = steps[sp.step - 1]
        s = s if isinstance(s, dict) else {}
        heads: set[str] = set()
        for f, fp in sp.fields.items():
            head = _head(f)
            heads.add(head)
            if head not in _STEP_FIELD_SET:
                sink.add("P009", f"provenance names {show(f)}, not a step field", step=sp.step, field=f)
            elif s.get(head) is None:
                sink.add("P010", f"provenance describes {f}, which is null", step=sp.step, field=f)
            _field_provenance(sp.step, f, fp, self.evidence, sink)
        _uncovered(sp.step, s, heads, sink)

    def finish(self) -> None:
        """The steps no provenance entry describes."""
        for i, s in enumerate(self.steps, start=1):
            if i not in self.seen and isinstance(s, dict):
                _uncovered(i, s, set(), self.sink)


def _head(name: str) -> str:
    """Provenance may name a part of a field ("summary.agent_confidence"): its field is the head."""
    return name.partition(".")[0]


def _uncovered(i: int, s: dict[str, Any], covered: set[str], sink: Sink) -> None:
    missing = [f for f in _PROVENANCE_FIELDS if s.get(f) is not None and f not in covered]
    if missing:
        sink.add("P007", f"no provenance for {', '.join(missing)}", step=i)


def _field_provenance(step: int | None, f: str, fp: FieldProvenance, known: dict[str, EvidenceInfo],
                      sink: Sink) -> None:
    for ref in fp.evidence:
        if ref.id not in known:
            sink.add(
                "P006",
                f"{f} cites evidence {show(ref.id)}, absent from provenance.evidence",
                step=step,
                field=f,
            )
        if ref.pointer and not ref.pointer.startswith("/"):
            sink.add(
                "P012",
                f"{f} evidence pointer {show(ref.pointer)} is not an RFC 6901 pointer",
                step=step,
                field=f,
            )
    if fp.origin == "model" and not fp.model:
        sink.add("P008", f"{f} comes from a model but names no model", step=step, field=f)
    if fp.origin == "human" and not (fp.reviewer or {}).get("reviewer"):
        sink.add("P008", f"{f} comes from a reviewer's edit but names no reviewer", step=step, field=f)
    if fp.origin == "derived" and not fp.rule:
        sink.add("P012", f"{f} is derived but names no rule", step=step, field=f)
    if fp.origin == "copied" and not fp.evidence:
        sink.add("P012", f"{f} is copied but cites no evidence", step=step, field=f)


def _sources_agree(prov: Provenance, manifest: Any, sink: Sink) -> None:
    sources = manifest.get("sources") if isinstance(manifest, dict) else None
    if not isinstance(sources, list):
        return
    for src in sources:
        if not isinstance(src, dict) or not isinstance(src.get("path"), str):
            continue
        theirs = prov.sources.get(src["path"])
        if theirs is not None and theirs != src.get("sha256"):
            sink.add(
                "P013",
                f"source {show(src['path'])}: manifest and provenance give different sha256",
                field="provenance.sources",
            )
