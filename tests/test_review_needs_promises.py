"""The promises of `forsy.review.needs` ("needs you", at the top of a draft's page), on a draft
built here by hand: every trace-level judgement in its order, with its kind, its value as text
and who set it; every value a model proposed (trace field or step field, still there or already
replaced by a reviewer) with its quotes and the reviewer's decision; the confidence factors, the
cut outputs, the reading warnings, the validator's findings of the edited draft; and the count
of what is still open."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from forsy.proposals import Actor, Proposal, Replaced
from forsy.review import needs as nd
from forsy.review.needs import Factor, Judgement, ModelValue, decisions, judgements, model_values, needs
from forsy.review.source import LoadedTrace
from forsy.validation._base import Finding
from forsy.validation.check import Report

ADA = "Ada <ada@example.org>"
TERMS = ("task_complete", "user_confirmed_done", "user_abandoned", "agent_blocked", "timeout", "error_unrecoverable",
         "partial_then_stopped", "other")


def model(name: str, *quotes: str) -> dict[str, Any]:
    return {"origin": "model", "rule": None, "model": {"model": name, "citations": [{"id": "ev", "quote": q}
                                                                                  for q in quotes]}}


def human(who: str | None, replaced: dict[str, Any] | None = None) -> dict[str, Any]:
    r: dict[str, Any] = {} if who is None else {"reviewer": who}
    if replaced is not None:
        r["replaced"] = replaced
    return {"origin": "human", "reviewer": r}


def draft(proposals: list[Proposal] | None = None) -> LoadedTrace:
    trace = {
        "summary": {"goal_achieved": True, "goal_notes": None},
        "termination_reason": "task_complete",
        "learning": "Read <b>first</b>.",
        "dataset_summary": {"description": "A fix."},
        "steps": [{"step": 1, "observation": None, "eval": 0},
                  {"step": 2, "observation": "It reads the file.", "eval": 1, "reasoning": "Looks."},
                  {"step": 3, "observation": None, "eval": -1, "output": "cut…"}],
    }
    prov = {
        "trace_fields": {
            "summary.goal_achieved": human(ADA),
            "termination_reason": {"origin": "derived", "rule": "T-termination/answer"},
            "learning": model("m/one", "read it", "first"),
            "dataset_summary.description": {"origin": "copied"},
            "trace_id": {"origin": "derived", "rule": "T-id"},
            "odd": "not a dict",
        },
        "steps": [
            {"step": 2, "fields": {"observation": model("m/two", "import re"), "eval": {"origin": "derived"},
                                   "reasoning": human(None, {"value": "Reads.", "origin": "model"})}},
            {"step": 3, "fields": {"output": {"origin": "copied", "excerpt": True},
                                   "observation": human(ADA, {"value": "Fails.", "origin": "model"})}},
            {"step": 1, "fields": {"output": {"origin": "copied", "excerpt": False}, "eval": "x"}},
        ],
    }
    manifest = {
        "confidence_factors": [{"name": "base", "value": 90, "penalty": 0, "note": "full transcript"},
                               {"name": "gaps", "value": 2, "penalty": 7.5},
                               "not a factor", {"value": None}],
        "warnings": [{"code": "W-gap", "message": "a line is missing", "file": "s.jsonl", "line": 12},
                     {"code": "W-time", "message": "no clock"}, "not a warning"],
    }
    return LoadedTrace("forsy_t", {"trace.json": b"{}", "manifest.json": b'{"m": 1}', "README.md": b"card"}, trace,
                       prov, manifest, [], None, None, proposals or [])


def test_the_judgements_in_order_with_kind_value_and_who_set_them() -> None:
    got = judgements(draft(), set())
    assert got == [
        Judgement("/summary/goal_achieved", "Was the user's goal achieved?", "bool", "true", f"decided by {ADA}", True),
        Judgement("/termination_reason", "Why did the session end?", "choice", "task_complete",
                  "derived by rule T-termination/answer", False, TERMS),
        Judgement("/summary/goal_notes", "Notes on the goal", "text", "", "not assessed", False),
        Judgement("/learning", "What is there to learn from it?", "text", "Read <b>first</b>.",
                  "proposed by model m/one", False),
        Judgement("/dataset_summary/description", "Summary of the work", "text", "A fix.", "copied", False),
    ]
    accepted = {"/learning", "/summary/goal_notes"}
    assert [j.decided for j in judgements(draft(), accepted)] == [True, False, True, True, False]


@pytest.mark.parametrize(("fp", "value", "want"), [
    (human(ADA), 1, f"decided by {ADA}"), (human(None), 1, "decided by a reviewer"),
    ({"origin": "human"}, 1, "decided by a reviewer"),
    ({"origin": "human", "reviewer": None}, None, "decided by a reviewer"),
    (model("m/x"), None, "proposed by model m/x"), ({"origin": "model"}, 1, "proposed by model"),
    ({"origin": "model", "model": None}, 1, "proposed by model"),
    ({"origin": "derived", "rule": "R-x"}, 1, "derived by rule R-x"),
    ({"origin": "derived"}, 1, "derived by rule None"),
    ({}, None, "not assessed"), ({"origin": "copied"}, None, "not assessed"), ({"origin": "copied"}, "v", "copied"),
    ({}, "v", "as retraced"), ({"origin": None}, 0, "as retraced"), ({"origin": ""}, False, "as retraced"),
])
def test_who_set_a_value(fp: dict[str, Any], value: Any, want: str) -> None:
    assert nd._origin(fp, value) == want


def test_every_model_value_with_its_quotes_and_the_decision() -> None:
    props = [Proposal("/steps/3/observation", "Fails here.", "human", Actor(ADA), replaces=Replaced("Fails.", None)),
             Proposal("/steps/2/reasoning", None, "human", Actor(ADA), replaces=Replaced("Reads.", None)),
             Proposal("/learning", "x", "model", Actor("m/one"))]  # a model's own proposal is no decision
    got = model_values(draft(props), {"/steps/2/observation"})
    assert got == [
        ModelValue("/learning", "Read <b>first</b>.", "m/one", ("read it", "first"), ""),
        ModelValue("/steps/2/observation", "It reads the file.", "m/two", ("import re",), "accepted"),
        # already replaced by a reviewer: the model's value as it was, no model named, the decision
        ModelValue("/steps/2/reasoning", "Reads.", "", (), "declined"),
        ModelValue("/steps/3/observation", "Fails.", "", (), "replaced"),
    ]


def test_a_reviewers_last_action_on_a_path_is_its_decision() -> None:
    props = [Proposal("/steps/2/eval", 1, "human", Actor(ADA), replaces=Replaced(1, None)),
             Proposal("/steps/3/eval", 0, "human", Actor(ADA), replaces=Replaced(-1, None)),
             Proposal("/steps/2/observation", None, "human", Actor(ADA), replaces=Replaced("It reads.", None)),
             Proposal("/learning", "New.", "human", Actor(ADA)),  # it replaced a null
             Proposal("/termination_reason", "other", "human", Actor(ADA), replaces=Replaced("task_complete", None)),
             Proposal("/termination_reason", "other", "human", Actor(ADA), replaces=Replaced("other", None)),
             Proposal("/summary/goal_notes", "m", "model", Actor("m/x"))]
    assert decisions(draft(props)) == {"/steps/2/eval": "accepted", "/steps/3/eval": "replaced",
                                       "/steps/2/observation": "declined", "/learning": "replaced",
                                       "/termination_reason": "accepted"}


def test_needs_gathers_factors_cut_outputs_warnings_findings_and_counts_what_is_open(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, bytes]] = []
    findings = [Finding("V-a", "error", "bad <x>", step=2), Finding("N-hash", "error", "sha differs"),
                Finding("W-b", "warning", "odd")]

    def fake(files: dict[str, bytes]) -> Report:
        seen.append(dict(files))
        return Report("x", findings, False, {})

    from forsy import validation

    monkeypatch.setattr(validation, "validate_files", fake)
    d = draft()
    n = needs(d)
    [files] = seen
    assert files == {"trace.json": orjson.dumps(d.trace), "provenance.json": orjson.dumps(d.provenance),
                     "manifest.json": b'{"m": 1}', "README.md": b"card"}  # the edited draft, its own other files
    # as `forsy validate` says them, the rule once; the manifest's own hashes (N-…) describe the stored draft
    assert [str(f) for f in n.findings] == ["error V-a step 2: bad <x>", "warning W-b odd"]
    assert n.factors == [Factor("base", 0.0, 90.0, "full transcript"), Factor("gaps", 7.5, 2.0, ""),
                         Factor("None", 0.0, 0.0, "")]
    assert n.cut_outputs == [3]
    assert n.reading_warnings == ["W-gap: a line is missing (s.jsonl:12)", "W-time: no clock"]
    assert [j.path for j in n.judgements] == [p for p, _ in nd.JUDGEMENTS]
    # open: four judgements not decided (one is a reviewer's) and the four model values (no proposal decided one)
    assert n.open_count == 4 + 4
    n2 = needs(d, {"/learning", "/steps/2/observation", "/termination_reason"})
    assert n2.open_count == 2 + 2 and [m.decision for m in n2.model_values] == ["accepted", "accepted", "", ""]


def test_what_the_validator_says_of_many_steps_is_one_line_with_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule saying the same of many steps is one line naming them in order; another message
    of the same rule, or the same message of another rule or severity, is a line of its own,
    errors before warnings as the validator orders them."""
    from forsy import validation

    said = [Finding("S015", "warning", "success is null", step=7), Finding("S001", "error", "bad", step=3),
            Finding("S015", "warning", "success is null", step=2), Finding("S015", "warning", "other words", step=4),
            Finding("S016", "warning", "success is null", step=5), Finding("S015", "error", "success is null", step=6),
            Finding("S015", "warning", "success is null", step=7), Finding("M009", "warning", "goal not assessed"),
            Finding("S015", "warning", "success is null", step=9)]
    monkeypatch.setattr(validation, "validate_files", lambda files: Report("x", said, False, {}))
    got = needs(LoadedTrace("forsy_t", {}, {}, {}, {}, [])).findings
    assert got == [nd.FindingLine("error", "S001", "bad", (3,)),
                   nd.FindingLine("error", "S015", "success is null", (6,)),
                   nd.FindingLine("warning", "S015", "success is null", (2, 7, 9)),
                   nd.FindingLine("warning", "S015", "other words", (4,)),
                   nd.FindingLine("warning", "S016", "success is null", (5,)),
                   nd.FindingLine("warning", "M009", "goal not assessed", ())]
    assert [str(f) for f in got[2:]] == ["warning S015 steps 2, 7, 9: success is null",
                                         "warning S015 step 4: other words",
                                         "warning S016 step 5: success is null", "warning M009 goal not assessed"]


def test_a_draft_with_nothing_to_say_needs_the_judgements_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from forsy import validation

    monkeypatch.setattr(validation, "validate_files", lambda files: Report("x", [], False, {}))
    d = LoadedTrace("forsy_t", {}, {}, {}, {}, [])
    n = needs(d)
    assert (n.findings, n.factors, n.model_values, n.cut_outputs, n.reading_warnings) == ([], [], [], [], [])
    assert [(j.value, j.origin, j.decided) for j in n.judgements] == [("", "not assessed", False)] * 5
    assert n.open_count == 5


@pytest.mark.parametrize(("path", "want"), [
    ("/summary/goal_achieved", True), ("/steps/2/observation", "It reads the file."), ("/steps/3/eval", -1),
    ("/steps/1/eval", 0), ("/steps/0/eval", None), ("/steps/4/eval", None), ("/steps/x/eval", None),
    ("/learning/more", None), ("/nothing/here", None), ("summary/goal_notes", None),
    ("/dataset_summary", {"description": "A fix."}),
])
def test_a_value_found_by_its_path(path: str, want: Any) -> None:
    assert nd._at(draft().trace, path) == want


@pytest.mark.parametrize(("v", "want"), [(None, ""), ("", ""), ("<b>x</b>", "<b>x</b>"), (True, "true"),
                                         (False, "false"), (0, "0"), (-1, "-1"), (["a", 1], '["a",1]'),
                                         ({"k": None}, '{"k":null}')])
def test_a_value_as_text(v: Any, want: str) -> None:
    assert nd._text(v) == want


def test_a_fields_provenance_by_its_path() -> None:
    d = draft()
    assert nd._field_prov(d, "/steps/2/observation")["model"]["model"] == "m/two"
    assert nd._field_prov(d, "/summary/goal_achieved") == human(ADA)
    assert nd._field_prov(d, "/steps/9/observation") == {}  # a step with no provenance
    assert nd._field_prov(d, "/steps/1/eval") == {}  # not a dict
    assert nd._field_prov(d, "/trace_fields/odd") == {}
    assert nd._field_prov(d, "/odd") == {}
    assert nd._field_prov(d, "/trace_id") == {"origin": "derived", "rule": "T-id"}
    assert nd._field_prov(d, "/steps/2") == {}  # not a step field: looked up as the trace field "steps.2"


def test_a_model_value_of_a_nested_trace_field_is_found_by_its_path() -> None:
    d = LoadedTrace("forsy_t", {}, {"summary": {"goal_notes": "Tests pass."}},
                    {"trace_fields": {"summary.goal_notes": model("m/n", "2 passed")}}, {}, [])
    assert model_values(d, set()) == [ModelValue("/summary/goal_notes", "Tests pass.", "m/n", ("2 passed",), "")]
    assert model_values(d, {"/summary/goal_notes"})[0].decision == "accepted"
