"""Codex's unified exec (openai/codex codex-rs/core/src/tools/handlers/unified_exec.rs): an
`exec_command` whose process still runs says `Process running with session ID N`; a later
`write_stdin` {`session_id`: N, `chars`} (empty chars: a poll) writes to that process. Its step
is caused by the step of the call that started the process (R-cause/exec-session), citing the
poll's arguments and the output that stated the id. Before, a poll was caused by whatever results
came just before it: polls made in parallel all shared the first one's causes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.run import RetraceOptions, retrace
from forsy.verification import verify_folder
from test_codex_tools_promises import META, NAME, fcall, fout, item, msg

RUNNING = "Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID {}\nOutput:\n"
EXITED = "Chunk ID: 2\nWall time: 0.5 seconds\nProcess exited with code {}\nOutput:\ndone\n"


def _trace(tmp_path: Path, records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    lines = [json.dumps({"timestamp": f"2026-08-01T10:00:{i:02d}.000Z", **r}) for i, r in enumerate([META, *records])]
    path = tmp_path / NAME
    path.write_text("\n".join(lines) + "\n", "utf-8")
    out = tmp_path / "out"
    retrace([path], RetraceOptions(out=out, redact=False))
    rep = verify_folder(out, [path])
    assert rep.ok, rep.problems
    trace = json.loads((out / "trace.json").read_text())
    prov = json.loads((out / "provenance.json").read_text())
    return trace["steps"], prov


def test_a_poll_is_caused_by_the_call_that_started_its_process(tmp_path: Path) -> None:
    steps, prov = _trace(tmp_path, [
        item(type="message", role="user", content=[{"type": "input_text", "text": "build and test"}]),
        fcall("exec_command", "a", '{"cmd": "npm run build"}'),
        fcall("exec_command", "b", '{"cmd": "npm test"}'),
        fout("a", RUNNING.format(11)),
        fout("b", RUNNING.format(22)),
        fcall("write_stdin", "w1", '{"session_id": 22, "chars": ""}'),
        fcall("write_stdin", "w2", '{"session_id": 11, "chars": "y\\n"}'),
        fout("w1", EXITED.format(1)),
        fout("w2", EXITED.format(0)),
        fcall("write_stdin", "w3", '{"session_id": 99, "chars": ""}'),  # no call started it: no link
        fout("w3", "write_stdin failed: Unknown process id 99"),
    ])  # fmt: skip
    by_tool = [(s["tool"], s["caused_by"], s["causal_type"]) for s in steps if s["tool"]]
    assert by_tool[:4] == [
        ("exec_command", [1], "user_request"), ("exec_command", [1], "user_request"),
        ("write_stdin", [3], "dependency_on_tool_result"), ("write_stdin", [2], "dependency_on_tool_result")]
    assert by_tool[4][:2] == ("write_stdin", [4, 5])  # the results before it, as any call
    w1 = next(s for s in steps if s["tool"] == "write_stdin")
    assert "step 3" in w1["causal_note"]
    fields = json.dumps(prov)
    assert "R-cause/exec-session" in fields


def _fields(prov: dict[str, Any], step: int) -> dict[str, Any]:
    return next(s["fields"] for s in prov["steps"] if s["step"] == step)


def _line(prov: dict[str, Any], ev: str) -> int:
    return int(prov["evidence"][ev]["line"])


def test_a_poll_that_states_the_exit_code_gives_the_command_without_an_end_its_outcome(tmp_path: Path) -> None:
    # unified exec answers the write_stdin that finds the process gone with its exit code
    # (process_manager.rs write_stdin: ProcessStatus::Exited { exit_code }); an exec_command whose
    # exec_command_end is not in the log takes it, citing the poll's output, never its own
    steps, prov = _trace(tmp_path, [
        item(type="message", role="user", content=[{"type": "input_text", "text": "build, test, serve"}]),
        fcall("exec_command", "a", '{"cmd": "make"}'),  # line 3
        fout("a", RUNNING.format(7)),
        fcall("exec_command", "b", '{"cmd": "pytest"}'),  # line 5
        fout("b", RUNNING.format(8)),
        fcall("exec_command", "c", '{"cmd": "serve"}'),  # line 7: no poll says how it ended
        fout("c", RUNNING.format(9)),
        fcall("write_stdin", "w1", '{"session_id": 7, "chars": ""}'),
        fout("w1", RUNNING.format(7)),  # line 10: still running, no code
        fcall("write_stdin", "w2", '{"session_id": 7, "chars": ""}'),
        fout("w2", EXITED.format(2)),  # line 12
        fcall("write_stdin", "w3", '{"session_id": 8, "chars": ""}'),
        fout("w3", EXITED.format(0)),  # line 14
    ])  # fmt: skip
    make, pytest, serve = steps[1], steps[2], steps[3]
    assert (make["tool"], make["success"], make["eval"]) == ("exec_command", False, -1)
    assert (pytest["tool"], pytest["success"], pytest["eval"]) == ("exec_command", True, 0)
    assert (serve["tool"], serve["success"]) == ("exec_command", None)  # never invented
    for step, line in ((2, 12), (3, 14)):
        ok = _fields(prov, step)["success"]
        assert ok["rule"] == "R-call/codex-exit-by-poll"
        assert [_line(prov, r["id"]) for r in ok["evidence"]] == [line]
    assert [_line(prov, r["id"]) for r in _fields(prov, 2)["eval_reason"]["evidence"]] == [12]
    assert make["output"] == RUNNING.format(7)  # the output stays the call's own
    assert "success" not in _fields(prov, 4)
    polls = [s for s in steps if s["tool"] == "write_stdin"]
    assert [p["success"] for p in polls] == [None, False, True]


def test_an_exit_code_the_command_states_itself_stands_over_a_poll(tmp_path: Path) -> None:
    steps, prov = _trace(tmp_path, [
        item(type="message", role="user", content=[{"type": "input_text", "text": "build"}]),
        fcall("exec_command", "a", '{"cmd": "make"}'),
        fout("a", RUNNING.format(7)),
        msg(type="exec_command_end", call_id="a", exit_code=0, process_id="7"),
        fcall("write_stdin", "w", '{"session_id": 7, "chars": ""}'),
        fout("w", EXITED.format(3)),  # not a real pairing: what the command's own end says wins
    ])  # fmt: skip
    assert steps[1]["success"] is True
    assert _fields(prov, 2)["success"]["rule"] != "R-call/codex-exit-by-poll"


def test_a_poll_never_retries_a_call_made_to_another_process(tmp_path: Path) -> None:
    steps, _ = _trace(tmp_path, [
        item(type="message", role="user", content=[{"type": "input_text", "text": "build and test"}]),
        fcall("exec_command", "a", '{"cmd": "npm run build"}'),
        fcall("exec_command", "b", '{"cmd": "npm test"}'),
        fout("a", RUNNING.format(11)),
        fout("b", RUNNING.format(22)),
        fcall("write_stdin", "w1", '{"session_id": 22, "chars": ""}'),
        fout("w1", EXITED.format(1)),  # session 22's poll failed (its process exited 1)
        fcall("write_stdin", "w2", '{"session_id": 11, "chars": ""}'),  # alike, but another process
        fout("w2", EXITED.format(0)),
        fcall("write_stdin", "w3", '{"session_id": 99, "chars": ""}'),  # no call started it
        fout("w3", "write_stdin failed: Unknown process id 99"),
        fcall("write_stdin", "w4", '{"session_id": 98, "chars": ""}'),  # another unknown process
        fout("w4", "write_stdin failed: Unknown process id 98"),
        fcall("write_stdin", "w5", '{"session_id": 98, "chars": ""}'),  # the same one again: a retry
        fout("w5", "write_stdin failed: Unknown process id 98"),
    ])  # fmt: skip
    polls = [s for s in steps if s["tool"] == "write_stdin"]
    assert [p["retry_of"] for p in polls] == [None, None, None, None, polls[3]["step"]]
