"""Trace-level rules of `forsy validate`: top-level fields, times, summary, dataset_summary,
static_output artifacts, final_output, and the recognition of legacy traces.

The value sets come from `forsy.models` (enums, KNOWN_* sets, model field names), so the
validator and the models cannot drift apart.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from typing import Any

from ..models import (
    SCHEMA_VERSION,
    TOP_LEVEL_FIELDS,
    Artifact,
    ArtifactType,
    DatasetSummary,
    HumanFeedback,
    ReleaseTier,
    Sensitivity,
    Summary,
    TerminationReason,
    TraceMode,
    ValidationLevel,
)
from ._base import Sink, comparable, is_int, is_str_list, is_text, member, parse_time, show
from ._steps import Counts

TRACE_MODES = frozenset(m.value for m in TraceMode)
VALIDATION_LEVELS = frozenset(v.value for v in ValidationLevel)
TERMINATION_REASONS = frozenset(r.value for r in TerminationReason)
RELEASE_TIERS = frozenset(r.value for r in ReleaseTier)
ARTIFACT_TYPES = frozenset(a.value for a in ArtifactType)
SENSITIVITIES = frozenset(s.value for s in Sensitivity)
SUMMARY_FIELDS = tuple(Summary.model_fields)
HUMAN_FEEDBACK_FIELDS = tuple(HumanFeedback.model_fields)
DATASET_FIELDS = tuple(DatasetSummary.model_fields)
ARTIFACT_FIELDS = tuple(Artifact.model_fields)
PUBLIC_TIERS = ("open_example", "research_preview")

HASH_RE = re.compile(r"sha256:[0-9a-f]{64}")
# content that only points at a file of the folder, e.g. "artifacts/report.md"
ARTIFACT_REF_RE = re.compile(r"(?:\./)?artifacts/\S+")

LEGACY_SCHEMA_RE = re.compile(r"forsy-v\d+(?:\.\d+)*")
LEGACY_TOP_FIELDS = {
    "collection_id": "trace_id",
    "prior_collection_id": "prior_trace_id",
    "captured_at": "started_at / ended_at",
    "agent_model": "agent_config.model",
    "source_trace_id": "manifest.json",
    "trace_slug": "the folder name",
    "original_folder_name": "manifest.json",
    "source_folder_names": "manifest.json",
    "source_files": "manifest.json sources",
}
LEGACY_TERMINATION = {
    "user_directed_submit": "user_confirmed_done",
    "task_completed": "task_complete",
    "completed": "task_complete",
}
_OPTIONAL_STR = ("prior_trace_id", "system_prompt", "memory", "learning")


def is_legacy(trace: Any) -> bool:
    """A forsy-v1/forsy-v2 trace: the version says so, or (no version) legacy-only fields do."""
    if not isinstance(trace, dict):
        return False
    version = trace.get("schema_version")
    if isinstance(version, str):
        return LEGACY_SCHEMA_RE.fullmatch(version) is not None
    steps = trace.get("steps")
    step_index = isinstance(steps, list) and any(isinstance(s, dict) and "step_index" in s for s in steps)
    return version is None and ("collection_id" in trace or step_index)


def check_top(t: dict[str, Any], legacy: bool, sink: Sink) -> None:
    version = t.get("schema_version")
    if legacy:
        sink.add(
            "L001",
            f"legacy trace (schema_version {show(version)}): convert it to {SCHEMA_VERSION}",
            field="schema_version",
        )
    elif "schema_version" in t and version != SCHEMA_VERSION:
        sink.add(
            "T003", f"schema_version is {show(version)}, expected {SCHEMA_VERSION}", field="schema_version"
        )
    # the version first: for a legacy trace it explains most of what follows
    for f in TOP_LEVEL_FIELDS:
        if f not in t:
            sink.add("T001", f"missing top-level field {f}", field=f)
    _unknown_top(t, legacy, sink)
    _enum(t, "trace_mode", TRACE_MODES, "T004", sink)
    _enum(t, "validation_level", VALIDATION_LEVELS, "T005", sink)
    _enum(t, "termination_reason", TERMINATION_REASONS, "T006", sink)
    if "agent_tools" in t and not is_str_list(t["agent_tools"]):
        sink.add(
            "T007",
            f"agent_tools is {show(t['agent_tools'])}, expected a list of strings",
            field="agent_tools",
        )
    if "task" in t and not is_text(t["task"]):
        sink.add("T008", f"task is {show(t['task'])}, expected the user's request as text", field="task")
    if "trace_id" in t and not is_text(t["trace_id"]):
        sink.add("T009", f"trace_id is {show(t['trace_id'])}, expected a non-empty string", field="trace_id")
    _top_types(t, sink)
    steps = t.get("steps")
    if "steps" in t and (not isinstance(steps, list) or not steps):
        what = "an empty list" if isinstance(steps, list) else show(steps)
        sink.add("T011", f"steps is {what}: a trace needs at least one step", field="steps")


def _unknown_top(t: dict[str, Any], legacy: bool, sink: Sink) -> None:
    known = set(TOP_LEVEL_FIELDS)
    extra = [f for f in t if f not in known]
    if legacy:
        old = [f for f in extra if f in LEGACY_TOP_FIELDS]
        if old:
            sink.add(
                "L002",
                "legacy top-level fields: " + "; ".join(f"{f} (v0.1: {LEGACY_TOP_FIELDS[f]})" for f in old),
            )
        extra = [f for f in extra if f not in LEGACY_TOP_FIELDS]
    for f in extra:
        sink.add("T002", f"unknown top-level field {show(f)}", field=f)


def _enum(t: dict[str, Any], f: str, allowed: frozenset[str], rule: str, sink: Sink) -> None:
    if f not in t or member(t[f], allowed):
        return
    hint = LEGACY_TERMINATION.get(t[f]) if f == "termination_reason" and isinstance(t[f], str) else None
    more = f" (legacy value: use {hint!r})" if hint else ""
    sink.add(rule, f"{f} is {show(t[f])}, not one of {sorted(allowed)}{more}", field=f)


def _top_types(t: dict[str, Any], sink: Sink) -> None:
    for f in _OPTIONAL_STR:
        if t.get(f) is not None and not isinstance(t[f], str):
            sink.add("T010", f"{f} is {show(t[f])}, expected a string or null", field=f)
    if t.get("skills") is not None and not is_str_list(t["skills"]):
        sink.add("T010", f"skills is {show(t['skills'])}, expected a list of strings or null", field="skills")
    if t.get("agent_config") is not None and not isinstance(t["agent_config"], dict):
        sink.add(
            "T010",
            f"agent_config is {show(t['agent_config'])}, expected an object or null",
            field="agent_config",
        )


def check_trace_times(t: dict[str, Any], sink: Sink) -> tuple[datetime | None, datetime | None]:
    """Check the trace's own times and return them (parsed) for the step-window rule."""
    parsed: list[datetime | None] = []
    for f in ("started_at", "ended_at"):
        v = t.get(f)
        dt = parse_time(v) if isinstance(v, str) else None
        if v is not None and dt is None:
            sink.add("H001", f"{f} is {show(v)}, not an ISO 8601 timestamp", field=f)
        elif dt is not None and dt.tzinfo is None:
            sink.add("H002", f"{f} {v} has no timezone offset", field=f)
        parsed.append(dt)
    start, end = parsed
    if start and end and comparable(start, end) and start > end:
        sink.add(
            "H003", f"started_at {t['started_at']} is after ended_at {t['ended_at']}", field="started_at"
        )
    return start, end


def check_summary(t: dict[str, Any], counts: Counts, sink: Sink) -> None:
    if "summary" not in t:
        return
    summ = t["summary"]
    if not isinstance(summ, dict):
        sink.add("M001", f"summary is {show(summ)}, not an object", field="summary")
        return
    for f in SUMMARY_FIELDS:
        if f not in summ:
            sink.add("M002", f"summary lacks {f}", field=f"summary.{f}")
    for f in summ:
        if f not in SUMMARY_FIELDS:
            sink.add("M003", f"unknown summary field {show(f)}", field=f"summary.{f}")
    expected = {
        "total_steps": counts.steps,
        "total_turns": counts.turns,
        "positive_steps": counts.positive,
        "negative_steps": counts.negative,
        "neutral_steps": counts.neutral,
        "directive_signals": counts.directives,
    }
    for f, want in expected.items():
        if f in summ and (not is_int(summ[f]) or summ[f] != want):
            sink.add("M004", f"summary.{f} is {show(summ[f])}, the steps hold {want}", field=f"summary.{f}")
    if "human_feedback" in summ:
        _human_feedback(summ["human_feedback"], counts, sink)
    _summary_scalars(summ, sink)


def _human_feedback(hf: Any, counts: Counts, sink: Sink) -> None:
    field = "summary.human_feedback"
    if not isinstance(hf, dict) or set(hf) != set(HUMAN_FEEDBACK_FIELDS):
        keys = sorted(map(str, hf)) if isinstance(hf, dict) else show(hf)
        sink.add(
            "M005", f"human_feedback is {keys}, expected exactly {list(HUMAN_FEEDBACK_FIELDS)}", field=field
        )
        return
    bad = [k for k in HUMAN_FEEDBACK_FIELDS if not is_int(hf[k]) or hf[k] < 0]
    if bad:
        sink.add("M005", f"human_feedback counts {bad} are not integers >= 0", field=field)
        return
    diff = [
        f"{k} {hf[k]} (user messages: {counts.feedback[k]})"
        for k in HUMAN_FEEDBACK_FIELDS
        if hf[k] != counts.feedback[k]
    ]
    if diff:
        sink.add(
            "M006", "human_feedback differs from the feedback_type counts: " + ", ".join(diff), field=field
        )


def _summary_scalars(summ: dict[str, Any], sink: Sink) -> None:
    if "agent_confidence" in summ:
        ac = summ["agent_confidence"]
        if not is_int(ac) or not 0 <= ac <= 100:
            sink.add(
                "M007",
                f"agent_confidence is {show(ac)}, expected an integer 0..100",
                field="summary.agent_confidence",
            )
    if "goal_achieved" in summ:
        ga = summ["goal_achieved"]
        if ga is None:
            sink.add(
                "M009", "goal_achieved is null: the goal was not assessed", field="summary.goal_achieved"
            )
        elif not isinstance(ga, bool):
            sink.add(
                "M008",
                f"goal_achieved is {show(ga)}, expected true, false or null",
                field="summary.goal_achieved",
            )
    gn = summ.get("goal_notes")
    if gn is not None and not isinstance(gn, str):
        sink.add("M010", f"goal_notes is {show(gn)}, expected a string or null", field="summary.goal_notes")


def check_dataset_summary(t: dict[str, Any], sink: Sink) -> None:
    if "dataset_summary" not in t:
        return
    ds = t["dataset_summary"]
    if not isinstance(ds, dict):
        sink.add("D001", f"dataset_summary is {show(ds)}, not an object", field="dataset_summary")
        return
    for f in DATASET_FIELDS:
        if f not in ds:
            sink.add("D002", f"dataset_summary lacks {f}", field=f"dataset_summary.{f}")
    for f in ds:
        if f not in DATASET_FIELDS:
            sink.add("D003", f"unknown dataset_summary field {show(f)}", field=f"dataset_summary.{f}")
    for f in ("title", "description"):
        if f in ds and not is_text(ds[f]):
            sink.add(
                "D004", f"dataset_summary.{f} is {show(ds[f])}, expected text", field=f"dataset_summary.{f}"
            )
    if "tags" in ds and not is_str_list(ds["tags"]):
        sink.add(
            "D005", f"tags is {show(ds['tags'])}, expected a list of strings", field="dataset_summary.tags"
        )
    if "release_tier" in ds and not member(ds["release_tier"], RELEASE_TIERS):
        sink.add(
            "D006",
            f"release_tier is {show(ds['release_tier'])}, not one of {sorted(RELEASE_TIERS)}",
            field="dataset_summary.release_tier",
        )
    vl = ds.get("validation_level")
    if "validation_level" in ds and (not member(vl, VALIDATION_LEVELS) or vl != t.get("validation_level")):
        sink.add(
            "D007",
            f"dataset_summary.validation_level is {show(vl)}, the trace's is "
            f"{show(t.get('validation_level'))}",
            field="dataset_summary.validation_level",
        )


def check_static_output(t: dict[str, Any], n_steps: int, legacy: bool, sink: Sink) -> list[dict[str, Any]]:
    """Check static_output and return its artifacts that are objects (for the folder rules)."""
    if "static_output" not in t:
        return []
    so = t["static_output"]
    if isinstance(so, str) and legacy:
        so = _legacy_static_output(so, sink)
        if so is None:
            return []
    if not isinstance(so, dict) or not isinstance(so.get("artifacts"), list):
        what = (
            show(so)
            if not isinstance(so, dict)
            else f"an object whose artifacts is {show(so.get('artifacts'))}"
        )
        sink.add(
            "A001",
            f'static_output is {what}; expected {{"artifacts": [...]}} (an empty list when none)',
            field="static_output",
        )
        return []
    extra = [k for k in so if k != "artifacts"]
    if extra:
        sink.add(
            "A002", f"static_output has other keys: {', '.join(map(show, extra))}", field="static_output"
        )
    ds = t.get("dataset_summary")
    tier = ds.get("release_tier") if isinstance(ds, dict) else None
    for j, a in enumerate(so["artifacts"]):
        check_artifact(j, a, n_steps, tier, sink)
    return [a for a in so["artifacts"] if isinstance(a, dict)]


def _legacy_static_output(text: str, sink: Sink) -> Any:
    """Legacy traces hold static_output as JSON in a string: report it, then check what it holds."""
    try:
        inner = json.loads(text)
    except (ValueError, RecursionError):
        sink.add(
            "L004", "static_output is a plain string, not an object with artifacts", field="static_output"
        )
        return None
    sink.add(
        "L004",
        "static_output is JSON encoded in a string; its artifacts are checked below",
        field="static_output",
    )
    return inner


def check_artifact(j: int, a: Any, n_steps: int, tier: Any, sink: Sink) -> None:
    where = f"static_output.artifacts[{j}]"
    if not isinstance(a, dict):
        sink.add("A003", f"artifact {j} is {show(a)}, not an object", field=where)
        return
    missing = [f for f in ARTIFACT_FIELDS if f not in a]
    if missing:
        sink.add("A003", f"artifact {j} lacks {', '.join(missing)}", field=where)
    extra = [f for f in a if f not in ARTIFACT_FIELDS]
    if extra:
        sink.add("A004", f"artifact {j} has unknown fields {', '.join(map(show, extra))}", field=where)
    _artifact_types(j, a, where, sink)
    if "type" in a and not member(a["type"], ARTIFACT_TYPES):
        sink.add(
            "A005",
            f"artifact {j} type is {show(a['type'])}, not one of {sorted(ARTIFACT_TYPES)}",
            field=f"{where}.type",
        )
    if "release_sensitivity" in a and not member(a["release_sensitivity"], SENSITIVITIES):
        sink.add(
            "A006",
            f"artifact {j} release_sensitivity is {show(a['release_sensitivity'])}",
            field=f"{where}.release_sensitivity",
        )
    rs = a.get("related_steps")
    if rs is not None:
        bad = (
            [show(x) for x in rs if not (is_int(x) and 1 <= x <= n_steps)]
            if isinstance(rs, list)
            else [show(rs)]
        )
        if bad:
            sink.add(
                "A009",
                f"artifact {j} related_steps has {', '.join(bad)}; steps are 1..{n_steps}",
                field=f"{where}.related_steps",
            )
    _artifact_hash(j, a, where, sink)
    sens = a.get("release_sensitivity")
    # a private trace may keep private content; one released as an example or preview may not
    if (sens == "exclude" or (sens == "private" and tier in PUBLIC_TIERS)) and (
        a.get("content") or a.get("diff")
    ):
        released = f" in a trace released as {tier}" if sens == "private" else ""
        sink.add("A012", f"artifact {j} is {sens}{released} but carries content or a diff", field=where)


def _artifact_types(j: int, a: dict[str, Any], where: str, sink: Sink) -> None:
    for f in ("path", "role"):
        if f in a and not is_text(a[f]):
            sink.add(
                "A010", f"artifact {j} {f} is {show(a[f])}, expected a non-empty string", field=f"{where}.{f}"
            )
    for f in ("description", "state", "content", "diff"):
        if a.get(f) is not None and not isinstance(a[f], str):
            sink.add(
                "A010", f"artifact {j} {f} is {show(a[f])}, expected a string or null", field=f"{where}.{f}"
            )


def _artifact_hash(j: int, a: dict[str, Any], where: str, sink: Sink) -> None:
    h = a.get("hash")
    if h is None:
        return
    if not isinstance(h, str) or not HASH_RE.fullmatch(h):
        sink.add(
            "A007",
            f"artifact {j} hash is {show(h)}, expected 'sha256:' + 64 lowercase hex digits",
            field=f"{where}.hash",
        )
        return
    content = a.get("content")
    if not isinstance(content, str) or is_artifact_ref(content):
        return  # a reference to a file is checked against that file, in a folder
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError:
        sink.add(
            "A008",
            f"artifact {j} content is not valid Unicode text, so it cannot match its hash",
            field=f"{where}.content",
        )
        return
    if "sha256:" + hashlib.sha256(data).hexdigest() != h:
        sink.add("A008", f"artifact {j} hash is not the sha256 of its content", field=f"{where}.hash")


def is_artifact_ref(content: str) -> bool:
    return ARTIFACT_REF_RE.fullmatch(content.strip()) is not None


def check_final_output(t: dict[str, Any], counts: Counts, sink: Sink) -> None:
    if "final_output" not in t:
        return
    fo = t["final_output"]
    if fo is not None and not isinstance(fo, str):
        sink.add("O001", f"final_output is {show(fo)}, expected a string or null", field="final_output")
    elif fo is None and counts.output_steps:
        sink.add(
            "O002",
            f"final_output is null but {counts.output_steps} step(s) are output steps",
            field="final_output",
        )
