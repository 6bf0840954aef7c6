"""Step rules of `forsy validate`: structure, user-message invariants, causality, eval, times.

Every function here takes values straight from parsed JSON, so nothing is assumed about
their shape: each access is guarded by an isinstance check and a bad shape is a finding.
Steps are named by their 1-based position, which is what `step` should hold anyway.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from ..models import (
    KNOWN_CAUSAL_TYPES,
    KNOWN_FEEDBACK_TYPES,
    KNOWN_MESSAGE_ROLES,
    KNOWN_OPERATIONS,
    STEP_FIELDS,
    USER_MESSAGE_NULL_FIELDS,
    Action,
    ExecutionMode,
    InputSource,
    is_known_actor,
)
from ._base import Sink, comparable, is_int, is_str_list, is_text, member, parse_time, show

ACTIONS = frozenset(a.value for a in Action)
EXECUTION_MODES = frozenset(m.value for m in ExecutionMode)
_STEP_FIELD_SET = frozenset(STEP_FIELDS)

# feedback_type of a user message -> the summary.human_feedback count it feeds
FEEDBACK_COUNTS = {
    "correction": "corrections",
    "approval": "approvals",
    "clarification": "clarifications",
    "new_instruction": "new_instructions",
}

# Fields whose type S009 checks; the others have rules of their own (S004, S005, S008, ...).
_STR_FIELDS = (
    "operation",
    "tool",
    "parallel_group",
    "observation",
    "input",
    "output",
    "state_change",
    "reasoning",
    "causal_type",
    "causal_note",
    "alternatives_considered",
    "eval_reason",
    "directive",
    "message_role",
    "feedback_type",
    "feedback_content",
)
_NON_USER_ONLY_FOR_USER = ("feedback_content", "message_role", "feedback_type")


LEGACY_STEP_FIELDS = {"step_index": "step", "feedback": "feedback_type / feedback_content"}
LEGACY_ACTIONS = {
    "tool_call": "agent_step (the tool in 'tool')",
    "search": "agent_step with operation 'search'",
    "read": "agent_step with operation 'read'",
    "write": "agent_step with operation 'write'",
    "feedback": "user_message with feedback_type",
}


@dataclass
class Counts:
    """What the steps hold, for the summary, the manifest and the report stats."""

    steps: int = 0
    turns: int = 0
    positive: int = 0
    negative: int = 0
    neutral: int = 0
    directives: int = 0
    user_messages: int = 0
    output_steps: int = 0
    feedback: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FEEDBACK_COUNTS.values(), 0))


def count_steps(steps: list[Any]) -> Counts:
    c = Counts(steps=len(steps))
    turns: set[int] = set()
    for s in steps:
        if not isinstance(s, dict):
            continue
        if is_int(s.get("turn")) and s["turn"] >= 1:
            turns.add(s["turn"])
        ev = s.get("eval")
        if is_int(ev):
            c.positive += ev == 1
            c.negative += ev == -1
            c.neutral += ev == 0
        c.directives += s.get("directive") is not None
        c.output_steps += s.get("action") == "output"
        if s.get("action") == "user_message":
            c.user_messages += 1
            key = FEEDBACK_COUNTS.get(s["feedback_type"]) if isinstance(s.get("feedback_type"), str) else None
            if key:
                c.feedback[key] += 1
    c.turns = len(turns)
    return c


@dataclass
class _Ctx:
    """What the per-step rules need to know about the whole trace."""

    steps: list[Any]
    legacy: bool
    tools: frozenset[str] | None  # agent_tools, when it is a list of strings
    window: tuple[datetime | None, datetime | None]
    retried: set[int] = field(default_factory=set)
    user_steps: set[int] = field(default_factory=set)
    unlisted_tools: dict[str, int] = field(default_factory=dict)
    legacy_fields: Counter[str] = field(default_factory=Counter)
    naive_times: list[int] = field(default_factory=list)
    prev_start: datetime | None = None


def check_steps(
    trace: dict[str, Any],
    steps: list[Any],
    window: tuple[datetime | None, datetime | None],
    legacy: bool,
    sink: Sink,
) -> None:
    tools = trace.get("agent_tools")
    ctx = _Ctx(steps, legacy, frozenset(tools) if is_str_list(tools) else None, window)
    for i, s in enumerate(steps, start=1):
        if isinstance(s, dict):
            if s.get("action") == "user_message":
                ctx.user_steps.add(i)
            ro = s.get("retry_of")
            if is_int(ro) and 1 <= ro < i:
                ctx.retried.add(ro)
    _check_turns(steps, sink)
    for i, s in enumerate(steps, start=1):
        if not isinstance(s, dict):
            sink.add("S001", f"step is {show(s)}, not an object", step=i)
            continue
        _check_step(i, s, ctx, sink)
    _after_steps(ctx, sink)


def _check_step(i: int, s: dict[str, Any], ctx: _Ctx, sink: Sink) -> None:
    user = s.get("action") == "user_message"
    _fields(i, s, ctx, sink)
    if s.get("step") != i or not is_int(s.get("step")):
        sink.add("S004", f"step number is {show(s.get('step'))}, expected {i}", step=i, field="step")
    _action(i, s, sink)
    _types(i, s, user, sink)
    _actor(i, s, user, sink)
    if user:
        _user_message(i, s, sink)
    else:
        _non_user(i, s, ctx, sink)
    _parallel(i, s, sink)
    _causality(i, s, ctx, sink)
    _eval(i, s, user, ctx, sink)
    _times(i, s, ctx, sink)


def _fields(i: int, s: dict[str, Any], ctx: _Ctx, sink: Sink) -> None:
    missing = [f for f in STEP_FIELDS if f not in s]
    if missing:
        sink.add("S002", f"missing step fields: {', '.join(missing)}", step=i)
    extra = [f for f in s if f not in _STEP_FIELD_SET]
    if ctx.legacy:
        # legacy field names are reported once for the whole trace (L003), not on every step
        ctx.legacy_fields.update(f for f in extra if f in LEGACY_STEP_FIELDS)
        extra = [f for f in extra if f not in LEGACY_STEP_FIELDS]
    if extra:
        sink.add("S003", f"unknown step fields: {', '.join(map(show, extra))}", step=i)


def _action(i: int, s: dict[str, Any], sink: Sink) -> None:
    act = s.get("action")
    if member(act, ACTIONS):
        return
    hint = LEGACY_ACTIONS.get(act) if isinstance(act, str) else None
    more = f" (legacy value: use {hint})" if hint else ""
    sink.add("S008", f"action is {show(act)}, not one of {sorted(ACTIONS)}{more}", step=i, field="action")


def _types(i: int, s: dict[str, Any], user: bool, sink: Sink) -> None:
    # Fields a user_message must leave null (and its input) are U00x's business; the
    # user-only fields of other steps are S013's: one finding per problem, not two.
    skip = {*USER_MESSAGE_NULL_FIELDS, "input"} if user else set(_NON_USER_ONLY_FOR_USER)
    for f in _STR_FIELDS:
        if f not in skip and f in s and s[f] is not None and not isinstance(s[f], str):
            sink.add("S009", f"{f} is {show(s[f])}, expected a string or null", step=i, field=f)
    if "actor" in s and not is_text(s["actor"]):
        sink.add("S009", f"actor is {show(s['actor'])}, expected a non-empty string", step=i, field="actor")
    if not user and s.get("success") is not None and not isinstance(s["success"], bool):
        sink.add(
            "S009", f"success is {show(s['success'])}, expected true, false or null", step=i, field="success"
        )
    _input_source(i, s, sink)


def _input_source(i: int, s: dict[str, Any], sink: Sink) -> None:
    src = s.get("input_source")
    if src is None:
        return
    try:
        model = InputSource.model_validate(src)
    except ValidationError as exc:
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"]) or "input_source"
            sink.add("S009", f"input_source {where}: {err['msg']}", step=i, field="input_source")
        return
    ss = model.source_step
    if ss is not None and not 1 <= ss < i:
        sink.add(
            "S022",
            f"input_source.source_step is {show(ss)}, not an earlier step",
            step=i,
            field="input_source",
        )


def _actor(i: int, s: dict[str, Any], user: bool, sink: Sink) -> None:
    actor = s.get("actor")
    if not is_text(actor):
        return
    if not is_known_actor(actor):  # the writer's definition (forsy.models)
        sink.add("S018", f"actor {show(actor)} is not a usual label", step=i, field="actor")
    if actor == "user" and not user and member(s.get("action"), ACTIONS):
        sink.add("S019", f"actor 'user' on a step whose action is {s['action']}", step=i, field="actor")


def _user_message(i: int, s: dict[str, Any], sink: Sink) -> None:
    if s.get("actor") != "user":
        sink.add(
            "U001", f"user_message actor is {show(s.get('actor'))}, must be 'user'", step=i, field="actor"
        )
    for f in USER_MESSAGE_NULL_FIELDS:
        if s.get(f) is not None:
            sink.add("U002", f"user_message has {f} = {show(s[f])}, must be null", step=i, field=f)
    if s.get("eval") != 0 or not is_int(s.get("eval")):
        sink.add("U003", f"user_message eval is {show(s.get('eval'))}, must be 0", step=i, field="eval")
    if not is_text(s.get("input")):
        sink.add(
            "U004",
            f"user_message input is {show(s.get('input'))}, must be the user's words",
            step=i,
            field="input",
        )
    for f, known in (("message_role", KNOWN_MESSAGE_ROLES), ("feedback_type", KNOWN_FEEDBACK_TYPES)):
        v = s.get(f)
        if isinstance(v, str) and v not in known:
            sink.add("S012", f"{f} {show(v)} is not one of {sorted(known)}", step=i, field=f)
    if i == 1 and s.get("feedback_content") is not None:
        sink.add("U005", "the initial request has feedback_content", step=i, field="feedback_content")


def _non_user(i: int, s: dict[str, Any], ctx: _Ctx, sink: Sink) -> None:
    for f in _NON_USER_ONLY_FOR_USER:
        if s.get(f) is not None:
            sink.add("S013", f"{f} = {show(s[f])} on a non-user step, must be null", step=i, field=f)
    mode = s.get("execution_mode")
    if not member(mode, EXECUTION_MODES):
        sink.add(
            "S014",
            f"execution_mode is {show(mode)}, expected serial or parallel",
            step=i,
            field="execution_mode",
        )
    if s.get("success") is None:
        sink.add("S015", "success is null on a non-user step", step=i, field="success")
    op = s.get("operation")
    if isinstance(op, str) and op not in KNOWN_OPERATIONS:
        sink.add("S010", f"operation {show(op)} is not a suggested operation", step=i, field="operation")
    tool = s.get("tool")
    if ctx.tools is not None and isinstance(tool, str) and tool not in ctx.tools:
        ctx.unlisted_tools.setdefault(tool, i)


def _parallel(i: int, s: dict[str, Any], sink: Sink) -> None:
    group, mode = s.get("parallel_group"), s.get("execution_mode")
    if group is not None and mode != "parallel":
        sink.add(
            "S016",
            f"parallel_group {show(group)} but execution_mode is {show(mode)}",
            step=i,
            field="parallel_group",
        )
    if mode == "parallel" and group is None:
        sink.add(
            "S017", "execution_mode is parallel but parallel_group is null", step=i, field="parallel_group"
        )


def _causality(i: int, s: dict[str, Any], ctx: _Ctx, sink: Sink) -> None:
    ct = s.get("causal_type")
    if isinstance(ct, str) and ct not in KNOWN_CAUSAL_TYPES:
        sink.add(
            "S011", f"causal_type {show(ct)} is not a suggested causal type", step=i, field="causal_type"
        )
    _caused_by(i, s.get("caused_by"), sink)
    ro = s.get("retry_of")
    if ro is None:
        return
    if not is_int(ro):
        sink.add("C005", f"retry_of is {show(ro)}, expected an earlier step number", step=i, field="retry_of")
    elif not 1 <= ro < i:
        what = "the step itself" if ro == i else "a later step" if ro > i else "no step"
        sink.add(
            "C005", f"retry_of {ro} names {what}; it must name an earlier step", step=i, field="retry_of"
        )
    elif ro in ctx.user_steps:
        sink.add("C006", f"retry_of {ro} names a user_message step", step=i, field="retry_of")


def _caused_by(i: int, cb: Any, sink: Sink) -> None:
    if cb is None:
        return
    if not isinstance(cb, list) or not all(is_int(x) for x in cb):
        sink.add(
            "C001",
            f"caused_by is {show(cb)}, expected null or a list of step numbers",
            step=i,
            field="caused_by",
        )
        return
    if i in cb:
        sink.add("C002", f"caused_by lists step {i} itself", step=i, field="caused_by")
    bad = sorted({x for x in cb if x > i or x < 1})
    if bad:
        sink.add(
            "C003",
            f"caused_by lists {bad}: only earlier steps (1..{i - 1}) can cause step {i}",
            step=i,
            field="caused_by",
        )
    if not cb or len(set(cb)) != len(cb):
        what = "is an empty list (use null)" if not cb else "repeats a step"
        sink.add("C004", f"caused_by {what}", step=i, field="caused_by")


def _eval(i: int, s: dict[str, Any], user: bool, ctx: _Ctx, sink: Sink) -> None:
    ev = s.get("eval")
    if not is_int(ev) or ev not in (-1, 0, 1):
        sink.add("C007", f"eval is {show(ev)}, expected -1, 0 or 1", step=i, field="eval")
        return
    if user:
        return
    success = s.get("success")
    if (ev == -1 and success is True) or (ev == 1 and success is False):
        sink.add("C008", f"eval {ev:+d} but success is {show(success)}", step=i, field="eval")
    if s.get("directive") is not None and ev != -1 and i not in ctx.retried:
        sink.add(
            "C009",
            f"directive on a step with eval {ev:+d} that no later step retries",
            step=i,
            field="directive",
        )
    if i in ctx.retried and ev == 1:
        sink.add("C010", "a later step retries this step, yet its eval is +1", step=i, field="eval")


def _times(i: int, s: dict[str, Any], ctx: _Ctx, sink: Sink) -> None:
    start = _step_time(i, s, "started_at", ctx, sink)
    end = _step_time(i, s, "ended_at", ctx, sink)
    if start and end and comparable(start, end) and end < start:
        sink.add(
            "H004",
            f"ended_at {s['ended_at']} is before started_at {s['started_at']}",
            step=i,
            field="ended_at",
        )
    if start:
        if ctx.prev_start and comparable(start, ctx.prev_start) and start < ctx.prev_start:
            sink.add("H005", "starts before the previous step started", step=i, field="started_at")
        ctx.prev_start = start
    lo, hi = ctx.window
    first, last = start or end, end or start
    if first and lo and comparable(first, lo) and first < lo:
        sink.add("H006", "starts before the trace's started_at", step=i, field="started_at")
    if last and hi and comparable(last, hi) and last > hi:
        sink.add("H006", "ends after the trace's ended_at", step=i, field="ended_at")


def _step_time(i: int, s: dict[str, Any], f: str, ctx: _Ctx, sink: Sink) -> datetime | None:
    v = s.get(f)
    if v is None:
        return None
    dt = parse_time(v) if isinstance(v, str) else None
    if dt is None:
        sink.add("H001", f"{f} is {show(v)}, not an ISO 8601 timestamp", step=i, field=f)
    elif dt.tzinfo is None:
        ctx.naive_times.append(i)
    return dt


def _check_turns(steps: list[Any], sink: Sink) -> None:
    prev = 0
    for i, s in enumerate(steps, start=1):
        if not isinstance(s, dict) or "turn" not in s:
            continue
        turn = s["turn"]
        if not is_int(turn) or turn < 1:
            sink.add("S005", f"turn is {show(turn)}, expected an integer >= 1", step=i, field="turn")
            continue
        if turn < prev:
            sink.add(
                "S005", f"turn {turn} is lower than the previous step's turn {prev}", step=i, field="turn"
            )
            continue
        if prev == 0 and turn != 1:
            sink.add("S006", f"the first turn is {turn}, expected 1", step=i, field="turn")
        elif prev and turn > prev + 1:
            sink.add("S007", f"turn jumps from {prev} to {turn}", step=i, field="turn")
        prev = turn


def _after_steps(ctx: _Ctx, sink: Sink) -> None:
    """Findings about the steps as a whole, reported once rather than on every step."""
    if ctx.steps and isinstance(ctx.steps[0], dict) and ctx.steps[0].get("action") != "user_message":
        sink.add("S021", "the first step is not a user_message", step=1, field="action")
    for tool, first in ctx.unlisted_tools.items():
        sink.add("S020", f"tool {show(tool)} is not listed in agent_tools", step=first, field="tool")
    if ctx.naive_times:
        n = len(ctx.naive_times)
        sink.add("H002", f"{n} step timestamp(s) have no timezone offset", step=ctx.naive_times[0])
    if ctx.legacy_fields:
        parts = [
            f"{f} (on {n} steps; v0.1: {LEGACY_STEP_FIELDS[f]})" for f, n in sorted(ctx.legacy_fields.items())
        ]
        sink.add("L003", "legacy step fields: " + "; ".join(parts))
