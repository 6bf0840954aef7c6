"""The segmenter's provenance is built without pydantic's `model_construct` (for speed): it
must be the very object `model_construct` builds, field for field, and serialise the same."""

from __future__ import annotations

from forsy.evidence import Ref
from forsy.models import EvidenceInfo, EvidenceRef, FieldProvenance, StepProvenance, trusted
from forsy.rules.draft import copied, derived


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
