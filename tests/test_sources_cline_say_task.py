"""The task as the pre-SDK extension wrote it from February 2026 to its SDK migration: the first
UI record is `say: "task"` (cline/cline, apps/vscode/src/core/task/index.ts `startTask`:
`await this.say("task", task, images, files)`, at c824d8380abff5fc7552416cce2b6a24353bfbec;
`say("text", …)` before, at 0de65457c1). Built by hand; expectations by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.sources import ReadContext
from forsy.sources.cline import ClineSource

T = 1772000000000
UI: list[dict[str, Any]] = [
    {"ts": T, "type": "say", "say": "task", "text": "fix it", "conversationHistoryIndex": -1},
    {"ts": T + 1, "type": "say", "say": "text", "text": "On it", "conversationHistoryIndex": 0},
]
API: list[dict[str, Any]] = [
    {"role": "user", "content": [{"type": "text", "text": "<task>\nfix it\n</task>"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "On it"}]},
]


def _task(tmp_path: Path, api: bool) -> Path:
    folder = tmp_path / "tasks" / "1772000000000"
    folder.mkdir(parents=True)
    (folder / "ui_messages.json").write_text(json.dumps(UI), "utf-8")
    if api:
        (folder / "api_conversation_history.json").write_text(json.dumps(API), "utf-8")
        return folder / "api_conversation_history.json"
    return folder / "ui_messages.json"


def test_a_say_task_record_is_the_task_as_typed(tmp_path: Path) -> None:
    [s] = ClineSource().read(_task(tmp_path, api=True), ReadContext(root=tmp_path))
    user = s.events[0]
    assert (user.kind, user.text, user.ts) == ("user", "fix it", "2026-02-25T06:13:20.000Z")
    assert (s.evidence[user.refs[0].ev].source, user.refs[0].pointer) == ("tasks/1772000000000/ui_messages.json",
                                                                           "/text")
    assert [w.code for w in s.warnings] == []


def test_a_say_task_record_is_the_task_when_the_ui_is_read_alone(tmp_path: Path) -> None:
    [s] = ClineSource().read(_task(tmp_path, api=False), ReadContext(root=tmp_path))
    assert [(e.kind, e.actor, e.text) for e in s.events] == [("user", "user", "fix it"),
                                                            ("agent_text", "agent", "On it")]


def test_the_later_ui_kinds_of_the_pre_sdk_writer_are_accounted_for(tmp_path: Path) -> None:
    """Kinds the pre-SDK writer added (c824d83: hook-executor.ts, SubagentToolHandler.ts,
    task/index.ts, ExecuteCommandToolHandler.ts, UseMcpToolHandler.ts, WriteToFileToolHandler.ts,
    CondenseHandler.ts) were unknown to the ledger, each warned; the task record the API history
    holds is its duplicate when no step cites it."""
    ui = [*UI, *({"ts": T + 2 + n, "type": t, t: k, "text": "{}", "conversationHistoryIndex": 1}
                 for n, (t, k) in enumerate([
                     ("say", "hook_status"), ("say", "hook_output_stream"), ("say", "subagent"),
                     ("say", "subagent_usage"), ("say", "conditional_rules_applied"), ("say", "user_feedback_diff"),
                     ("say", "mcp_server_response"), ("say", "command_permission_denied"),
                     ("say", "shell_integration_warning_with_suggestion"), ("ask", "condense"), ("ask", "new_task"),
                     ("ask", "summarize_task"), ("ask", "report_bug"), ("ask", "use_subagents")]))]
    ui.append({"ts": T + 30, "type": "ask", "ask": "act_mode_respond", "text": "On it", "conversationHistoryIndex": 0})
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "ui_messages.json").write_text(json.dumps(ui), "utf-8")
    (folder / "api_conversation_history.json").write_text(json.dumps(API), "utf-8")
    [s] = ClineSource().read(folder / "api_conversation_history.json", ReadContext(root=tmp_path))
    marked = {s.evidence[k].line for k in s.ledger} | {s.evidence[r.ev].line for e in s.events for r in e.refs}
    ui_ids = [k for k, ev in s.evidence.items() if ev.source == "t/ui_messages.json"]
    assert len(ui_ids) == len(ui) and all(k in s.ledger or any(r.ev == k for e in s.events for r in e.refs)
                                          for k in ui_ids), marked
    assert {k: v for k, v in s.quality.extra.items() if k.startswith("asks_")} == {
        "asks_condense": 1, "asks_new_task": 1, "asks_summarize_task": 1, "asks_report_bug": 1,
        "asks_use_subagents": 1}
    raw = (folder / "ui_messages.json").read_bytes()
    last = next(k for k, ev in s.evidence.items() if ev.source == "t/ui_messages.json"
                and b"act_mode_respond" in raw[ev.byte_offset:ev.byte_offset + ev.byte_length])
    assert s.ledger[last].heading == "duplicate"  # act_mode_respond: words the API message holds
