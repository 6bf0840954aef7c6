"""Proposed steps: a model groups shell commands into steps and turns, checked whole.

Where the rules cannot segment well — a session of shell commands only (`forsy retrace
~/.bash_history`, `--history` without an agent log), or a run of `MIN_RUN` or more shell
commands in a row inside a session (a person's own terminal work between an agent's turns) —
every command is a step of its own and nothing says which belong together or what they were
for. The model may propose a grouping: turns, each of consecutive steps, each step a run of
consecutive evidence ids, each turn and step with a goal made of its quotes' words.

A grouping is accepted whole or not at all (`Rejected` names the first rule it breaks): every
evidence id of the scope in exactly one step, each step's ids consecutive in the timeline, the
steps in order, no rule-made step split, turns only where no user message sets them, and each
goal grounded (`_ground.ungrounded`) in quotes found verbatim in evidence of its own step or
turn. An accepted grouping changes only `turn` (shell-only sessions) and sets the `reasoning`
each rule-made step left null to its proposed step's goal; every copied value stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticError

from ..proposals import Actor, Citation, Grouping, Proposal, Replaced, step_path
from ..rules.segment import Draft
from ._check import RawCitation, Rejected, parse_envelope
from ._evidence import EvidenceIndex, looks_injected, step_evidence
from ._ground import ungrounded
from ._request import CHUNK_FILL, EXCERPT, MIN_BODY_TOKENS, Chunk, Prompt, estimate_tokens, excerpt

PROMPT_NAME = "steps_v1"
MIN_RUN = 8  # shell commands in a row, inside a session with other steps, worth a grouping
MIN_SHELL_ONLY = 2  # a shell-only session of one step has nothing to group
MAX_GOAL_CHARS = 300
MAX_LISTED_IDS = 4  # a rule step with more records shows them as one run, first..last
# The checks an accepted grouping passed, in the order they run (named in provenance and the report).
CHECKS = ("well_formed", "turns_allowed", "ids_known_and_in_scope", "each_id_once", "every_id_covered",
          "steps_contiguous", "steps_in_order", "rule_steps_whole", "goals_cite_own_evidence", "quotes_verbatim",
          "goals_grounded", "no_injection")
TURNS_FREE = ("Start a new turn where the work turns to a different purpose; use as few turns as the "
              "records support.")
TURNS_FIXED = ("These commands lie inside one turn of a session that already has its turns: answer exactly "
               "one turn.")


# ---------------------------------------------------------------------- where a grouping may be proposed
@dataclass
class Scope:
    """Consecutive rule-made steps a grouping may cover, and the evidence ids they own, in order."""

    first: int  # draft index
    last: int  # draft index, inclusive
    turns: bool  # may the model set turn boundaries (no user message sets them here)
    items: list[str] = field(default_factory=list)
    owner: dict[str, int] = field(default_factory=dict)  # evidence id → draft index holding it


def _is_command(d: Draft) -> bool:
    """A shell-history command (R-shell), a command of a terminal recording (a tool step of a
    `human:` actor) or a commit step (R-commit): records with no words around them."""
    if d.values.get("reasoning") is not None:
        return False
    return d.shell is not None or (d.actor_key.startswith("human:") and d.values.get("tool") is not None) or \
        (d.values.get("tool") == "git" and bool(d.commits) and d.call_id is None)


def scopes(drafts: list[Draft]) -> list[Scope]:
    """Where the rules cannot segment well: a shell-only session (turns may be proposed), else each
    run of at least MIN_RUN commands (inside a turn the session's user messages set)."""
    if not drafts:
        return []
    owner: dict[str, int] = {}
    for i, d in enumerate(drafts):
        for ev in d.evidence:
            owner.setdefault(ev, i)
    if all(_is_command(d) for d in drafts):
        runs = [(0, len(drafts) - 1, True)] if len(drafts) >= MIN_SHELL_ONLY else []
    else:
        runs, start = [], None
        for i in range(len(drafts) + 1):
            if i < len(drafts) and _is_command(drafts[i]):
                start = i if start is None else start
                continue
            if start is not None and i - start >= MIN_RUN:
                runs.append((start, i - 1, False))
            start = None
    out = []
    for a, b, free in runs:
        sc = Scope(a, b, free)
        for i in range(a, b + 1):
            mine = [ev for ev in drafts[i].evidence if owner.get(ev) == i and ev not in sc.owner]
            if not mine:
                break  # a step with no record of its own cannot be placed in a partition of records
            for ev in mine:
                sc.items.append(ev)
                sc.owner[ev] = i
        else:
            out.append(sc)
    return out


# ---------------------------------------------------------------------- the request
@dataclass
class Window:
    """One request of a scope: consecutive drafts (a scope too big for one request is cut in windows)."""

    scope: Scope
    first: int
    last: int
    chunk: Chunk
    items: list[str] = field(default_factory=list)


def _role(d: Draft, ev: str) -> str:
    if ev in step_evidence(d, "input"):
        return "command"
    if ev in step_evidence(d, "output"):
        return "commit" if d.commits else "result"
    return "record"


def _render(i: int, d: Draft, items: list[str], idx: EvidenceIndex) -> str:
    """A rule step's line and its records' texts. Many ids (a terminal recording cites every
    output event of a command) are listed as one run, `first..last`; a text several ids share
    is shown once, under the first of them."""
    v = d.values
    bits = [f"STEP {i + 1}", str(v.get("actor")), f"turn={v.get('turn')}"]
    for k in ("tool", "success", "started_at"):
        if v.get(k) is not None:
            bits.append(f"{k}={v[k]}")
    listed = ", ".join(items) if len(items) <= MAX_LISTED_IDS else f"{items[0]}..{items[-1]} ({len(items)} ids)"
    bits.append("evidence: " + listed)
    text = " | ".join(bits) + "\n"
    head, tail = EXCERPT["default"]
    shown: set[str] = set()
    for ev in items:
        full = idx.texts.get(ev, "")
        if full in shown:
            continue
        shown.add(full)
        body = excerpt(full, head, tail).replace("<evidence", "‹evidence").replace(
            "</evidence", "‹/evidence")  # evidence cannot close its own block
        text += f'<evidence id="{ev}" role="{_role(d, ev)}">\n{body}\n</evidence>\n'
    return text


def windows(scope: Scope, drafts: list[Draft], idx: EvidenceIndex, prompt: Prompt, chunk_tokens: int,
            start_index: int) -> list[Window]:
    fixed = estimate_tokens(prompt.system) + estimate_tokens(prompt.user.template) + 60
    budget = max(MIN_BODY_TOKENS, int(chunk_tokens * CHUNK_FILL) - fixed)
    out: list[Window] = []
    parts: list[str] = []
    used, first = 0, scope.first
    mine: list[str] = []
    for i in range(scope.first, scope.last + 1):
        items = [ev for ev in scope.items if scope.owner[ev] == i]
        text = _render(i, drafts[i], items, idx)
        if parts and used + estimate_tokens(text) > budget:
            out.append(Window(scope, first, i - 1, Chunk(start_index + len(out), [], body="".join(parts)), mine))
            parts, used, first, mine = [], 0, i, []
        parts.append(text)
        used += estimate_tokens(text)
        mine += items
    out.append(Window(scope, first, scope.last, Chunk(start_index + len(out), [], body="".join(parts)), mine))
    for k, w in enumerate(out):
        user = prompt.user.substitute(part=k + 1, total=len(out), first=w.first + 1, last=w.last + 1,
                                      steps_total=len(drafts), items=len(w.items), body=w.chunk.body)
        system = prompt.system.replace("$turn_rule", TURNS_FREE if scope.turns else TURNS_FIXED)
        w.chunk.steps = list(range(w.first, w.last + 1))
        w.chunk.shown = list(w.items)
        w.chunk.messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        w.chunk.tokens = estimate_tokens(system) + estimate_tokens(user)
    return out


# ---------------------------------------------------------------------- the answer
class GroupingEnvelope(BaseModel):
    model_config = ConfigDict(extra="ignore")
    turns: list[dict[str, Any]] = Field(max_length=5000)


class RawStep(BaseModel):
    model_config = ConfigDict(extra="ignore")
    evidence_ids: list[str] = Field(min_length=1)
    goal: Any = None
    citations: list[RawCitation] = Field(default_factory=list)


class RawTurn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    goal: Any = None
    citations: list[RawCitation] = Field(default_factory=list)
    steps: list[RawStep] = Field(min_length=1)


def parse_grouping(content: str) -> list[dict[str, Any]]:
    """The turns of an answer ([] when the model proposes no grouping); ValueError when it is not
    the object asked for (the same places are tried as for proposals: whole, fenced, outermost {…})."""
    return parse_envelope(content, GroupingEnvelope, "grouping").turns


@dataclass
class Goal:
    text: str
    cites: list[Citation]


@dataclass
class CheckedStep:
    drafts: tuple[int, int]  # draft indexes, inclusive
    goal: Goal


@dataclass
class CheckedTurn:
    goal: Goal
    steps: list[CheckedStep]


class Refused(Rejected):
    """A grouping rejected whole: the reason, and where (numbers forsy knows, never the model's text)."""

    def __init__(self, reason: str, turn: int | None = None, step: int | None = None, evidence: str | None = None):
        super().__init__(reason)
        self.at = {k: v for k, v in (("turn", turn), ("step", step), ("evidence_id", evidence)) if v is not None}


def check_window(w: Window, raw: list[dict[str, Any]], idx: EvidenceIndex) -> list[CheckedTurn]:
    """The grouping of one window, checked whole; `Refused` at the first rule it breaks."""
    turns: list[RawTurn] = []
    for t, r in enumerate(raw, start=1):
        try:
            turns.append(RawTurn.model_validate(r))
        except PydanticError:
            raise Refused("malformed_grouping", turn=t) from None
    if not w.scope.turns and len(turns) != 1:
        raise Refused("turn_not_allowed")  # the session's user messages set the turns here
    pos = {ev: k for k, ev in enumerate(w.items)}
    seen: set[str] = set()
    for t, turn in enumerate(turns, start=1):
        for s, step in enumerate(turn.steps, start=1):
            step.evidence_ids = _expand(step.evidence_ids, w.items, pos, idx, t, s)
            for ev in step.evidence_ids:
                if ev in seen:
                    raise Refused("evidence_overlap", t, s, ev)
                seen.add(ev)
    missing = [ev for ev in w.items if ev not in seen]
    if missing:
        raise Refused("evidence_missing", evidence=missing[0])
    out: list[CheckedTurn] = []
    prev_end = -1
    for t, turn in enumerate(turns, start=1):
        steps: list[CheckedStep] = []
        for s, step in enumerate(turn.steps, start=1):
            ps = sorted(pos[ev] for ev in step.evidence_ids)
            if ps[-1] - ps[0] != len(ps) - 1:
                raise Refused("not_contiguous", t, s)
            if ps[0] != prev_end + 1:
                raise Refused("out_of_order", t, s)
            a, b = w.scope.owner[w.items[ps[0]]], w.scope.owner[w.items[ps[-1]]]
            if (ps[0] > 0 and w.scope.owner[w.items[ps[0] - 1]] == a) or \
                    (ps[-1] + 1 < len(w.items) and w.scope.owner[w.items[ps[-1] + 1]] == b):
                raise Refused("splits_rule_step", t, s)
            prev_end = ps[-1]
            steps.append(CheckedStep((a, b), _goal(step.goal, step.citations, set(step.evidence_ids), idx, t, s)))
        own = {ev for step in turn.steps for ev in step.evidence_ids}
        out.append(CheckedTurn(_goal(turn.goal, turn.citations, own, idx, t, None), steps))
    return out


def _expand(ids: list[str], items: list[str], pos: dict[str, int], idx: EvidenceIndex, t: int,
            s: int) -> list[str]:
    """The ids a step names, a run `first..last` read as every id from first to last as listed."""
    out: list[str] = []
    for entry in ids:
        ends = entry.split("..") if ".." in entry else [entry]
        if len(ends) > 2:
            raise Refused("malformed_grouping", t, s)
        for ev in ends:
            if ev not in idx.texts:
                raise Refused("unknown_id", t, s)
            if ev not in pos:
                raise Refused("out_of_scope", t, s, ev)
        a, b = pos[ends[0]], pos[ends[-1]]
        if b < a:
            raise Refused("out_of_order", t, s)  # a run written backwards
        out += items[a:b + 1]
    return out


def _goal(value: Any, citations: list[RawCitation], own: set[str], idx: EvidenceIndex, t: int,
          s: int | None) -> Goal:
    """A goal passes when it is short text, cites only evidence of its own step (or turn), every
    quote is verbatim in its record, nothing looks like an instruction to the tracer, and every
    word, number and name of the goal is in its quotes."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_GOAL_CHARS:
        raise Refused("bad_value", t, s)
    text = value.strip()
    if not citations:
        raise Refused("no_citation", t, s)
    if looks_injected(text) or idx.tainted(text):
        raise Refused("injection_suspect", t, s)
    cites: list[Citation] = []
    for c in citations:
        if c.evidence_id not in idx.texts:
            raise Refused("unknown_id", t, s)
        if c.evidence_id not in own:
            raise Refused("citation_outside_step" if s is not None else "citation_outside_turn", t, s,
                          c.evidence_id)
        if looks_injected(c.quote):
            raise Refused("injection_suspect", t, s)
        m = idx.find(c.evidence_id, c.quote)
        if m is None:
            raise Refused("quote_not_found", t, s, c.evidence_id)
        if looks_injected(m.span) or idx.tainted(m.span):
            raise Refused("injection_suspect", t, s)
        cites.append(Citation(c.evidence_id, m.pointer, m.span, m.score))
    miss = ungrounded(text, [c.quote for c in cites])
    if miss is not None:
        raise Refused(miss[0], t, s)  # the goal says a word, number or name its quotes do not
    return Goal(text, cites)


# ---------------------------------------------------------------------- an accepted grouping → proposals
def proposals_for(scope: Scope, turns: list[CheckedTurn], drafts: list[Draft], actor: Actor,
                  first_group: int) -> list[Proposal]:
    """The values an accepted grouping sets: each step's turn (shell-only sessions) and, where the
    rules left it null, its reasoning = the goal of its proposed step. Nothing else changes."""
    out: list[Proposal] = []
    group = first_group
    for t, turn in enumerate(turns, start=1):
        for step in turn.steps:
            a, b = step.drafts
            for i in range(a, b + 1):
                d = drafts[i]
                written = t if scope.turns else int(d.values["turn"])
                note = Grouping(PROMPT_NAME, written, turn.goal.text, group, (a + 1, b + 1), CHECKS)
                if scope.turns:
                    old = int(d.values["turn"])
                    out.append(Proposal(step_path(i + 1, "turn"), t, "model", actor, tuple(turn.goal.cites),
                                        replaces=Replaced(old, None) if old != t else None, grouping=note))
                if d.values.get("reasoning") is None:
                    out.append(Proposal(step_path(i + 1, "reasoning"), step.goal.text, "model", actor,
                                        tuple(step.goal.cites), grouping=note))
            group += 1
    return out
