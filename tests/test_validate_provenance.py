"""provenance.json is checked one step at a time (a large file's step models would double the
memory validation needs): its findings must be exactly those of validating the whole file
with its model, in the same order, and no other P finding when it does not fit the model."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from forsy.models import Provenance
from forsy.validation._base import Sink
from forsy.validation._folder import error_findings
from forsy.validation._provenance import check_provenance
from test_validate import valid_provenance, valid_trace

Edit = Callable[[dict[str, Any]], Any]


def _whole_model_findings(p: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    sink = Sink()
    try:
        Provenance.model_validate(p)
    except ValidationError as exc:
        error_findings(exc.errors(), "P002", "provenance", sink)
    return [(f.rule, f.message, f.field) for f in sink.findings]


def _step(i: int, edit: Edit) -> Edit:
    return lambda p: edit(p["steps"][i])


def _field(i: int, name: str, edit: Edit) -> Edit:
    return lambda p: edit(p["steps"][i]["fields"][name])


EDITS: dict[str, list[Edit]] = {
    "a step's field of the wrong type": [_field(1, "tool", lambda f: f.update(origin="guessed"))],
    "a step that is not an object": [lambda p: p["steps"].__setitem__(0, 5)],
    "a step's number as text": [_step(1, lambda s: s.update(step="two"))],
    "unknown keys in a step and at the top": [_step(0, lambda s: s.update(extra=1)), lambda p: p.update(zz=1)],
    "missing keys in steps and at the top": [_step(0, lambda s: s.pop("evidence")), lambda p: p.pop("sources"),
                                             _field(1, "tool", lambda f: f.pop("origin"))],
    "errors before, in and after the steps": [
        lambda p: p.update(trace_id=7), lambda p: p.update(matches="none"),
        _field(1, "tool", lambda f: f["evidence"].append({"id": 3})), lambda p: p["evidence"].update(x={"line": 1}),
        _step(0, lambda s: s.update(fields=[])), lambda p: p.update(aa=1)],
    "steps not a list": [lambda p: p.update(steps={"1": {}})],
    "no steps": [lambda p: p.pop("steps")],
}


@pytest.mark.parametrize("name", list(EDITS))
def test_the_findings_are_those_of_the_whole_model(name: str) -> None:
    t = valid_trace()
    p = valid_provenance(t)
    for edit in EDITS[name]:
        edit(p)
    expected = _whole_model_findings(copy.deepcopy(p))
    assert expected and all(rule == "P002" for rule, _, _ in expected)
    sink = Sink()
    check_provenance(p, t, t["steps"], None, sink)
    assert [(f.rule, f.message, f.field) for f in sink.findings] == expected


def test_a_step_rule_finding_is_kept_when_the_file_fits_its_model() -> None:
    t = valid_trace()
    p = valid_provenance(t)
    p["steps"].append(copy.deepcopy(p["steps"][1]))  # P005
    p["steps"][0]["fields"]["input"]["evidence"] = [{"id": "ev_absent"}]  # P006
    p["trace_id"] = "other"  # P003, reported before the steps' findings
    assert _whole_model_findings(p) == []
    sink = Sink()
    check_provenance(p, t, t["steps"], None, sink)
    assert [f.rule for f in sink.findings] == ["P003", "P006", "P005"]


def test_a_step_rule_finding_is_dropped_when_a_later_step_does_not_fit() -> None:
    t = valid_trace()
    p = valid_provenance(t)
    p["steps"][0]["fields"]["input"]["evidence"] = [{"id": "ev_absent"}]  # P006 on its own
    p["steps"][-1]["step"] = "last"
    sink = Sink()
    check_provenance(p, t, t["steps"], None, sink)
    assert [f.rule for f in sink.findings] == ["P002"]
