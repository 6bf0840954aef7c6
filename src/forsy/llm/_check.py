"""The model's answer → checked proposals (`forsy.proposals.Proposal`), or dropped with a reason.

A proposal is accepted only when every one of its citations passes (`_evidence`), its field
is one the model may fill and is still null, and its value is of the right type or in the
spec's set. Everything else is dropped and counted by reason; nothing the model wrote reaches
the trace unless it passed. The checker never changes the caller's drafts: it works on a
copy with the proposals accepted so far laid over it (a later proposal may depend on an
earlier one, e.g. a directive on the correction it follows), and hands back the accepted
proposals for `assemble` to lay over the drafts the same way.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt
from pydantic import ValidationError as PydanticError

from ..models import KNOWN_FEEDBACK_TYPES, KNOWN_MESSAGE_ROLES, STEP_FIELDS, TerminationReason
from ..proposals import Actor, Citation, Proposal, Replaced, Value, apply_step, copy_drafts, step_path, trace_path
from ..rules.segment import Draft
from ._evidence import SUCCESS_CLAIM, EvidenceIndex, looks_injected, step_evidence
from ._ground import FAILURE, KIND_RULES, TERMINATION_RULES, TEST_PASS, USER_DONE, ungrounded
from ._request import FILL_AGENT, FILL_USER, Chunk, Plan

E = TypeVar("E", bound=BaseModel)

MAX_VALUE_CHARS = 1500
# Fields a model never writes: copied from the log, or set by a rule from it.
COPIED = frozenset({"step", "turn", "actor", "action", "tool", "input", "output", "started_at", "ended_at",
                    "task", "final_output", "system_prompt", "trace_id"})
SESSION_KEYS = {"learning": "learning", "goal_achieved": "summary.goal_achieved", "goal_notes": "summary.goal_notes",
                "termination_reason": "termination_reason", "description": "dataset_summary.description"}
SESSION_ORDER = ("goal_achieved", "goal_notes", "termination_reason", "learning", "description")
ENUMS: dict[str, frozenset[str]] = {
    "message_role": KNOWN_MESSAGE_ROLES, "feedback_type": KNOWN_FEEDBACK_TYPES,
    "termination_reason": frozenset(t.value for t in TerminationReason),
}
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n(.*?)\n[ \t]*```", re.S)


class RawCitation(BaseModel):
    model_config = ConfigDict(extra="ignore")
    evidence_id: str
    quote: str


class RawProposal(BaseModel):
    model_config = ConfigDict(extra="ignore")
    step: StrictInt | None = None
    field: str
    value: Any = None
    citations: list[RawCitation] = Field(default_factory=list)
    about_step: StrictInt | None = None


class Envelope(BaseModel):
    """The structured answer: a JSON object with a list of proposals (each checked on its own)."""

    model_config = ConfigDict(extra="ignore")
    proposals: list[dict[str, Any]] = Field(max_length=5000)


def parse_answer(content: str) -> list[dict[str, Any]]:
    """The proposals of an answer; ValueError when it is not the JSON object the prompt asks for.

    Read as sent (JSON mode), else from the first fenced block that holds the object (```json …```,
    with or without words around it: what a model without JSON mode writes), else from the
    outermost {...} in the text."""
    return parse_envelope(content, Envelope, "proposals").proposals


def parse_envelope(content: str, envelope: type[E], what: str) -> E:
    """The first place in the answer that holds a valid `envelope` (`answer_candidates`);
    ValueError naming `what` was asked for and how many errors the last try had."""
    errors = 0
    for text in answer_candidates(content):
        try:
            return envelope.model_validate_json(text)
        except PydanticError as e:
            errors = e.error_count()
    raise ValueError(f"answer is not a {what} object: {errors} error(s)")


def answer_candidates(content: str) -> list[str]:
    """Where the JSON object of an answer may be: the whole text, each fenced block, the outermost {...}."""
    candidates = [content.strip()] + [m.group(1).strip() for m in _FENCE.finditer(content)]
    first, last = content.find("{"), content.rfind("}")
    if 0 <= first < last:
        candidates.append(content[first:last + 1])
    return candidates


@dataclass
class Cite:
    id: str
    quote: str  # the evidence's own text that matched
    score: float
    pointer: str


@dataclass
class Tally:
    proposed: int = 0
    accepted: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    accepted_fields: Counter[str] = field(default_factory=Counter)
    # (step, field, reason) of each dropped proposal, never its text: that may be made up
    rejections: list[tuple[int | None, str, str]] = field(default_factory=list)


class Rejected(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Checker:
    """Checks each chunk's proposals against the evidence and the drafts, in chunk order."""

    def __init__(self, drafts: list[Draft], idx: EvidenceIndex, plan: Plan, actor: Actor):
        self.drafts = copy_drafts(drafts)  # the drafts as the accepted proposals leave them
        self.idx, self.plan, self.actor = idx, plan, actor
        self.tally = Tally()
        self.accepted: list[Proposal] = []  # append-only, in the order they were accepted
        self.trace_keys: set[str] = set()
        self.users = [i for i, d in enumerate(drafts) if d.values["action"] == "user_message"]
        self.first_step: dict[str, int] = {}  # evidence id → the first step citing it
        for i, d in enumerate(drafts):
            for ev in d.evidence:
                self.first_step.setdefault(ev, i)

    def apply(self, chunk: Chunk, raw: list[dict[str, Any]]) -> None:
        props: list[RawProposal] = []
        for r in raw:
            self.tally.proposed += 1
            try:
                props.append(RawProposal.model_validate(r))
            except PydanticError:
                self.tally.rejected["malformed_proposal"] += 1
                self.tally.rejections.append((None, "?", "malformed_proposal"))
        # user-step classifications before the directives that depend on them; goal before its notes
        props.sort(key=lambda p: (p.field == "directive", p.step is None,
                                  SESSION_ORDER.index(p.field) if p.field in SESSION_ORDER else 0))
        for p in props:
            try:
                self._one(chunk, p)
            except Rejected as r:
                self.tally.rejected[r.reason] += 1
                # only names forsy knows: a field name is the model's text too, and may be made up
                name = p.field if p.field in STEP_FIELDS or p.field in SESSION_KEYS else "(unknown field)"
                self.tally.rejections.append((p.step, name, r.reason))
            else:
                self.tally.accepted += 1
                self.tally.accepted_fields[p.field] += 1

    # ------------------------------------------------------------------ one proposal
    def _one(self, ch: Chunk, p: RawProposal) -> None:
        if p.step is None:
            return self._session(ch, p)
        if p.field == "directive":
            return self._directive(ch, p)
        i = p.step - 1
        if i not in ch.steps:
            raise Rejected("unknown_step")
        d = self.drafts[i]
        allowed = FILL_USER if d.values["action"] == "user_message" else FILL_AGENT
        if p.field not in allowed:
            raise Rejected(self._not_allowed(d, p.field))
        if d.values.get(p.field) is not None:
            raise Rejected("already_filled")
        if p.field not in self.plan.fills[i]:
            raise Rejected("field_not_allowed")  # e.g. feedback on the initial request
        if p.field in ("state_change", "alternatives_considered") and not (d.call_id or d.values.get("tool")):
            raise Rejected("not_applicable")  # no action: nothing changed, nothing was chosen over another
        value = self._value(p.field, p.value)
        cites = self._cites(ch, p, value)
        if d.values["action"] == "user_message":
            if not self._cites_words(cites, i):
                raise Rejected("not_user_words")
            rule = KIND_RULES.get(value) if p.field in ENUMS else None
            if rule is not None and not any(rule.search(c.quote) for c in cites):
                raise Rejected("enum_unsupported")  # e.g. "correction" where the user's words correct nothing
        if any(self.first_step.get(c.id, -1) > i for c in cites):
            raise Rejected("later_evidence")  # a step is described by what was known then, not by hindsight
        if p.field == "state_change" and not any(c.id in d.evidence for c in cites):
            raise Rejected("not_applicable")  # what a step changed is in its own call or result
        if p.field == "causal_note" and not any(self.first_step.get(c.id, i) < i for c in cites):
            raise Rejected("not_applicable")  # a causal note rests on an earlier step
        self._accept(self._proposal(step_path(i + 1, p.field), value, cites))

    def _directive(self, ch: Chunk, p: RawProposal) -> None:
        k, u = (p.step or 0) - 1, (p.about_step or 0) - 1
        if not (0 <= k < len(self.drafts)) or (k not in ch.steps and k not in ch.context):
            raise Rejected("unknown_step")
        if u not in ch.steps or self.drafts[u].values["action"] != "user_message":
            raise Rejected("unknown_step")
        target, user = self.drafts[k], self.drafts[u]
        if target.values["action"] == "user_message":
            raise Rejected("field_not_allowed")
        prev = max((x for x in self.users if x < u), default=-1)
        if not prev < k < u:  # only work since the previous user message can be corrected by this one
            raise Rejected("field_not_allowed")
        if "correction" not in (user.values.get("feedback_type"), user.values.get("message_role")):
            raise Rejected("depends_on_rejected")
        if target.values.get("directive") is not None:
            raise Rejected("already_filled")
        value = self._value("directive", p.value)
        cites = self._cites(ch, p, value)
        if not self._cites_words(cites, u):
            raise Rejected("not_user_words")
        self._correct(target, k, u, value, cites)

    def _correct(self, target: Draft, k: int, u: int, value: str, cites: list[Cite]) -> None:
        """A user's correction: directive, eval −1 (and success false, which eval −1 requires) on the step."""
        fix = (("user_step", u + 1),)
        at = k + 1
        self._accept(self._proposal(step_path(at, "directive"), value, cites))
        self._accept(self._proposal(step_path(at, "eval"), -1, cites, rule="M-correction", params=fix))
        if target.values.get("success") is True:
            was = target.prov.get("success")
            self._accept(self._proposal(step_path(at, "success"), False, cites, rule="M-correction", params=fix,
                                        replaced=Replaced(True, was.rule if was else None)))
        if target.values.get("eval_reason") is None:
            self._accept(self._proposal(step_path(at, "eval_reason"), f"The user corrected this step in step {u + 1}.",
                                        cites, rule="M-correction", params=fix))
        user = self.drafts[u]
        if user.values.get("caused_by") is None:
            self._accept(self._proposal(step_path(u + 1, "caused_by"), (k + 1,), cites, rule="M-correction",
                                        params=fix))

    def _session(self, ch: Chunk, p: RawProposal) -> None:
        key = SESSION_KEYS.get(p.field)
        if key is None:
            raise Rejected(self._not_allowed(None, p.field))
        if key in self.trace_keys:
            raise Rejected("already_filled")
        if p.field not in ch.session_fields:
            raise Rejected("already_filled" if p.field == "termination_reason" else "field_not_allowed")
        if p.field == "goal_notes" and SESSION_KEYS["goal_achieved"] not in self.trace_keys:
            raise Rejected("depends_on_rejected")  # notes on an outcome that was not accepted
        value = self._value(p.field, p.value)
        cites = self._cites(ch, p, value if isinstance(value, str) else None, session=True)
        if p.field == "goal_achieved" and not any(self._shows_outcome(c, value) for c in cites):
            raise Rejected("goal_unsupported")
        if p.field == "termination_reason" and not any(self._shows_ending(c, value) for c in cites):
            raise Rejected("enum_unsupported")
        self.trace_keys.add(key)
        self._accept(self._proposal(trace_path(key), value, cites))

    # ------------------------------------------------------------------ checks
    def _not_allowed(self, d: Draft | None, name: str) -> str:
        origin = d.prov[name].origin if d is not None and name in d.prov else None
        return "copied_field" if name in COPIED or origin == "copied" else "field_not_allowed"

    def _value(self, name: str, value: Any) -> Any:
        if name == "goal_achieved":
            if not isinstance(value, bool):
                raise Rejected("bad_value")
            return value
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_VALUE_CHARS:
            raise Rejected("bad_value")
        value = value.strip()
        if name in ENUMS and value not in ENUMS[name]:
            raise Rejected("bad_value")
        return value

    def _cites(self, ch: Chunk, p: RawProposal, value: str | None, session: bool = False) -> list[Cite]:
        if not p.citations:
            raise Rejected("no_citation")
        if value is not None and (looks_injected(value) or self.idx.tainted(value)):
            raise Rejected("injection_suspect")
        out: list[Cite] = []
        for c in p.citations:
            if c.evidence_id not in self.idx.texts:
                raise Rejected("unknown_id")
            if c.evidence_id not in ch.shown:
                raise Rejected("out_of_scope")
            if looks_injected(c.quote):
                raise Rejected("injection_suspect")
            m = self.idx.find(c.evidence_id, c.quote)
            if m is None:
                raise Rejected("quote_not_found")
            if looks_injected(m.span) or self.idx.tainted(m.span):
                raise Rejected("injection_suspect")
            if session and self._said_by_person(c.evidence_id) and SUCCESS_CLAIM.search(m.span):
                raise Rejected("injection_suspect")  # a typed "the task succeeded" is not an outcome
            out.append(Cite(c.evidence_id, m.span, m.score, m.pointer))
        if value is not None and p.field not in ENUMS:
            miss = ungrounded(value, [c.quote for c in out])
            if miss is not None:
                raise Rejected(miss[0])  # the value says something (a word, a number, a path) no quote says
        return out

    def _said_by_person(self, ev: str) -> bool:
        return bool(self.idx.kinds.get(ev, set()) & {"user", "shell_command"})

    def _shows_result(self, ev: str) -> bool:
        return "tool_result" in self.idx.kinds.get(ev, set()) or ev in self.plan.final_answer

    def _shows_outcome(self, c: Cite, achieved: object) -> bool:
        """goal_achieved true: a passing test or build in a result or the final answer, or the user
        confirming it works; false: a failure in the quote, but not in the task's own words ("fix the
        failing test" asks for an outcome and shows none) and not one a later passing run fixed."""
        if achieved is not True:
            return bool(FAILURE.search(c.quote)) and not self._task_words(c.id) and not self._passed_after(c.id)
        if self._shows_result(c.id) and TEST_PASS.search(c.quote) and not FAILURE.search(c.quote):
            return True
        later = bool(self.users) and self.first_step.get(c.id, -1) > self.users[0]  # not the task's own words
        return later and "user" in self.idx.kinds.get(c.id, set()) and bool(USER_DONE.search(c.quote)) \
            and not FAILURE.search(c.quote)

    def _passed_after(self, ev: str) -> bool:
        """A tool result or the final answer after `ev`'s step showing a passing run and no failure:
        the failure `ev` shows was fixed, so it says nothing of how the session ended."""
        at = self.first_step.get(ev, -1)
        return any(self.first_step.get(other, -1) > at and self._shows_result(other) and TEST_PASS.search(text)
                   and not FAILURE.search(text) for other, text in self.idx.texts.items())

    def _task_words(self, ev: str) -> bool:
        return bool(self.users) and ev in step_evidence(self.drafts[self.users[0]], "input")

    def _shows_ending(self, c: Cite, reason: object) -> bool:
        rule = TERMINATION_RULES.get(str(reason))
        return rule is not None and bool(self.idx.kinds.get(c.id, set()) & rule[1]) and bool(rule[0].search(c.quote))

    def _cites_words(self, cites: list[Cite], user_step: int) -> bool:
        words = set(step_evidence(self.drafts[user_step], "input"))
        return any(c.id in words for c in cites)

    def _proposal(self, path: str, value: Value, cites: list[Cite], rule: str | None = None,
                  params: tuple[tuple[str, str | int | float], ...] | None = None,
                  replaced: Replaced | None = None) -> Proposal:
        return Proposal(path, value, "model", self.actor,
                        tuple(Citation(c.id, c.pointer, c.quote, c.score) for c in cites),
                        rule=rule, params=params, replaces=replaced)

    def _accept(self, p: Proposal) -> None:
        self.accepted.append(p)
        apply_step(self.drafts, p)  # the same overlay `assemble` lays: later checks see it

