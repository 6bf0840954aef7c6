"""What each chat-shaped format makes of every kind of step, spelled out by hand over one trace
(`_export_traces.rich`: a user message, a call with a JSON object input, a parallel group whose
second call has no input and no result, a delegation, a subagent's call whose input is JSON but
not in forsy's own spelling, an answer with reasoning, a compaction, thinking alone, an error, a
hook and a second turn): `_chat`, openai, invariant and atif. opentraces and otlp:
test_export_records_promises.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _export_traces import T0, bundle, manifest, rich, step, trace
from forsy.export import ExportOptions, coverage_of, export
from forsy.export._chat import arguments_object, messages
from forsy.export._core import ExportContext
from forsy.export.atif import trajectory
from forsy.export.invariant import events

READ_A = '{"file_path":"a.py"}'
READ_B = '{"file_path": "b.py"}'  # JSON, but forsy would spell it without the space
TOP = {"forsy_x"}


def _call(n: int, name: str, args: str) -> dict[str, Any]:
    return {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": args}}


OPENAI = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "fix it"},
    {"role": "assistant", "content": "look first", "tool_calls": [_call(2, "Read", READ_A)]},
    {"role": "tool", "content": "print(1)", "tool_call_id": "call_2"},
    {"role": "assistant", "content": "list", "tool_calls": [_call(3, "Bash", "ls -la"), _call(4, "Grep", "{}")]},
    {"role": "tool", "content": "a.py", "tool_call_id": "call_3"},
    {"role": "assistant", "content": None, "tool_calls": [_call(5, "Task", '{"prompt":"go"}')]},
    {"role": "tool", "content": "sub done", "tool_call_id": "call_5"},
    {"role": "assistant", "content": None, "tool_calls": [_call(6, "Read", READ_B)]},
    {"role": "tool", "content": "b", "tool_call_id": "call_6"},
    {"role": "assistant", "content": "all fixed"},
    {"role": "system", "content": "compacted"},
    {"role": "assistant", "content": "hmm"},
    {"role": "assistant", "content": "boom"},
    {"role": "system", "content": "hook said"},
    {"role": "user", "content": "thanks"},
]


# --------------------------------------------------------------------------- _chat
def test_arguments_object_is_the_input_only_when_it_reads_back_the_same() -> None:
    assert arguments_object(None) == {}
    assert arguments_object(READ_A) == {"file_path": "a.py"}
    assert arguments_object('{"b":1,"a":[2]}') == {"b": 1, "a": [2]}  # key order as written
    for text in (READ_B, "ls -la", "[1]", '"s"', "3", "", "{"):
        assert arguments_object(text) is None, text


def test_chat_messages_of_every_kind_of_step() -> None:
    ctx = ExportContext()
    msgs = messages(rich(), ctx)
    got = [(m.role, m.content, [s.step for s in m.steps], [(c.id, c.name, c.input, c.step.step) for c in m.calls],
            m.tool_call_id) for m in msgs]
    assert got == [
        ("system", "be brief", [], [], None),
        ("user", "fix it", [1], [], None),
        ("assistant", "look first", [2], [("call_2", "Read", READ_A, 2)], None),
        ("tool", "print(1)", [2], [], "call_2"),
        ("assistant", "list", [3, 4], [("call_3", "Bash", "ls -la", 3), ("call_4", "Grep", None, 4)], None),
        ("tool", "a.py", [3], [], "call_3"),
        ("assistant", None, [5], [("call_5", "Task", '{"prompt":"go"}', 5)], None),
        ("tool", "sub done", [5], [], "call_5"),
        ("assistant", None, [6], [("call_6", "Read", READ_B, 6)], None),
        ("tool", "b", [6], [], "call_6"),
        ("assistant", "all fixed", [7], [], None),
        ("system", "compacted", [8], [], None),
        ("assistant", "hmm", [9], [], None),
        ("assistant", "boom", [10], [], None),
        ("system", "hook said", [11], [], None),
        ("user", "thanks", [12], [], None),
    ]
    assert dict(ctx.dropped) == {"steps.reasoning": 1}  # the answer's thinking (step 7)
    kept = ExportContext()
    messages(rich(), kept, answer_reasoning=True)
    assert dict(kept.dropped) == {}


def test_chat_groups_calls_of_one_actor_and_group_until_one_has_reasoning() -> None:
    def call(n: int, **kw: Any) -> dict[str, Any]:
        return step(n, action="agent_step", tool="T", input="{}", **kw)

    t = trace("forsy_g", [
        call(1, parallel_group="g", output="r1"), call(2, parallel_group="g", output="r2"),
        call(3, parallel_group="g", reasoning="new thought", output="r3"),  # reasoning: a message of its own
        call(4, parallel_group="g", actor="subagent:s"),  # another actor: another message
        call(5, parallel_group="h", output="r5"),  # another group
        step(6, actor="system", output=None),  # nothing to say: no message
        call(7, parallel_group="h", output="r7"),  # the same group after a step between: a new message
    ])
    got = [(m.role, [s.step for s in m.steps], m.tool_call_id) for m in messages(t, ExportContext())]
    assert got == [("assistant", [1, 2], None), ("tool", [1], "call_1"), ("tool", [2], "call_2"),
                   ("assistant", [3], None), ("tool", [3], "call_3"), ("assistant", [4], None),
                   ("assistant", [5], None), ("tool", [5], "call_5"),
                   ("assistant", [7], None), ("tool", [7], "call_7")]
    t = trace("forsy_u", [call(1, output="r1"), call(2, output="r2"), step(3, action="agent_step", reasoning="plan"),
                          step(4, action="output", tool="T", output="said")])
    shapes = [(m.role, m.content, [s.step for s in m.steps], len(m.calls)) for m in messages(t, ExportContext())]
    assert shapes == [("assistant", None, [1], 1), ("tool", "r1", [1], 0), ("assistant", None, [2], 1),
                   ("tool", "r2", [2], 0),  # calls of no group: a message each, the result right after
                   ("assistant", "plan", [3], 0),  # an agent step with no tool: its reasoning, no call
                   ("assistant", "said", [4], 0)]  # an answer naming a tool is still an answer
    t = trace("forsy_n", [step(1, actor="user", action="user_message", input="hi")], system_prompt="")
    assert [(m.role, m.content) for m in messages(t, ExportContext())] == [("user", "hi")]


# --------------------------------------------------------------------------- openai
def test_openai_writes_one_line_of_messages_per_trace(tmp_path: Path) -> None:
    other = trace("forsy_y", [step(1, actor="user", action="user_message", input="q"), step(2, output="a")])
    res = export([bundle(rich()), bundle(other)], "openai", tmp_path / "o.jsonl")
    data = (tmp_path / "o.jsonl").read_bytes()
    assert data.endswith(b"\n") and data.count(b"\n") == 2
    first, second = (json.loads(x) for x in data.splitlines())
    assert first == {"messages": OPENAI}
    assert list(first["messages"][2]) == ["role", "content", "tool_calls"]
    assert list(first["messages"][3]) == ["role", "content", "tool_call_id"]
    assert second == {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}
    by = {f.field: f for f in res.report.fields}
    assert (by["steps.reasoning"].values, by["steps.reasoning"].lost) == (4, 1)
    assert (by["steps.actor"].fate, by["steps.actor"].lost) == ("dropped", 14)


def test_openai_declares_what_it_keeps_and_reads_back() -> None:
    cov = coverage_of("openai")
    assert {f for f, c in cov.items() if c.fate == "kept"} == {
        "system_prompt", "task", "steps.tool", "steps.input", "steps.output"}
    assert {f for f, c in cov.items() if c.fate == "transformed"} == {
        "steps.step", "steps.turn", "steps.action", "steps.reasoning", "steps.execution_mode",
        "steps.parallel_group"}
    assert {f for f, c in cov.items() if c.back} == {
        "system_prompt", "task", "steps.tool", "steps.input", "steps.output", "steps.reasoning", "steps.turn"}
    assert cov["steps.actor"].how == "one conversation: subagent steps are flattened into it"


# --------------------------------------------------------------------------- invariant
def _meta(n: int, actor: str = "agent", action: str = "output", **times: Any) -> dict[str, Any]:
    return {"forsy_step": n, "actor": actor, "action": action, **times}


def _icall(n: int, name: str, args: dict[str, Any], actor: str = "agent", started: str | None = None,
           **flags: bool) -> dict[str, Any]:
    return {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": args},
            "metadata": {"forsy_step": n, "actor": actor, "started_at": started, **flags}}


def _tool(n: int, content: str, success: bool | None = None, ended: str | None = None) -> dict[str, Any]:
    return {"role": "tool", "content": content, "tool_call_id": f"call_{n}",
            "metadata": {"forsy_step": n, "success": success, "ended_at": ended}}


INVARIANT = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "fix it", "metadata": _meta(1, "user", "user_message", started_at=T0, ended_at=None)},
    {"role": "assistant", "content": "look first", "metadata": _meta(2, action="agent_step"),
     "tool_calls": [_icall(2, "Read", {"file_path": "a.py"}, started="2026-01-01T00:00:01.5Z")]},
    _tool(2, "print(1)", True, "2026-01-01T00:00:02Z"),
    {"role": "assistant", "content": "list", "metadata": _meta(3, action="agent_step"),
     "tool_calls": [_icall(3, "Bash", {"input": "ls -la"}, raw_input=True), _icall(4, "Grep", {}, no_input=True)]},
    _tool(3, "a.py", False),
    {"role": "assistant", "content": None, "metadata": _meta(5, action="agent_step"),
     "tool_calls": [_icall(5, "Task", {"prompt": "go"})]},
    _tool(5, "sub done"),
    {"role": "assistant", "content": None, "metadata": _meta(6, "subagent:a1", "agent_step"),
     "tool_calls": [_icall(6, "Read", {"input": READ_B}, "subagent:a1", raw_input=True)]},
    _tool(6, "b"),
    {"role": "assistant", "content": "all fixed", "metadata": _meta(7, started_at=None, ended_at=None)},
    {"role": "system", "content": "compacted", "metadata": _meta(8, "system", started_at=None, ended_at=None)},
    {"role": "assistant", "content": "hmm", "metadata": _meta(9, started_at=None, ended_at=None)},
    {"role": "assistant", "content": "boom", "metadata": _meta(10, action="error", started_at=None, ended_at=None)},
    {"role": "system", "content": "hook said", "metadata": _meta(11, "system:hook", started_at=None, ended_at=None)},
    {"role": "user", "content": "thanks", "metadata": _meta(12, "user", "user_message", started_at=None,
                                                            ended_at=None)},
]
_TOP = ("trace_id", "prior_trace_id", "trace_mode", "validation_level", "task", "agent_tools", "started_at",
        "ended_at", "skills", "memory", "agent_config", "learning", "termination_reason", "final_output",
        "static_output", "summary", "dataset_summary", "schema_version")


def _top(t: Any) -> dict[str, Any]:
    d = t.model_dump(mode="json")
    return {k: d[k] for k in _TOP}


def test_invariant_events_of_every_kind_of_step() -> None:
    ctx = ExportContext()
    assert events(rich(), ctx) == INVARIANT
    assert dict(ctx.dropped) == {"steps.reasoning": 1}


def test_invariant_an_answer_carries_its_times_and_a_call_its_start() -> None:
    t = trace("forsy_t", [step(1, output="a", started_at=T0, ended_at="2026-01-01T00:00:05Z"),
                          step(2, action="agent_step", tool="T", input="{}", output="r", started_at=T0,
                               ended_at="2026-01-01T00:00:06Z")])
    answer, call, result = events(t, ExportContext())
    assert answer["metadata"] == _meta(1, started_at=T0, ended_at="2026-01-01T00:00:05Z")
    assert call["metadata"] == _meta(2, action="agent_step")  # the call's times: on the call and its result
    assert call["tool_calls"][0]["metadata"] == {"forsy_step": 2, "actor": "agent", "started_at": T0}
    assert result["metadata"] == {"forsy_step": 2, "success": None, "ended_at": "2026-01-01T00:00:06Z"}


def test_invariant_one_trace_is_a_list_and_an_upload_beside_it(tmp_path: Path) -> None:
    t = rich()
    res = export([bundle(t)], "invariant", tmp_path / "i.json", options=ExportOptions(dataset="my data/set!"))
    assert [p.name for p in res.paths] == ["i.json", "i.dataset.json", "i.json.loss.json"]
    raw = (tmp_path / "i.json").read_bytes()
    assert raw.startswith(b'[\n  {\n    "role"') and raw.endswith(b"]\n")  # indented, one JSON array
    assert json.loads(raw) == INVARIANT
    upload = json.loads((tmp_path / "i.dataset.json").read_bytes())
    assert upload == {"messages": [INVARIANT], "metadata": [_top(t)], "dataset": "my-data-set-"}
    assert (tmp_path / "i.dataset.json").read_bytes().endswith(b"}\n")
    assert "memory" in upload["metadata"][0] and "steps" not in upload["metadata"][0]
    by = {f.field: f for f in res.report.fields}
    assert (by["steps.reasoning"].lost, by["steps.operation"].lost, by["steps.tool"].lost) == (1, 1, 0)
    for name in (None, ""):
        export([bundle(t)], "invariant", tmp_path / "j.json", options=ExportOptions(dataset=name))
        assert "dataset" not in json.loads((tmp_path / "j.dataset.json").read_bytes())
    export([bundle(t)], "invariant", tmp_path / "k.json", options=ExportOptions(dataset="A-z_09"))
    assert json.loads((tmp_path / "k.dataset.json").read_bytes())["dataset"] == "A-z_09"


def test_invariant_several_traces_are_a_folder_of_lists_and_one_upload(tmp_path: Path) -> None:
    a, b = rich(), trace("forsy_y", [step(1, output="a")])
    export([bundle(a), bundle(b)], "invariant", tmp_path / "inv")
    assert sorted(p.name for p in (tmp_path / "inv").iterdir()) == ["dataset.json", "forsy_x.json", "forsy_y.json",
                                                                   "loss.json"]
    assert json.loads((tmp_path / "inv" / "forsy_x.json").read_bytes()) == INVARIANT
    yev = [{"role": "assistant", "content": "a", "metadata": _meta(1, started_at=None, ended_at=None)}]
    assert json.loads((tmp_path / "inv" / "forsy_y.json").read_bytes()) == yev
    upload = json.loads((tmp_path / "inv" / "dataset.json").read_bytes())
    assert upload == {"messages": [INVARIANT, yev], "metadata": [_top(a), _top(b)]}
    assert (tmp_path / "inv" / "forsy_y.json").read_bytes().startswith(b'[\n  {')


# --------------------------------------------------------------------------- atif
def _x(**kw: Any) -> dict[str, Any]:
    """A Forsy step's fields ATIF has no place for (non-null), as extra.forsy_steps holds them."""
    return {"turn": 1, "actor": "agent", "action": "agent_step", "eval": 0, **kw}


def _acall(n: int, name: str, args: dict[str, Any], **extra: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"tool_call_id": f"call_{n}", "function_name": name, "arguments": args}
    if extra:
        out["extra"] = extra
    return out


def _res(n: int, content: str) -> dict[str, Any]:
    return {"source_call_id": f"call_{n}", "content": content}


ATIF_STEPS = [
    {"step_id": 1, "source": "system", "message": "be brief"},
    {"step_id": 2, "source": "user", "message": "fix it", "timestamp": T0,
     "extra": {"forsy_steps": [_x(actor="user", action="user_message", message_role="direct_request",
                                  started_at=T0, input_source={"actor": "user", "source_step": None,
                                                               "source_field": None, "note": None})]}},
    {"step_id": 3, "source": "agent", "message": "", "tool_calls": [_acall(2, "Read", {"file_path": "a.py"})],
     "observation": {"results": [_res(2, "print(1)")]}, "reasoning_content": "look first",
     "timestamp": "2026-01-01T00:00:01.5Z",
     "extra": {"forsy_steps": [_x(operation="read", success=True, started_at="2026-01-01T00:00:01.5Z",
                                  ended_at="2026-01-01T00:00:02Z")]}},
    {"step_id": 4, "source": "agent", "message": "",
     "tool_calls": [_acall(3, "Bash", {"input": "ls -la"}, raw_input=True), _acall(4, "Grep", {}, no_input=True)],
     "observation": {"results": [_res(3, "a.py")]}, "reasoning_content": "list",
     "extra": {"forsy_steps": [_x(execution_mode="parallel", parallel_group="g1", success=False),
                               _x(execution_mode="parallel", parallel_group="g1")]}},
    {"step_id": 5, "source": "agent", "message": "", "tool_calls": [_acall(5, "Task", {"prompt": "go"})],
     "observation": {"results": [_res(5, "sub done")]}, "extra": {"forsy_steps": [_x(caused_by=[1])]}},
    {"step_id": 6, "source": "agent", "message": "",
     "tool_calls": [_acall(6, "Read", {"input": READ_B}, raw_input=True)], "observation": {"results": [_res(6, "b")]},
     "extra": {"forsy_steps": [_x(actor="subagent:a1", caused_by=[5], causal_type="delegation_to_subagent")]}},
    {"step_id": 7, "source": "agent", "message": "all fixed", "reasoning_content": "thinking",
     "extra": {"forsy_steps": [_x(action="output", eval=1)]}},
    {"step_id": 8, "source": "system", "message": "compacted",
     "extra": {"forsy_steps": [_x(actor="system", action="output")]}},
    {"step_id": 9, "source": "agent", "message": "", "reasoning_content": "hmm",
     "extra": {"forsy_steps": [_x(action="output")]}},
    {"step_id": 10, "source": "agent", "message": "boom",
     "extra": {"forsy_steps": [_x(action="error", success=False, retry_of=3)]}},
    {"step_id": 11, "source": "system", "message": "hook said",
     "extra": {"forsy_steps": [_x(actor="system:hook", action="output")]}},
    {"step_id": 12, "source": "user", "message": "thanks",
     "extra": {"forsy_steps": [_x(turn=2, actor="user", action="user_message")]}},
]


def test_atif_trajectory_of_every_kind_of_step() -> None:
    t = rich()
    doc = trajectory(bundle(t, man=True))
    assert doc == {"schema_version": "ATIF-v1.8", "trajectory_id": "forsy_x", "session_id": "sess-1",
                   "agent": {"name": "claude-code", "version": "1.2", "model_name": "opus"},
                   "steps": ATIF_STEPS, "extra": {"forsy": _top(t)}}
    assert "session_id" not in trajectory(bundle(t))
    b = bundle(t)
    b.manifest = manifest("forsy_x", session_id="")
    assert "session_id" not in trajectory(b)


def test_atif_edge_steps_and_an_agent_it_does_not_know() -> None:
    t = trace("forsy_e", [
        step(1, actor="user", action="user_message", input=None, turn=1),
        step(2, actor="system", output=None),
        step(3, output=None),
        step(4, action="agent_step", tool="T", input="{}", output=None, parallel_group="p"),
        step(5, action="agent_step", tool="T", input="{}", output="r5", parallel_group="p"),
        step(6, action="agent_step", tool="T", input="{}", output="r6", parallel_group="p", actor="subagent:z"),
    ], agent_config={"model": ""})
    doc = trajectory(bundle(t))
    assert doc["agent"] == {"name": "unknown", "version": "unknown"}
    assert [(s["step_id"], s["source"], s["message"]) for s in doc["steps"]] == [
        (1, "user", ""), (2, "system", ""), (3, "agent", ""), (4, "agent", ""), (5, "agent", "")]
    assert "reasoning_content" not in doc["steps"][2]
    grouped = doc["steps"][3]
    assert [c["tool_call_id"] for c in grouped["tool_calls"]] == ["call_4", "call_5"]
    assert grouped["observation"] == {"results": [_res(5, "r5")]}  # no result: no observation result
    assert [x["parallel_group"] for x in grouped["extra"]["forsy_steps"]] == ["p", "p"]
    assert doc["steps"][4]["tool_calls"][0]["tool_call_id"] == "call_6"
    calls = trace("forsy_c", [step(1, action="agent_step", tool="T", input="{}", output="a"),
                              step(2, action="agent_step", tool="T", input="{}", output="b")])
    assert [[c["tool_call_id"] for c in s["tool_calls"]] for s in trajectory(bundle(calls))["steps"]] == [
        ["call_1"], ["call_2"]]  # calls of no parallel group: a step each
    assert trajectory(bundle(trace("forsy_f", agent_config=None)))["agent"] == {"name": "unknown",
                                                                                "version": "unknown"}


def test_atif_one_trace_is_a_file_several_a_folder(tmp_path: Path) -> None:
    a, b = rich(), trace("forsy_y", [step(1, output="a")])
    res = export([bundle(a)], "atif", tmp_path / "a.json")
    raw = (tmp_path / "a.json").read_bytes()
    assert raw.startswith(b'{\n  "schema_version"') and raw.endswith(b"}\n")
    assert json.loads(raw) == trajectory(bundle(a))
    by = {f.field: f for f in res.report.fields}
    assert [f for f, x in by.items() if x.lost] == []  # no manifest, no provenance: nothing lost
    export([bundle(a), bundle(b)], "atif", tmp_path / "many")
    assert json.loads((tmp_path / "many" / "forsy_y.json").read_bytes()) == trajectory(bundle(b))
    assert (tmp_path / "many" / "forsy_y.json").read_bytes().endswith(b"}\n")


def test_atif_declares_where_each_field_goes() -> None:
    cov = coverage_of("atif")
    assert {f for f, c in cov.items() if c.fate == "dropped"} == {"manifest", "provenance"}
    assert {f for f, c in cov.items() if c.fate == "transformed"} == {"steps.step", "steps.input"}
    assert cov["memory"].how == "the trajectory's extra.forsy" and cov["task"].how.startswith("the first user step")
    assert cov["steps.eval"].how == "extra.forsy_steps[] of the ATIF step"
    assert {f for f, c in cov.items() if c.back} == {
        "system_prompt", "task", "steps.tool", "steps.output", "steps.reasoning", "steps.started_at", "steps.input",
        "steps.actor", "steps.success", "steps.ended_at", "steps.turn"}
