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
from test_codex_tools_promises import META, NAME, fcall, fout, item

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
