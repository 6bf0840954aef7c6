"""OpenAI chat messages for fine-tuning: one JSON line per trace, `{"messages": [...]}`.

The conversation of `_chat`: `tool_calls` as `{id, type: "function", function: {name,
arguments}}` with `arguments` the step's input text exactly (OpenAI's arguments are a JSON
text), tool results as `{role: "tool", tool_call_id, content}`. Nothing else fits the
fine-tuning format: no actors, times, success flags or evaluations. `--approved-only` (any
format) keeps only the traces a review approved (`export.approved`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import orjson

from ._chat import Msg, messages
from ._core import Bundle, Cover, ExportContext, ExportOptions, OutFile, coverage


def _message(m: Msg) -> dict[str, Any]:
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.calls:
        out["tool_calls"] = [{"id": c.id, "type": "function",
                              "function": {"name": c.name, "arguments": c.input if c.input is not None else "{}"}}
                             for c in m.calls]
    if m.tool_call_id is not None:
        out["tool_call_id"] = m.tool_call_id
    return out


class OpenAIExporter:
    name: ClassVar[str] = "openai"
    directory: ClassVar[bool] = False
    coverage: ClassVar[dict[str, Cover]] = coverage(
        kept={
            "system_prompt": "the first message, role system",
            "task": "the first user message",
            "steps.tool": "tool_calls[].function.name",
            "steps.input": "user content; tool_calls[].function.arguments (the exact text)",
            "steps.output": "the tool message's content; an answer's assistant content",
        },
        transformed={
            "steps.step": "the order of messages",
            "steps.turn": "implied: a turn starts at each user message (a turn the log began with no user message, "
                          "as Codex exec's turn.started, joins the one before it on import)",
            "steps.action": "user_message → user; agent_step → assistant with tool_calls; output/error → assistant",
            "steps.reasoning": "the assistant content before a tool call; lost on answer steps",
            "steps.execution_mode": "parallel calls share one assistant message",
            "steps.parallel_group": "parallel calls share one assistant message (the id is not kept)",
        },
        back=("system_prompt", "task", "steps.tool", "steps.input", "steps.output", "steps.reasoning", "steps.turn"),
        dropped={"steps.actor": "one conversation: subagent steps are flattened into it",
                 "steps.operation": "derived again from the tool name on import"},
    )

    def convert(self, bundles: Sequence[Bundle], ctx: ExportContext, options: ExportOptions) -> list[OutFile]:
        lines = []
        for b in bundles:
            msgs = [_message(m) for m in messages(b.trace, ctx)]
            lines.append(orjson.dumps({"messages": msgs}) + b"\n")
        return [OutFile("", b"".join(lines))]
