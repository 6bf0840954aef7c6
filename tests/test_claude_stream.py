"""Claude Code's print-mode stream (`claude -p --output-format stream-json --verbose`) and the
same messages saved as one JSON array (`--output-format json --verbose`, claude-code-action's
execution file): read as Claude Code's work.

The messages follow the writer as the Agent SDK parses them (anthropics/claude-agent-sdk-python
e8bde60, `_internal/message_parser.py`, `types.py`) and a recorded v2.0.62 schema of the stream:
`session_id` (not `sessionId`), no times, `parent_tool_use_id` on a subagent's messages,
`tool_use_result`, one `result` a turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import forsy
from forsy.sources import ReadContext, detect
from forsy.sources.claude_code import ClaudeCodeSource

SID = "3f1c2a4e-8d7b-4c1a-9e2f-0a1b2c3d4e5f"
MODEL = "claude-sonnet-4-5-20250929"


def _id(n: int) -> str:
    return f"0b6a0c1e-1111-4a2b-8c3d-{n:012d}"


def init() -> dict[str, Any]:
    return {"type": "system", "subtype": "init", "cwd": "/repo", "session_id": SID, "tools": ["Bash", "Read", "Task"],
            "mcp_servers": [], "model": MODEL, "permissionMode": "default", "slash_commands": [],
            "apiKeySource": "none", "claude_code_version": "2.1.90", "output_style": "default", "uuid": _id(1)}


def assistant(n: int, msg_id: str, block: dict[str, Any], parent: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"type": "assistant", "message": {"model": MODEL, "id": msg_id, "type": "message", "role": "assistant",
                                             "content": [block], "stop_reason": None, "usage": {"input_tokens": 3,
                                                                                                "output_tokens": 9}},
            "parent_tool_use_id": parent, "session_id": SID, "uuid": _id(n), **extra}


def user(n: int, content: Any, parent: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": content}, "parent_tool_use_id": parent,
            "session_id": SID, "uuid": _id(n), **extra}


def tool_use(tid: str, name: str, inp: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": name, "input": inp}


def tool_result(tid: str, text: str, err: bool = False) -> list[dict[str, Any]]:
    return [{"tool_use_id": tid, "type": "tool_result", "content": text, "is_error": err}]


def result(n: int, subtype: str = "success", **extra: Any) -> dict[str, Any]:
    return {"type": "result", "subtype": subtype, "duration_ms": 12040, "duration_api_ms": 11020,
            "is_error": subtype != "success", "num_turns": 4, "session_id": SID, "total_cost_usd": 0.0123,
            "usage": {"input_tokens": 9, "output_tokens": 68}, "modelUsage": {}, "permission_denials": [],
            "uuid": _id(n), **extra}


def run_stream(ending: dict[str, Any]) -> list[dict[str, Any]]:
    """The agent runs the tests (they fail), hands the search to a subagent, which hands part
    of it to a nested one, then answers."""
    return [
        init(),
        {"type": "system", "subtype": "hook_started", "hook_name": "SessionStart:startup", "session_id": SID,
         "uuid": _id(2)},
        assistant(3, "msg_A", {"type": "text", "text": "I'll run the tests first."}),
        assistant(4, "msg_A", tool_use("toolu_1", "Bash", {"command": "pytest -q"})),
        user(5, tool_result("toolu_1", "1 failed, 3 passed", err=True), tool_use_result="Error: 1 failed, 3 passed"),
        {"type": "stream_event", "event": {"type": "content_block_delta", "index": 0,
                                           "delta": {"type": "text_delta", "text": "Let"}},
         "parent_tool_use_id": None, "session_id": SID, "uuid": _id(6)},
        assistant(7, "msg_B", tool_use("toolu_2", "Task", {"description": "find", "prompt": "Find the failing test."})),
        user(8, [{"type": "text", "text": "Find the failing test."}], parent="toolu_2"),
        assistant(9, "msg_C", tool_use("toolu_3", "Task", {"description": "grep", "prompt": "Grep for assert."}),
                  parent="toolu_2"),
        user(10, [{"type": "text", "text": "Grep for assert."}], parent="toolu_3"),
        assistant(11, "msg_D", tool_use("toolu_4", "Bash", {"command": "grep -n assert test_x.py"}), parent="toolu_3"),
        user(12, tool_result("toolu_4", "2:    assert 1 == 2"), parent="toolu_3"),
        assistant(13, "msg_E", {"type": "text", "text": "Line 2 of test_x.py."}, parent="toolu_3"),
        user(14, tool_result("toolu_3", "Line 2 of test_x.py."), parent="toolu_2",
             tool_use_result={"status": "completed", "agentId": "a9f3", "content": []}),
        assistant(15, "msg_F", {"type": "text", "text": "test_x.py line 2 asserts 1 == 2."}, parent="toolu_2"),
        user(16, tool_result("toolu_2", "test_x.py line 2 asserts 1 == 2."),
             tool_use_result={"status": "completed", "agentId": "a1b2", "content": []}),
        {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}, "session_id": SID, "uuid": _id(17)},
        assistant(18, "msg_G", {"type": "text", "text": "The test asserts 1 == 2; it is wrong."}),
        ending,
    ]


def _write(path: Path, messages: list[dict[str, Any]], array: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if array:
        path.write_text(json.dumps(messages, indent=2))
    else:
        path.write_text("".join(json.dumps(m) + "\n" for m in messages))
    return path


def _trace(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    out = path.parent / "out"
    run = forsy.retrace([path], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(out, parent=True))
    [o] = run.outcomes
    assert o.status == "written", o.message
    folder = Path(str(o.where))
    assert forsy.validate(folder).ok
    check = forsy.verify(folder, [path])
    assert check.ok, check
    return json.loads((folder / "trace.json").read_text()), json.loads((folder / "manifest.json").read_text())


@pytest.mark.parametrize("array", [False, True], ids=["stream-json", "json-array"])
def test_a_print_mode_run_is_read_as_claude_codes_work(tmp_path: Path, array: bool) -> None:
    log = _write(tmp_path / "run.json", run_stream(result(19, result="The test asserts 1 == 2; it is wrong.")), array)
    assert detect(log).name == "claude_code"
    trace, manifest = _trace(log)
    steps = [(s["actor"], s["action"], s["tool"], s["input"], s["success"]) for s in trace["steps"]]
    assert steps == [
        ("agent", "agent_step", "Bash", '{"command":"pytest -q"}', False),
        ("agent", "agent_step", "Task", '{"description":"find","prompt":"Find the failing test."}', True),
        ("subagent:a1b2", "agent_step", "Task", '{"description":"grep","prompt":"Grep for assert."}', True),
        ("subagent:a9f3", "agent_step", "Bash", '{"command":"grep -n assert test_x.py"}', True),
        ("subagent:a9f3", "output", None, None, True),
        ("subagent:a1b2", "output", None, None, True),
        ("agent", "output", None, None, True),
    ]
    by_tool = {s["input"]: s for s in trace["steps"] if s["tool"]}
    nested = by_tool['{"command":"grep -n assert test_x.py"}']
    assert by_tool['{"description":"grep","prompt":"Grep for assert."}']["step"] in nested["caused_by"]
    assert trace["steps"][0]["reasoning"] == "I'll run the tests first."
    assert trace["final_output"] == "The test asserts 1 == 2; it is wrong."
    assert trace["termination_reason"] == "task_complete"  # success: the steps say how it ended
    cfg = trace["agent_config"]
    assert (cfg["agent_version"], cfg["model"], cfg["working_directory"]) == ("2.1.90", MODEL, "/repo")
    assert cfg["run_result"] == {"subtype": "success", "num_turns": 4, "total_cost_usd": 0.0123, "duration_ms": 12040}
    assert trace["agent_tools"] == ["Bash", "Read", "Task"]
    [ledger] = manifest["ledger"]
    assert ledger["records_read"] == 19 and ledger["totals"]["unknown"] == 0
    set_aside = {(e["record_type"], e["rule"]) for e in ledger["entries"] if e["heading"] == "set_aside"}
    assert set_aside == {("system/hook_started", "system notices of the stream are not steps"),
                         ("stream_event", "partial message deltas (the whole message follows)"),
                         ("rate_limit_event", "rate limit status"),
                         ("user/subagent_prompt", "notes are not steps")}  # as in a transcript


@pytest.mark.parametrize(("ending", "reason", "cited"), [
    (result(19, "error_max_turns", errors=["Reached maximum number of turns (4)"]), "partial_then_stopped", "/subtype"),
    (result(19, "error_max_budget_usd"), "partial_then_stopped", "/subtype"),
    (result(19, "error_during_execution", errors=["boom"]), "error_unrecoverable", "/subtype"),
    (result(19, terminal_reason="aborted_tools"), "user_abandoned", "/terminal_reason"),
])
def test_the_last_result_says_how_the_run_ended(tmp_path: Path, ending: dict[str, Any], reason: str,
                                                cited: str) -> None:
    log = _write(tmp_path / "run.jsonl", run_stream(ending))
    trace, _ = _trace(log)
    assert trace["termination_reason"] == reason
    prov = json.loads((next((tmp_path / "out").iterdir()) / "provenance.json").read_text())
    how = prov["trace_fields"]["termination_reason"]
    assert how["rule"] == "T-termination/declared" and how["evidence"][0]["pointer"] == cited


def test_an_api_error_and_a_synthetic_prompt_are_claude_codes_not_the_models_or_the_persons(tmp_path: Path) -> None:
    messages = [
        init(),
        user(2, [{"type": "text", "text": "Base directory for this skill: /repo/.claude/skills/x"}], isSynthetic=True),
        assistant(3, "msg_A", {"type": "text", "text": "API Error: 529 Overloaded"}, error="server_error"),
        result(4, is_error=True, result="API Error: 529 Overloaded", terminal_reason="api_error"),
    ]
    [s] = ClaudeCodeSource().read(_write(tmp_path / "run.jsonl", messages), ReadContext(root=tmp_path))
    kinds = [(e.kind, e.actor) for e in s.events]
    assert ("user", "user") not in kinds
    [said] = [e for e in s.events if e.kind == "agent_text"]
    assert said.info is not None and getattr(said.info, "api_error", False)


def test_a_transcript_is_not_taken_for_a_stream(tmp_path: Path) -> None:
    from _small_logs import answer, write
    from _small_logs import user as t_user
    log = write(tmp_path / "s.jsonl", [t_user(0, "u1", None, "Hi, my session_id is x"), answer(1, "a1", "u1", "Hi.")])
    [s] = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))
    assert [e.kind for e in s.events] == ["user", "agent_text"]
