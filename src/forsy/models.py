"""Pydantic models of the Forsy trace format `forsy-trace-v0.1`: the spec in code.

The field descriptions follow `forsy-trace-skill.md`. Closed sets are enums; the spec's
*suggested* values (operation, causal_type, message_role, feedback_type) are plain strings
whose known values live in `KNOWN_*` sets: others are allowed and `forsy validate` warns.

`forsy schema` prints `trace_json_schema()`, generated from these models.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

SCHEMA_VERSION: Literal["forsy-trace-v0.1"] = "forsy-trace-v0.1"


class TraceMode(StrEnum):
    live = "live"
    retraced = "retraced"
    hybrid = "hybrid"


class ValidationLevel(StrEnum):
    self_traced = "self_traced"
    retraced_from_logs = "retraced_from_logs"
    model_reviewed = "model_reviewed"
    human_reviewed = "human_reviewed"
    expert_reviewed = "expert_reviewed"
    client_validated = "client_validated"


class TerminationReason(StrEnum):
    task_complete = "task_complete"
    user_confirmed_done = "user_confirmed_done"
    user_abandoned = "user_abandoned"
    agent_blocked = "agent_blocked"
    timeout = "timeout"
    error_unrecoverable = "error_unrecoverable"
    partial_then_stopped = "partial_then_stopped"
    other = "other"


class Action(StrEnum):
    user_message = "user_message"
    agent_step = "agent_step"
    output = "output"
    error = "error"


class ExecutionMode(StrEnum):
    serial = "serial"
    parallel = "parallel"


class ReleaseTier(StrEnum):
    open_example = "open_example"
    research_preview = "research_preview"
    private = "private"
    not_for_release = "not_for_release"


class ArtifactType(StrEnum):
    created = "created"
    modified = "modified"
    deleted = "deleted"
    observed = "observed"
    generated = "generated"


class Sensitivity(StrEnum):
    open = "open"
    redacted = "redacted"
    private = "private"
    exclude = "exclude"


KNOWN_OPERATIONS = frozenset(
    "plan analyze search read write edit execute verify download install ask_user answer "
    "select other".split()
)
KNOWN_CAUSAL_TYPES = frozenset(
    "user_request follow_up_user_request answer_to_agent_question execution_of_plan "
    "dependency_on_tool_result retry_after_failure correction_response approval_response "
    "verification_of_prior_step dependency_on_multiple_prior_steps delegation_to_subagent "
    "delegated_work used_subagent_result handoff_from_subagent parallel_work other".split()
)
KNOWN_MESSAGE_ROLES = frozenset(
    "direct_request answer_to_agent_question correction approval clarification selection "
    "status_update new_constraint other".split()
)
# The step actors forsy writes and `forsy validate` accepts (S018), one definition for both:
# a role, optionally ':<id>' (subagent:a1b2, agent:shell), or 'human:<tool>' for a person seen
# through a tool's own record (human:shell, human:git).
ACTOR_RE = re.compile(r"(?:user|agent|subagent|system)(?::[A-Za-z0-9_.\-]+)?|human:[A-Za-z0-9_.\-]+")


def is_known_actor(actor: str) -> bool:
    return ACTOR_RE.fullmatch(actor) is not None


KNOWN_FEEDBACK_TYPES = frozenset("correction approval clarification new_instruction other".split())

Eval = Literal[-1, 0, 1]

STEP_FIELDS: tuple[str, ...] = (
    "step", "turn", "actor", "action", "operation", "tool", "execution_mode", "parallel_group",
    "observation", "input", "input_source", "output", "state_change", "reasoning", "caused_by",
    "causal_type", "causal_note", "alternatives_considered", "success", "eval", "eval_reason",
    "directive", "message_role", "feedback_type", "feedback_content", "started_at", "ended_at",
    "retry_of",
)  # fmt: skip

USER_MESSAGE_NULL_FIELDS: tuple[str, ...] = (
    "operation", "tool", "execution_mode", "observation", "reasoning", "success", "eval_reason",
    "directive", "output",
)  # fmt: skip

TOP_LEVEL_FIELDS: tuple[str, ...] = (
    "schema_version", "trace_id", "prior_trace_id", "trace_mode", "validation_level", "task",
    "agent_tools", "started_at", "ended_at", "system_prompt", "skills", "memory", "agent_config",
    "learning", "termination_reason", "steps", "final_output", "static_output", "summary",
    "dataset_summary",
)  # fmt: skip


class _Model(BaseModel):
    # Every field is written, null included: the format says fields are always present.
    model_config = ConfigDict(
        extra="forbid",
        use_enum_values=True,
        json_schema_serialization_defaults_required=True,
    )


class InputSource(_Model):
    """Where the input of a step came from."""

    actor: str = Field(description="user | agent | subagent | tool | system | external")
    source_step: int | None = Field(default=None, description="Step whose field fed this input.")
    source_field: str | None = Field(
        default=None, description="input | output | observation | directive | feedback_content | external"
    )
    note: str | None = Field(default=None, description="Short clarification.")


class Step(_Model):
    """One step node of the workflow graph. All 28 fields are always present."""

    step: StrictInt = Field(ge=1, description="Sequential number starting from 1, chronological.")
    turn: StrictInt = Field(ge=1, description="Turn; increases at each new user message.")
    actor: str = Field(description="Stable actor label: user, agent, subagent:<id>, system, ...")
    action: Action = Field(description="user_message | agent_step | output | error")
    operation: str | None = Field(default=None, description="plan, read, write, edit, execute, ...")
    tool: str | None = Field(default=None, description="Exact tool name; MCP tools as mcp:server.tool.")
    execution_mode: ExecutionMode | None = Field(default=None, description="serial | parallel.")
    parallel_group: str | None = Field(default=None, description="Shared id of parallel steps.")
    observation: str | None = Field(default=None, description="Concrete state before acting.")
    input: str | None = Field(default=None, description="Literal payload: exact words or arguments.")
    input_source: InputSource | None = Field(default=None, description="Origin of the input.")
    output: str | None = Field(default=None, description="Exact result, or an excerpt with omissions stated.")
    state_change: str | None = Field(default=None, description="What changed after the step.")
    reasoning: str | None = Field(default=None, description="Why this step was the next action.")
    caused_by: list[Annotated[StrictInt, Field(ge=1)]] | None = Field(
        default=None, description="Earlier steps that caused this one."
    )
    causal_type: str | None = Field(default=None, description="Kind of causal link.")
    causal_note: str | None = Field(default=None, description="How earlier steps led to this one.")
    alternatives_considered: str | None = Field(default=None, description="Alternatives and why not.")
    success: bool | None = Field(default=None, description="Did the step work; null for user messages.")
    eval: Eval = Field(default=0, description="Weak process label: -1, 0 or +1.")
    eval_reason: str | None = Field(default=None, description="Why the step got its eval.")
    directive: str | None = Field(default=None, description="Hindsight guidance on a failed step.")
    message_role: str | None = Field(default=None, description="For user messages only.")
    feedback_type: str | None = Field(default=None, description="For user messages only.")
    feedback_content: str | None = Field(default=None, description="For user messages only.")
    started_at: str | None = Field(default=None, description="ISO 8601 start.")
    ended_at: str | None = Field(default=None, description="ISO 8601 end.")
    retry_of: Annotated[StrictInt, Field(ge=1)] | None = Field(
        default=None, description="Earlier step this one retries."
    )

    @field_validator("eval", mode="before")
    @classmethod
    def _eval_not_bool(cls, v: Any) -> Any:
        if isinstance(v, bool):
            raise ValueError("eval is -1, 0 or 1, not a boolean")
        return v


class Artifact(_Model):
    """A file or structured artifact produced or observed by the work."""

    path: str = Field(description="File location or artifact identifier.")
    type: ArtifactType
    role: str = Field(description="deliverable, intermediate, test, config, log, evidence, ...")
    related_steps: list[Annotated[StrictInt, Field(ge=1)]] | None = None
    description: str | None = None
    state: str | None = None
    hash: str | None = Field(default=None, pattern=r"^sha256:[0-9a-f]{64}$",
                             description="sha256:<hex> of the content, when known.")
    content: str | None = None
    diff: str | None = None
    release_sensitivity: Sensitivity = Field(description="open, redacted, private or exclude; no default.")


class StaticOutput(_Model):
    artifacts: list[Artifact] = Field(default_factory=list)


class HumanFeedback(_Model):
    corrections: int = Field(default=0, ge=0)
    approvals: int = Field(default=0, ge=0)
    clarifications: int = Field(default=0, ge=0)
    new_instructions: int = Field(default=0, ge=0)


class Summary(_Model):
    total_steps: int = Field(ge=0)
    total_turns: int = Field(ge=0)
    positive_steps: int = Field(ge=0)
    negative_steps: int = Field(ge=0)
    neutral_steps: int = Field(ge=0)
    directive_signals: int = Field(ge=0)
    human_feedback: HumanFeedback
    agent_confidence: int = Field(ge=0, le=100, description="Confidence in the trace, not the work.")
    goal_achieved: bool | None = None
    goal_notes: str | None = None


class DatasetSummary(_Model):
    title: str = Field(min_length=1)
    description: str = Field(min_length=1)
    tags: list[str]
    release_tier: ReleaseTier
    validation_level: ValidationLevel


class Trace(_Model):
    """A whole Forsy trace (`trace.json`)."""

    schema_version: Literal["forsy-trace-v0.1"] = SCHEMA_VERSION
    trace_id: str
    prior_trace_id: str | None = None
    trace_mode: TraceMode
    validation_level: ValidationLevel
    task: str = Field(min_length=1)
    agent_tools: list[str]
    started_at: str | None = None
    ended_at: str | None = None
    system_prompt: str | None = None
    skills: list[str] | None = None
    memory: str | None = None
    agent_config: dict[str, Any] | None = None
    learning: str | None = None
    termination_reason: TerminationReason
    steps: list[Step]
    final_output: str | None = None
    static_output: StaticOutput = Field(default_factory=StaticOutput)
    summary: Summary
    dataset_summary: DatasetSummary


class ManifestWarning(_Model):
    """A problem met while reading, with its place."""

    code: str
    message: str
    file: str | None = None
    line: int | None = None


class SourceFileInfo(_Model):
    path: str = Field(description="Path relative to the input root, as used in evidence ids.")
    kind: str
    bytes: int
    sha256: str


LedgerHeadingName = Literal["cited", "metadata", "set_aside", "duplicate", "unparsable", "unknown"]
LEDGER_HEADINGS: tuple[str, ...] = ("cited", "metadata", "set_aside", "duplicate", "unparsable", "unknown")
# the record type of a ledger entry counting unparsable records the reader kept no Evidence of
# (an `unparsable` entry of any other type counts lines read, kept as Evidence, not parsed)
UNPARSED = "(unparsed)"


class LedgerEntry(_Model):
    """How many records of one type (and subtype) of a file went under one heading, and why."""

    heading: LedgerHeadingName
    record_type: str = Field(description="The record's type, '/subtype' when the source names one; "
                                         "'(none)' for a record without a type.")
    rule: str | None = Field(default=None, description="metadata: what it was used as; set_aside: the "
                                                       "rule (docs/rules.md); duplicate: of what.")
    count: int = Field(ge=1)
    text: int = Field(default=0, ge=0, description="unknown only: how many of them carry text.")


class LedgerFile(_Model):
    """Every record read from one input file, accounted for: the totals add up to `records_read`."""

    path: str
    records_read: int = Field(ge=0)
    totals: dict[LedgerHeadingName, int]
    entries: list[LedgerEntry] = Field(default_factory=list)


class Manifest(_Model):
    """`manifest.json`: what the trace was made from, how, and what went wrong."""

    trace_id: str
    schema_version: str = SCHEMA_VERSION
    generator: dict[str, str]
    source_kind: str
    session_id: str | None = None
    sources: list[SourceFileInfo]
    trace_mode: TraceMode
    validation_level: ValidationLevel
    release_tier: ReleaseTier
    started_at: str | None = None
    ended_at: str | None = None
    total_steps: int
    total_turns: int
    agent_confidence: int = Field(ge=0, le=100)
    confidence_factors: list[dict[str, Any]] = Field(default_factory=list)
    counts: dict[str, int] = Field(default_factory=dict)
    redaction: dict[str, Any] = Field(default_factory=dict)
    llm: dict[str, Any] | None = None
    warnings: list[ManifestWarning] = Field(default_factory=list)
    ledger: list[LedgerFile] | None = Field(
        default=None, description="Per input file, every record read: cited, metadata, set aside, duplicate, "
                                  "unparsable or unknown (absent in manifests written before the ledger).")
    files: dict[str, str] = Field(
        default_factory=dict, description="Bare sha256 hex of each written file, by path in the folder."
    )


Origin = Literal["copied", "derived", "model", "human"]


class EvidenceRef(_Model):
    """A pointer into one evidence record: its id and a JSON pointer inside the record."""

    id: str
    pointer: str = ""


class FieldProvenance(_Model):
    origin: Origin
    rule: str | None = Field(default=None, description="Named rule (forsy.rules.catalogue) for derived values.")
    params: dict[str, str | int | float] | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="The rule's parameters for this value (e.g. the similarity of a retry); absent when none.")
    evidence: list[EvidenceRef] = Field(default_factory=list)
    redacted: bool = Field(default=False, description="Placeholders replace parts of the copy.")
    excerpt: bool = Field(default=False, description="Only part of the evidence was copied.")
    model: dict[str, Any] | None = None
    reviewer: dict[str, Any] | None = Field(
        default=None, exclude_if=lambda v: v is None,
        description="origin 'human': who edited the value, when, and the value it replaced; absent otherwise.")


class StepProvenance(_Model):
    step: int
    evidence: list[str]
    fields: dict[str, FieldProvenance]


class EvidenceInfo(_Model):
    source: str
    line: int | None
    byte_offset: int
    byte_length: int
    sha256: str
    record_type: str | None = None


class Provenance(_Model):
    """`provenance.json`: where every non-null value came from."""

    trace_id: str
    sources: dict[str, str] = Field(description="Source path → sha256 of the whole file.")
    evidence: dict[str, EvidenceInfo]
    trace_fields: dict[str, FieldProvenance] = Field(
        description="Top-level fields by dotted path (e.g. summary.agent_confidence)."
    )
    steps: list[StepProvenance]
    matches: list[dict[str, Any]] = Field(
        default_factory=list, description="Every history/git match: kind, step, rule, score, evidence, uncertain."
    )


_M = TypeVar("_M", bound=BaseModel)
_new = object.__new__
_setattr = object.__setattr__


def trusted(cls: type[_M], values: dict[str, Any], fields_set: set[str] | None = None) -> _M:
    """`cls.model_construct(**values)` for values forsy built itself, each already of its type,
    tens of thousands of times per large log: `values` names every field of `cls`, in the
    model's order, defaults included; `fields_set` is the names `model_construct` would have
    been given (all of `values` when None). No validation, like `model_construct`, and none
    of its walk over each field's aliases and defaults (~7 µs a call).

    A `fields_set` given is used as it is, shared by every model built with it: a set per
    model is 200-700 bytes, ~70 MB for the provenance of a 100 MB log. Only pydantic's
    `exclude_unset` and `model_fields_set` read it (forsy uses neither); a field assigned
    later is added to the shared set, never refused. tests/test_draft_provenance.py holds
    the result to `model_construct`'s.

    The values are set one by one rather than `values` made the instance's dict: so the dict is
    one that shares its keys with the other instances of `cls` (CPython's key-sharing dicts:
    each holds only its values), 100-190 bytes less for each of a large log's ~120,000."""
    m = _new(cls)
    for name, value in values.items():
        _setattr(m, name, value)
    _setattr(m, "__pydantic_fields_set__", set(values) if fields_set is None else fields_set)
    _setattr(m, "__pydantic_extra__", None)
    _setattr(m, "__pydantic_private__", None)
    return m


def trace_json_schema() -> dict[str, Any]:
    """JSON Schema of `trace.json`, generated from the models."""
    schema = Trace.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "Forsy trace (forsy-trace-v0.1)"
    return schema
