"""Tests of `forsy.validate`: a valid trace passes clean, each rule fires on its mutation,
legacy traces are read, nothing raises on any JSON, and we are at least as strict as the
independent checker `shared/tools/forsy_check.py spec`."""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _forks import COUNT_FORKS, NEEDS_FORK, run_fresh
from forsy.models import (
    STEP_FIELDS,
    TOP_LEVEL_FIELDS,
    Artifact,
    DatasetSummary,
    EvidenceInfo,
    EvidenceRef,
    FieldProvenance,
    HumanFeedback,
    InputSource,
    Manifest,
    Provenance,
    SourceFileInfo,
    StaticOutput,
    Step,
    StepProvenance,
    Summary,
    Trace,
)
from forsy.validation import (
    RULES,
    Finding,
    catalogue_markdown,
    rule_catalogue,
    validate_path,
    validate_trace,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
UPSTREAM = SHARED / "spec" / "upstream-examples"
DOC = Path(__file__).resolve().parents[1] / "docs" / "validation.md"

REPORT_TEXT = "# Report\n\nThe root cause was the API version.\n"
NOTES_TEXT = "notes: checkout fixed\n"
SOURCE_SHA = "a" * 64


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------- a valid trace, built by the models


def _step(n: int, turn: int, **kw: Any) -> Step:
    base: dict[str, Any] = {
        "step": n,
        "turn": turn,
        "started_at": f"2025-03-14T14:0{n}:00Z",
        "ended_at": f"2025-03-14T14:0{n}:30Z",
    }
    if kw.get("action") != "user_message":
        base |= {
            "actor": "agent",
            "execution_mode": "serial",
            "observation": f"state before step {n}",
            "reasoning": f"why step {n}",
            "caused_by": [n - 1],
            "causal_type": "execution_of_plan",
            "success": True,
            "eval": 1,
            "eval_reason": "it worked",
        }
    return Step.model_validate(base | kw)


def valid_trace() -> dict[str, Any]:
    """Six steps in two turns: request, read, failed run (retried), retry, answer, approval."""
    steps = [
        _step(
            1,
            1,
            actor="user",
            action="user_message",
            input="Fix the checkout.",
            eval=0,
            message_role="direct_request",
        ),
        _step(
            2,
            1,
            action="agent_step",
            operation="read",
            tool="Read",
            input="src/checkout.ts",
            output="export function checkout() {}",
            caused_by=[1],
            causal_type="user_request",
            input_source=InputSource(actor="user", source_step=1, source_field="input"),
        ),
        _step(
            3,
            1,
            action="error",
            operation="execute",
            tool="Bash",
            input="npm test",
            output="Error: 1 failing",
            success=False,
            eval=-1,
            directive="Run the single test first.",
        ),
        _step(
            4,
            1,
            action="agent_step",
            operation="execute",
            tool="Bash",
            input="npm test -- checkout",
            output="1 passing",
            retry_of=3,
            causal_type="retry_after_failure",
        ),
        _step(
            5,
            1,
            action="output",
            operation="answer",
            input="report",
            output=REPORT_TEXT,
            causal_type="verification_of_prior_step",
        ),
        _step(
            6,
            2,
            actor="user",
            action="user_message",
            input="Looks good, thanks.",
            eval=0,
            caused_by=[5],
            causal_type="approval_response",
            message_role="approval",
            feedback_type="approval",
            feedback_content="The user approved the fix.",
        ),
    ]
    trace = Trace(
        trace_id="forsy_test_0001",
        trace_mode="retraced",
        validation_level="retraced_from_logs",
        task="Fix the checkout.",
        agent_tools=["Read", "Bash"],
        started_at="2025-03-14T14:00:00Z",
        ended_at="2025-03-14T14:10:00Z",
        termination_reason="user_confirmed_done",
        steps=steps,
        final_output=REPORT_TEXT,
        static_output=StaticOutput(
            artifacts=[
                Artifact(
                    path="report.md",
                    type="generated",
                    role="deliverable",
                    related_steps=[5],
                    description="The report.",
                    state="Written.",
                    hash=sha(REPORT_TEXT),
                    content=REPORT_TEXT,
                    release_sensitivity="open",
                ),
                Artifact(
                    path="artifacts/notes.txt",
                    type="observed",
                    role="evidence",
                    related_steps=[4],
                    description="Test notes.",
                    state="Copied.",
                    hash=sha(NOTES_TEXT),
                    release_sensitivity="open",
                ),
            ]
        ),
        summary=Summary(
            total_steps=6,
            total_turns=2,
            positive_steps=3,
            negative_steps=1,
            neutral_steps=2,
            directive_signals=1,
            human_feedback=HumanFeedback(approvals=1),
            agent_confidence=75,
            goal_achieved=True,
            goal_notes="Fixed.",
        ),
        dataset_summary=DatasetSummary(
            title="Checkout fix",
            description="An agent fixes a checkout bug.",
            tags=["coding"],
            release_tier="research_preview",
            validation_level="retraced_from_logs",
        ),
    )
    return trace.model_dump(mode="json")


def valid_provenance(trace: dict[str, Any]) -> dict[str, Any]:
    """Every non-null step field copied from one evidence record."""
    ev = EvidenceInfo(source="session.jsonl", line=1, byte_offset=0, byte_length=10, sha256=SOURCE_SHA)
    ref = [EvidenceRef(id="ev_1", pointer="/message")]
    steps = [
        StepProvenance(
            step=s["step"],
            evidence=["ev_1"],
            fields={
                f: FieldProvenance(origin="copied", evidence=ref) for f in STEP_FIELDS if s[f] is not None
            },
        )
        for s in trace["steps"]
    ]
    trace_fields = {
        "task": FieldProvenance(origin="copied", evidence=ref),
        "summary.agent_confidence": FieldProvenance(origin="derived", rule="score", evidence=ref),
    }
    prov = Provenance(
        trace_id=trace["trace_id"],
        sources={"session.jsonl": SOURCE_SHA},
        evidence={"ev_1": ev},
        trace_fields=trace_fields,
        steps=steps,
    )
    return prov.model_dump(mode="json")


def valid_manifest(trace: dict[str, Any]) -> dict[str, Any]:
    m = Manifest(
        trace_id=trace["trace_id"],
        generator={"name": "forsy"},
        source_kind="claude_code",
        sources=[SourceFileInfo(path="session.jsonl", kind="claude_code", bytes=10, sha256=SOURCE_SHA)],
        trace_mode="retraced",
        validation_level="retraced_from_logs",
        release_tier="research_preview",
        started_at=trace["started_at"],
        ended_at=trace["ended_at"],
        total_steps=6,
        total_turns=2,
        agent_confidence=75,
    )
    return m.model_dump(mode="json")


Edit = Callable[[dict[str, Any]], Any]


def write_folder(
    root: Path,
    *,
    trace: Edit | None = None,
    provenance: Edit | None = None,
    manifest: Edit | None = None,
    after: Callable[[Path], Any] | None = None,
) -> Path:
    """A valid trace folder, with optional edits of each file before it is written (the
    manifest's file hashes are computed after the other files are written) and of the disk."""
    t = valid_trace()
    if trace:
        trace(t)
    p = valid_provenance(t)
    if provenance:
        provenance(p)
    root.mkdir(parents=True, exist_ok=True)
    (root / "artifacts").mkdir(exist_ok=True)
    (root / "artifacts" / "notes.txt").write_text(NOTES_TEXT, encoding="utf-8")
    (root / "trace.json").write_text(json.dumps(t), encoding="utf-8")
    (root / "provenance.json").write_text(json.dumps(p), encoding="utf-8")
    m = valid_manifest(t)
    m["files"] = {
        n: hashlib.sha256((root / n).read_bytes()).hexdigest()
        for n in ("trace.json", "provenance.json", "artifacts/notes.txt")
    }
    if manifest:
        manifest(m)
    (root / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    if after:
        after(root)
    return root


def rules(findings: list[Finding]) -> set[tuple[str, int | None]]:
    return {(f.rule, f.step) for f in findings}


def _load_forsy_check() -> ModuleType | None:
    path = SHARED / "tools" / "forsy_check.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("forsy_check", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


FORSY_CHECK = _load_forsy_check()
needs_checker = pytest.mark.skipif(FORSY_CHECK is None, reason="../shared/tools/forsy_check.py absent")


def checker_errors(path: Path) -> list[str]:
    """forsy_check's errors; a crash of the checker counts as an error it reports."""
    assert FORSY_CHECK is not None
    try:
        errs, _warns, _stats = FORSY_CHECK.check_spec(path)
    except Exception as exc:  # the checker is not ours: it may crash on junk
        return [f"checker crashed: {exc!r}"]
    return list(errs)


# ---------------------------------------------------------------- the valid trace


def test_valid_trace_has_no_findings() -> None:
    assert validate_trace(valid_trace()) == []


def test_valid_folder_has_no_findings(tmp_path: Path) -> None:
    report = validate_path(write_folder(tmp_path / "t"))
    assert report.findings == []
    assert report.ok and not report.legacy
    assert report.stats == {
        "steps": 6,
        "turns": 2,
        "confidence": 75,
        "user_messages": 2,
        "positive": 3,
        "negative": 1,
        "neutral": 2,
        "artifacts": 2,
    }


def test_a_trace_file_alone_skips_the_folder_rules(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "t", after=lambda r: (r / "artifacts" / "notes.txt").unlink())
    assert validate_path(folder / "trace.json").findings == []
    assert ("A011", None) in rules(validate_path(folder).findings)


@needs_checker
def test_valid_folder_passes_forsy_check(tmp_path: Path) -> None:
    assert checker_errors(write_folder(tmp_path / "t")) == []


# ---------------------------------------------------------------- one mutation per rule


def at(i: int, **kw: Any) -> Edit:
    """Set fields of step i (1-based)."""
    return lambda t: t["steps"][i - 1].update(kw)


def top(**kw: Any) -> Edit:
    return lambda t: t.update(kw)


def part(key: str, **kw: Any) -> Edit:
    return lambda t: t[key].update(kw)


def art(j: int, **kw: Any) -> Edit:
    return lambda t: t["static_output"]["artifacts"][j].update(kw)


def drop(*keys: str | int) -> Edit:
    def edit(t: dict[str, Any]) -> None:
        node: Any = t
        for k in keys[:-1]:
            node = node[k]
        del node[keys[-1]]

    return edit


def legacy(t: dict[str, Any]) -> None:
    t["schema_version"] = "forsy-v1"


def both(*edits: Edit) -> Edit:
    return lambda t: [e(t) for e in edits]


S = "steps"
# (rule, step the finding is about, edit of the valid trace)
MUTATIONS: list[tuple[str, int | None, Edit]] = [
    ("T001", None, drop("learning")),
    ("T002", None, top(extra_field=1)),
    ("T003", None, top(schema_version="forsy-trace-v0.2")),
    ("T004", None, top(trace_mode="replayed")),
    ("T005", None, top(validation_level=["self_traced"])),
    ("T006", None, top(termination_reason="done")),
    ("T007", None, top(agent_tools="Read Bash")),
    ("T008", None, top(task="   ")),
    ("T009", None, top(trace_id=7)),
    ("T010", None, top(skills="forsy")),
    ("T010", None, top(agent_config=[1])),
    ("T011", None, top(steps=[])),
    ("T011", None, top(steps={"1": {}})),
    ("H001", None, top(started_at="yesterday")),
    ("H001", 2, at(2, started_at="14:00")),
    ("H001", 2, at(2, ended_at=20250314)),
    ("H002", None, top(started_at="2025-03-14T14:00:00")),
    ("H002", 3, at(3, started_at="2025-03-14T14:03:00")),
    ("H003", None, top(started_at="2025-03-14T15:00:00+00:00")),
    ("H004", 2, at(2, ended_at="2025-03-14T14:01:59Z")),
    ("H005", 3, at(3, started_at="2025-03-14T14:01:30Z")),
    ("H006", 2, at(2, started_at="2025-03-14T13:59:00Z")),
    ("H006", 6, at(6, ended_at="2025-03-14T14:11:00Z")),
    ("S001", 2, lambda t: t[S].__setitem__(1, "read the file")),
    ("S002", 2, drop(S, 1, "alternatives_considered")),
    ("S003", 2, at(2, confidence=1)),
    ("S004", 2, at(2, step="2")),
    ("S004", 3, at(3, step=2)),
    ("S005", 2, at(2, turn="1")),
    ("S005", 6, at(6, turn=0)),
    ("S005", 5, both(at(4, turn=2), at(5, turn=1))),
    ("S006", 1, lambda t: [s.update(turn=s["turn"] + 1) for s in t[S]]),
    ("S007", 6, at(6, turn=3)),
    ("S008", 2, at(2, action="tool_call")),
    ("S008", 2, at(2, action={"kind": "read"})),
    ("S009", 2, at(2, output={"stdout": "x"})),
    ("S009", 2, at(2, success="true")),
    ("S009", 2, at(2, input_source={"actor": 1})),
    ("S009", 2, at(2, actor="")),
    ("S010", 2, at(2, operation="ponder")),
    ("S011", 2, at(2, causal_type="whim")),
    ("S012", 6, at(6, message_role="rant")),
    (
        "S012",
        6,
        both(at(6, feedback_type="praise"), part("summary", human_feedback=HumanFeedback().model_dump())),
    ),
    ("S013", 2, at(2, feedback_content="ok")),
    ("S014", 2, at(2, execution_mode=None)),
    ("S014", 2, at(2, execution_mode=["serial"])),
    ("S015", 2, at(2, success=None)),
    ("S016", 2, at(2, parallel_group="pg_1")),
    ("S017", 2, at(2, execution_mode="parallel")),
    ("S018", 2, at(2, actor="robot")),
    ("S019", 2, at(2, actor="user")),
    ("S020", 2, at(2, tool="Grep")),
    ("S021", 1, drop(S, 0)),
    ("S022", 2, at(2, input_source={"actor": "agent", "source_step": 4})),
    ("U001", 1, at(1, actor="agent")),
    ("U002", 1, at(1, reasoning="because")),
    ("U002", 1, at(1, directive="never on a user message")),
    ("U002", 6, at(6, execution_mode="serial")),
    ("U003", 1, at(1, eval=False)),
    ("U003", 1, at(1, eval=1)),  # an int, in range for other steps: only U003 says no
    ("U003", 1, at(1, eval=-1)),
    ("U004", 1, at(1, input="")),
    ("U004", 6, at(6, input=None)),
    ("U005", 1, at(1, feedback_content="restates the request")),
    ("C001", 2, at(2, caused_by="1")),
    ("C001", 2, at(2, caused_by=[1.0])),
    ("C002", 2, at(2, caused_by=[2])),
    ("C003", 2, at(2, caused_by=[1, 5])),
    ("C003", 2, at(2, caused_by=[0])),
    ("C004", 2, at(2, caused_by=[])),
    ("C004", 2, at(2, caused_by=[1, 1])),
    ("C005", 4, at(4, retry_of=4)),
    ("C005", 4, at(4, retry_of=5)),
    ("C005", 4, at(4, retry_of="3")),
    ("C006", 4, at(4, retry_of=1)),
    ("C007", 2, at(2, eval=True)),
    ("C007", 2, at(2, eval=2)),
    ("C007", 2, at(2, eval="1")),
    ("C008", 2, at(2, eval=-1)),
    ("C009", 2, at(2, directive="do better")),
    ("C010", 3, at(3, eval=1, success=True)),
    ("M001", None, top(summary="all fine")),
    ("M002", None, drop("summary", "goal_notes")),
    ("M003", None, part("summary", mood="good")),
    ("M004", None, part("summary", total_steps=7)),
    ("M004", None, part("summary", positive_steps="3")),
    ("M004", None, part("summary", total_turns=True)),
    ("M004", None, part("summary", directive_signals=0)),
    ("M005", None, part("summary", human_feedback={"approvals": 1})),
    (
        "M005",
        None,
        part(
            "summary",
            human_feedback={"corrections": 0, "approvals": "1", "clarifications": 0, "new_instructions": 0},
        ),
    ),
    ("M005", None, part("summary", human_feedback=None)),
    ("M006", None, part("summary", human_feedback=HumanFeedback(corrections=1).model_dump())),
    ("M007", None, part("summary", agent_confidence=101)),
    ("M007", None, part("summary", agent_confidence=75.0)),
    ("M008", None, part("summary", goal_achieved="yes")),
    ("M009", None, part("summary", goal_achieved=None)),
    ("M010", None, part("summary", goal_notes=5)),
    ("D001", None, top(dataset_summary=[])),
    ("D002", None, drop("dataset_summary", "title")),
    ("D003", None, part("dataset_summary", license="MIT")),
    ("D004", None, part("dataset_summary", description="")),
    ("D005", None, part("dataset_summary", tags="coding")),
    ("D006", None, part("dataset_summary", release_tier="public")),
    ("D007", None, part("dataset_summary", validation_level="human_reviewed")),
    ("A001", None, top(static_output=None)),
    ("A001", None, top(static_output="[]")),
    ("A001", None, top(static_output={"artifacts": {}})),
    ("A002", None, part("static_output", files=[])),
    ("A003", None, drop("static_output", "artifacts", 0, "diff")),
    ("A003", None, lambda t: t["static_output"]["artifacts"].append("report.md")),
    ("A004", None, art(0, size=3)),
    ("A005", None, art(0, type="edited")),
    ("A006", None, art(0, release_sensitivity="secret")),
    ("A007", None, art(0, hash="md5:abc")),
    ("A007", None, art(0, hash=sha(REPORT_TEXT).upper())),
    ("A008", None, art(0, content=REPORT_TEXT + "more")),
    ("A008", None, art(0, content="\ud800")),
    ("A009", None, art(0, related_steps=[0])),
    ("A009", None, art(0, related_steps=[7])),
    ("A009", None, art(0, related_steps=5)),
    ("A010", None, art(0, path="")),
    ("A010", None, art(0, diff=["-a", "+b"])),
    ("A012", None, art(0, release_sensitivity="exclude")),
    ("A012", None, art(1, release_sensitivity="private", diff="-a\n+b")),
    ("O001", None, top(final_output={"text": "x"})),
    ("O002", None, top(final_output=None)),
    ("L001", None, legacy),
    ("L002", None, both(legacy, top(collection_id="c1"))),
    ("L003", None, both(legacy, lambda t: [s.update(step_index=s["step"]) for s in t[S]])),
    ("L004", None, both(legacy, lambda t: t.update(static_output=json.dumps(t["static_output"])))),
    ("L004", None, both(legacy, top(static_output="Files produced: a.py"))),
]


def _mutated(edit: Edit) -> dict[str, Any]:
    t = valid_trace()
    edit(t)
    return t


@pytest.mark.parametrize(
    ("rule", "step", "edit"), MUTATIONS, ids=[f"{r}-{n}" for n, (r, _, _) in enumerate(MUTATIONS)]
)
def test_mutation_is_reported(rule: str, step: int | None, edit: Edit) -> None:
    findings = validate_trace(_mutated(edit))
    assert (rule, step) in rules(findings), [str(f) for f in findings]
    assert all(f.severity == RULES[f.rule].severity for f in findings)


@pytest.mark.parametrize("value", [1, -1, False, True, 0.0, "0", None])
def test_u003_a_user_message_eval_must_be_the_integer_0(value: Any) -> None:
    findings = validate_trace(_mutated(at(1, eval=value)))
    assert ("U003", 1) in rules(findings), [str(f) for f in findings]
    assert ("U003", 1) not in rules(validate_trace(_mutated(at(1, eval=0))))


def test_legacy_mutations_set_the_legacy_flag(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(_mutated(legacy)), encoding="utf-8")
    report = validate_path(path)
    assert report.legacy and not report.ok
    assert ("T003", None) not in rules(report.findings)  # L001 says it, with the legacy reason


def test_private_content_is_fine_in_a_private_trace() -> None:
    edit = both(part("dataset_summary", release_tier="private"), art(0, release_sensitivity="private"))
    assert validate_trace(_mutated(edit)) == []


def test_legacy_static_output_string_is_unpacked_and_checked() -> None:
    def edit(t: dict[str, Any]) -> None:
        legacy(t)
        del t["static_output"]["artifacts"][0]["diff"]
        t["static_output"] = json.dumps(t["static_output"])

    assert {("L004", None), ("A003", None)} <= rules(validate_trace(_mutated(edit)))


def test_warnings_alone_keep_a_trace_ok(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(_mutated(at(2, operation="ponder"))), encoding="utf-8")
    report = validate_path(path)
    assert report.ok and report.warnings and not report.errors


# ---------------------------------------------------------------- folders: files, manifest, provenance


def _set(key: str, value: Any) -> Edit:
    return lambda d: d.__setitem__(key, value)


def _step_prov(i: int, edit: Callable[[dict[str, Any]], Any]) -> Edit:
    return lambda p: edit(p["steps"][i - 1])


def _write(name: str, text: str) -> Callable[[Path], Any]:
    return lambda root: (root / name).write_text(text, encoding="utf-8")


def _ledger_file(read: int, cited: int) -> dict[str, Any]:
    entries = [{"heading": "cited", "record_type": "user", "count": cited}]
    return {"path": "log.jsonl", "records_read": read, "totals": {"cited": cited}, "entries": entries}


# (rule, step, keyword arguments of write_folder)
FOLDER_MUTATIONS: list[tuple[str, int | None, dict[str, Any]]] = [
    ("F001", None, {"after": lambda r: (r / "trace.json").unlink()}),
    ("F001", None, {"after": lambda r: (r / "trace.json").write_bytes(b'{"task": "\xff"}')}),
    ("F002", None, {"after": _write("trace.json", '{"steps": [')}),
    ("F002", None, {"after": _write("trace.json", '{"steps": NaN}')}),
    ("F002", None, {"after": _write("trace.json", "[" * 100_000)}),
    ("F003", None, {"after": _write("trace.json", "[]")}),
    ("F004", None, {"after": _write("trace.json", '{"task": "a", "task": "b"}')}),
    ("N001", None, {"after": lambda r: (r / "manifest.json").unlink()}),
    ("N002", None, {"after": _write("manifest.json", "{")}),
    ("N002", None, {"after": _write("manifest.json", '"manifest"')}),
    ("N003", None, {"manifest": _set("collection_id", "c1")}),
    ("N003", None, {"manifest": drop("generator")}),
    ("N003", None, {"manifest": _set("total_steps", "six")}),
    ("N004", None, {"manifest": _set("trace_id", "other")}),
    ("N005", None, {"manifest": _set("total_steps", 5)}),
    ("N005", None, {"manifest": _set("release_tier", "open_example")}),
    ("N005", None, {"manifest": _set("agent_confidence", 80)}),
    ("N006", None, {"manifest": lambda m: m["files"].update({"trace.json": "0" * 64})}),
    ("N006", None, {"manifest": lambda m: m["files"].update({"README.md": "0" * 64})}),
    ("N006", None, {"manifest": lambda m: m["files"].update({"../outside.json": "0" * 64})}),
    ("N006", None, {"manifest": lambda m: m["files"].update({"trace.json": "md5"})}),
    ("N007", None, {"manifest": drop("files", "provenance.json")}),
    ("N007", None, {"manifest": _set("files", {})}),
    ("N008", None, {"manifest": _set("started_at", "2025-03-14T13:00:00Z")}),
    ("N009", None, {"manifest": _set("ledger", [_ledger_file(read=2, cited=1)])}),
    ("N010", None, {"manifest": _set("ledger", [_ledger_file(read=99, cited=99)])}),
    ("P001", None, {"after": _write("provenance.json", "not json")}),
    ("P001", None, {"after": _write("provenance.json", "[1]")}),
    ("P002", None, {"provenance": drop("evidence")}),
    ("P002", None, {"provenance": _step_prov(2, lambda s: s["fields"]["tool"].update(origin="guessed"))}),
    ("P003", None, {"provenance": _set("trace_id", "other")}),
    ("P004", 9, {"provenance": lambda p: p["steps"].append({"step": 9, "evidence": [], "fields": {}})}),
    ("P005", 2, {"provenance": lambda p: p["steps"].append(copy.deepcopy(p["steps"][1]))}),
    ("P006", 2, {"provenance": _step_prov(2, lambda s: s["evidence"].append("ev_404"))}),
    (
        "P006",
        2,
        {"provenance": _step_prov(2, lambda s: s["fields"]["tool"]["evidence"].append({"id": "ev_9"}))},
    ),
    ("P006", None, {"provenance": lambda p: p["trace_fields"]["task"]["evidence"].append({"id": "ev_9"})}),
    ("P007", 2, {"provenance": _step_prov(2, lambda s: s["fields"].pop("output"))}),
    ("P007", 3, {"provenance": lambda p: p["steps"].pop(2)}),
    ("P008", 2, {"provenance": _step_prov(2, lambda s: s["fields"]["reasoning"].update(origin="model"))}),
    (
        "P009",
        2,
        {"provenance": _step_prov(2, lambda s: s["fields"].update(mood={"origin": "derived", "rule": "r"}))},
    ),
    (
        "P009",
        None,
        {"provenance": lambda p: p["trace_fields"].update(colour={"origin": "derived", "rule": "r"})},
    ),
    (
        "P010",
        1,
        {"provenance": _step_prov(1, lambda s: s["fields"].update(tool={"origin": "derived", "rule": "r"}))},
    ),
    ("P011", None, {"provenance": lambda p: p["evidence"]["ev_1"].update(source="other.jsonl")}),
    ("P012", 2, {"provenance": _step_prov(2, lambda s: s["fields"]["tool"].update(origin="derived"))}),
    ("P012", 2, {"provenance": _step_prov(2, lambda s: s["fields"]["tool"].update(evidence=[]))}),
    (
        "P012",
        2,
        {"provenance": _step_prov(2, lambda s: s["fields"]["tool"]["evidence"][0].update(pointer="x"))},
    ),
    ("P013", None, {"provenance": lambda p: p["sources"].update({"session.jsonl": "b" * 64})}),
    ("A011", None, {"trace": art(1, path="artifacts/missing.txt")}),
    ("A011", None, {"trace": art(1, path="artifacts/../../etc/passwd")}),
    ("A011", None, {"trace": art(0, content="artifacts/gone.md", hash=None)}),
    ("A008", None, {"trace": art(0, content="artifacts/notes.txt")}),
    ("A013", None, {"after": _write("artifacts/notes.txt", "changed\n")}),
    ("A014", None, {"after": _write("artifacts/stray.txt", "?")}),
]


@pytest.mark.parametrize(
    ("rule", "step", "kw"), FOLDER_MUTATIONS, ids=[f"{r}-{n}" for n, (r, _, _) in enumerate(FOLDER_MUTATIONS)]
)
def test_folder_mutation_is_reported(tmp_path: Path, rule: str, step: int | None, kw: dict[str, Any]) -> None:
    report = validate_path(write_folder(tmp_path / "t", **kw))
    assert (rule, step) in rules(report.findings), [str(f) for f in report.findings]


def test_content_that_points_to_its_file_is_checked_against_the_file(tmp_path: Path) -> None:
    ok = write_folder(tmp_path / "t", trace=art(1, content="artifacts/notes.txt"))
    assert validate_path(ok).findings == []


def test_missing_path_is_a_finding_not_an_exception(tmp_path: Path) -> None:
    report = validate_path(tmp_path / "nowhere.json")
    assert [f.rule for f in report.findings] == ["F001"] and not report.ok


def test_validate_trace_rejects_a_non_object() -> None:
    assert [f.rule for f in validate_trace([])] == ["F003"]  # type: ignore[arg-type]


# ---------------------------------------------------------------- legacy upstream examples

LEGACY_DIRS = sorted(p for p in UPSTREAM.iterdir() if p.is_dir()) if UPSTREAM.is_dir() else []


@pytest.mark.skipif(not LEGACY_DIRS, reason="../shared/spec/upstream-examples absent")
@pytest.mark.parametrize("folder", LEGACY_DIRS, ids=[p.name for p in LEGACY_DIRS])
def test_upstream_legacy_examples_are_read(folder: Path) -> None:
    report = validate_path(folder)
    found = {f.rule for f in report.findings}
    assert report.legacy and not report.ok
    assert {"L001", "L002", "L003", "N003"} <= found  # legacy version, fields and manifest
    assert report.stats["steps"] == len(
        json.loads((folder / "trace.json").read_text(encoding="utf-8"))["steps"]
    )
    static = json.loads((folder / "trace.json").read_text(encoding="utf-8"))["static_output"]
    assert ("L004" in found) == isinstance(static, str)
    if FORSY_CHECK is not None:
        assert checker_errors(folder) and report.errors


# ---------------------------------------- never raise; at least as strict as forsy_check

KEYS = st.sampled_from(
    [*TOP_LEVEL_FIELDS, *STEP_FIELDS, "artifacts", "human_feedback", "step_index"]
) | st.text(max_size=6)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=25,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


VALID_PATHS = _paths(valid_trace())


def _replace(t: dict[str, Any], path: tuple[Any, ...], value: Any, delete: bool) -> dict[str, Any]:
    node: Any = t
    for k in path[:-1]:
        node = node[k]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return t


mutated_traces = st.builds(
    lambda path, value, delete: _replace(valid_trace(), path, value, delete),
    st.sampled_from(VALID_PATHS),
    JSON,
    st.booleans(),
)

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(JSON, st.none() | JSON, st.none() | JSON)
def test_random_json_never_raises(value: Any, manifest: Any, provenance: Any) -> None:
    findings = validate_trace(value, manifest=manifest, provenance=provenance)
    assert all(isinstance(f, Finding) and f.rule in RULES for f in findings)
    assert findings or isinstance(value, dict)  # anything but an object is at least F003


@FAST
@given(mutated_traces, st.none() | JSON)
def test_mutated_traces_never_raise(trace: dict[str, Any], manifest: Any) -> None:
    findings = validate_trace(trace, manifest=manifest, provenance=valid_provenance(valid_trace()))
    assert all(f.rule in RULES for f in findings)


@needs_checker
@settings(max_examples=120, deadline=None)
@given(mutated_traces)
def test_at_least_as_strict_as_forsy_check(
    tmp_path_factory: pytest.TempPathFactory, trace: dict[str, Any]
) -> None:
    path = tmp_path_factory.mktemp("x") / "trace.json"
    path.write_text(json.dumps(trace), encoding="utf-8")
    if checker_errors(path):
        assert validate_path(path).errors, checker_errors(path)


@needs_checker
@pytest.mark.parametrize(
    ("rule", "step", "edit"), MUTATIONS, ids=[f"{r}-{n}" for n, (r, _, _) in enumerate(MUTATIONS)]
)
def test_each_mutation_cross_checked_fires_its_rule_from_the_file(
    tmp_path: Path, rule: str, step: int | None, edit: Edit
) -> None:
    """Read back from a file, the mutation still gives its own rule; and whatever the
    independent checker calls an error, we do too (every case asserts, whether or not the
    checker has an opinion on it)."""
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(_mutated(edit)), encoding="utf-8")
    report = validate_path(path)
    assert (rule, step) in rules(report.findings), [str(f) for f in report.findings]
    theirs = checker_errors(path)
    assert not theirs or report.errors, theirs


@FAST
@given(
    st.binary(max_size=200) | JSON.map(lambda v: json.dumps(v).encode()),
    st.sampled_from(["trace", "manifest", "provenance"]),
)
def test_random_files_in_a_folder_never_raise(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, which: str
) -> None:
    root = write_folder(
        tmp_path_factory.mktemp("f") / "t", after=lambda r: (r / f"{which}.json").write_bytes(data)
    )
    report = validate_path(root)
    assert all(f.rule in RULES for f in report.findings)
    if which == "trace":  # at most 25 random leaves cannot make the 20 top-level fields
        assert not report.ok


# ---------------------------------------------------------------- the catalogue and its documentation


def test_every_rule_is_exercised_by_a_test() -> None:
    exercised = {r for r, _, _ in MUTATIONS} | {r for r, _, _ in FOLDER_MUTATIONS}
    assert set(rule_catalogue()) - exercised == set()


def test_rule_ids_follow_the_scheme() -> None:
    assert all(re.fullmatch(r"[FTHSUCMDAONPL]\d{3}", rid) for rid in rule_catalogue())
    assert list(rule_catalogue().values()) == [r.summary for r in RULES.values()]


def test_doc_lists_every_rule_as_the_code_says() -> None:
    doc = DOC.read_text(encoding="utf-8")
    assert all(rid in doc for rid in rule_catalogue())
    assert catalogue_markdown() in doc  # ids, severities and meanings as generated from the code


def _in_memory(folder: Path) -> list[Finding]:
    """The reference: the folder's three files parsed, in the order `validate_path` reads them,
    and every rule run by `validate_trace` over the parsed values."""
    from forsy.validation._base import Sink
    from forsy.validation._json import load_json

    sink = Sink()
    trace = load_json(folder / "trace.json", sink, ("F001", "F002", "F003"))
    if trace is None:
        return sink.findings
    manifest = provenance = None
    if (folder / "manifest.json").exists():
        manifest = load_json(folder / "manifest.json", sink, ("N002",) * 3)
    else:
        sink.add("N001", "the trace folder has no manifest.json", field="manifest")
    if (folder / "provenance.json").exists():
        provenance = load_json(folder / "provenance.json", sink, ("P001",) * 3)
    return sink.findings + validate_trace(trace, manifest=manifest, provenance=provenance, folder=folder)


WITH_TRACE_FINDINGS: list[dict[str, Any]] = [  # a broken trace beside each broken provenance
    {**kw, "trace": both(top(task="   "), at(3, tool=None))} for rule, _, kw in FOLDER_MUTATIONS
    if rule.startswith("P") and "trace" not in kw
]


@pytest.mark.parametrize("kw", [kw for _, _, kw in FOLDER_MUTATIONS] + WITH_TRACE_FINDINGS)
def test_a_folder_gets_the_findings_of_its_files_validated_in_memory(tmp_path: Path, kw: dict[str, Any]) -> None:
    """`validate_path` checks provenance after dropping the parsed trace (it keeps only which
    step fields are set), so a large folder's two files are never held together: the findings,
    and their order, are those of the three files parsed and checked together."""
    folder = write_folder(tmp_path / "t", **kw)
    report = validate_path(folder)
    assert [str(f) for f in report.findings] == [str(f) for f in _in_memory(folder)]
    assert report.findings



_TWO_CORES = COUNT_FORKS + """
import json, sys
import forsy.validation.check as check
from forsy.validation import validate_path
check.ASIDE_BYTES = 0  # every folder's provenance checked by a child
out = []
for folder in sys.argv[1:]:
    before = len(forks)
    report = validate_path(folder)
    out.append({"findings": [str(f) for f in report.findings], "forked": len(forks) > before})
print(json.dumps(out))
"""


@NEEDS_FORK
def test_folders_checked_on_two_cores_get_the_same_findings(tmp_path: Path) -> None:
    """A large folder's provenance is checked by a forked child while the trace is checked here
    (every folder, with the threshold at 0, in a fresh interpreter: no thread another test left
    running stops the fork): the findings and their order stay those of the three files
    checked together, for every folder mutation."""
    kws = [kw for _, _, kw in FOLDER_MUTATIONS] + WITH_TRACE_FINDINGS
    folders = [write_folder(tmp_path / f"t{i}", **kw) for i, kw in enumerate(kws)]
    results = run_fresh(_TWO_CORES, *map(str, folders))
    assert len(results) == len(folders)
    for folder, got in zip(folders, results, strict=True):
        assert got["findings"] == [str(f) for f in _in_memory(folder)], folder
        assert got["forked"] or not (folder / "provenance.json").exists(), folder
