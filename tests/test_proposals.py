"""Proposals and overlays (`forsy.proposals`): `assemble` is a pure function of drafts + accepted proposals.

A value no rule derived (a model's cited proposal, a reviewer's edit) is a frozen `Proposal`
with a path; `assemble` lays the accepted ones over copies of the drafts and over the trace
fields, never changing its inputs. The model pass hands its accepted values over this way.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from forsy.assemble import assemble, termination
from forsy.assemble.score import confidence
from forsy.llm import LLMConfig, enrich, evidence_texts
from forsy.proposals import Actor, Citation, Proposal, Replaced, apply_to_drafts, parse_path, trace_path
from forsy.protocols import NoRedactor, Redactor
from forsy.rules.segment import Draft, Segmenter
from forsy.run import RetraceOptions, process, read
from llm_server import ScriptedClient
from test_llm import CORRECTION, call, result, write_log

MODEL = Actor("openai/test-model", prompt_version="segment_v2")


def _session(tmp_path: Path) -> tuple[Any, list[Draft]]:
    session = read([write_log(tmp_path, "s-prop", CORRECTION)], RetraceOptions())[0]
    return session, Segmenter(session).run()


def _snapshot(drafts: list[Draft]) -> str:
    return json.dumps([[d.values, {k: v.model_dump(mode="json") for k, v in d.prov.items()}, d.evidence]
                       for d in drafts], sort_keys=True, default=str)


def _cite(session: Any, text: str) -> Citation:
    ev_id = next(k for k, v in evidence_texts(session).items() if text in v)
    return Citation(ev_id, "", text, 100.0)


def _run(session: Any, drafts: list[Draft], proposals: list[Proposal]) -> dict[str, Any]:
    a = assemble(session, drafts, release_tier="private", redaction={"enabled": False}, proposals=proposals)
    return {"trace": a.trace.model_dump(mode="json"), "prov": a.provenance.model_dump(mode="json"),
            "manifest": a.manifest.model_dump(mode="json")}


def test_paths() -> None:
    assert parse_path("/steps/3/reasoning").step == 3  # type: ignore[union-attr]
    assert parse_path("/summary/goal_achieved") == "summary.goal_achieved"
    assert trace_path("dataset_summary.description") == "/dataset_summary/description"
    for bad in ("/steps/0/reasoning", "/steps/3/step", "/steps/3/nonsense", "/task", "steps/3/reasoning",
                "/summary/agent_confidence", "/steps/x/reasoning"):
        with pytest.raises(ValueError):
            parse_path(bad)
    with pytest.raises(ValueError):
        Proposal("/final_output", "x", "model", MODEL)  # a copied top-level field is not a proposal's to set
    p = Proposal("/learning", "x", "model", MODEL)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.value = "y"  # type: ignore[misc]


def test_assemble_is_a_pure_function_of_drafts_and_proposals(tmp_path: Path) -> None:
    session, drafts = _session(tmp_path)
    before = _snapshot(drafts)
    base = _run(session, drafts, [])
    cite = _cite(session, "Fixed: add() now returns a + b and all 3 tests pass.")
    props = [
        Proposal("/steps/3/state_change", "all 3 tests pass", "model", MODEL, (cite,)),
        Proposal("/steps/2/success", False, "model", MODEL, (cite,), rule="M-correction",
                 params=(("user_step", 5),), replaces=Replaced(True, None)),
        Proposal("/summary/goal_achieved", True, "model", MODEL, (cite,)),
        Proposal("/learning", "add() now returns a + b", "model", MODEL, (cite,)),
        Proposal("/termination_reason", "timeout", "model", MODEL, (cite,)),  # the rule said task_complete
        Proposal("/dataset_summary/description", "add() now returns a + b.", "model", MODEL, (cite,)),
    ]
    one = _run(session, drafts, props)
    assert _snapshot(drafts) == before  # the drafts the caller holds are not changed
    assert _run(session, drafts, props) == one  # the same inputs, the same trace
    assert _run(session, drafts, []) == base  # and proposals leave no trace behind
    t, prov = one["trace"], one["prov"]
    assert t["steps"][2]["state_change"] == "all 3 tests pass" and base["trace"]["steps"][2]["state_change"] is None
    sc = prov["steps"][2]["fields"]["state_change"]
    assert sc["origin"] == "model" and sc["model"] == {
        "model": "openai/test-model", "prompt_version": "segment_v2",
        "citations": [{"id": cite.evidence_id, "quote": cite.quote, "score": 100.0}]}
    assert sc["evidence"] == [{"id": cite.evidence_id, "pointer": ""}] and cite.evidence_id in prov["evidence"]
    assert t["steps"][1]["success"] is False
    assert prov["steps"][1]["fields"]["success"]["model"]["replaced"] == {"value": True, "rule": None}
    assert prov["steps"][1]["fields"]["success"]["rule"] == "M-correction"
    assert t["summary"]["goal_achieved"] is True and t["summary"]["goal_notes"] is None  # "not assessed" is gone
    assert t["learning"] == "add() now returns a + b"
    assert t["termination_reason"] == "task_complete" == base["trace"]["termination_reason"]  # the rule stands
    assert prov["trace_fields"]["termination_reason"]["origin"] == "derived"
    desc = t["dataset_summary"]["description"]
    assert "(2 failed or rejected)" in desc  # the card counts what the proposals made of the steps
    assert "A model (openai/test-model) then proposed values for 5 null field(s)" in desc  # the rule-set one is not
    assert desc.endswith("Summary proposed by a model (citations checked): add() now returns a + b.")
    assert t["validation_level"] == "model_reviewed" and base["trace"]["validation_level"] == "retraced_from_logs"
    assert list(prov["trace_fields"])[-3:] == ["dataset_summary.description", "learning", "summary.goal_achieved"]


def test_a_proposed_termination_reason_refines_only_other(tmp_path: Path) -> None:
    recs = [*CORRECTION[:3], CORRECTION[6]]  # ends with a user message: the rule says "other"
    session = read([write_log(tmp_path, "s-other", recs)], RetraceOptions())[0]
    drafts = Segmenter(session).run()
    assert termination(session, drafts) == ("other", "T-termination/other")
    cite = _cite(session, "No, that's wrong: add must return a + b")
    got = _run(session, drafts, [Proposal("/termination_reason", "user_abandoned", "model", MODEL, (cite,))])
    assert got["trace"]["termination_reason"] == "user_abandoned"
    assert got["prov"]["trace_fields"]["termination_reason"]["origin"] == "model"


def test_model_reasoning_is_not_evidence_for_the_score(tmp_path: Path) -> None:
    recs = [*CORRECTION[:-1], call(11, "a7", "r4", "t5", "Bash", {"command": "git status"}),
            result(12, "r5", "a7", "t5", "clean"), call(13, "a8", "r5", "t6", "Bash", {"command": "git diff"})]
    session = read([write_log(tmp_path, "s-empty", recs)], RetraceOptions())[0]
    drafts = Segmenter(session).run()
    empty = [i for i, d in enumerate(drafts) if d.values["action"] != "user_message"
             and not (d.values.get("reasoning") or d.values.get("output"))]
    assert empty, "the test log has an agent step with neither reasoning nor output"
    cite = _cite(session, "3 passed in 0.10s")
    props = [Proposal(f"/steps/{i + 1}/reasoning", "3 passed", "model", MODEL, (cite,)) for i in empty]
    laid = apply_to_drafts(drafts, props)
    assert all(laid[i].values["reasoning"] for i in empty)
    assert confidence(session, laid) == confidence(session, drafts)  # nothing raises the score


def test_the_model_pass_returns_proposals_and_leaves_drafts_alone(tmp_path: Path) -> None:
    session, drafts = _session(tmp_path)
    before = _snapshot(drafts)
    out = enrich(session, drafts, LLMConfig(model="openai/scripted-good", client=ScriptedClient(), use_cache=False))
    assert _snapshot(drafts) == before
    assert out.proposals and all(isinstance(p, Proposal) and p.origin == "model" for p in out.proposals)
    assert sum(1 for p in out.proposals if p.primary) == out.report["accepted"]
    assert {p.actor for p in out.proposals} == {Actor("openai/scripted-good", "segment_v2")}


def test_no_redactor_is_the_no_redact_path(tmp_path: Path) -> None:
    assert isinstance(NoRedactor(), Redactor)
    log = write_log(tmp_path, "s-prop", CORRECTION)
    a = process(read([log], RetraceOptions())[0], RetraceOptions(redact=False), None)
    b = process(read([log], RetraceOptions())[0], RetraceOptions(redact=False), NoRedactor())
    assert a.trace == b.trace and a.manifest == b.manifest and a.provenance == b.provenance
    assert b.manifest.redaction == {"enabled": False, "note": "redaction disabled with --no-redact"}
    assert b.manifest.release_tier == "private"
