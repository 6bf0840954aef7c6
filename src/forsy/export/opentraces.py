"""opentraces steps (TAO: thought, action, observation): one JSON line per trace, a
`TraceRecord` of the opentraces-schema package.

* a user_message step is a `user` step (content = the exact input);
* a tool step is an `agent` step: `reasoning_content` = its reasoning, one tool call
  `{tool_call_id, tool_name, input}` and an observation linked by `source_call_id` holding
  the output (`error` set when the step failed); calls of one parallel_group share a step.
  `input` is a JSON object: other text is passed as `{"input": text}`;
* an output/error step is an `agent` step whose content is the output;
* a `system` step (a compaction) is a `system` step; the system_prompt goes to
  `system_prompts` under its sha256, named by every step's `system_prompt_hash`;
* subagent steps: `call_type` "subagent", `agent_role` the actor, `parent_step` the
  opentraces step of the delegating call (a `delegation_to_subagent` cause);
* snippets: the output of a read tool whose input names a `file_path`;
* token usage: the session's totals (agent_config.token_usage) go to `metrics`; Forsy has
  no per-step counts, so each step's `token_usage` stays zero.

Forsy fields opentraces has no place for go into `metadata.forsy` (top level) and
`metadata.forsy_steps` (by opentraces step index): opentraces readers ignore them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, ClassVar

import orjson

from ..models import Step, Trace
from ..tools import ToolKind, kind_of
from ._chat import arguments_object, call_id
from ._core import Bundle, Cover, ExportContext, ExportOptions, OutFile, coverage

SCHEMA = "0.9.0"  # the opentraces-schema version the records are checked against
_NATIVE = {"step", "tool", "input", "output", "reasoning", "started_at"}
_TOP_META = ("prior_trace_id", "trace_mode", "validation_level", "agent_tools", "skills", "memory", "agent_config",
             "learning", "termination_reason", "final_output", "static_output", "summary", "dataset_summary",
             "schema_version")


def _snippet(s: Step, index: int) -> dict[str, Any] | None:
    if kind_of(s.tool) is not ToolKind.READ or s.output is None:
        return None
    args = arguments_object(s.input)
    path = args.get("file_path") if args else None
    if not isinstance(path, str):
        return None
    return {"file_path": path, "text": s.output, "source_step": index}


def record(b: Bundle) -> dict[str, Any]:
    t: Trace = b.trace
    prompts: dict[str, str] = {}
    phash = None
    if t.system_prompt:
        phash = "sp_" + hashlib.sha256(t.system_prompt.encode()).hexdigest()[:16]
        prompts[phash] = t.system_prompt
    cfg = t.agent_config or {}
    model = str(cfg["model"]) if cfg.get("model") else None
    steps: list[dict[str, Any]] = []
    extras: dict[str, list[dict[str, Any]]] = {}
    where: dict[int, int] = {}  # Forsy step → opentraces step index
    open_group: tuple[str, str] | None = None
    for s in t.steps:
        extra = {k: v for k, v in s.model_dump(mode="json").items() if k not in _NATIVE and v is not None}
        sub = s.actor.startswith("subagent:")
        if s.action == "agent_step" and s.tool is not None:
            key = (s.actor, s.parallel_group) if s.parallel_group else None
            args = arguments_object(s.input)
            call = {"tool_call_id": call_id(s), "tool_name": s.tool,
                    "input": args if args is not None else {"input": s.input}}
            obs: dict[str, Any] = {"source_call_id": call_id(s), "content": s.output,
                                   "error": "failed" if s.success is False else None}
            if s.output is None:
                obs["error"] = "no_result"
            if key is not None and key == open_group and s.reasoning is None:
                st = steps[-1]
                st["tool_calls"].append(call)
                st["observations"].append(obs)
                extras[str(st["step_index"])].append(extra)
                where[s.step] = st["step_index"]
                snip = _snippet(s, st["step_index"])
                if snip:
                    st["snippets"].append(snip)
                continue
            open_group = key
            st = {"role": "agent", "content": None, "reasoning_content": s.reasoning, "tool_calls": [call],
                  "observations": [obs]}
        else:
            open_group = None
            if s.action == "user_message":
                st = {"role": "user", "content": s.input}
            elif s.actor == "system":
                st = {"role": "system", "content": s.output}
            else:
                st = {"role": "agent", "content": s.output, "reasoning_content": s.reasoning}
        index = len(steps) + 1
        st.update(step_index=index, timestamp=s.started_at, system_prompt_hash=phash)
        if st["role"] == "agent":
            st.update(model=model, tools_available=list(t.agent_tools), call_type="subagent" if sub else "main",
                      agent_role=s.actor if sub else "main")
            if sub and s.causal_type == "delegation_to_subagent" and s.caused_by:
                st["parent_step"] = where.get(s.caused_by[0])
        snip = _snippet(s, index)
        st["snippets"] = [snip] if snip else []
        st.setdefault("tool_calls", [])
        st.setdefault("observations", [])
        steps.append(st)
        extras[str(index)] = [extra]
        where[s.step] = index
    raw = cfg.get("token_usage")
    usage: dict[str, object] = raw if isinstance(raw, dict) else {}

    def tok(*keys: str) -> int:
        return sum(v for k in keys if isinstance(v := usage.get(k), int))

    session = b.manifest.session_id if b.manifest is not None and b.manifest.session_id else t.trace_id
    return {
        "schema_version": SCHEMA, "trace_id": t.trace_id, "session_id": session,
        "timestamp_start": t.started_at, "timestamp_end": t.ended_at,
        "task": {"description": t.task, "source": "user_prompt" if any(s.action == "user_message" for s in t.steps)
                 else None},
        "agent": {"name": str(cfg.get("agent") or "unknown"), "version": cfg.get("agent_version"), "model": model},
        "system_prompts": prompts, "steps": steps,
        "outcome": {"success": t.summary.goal_achieved, "description": t.summary.goal_notes,
                    "signal_source": "forsy", "signal_confidence": "derived"},
        "metrics": {"total_steps": len(steps), "total_input_tokens": tok("input_tokens"),
                    "total_output_tokens": tok("output_tokens"),
                    "total_cache_read_tokens": tok("cache_read_input_tokens", "cached_input_tokens"),
                    "total_cache_creation_tokens": tok("cache_creation_input_tokens")},
        "metadata": {"forsy": t.model_dump(mode="json", include=set(_TOP_META)), "forsy_steps": extras},
    }


class OpentracesExporter:
    name: ClassVar[str] = "opentraces"
    directory: ClassVar[bool] = False
    coverage: ClassVar[dict[str, Cover]] = coverage(
        kept={
            "trace_id": "trace_id", "task": "task.description", "started_at": "timestamp_start",
            "ended_at": "timestamp_end", "system_prompt": "system_prompts[hash]",
            "steps.tool": "tool_calls[].tool_name", "steps.output": "observations[].content; an answer's content",
            "steps.reasoning": "reasoning_content", "steps.started_at": "timestamp",
            **{f"steps.{f}": "metadata.forsy_steps[step_index][]" for f in (
                "turn", "actor", "action", "operation", "execution_mode", "parallel_group", "observation",
                "input_source", "state_change", "caused_by", "causal_type", "causal_note", "alternatives_considered",
                "success", "eval", "eval_reason", "directive", "message_role", "feedback_type", "feedback_content",
                "ended_at", "retry_of")},
            **{f: "metadata.forsy" for f in _TOP_META},
        },
        transformed={
            "steps.step": "step_index (parallel calls share one opentraces step)",
            "steps.input": "user content; tool_calls[].input (a JSON object; other text as {\"input\": text})",
        },
        dropped={"manifest": "not carried (its session id is session_id)", "provenance": "not carried"},
    )

    def convert(self, bundles: Sequence[Bundle], ctx: ExportContext, options: ExportOptions) -> list[OutFile]:
        return [OutFile("", b"".join(orjson.dumps(record(b)) + b"\n" for b in bundles))]
