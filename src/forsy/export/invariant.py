"""Invariant (Explorer / Guardrails): the trace as an event list, and the Explorer's dataset
upload JSON.

The event list is the conversation of `_chat` in Invariant's shape: `{role, content,
tool_calls: [{id, type: "function", function: {name, arguments}}]}`, tool results as
`{role: "tool", tool_call_id, content}`. `arguments` is the step's input as a JSON object; an
input that is not one (a raw command line, a patch) is passed as `{"input": <text>}` and the
event's metadata says so (`raw_input: true`), since Invariant parses arguments into a dict; a
call logged without arguments has `{}` and `no_input: true`.
Each event, and each call, carries `metadata` (a field every Invariant event has) with the
step number, actor and times, and the tool message with the step's success.

With one trace, `-o PATH` is the event list (one JSON array) and `PATH` with `.dataset.json`
for its suffix is the upload JSON (`{"messages": [[...]], "metadata": [{...}], "dataset"}`,
the shape of invariant-sdk's PushTracesRequest), whose metadata holds the trace's top-level
fields. With several traces, `-o` is a folder: `<trace_id>.json` each, and `dataset.json`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

import orjson

from ..models import Trace
from ._chat import Msg, arguments_object, messages
from ._core import Bundle, Cover, ExportContext, ExportOptions, OutFile, coverage

_TOP = ("trace_id", "prior_trace_id", "trace_mode", "validation_level", "task", "agent_tools", "started_at",
        "ended_at", "skills", "memory", "agent_config", "learning", "termination_reason", "final_output",
        "static_output", "summary", "dataset_summary", "schema_version")


def events(trace: Trace, ctx: ExportContext) -> list[dict[str, Any]]:
    return [_event(m) for m in messages(trace, ctx)]


def _event(m: Msg) -> dict[str, Any]:
    ev: dict[str, Any] = {"role": m.role, "content": m.content}
    meta: dict[str, Any] = {}
    if m.steps:
        s = m.steps[0]
        meta = {"forsy_step": s.step, "actor": s.actor, "action": s.action}
        if m.role == "tool":
            meta = {"forsy_step": s.step, "success": s.success, "ended_at": s.ended_at}
        elif not m.calls:
            meta.update(started_at=s.started_at, ended_at=s.ended_at)
    if m.calls:
        calls = []
        for c in m.calls:
            args = arguments_object(c.input)
            cmeta: dict[str, Any] = {"forsy_step": c.step.step, "actor": c.step.actor,
                                     "started_at": c.step.started_at}
            if c.input is None:
                cmeta["no_input"] = True
            elif args is None:
                args, cmeta["raw_input"] = {"input": c.input}, True
            calls.append({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": args},
                          "metadata": cmeta})
        ev["tool_calls"] = calls
    if m.tool_call_id is not None:
        ev["tool_call_id"] = m.tool_call_id
    if meta:
        ev["metadata"] = meta
    return ev


def _dataset_name(options: ExportOptions) -> str | None:
    name = options.dataset
    if name is None:
        return None
    return re.sub(r"[^A-Za-z0-9_-]", "-", name)  # the SDK's DATASET_NAME_REGEX


class InvariantExporter:
    name: ClassVar[str] = "invariant"
    directory: ClassVar[bool] = False  # several traces: a folder (see module docstring)
    coverage: ClassVar[dict[str, Cover]] = coverage(
        kept={
            "system_prompt": "the first event, role system",
            "steps.tool": "tool_calls[].function.name",
            "steps.output": "the tool event's content; an answer's assistant content",
            "steps.actor": "metadata.actor of the event / call",
            "steps.success": "metadata.success of the tool event (Invariant has no error flag)",
            "steps.started_at": "metadata.started_at", "steps.ended_at": "metadata.ended_at",
            **{f: "the upload JSON's metadata (not the event list)" for f in _TOP},
        },
        transformed={
            "steps.step": "the order of events; metadata.forsy_step",
            "steps.turn": "implied: a turn starts at each user event (a turn the log began with no user message, "
                          "as Codex exec's turn.started, joins the one before it on import)",
            "steps.action": "user_message → role user; agent_step → assistant with tool_calls; output/error → "
                            "assistant content (metadata.action keeps the action)",
            "steps.input": "user input → content; call input → function.arguments (a JSON object; other text as "
                           "{\"input\": text} with metadata.raw_input)",
            "steps.reasoning": "the assistant content of a tool call's event; lost on answer steps",
            "steps.execution_mode": "parallel calls share one assistant event",
            "steps.parallel_group": "parallel calls share one assistant event (the group id itself is not kept)",
        },
        back=("system_prompt", "steps.tool", "steps.output", "steps.actor", "steps.success", "steps.started_at",
              "steps.ended_at", "steps.input", "steps.reasoning", "steps.turn", "task"),
        dropped={"steps.operation": "derived again from the tool name on import",
                 "manifest": "not carried", "provenance": "not carried"},
    )

    def convert(self, bundles: Sequence[Bundle], ctx: ExportContext, options: ExportOptions) -> list[OutFile]:
        lists = [events(b.trace, ctx) for b in bundles]
        meta = [b.trace.model_dump(mode="json", include=set(_TOP)) for b in bundles]
        upload: dict[str, Any] = {"messages": lists, "metadata": meta}
        name = _dataset_name(options)
        if name:
            upload["dataset"] = name
        dump = _dumps
        if len(bundles) == 1:
            return [OutFile("", dump(lists[0])), OutFile(".dataset.json", dump(upload))]
        files = [OutFile(f"{b.trace.trace_id}.json", dump(ev)) for b, ev in zip(bundles, lists, strict=True)]
        return [*files, OutFile("dataset.json", dump(upload))]


def _dumps(v: object) -> bytes:
    return orjson.dumps(v, option=orjson.OPT_INDENT_2) + b"\n"
