"""Gemini CLI model messages read whole: thoughts, text, every tool call with its result
linked (`functionResponse.response.output` / `.error`), failures (status, the shell tool's
`Exit Code: N`), declined calls, models and token counts; each event with every field.

Hand-written lines in the shapes chatRecordingService.ts writes (ToolCallRecord: id, name,
args, result, status, timestamp); expectations computed by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _gemini_view import ev, events, ledger, read, warnings, write_lines
from forsy.payloads import ResultInfo
from forsy.sources.gemini._jsonl import HEADER_WHY

T = "2026-01-01T00:00:0{}Z".format
HEAD = {"sessionId": "s-g", "projectHash": "h"}
SHELL = "run_shell_command"


def fr(**response: Any) -> dict[str, Any]:
    return {"functionResponse": {"id": "x", "name": "n", "response": response}}


def call(cid: str | None, name: str | None, status: str | None, result: Any, **more: Any) -> dict[str, Any]:
    tc: dict[str, Any] = {"args": {"for": cid}, **more}
    for k, v in (("id", cid), ("name", name), ("status", status), ("result", result)):
        if v is not None:
            tc[k] = v
    return tc


def test_thoughts_text_calls_results_failures_models_tokens(tmp_path: Path) -> None:
    denied = "[Operation Cancelled] Reason: User denied execution."
    p = write_lines(tmp_path / "g.jsonl", [
        HEAD,
        {"id": "g1", "timestamp": T(1), "type": "gemini", "model": "m1",
         "tokens": {"input": 10, "output": 3, "cached": 1, "thoughts": 2, "tool": 0, "total": 16, "extra": 9},
         "thoughts": [{"subject": "Plan", "description": "read files", "timestamp": T(0)},
                      {"subject": " ", "description": "no time"}, "junk",
                      {"subject": 5, "description": "late", "timestamp": 9}],
         "content": [{"text": "hidden", "thought": True}, {"text": "visible"}, {"text": "also", "thought": False}],
         "toolCalls": [
             call("c0", "read_file", "success", [fr(output="A")], timestamp=T(2)),
             call("c1", "write_file", "error", [fr(error="denied by policy")]),
             7,
             call("c3", SHELL, "cancelled", [fr(error=denied)], timestamp=T(3)),
         ]},
        {"id": "g2", "timestamp": T(4), "type": "gemini", "model": "m1", "content": "",
         "tokens": {"input": 1, "total": True, "output": "x", "cached": None},
         "toolCalls": [
             call("s0", SHELL, "success", [fr(output="Command: false\nExit Code: 2")]),
             call("s1", SHELL, "error", [fr(error="Exit Code: 1"), {"text": "more"}, {"text": " "}, "p"]),
             call("s2", "read_file", "success", [fr(output="Exit Code: 5")]),
             call(None, None, None, None),
             call("s4", "grep", "error", [fr(output=3, error="bad"), {"functionResponse": 1}]),
             call("s5", "grep", "error", [fr(output="o", error="e")]),
             call("s6", SHELL, "cancelled", [fr(error="[Operation Cancelled] Reason: timeout\nExit Code: 1")]),
         ]},
        {"id": "g3", "timestamp": T(5), "type": "gemini", "model": 5, "content": [{"text": "x", "thought": "yes"}],
         "toolCalls": "none"},
        {"id": "g4", "timestamp": T(6), "type": "gemini", "model": "m2", "thoughts": "none", "content": "bye"},
    ])
    s = read(p)
    line3 = next(e.id for e in s.evidence.values() if e.line == 3)

    def r1(ptr: str) -> tuple[int, str]:
        return (2, ptr)

    def r2(ptr: str) -> tuple[int, str]:
        return (3, ptr)

    resp = "/toolCalls/{}/result/{}/functionResponse/response/{}".format
    assert events(s) == [
        ev("reasoning", "agent", T(0), [r1("/thoughts/0/subject")], text="Plan", ts_ref=r1("/thoughts/0/timestamp")),
        ev("reasoning", "agent", T(0), [r1("/thoughts/0/description")], text="read files",
           ts_ref=r1("/thoughts/0/timestamp")),
        ev("reasoning", "agent", T(1), [r1("/thoughts/1/description")], text="no time", ts_ref=r1("/timestamp")),
        ev("reasoning", "agent", T(1), [r1("/thoughts/3/description")], text="late", ts_ref=r1("/timestamp")),
        ev("reasoning", "agent", T(1), [r1("/content/0/text")], text="hidden", ts_ref=r1("/timestamp")),
        ev("agent_text", "agent", T(1), [r1("/content/1/text")], text="visible", ts_ref=r1("/timestamp")),
        ev("agent_text", "agent", T(1), [r1("/content/2/text")], text="also", ts_ref=r1("/timestamp")),
        # the first call to complete began when its message asked for it; the others' start is not known
        ev("tool_call", "agent", T(1), [r1("/toolCalls/0/args")], call_id="c0", tool="read_file",
           args={"for": "c0"}, group="g1", ts_ref=r1("/timestamp"), name_ref=r1("/toolCalls/0/name")),
        ev("tool_result", "agent", T(2), [r1(resp(0, 0, "output"))], text="A", call_id="c0", tool="read_file",
           is_error=False, ts_ref=r1("/toolCalls/0/timestamp"), info=ResultInfo()),
        ev("tool_call", "agent", T(1), [r1("/toolCalls/1/args")], call_id="c1", tool="write_file",
           args={"for": "c1"}, group="g1", ts_ref=r1("/timestamp"), name_ref=r1("/toolCalls/1/name")),
        ev("tool_result", "agent", T(1), [r1(resp(1, 0, "error"))], text="denied by policy", call_id="c1",
           tool="write_file", is_error=True, ts_ref=r1("/timestamp"), info=ResultInfo()),
        ev("tool_call", "agent", T(3), [r1("/toolCalls/3/args")], call_id="c3", tool=SHELL,
           args={"for": "c3"}, group="g1", ts_ref=r1("/toolCalls/3/timestamp"), name_ref=r1("/toolCalls/3/name")),
        ev("tool_result", "agent", T(3), [r1(resp(3, 0, "error"))], text=denied, call_id="c3", tool=SHELL,
           is_error=True, ts_ref=r1("/toolCalls/3/timestamp"), info=ResultInfo(rejected=True)),
        # g2: its calls have no time of their own: the message's
        ev("tool_call", "agent", T(4), [r2("/toolCalls/0/args")], call_id="s0", tool=SHELL,
           args={"for": "s0"}, group="g2", ts_ref=r2("/timestamp"), name_ref=r2("/toolCalls/0/name")),
        ev("tool_result", "agent", T(4), [r2(resp(0, 0, "output"))], text="Command: false\nExit Code: 2",
           call_id="s0", tool=SHELL, is_error=True, ts_ref=r2("/timestamp"),
           info=ResultInfo(exit_code=2, failure_rule="R-call/gemini-exit-code")),
        ev("tool_call", "agent", T(4), [r2("/toolCalls/1/args")], call_id="s1", tool=SHELL,
           args={"for": "s1"}, group="g2", ts_ref=r2("/timestamp"), name_ref=r2("/toolCalls/1/name")),
        ev("tool_result", "agent", T(4), [r2(resp(1, 0, "error")), r2("/toolCalls/1/result/1/text")],
           text="Exit Code: 1\nmore", call_id="s1", tool=SHELL, is_error=True, ts_ref=r2("/timestamp"),
           info=ResultInfo(exit_code=1)),
        ev("tool_call", "agent", T(4), [r2("/toolCalls/2/args")], call_id="s2", tool="read_file",
           args={"for": "s2"}, group="g2", ts_ref=r2("/timestamp"), name_ref=r2("/toolCalls/2/name")),
        ev("tool_result", "agent", T(4), [r2(resp(2, 0, "output"))], text="Exit Code: 5", call_id="s2",
           tool="read_file", is_error=False, ts_ref=r2("/timestamp"), info=ResultInfo()),
        ev("tool_call", "agent", T(4), [r2("/toolCalls/3/args")], call_id=f"{line3}:3", args={"for": None},
           group="g2", ts_ref=r2("/timestamp")),
        ev("tool_call", "agent", T(4), [r2("/toolCalls/4/args")], call_id="s4", tool="grep",
           args={"for": "s4"}, group="g2", ts_ref=r2("/timestamp"), name_ref=r2("/toolCalls/4/name")),
        ev("tool_result", "agent", T(4), [r2(resp(4, 0, "error"))], text="bad", call_id="s4", tool="grep",
           is_error=True, ts_ref=r2("/timestamp"), info=ResultInfo()),
        ev("tool_call", "agent", T(4), [r2("/toolCalls/5/args")], call_id="s5", tool="grep",
           args={"for": "s5"}, group="g2", ts_ref=r2("/timestamp"), name_ref=r2("/toolCalls/5/name")),
        ev("tool_result", "agent", T(4), [r2(resp(5, 0, "output")), r2(resp(5, 0, "error"))], text="o\ne",
           call_id="s5", tool="grep", is_error=True, ts_ref=r2("/timestamp"), info=ResultInfo()),
        ev("tool_call", "agent", T(4), [r2("/toolCalls/6/args")], call_id="s6", tool=SHELL,
           args={"for": "s6"}, group="g2", ts_ref=r2("/timestamp"), name_ref=r2("/toolCalls/6/name")),
        ev("tool_result", "agent", T(4), [r2(resp(6, 0, "error"))],
           text="[Operation Cancelled] Reason: timeout\nExit Code: 1", call_id="s6", tool=SHELL, is_error=True,
           ts_ref=r2("/timestamp"), info=ResultInfo(exit_code=1)),
        ev("agent_text", "agent", T(5), [(4, "/content/0/text")], text="x", ts_ref=(4, "/timestamp")),
        ev("agent_text", "agent", T(6), [(5, "/content")], text="bye", ts_ref=(5, "/timestamp")),
    ]
    assert s.meta.models == ["m1", "m2"]
    assert s.meta.token_usage == {"input": 11, "output": 3, "cached": 1, "thoughts": 2, "tool": 0, "total": 16}
    assert s.quality.missing_results == 1 and s.quality.extra == {"rejected_calls": 1}
    assert ledger(s) == {1: ("metadata", HEADER_WHY, "header")}
    assert warnings(s) == [
        ("field-type", "toolCalls[2] is not an object; skipped", "g.jsonl", 2),
        ("no-result", f"tool call {line3}:3 (None) has no result output (status None)", "g.jsonl", 3),
        ("field-type", "model is int, not text; read as absent", "g.jsonl", 4),
    ]


def test_a_successful_command_of_a_2025_cli_is_no_failure(tmp_path: Path) -> None:
    """From July 2025 to January 2026 the shell tool wrote `Exit Code: 0` for every command
    that succeeded (shell.ts: `Exit Code: ${result.exitCode ?? '(none)'}`); it was read as a
    failure of the command (the exit-code rule fired on 0)."""
    out = "Command: ls\nDirectory: (root)\nOutput: a.py\nError: (none)\nExit Code: 0\nSignal: (none)"
    p = write_lines(tmp_path / "z.jsonl", [HEAD, {"id": "g", "timestamp": T(1), "type": "gemini", "content": "",
                                                  "toolCalls": [call("z", SHELL, "success", [fr(output=out)])]}])
    [_, result] = read(p).events
    assert (result.is_error, result.info) == (False, ResultInfo(exit_code=0))


def test_a_message_with_a_named_tool_of_a_message_without_id_is_grouped_by_its_line(tmp_path: Path) -> None:
    """A `.json` chat (before 2026): a model message without an id groups its calls by its line."""
    p = tmp_path / "session-j.json"
    msgs = [{"timestamp": T(1), "type": "gemini", "content": "",
             "toolCalls": [call("a", "ls", "success", [fr(output="x")]), call("b", "ls", "success", [])]},
            {"id": 5, "timestamp": T(2), "type": "gemini", "toolCalls": [call("c", "ls", "success", [fr(output="y")])]}]
    p.write_text('{"sessionId": "s-j", "projectHash": "h", "messages": [\n'
                 + ",\n".join(json.dumps(m) for m in msgs) + "\n]}\n")
    s = read(p)
    assert [(e.kind, e.call_id, e.group) for e in s.events] == [
        ("tool_call", "a", "L2"), ("tool_result", "a", None), ("tool_call", "b", "L2"), ("tool_call", "c", "L3"),
        ("tool_result", "c", None)]
    assert warnings(s) == [("no-result", "tool call b (ls) has no result output (status 'success')",
                            "session-j.json", 2)]
    assert s.session_id == "s-j" and s.quality.records == 2 and s.quality.missing_results == 1


def test_calls_of_an_untimed_message_names_and_times_not_text_counts(tmp_path: Path) -> None:
    """A call whose name or time is no text has none; a message with no time gives its
    calls none (nothing cited); a result's text part before its functionResponse is kept;
    each missing result and each declined call is counted."""
    no = "[Operation Cancelled] Reason: User denied execution."
    p = write_lines(tmp_path / "c.jsonl", [HEAD, {"id": "g", "type": "gemini", "content": "", "toolCalls": [
        {"id": "a", "name": 5, "timestamp": 9, "args": {}, "status": "success",
         "result": [{"text": "note first"}, fr(output="o")]},
        {"id": "b", "name": "x", "args": {}},
        {"id": "c", "name": "x", "args": {}},
        {"id": "d", "name": SHELL, "args": {}, "status": "cancelled", "result": [fr(error=no)]},
        {"id": "e", "name": SHELL, "args": {}, "status": "cancelled", "result": [fr(error=no)]},
    ]}])
    s = read(p)
    assert events(s)[:2] == [
        ev("tool_call", "agent", None, [(2, "/toolCalls/0/args")], call_id="a", args={}, group="g"),
        ev("tool_result", "agent", None, [(2, "/toolCalls/0/result/0/text"),
                                          (2, "/toolCalls/0/result/1/functionResponse/response/output")],
           text="note first\no", call_id="a", is_error=False, info=ResultInfo()),
    ]
    assert [(e.kind, e.call_id, e.ts_ref) for e in s.events[2:]] == [
        ("tool_call", "b", None), ("tool_call", "c", None), ("tool_call", "d", None), ("tool_result", "d", None),
        ("tool_call", "e", None), ("tool_result", "e", None)]
    assert s.quality.missing_results == 2 and s.quality.extra == {"rejected_calls": 2}
