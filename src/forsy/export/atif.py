"""ATIF (Harbor's Agent Trajectory Interchange Format, v1.8): one trajectory per trace.

* the system_prompt is a first `system` step;
* a user_message step is a `user` step (message = the exact input);
* a tool step is an `agent` step: `reasoning_content` = the step's reasoning, a tool call
  `{tool_call_id, function_name, arguments}` and an observation result holding the output.
  Calls of one parallel_group share one agent step. `arguments` must be a JSON object: an
  input that is not one is passed as `{"input": text}` with the call's `extra.raw_input`;
* an output/error step is an `agent` step whose message is the output (reasoning in
  `reasoning_content`); a `system` step (a compaction) is a `system` step;
* every Forsy step field ATIF has no place for goes into the step's `extra.forsy_steps`
  (one object per Forsy step in the ATIF step), and the trace's top-level fields into the
  trajectory's `extra.forsy`: ATIF readers ignore them, forsy keeps them.

With several traces `-o` is a folder of `<trace_id>.json`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import orjson

from ..models import Step, Trace
from ._chat import arguments_object, call_id
from ._core import Bundle, Cover, ExportContext, ExportOptions, OutFile, coverage

SCHEMA = "ATIF-v1.8"
# fields ATIF holds itself (started_at too, but a parallel call shares its step's timestamp: kept in extra)
_NATIVE = {"step", "tool", "input", "output", "reasoning"}
_TOP_EXTRA = ("trace_id", "prior_trace_id", "trace_mode", "validation_level", "task", "agent_tools", "started_at",
              "ended_at", "skills", "memory", "agent_config", "learning", "termination_reason", "final_output",
              "static_output", "summary", "dataset_summary", "schema_version")


def _extra(s: Step) -> dict[str, Any]:
    d = s.model_dump(mode="json")
    return {k: v for k, v in d.items() if k not in _NATIVE and v is not None}


def _call(s: Step) -> dict[str, Any]:
    args = arguments_object(s.input)
    call: dict[str, Any] = {"tool_call_id": call_id(s), "function_name": s.tool, "arguments": args}
    if s.input is None:
        call["extra"] = {"no_input": True}
    elif args is None:
        call["arguments"], call["extra"] = {"input": s.input}, {"raw_input": True}
    return call


def trajectory(b: Bundle) -> dict[str, Any]:
    t: Trace = b.trace
    steps: list[dict[str, Any]] = []
    if t.system_prompt:
        steps.append({"source": "system", "message": t.system_prompt})
    open_group: tuple[str, str] | None = None
    for s in t.steps:
        if s.action == "agent_step" and s.tool is not None:
            key = (s.actor, s.parallel_group) if s.parallel_group else None
            # no result in the log: no observation result (an empty one would read as a result)
            results = [{"source_call_id": call_id(s), "content": s.output}] if s.output is not None else []
            if key is not None and key == open_group and s.reasoning is None:
                last = steps[-1]
                last["tool_calls"].append(_call(s))
                last["observation"]["results"].extend(results)
                last["extra"]["forsy_steps"].append(_extra(s))
                continue
            open_group = key
            st: dict[str, Any] = {"source": "agent", "message": "", "tool_calls": [_call(s)],
                                  "observation": {"results": results}}
            if s.reasoning is not None:
                st["reasoning_content"] = s.reasoning
        else:
            open_group = None
            if s.action == "user_message":
                st = {"source": "user", "message": s.input or ""}
            elif s.actor in ("system", "system:hook"):  # a hook's intervention reads back as one (R-hook)
                st = {"source": "system", "message": s.output or ""}
            else:
                st = {"source": "agent", "message": s.output or ""}
                if s.reasoning is not None:
                    st["reasoning_content"] = s.reasoning
        if s.started_at is not None:
            st["timestamp"] = s.started_at
        st["extra"] = {"forsy_steps": [_extra(s)]}
        steps.append(st)
    for i, st in enumerate(steps, start=1):
        st["step_id"] = i
    cfg = t.agent_config or {}
    agent: dict[str, Any] = {"name": str(cfg.get("agent") or "unknown"),
                             "version": str(cfg.get("agent_version") or "unknown")}
    if cfg.get("model"):
        agent["model_name"] = str(cfg["model"])
    doc: dict[str, Any] = {"schema_version": SCHEMA, "trajectory_id": t.trace_id, "agent": agent, "steps": steps,
                           "extra": {"forsy": t.model_dump(mode="json", include=set(_TOP_EXTRA))}}
    if b.manifest is not None and b.manifest.session_id:
        doc["session_id"] = b.manifest.session_id
    return doc


class AtifExporter:
    name: ClassVar[str] = "atif"
    directory: ClassVar[bool] = False
    coverage: ClassVar[dict[str, Cover]] = coverage(
        kept={
            "system_prompt": "a first step, source system",
            "task": "the first user step; extra.forsy.task",
            "steps.tool": "tool_calls[].function_name",
            "steps.output": "observation.results[].content; an answer's message",
            "steps.reasoning": "reasoning_content",
            "steps.started_at": "timestamp",
            **{f"steps.{f}": "extra.forsy_steps[] of the ATIF step" for f in (
                "turn", "actor", "action", "operation", "execution_mode", "parallel_group", "observation",
                "input_source", "state_change", "caused_by", "causal_type", "causal_note", "alternatives_considered",
                "success", "eval", "eval_reason", "directive", "message_role", "feedback_type", "feedback_content",
                "ended_at", "retry_of")},
            **{f: "the trajectory's extra.forsy" for f in _TOP_EXTRA if f not in ("task",)},
        },
        transformed={
            "steps.step": "step_id (ATIF numbers its own steps; parallel calls share one)",
            "steps.input": "user message; tool_calls[].arguments (a JSON object; other text as {\"input\": text} "
                           "with extra.raw_input)",
        },
        back=("system_prompt", "task", "steps.tool", "steps.output", "steps.reasoning", "steps.started_at",
              "steps.input", "steps.actor", "steps.success", "steps.ended_at", "steps.turn"),
        dropped={"manifest": "not carried (the session id is the trajectory's session_id)",
                 "provenance": "not carried"},
    )

    def convert(self, bundles: Sequence[Bundle], ctx: ExportContext, options: ExportOptions) -> list[OutFile]:
        docs = [orjson.dumps(trajectory(b), option=orjson.OPT_INDENT_2) + b"\n" for b in bundles]
        if len(bundles) == 1:
            return [OutFile("", docs[0])]
        return [OutFile(f"{b.trace.trace_id}.json", d) for b, d in zip(bundles, docs, strict=True)]
