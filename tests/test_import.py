"""Imports: Forsy → X → Forsy round trips keep every field X carries (the fields each
format declares `back`), on the traces of the real and sample logs; the ten legacy upstream
examples upgrade and validate with 0 errors, each with its list of gaps; real ATIF
trajectories import; damaged inputs are reported, never silently dropped.
"""

from __future__ import annotations

import json
from collections import defaultdict
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from _paths import SAMPLES, SHARED, real_logs
from forsy import sources
from forsy.errors import UnsupportedFormat
from forsy.export import Bundle, coverage_of, export
from forsy.models import Trace
from forsy.run import RetraceOptions, retrace
from forsy.validation import validate_path
from test_export import traced  # noqa: F401  (the session fixture: every real and sample trace)

UPSTREAM = SHARED / "spec" / "upstream-examples"
needs_upstream = pytest.mark.skipif(not UPSTREAM.is_dir(), reason="../shared/spec/upstream-examples is absent")
SUFFIX = {"invariant": ".json", "openai": ".jsonl", "atif": ".json"}


def _retrace(path: Path) -> Trace:
    run = retrace([path], RetraceOptions(redact=False))
    assert len(run.results) == 1, [o.message for o in run.outcomes]
    a = run.results[0].assembled
    assert a is not None
    return a.trace


def _projection(trace: Trace, fmt: str, back: set[str]) -> dict[str, list[dict[str, Any]]]:
    """Each actor's steps, in order, reduced to the fields the format reads back. Per actor:
    a subagent's answer is placed by its spawning call's result, a link no importer can
    carry (it is not an event field), so steps of different actors may interleave otherwise.
    Declared exceptions: an answer's reasoning is lost in invariant/openai (counted in the
    loss report); an answer has one time on import (its end is its start); the turn of a
    subagent step follows where its answer lands."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in trace.steps:
        d = {}
        for k in sorted(back):
            if (k == "reasoning" and fmt != "atif" and s.tool is None) or (k == "ended_at" and s.tool is None):
                continue
            if k == "turn" and s.actor.startswith("subagent:"):
                continue
            d[k] = getattr(s, k)
        by[s.actor].append(d)
    return dict(by)


@pytest.mark.parametrize("fmt", ["invariant", "atif", "openai"])
def test_round_trip_keeps_what_the_format_carries(fmt: str, traced: list[Bundle], tmp_path: Path) -> None:  # noqa: F811
    cov = coverage_of(fmt)
    back = {k.removeprefix("steps.") for k, c in cov.items() if c.back and k.startswith("steps.")}
    assert back >= {"tool", "input", "output"}
    checked = 0
    for i, b in enumerate(traced):
        if fmt == "openai" and any(s.actor not in ("user", "agent") for s in b.trace.steps):
            continue  # openai drops actors: subagent and system steps merge into the agent's (declared)
        if any(b2.turn > a.turn and b2.action != "user_message" for a, b2 in pairwise(b.trace.steps)):
            continue  # a turn the log began with no user message joins the one before it on import (declared)
        p = tmp_path / f"{i}{SUFFIX[fmt]}"
        export([b], fmt, p)
        again = _retrace(p)
        want, got = _projection(b.trace, fmt, back), _projection(again, fmt, back)
        if fmt == "openai":  # a call logged without arguments comes back as {} (no place to say "none")
            for steps in want.values():
                for d in steps:
                    if "input" in d and d["input"] is None and "tool" in d and d["tool"] is not None:
                        d["input"] = "{}"
        assert got == want, b.where
        if "system_prompt" in {k for k, c in cov.items() if c.back}:
            assert again.system_prompt == b.trace.system_prompt
        if any(st.action == "user_message" for st in b.trace.steps):
            assert again.task == b.trace.task  # else the task names the source kind, which differs
        checked += 1
    assert checked >= (8 if SHARED.is_dir() else 4)  # the sample logs alone give 4 traces openai can hold


def test_round_trip_of_the_upload_json(traced: list[Bundle], tmp_path: Path) -> None:  # noqa: F811
    b = traced[0]
    export(traced[:1], "invariant", tmp_path / "t.json")
    a, u = _retrace(tmp_path / "t.json"), _retrace(tmp_path / "t.dataset.json")
    assert [s.model_dump() for s in u.steps] == [s.model_dump() for s in a.steps]
    assert u.task == b.trace.task


# --------------------------------------------------------------------------- legacy forsy-v1
# Every upgrade lists, as not upgraded, the legacy trace's own claims that no event can hold:
COMMON_GAPS = {
    'eval', 'observation', 'trace.captured_at', 'trace.collection_id', 'trace.final_output', 'trace.learning',
    'trace.original_folder_name', 'trace.source_files', 'trace.source_folder_names', 'trace.source_trace_id',
    'trace.summary', 'trace.task', 'trace.trace_id', 'trace.trace_slug',
}
# and, per example, these:
GAPS = {
    "agentic-commerce-workflow-prototyping": [
        'alternatives_considered', 'causal_note', 'causal_type', 'caused_by', 'directive', 'eval_reason',
        'feedback_content', 'feedback_type', 'message_role', 'operation', 'retry_of', 'state_change',
        'trace.ended_at', 'trace.started_at', 'trace.static_output', 'trace.termination_reason',
        'trace.trace_mode',
    ],
    "applied-math-code-optimization-trace": [
        'alternatives_considered', 'causal_note', 'causal_type', 'caused_by', 'directive', 'eval_reason',
        'feedback_content', 'feedback_type', 'input_source', 'message_role', 'operation', 'retry_of',
        'state_change', 'trace.ended_at', 'trace.static_output', 'trace.termination_reason', 'trace.trace_mode',
    ],
    "braf-v600e-docking-pipeline-trace": [
        'alternatives_considered', 'directive', 'feedback_content', 'feedback_type',
        'input of a step with no tool', 'legacy action names', 'retry_of', 'state_change', 'success',
        'trace.started_at', 'trace.static_output', 'trace.termination_reason', 'trace.trace_mode',
    ],
    "computational-drug-discovery-docking-workflow": [
        'alternatives_considered', 'directive', 'feedback_content', 'feedback_type',
        'input of a step with no tool', 'legacy action names', 'retry_of', 'state_change', 'success',
        'trace.ended_at', 'trace.prior_collection_id', 'trace.started_at', 'trace.static_output',
    ],
    "energy-product-development-planning-trace": [
        'alternatives_considered', 'causal_note', 'causal_type', 'caused_by', 'directive', 'eval_reason',
        'feedback_content', 'feedback_type', 'input of a step with no tool', 'input_source', 'legacy action names',
        'message_role', 'operation', 'state_change', 'success', 'trace.ended_at', 'trace.started_at',
        'trace.termination_reason', 'trace.trace_mode',
    ],
    "injection-moulding-process-optimization-trace": [
        'causal_type', 'directive', 'eval_reason', 'feedback_content', 'feedback_type',
        'input of a step with no tool', 'legacy action names', 'message_role', 'trace.ended_at',
        'trace.started_at', 'trace.termination_reason', 'trace.trace_mode',
    ],
    "metropolis-hastings-scientific-computing-trace": [
        'alternatives_considered', 'causal_note', 'causal_type', 'caused_by', 'eval_reason',
        'input of a step with no tool', 'input_source', 'message_role', 'operation', 'state_change', 'success',
        'trace.ended_at', 'trace.started_at', 'trace.static_output', 'trace.termination_reason',
        'trace.trace_mode',
    ],
    "ontario-employment-law-analysis-trace": [
        'alternatives_considered', 'causal_note', 'causal_type', 'caused_by', 'directive', 'eval_reason',
        'input of a step with no tool', 'input_source', 'message_role', 'operation', 'retry_of', 'state_change',
        'success', 'trace.termination_reason', 'trace.trace_mode',
    ],
    "quantitative-hawkes-estimation-workflow": [
        'alternatives_considered', 'causal_note', 'causal_type', 'caused_by', 'directive', 'eval_reason',
        'feedback_content', 'feedback_type', 'input of a step with no tool', 'input_source', 'message_role',
        'operation', 'state_change', 'success', 'trace.ended_at', 'trace.static_output',
        'trace.termination_reason', 'trace.trace_mode',
    ],
    "structured-legal-drafting-analysis-trace": [
        'alternatives_considered', 'causal_note', 'causal_type', 'caused_by', 'eval_reason',
        'input of a step with no tool', 'input_source', 'message_role', 'operation', 'state_change',
        'step boundaries', 'success', 'trace.ended_at', 'trace.termination_reason', 'trace.trace_mode',
    ],
}


@needs_upstream
@pytest.mark.parametrize("name", sorted(GAPS))
def test_legacy_examples_upgrade_and_validate(name: str, tmp_path: Path) -> None:
    legacy_file = UPSTREAM / name / "trace.json"
    legacy = json.loads(legacy_file.read_text())
    assert sources.detect(legacy_file).name == "forsy_v1"
    run = retrace([UPSTREAM / name], RetraceOptions(redact=False, out=tmp_path / "out"))
    o = run.results[0]
    assert o.folder is not None
    report = validate_path(o.folder)
    assert report.errors == [], [e.message for e in report.errors]
    gaps = {w.message.split(": not upgraded")[0] for w in o.warnings if w.code == "not-upgraded"}
    assert gaps == COMMON_GAPS | set(GAPS[name])
    manifest = json.loads((o.folder / "manifest.json").read_text())
    assert manifest["counts"]["not_upgraded_values"] > 0 and manifest["counts"]["upgraded_values"] > 0
    # never invented: every text of the upgraded trace is a text of the legacy trace
    trace = Trace.model_validate_json((o.folder / "trace.json").read_text())
    legacy_texts = {v for s in legacy["steps"] for v in s.values() if isinstance(v, str)}
    for s in trace.steps:
        for k in ("input", "output", "reasoning", "tool"):
            v = getattr(s, k)
            # a value is a legacy text, or several joined by a blank line (the segmenter joins an
            # actor's consecutive texts): each part is then inside a legacy text
            if v is not None and v not in legacy_texts:
                assert all(any(part in t for t in legacy_texts) for part in v.split("\n\n")), (s.step, k)
    assert trace.task in legacy_texts


@needs_upstream
def test_legacy_upgrade_is_not_more_confident_than_its_evidence(tmp_path: Path) -> None:
    """The upgrade's confidence is forsy's own score of what it could carry (the legacy claim is
    listed as not upgraded, trace.summary)."""
    for d in sorted(UPSTREAM.iterdir()):
        o = retrace([d], RetraceOptions(redact=False)).results[0]
        assert o.confidence is not None and o.confidence <= 90
        assert any(w.message.startswith("trace.summary") for w in o.warnings if w.code == "not-upgraded")


# --------------------------------------------------------------------------- real ATIF
ATIF = real_logs("atif", "**/*.json")


@pytest.mark.skipif(not ATIF, reason="../shared/real_logs/atif is absent")
def test_real_atif_trajectories_import(tmp_path: Path) -> None:
    atif = pytest.importorskip("atif")
    read = 0
    for f in ATIF:
        doc = json.loads(f.read_text())
        if not (isinstance(doc, dict) and str(doc.get("schema_version", "")).startswith("ATIF-")):
            continue
        atif.Trajectory.model_validate(doc)  # the file is ATIF by the consumer's own models
        assert sources.detect(f).name == "atif"
        run = retrace([f], RetraceOptions(redact=False, out=tmp_path / f.stem))
        o = run.results[0]
        assert o.folder is not None and validate_path(o.folder).errors == []
        trace = Trace.model_validate_json((o.folder / "trace.json").read_text())
        calls = sum(len(s.get("tool_calls") or []) for s in doc["steps"] if s["source"] == "agent")
        assert sum(1 for s in trace.steps if s.tool is not None) == calls
        users = [s for s in doc["steps"] if s["source"] == "user"]
        assert sum(1 for s in trace.steps if s.action == "user_message") == len(users)
        read += 1
    assert read >= 3


# --------------------------------------------------------------------------- damaged inputs
def test_invariant_damaged_events_are_reported(tmp_path: Path) -> None:
    p = tmp_path / "t.json"
    p.write_text(json.dumps([
        {"role": "user", "content": "list files"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "ls", "arguments": {"path": "."}}}]},
        {"role": "tool", "content": "a.txt"},
        42,
        {"role": "assistant", "content": [{"type": "image_url", "image_url": {"url": "x"}}]},
    ], indent=1))
    run = retrace([p], RetraceOptions(redact=False))
    o = run.results[0]
    codes = {w.code: w for w in o.warnings}
    assert {"tool-output-unlinked", "not-an-object", "content-parts"} <= set(codes)
    assert codes["not-an-object"].file == "t.json" and codes["not-an-object"].line == 26
    trace = o.assembled.trace if o.assembled else None
    assert trace is not None and [s.tool for s in trace.steps] == [None, "ls"]
    assert trace.steps[1].input == '{"path":"."}' and trace.steps[1].output == "a.txt"


def test_openai_jsonl_bad_line_is_reported(tmp_path: Path) -> None:
    p = tmp_path / "chat.jsonl"
    good = {"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"},
                         {"role": "assistant", "content": "hello"}]}
    p.write_text(json.dumps(good) + "\n" + '{"messages": [oops\n' + json.dumps(good) + "\n")
    run = retrace([p], RetraceOptions(redact=False))
    assert len(run.results) == 2
    warnings = [w for o in run.outcomes for w in o.warnings]
    assert any(w.line == 2 and w.file == "chat.jsonl" for w in warnings)
    t = run.results[0].assembled.trace if run.results[0].assembled else None
    assert t is not None and t.system_prompt == "be brief" and t.final_output == "hello"


def test_claude_array_dumps_are_not_taken_for_invariant() -> None:
    assert sources.detect(SAMPLES / "claude" / "hook-array.json").name == "claude_code"


# --------------------------------------------------------------------------- real Invariant traces
INVARIANT = real_logs("invariant", "**/*.json", "**/*.jsonl")


@pytest.mark.skipif(not INVARIANT, reason="../shared/real_logs/invariant is absent")
def test_real_invariant_traces_import(tmp_path: Path) -> None:
    """The event lists and the Explorer's JSONL datasets among the real Invariant files import
    and validate; the files beside them that are not Invariant's shape are never misread as
    Invariant's: a mini-swe-agent trajectory is its own reader's, a list of ShareGPT
    conversations is refused as unsupported."""
    read = refused = 0
    for i, f in enumerate(INVARIANT):
        try:
            src = sources.detect(f)
        except UnsupportedFormat:
            refused += 1
            continue
        if f.name == "mini-swe-agent-trajectory.json":
            assert src.name == "mini_swe_agent"
            continue
        assert src.name == "invariant", f
        run = retrace([f], RetraceOptions(redact=False, out=tmp_path / f"i{i}"))
        for o in run.results:
            assert o.folder is not None and validate_path(o.folder).errors == []
            trace = Trace.model_validate_json((o.folder / "trace.json").read_text())
            assert any(s.tool for s in trace.steps) or any(s.action == "user_message" for s in trace.steps)
            read += 1
    assert read >= 4 and refused >= 1


@needs_upstream
def test_upgraded_legacy_traces_score_by_what_could_not_be_carried_over() -> None:
    """A legacy trace's values that v0.1 cannot take lower confidence (40 × their share): the
    upgrade never claims more than the legacy file held."""
    from forsy.run import RetraceOptions, retrace_one

    files = sorted(UPSTREAM.glob("*/trace.json"))
    assert len(files) >= 10
    checked = 0
    for p in files:
        [o] = retrace_one(p, RetraceOptions(redact=False))
        assert o.assembled is not None
        m = o.assembled.manifest
        lost, kept = m.counts.get("not_upgraded_values", 0), m.counts.get("upgraded_values", 0)
        factor = next((f for f in m.confidence_factors if f["name"] == "legacy_not_upgraded"), None)
        if lost + kept:
            assert factor is not None and abs(factor["penalty"] - round(40 * lost / (lost + kept), 2)) < 0.01, p.name
            checked += 1
    assert checked >= 10
