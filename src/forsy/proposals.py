"""Values that do not come from the rules: proposals, and how they are laid over a trace.

A proposal is a value for one field of a trace that forsy's rules did not derive: today a
language model's cited proposal (`forsy.llm` checks it before it becomes one), tomorrow a
reviewer's edit. Each is a frozen record:

    Proposal(path="/steps/3/state_change", value="pytest: 1 failed", origin="model",
             actor=Actor("openai/gpt-4o-mini", prompt_version="segment_v2"),
             citations=(Citation("ev_…", "/message/content/0", "1 failed, 2 passed", 100.0),))

Paths (one syntax for every field, JSON-pointer-like, steps numbered from 1 as in trace.json):

    /steps/<n>/<field>              a field of step n (any of `models.STEP_FIELDS` but `step`)
    /learning                       the trace's candidate lesson
    /summary/goal_achieved          /summary/goal_notes
    /termination_reason             refines the rule's "other" only (a rule's reason stands)
    /dataset_summary/description    appended to the card's rule-made text, marked as proposed

Proposals are kept append-only (a list, in the order they were accepted) and `assemble` is a
pure function of the drafts and that list: `apply_to_drafts` returns new drafts with the step
fields set (each with provenance origin `model` or `human`, its citations or the value it
replaced), and `trace_overlay` gives the trace-level values. Neither mutates its input.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from .models import STEP_FIELDS, FieldProvenance
from .rules.catalogue import check as check_rule
from .rules.segment import Draft

ProposalOrigin = Literal["model", "human"]
Scalar = str | int | float | bool
Value = Scalar | tuple[int, ...]
Params = tuple[tuple[str, str | int | float], ...]

# Trace-level paths and the key each has in provenance.json's `trace_fields`.
TRACE_PATHS: dict[str, str] = {
    "/learning": "learning",
    "/summary/goal_achieved": "summary.goal_achieved",
    "/summary/goal_notes": "summary.goal_notes",
    "/termination_reason": "termination_reason",
    "/dataset_summary/description": "dataset_summary.description",
}
_STEP_PATH = re.compile(r"^/steps/([1-9][0-9]*)/([a-z_]+)$")


@dataclass(frozen=True)
class Citation:
    """A passage of the log a value rests on: the evidence id, where in it, its own text."""

    evidence_id: str
    pointer: str
    quote: str  # the evidence's own characters (never the proposer's version of them)
    score: float  # 100 for an exact match


@dataclass(frozen=True)
class Actor:
    """Who proposed: a model (name and prompt version) or a reviewer (an identity)."""

    name: str
    prompt_version: str | None = None


@dataclass(frozen=True)
class Replaced:
    """The value a proposal replaces (only consequences of a correction replace a set value)."""

    value: Scalar
    rule: str | None


@dataclass(frozen=True)
class Grouping:
    """How a value of an accepted model grouping (proposed steps, docs/llm.md) came to be.

    The model grouped a run of rule-made steps into proposed steps and turns with a goal each;
    every value it set (a step's `turn`, the `reasoning` that states its proposed step's goal)
    names the proposal, where in it the step sits, and the checks the whole grouping passed."""

    proposal: str  # the request's prompt version ("steps_v1")
    turn: int  # the turn the step is in (as written in the trace)
    turn_goal: str  # the proposed turn's goal (checked like the step's)
    group: int  # the proposed step, numbered from 1 over the whole grouping
    steps: tuple[int, int]  # the trace steps (first, last) that proposed step covers
    checks: tuple[str, ...]  # the checks the grouping passed (all of them, or it is not here)

    def as_dict(self) -> dict[str, object]:
        return {"proposal": self.proposal, "turn": self.turn, "turn_goal": self.turn_goal, "group": self.group,
                "steps": list(self.steps), "checks": list(self.checks)}


@dataclass(frozen=True)
class Proposal:
    path: str
    value: Value | None  # None: a reviewer declined a model's value (the field is null again)
    origin: ProposalOrigin
    actor: Actor
    citations: tuple[Citation, ...] = ()
    rule: str | None = None  # a named rule that turned a proposal into this value (e.g. M-correction)
    params: Params | None = None
    replaces: Replaced | None = None
    time: str | None = None  # when it was made (an injected clock; None for the model pass: re-runs match)
    grouping: Grouping | None = None  # set on the values of an accepted grouping (proposed steps)

    def __post_init__(self) -> None:
        parse_path(self.path)  # a proposal with a path forsy cannot place is a bug, not data
        if self.rule is not None:
            check_rule(self.rule, dict(self.params) if self.params else None)

    @property
    def primary(self) -> bool:
        """Proposed as such (not a value a rule set because of another proposal)."""
        return self.rule is None


@dataclass(frozen=True)
class StepPath:
    step: int  # 1-based
    field: str


def parse_path(path: str) -> StepPath | str:
    """A step path, or the provenance key of a trace path; ValueError for anything else."""
    m = _STEP_PATH.match(path)
    if m:
        name = m.group(2)
        if name not in STEP_FIELDS or name == "step":
            raise ValueError(f"no step field {name!r} in proposal path {path!r}")
        return StepPath(int(m.group(1)), name)
    key = TRACE_PATHS.get(path)
    if key is None:
        raise ValueError(f"proposal path {path!r} names no field a proposal may set")
    return key


def step_path(step: int, name: str) -> str:
    return f"/steps/{step}/{name}"


def trace_path(key: str) -> str:
    """The path of a provenance key (`summary.goal_achieved` → `/summary/goal_achieved`)."""
    path = "/" + key.replace(".", "/")
    parse_path(path)
    return path


def provenance(p: Proposal) -> FieldProvenance:
    """The provenance a proposal's value carries in provenance.json."""
    refs: list[dict[str, str]] = []
    for c in p.citations:
        ref = {"id": c.evidence_id, "pointer": c.pointer}
        if ref not in refs:
            refs.append(ref)
    who: dict[str, object] = {"model": p.actor.name} if p.origin == "model" else {"reviewer": p.actor.name}
    if p.actor.prompt_version is not None:
        who["prompt_version"] = p.actor.prompt_version
    who["citations"] = [{"id": c.evidence_id, "quote": c.quote, "score": c.score} for c in p.citations]
    if p.replaces is not None:
        who["replaced"] = {"value": p.replaces.value, "rule": p.replaces.rule}
    if p.time is not None:
        who["time"] = p.time
    if p.grouping is not None:
        who["grouping"] = p.grouping.as_dict()
    params = dict(p.params) if p.params else None
    return FieldProvenance.model_validate({"origin": p.origin, "rule": p.rule, "params": params, "evidence": refs,
                                           "model": who if p.origin == "model" else None,
                                           "reviewer": who if p.origin == "human" else None})


def _plain(v: Value | None) -> object:
    return list(v) if isinstance(v, tuple) else v


def copy_drafts(drafts: Sequence[Draft]) -> list[Draft]:
    """Drafts whose values, provenance and evidence lists can change without touching the originals."""
    return [d.copy() for d in drafts]


def apply_step(drafts: list[Draft], p: Proposal) -> None:
    """Set one step proposal on `drafts` (in place: callers pass their own copy)."""
    where = parse_path(p.path)
    if not isinstance(where, StepPath):
        return
    if not 1 <= where.step <= len(drafts):
        raise ValueError(f"proposal for step {where.step} of a trace with {len(drafts)} steps")
    drafts[where.step - 1].set(where.field, _plain(p.value), provenance(p))


def apply_to_drafts(drafts: Sequence[Draft], proposals: Iterable[Proposal]) -> list[Draft]:
    """New drafts: `drafts` with every step proposal applied in order (the originals are unchanged)."""
    out = copy_drafts(drafts)
    for p in proposals:
        apply_step(out, p)
    return out


@dataclass
class TraceOverlay:
    """Trace-level values from proposals, by provenance key (the last proposal for a key wins)."""

    values: dict[str, tuple[Value | None, FieldProvenance]] = field(default_factory=dict)
    model_values: int = 0  # proposals a model made as such (what the card counts)
    models: list[str] = field(default_factory=list)  # the models that made them, in order of first use

    def get(self, key: str) -> Value | None:
        hit = self.values.get(key)
        return hit[0] if hit is not None else None


def trace_overlay(proposals: Iterable[Proposal]) -> TraceOverlay:
    out = TraceOverlay()
    for p in proposals:
        # a grouping's turn numbers re-number a field the rules set, they fill no null field: the
        # card's count ("values for N null fields") leaves them out; provenance marks each one
        regrouped = p.grouping is not None and p.path.endswith("/turn")
        if p.origin == "model" and p.primary and not regrouped:
            out.model_values += 1
            if p.actor.name not in out.models:
                out.models.append(p.actor.name)
        where = parse_path(p.path)
        if isinstance(where, str):
            out.values[where] = (p.value, provenance(p))
    return out


__all__ = ["TRACE_PATHS", "Actor", "Citation", "Grouping", "Proposal", "ProposalOrigin", "Replaced", "StepPath",
           "TraceOverlay", "apply_step", "apply_to_drafts", "copy_drafts", "parse_path", "provenance", "step_path",
           "trace_overlay", "trace_path"]
