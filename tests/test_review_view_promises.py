"""The promises of `forsy.review.view` (what the terminal, the web app and a rendered page all
show of a trace): the header, the step table, each step's fields with who set them, the failed
steps, files and subagents; long text cut only where it says. Traces built here by hand."""

from __future__ import annotations

from typing import Any

import pytest

from forsy.review import view as vw
from forsy.review.evidence import StepEvidence
from forsy.review.source import LoadedTrace
from forsy.review.view import Extras, FieldView, Header, StepRow
from forsy.store import DraftState

ADA = "Ada <ada@example.org>"


def loaded(trace: dict[str, Any], prov: dict[str, Any] | None = None, manifest: dict[str, Any] | None = None,
           state: DraftState | None = None) -> LoadedTrace:
    return LoadedTrace(str(trace.get("trace_id")), {}, trace, prov or {}, manifest or {}, [], None, state)


@pytest.mark.parametrize(("text", "n", "want"), [
    (None, 80, ""), ("", 80, ""), ("a  b\n\tc ", 80, "a b c"), ("x" * 80, 80, "x" * 80), ("x" * 81, 80, "x" * 79 + "…"),
    ("abcdef", 5, "abcd…"), ("abcde", 5, "abcde"), (12345, 3, "12…"), (["a"], 80, "['a']"),
])
def test_short(text: object, n: int, want: str) -> None:
    assert vw.short(text, n) == want


def test_short_cuts_at_eighty_by_default() -> None:
    assert vw.short("y" * 81) == "y" * 79 + "…" and vw.short("y" * 80) == "y" * 80


def test_the_header() -> None:
    trace = {"trace_id": "forsy_h", "task": "Fix <it>", "started_at": "2026-01-01T10:00:00Z", "ended_at": None,
             "validation_level": "retraced_from_logs", "prior_trace_id": "forsy_p",
             "agent_config": {"agent": "claude-code", "model": "m-1",
                              "token_usage": {"input_tokens": 10, "cache_read_tokens": 3, "output": 2}},
             "summary": {"agent_confidence": 75, "total_turns": 2}, "steps": [{"step": 1}, {"step": 2}, "odd"]}
    man = {"confidence_factors": [{"name": "base", "value": 90, "penalty": 0, "note": "full"},
                                  {"name": "gaps", "value": 2, "penalty": 15}, "not one"]}
    state = DraftState(1, "forsy_h", "needs_changes", 4, "t", "forsy_r", None, None)
    h = vw.header(loaded(trace, manifest=man, state=state))
    assert h == Header(trace_id="forsy_h", task="Fix <it>", agent="claude-code", model="m-1",
                       started_at="2026-01-01T10:00:00Z", ended_at="-", tokens="input 10, cache read 3, output 2",
                       confidence="75", factors=["base: 90 (-0) full", "gaps: 2 (-15)"],
                       validation_level="retraced_from_logs", prior_trace_id="forsy_p", steps=3, turns=2,
                       status="needs_changes", version=4, reviewed_as="forsy_r", review_of=None)
    reviewed = DraftState(2, "forsy_r", "approved", 1, "t", None, "forsy_h", "human_verified")
    h = vw.header(loaded({**trace, "ended_at": "2026-01-01T11:00:00Z"}, manifest=man, state=reviewed))
    assert (h.status, h.version, h.reviewed_as, h.review_of) == ("approved", 1, None, "forsy_h")  # names its draft
    assert h.ended_at == "2026-01-01T11:00:00Z"


def test_the_header_of_a_trace_with_little_in_it() -> None:
    h = vw.header(loaded({"agent_config": "not an object", "summary": None, "steps": None}))
    assert (h.trace_id, h.task, h.agent, h.model, h.started_at, h.ended_at, h.tokens, h.confidence) == (
        "None", "", "-", "-", "-", "-", "-", "-")
    assert (h.factors, h.validation_level, h.prior_trace_id, h.steps, h.turns) == ([], "None", None, 0, 0)
    assert (h.status, h.version, h.reviewed_as, h.review_of) == (None, None, None, None)
    h = vw.header(loaded({"agent_config": {"token_usage": "x"}, "summary": {"total_turns": None}}))
    assert h.tokens == "-" and h.turns == 0


@pytest.mark.parametrize(("step", "want"), [
    ({"step": 3, "started_at": "2026-02-16T09:14:06.328Z", "actor": "agent", "tool": "Bash", "operation": "execute",
      "action": "agent_step", "input": "python  -m\npytest", "success": True, "eval": 1},
     StepRow(3, "09:14:06", "agent", "Bash", "python -m pytest", "yes", "+1", False)),
    ({"step": 4, "operation": "edit", "action": "agent_step", "success": False, "eval": -1},
     StepRow(4, "", "", "edit", "", "no", "-1", True)),
    ({"step": 5, "action": "error", "eval": 0}, StepRow(5, "", "", "error", "", "", "0", True)),
    ({"step": None, "eval": None}, StepRow(0, "", "", "", "", "", "", False)),
    ({"eval": 2, "success": None, "started_at": "short"}, StepRow(0, "", "", "", "", "", "", False)),
    ({"eval": "1"}, StepRow(0, "", "", "", "", "", "", False)),
    # a boolean is no score (the schema refuses it): not shown as +1 or 0
    ({"eval": True}, StepRow(0, "", "", "", "", "", "", False)),
    ({"eval": False}, StepRow(0, "", "", "", "", "", "", False)),
    # a folder given to show/render is not validated first: an eval that is a list or an object
    # (no score, and no key of the score table) shows nothing rather than failing the page
    ({"eval": [1]}, StepRow(0, "", "", "", "", "", "", False)),
    ({"eval": {"score": 1}}, StepRow(0, "", "", "", "", "", "", False)),
])
def test_a_step_row(step: dict[str, Any], want: StepRow) -> None:
    assert vw.step_row(step) == want


def test_rows_skip_what_is_not_a_step() -> None:
    d = loaded({"steps": [{"step": 1}, "odd", {"step": 2}]})
    assert [r.step for r in vw.rows(d)] == [1, 2]


@pytest.mark.parametrize(("fp", "want"), [
    (None, "no provenance recorded"), ({}, "no provenance recorded"),
    ({"origin": "copied", "evidence": [{"id": "ev1"}, {"id": "ev2"}], "rule": "R-user"},
     "copied from ev1, ev2 (R-user)"),
    ({"origin": "copied", "evidence": [{"id": "ev1"}]}, "copied from ev1"), ({"origin": "copied"}, "copied from "),
    ({"origin": "copied", "evidence": [{"id": "ev1"}], "rule": "R-user", "redacted": True},
     "copied from ev1 (R-user); parts masked by redaction"),
    ({"origin": "human", "reviewer": {"reviewer": ADA}, "redacted": True},
     f"edited by {ADA}; parts masked by redaction"),
    ({"origin": "derived", "rule": "R-op", "redacted": False}, "derived by rule R-op"),
    ({"origin": "derived", "rule": "R-op"}, "derived by rule R-op"),
    ({"origin": "model", "model": {"model": "m/x"}}, "proposed by model m/x"),
    ({"origin": "model"}, "proposed by model None"),
    ({"origin": "human", "reviewer": {"reviewer": ADA, "time": "T1"}}, f"edited by {ADA} at T1"),
    ({"origin": "human", "reviewer": {"reviewer": ADA}}, f"edited by {ADA}"),
    ({"origin": "human", "reviewer": {"reviewer": ADA}, "model": {"model": "m"}}, f"edited by {ADA}"),
    ({"origin": "inferred"}, "inferred"), ({"rule": "x"}, "None"),
])
def test_who_set_a_field(fp: dict[str, Any] | None, want: str) -> None:
    assert vw.origin_text(fp) == want


class Reader:
    def __init__(self) -> None:
        self.asked: list[int] = []

    def step(self, n: int) -> StepEvidence:
        self.asked.append(n)
        return StepEvidence([], {"input": "matches the log", "turn": "x"}, "")


def test_a_step_view_shows_every_field_with_its_origin_and_verdict() -> None:
    steps = [{"step": 1, "input": "a"},
             {"step": 2, "input": "i" * 10, "output": None, "eval": -1, "turn": 1, "tool_args": {"k": 1, 2: "v"},
              "reasoning": "r"}]
    prov = {"steps": [{"step": 2, "fields": {
        "input": {"origin": "copied", "evidence": [{"id": "e"}]}, "eval": {"origin": "derived", "rule": "R-e"},
        "output": {"origin": "copied"}, "reasoning": {"origin": "human", "reviewer": {"reviewer": ADA}}}}]}
    r = Reader()
    v = vw.step_view(loaded({"steps": steps}, prov), 2, r, cap=4)  # type: ignore[arg-type]
    assert r.asked == [2] and v.step == 2 and v.row == vw.step_row(steps[1]) and v.evidence is not None
    assert v.fields == [
        FieldView("input", "iiii", 10, "copied from e", "matches the log", True),
        FieldView("output", "", 0, "", "", True),  # null: no origin shown
        FieldView("eval", "-1", 2, "derived by rule R-e", "", True),
        FieldView("turn", "1", 1, "no provenance recorded", "x", False),
        FieldView("tool_args", '{"k":1,"2":"v"}'[:4], 15, "no provenance recorded", "", False),
        FieldView("reasoning", "r", 1, f"edited by {ADA}", "", True),
    ]
    whole = vw.step_view(loaded({"steps": steps}, prov), 2, None, cap=None)
    assert whole.evidence is None and whole.fields[0].value == "i" * 10 and whole.fields[4].value == '{"k":1,"2":"v"}'
    assert [f.verdict for f in whole.fields] == [""] * 6
    exact = vw.step_view(loaded({"steps": steps}, prov), 2, None, cap=10)
    assert exact.fields[0].value == "i" * 10


def test_a_step_view_cuts_at_four_thousand_by_default() -> None:
    d = loaded({"steps": [{"step": 1, "output": "o" * 4001, "input": "n" * 4000}]})
    v = vw.step_view(d, 1, None)
    assert (v.fields[0].value, v.fields[0].full_length) == ("o" * 4000, 4001)
    assert v.fields[1].value == "n" * 4000


def test_extras_list_failed_steps_files_and_subagents() -> None:
    steps = [{"step": 1, "actor": "agent", "success": True}, {"step": 2, "actor": "subagent:b", "success": False},
             {"step": 3, "actor": "subagent:a", "action": "error"}, {"step": 4, "actor": "subagent:b"},
             {"step": 5, "actor": "user"}, {"step": 6}]
    trace = {"steps": steps, "static_output": {"artifacts": [
        {"path": "a.py", "type": "code", "related_steps": [2, 4]}, {"path": "b.md", "type": "doc"}, "odd"]}}
    x = vw.extras(loaded(trace))
    assert x == Extras([vw.step_row(steps[1]), vw.step_row(steps[2])], [("a.py", "code", "2, 4"), ("b.md", "doc", "")],
                       ["subagent:a", "subagent:b"])
    assert vw.extras(loaded({"steps": [], "static_output": None})) == Extras([], [], [])
