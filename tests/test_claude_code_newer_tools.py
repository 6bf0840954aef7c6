"""Claude Code's newer tools (2.1.x, code.claude.com's tools reference) read for what they do:
a PowerShell or Monitor command is executed like a Bash one (its command is in the timeline and
on the review page), the task list kept with TaskCreate/TaskUpdate is the plan, TaskStop stops a
process, SendMessage talks to a subagent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _small_logs import answer, call, result, user, write
from forsy.rules.timeline import shell_command_of
from forsy.run import RetraceOptions, retrace
from forsy.sources.base import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _steps(tmp_path: Path, name: str, inp: dict[str, object], out: str) -> list[dict[str, object]]:
    log = write(tmp_path / "s.jsonl", [user(1, "u1", None, "do it"), call(2, "a1", "u1", "t1", name, inp),
                                       result(3, "r1", "a1", "t1", out), answer(4, "a2", "r1", "done")])
    retrace([log], RetraceOptions(out=tmp_path / "t", redact=False))
    trace = json.loads((tmp_path / "t" / "trace.json").read_text())
    return [s for s in trace["steps"] if s.get("tool") == name]


@pytest.mark.parametrize(("name", "inp", "operation"), [
    ("PowerShell", {"command": "Get-ChildItem -Recurse src", "description": "list"}, "execute"),
    ("Monitor", {"command": "tail -f build.log", "description": "watch the build"}, "execute"),
    ("TaskStop", {"task_id": "b1"}, "execute"),
    ("TaskCreate", {"subject": "Fix the login test", "description": "it fails on CI"}, "plan"),
    ("TaskUpdate", {"taskId": "1", "status": "completed"}, "plan"),
    ("TaskList", {}, "read"),
    ("LSP", {"operation": "findReferences", "filePath": "src/a.ts", "line": 3, "character": 5}, "analyze"),
])
def test_the_step_says_what_the_tool_does(tmp_path: Path, name: str, inp: dict[str, object], operation: str) -> None:
    steps = _steps(tmp_path, name, inp, "ok")
    assert [s["operation"] for s in steps] == [operation]


@pytest.mark.parametrize("name", ["PowerShell", "Monitor"])
def test_a_command_tools_command_is_read_as_one(tmp_path: Path, name: str) -> None:
    log = write(tmp_path / "s.jsonl", [user(1, "u1", None, "list"),
                                       call(2, "a1", "u1", "t1", name, {"command": "Get-ChildItem src"}),
                                       result(3, "r1", "a1", "t1", "a.ps1")])
    session = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))[0]
    calls = [e for e in session.events if e.kind == "tool_call"]
    assert [shell_command_of(e) for e in calls] == ["Get-ChildItem src"]
