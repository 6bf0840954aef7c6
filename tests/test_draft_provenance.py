"""The segmenter's provenance is built without pydantic's `model_construct` (for speed): it
must be the very object `model_construct` builds, field for field, and serialise the same."""

from __future__ import annotations

from pathlib import Path

from forsy.assemble import assemble
from forsy.evidence import Ref
from forsy.models import EvidenceInfo, EvidenceRef, FieldProvenance, Step, StepProvenance, trusted
from forsy.rules.draft import copied, derived, sharing_refs
from forsy.rules.segment import Segmenter
from forsy.run import RetraceOptions
from forsy.run.discovery import read

SAMPLE = Path(__file__).resolve().parent.parent / "sample_logs" / "claude" / "demo-session.jsonl"


def _reference(origin: str, rule: str | None, params: dict[str, str | int | float] | None, refs: list[Ref],
               excerpt: bool) -> FieldProvenance:
    evidence = [EvidenceRef.model_construct(id=r.ev, pointer=r.pointer) for r in refs]
    return FieldProvenance.model_construct(origin=origin, rule=rule, params=params, evidence=evidence,
                                           redacted=False, excerpt=excerpt, model=None)


def _same(built: FieldProvenance, ref: FieldProvenance) -> None:
    assert type(built) is FieldProvenance
    assert list(built.__dict__.items()) == list(ref.__dict__.items())
    assert built.model_fields_set == ref.model_fields_set
    assert built.__pydantic_extra__ == ref.__pydantic_extra__
    assert built.__pydantic_private__ == ref.__pydantic_private__
    assert built == ref
    assert built.model_dump_json(indent=2) == ref.model_dump_json(indent=2)
    assert built.model_dump() == ref.model_dump()
    for b, r in zip(built.evidence, ref.evidence, strict=True):
        assert type(b) is EvidenceRef
        assert list(b.__dict__.items()) == list(r.__dict__.items())
        assert b.model_fields_set == r.model_fields_set
    # the object is a real model: validation accepts what it dumps, and assignment still validates
    assert FieldProvenance.model_validate(built.model_dump()) == built


def test_copied_is_what_model_construct_builds() -> None:
    refs = [Ref("ev_a", "/message/content/0"), Ref("ev_b", "")]
    _same(copied(refs), _reference("copied", None, None, refs, False))
    _same(copied(refs[:1], rule="C-json-string", params={"pointer": "/x"}, excerpt=True),
          _reference("copied", "C-json-string", {"pointer": "/x"}, refs[:1], True))


def test_derived_is_what_model_construct_builds() -> None:
    refs = [Ref("ev_a", "/timestamp")]
    _same(derived("R-retry", refs, similarity=93, failed_step=2),
          _reference("derived", "R-retry", {"similarity": 93, "failed_step": 2}, refs, False))
    _same(derived("R-time", []), _reference("derived", "R-time", None, [], False))


def test_each_value_has_its_own_evidence_and_fields_and_can_still_be_assigned() -> None:
    a, b = derived("R-time", [Ref("ev_a", "")]), derived("R-time", [Ref("ev_a", "")])
    assert a.evidence is not b.evidence and a.__dict__ is not b.__dict__
    a.redacted = True  # assignment works as on any model (the shared fields set takes the name)
    assert (a.redacted, b.redacted) == (True, False)
    assert b.model_dump_json() == derived("R-time", [Ref("ev_a", "")]).model_dump_json()


def test_trusted_is_model_construct_for_the_assembler_parts() -> None:
    """assemble builds StepProvenance and EvidenceInfo with `trusted` too."""
    fields = {"tool": derived("R-time", [Ref("ev_a", "")])}
    got = trusted(StepProvenance, {"step": 3, "evidence": ["ev_a"], "fields": fields})
    ref = StepProvenance.model_construct(step=3, evidence=["ev_a"], fields=fields)
    info = {"source": "a.jsonl", "line": 4, "byte_offset": 10, "byte_length": 20, "sha256": "0" * 64,
            "record_type": None}
    got_info, ref_info = trusted(EvidenceInfo, dict(info)), EvidenceInfo.model_construct(**info)
    for g, r in ((got, ref), (got_info, ref_info)):
        assert type(g) is type(r)
        assert list(g.__dict__.items()) == list(r.__dict__.items())
        assert g.model_fields_set == r.model_fields_set
        assert g == r and g.model_dump_json(indent=2) == r.model_dump_json(indent=2)
    # every field is named: a model whose fields changed would fail here, not write less
    assert list(StepProvenance.model_fields) == ["step", "evidence", "fields"]
    assert list(EvidenceInfo.model_fields) == list(info)
    assert list(FieldProvenance.model_fields) == ["origin", "rule", "params", "evidence", "redacted", "excerpt",
                                                  "model", "reviewer"]
    assert list(EvidenceRef.model_fields) == ["id", "pointer"]


def test_values_citing_one_place_share_its_evidence_ref_while_a_session_is_segmented() -> None:
    place = Ref("ev_a", "/timestamp")
    with sharing_refs():
        a, b = derived("R-time", [place]), copied([Ref("ev_a", "/timestamp"), Ref("ev_b", "")])
        c = copied([Ref("ev_a", "/message")])
    assert a.evidence[0] is b.evidence[0]  # one object for one place, however the Ref was made
    assert c.evidence[0] is not a.evidence[0] and c.evidence[0].pointer == "/message"
    _same(b, _reference("copied", None, None, [place, Ref("ev_b", "")], False))
    outside = derived("R-time", [place])  # no sharing outside the block: nothing held between sessions
    assert outside.evidence[0] is not a.evidence[0] and outside.evidence[0] == a.evidence[0]


def test_a_segmented_session_holds_one_evidence_ref_per_place_it_cites() -> None:
    session = next(iter(read([SAMPLE], RetraceOptions(redact=False))))
    drafts = Segmenter(session).run()
    refs = [r for d in drafts for p in d.prov.values() for r in p.evidence]
    places = {(r.id, r.pointer) for r in refs}
    assert len(refs) > len(places)  # the sample cites some places more than once
    assert len({id(r) for r in refs}) == len(places)


def test_an_assembled_provenance_shares_one_fields_set_per_model() -> None:
    """a set per model is ~200 bytes (a step's 28 names ~2 KB), tens of thousands of times on a
    large log (see `trusted`); the steps are validated, then kept the same way"""
    session = next(iter(read([SAMPLE], RetraceOptions(redact=False))))
    seg = Segmenter(session)
    assembled = assemble(session, seg.run(), release_tier="private", redaction={}, matches=seg.matches)
    prov = assembled.provenance
    for parts, names in ((prov.steps, {"step", "evidence", "fields"}), (list(prov.evidence.values()),
                         {"source", "line", "byte_offset", "byte_length", "sha256", "record_type"}),
                         (assembled.trace.steps, set(Step.model_fields))):
        assert len(parts) > 1 and all(p.model_fields_set == names for p in parts)
        assert len({id(p.model_fields_set) for p in parts}) == 1



_SHARING = """
import sys, tracemalloc
from pathlib import Path
from forsy.assemble import assemble
from forsy.models import EvidenceInfo, EvidenceRef, FieldProvenance, trusted
from forsy.rules.segment import Segmenter
from forsy.run import RetraceOptions
from forsy.run.discovery import read

# the whole flow first, so whatever it does to these models has been done
session = next(iter(read([Path(sys.argv[1])], RetraceOptions(redact=False))))
seg = Segmenter(session)
assemble(session, seg.run(), release_tier="private", redaction={}, matches=seg.matches).provenance.model_dump_json()
ref = EvidenceRef.model_construct(id="ev_a", pointer="/x")
kinds = [(FieldProvenance, lambda: {"origin": "copied", "rule": None, "params": None, "evidence": [ref],
                                    "redacted": False, "excerpt": False, "model": None, "reviewer": None}),
         (EvidenceInfo, lambda: {"source": "a.jsonl", "line": 4, "byte_offset": 10, "byte_length": 20,
                                 "sha256": "0" * 64, "record_type": None})]


def own_dict(cls, values, fields_set):  # what `trusted` did before: the values made the instance's dict
    m = object.__new__(cls)
    for name, value in (("__dict__", values), ("__pydantic_fields_set__", fields_set),
                        ("__pydantic_extra__", None), ("__pydantic_private__", None)):
        object.__setattr__(m, name, value)
    return m


tracemalloc.start()
for cls, values in kinds:
    shared = set()
    for build in (lambda: trusted(cls, values(), shared), lambda: own_dict(cls, values(), shared)):
        before = tracemalloc.get_traced_memory()[0]
        kept = [build() for _ in range(2000)]
        print((tracemalloc.get_traced_memory()[0] - before) / len(kept))
        del kept
"""


def test_the_models_built_unvalidated_hold_their_values_in_dicts_that_share_keys() -> None:
    """~120,000 of them on a 100 MB log: a dict of its own per model (272 bytes for a
    FieldProvenance's 8 fields) cost 15 MB more at the peak than dicts sharing their keys.
    Measured in a child, after the whole flow has run there: a path that built them another
    way could make every later one a dict of its own."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _SHARING, str(SAMPLE)], capture_output=True, text=True, timeout=120,
                         check=True).stdout.split()
    provenance, provenance_own, info, info_own = (float(x) for x in out)
    assert provenance_own - provenance > 100, (provenance, provenance_own)
    assert info_own - info > 100, (info, info_own)
