"""Shared pieces of `forsy validate`: the finding type, the rule catalogue and value helpers.

Rule ids are a letter for the part of the trace folder the rule is about and a number:

    F  the files themselves (readable, JSON, an object)      H  timestamps
    T  top-level fields                                       M  `summary`
    S  step structure and per-step fields                     D  `dataset_summary`
    U  the hard invariants of `user_message` steps            A  `static_output` artifacts
    C  causality, retries and eval                            O  `final_output`
    N  `manifest.json`                                        P  `provenance.json`
    L  legacy (forsy-v1 / forsy-v2) traces

Every rule has one fixed severity, so an id alone says whether a trace passes. Ids are
stable: a retired rule keeps its number unused, a new rule takes the next free number.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypeGuard

from .. import times

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    """One problem found in a trace. `step` is the 1-based position of the step it is about."""

    rule: str
    severity: Severity
    message: str
    step: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = f"step {self.step}: " if self.step is not None else ""
        return f"{self.severity} {self.rule} {where}{self.message}"


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    summary: str


_E: Severity = "error"
_W: Severity = "warning"

_CATALOGUE: tuple[tuple[str, Severity, str], ...] = (
    ("F001", _E, "The trace file cannot be read (missing, unreadable, not UTF-8)."),
    ("F002", _E, "The trace file is not valid JSON (NaN/Infinity and over-deep nesting included)."),
    ("F003", _E, "The trace is not a JSON object."),
    ("F004", _W, "A JSON object of a file repeats a key; only the last value is kept."),
    ("T001", _E, "A top-level field of forsy-trace-v0.1 is missing."),
    ("T002", _W, "An unknown top-level field is present."),
    ("T003", _E, "schema_version is not 'forsy-trace-v0.1'."),
    ("T004", _E, "trace_mode is not live, retraced or hybrid."),
    ("T005", _E, "validation_level is not one of the six validation levels."),
    ("T006", _E, "termination_reason is not one of the eight termination reasons."),
    ("T007", _E, "agent_tools is not a list of strings."),
    ("T008", _E, "task is not a non-empty string."),
    ("T009", _E, "trace_id is not a non-empty string."),
    ("T010", _E, "A top-level field has the wrong type (prior_trace_id, system_prompt, skills, ...)."),
    ("T011", _E, "steps is not a list, or the trace has no steps."),
    ("H001", _E, "A timestamp (trace or step started_at/ended_at) is not an ISO 8601 date-time (forsy.times)."),
    ("H002", _W, "A timestamp has no timezone offset, so it cannot be placed in time."),
    ("H003", _E, "The trace's started_at is after its ended_at."),
    ("H004", _E, "A step's ended_at is before its started_at."),
    ("H005", _W, "A step starts before the previous step started (steps out of time order)."),
    ("H006", _W, "A step's time lies outside the trace's started_at..ended_at."),
    ("S001", _E, "A step is not a JSON object."),
    ("S002", _E, "A step lacks some of the 28 step fields."),
    ("S003", _W, "A step has fields that are not step fields."),
    ("S004", _E, "A step's number is not its position (steps are numbered 1, 2, 3, ...)."),
    ("S005", _E, "A step's turn is not an integer >= 1, or is lower than the previous step's."),
    ("S006", _W, "The first step's turn is not 1."),
    ("S007", _W, "Turns skip a number."),
    ("S008", _E, "action is not user_message, agent_step, output or error."),
    ("S009", _E, "A step field has the wrong type (actor, operation, input_source, success, ...)."),
    ("S010", _W, "operation is not one of the suggested operations."),
    ("S011", _W, "causal_type is not one of the suggested causal types."),
    ("S012", _W, "message_role or feedback_type is not one of the known values."),
    ("S013", _E, "A non-user step has feedback_content, message_role or feedback_type."),
    ("S014", _E, "A non-user step's execution_mode is not serial or parallel."),
    ("S015", _W, "A non-user step's success is null (not assessed)."),
    ("S016", _E, "A step has a parallel_group but its execution_mode is not parallel."),
    ("S017", _W, "A step is parallel but has no parallel_group."),
    ("S018", _W, "actor is not a usual label (user, agent, subagent, system, optionally ':<id>'; human:<tool>)."),
    ("S019", _W, "A step that is not a user_message has actor 'user'."),
    ("S020", _W, "A step uses a tool that agent_tools does not list."),
    ("S021", _W, "The first step is not a user_message (the initial request is missing)."),
    ("S022", _W, "input_source.source_step does not point to an earlier step."),
    ("U001", _E, "A user_message step's actor is not 'user'."),
    (
        "U002",
        _E,
        "A user_message step has a non-null operation/tool/execution_mode/observation/"
        "reasoning/success/eval_reason/directive/output.",
    ),
    ("U003", _E, "A user_message step's eval is not 0."),
    ("U004", _E, "A user_message step's input is not a non-empty string."),
    ("U005", _W, "The first user_message has feedback_content (it would restate the request)."),
    ("C001", _E, "caused_by is neither null nor a list of integers."),
    ("C002", _E, "caused_by lists the step itself."),
    ("C003", _E, "caused_by lists a later step, or a number below 1."),
    ("C004", _W, "caused_by is an empty list or repeats a step."),
    ("C005", _E, "retry_of is not an integer naming an earlier step."),
    ("C006", _W, "retry_of points to a user_message step."),
    ("C007", _E, "eval is not -1, 0 or 1 (booleans are not scores)."),
    ("C008", _W, "eval contradicts success (-1 on a successful step, +1 on a failed one)."),
    ("C009", _W, "A directive is on a step that has eval != -1 and was not retried."),
    ("C010", _W, "A step that a later step retries keeps eval +1."),
    ("M001", _E, "summary is not an object."),
    ("M002", _E, "summary lacks a field."),
    ("M003", _W, "summary has an unknown field."),
    ("M004", _E, "A summary count differs from what the steps hold."),
    ("M005", _E, "summary.human_feedback is not an object of exactly the four integer counts."),
    ("M006", _E, "summary.human_feedback differs from the feedback_type of the user messages."),
    ("M007", _E, "summary.agent_confidence is not an integer 0..100."),
    ("M008", _E, "summary.goal_achieved is not a boolean or null."),
    ("M009", _W, "summary.goal_achieved is null (the goal was not assessed)."),
    ("M010", _E, "summary.goal_notes is not a string or null."),
    ("D001", _E, "dataset_summary is not an object."),
    ("D002", _E, "dataset_summary lacks a field."),
    ("D003", _W, "dataset_summary has an unknown field."),
    ("D004", _E, "dataset_summary.title or .description is not a non-empty string."),
    ("D005", _E, "dataset_summary.tags is not a list of strings."),
    ("D006", _E, "dataset_summary.release_tier is not a release tier."),
    ("D007", _E, "dataset_summary.validation_level differs from the trace's validation_level."),
    ("A001", _E, "static_output is not an object with an 'artifacts' list."),
    ("A002", _W, "static_output has keys other than 'artifacts'."),
    ("A003", _E, "An artifact is not an object or lacks some of its 10 fields."),
    ("A004", _W, "An artifact has unknown fields."),
    ("A005", _E, "An artifact's type is not created, modified, deleted, observed or generated."),
    ("A006", _E, "An artifact's release_sensitivity is not open, redacted, private or exclude."),
    ("A007", _E, "An artifact's hash is neither null nor 'sha256:' + 64 lowercase hex digits."),
    ("A008", _E, "An artifact's hash differs from the sha256 of its content."),
    ("A009", _E, "An artifact's related_steps is not null or a list of existing step numbers."),
    ("A010", _E, "An artifact field has the wrong type (path, role, description, state, content, diff)."),
    ("A011", _E, "An artifact refers to a file under artifacts/ that is not in the trace folder."),
    ("A012", _W, "An excluded artifact, or a private one in a released trace, carries content or a diff."),
    ("A013", _W, "An artifact's hash differs from the sha256 of its file under artifacts/."),
    ("A014", _W, "A file under artifacts/ is not referred to by any artifact."),
    ("O001", _E, "final_output is not a string or null."),
    ("O002", _W, "final_output is null although the trace has output steps."),
    ("N001", _E, "The trace folder has no manifest.json."),
    ("N002", _E, "manifest.json cannot be read, is not JSON, or is not an object."),
    ("N003", _E, "manifest.json does not match the Manifest model."),
    ("N004", _E, "manifest.trace_id differs from the trace's trace_id."),
    ("N005", _E, "A manifest value (counts, confidence, mode, level, tier, schema) differs from the trace."),
    ("N006", _E, "A manifest 'files' entry names a missing file, or its sha256 differs."),
    ("N007", _W, "A file of the trace folder is not listed in manifest 'files'."),
    ("N008", _W, "manifest started_at/ended_at differ from the trace's."),
    ("N009", _E, "The manifest's ledger does not add up: a file's entries, totals and records_read disagree, or "
                 "its records with evidence differ from counts.evidence_records."),
    ("N010", _W, "The ledger's cited records differ from provenance.json's evidence, or its unparsable records "
                 "from counts.unparsable_records."),
    ("P001", _E, "provenance.json cannot be read, is not JSON, or is not an object."),
    ("P002", _E, "provenance.json does not match the Provenance model."),
    ("P003", _E, "provenance.trace_id differs from the trace's trace_id."),
    ("P004", _E, "provenance names a step that does not exist."),
    ("P005", _W, "provenance has more than one entry for a step."),
    ("P006", _E, "provenance cites an evidence id that provenance.evidence does not hold."),
    ("P007", _W, "A non-null step field has no provenance entry."),
    ("P008", _E, "A field whose origin is 'model' names no model, or whose origin is 'human' names no reviewer."),
    ("P009", _E, "provenance names a field that is not a step (or top-level) field."),
    ("P010", _W, "provenance describes a field that is null in the trace."),
    ("P011", _W, "An evidence record's source is not listed in provenance.sources."),
    ("P012", _W, "Thin field provenance (derived without rule, copied without evidence, bad pointer)."),
    ("P013", _W, "provenance.sources and manifest.sources give different sha256 for a source."),
    ("L001", _E, "The trace is a legacy forsy-v1/forsy-v2 trace, not forsy-trace-v0.1."),
    ("L002", _W, "Legacy top-level fields are present (collection_id, captured_at, ...)."),
    ("L003", _W, "Legacy step fields are present (step_index, feedback)."),
    ("L004", _E, "static_output is a string (legacy encoding), not an object."),
)

RULES: dict[str, Rule] = {rid: Rule(rid, sev, text) for rid, sev, text in _CATALOGUE}


def rule_catalogue() -> dict[str, str]:
    """Rule id -> one-line description, in catalogue order. Severities are in `RULES`."""
    return {rid: rule.summary for rid, rule in RULES.items()}


def catalogue_markdown() -> str:
    """The rule table of docs/validation.md, generated from the catalogue."""
    rows = ["| Rule | Severity | Meaning |", "|---|---|---|"]
    rows += [f"| {r.id} | {r.severity} | {r.summary.replace('|', '/')} |" for r in RULES.values()]
    return "\n".join(rows) + "\n"


class Sink:
    """Collects findings; the severity always comes from the catalogue, never from the caller."""

    __slots__ = ("findings",)

    def __init__(self) -> None:
        self.findings: list[Finding] = []

    def add(self, rule: str, message: str, *, step: int | None = None, field: str | None = None) -> None:
        self.findings.append(Finding(rule, RULES[rule].severity, message, step, field))


def is_int(value: Any) -> TypeGuard[int]:
    """An integer that is not a bool (JSON true is not a count)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_text(value: Any) -> TypeGuard[str]:
    """A string with something in it."""
    return isinstance(value, str) and value.strip() != ""


def member(value: Any, allowed: frozenset[str]) -> bool:
    """`value in allowed`, safe for unhashable JSON values (a list in a set test raises)."""
    return isinstance(value, str) and value in allowed


def is_str_list(value: Any) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def show(value: Any) -> str:
    """A short rendering of any JSON value for a message; never recursive, never huge."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        # repr of a huge int raises ValueError (int max str digits) and helps no one
        return repr(value) if value.bit_length() <= 64 else "a very large integer"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return repr(value[:60]) + ("…" if len(value) > 60 else "")
    if isinstance(value, list):
        return f"a list of {len(value)} item(s)"
    if isinstance(value, dict):
        return f"an object with {len(value)} key(s)"
    return type(value).__name__


def parse_time(value: str) -> datetime | None:
    """A timestamp as `forsy.times` defines one (the definition forsy writes by), or None.

    It is a subset of forsy_check.py's reading (`datetime.fromisoformat`), so we never accept
    what that checker rejects; it refuses the rarer ISO 8601 forms (week and ordinal dates,
    the basic format) that not every reader understands.
    """
    return times.parse_iso(value)


def comparable(a: datetime, b: datetime) -> bool:
    """Naive and aware datetimes cannot be ordered; H002 already warns about naive ones."""
    return (a.tzinfo is None) == (b.tzinfo is None)
