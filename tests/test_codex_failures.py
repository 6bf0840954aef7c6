"""Each way Codex records a failure, alone in a hand-built rollout, read as a failure.

One call per failure kind, each with an output whose text says nothing of a failure (no
exit header, none of Codex's failure messages), so only the signal under test can fail it:
`exec_command_end` with a nonzero `exit_code`; a `function_call_output` whose JSON metadata
states an exit code, or whose early object form says `success: false`; `patch_apply_end`
with `success: false`; `mcp_tool_call_end` with an `Err` result, or an `Ok` result flagged
`isError`. Then the turn-level records: `event_msg` error (a system note with its message)
and `turn_aborted` (interrupted: an interrupt that ends the trace as the user's; any other
reason: a note). The shapes are the Rust recorder's (codex-rs protocol `EventMsg`,
`FunctionCallOutputPayload`), as docs/sources.md lists them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from _oracle import checked_traces
from forsy.cli import app
from forsy.evidence import Event, Session
from forsy.payloads import NoteInfo, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource

ID = "019e6b20-0000-7000-8000-00000000cccc"
NAME = f"rollout-2026-07-01T09-00-00-{ID}.jsonl"
TS = "2026-07-01T09:00:{:02d}.000Z"


def _item(p: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response_item", "payload": p}


def _msg(p: dict[str, Any]) -> dict[str, Any]:
    return {"type": "event_msg", "payload": p}


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return _item({"type": "function_call", "name": name, "arguments": json.dumps(args), "call_id": call_id})


def _output(call_id: str, output: Any) -> dict[str, Any]:
    return _item({"type": "function_call_output", "call_id": call_id, "output": output})


PROMPT = "Run the checks and tell me what broke"
RECORDS: list[dict[str, Any]] = [
    {"type": "session_meta", "payload": {"id": ID, "timestamp": TS.format(0), "cwd": "/home/dev/app",
                                         "originator": "codex_cli_rs", "cli_version": "0.60.0"}},
    {"type": "turn_context", "payload": {"cwd": "/home/dev/app", "model": "gpt-5-codex", "turn_id": "t1"}},
    _item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": PROMPT}]}),
    _msg({"type": "user_message", "message": PROMPT, "images": []}),
    # 1. unified exec: the output holds no exit code; exec_command_end states 3
    _call("c_exec", "exec_command", {"cmd": "make check"}),
    _msg({"type": "exec_command_end", "call_id": "c_exec", "exit_code": 3,
          "duration": {"secs": 1, "nanos": 500000000}}),
    _output("c_exec", "Chunk ID: 1a2b\nOutput:\nchecking...\n"),
    # 2. the output's JSON metadata states exit code 1
    _call("c_meta", "shell", {"command": ["bash", "-lc", "pytest -q"]}),
    _output("c_meta", json.dumps({"output": "collected 4 items\n", "metadata": {"exit_code": 1,
                                                                                "duration_seconds": 0.7}})),
    # 3. the early object form {content, success: false}
    _call("c_obj", "shell", {"command": ["bash", "-lc", "ls build"]}),
    _output("c_obj", {"content": "build listing", "success": False}),
    # 4. apply_patch: its output text is neutral, patch_apply_end says it failed
    _item({"type": "custom_tool_call", "status": "completed", "call_id": "c_patch", "name": "apply_patch",
           "input": "*** Begin Patch\n*** Update File: app.py\n@@\n-a\n+b\n*** End Patch"}),
    _msg({"type": "patch_apply_end", "call_id": "c_patch", "stdout": "", "stderr": "", "success": False}),
    _item({"type": "custom_tool_call_output", "call_id": "c_patch", "output": "patch not applied"}),
    # 5. an MCP call whose end event carries an Err result
    _call("c_mcp", "docs__lookup", {"symbol": "x"}),
    _msg({"type": "mcp_tool_call_end", "call_id": "c_mcp",
          "invocation": {"server": "docs", "tool": "lookup", "arguments": {"symbol": "x"}},
          "result": {"Err": "tool call failed: connection refused"}}),
    _output("c_mcp", "no answer"),
    # 6. an MCP call whose Ok result is flagged isError
    _call("c_mcp_ok", "docs__search", {"q": "y"}),
    _msg({"type": "mcp_tool_call_end", "call_id": "c_mcp_ok",
          "invocation": {"server": "docs", "tool": "search", "arguments": {"q": "y"}},
          "result": {"Ok": {"content": [{"type": "text", "text": "index missing"}], "isError": True}}}),
    _output("c_mcp_ok", "index missing"),
    _msg({"type": "error", "message": "stream disconnected before completion: error sending request"}),
    _msg({"type": "turn_aborted", "turn_id": "t1", "reason": "replaced"}),
    _msg({"type": "turn_aborted", "turn_id": "t1", "reason": "interrupted"}),
]
FAILED = ["c_exec", "c_meta", "c_obj", "c_patch", "c_mcp", "c_mcp_ok"]


def _write(folder: Path, records: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / NAME
    lines = [json.dumps({"timestamp": TS.format(i), **r}) for i, r in enumerate(records)]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _read(path: Path) -> Session:
    [s] = CodexSource().read(path, ReadContext(root=path.parent))
    return s


def _results(s: Session) -> dict[str, Event]:
    return {str(e.call_id): e for e in s.events if e.kind == "tool_result"}


def _info(e: Event) -> ResultInfo:
    assert isinstance(e.info, ResultInfo)
    return e.info


def test_each_failed_call_is_an_error_read_from_its_own_signal(tmp_path: Path) -> None:
    res = _results(_read(_write(tmp_path, RECORDS)))
    assert list(res) == FAILED
    assert all(res[c].is_error is True for c in FAILED)
    assert all(_info(res[c]).failure_rule is None for c in FAILED)  # no failure text: the flag alone
    exec_, meta = _info(res["c_exec"]), _info(res["c_meta"])
    assert (exec_.exit_code, exec_.duration_s) == (3, 1.5)
    assert exec_.exit_code_from is not None and exec_.exit_code_from.pointer == "/payload/exit_code"
    assert exec_.duration_from is not None and exec_.duration_from.pointer == "/payload/duration"
    assert (meta.exit_code, meta.duration_s, res["c_meta"].text) == (1, 0.7, "collected 4 items\n")
    assert (res["c_obj"].text, _info(res["c_obj"]).exit_code) == ("build listing", None)
    for c, end in (("c_patch", "/payload/success"), ("c_mcp", "/payload/result"), ("c_mcp_ok", "/payload/result")):
        src = _info(res[c]).success_from
        assert src is not None and src.pointer == end, c
        assert _info(res[c]).exit_code is None
    tools = [e.tool for e in _read(tmp_path / NAME).events if e.kind == "tool_call"]
    assert tools == ["exec_command", "shell", "shell", "apply_patch", "mcp:docs.lookup", "mcp:docs.search"]


def test_the_same_calls_without_their_failure_signal_are_not_errors(tmp_path: Path) -> None:
    """The control: each signal turned to success reads as success (or as unknown where the
    log then says nothing), so the errors above come from the signal, not the shape."""
    ok = json.loads(json.dumps(RECORDS))
    ok[5]["payload"]["exit_code"] = 0
    ok[8]["payload"]["output"] = json.dumps({"output": "collected 4 items\n", "metadata": {"exit_code": 0}})
    ok[10]["payload"]["output"]["success"] = True
    ok[12]["payload"]["success"] = True
    ok[15]["payload"]["result"] = {"Ok": {"content": []}}
    ok[18]["payload"]["result"]["Ok"]["isError"] = False
    res = _results(_read(_write(tmp_path, ok)))
    assert [(c, res[c].is_error) for c in FAILED] == [
        ("c_exec", False), ("c_meta", False), ("c_obj", False), ("c_patch", False), ("c_mcp", None),
        ("c_mcp_ok", False),
    ]  # fmt: skip


def test_error_event_and_aborted_turns(tmp_path: Path) -> None:
    s = _read(_write(tmp_path, RECORDS))
    tail = [e for e in s.events if e.kind in ("note", "interrupt")]
    got = [(e.kind, e.actor, e.text, e.refs[0].pointer, e.info.subtype if isinstance(e.info, NoteInfo) else None,
            getattr(e.info, "reason", None)) for e in tail]
    assert got == [
        ("note", "system", "stream disconnected before completion: error sending request", "/payload/message",
         "error", None),
        ("note", "system", None, "/payload/reason", "turn_aborted", "replaced"),
        ("interrupt", "user", None, "/payload/reason", None, "interrupted"),
    ]  # fmt: skip
    assert [s.evidence[e.refs[0].ev].line for e in tail] == [21, 22, 23]  # 1-based


def test_the_trace_fails_each_call_and_ends_as_the_users(tmp_path: Path) -> None:
    path = _write(tmp_path / "in", RECORDS)
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["retrace", str(path), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    [trace] = checked_traces(out, path)
    prov = json.loads((out / "provenance.json").read_text("utf-8"))
    steps = [(s["success"], s.get("eval"), p["fields"]["success"]["rule"])
             for s, p in zip(trace["steps"], prov["steps"], strict=True) if s.get("tool")]
    assert steps == [(False, -1, "R-call/error-flag")] * len(FAILED)
    assert trace["termination_reason"] == "user_abandoned"
    [f] = json.loads((out / "manifest.json").read_text("utf-8"))["ledger"]
    assert f["totals"]["unknown"] == 0 and sum(f["totals"].values()) == f["records_read"] == len(RECORDS)
    marks = {(e["record_type"], e["heading"], e["rule"], e["count"]) for e in f["entries"]
             if e["record_type"].startswith(("event_msg:error", "event_msg:turn", "event_msg:exec",
                                             "event_msg:patch", "event_msg:mcp"))}
    # the end events gave the failures: read for them, not set aside as repeats of their calls
    end = "exit code, duration or success of the call it ends"
    assert marks == {
        ("event_msg:exec_command_end", "metadata", end, 1), ("event_msg:patch_apply_end", "metadata", end, 1),
        ("event_msg:mcp_tool_call_end", "metadata", end, 2),
        ("event_msg:error/error", "set_aside", "notes are not steps", 1),
        ("event_msg:turn_aborted/turn_aborted", "set_aside", "notes are not steps", 1),
        ("event_msg:turn_aborted/turn_aborted", "set_aside",
         "the user interrupted the turn (an interrupt, not a step)", 1),
    }  # fmt: skip


def test_an_mcp_results_flag_in_snake_case_is_read_too(tmp_path: Path) -> None:
    records = json.loads(json.dumps(RECORDS))
    ok = records[18]["payload"]["result"]["Ok"]
    del ok["isError"]
    for flag, want in ((True, True), (False, False)):
        ok["is_error"] = flag
        assert _results(_read(_write(tmp_path, records)))["c_mcp_ok"].is_error is want
