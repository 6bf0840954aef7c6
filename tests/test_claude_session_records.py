"""Claude Code's session records that carry no step (2.1.16x+): `permission-mode` (each mode the
user switched to, in order, a repeat not listed twice) and `ai-title` (the latest title stands),
each read from its one string field; such a record without one is named in a warning."""

from __future__ import annotations

from pathlib import Path

from _small_logs import SESSION, answer, user, write
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def test_modes_in_order_and_the_latest_title_are_read_and_a_record_without_one_is_named(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        {"type": "permission-mode", "permissionMode": "plan", "sessionId": SESSION},
        user(1, "u1", None, "Plan it."),
        {"type": "permission-mode", "mode": "plan", "sessionId": SESSION},  # the same mode again
        {"type": "ai-title", "title": "Planning", "sessionId": SESSION},
        {"type": "permission-mode", "mode": "acceptEdits", "sessionId": SESSION},
        answer(2, "a1", "u1", "Here is the plan."),
        {"type": "ai-title", "aiTitle": "Refactor planning", "sessionId": SESSION},
        {"type": "permission-mode", "permissionMode": 3, "sessionId": SESSION},
        {"type": "ai-title", "aiTitle": None, "sessionId": SESSION},
    ])
    [s] = ClaudeCodeSource().read(path, ReadContext(root=tmp_path))
    assert s.meta.extra["permission_modes"] == ["plan", "acceptEdits"]
    assert s.meta.extra["ai_title"] == "Refactor planning"
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("field-type", "permission-mode record without a string permissionMode; not read", "s.jsonl", 8),
        ("field-type", "ai-title record without a string aiTitle; not read", "s.jsonl", 9)]
