"""Gemini CLI's tools as its registry names them now (tools/definitions/base-declarations.ts,
tool-names.ts): `grep_search` (once `search_file_content`) searches, `ask_user` asks the person,
plan mode and the task tracker keep the plan."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _gemini_view import write_lines
from forsy.run import RetraceOptions, retrace

HEAD = {"sessionId": "s-g", "projectHash": "h"}


@pytest.mark.parametrize(("name", "args", "operation"), [
    ("grep_search", {"pattern": "TODO", "dir_path": "src"}, "search"),
    ("search_file_content", {"pattern": "TODO"}, "search"),
    ("ask_user", {"questions": [{"question": "Which branch?", "header": "Branch", "type": "text"}]}, "ask_user"),
    ("enter_plan_mode", {"reason": "large change"}, "plan"),
    ("exit_plan_mode", {"plan_filename": "plan.md"}, "plan"),
    ("tracker_create_task", {"title": "Fix login"}, "plan"),
    ("tracker_update_task", {"id": "1", "status": "done"}, "plan"),
    ("tracker_list_tasks", {}, "read"),
])
def test_the_step_says_what_the_tool_does(tmp_path: Path, name: str, args: dict[str, Any], operation: str) -> None:
    call = {"id": "c1", "name": name, "status": "success", "args": args,
            "result": [{"functionResponse": {"id": "c1", "name": name, "response": {"output": "ok"}}}]}
    log = write_lines(tmp_path / "g.jsonl", [HEAD, {"id": "u", "timestamp": "2026-01-01T00:00:00Z", "type": "user",
                                                   "content": "go"},
                                            {"id": "g1", "timestamp": "2026-01-01T00:00:01Z", "type": "gemini",
                                             "content": "", "toolCalls": [call]}])
    retrace([log], RetraceOptions(out=tmp_path / "t", redact=False))
    trace = json.loads((tmp_path / "t" / "trace.json").read_text())
    assert [s["operation"] for s in trace["steps"] if s.get("tool") == name] == [operation]
