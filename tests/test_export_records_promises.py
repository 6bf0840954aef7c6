"""What opentraces and OTLP make of every kind of step, spelled out by hand over one trace
(`_export_traces.rich`; its steps are listed in test_export_formats_promises.py)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from _export_traces import T0, bundle, manifest, rich, step, trace
from forsy.export import coverage_of, export
from forsy.export.opentraces import record
from forsy.export.otlp import _nanos, _value, spans
from forsy.version import __version__

PHASH = "sp_b0d336336bae9756"  # sp_ and the first 16 hex digits of sha256("be brief")
TOOLS = ["Read", "Bash"]
READ_B = '{"file_path": "b.py"}'


# --------------------------------------------------------------------------- opentraces
def _agent(index: int, content: str | None, reasoning: str | None, ts: str | None = None, role: str = "main",
           **kw: Any) -> dict[str, Any]:
    return {"role": "agent", "content": content, "reasoning_content": reasoning, "step_index": index,
            "timestamp": ts, "system_prompt_hash": PHASH, "model": "opus", "tools_available": TOOLS,
            "call_type": "subagent" if role != "main" else "main", "agent_role": role, "snippets": [],
            "tool_calls": [], "observations": [], **kw}


def _plain(role: str, index: int, content: str | None, ts: str | None = None) -> dict[str, Any]:
    return {"role": role, "content": content, "step_index": index, "timestamp": ts, "system_prompt_hash": PHASH,
            "snippets": [], "tool_calls": [], "observations": []}


def _oc(n: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"tool_call_id": f"call_{n}", "tool_name": name, "input": args}


def _ob(n: int, content: str | None, error: str | None = None) -> dict[str, Any]:
    return {"source_call_id": f"call_{n}", "content": content, "error": error}


def _fx(**kw: Any) -> dict[str, Any]:
    return {"turn": 1, "actor": "agent", "action": "agent_step", "eval": 0, **kw}


OT_STEPS = [
    _plain("user", 1, "fix it", T0),
    _agent(2, None, "look first", "2026-01-01T00:00:01.5Z", tool_calls=[_oc(2, "Read", {"file_path": "a.py"})],
           observations=[_ob(2, "print(1)")], snippets=[{"file_path": "a.py", "text": "print(1)", "source_step": 2}]),
    _agent(3, None, "list", tool_calls=[_oc(3, "Bash", {"input": "ls -la"}), _oc(4, "Grep", {})],
           observations=[_ob(3, "a.py", "failed"), _ob(4, None, "no_result")]),
    _agent(4, None, None, tool_calls=[_oc(5, "Task", {"prompt": "go"})], observations=[_ob(5, "sub done")]),
    _agent(5, None, None, role="subagent:a1", parent_step=4, tool_calls=[_oc(6, "Read", {"input": READ_B})],
           observations=[_ob(6, "b")]),
    _agent(6, "all fixed", "thinking"),
    _plain("system", 7, "compacted"),
    _agent(8, None, "hmm"),
    _agent(9, "boom", None),
    _agent(10, "hook said", None),  # a hook is no system step in opentraces
    _plain("user", 11, "thanks"),
]
OT_EXTRA = {
    "1": [_fx(actor="user", action="user_message", message_role="direct_request",
              input_source={"actor": "user", "source_step": None, "source_field": None, "note": None})],
    "2": [_fx(operation="read", success=True, ended_at="2026-01-01T00:00:02Z")],
    "3": [_fx(execution_mode="parallel", parallel_group="g1", success=False),
          _fx(execution_mode="parallel", parallel_group="g1")],
    "4": [_fx(caused_by=[1])],
    "5": [_fx(actor="subagent:a1", caused_by=[5], causal_type="delegation_to_subagent")],
    "6": [_fx(action="output", eval=1)],
    "7": [_fx(actor="system", action="output")],
    "8": [_fx(action="output")],
    "9": [_fx(action="error", success=False, retry_of=3)],
    "10": [_fx(actor="system:hook", action="output")],
    "11": [_fx(turn=2, actor="user", action="user_message")],
}
_META = ("prior_trace_id", "trace_mode", "validation_level", "agent_tools", "skills", "memory", "agent_config",
         "learning", "termination_reason", "final_output", "static_output", "summary", "dataset_summary",
         "schema_version")


def test_opentraces_record_of_every_kind_of_step() -> None:
    t = rich()
    d = t.model_dump(mode="json")
    assert record(bundle(t, man=True)) == {
        "schema_version": "0.9.0", "trace_id": "forsy_x", "session_id": "sess-1",
        "timestamp_start": T0, "timestamp_end": "2026-01-01T00:01:00Z",
        "task": {"description": "fix the bug", "source": "user_prompt"},
        "agent": {"name": "claude-code", "version": "1.2", "model": "opus"},
        "system_prompts": {PHASH: "be brief"}, "steps": OT_STEPS,
        "outcome": {"success": True, "description": "fixed", "signal_source": "forsy", "signal_confidence": "derived"},
        "metrics": {"total_steps": 11, "total_input_tokens": 10, "total_output_tokens": 5,
                    "total_cache_read_tokens": 3, "total_cache_creation_tokens": 3},
        "metadata": {"forsy": {k: d[k] for k in _META}, "forsy_steps": OT_EXTRA},
    }


def test_opentraces_without_prompt_user_model_or_usage() -> None:
    t = trace("forsy_q", [step(1, output="a"), step(2, actor="subagent:s", action="agent_step", tool="Read",
                                                   input='{"file_path":7}', output="x",
                                                   causal_type="delegation_to_subagent", caused_by=[9]),
                          step(3, actor="subagent:s", action="agent_step", tool="Read", input='{"path":"p"}',
                               output="y", caused_by=[1]),
                          step(4, action="agent_step", tool="Read", input='{"file_path":"p"}', output=None)],
              agent_config={"agent_version": "2", "token_usage": [1]})
    rec = record(bundle(t, man=True))
    assert rec["session_id"] == "sess-1"
    b = bundle(t)
    assert record(b)["session_id"] == "forsy_q"
    b.manifest = manifest("forsy_q", session_id=None)
    assert record(b)["session_id"] == "forsy_q"
    assert rec["task"] == {"description": "fix the bug", "source": None}
    assert rec["agent"] == {"name": "unknown", "version": "2", "model": None}
    assert rec["system_prompts"] == {}
    assert [s["system_prompt_hash"] for s in rec["steps"]] == [None] * 4
    assert all(v == 0 for k, v in rec["metrics"].items() if k != "total_steps")
    first, sub, sub2, read = rec["steps"]
    assert (first["model"], first["tools_available"], first["agent_role"]) == (None, [], "main")
    assert sub["parent_step"] is None  # its cause is no step of the trace
    assert "parent_step" not in sub2  # no delegation
    assert (sub["snippets"], sub2["snippets"], read["snippets"]) == ([], [], [])  # no path text; no output
    assert read["observations"] == [_ob(4, None, "no_result")]
    t2 = trace("forsy_r", [step(1, output="a")], agent_config={"agent": "a", "model": "",
                                                               "token_usage": {"input_tokens": "5"}})
    r2 = record(bundle(t2))
    assert r2["agent"] == {"name": "a", "version": None, "model": None} and r2["metrics"]["total_input_tokens"] == 0


def test_opentraces_group_joins_only_without_reasoning_and_keeps_snippets(tmp_path: Path) -> None:
    def rd(n: int, path: str, **kw: Any) -> dict[str, Any]:
        return step(n, action="agent_step", tool="Read", input=json.dumps({"file_path": path}, separators=(",", ":")),
                    output=f"text {n}", parallel_group="g", **kw)

    t = trace("forsy_s", [rd(1, "a"), rd(2, "b"), rd(3, "c", reasoning="again"), rd(4, "d", actor="subagent:k")])
    steps = record(bundle(t))["steps"]
    assert [[c["tool_call_id"] for c in s["tool_calls"]] for s in steps] == [["call_1", "call_2"], ["call_3"],
                                                                            ["call_4"]]
    assert steps[0]["snippets"] == [{"file_path": "a", "text": "text 1", "source_step": 1},
                                    {"file_path": "b", "text": "text 2", "source_step": 1}]
    assert [s["step_index"] for s in steps] == [1, 2, 3]
    assert list(record(bundle(t))["metadata"]["forsy_steps"]) == ["1", "2", "3"]
    export([bundle(t), bundle(rich())], "opentraces", tmp_path / "o.jsonl")
    lines = (tmp_path / "o.jsonl").read_bytes().split(b"\n")
    assert lines[2] == b"" and len(lines) == 3
    assert json.loads(lines[0]) == record(bundle(t)) and json.loads(lines[1]) == record(bundle(rich()))


def test_opentraces_a_subagent_of_a_parallel_call_links_the_shared_step() -> None:
    def task(n: int) -> dict[str, Any]:
        return step(n, action="agent_step", tool="Task", input="{}", output="ok", parallel_group="g")

    t = trace("forsy_d", [step(1, output="start"), task(2), task(3),
                          step(4, actor="subagent:b", causal_type="delegation_to_subagent", caused_by=[3],
                               output="sub")])
    steps = record(bundle(t))["steps"]
    assert [s["step_index"] for s in steps] == [1, 2, 3]
    assert steps[2]["parent_step"] == 2  # step 3 shares the opentraces step of step 2


def test_opentraces_declares_where_each_field_goes() -> None:
    cov = coverage_of("opentraces")
    assert {f for f, c in cov.items() if c.fate == "dropped"} == {"manifest", "provenance"}
    assert {f for f, c in cov.items() if c.fate == "transformed"} == {"steps.step", "steps.input"}
    assert cov["steps.eval"].how == "metadata.forsy_steps[step_index][]" and cov["memory"].how == "metadata.forsy"
    assert not any(c.back for c in cov.values())


# --------------------------------------------------------------------------- otlp
def _h(text: str, n: int) -> str:
    """The id rule of the module docstring: the first n bytes of sha256(text), as hex."""
    return hashlib.sha256(text.encode()).hexdigest()[: n * 2]


def _attrs(sp: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: next(iter(a["value"].values())) for a in sp["attributes"]}


TID = _h("forsy_x", 16)
S = "1767225600000000000"  # T0 in nanoseconds


def test_otlp_values_and_times() -> None:
    assert _value(True) == {"boolValue": True} and _value(False) == {"boolValue": False}
    assert _value(3) == {"intValue": "3"} and _value("s") == {"stringValue": "s"}
    assert _value([1, "a"]) == {"stringValue": '[1,"a"]'} and _value({"k": None}) == {"stringValue": '{"k":null}'}
    assert _nanos(T0) == S and _nanos("2026-01-01T00:00:01.000002Z") == "1767225601000002000"
    assert _nanos(None) == "0" and _nanos("") == "0" and _nanos("not a time") == "0"


def test_otlp_spans_of_every_kind_of_step() -> None:
    t = rich()
    out = spans(bundle(t, man=True))
    root, *steps = out
    assert len(steps) == 12
    assert root == {"traceId": TID, "spanId": _h("forsy_x/session", 8), "name": "invoke_agent claude-code",
                    "kind": 1, "startTimeUnixNano": S, "endTimeUnixNano": "1767225660000000000",
                    "attributes": root["attributes"], "status": {}}
    d = t.model_dump(mode="json")
    assert _attrs(root) == {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "claude-code", "gen_ai.request.model": "opus",
        "gen_ai.conversation.id": "sess-1", "forsy.trace_id": "forsy_x", "forsy.task": "fix the bug",
        "forsy.system_prompt": "be brief", "forsy.schema_version": "forsy-trace-v0.1", "forsy.trace_mode": "retraced",
        "forsy.validation_level": "retraced_from_logs", "forsy.agent_tools": '["Read","Bash"]', "forsy.memory": "mem",
        "forsy.agent_config": json.dumps(d["agent_config"], separators=(",", ":")),
        "forsy.termination_reason": "task_complete", "forsy.static_output": '{"artifacts":[]}',
        "forsy.summary": json.dumps(d["summary"], separators=(",", ":")),
        "forsy.dataset_summary": json.dumps(d["dataset_summary"], separators=(",", ":"))}
    assert [a["key"] for a in root["attributes"]][:7] == [
        "gen_ai.operation.name", "gen_ai.agent.name", "gen_ai.request.model", "gen_ai.conversation.id",
        "forsy.trace_id", "forsy.task", "forsy.system_prompt"]
    sid = {n: _h(f"forsy_x/{n}", 8) for n in range(1, 13)}
    assert [(s["spanId"], s["traceId"], s["kind"]) for s in steps] == [(sid[n], TID, 1) for n in range(1, 13)]
    assert [s["parentSpanId"] for s in steps] == [root["spanId"]] * 5 + [sid[5]] + [root["spanId"]] * 6
    assert [s["name"] for s in steps] == ["user_message", "execute_tool Read", "execute_tool Bash", "execute_tool Grep",
                                          "execute_tool Task", "execute_tool Read", "chat", "chat", "chat", "chat",
                                          "chat", "user_message"]
    assert [(s["startTimeUnixNano"], s["endTimeUnixNano"]) for s in steps[:3]] == [
        (S, S), ("1767225601500000000", "1767225602000000000"), ("0", "0")]
    assert [s["status"] for s in steps] == [{}, {"code": 1}, {"code": 2}, {}, {}, {}, {}, {}, {}, {"code": 2}, {}, {}]
    link = {"key": "forsy.link", "value": {"stringValue": "caused_by"}}
    assert steps[4]["links"] == [{"traceId": TID, "spanId": sid[1], "attributes": [link]}]
    assert steps[9]["links"] == [{"traceId": TID, "spanId": sid[3],
                                  "attributes": [{"key": "forsy.link", "value": {"stringValue": "retry_of"}}]}]
    assert [len(s["links"]) for s in steps] == [0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0]
    assert _attrs(steps[0]) == {"forsy.input": "fix it", "forsy.step": "1", "forsy.turn": "1", "forsy.actor": "user",
                                "forsy.action": "user_message", "forsy.message_role": "direct_request",
                                "forsy.eval": "0", "forsy.input_source":
                                    '{"actor":"user","source_step":null,"source_field":null,"note":null}'}
    assert _attrs(steps[1]) == {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Read",
                                "gen_ai.tool.call.id": "call_2", "gen_ai.tool.call.arguments": '{"file_path":"a.py"}',
                                "gen_ai.tool.call.result": "print(1)", "forsy.step": "2", "forsy.turn": "1",
                                "forsy.actor": "agent", "forsy.action": "agent_step", "forsy.operation": "read",
                                "forsy.reasoning": "look first", "forsy.eval": "0"}
    assert _attrs(steps[3]) == {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Grep",
                                "gen_ai.tool.call.id": "call_4", "forsy.step": "4", "forsy.turn": "1",
                                "forsy.actor": "agent", "forsy.action": "agent_step",
                                "forsy.execution_mode": "parallel", "forsy.parallel_group": "g1", "forsy.eval": "0"}
    assert _attrs(steps[6]) == {"gen_ai.operation.name": "chat", "forsy.output": "all fixed", "forsy.step": "7",
                                "forsy.turn": "1", "forsy.actor": "agent", "forsy.action": "output",
                                "forsy.reasoning": "thinking", "forsy.eval": "1"}
    assert _attrs(steps[5])["forsy.causal_type"] == "delegation_to_subagent"
    answer = trace("forsy_a", [step(1, input="the question it answers", output="42")])
    assert _attrs(spans(bundle(answer))[1])["forsy.input"] == "the question it answers"


def test_otlp_parents_a_subagent_under_its_first_delegation_only() -> None:
    t = trace("forsy_p", [
        step(1, action="agent_step", tool="Task", input="{}"),
        step(2, action="agent_step", tool="Task", input="{}"),
        step(3, actor="subagent:a", causal_type="delegation_to_subagent", caused_by=[1], output="x"),
        step(4, actor="subagent:a", causal_type="delegation_to_subagent", caused_by=[2], output="y"),
        step(5, actor="subagent:b", causal_type="delegation_to_subagent", caused_by=None, output="z"),
        step(6, actor="subagent:c", causal_type="other", caused_by=[2], output="w"),
    ], agent_config=None, started_at="2026-01-01T00:00:00Z")
    root, *steps = spans(bundle(t))
    assert root["name"] == "invoke_agent agent" and _attrs(root)["gen_ai.agent.name"] == "agent"
    assert "gen_ai.request.model" not in _attrs(root) and "gen_ai.conversation.id" not in _attrs(root)
    assert root["endTimeUnixNano"] == S  # no end: the start
    r = root["spanId"]
    assert [s["parentSpanId"] for s in steps] == [r, r, _h("forsy_p/1", 8), _h("forsy_p/1", 8), r, r]
    assert [s["endTimeUnixNano"] for s in steps] == ["0"] * 6


def test_otlp_writes_one_document_for_every_trace(tmp_path: Path) -> None:
    a, b = rich(), trace("forsy_y", [step(1, output="a")])
    export([bundle(a), bundle(b)], "otlp", tmp_path / "o.json")
    raw = (tmp_path / "o.json").read_bytes()
    assert raw.startswith(b'{\n  "resourceSpans"') and raw.endswith(b"}\n")
    doc = json.loads(raw)
    assert list(doc) == ["resourceSpans"] and len(doc["resourceSpans"]) == 1
    rs = doc["resourceSpans"][0]
    assert rs["resource"] == {"attributes": [{"key": "service.name", "value": {"stringValue": "forsy"}}]}
    assert rs["scopeSpans"] == [{"scope": {"name": "forsy", "version": __version__},
                                 "spans": [*spans(bundle(a)), *spans(bundle(b))]}]


def test_otlp_declares_where_each_field_goes() -> None:
    cov = coverage_of("otlp")
    assert {f for f, c in cov.items() if c.fate == "dropped"} == {"manifest", "provenance"}
    assert {f for f, c in cov.items() if c.fate == "transformed"} == {
        "steps.step", "steps.started_at", "steps.ended_at", "started_at", "ended_at", "steps.success",
        "steps.caused_by", "steps.retry_of"}
    assert cov["steps.eval"].how == "forsy.eval attribute"
    assert cov["memory"].how == "root span forsy.memory (objects as JSON text)"
