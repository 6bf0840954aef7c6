"""Codex tools read for what they do (openai/codex core/src/tools/handlers): the person asked
through `request_user_input`, the experimental file tools (`grep_files`, `list_dir`, `read_file`)
searching and reading, `close_agent` ending a subagent. Rollouts in the recorder's envelope."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forsy.run import RetraceOptions, retrace

ID = "019e7c30-0000-7000-8000-00000000ffff"
NAME = f"rollout-2026-08-01T10-00-00-{ID}.jsonl"


def _rollout(tmp_path: Path, name: str, args: dict[str, Any], output: str) -> Path:
    records: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": {"id": ID, "cwd": "/w", "cli_version": "0.121.0"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "look at the repo"}]}},
        {"type": "event_msg", "payload": {"type": "user_message", "message": "look at the repo"}},
        {"type": "response_item", "payload": {"type": "function_call", "name": name, "call_id": "c1",
                                              "arguments": json.dumps(args)}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1", "output": output}},
    ]
    path = tmp_path / NAME
    path.write_text("".join(json.dumps({"timestamp": f"2026-08-01T10:00:{i:02d}.000Z", **r}) + "\n"
                            for i, r in enumerate(records)), "utf-8")
    return path


@pytest.mark.parametrize(("name", "args", "operation"), [
    ("request_user_input", {"questions": [{"id": "env", "question": "Which environment?"}]}, "ask_user"),
    ("grep_files", {"pattern": "TODO", "path": "src"}, "search"),
    ("list_dir", {"dir_path": "/w/src"}, "read"),
    ("read_file", {"file_path": "/w/src/main.rs"}, "read"),
    ("close_agent", {"id": "agent-1"}, "other"),
])
def test_the_step_says_what_the_tool_does(tmp_path: Path, name: str, args: dict[str, Any], operation: str) -> None:
    retrace([_rollout(tmp_path, name, args, "ok")], RetraceOptions(out=tmp_path / "t", redact=False))
    trace = json.loads((tmp_path / "t" / "trace.json").read_text())
    assert [s["operation"] for s in trace["steps"] if s.get("tool") == name] == [operation]
