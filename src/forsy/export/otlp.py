"""OpenTelemetry: OTLP JSON (`{"resourceSpans": [...]}`), spans after the GenAI semantic
conventions.

* the session is the root span (`invoke_agent <agent>`, gen_ai.operation.name invoke_agent),
  spanning the trace's started_at..ended_at; each step is one span under it (a subagent's
  steps under the span of the call that delegated to it): `execute_tool <tool>` for tool steps
  (gen_ai.tool.name, gen_ai.tool.call.id, gen_ai.tool.call.arguments / .result), `chat` for
  answers, `user_message` for user messages;
* `caused_by` and `retry_of` are span links (attribute forsy.link names which);
* success → span status OK / ERROR (unset when unknown);
* the other step fields are `forsy.*` attributes (strings, ints, bools; lists as JSON text).

Ids are derived, not random: the trace id is the first 16 bytes of sha256(trace_id), a span
id the first 8 bytes of sha256(trace_id/step). OTLP JSON writes them as hex (the OTLP/JSON
rule), not base64 as protobuf's generic JSON mapping would. A step without a time has
start/end 0: OTLP requires a time and forsy does not invent one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, ClassVar

import orjson

from .. import times
from ..models import STEP_FIELDS, Step, Trace
from ..version import __version__
from ._chat import call_id
from ._core import Bundle, Cover, ExportContext, ExportOptions, OutFile, coverage

_IN_SPAN = {"step", "tool", "input", "output", "started_at", "ended_at", "success", "caused_by", "retry_of"}
_ATTR_FIELDS = {f for f in STEP_FIELDS if f not in _IN_SPAN}  # each one a forsy.* attribute of the span


def _id(*parts: object, n: int) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[: n * 2]


def _nanos(ts: str | None) -> str:
    t = times.instant(ts) if ts else None
    return str(int(t.timestamp() * 1_000_000) * 1000) if t is not None else "0"


def _value(v: object) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, str):
        return {"stringValue": v}
    return {"stringValue": orjson.dumps(v).decode()}


def _attrs(d: dict[str, object]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in d.items() if v is not None]


def _span(t: Trace, s: Step, parent: str) -> dict[str, Any]:
    tid = _id(t.trace_id, n=16)
    if s.tool is not None:
        name, op = f"execute_tool {s.tool}", "execute_tool"
        gen = {"gen_ai.tool.name": s.tool, "gen_ai.tool.call.id": call_id(s), "gen_ai.tool.call.arguments": s.input,
               "gen_ai.tool.call.result": s.output}
    elif s.action == "user_message":
        name, op, gen = "user_message", None, {"forsy.input": s.input}
    else:
        name, op, gen = "chat", "chat", {"forsy.input": s.input, "forsy.output": s.output}
    attrs: dict[str, object] = {"gen_ai.operation.name": op, **gen, "forsy.step": s.step}
    # input_source is a model: its JSON form, as trace.json has it (the span's own fields are not dumped)
    d = s.model_dump(mode="json", include=_ATTR_FIELDS)
    attrs.update({f"forsy.{f}": d[f] for f in STEP_FIELDS if f not in _IN_SPAN})
    links = [{"traceId": tid, "spanId": _id(t.trace_id, c, n=8), "attributes": _attrs({"forsy.link": "caused_by"})}
             for c in s.caused_by or []]
    if s.retry_of is not None:
        links.append({"traceId": tid, "spanId": _id(t.trace_id, s.retry_of, n=8),
                      "attributes": _attrs({"forsy.link": "retry_of"})})
    status = {} if s.success is None else {"code": 1 if s.success else 2}
    return {"traceId": tid, "spanId": _id(t.trace_id, s.step, n=8), "parentSpanId": parent, "name": name,
            "kind": 1, "startTimeUnixNano": _nanos(s.started_at), "endTimeUnixNano": _nanos(s.ended_at or s.started_at),
            "attributes": _attrs(attrs), "links": links, "status": status}


def spans(b: Bundle) -> list[dict[str, Any]]:
    t = b.trace
    root = _id(t.trace_id, "session", n=8)
    cfg = t.agent_config or {}
    agent = str(cfg.get("agent") or "agent")
    session = b.manifest.session_id if b.manifest is not None else None
    top = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent,
           "gen_ai.request.model": cfg.get("model"), "gen_ai.conversation.id": session, "forsy.trace_id": t.trace_id,
           "forsy.task": t.task, "forsy.system_prompt": t.system_prompt,
           **{f"forsy.{k}": v for k, v in t.model_dump(mode="json").items()
              if k not in ("steps", "trace_id", "task", "system_prompt", "started_at", "ended_at")}}
    out = [{"traceId": _id(t.trace_id, n=16), "spanId": root, "name": f"invoke_agent {agent}", "kind": 1,
            "startTimeUnixNano": _nanos(t.started_at), "endTimeUnixNano": _nanos(t.ended_at or t.started_at),
            "attributes": _attrs(top), "status": {}}]
    parents: dict[str, str] = {}  # subagent actor → span of the delegating call
    for s in t.steps:
        if s.causal_type == "delegation_to_subagent" and s.caused_by and s.actor not in parents:
            parents[s.actor] = _id(t.trace_id, s.caused_by[0], n=8)
        out.append(_span(t, s, parents.get(s.actor, root)))
    return out


class OtlpExporter:
    name: ClassVar[str] = "otlp"
    directory: ClassVar[bool] = False
    coverage: ClassVar[dict[str, Cover]] = coverage(
        kept={
            "steps.tool": "gen_ai.tool.name", "steps.input": "gen_ai.tool.call.arguments / forsy.input",
            "steps.output": "gen_ai.tool.call.result / forsy.output", "task": "root span forsy.task",
            "trace_id": "root span forsy.trace_id", "system_prompt": "root span forsy.system_prompt",
            **{f"steps.{f}": f"forsy.{f} attribute" for f in STEP_FIELDS if f not in _IN_SPAN},
            **{f: f"root span forsy.{f} (objects as JSON text)" for f in (
                "prior_trace_id", "trace_mode", "validation_level", "agent_tools", "skills", "memory", "agent_config",
                "learning", "termination_reason", "final_output", "static_output", "summary", "dataset_summary",
                "schema_version")},
        },
        transformed={
            "steps.step": "a span per step (forsy.step; span id from sha256(trace_id/step))",
            "steps.started_at": "startTimeUnixNano (0 when unknown)",
            "steps.ended_at": "endTimeUnixNano (the start when unknown)",
            "started_at": "root span startTimeUnixNano", "ended_at": "root span endTimeUnixNano",
            "steps.success": "span status OK / ERROR",
            "steps.caused_by": "span links, forsy.link=caused_by", "steps.retry_of": "a span link, forsy.link=retry_of",
        },
        dropped={"manifest": "not carried (its session id is gen_ai.conversation.id)", "provenance": "not carried"},
    )

    def convert(self, bundles: Sequence[Bundle], ctx: ExportContext, options: ExportOptions) -> list[OutFile]:
        doc = {"resourceSpans": [{
            "resource": {"attributes": _attrs({"service.name": "forsy"})},
            "scopeSpans": [{"scope": {"name": "forsy", "version": __version__},
                            "spans": [sp for b in bundles for sp in spans(b)]}],
        }]}
        return [OutFile("", orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")]
