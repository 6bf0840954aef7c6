"""Forsy steps as a chat conversation (system / user / assistant with tool calls / tool), the
shape Invariant's event list and OpenAI's messages share.

* the trace's system_prompt is the first, `system` message;
* a user_message step is a `user` message with its exact input;
* a tool step is an assistant message whose content is the step's reasoning (the text the
  agent wrote before the call) and whose tool call is the tool with its input, followed by a
  `tool` message holding the output (none when the log had no result). Calls of one
  parallel_group share one assistant message when only the first has reasoning;
* an output or error step is an assistant message whose content is the output; its
  reasoning (thinking before an answer) has no place in a chat message and is counted lost;
* a step of actor `system` (a compaction) is a `system` message holding its output;
* an agent step with neither tool nor output (thinking only) is an assistant message holding
  its reasoning.

Call ids are not in trace.json: each call gets `call_<step>`, the number of its step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from ..models import Step, Trace
from ..rules.segment import json_text
from ._core import ExportContext

Role = Literal["system", "user", "assistant", "tool"]


@dataclass
class Call:
    id: str
    name: str
    input: str | None
    step: Step


@dataclass
class Msg:
    role: Role
    content: str | None
    steps: list[Step]
    calls: list[Call] = field(default_factory=list)
    tool_call_id: str | None = None


def call_id(step: Step) -> str:
    return f"call_{step.step}"


def arguments_object(text: str | None) -> dict[str, Any] | None:
    """The input as a JSON object when writing that object back gives the same text (so the
    importer's `json_text` restores it exactly); None when it is not such an object."""
    if text is None:
        return {}
    try:
        v = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if isinstance(v, dict) and json_text(v) == text:
        return v
    return None


def messages(trace: Trace, ctx: ExportContext, *, answer_reasoning: bool = False) -> list[Msg]:
    """The conversation of `trace` (module docstring). `answer_reasoning`: the caller carries the
    reasoning of answer steps itself (else it is counted lost)."""
    out: list[Msg] = []
    if trace.system_prompt:
        out.append(Msg("system", trace.system_prompt, []))
    open_group: tuple[str, str] | None = None  # (actor, parallel_group) of the assistant message in hand
    results: list[Msg] = []  # tool messages waiting for their group to end

    def flush() -> None:
        nonlocal open_group
        out.extend(results)
        results.clear()
        open_group = None

    for s in trace.steps:
        if s.action == "agent_step" and s.tool is not None:
            key = (s.actor, s.parallel_group) if s.parallel_group else None
            call = Call(call_id(s), s.tool, s.input, s)
            if key is not None and key == open_group and s.reasoning is None:
                last = next(m for m in reversed(out) if m.role == "assistant")
                last.calls.append(call)
                last.steps.append(s)
            else:
                flush()
                out.append(Msg("assistant", s.reasoning, [s], [call]))
                open_group = key
            if s.output is not None:
                results.append(Msg("tool", s.output, [s], tool_call_id=call.id))
            if key is None:
                flush()
            continue
        flush()
        if s.action == "user_message":
            out.append(Msg("user", s.input, [s]))
        elif s.actor in ("system", "system:hook") and s.output is not None:  # hooks: R-hook on import
            out.append(Msg("system", s.output, [s]))
        elif s.output is not None:
            if s.reasoning is not None and not answer_reasoning:
                ctx.drop("steps.reasoning")
            out.append(Msg("assistant", s.output, [s]))
        elif s.reasoning is not None:
            out.append(Msg("assistant", s.reasoning, [s]))
    flush()
    return out
