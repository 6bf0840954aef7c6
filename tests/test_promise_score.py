"""Confidence is computed from named factors, each with its documented penalty and cap
(assemble/score.py's table): every factor is asserted here against a hand-computed value on a
hand-built session, so a penalty set to 0, a cap moved or a factor dropped fails by name."""

from __future__ import annotations

from typing import Any

import pytest

from forsy.assemble.score import Factor, confidence
from forsy.evidence import Quality, ReadingWarning, Ref, Session, SessionMeta
from forsy.models import FieldProvenance
from forsy.rules.segment import Draft, copied, derived

TS = "2026-01-01T10:00:00Z"
REF = [Ref("e1", "")]


def _session(quality: Quality | None = None, warnings: list[ReadingWarning] | None = None) -> Session:
    return Session("claude-code", "s", [], {}, [], SessionMeta(), quality or Quality(), warnings or [])


def _user() -> Draft:
    return Draft({"actor": "user", "action": "user_message", "input": "hi", "started_at": TS}, actor_key="user")


def _step(actor: str = "agent", *, output: str | None = "ok", reasoning: str | None = None,
          ts: str | None = TS, call_id: str | None = None, origin: str = "copied",
          no_result_expected: bool = False) -> Draft:
    d = Draft({"actor": actor, "action": "agent_step"}, actor_key=actor, call_id=call_id,
              no_result_expected=no_result_expected)
    prov = copied(REF) if origin == "copied" else derived("R-answer", REF) if origin == "derived" else \
        FieldProvenance(origin=origin)  # type: ignore[arg-type]
    if output is not None:
        d.set("output", output, prov)
    if reasoning is not None:
        d.set("reasoning", reasoning, prov)
    if ts is not None:
        d.values["started_at"] = ts
    return d


def _factors(session: Session, drafts: list[Draft], extra: list[Factor] | None = None) -> dict[str, dict[str, Any]]:
    _, factors = confidence(session, drafts, extra)
    return {f.name: f.as_dict() for f in factors}


def _penalty(session: Session, drafts: list[Draft], name: str) -> tuple[float, float]:
    f = _factors(session, drafts)[name]
    return f["value"], f["penalty"]


def test_a_clean_agent_transcript_scores_90_with_every_factor_named() -> None:
    score, factors = confidence(_session(), [_user(), _step(call_id="c1")])
    assert score == 90
    assert [f.as_dict() for f in factors] == [
        {"name": "base", "value": 90.0, "penalty": 0.0, "note": "full agent transcript"},
        {"name": "unparsable_records", "value": 0, "penalty": 0, "note": "records that could not be read"},
        {"name": "missing_results", "value": 0, "penalty": 0, "note": "calls whose result is not in the log"},
        {"name": "truncated_outputs", "value": 0, "penalty": 0,
         "note": "outputs that are excerpts of what the tool returned"},
        {"name": "compactions", "value": 0, "penalty": 0,
         "note": "context compacted; earlier detail hidden from the model"},
        {"name": "abandoned_branches", "value": 0, "penalty": 0.0, "note": "rewound branches kept and flagged"},
        {"name": "unlinked_subagents", "value": 0, "penalty": 0,
         "note": "subagent work whose spawning call is unknown"},
        {"name": "unknown_records", "value": 0, "penalty": 0, "note": "records of unknown types skipped"},
        {"name": "uncertain_matches", "value": 0, "penalty": 0, "note": "history/git matches not asserted"},
        {"name": "empty_fields", "value": 0.0, "penalty": 0.0,
         "note": "agent steps with neither reasoning nor output, or without a timestamp"},
    ]


def test_shell_and_git_evidence_only_starts_at_40() -> None:
    score, factors = confidence(_session(), [_step("human:shell")])
    assert score == 40
    assert factors[0].as_dict() == {"name": "base", "value": 40.0, "penalty": 0.0,
                                    "note": "shell and git evidence only: no reasoning, no outputs"}


def test_a_subagent_alone_is_an_agent_transcript() -> None:
    assert confidence(_session(), [_step("subagent:a1")])[0] == 90


@pytest.mark.parametrize(("count", "penalty"), [(1, 2), (3, 6), (10, 20), (11, 20)])
def test_unparsable_records_cost_2_each_at_most_20(count: int, penalty: int) -> None:
    s = _session(Quality(unparsable_records=count))
    assert _penalty(s, [_step()], "unparsable_records") == (count, penalty)
    assert confidence(s, [_step()])[0] == 90 - penalty


@pytest.mark.parametrize(("missing", "penalty"), [(1, 3), (2, 6), (5, 15), (6, 15)])
def test_missing_results_cost_3_per_call_at_most_15(missing: int, penalty: int) -> None:
    drafts = [_step(output=None, reasoning="r", call_id=f"c{i}") for i in range(missing)]
    drafts += [_step(call_id="answered"), _step(output=None, reasoning="no call")]
    assert _penalty(_session(), drafts, "missing_results") == (missing, penalty)
    assert confidence(_session(), drafts)[0] == 90 - penalty


def test_a_call_whose_result_the_log_never_holds_is_not_missing() -> None:
    drafts = [_step(output=None, reasoning="searched", call_id="ws1", no_result_expected=True)]
    assert _penalty(_session(), drafts, "missing_results") == (0, 0)


@pytest.mark.parametrize(("count", "penalty"), [(1, 1), (7, 7), (10, 10), (12, 10)])
def test_truncated_outputs_cost_1_each_at_most_10(count: int, penalty: int) -> None:
    assert _penalty(_session(Quality(truncated_outputs=count)), [_step()], "truncated_outputs") == (count, penalty)


@pytest.mark.parametrize(("count", "penalty"), [(1, 5), (2, 10), (3, 15), (4, 15)])
def test_compactions_cost_5_each_at_most_15(count: int, penalty: int) -> None:
    assert _penalty(_session(Quality(compactions=count)), [_step()], "compactions") == (count, penalty)


def test_a_log_starting_from_a_summary_costs_15_more() -> None:
    q = Quality(compactions=4, extra={"starts_from_summary": 1})
    f = _factors(_session(q), [_step()])["compactions"]
    assert f == {"name": "compactions", "value": 4, "penalty": 30,
                 "note": "context compacted; earlier detail hidden from the model and the log starts from a summary"}
    assert confidence(_session(q), [_step()])[0] == 60


def test_abandoned_branches_cost_3_whatever_their_number() -> None:
    assert _penalty(_session(Quality(abandoned_events=1)), [_step()], "abandoned_branches") == (1, 3)
    assert _penalty(_session(Quality(abandoned_events=9)), [_step()], "abandoned_branches") == (9, 3)


@pytest.mark.parametrize(("count", "penalty"), [(1, 5), (3, 15), (4, 15)])
def test_unlinked_subagents_cost_5_each_at_most_15(count: int, penalty: int) -> None:
    warnings = [ReadingWarning("unlinked-subagent", "x")] * count + [ReadingWarning("orphan-result", "y")] * 5
    assert _penalty(_session(warnings=warnings), [_step()], "unlinked_subagents") == (count, penalty)


@pytest.mark.parametrize(("count", "penalty"), [(1, 1), (5, 5), (6, 5)])
def test_unknown_records_cost_1_each_at_most_5(count: int, penalty: int) -> None:
    assert _penalty(_session(Quality(unknown_records=count)), [_step()], "unknown_records") == (count, penalty)


@pytest.mark.parametrize(("count", "penalty"), [(1, 2), (5, 10), (6, 10)])
def test_uncertain_matches_cost_2_each_at_most_10(count: int, penalty: int) -> None:
    q = Quality(extra={"uncertain_matches": count})
    assert _penalty(_session(q), [_step()], "uncertain_matches") == (count, penalty)


def test_a_legacy_trace_loses_40_times_the_share_not_carried_over() -> None:
    q = Quality(extra={"not_upgraded_values": 1, "upgraded_values": 3})
    f = _factors(_session(q), [_step()])["legacy_not_upgraded"]
    assert f == {"name": "legacy_not_upgraded", "value": 0.25, "penalty": 10.0,
                 "note": "values of the legacy trace the v0.1 format could not take (listed in warnings)"}
    assert confidence(_session(q), [_step()])[0] == 80
    q = Quality(extra={"not_upgraded_values": 2, "upgraded_values": 1})
    assert _factors(_session(q), [_step()])["legacy_not_upgraded"]["value"] == 0.667
    assert "legacy_not_upgraded" not in _factors(_session(), [_step()])
    q = Quality(extra={"not_upgraded_values": 0, "upgraded_values": 5})
    assert _factors(_session(q), [_step()])["legacy_not_upgraded"]["penalty"] == 0
    q = Quality(extra={"not_upgraded_values": 3})  # nothing carried over: no count of kept values at all
    assert _penalty(_session(q), [_step()], "legacy_not_upgraded") == (1.0, 40.0)
    q = Quality(extra={"upgraded_values": 5})  # everything carried over: no count of lost values at all
    assert _factors(_session(q), [_step()])["legacy_not_upgraded"] == {
        "name": "legacy_not_upgraded", "value": 0.0, "penalty": 0.0,
        "note": "values of the legacy trace the v0.1 format could not take (listed in warnings)"}


def test_empty_fields_cost_15_times_the_share_of_empty_agent_steps() -> None:
    drafts = [
        _user(),
        _step(output="done"),  # full
        _step(output=None, reasoning="thinking"),  # reasoning alone is enough
        _step(output=None),  # neither
        _step(ts=None),  # no timestamp
        _step(output="proposed", origin="model"),  # a model's proposal is not evidence
        _step(output="derived", origin="derived"),  # derived from the log counts
        _step(output=""),  # an empty string is empty
        _step(output="x", ts=""),  # an empty timestamp is none
    ]
    f = _factors(_session(), drafts)["empty_fields"]
    assert (f["value"], f["penalty"]) == (0.625, 9.38)  # 5 of the 8 agent steps; the user step not counted
    assert confidence(_session(), drafts)[0] == 81  # 90 - 9.375 rounds to 81


def test_empty_fields_need_an_agent_step() -> None:
    assert "empty_fields" not in _factors(_session(), [_user()])


def test_extra_factors_are_listed_and_subtracted() -> None:
    extra = [Factor("llm_refused", 2, 7.5, "x")]
    score, factors = confidence(_session(), [_step()], extra)
    assert factors[-1] is extra[0]
    assert score == 82  # 90 - 7.5 = 82.5 rounds to even


def test_the_score_sums_every_penalty_and_never_goes_below_zero() -> None:
    q = Quality(unparsable_records=1, truncated_outputs=1, compactions=1, unknown_records=1, abandoned_events=1,
                extra={"uncertain_matches": 1})
    warnings = [ReadingWarning("unlinked-subagent", "x")]
    # 90 - 2 - 3 (one missing result) - 1 - 5 - 3 - 5 - 1 - 2 = 68
    assert confidence(_session(q, warnings), [_step(output=None, reasoning="r", call_id="c")])[0] == 68
    worst = Quality(unparsable_records=99, truncated_outputs=99, compactions=99, unknown_records=99,
                    abandoned_events=1, extra={"uncertain_matches": 99, "starts_from_summary": 1})
    assert confidence(_session(worst), [_step(ts=None, output=None)])[0] == 0  # 40 - 113 clamps at 0
    assert confidence(_session(), [_step()], [Factor("bonus", 0, -50, "a negative penalty")])[0] == 100


def test_factor_penalty_is_rounded_to_hundredths_in_the_manifest() -> None:
    assert Factor("f", 1, 3.14159, "n").as_dict() == {"name": "f", "value": 1, "penalty": 3.14, "note": "n"}


@pytest.mark.parametrize(("count", "penalty"), [(1, 2), (5, 10), (6, 10)])
def test_commits_without_their_diff_cost_2_each_at_most_10(count: int, penalty: int) -> None:
    q = Quality(extra={"commits_without_diff": count})
    f = _factors(_session(q), [_step()])["commits_without_diff"]
    assert f == {"name": "commits_without_diff", "value": count, "penalty": penalty,
                 "note": "commits kept without their diff (objects a partial clone lacks)"}
    assert confidence(_session(q), [_step()])[0] == 90 - penalty


def test_commits_without_diff_are_listed_only_when_there_is_one() -> None:
    assert "commits_without_diff" not in _factors(_session(), [_step()])


def test_the_empty_share_is_rounded_to_three_places() -> None:
    f = _factors(_session(), [_step(), _step(), _step(output=None)])["empty_fields"]
    assert (f["value"], f["penalty"]) == (0.333, 5.0)


def test_a_terminal_recording_alone_starts_at_40_and_says_what_it_holds() -> None:
    s = Session("asciinema", "s", [], {}, [], SessionMeta(), Quality())
    f = _factors(s, [_step("human:terminal")])["base"]
    assert f == {"name": "base", "value": 40.0, "penalty": 0.0,
                 "note": "terminal recording only: commands and output, no agent reasoning"}
    f = _factors(_session(), [_step("human:terminal")])["base"]  # a shell history: no outputs either
    assert f["note"] == "shell and git evidence only: no reasoning, no outputs"


@pytest.mark.parametrize(("name", "note"), [
    ("edits_reconstructed", "edits rebuilt from the reply's blocks (the log records no edit calls)"),
    ("exit_codes_unrecorded", "commands whose exit status the log does not hold (success left null)"),
])
@pytest.mark.parametrize(("count", "penalty"), [(1, 0.2), (10, 2.0), (25, 5.0), (26, 5.0)])
def test_what_a_format_does_not_record_costs_a_fifth_each_at_most_5(name: str, note: str, count: int,
                                                                     penalty: float) -> None:
    q = Quality(extra={name: count})
    assert _factors(_session(q), [_step()])[name] == {"name": name, "value": count, "penalty": penalty, "note": note}
    assert confidence(_session(q), [_step()])[0] == round(90 - penalty)
    assert name not in _factors(_session(), [_step()])  # listed only when it applies
