"""Requests for the model: only what the deterministic pass could not fill, in chunks that fit.

Each step becomes one compact line (number, actor, action, tool, success, eval, the fields the
model may fill) followed by head/tail excerpts of the evidence it cites, each block shown once
per chunk. The whole log is never sent: tool output is cut to a head and a tail, and steps with
nothing to fill get their line only. Chunks are packed greedily up to `CHUNK_FILL` of
`chunk_tokens` (tokens estimated as characters / 4, see docs/llm.md for how that compares
with a real tokenizer), leaving room for the answer and for estimation error.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from string import Template
from typing import Any

from ..evidence import Session
from ..rules.segment import Draft
from ._evidence import EvidenceIndex, step_evidence

PROMPT_NAME = "segment_v2"
CHUNK_FILL = 0.7  # share of chunk_tokens the request may use; the rest is spare
CHARS_PER_TOKEN = 4
MIN_BODY_TOKENS = 300  # below this a chunk holds hardly one step
CONTEXT_STEPS = 2  # steps repeated before a user message that opens a chunk, so a correction can name them

FILL_AGENT = ("observation", "reasoning", "state_change", "causal_note", "alternatives_considered")
FILL_USER = ("message_role", "feedback_type", "feedback_content")
SESSION_FIELDS = ("learning", "goal_achieved", "goal_notes", "description")

# (head, tail) characters of an evidence text shown for each role; the longest role wins.
EXCERPT: dict[str, tuple[int, int]] = {
    "user words": (1200, 400), "agent answer": (800, 400), "context": (160, 80), "default": (240, 160),
}


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass(frozen=True)
class Prompt:
    name: str
    system: str
    user: Template
    sha256: str


def prompt_dirs() -> list[Traversable]:
    """Where the prompts are read from: the installed package's `forsy/prompts/` (the wheel ships
    the repository's top-level `prompts/` there: pyproject's hatch `force-include`), then the
    checkout's `prompts/` (a source tree or an editable install, where the package is `src/forsy`)."""
    return [files("forsy") / "prompts", Path(__file__).resolve().parents[3] / "prompts"]


def load_prompt(name: str = PROMPT_NAME) -> Prompt:
    from ..errors import LLMError

    for d in prompt_dirs():
        p = d / f"{name}.md"
        if p.is_file():
            raw = p.read_text(encoding="utf-8")
            break
    else:
        raise LLMError(f"prompt file {name}.md not found (looked in {', '.join(map(str, prompt_dirs()))})")
    body = raw.split("-->", 1)[1] if raw.lstrip().startswith("<!--") else raw
    system, _, user = body.partition("=== user ===")
    system = system.replace("=== system ===", "", 1).strip()
    return Prompt(name, system, Template(user.strip() + "\n"), hashlib.sha256(raw.encode()).hexdigest())


@dataclass
class Chunk:
    index: int
    steps: list[int]  # draft indexes (0-based) whose fields the model may fill
    context: list[int] = field(default_factory=list)  # earlier draft indexes shown for corrections
    shown: list[str] = field(default_factory=list)  # evidence ids shown, in order
    session_fields: list[str] = field(default_factory=list)
    body: str = ""
    messages: list[dict[str, str]] = field(default_factory=list)
    tokens: int = 0

    @property
    def request_sha256(self) -> str:
        return hashlib.sha256(json.dumps(self.messages, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


@dataclass
class Plan:
    chunks: list[Chunk]
    fills: dict[int, list[str]]  # draft index → fields the model was asked for
    termination: tuple[str, str]  # deterministic (reason, rule)
    final_answer: list[str]  # evidence ids of the main agent's last answer
    tokens: int = 0
    oversized: int = 0  # steps too big for a chunk even with short excerpts (sent anyway)


def fills_for(drafts: list[Draft]) -> dict[int, list[str]]:
    first_user = next((i for i, d in enumerate(drafts) if d.values["action"] == "user_message"), None)
    out: dict[int, list[str]] = {}
    for i, d in enumerate(drafts):
        if d.values["action"] == "user_message":
            names = [] if i == first_user else [f for f in FILL_USER if d.values.get(f) is None]
        else:
            names = [f for f in FILL_AGENT if d.values.get(f) is None]
        out[i] = names
    return out


def _roles(d: Draft, i: int, final: set[int]) -> dict[str, str]:
    roles: dict[str, str] = {}
    user = d.values["action"] == "user_message"
    for name, role in (("reasoning", "agent reasoning"), ("input", "user words" if user else "call"),
                       ("output", "agent answer" if d.values["action"] == "output" else "result")):
        for ev in step_evidence(d, name):
            roles[ev] = role if ev not in roles else f"{roles[ev]} + {role}"
    for ev in d.evidence:
        roles.setdefault(ev, "record")
    if i in final:
        roles = {k: "agent answer" for k in roles}
    return roles


def _limits(role: str) -> tuple[int, int]:
    if role == "context":
        return EXCERPT["context"]
    for key in ("user words", "agent answer"):
        if key in role:
            return EXCERPT[key]
    return EXCERPT["default"]


def excerpt(text: str, head: int, tail: int) -> str:
    if len(text) <= head + tail + 40:
        return text
    omitted = len(text) - head - tail
    return f"{text[:head]}\n…[{omitted} characters omitted by forsy]…\n{text[-tail:]}"


def _safe(text: str) -> str:
    # Evidence cannot close its own block or open a new one: forged delimiters are defused.
    return text.replace("<evidence", "‹evidence").replace("</evidence", "‹/evidence")


def _block(ev: str, role: str, idx: EvidenceIndex, tight: bool = False) -> str:
    head, tail = EXCERPT["context"] if tight else _limits(role)
    return f'<evidence id="{ev}" role="{role}">\n{_safe(excerpt(idx.texts.get(ev, ""), head, tail))}\n</evidence>\n'


def _line(n: int, d: Draft, fill: list[str], roles: dict[str, str], prefix: str = "STEP") -> str:
    v = d.values
    bits = [f"{prefix} {n}", str(v.get("actor")), str(v.get("action"))]
    for k in ("tool", "operation", "success", "eval", "caused_by", "retry_of"):
        if v.get(k) is not None:
            bits.append(f"{k}={json.dumps(v[k])}")
    if d.abandoned:
        bits.append("abandoned-branch")
    ev = ", ".join(f"{e} ({r})" for e, r in roles.items())
    bits.append(f"evidence: {ev or '-'}")
    bits.append("fill: " + (", ".join(fill) if fill else "nothing"))
    return " | ".join(bits) + "\n"


class _Builder:
    def __init__(self, drafts: list[Draft], idx: EvidenceIndex, plan: Plan, budget: int):
        self.drafts, self.idx, self.plan, self.budget = drafts, idx, plan, budget
        self.final = {i for i, d in enumerate(drafts) if set(step_evidence(d, "output")) & set(plan.final_answer)
                      and d.values["action"] == "output"}
        self.out: list[Chunk] = []
        self.cur = Chunk(0, [])
        self.parts: list[str] = []
        self.used = 0

    def _render(self, i: int, context: bool, tight: bool = False) -> tuple[str, list[str]]:
        d = self.drafts[i]
        roles = _roles(d, i, self.final)
        fill = [] if context else self.plan.fills[i]
        text = _line(i + 1, d, fill, roles, "CONTEXT STEP" if context else "STEP")
        new = []
        if fill or context:  # a step with nothing to fill is shown by its line alone
            for ev, role in roles.items():
                if ev not in self.cur.shown and ev not in new and ev in self.idx.texts:
                    text += _block(ev, "context" if context else role, self.idx, tight)
                    new.append(ev)
        return text, new

    def _add(self, text: str, new: list[str]) -> None:
        self.parts.append(text)
        self.cur.shown.extend(new)
        self.used += estimate_tokens(text)

    def _close(self) -> None:
        if self.cur.steps or self.cur.session_fields:
            self.cur.body = "".join(self.parts)
            self.out.append(self.cur)
        self.cur = Chunk(len(self.out), [])
        self.parts, self.used = [], 0

    def step(self, i: int) -> None:
        text, new = self._render(i, False)
        if self.cur.steps and self.used + estimate_tokens(text) > self.budget:
            last = self.cur.steps[-1]
            self._close()
            if self.drafts[i].values["action"] == "user_message":  # it may correct the steps just before it
                self._context(last, estimate_tokens(text))
                text, new = self._render(i, False)
        if self.used + estimate_tokens(text) > self.budget:  # one big step: shorter excerpts
            text, new = self._render(i, False, tight=True)
            if self.used + estimate_tokens(text) > self.budget:
                self.plan.oversized += 1
        self._add(text, new)
        self.cur.steps.append(i)

    def _context(self, last: int, need: int) -> None:
        """Repeat the last steps of the previous chunk (when they fit) so a correction can name them."""
        for c in range(max(0, last + 1 - CONTEXT_STEPS), last + 1):
            if self.drafts[c].values["action"] == "user_message":
                continue
            text, new = self._render(c, True)
            if self.used + estimate_tokens(text) + need > self.budget:
                return
            self._add(text, new)
            self.cur.context.append(c)

    def session(self, fields: list[str]) -> None:
        users = [i for i, d in enumerate(self.drafts) if d.values["action"] == "user_message"
                 and not d.abandoned]
        task_ev = step_evidence(self.drafts[users[0]], "input") if users else []
        reason, rule = self.plan.termination
        calls = sum(1 for d in self.drafts if d.call_id)
        failed = sum(1 for d in self.drafts if d.values.get("success") is False)
        line = (f"SESSION | fill: {', '.join(fields)} | {len(self.drafts)} steps, {calls} tool calls, {failed} failed"
                f" | termination_reason by rule: {reason} ({rule}) | task: {', '.join(task_ev) or '-'}"
                f" | final answer: {', '.join(self.plan.final_answer) or 'none'}\n")
        wanted = [(e, "user words") for e in task_ev] + [(e, "agent answer") for e in self.plan.final_answer]
        text, new = self._session_blocks(line, wanted)
        if (self.cur.steps or self.cur.session_fields) and self.used + estimate_tokens(text) > self.budget:
            self._close()  # the session question goes alone
            text, new = self._session_blocks(line, wanted)
        self._add(text, new)
        self.cur.session_fields = fields
        self._close()

    def _session_blocks(self, line: str, wanted: list[tuple[str, str]]) -> tuple[str, list[str]]:
        new: list[str] = []
        for ev, role in wanted:
            if ev not in self.cur.shown and ev not in new and ev in self.idx.texts:
                line += _block(ev, role, self.idx)
                new.append(ev)
        return line, new


def plan_chunks(session: Session, drafts: list[Draft], idx: EvidenceIndex, prompt: Prompt, chunk_tokens: int,
                termination: tuple[str, str]) -> Plan:
    plan = Plan([], fills_for(drafts), termination, _final_answer(drafts))
    fixed = estimate_tokens(prompt.system) + estimate_tokens(prompt.user.template)
    budget = int(chunk_tokens * CHUNK_FILL) - fixed
    if budget < MIN_BODY_TOKENS:
        from ..errors import LLMError

        raise LLMError(f"chunk_tokens {chunk_tokens} is too small: the prompt alone takes about {fixed} tokens; "
                       f"use at least {int((fixed + MIN_BODY_TOKENS) / CHUNK_FILL) + 1}")
    fields = list(SESSION_FIELDS) + (["termination_reason"] if termination[0] == "other" else [])
    plan.chunks = _build(drafts, idx, plan, budget, list(range(len(drafts))), fields)
    total = len(plan.chunks)
    for c in plan.chunks:
        _messages(c, prompt, str(c.index + 1), total, len(drafts))
        plan.tokens += c.tokens
    return plan


def _build(drafts: list[Draft], idx: EvidenceIndex, plan: Plan, budget: int, steps: list[int],
           fields: list[str]) -> list[Chunk]:
    b = _Builder(drafts, idx, plan, budget)
    for i in steps:
        b.step(i)
    if fields:
        b.session(fields)
    else:
        b._close()
    return b.out


def _messages(c: Chunk, prompt: Prompt, part: str, total: int, steps_total: int) -> None:
    first, last = (c.steps[0] + 1, c.steps[-1] + 1) if c.steps else (0, 0)
    user = prompt.user.substitute(part=part, total=total, first=first, last=last, steps_total=steps_total,
                                  body=c.body)
    c.messages = [{"role": "system", "content": prompt.system}, {"role": "user", "content": user}]
    c.tokens = estimate_tokens(prompt.system) + estimate_tokens(user)


def split_chunk(plan: Plan, c: Chunk, drafts: list[Draft], idx: EvidenceIndex, prompt: Prompt,
                part: str) -> list[Chunk]:
    """A chunk the server found too long for its context, as two (steps halved; the session
    question goes with the second half, or alone when it was alone). [] when it cannot be split."""
    if len(c.steps) < 2 and not (c.steps and c.session_fields):
        return []
    half = (len(c.steps) + 1) // 2 if len(c.steps) >= 2 else len(c.steps)
    budget = max(MIN_BODY_TOKENS, c.tokens // 2)  # a half may still split, or get shorter excerpts
    out = _build(drafts, idx, plan, budget, c.steps[:half], []) + \
        _build(drafts, idx, plan, budget, c.steps[half:], c.session_fields)
    for k, sub in enumerate(out):
        _messages(sub, prompt, f"{part}.{k + 1}", len(plan.chunks), len(drafts))
    return out


def _final_answer(drafts: list[Draft]) -> list[str]:
    outs = [d for d in drafts if d.values["action"] == "output" and d.actor_key == "agent"
            and not d.abandoned]
    return step_evidence(outs[-1], "output") if outs else []


def request_params(model: str, messages: list[dict[str, str]], json_mode: bool = True,
                   max_tokens: int | None = None) -> dict[str, Any]:
    """The part of a request that decides the answer (what the cache key hashes).

    JSON mode (`response_format`) where the provider has it; without it (a local server, where
    JSON mode made a small model copy the prompt's example), the answer is read from fenced JSON."""
    params: dict[str, Any] = {"model": model, "messages": messages, "temperature": 0}
    if max_tokens is not None:
        params["max_tokens"] = max_tokens
    if json_mode:
        params["response_format"] = {"type": "json_object"}
    return params
