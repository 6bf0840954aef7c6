"""Cline task folders: every prompt, call and result in the trace, in order.

The oracle reads the raw files with the standard library (not forsy's reader): the task as
the UI recorded it, each tool_use of the API history (name, exact input) and the text block
of the next user message that reports its result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _oracle import from_trace, retrace
from _paths import REAL_LOGS, needs_shared
from forsy.sources import ReadContext, detect
from forsy.sources.cline import ClineSource

BASE = REAL_LOGS / "cline"
REAL = sorted(p for p in BASE.rglob("*") if p.is_file()) if BASE.is_dir() else []


def oracle(folder: Path) -> list[tuple[Any, ...]]:
    api = json.loads((folder / "api_conversation_history.json").read_text("utf-8"))
    ui = json.loads((folder / "ui_messages.json").read_text("utf-8"))
    out: list[tuple[Any, ...]] = [("user", ui[0]["text"])]
    for j, m in enumerate(api):
        if m["role"] != "assistant":
            continue
        uses = [b for b in m["content"] if b["type"] == "tool_use"]
        answers = [b["text"] for b in (api[j + 1]["content"] if j + 1 < len(api) else [])
                   if b["type"] == "text" and b["text"].startswith("[") and not b["text"].startswith("[TASK")]
        for k, b in enumerate(uses):
            answer = answers[k] if k < len(answers) else None
            assert answer is None or answer.startswith(f"[{b['name']}")
            out.append(("call", b["name"], b["input"], answer))
    return out


@needs_shared
@pytest.mark.real_logs
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_cline_task_against_the_oracle(path: Path, tmp_path: Path) -> None:
    # any file of the task folder stands for the task
    assert isinstance(detect(path), ClineSource)
    [trace] = retrace(path, tmp_path / "out")
    assert from_trace(trace) == oracle(path.parent)


@needs_shared
@pytest.mark.real_logs
def test_real_task_times_models_and_tokens() -> None:
    folder = BASE / "gmfstu__Online-Card-Architecture/exported_conversation_1769053680585"
    [s] = ClineSource().read(folder / "api_conversation_history.json", ReadContext(root=folder))
    api = json.loads((folder / "api_conversation_history.json").read_text("utf-8"))
    assert s.meta.models == ["claude-sonnet-4-5-20250929"]
    assert s.meta.token_usage["completion"] == sum(m["metrics"]["tokens"]["completion"] for m in api if "metrics" in m)
    calls = [e for e in s.events if e.kind == "tool_call"]
    assert all(e.ts for e in calls)  # every assistant message has its UI record
    assert [e.ts for e in calls] == sorted(e.ts or "" for e in calls)
    assert s.events[0].kind == "user" and s.events[0].ts == "2026-01-22T03:48:00.628Z"
    assert s.quality.missing_results == 0 and s.quality.extra["completion_unanswered"] == 1
    assert ClineSource().discover(BASE) == [folder / "api_conversation_history.json"]


def test_denied_call_and_feedback(tmp_path: Path) -> None:
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nfix it\n</task>"},
                                     {"type": "text", "text": "<environment_details>\nx\n</environment_details>"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "execute_command",
                                           "input": {"command": "rm -rf /"}}]},
        {"role": "user", "content": [
            {"type": "text", "text": "[execute_command for 'rm -rf /'] Result:\nThe user denied this operation."},
            {"type": "text", "text": "The user provided the following feedback:\n<feedback>\nnot that\n</feedback>"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "read_file",
                                           "input": {"path": "a"}}]},
    ]
    ui = [{"ts": 1769053680628, "type": "say", "say": "text", "text": "fix it"},
          {"ts": 1769053681000, "type": "ask", "ask": "command", "text": "rm -rf /", "conversationHistoryIndex": 0},
          {"ts": 1769053682000, "type": "say", "say": "user_feedback", "text": "not that",
           "conversationHistoryIndex": 1}]
    (tmp_path / "api_conversation_history.json").write_text(json.dumps(api))
    (tmp_path / "ui_messages.json").write_text(json.dumps(ui))
    [s] = ClineSource().read(tmp_path / "api_conversation_history.json", ReadContext(root=tmp_path))
    assert [(e.kind, e.text) for e in s.events if e.kind == "user"] == [("user", "fix it"), ("user", "not that")]
    [res] = [e for e in s.events if e.kind == "tool_result"]
    assert res.is_error is True and s.quality.extra["rejected_calls"] == 1
    assert s.quality.extra["asks_command"] == 1 and s.quality.extra["injected_context"] == 1
    assert s.quality.missing_results == 1  # read_file never answered
    assert s.events[0].ts == "2026-01-22T03:48:00.628Z"
