"""`forsy ls` says what `retrace` does with each file: the same files, records counted as
retrace counts them, the project where the log's place names it, the agent version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forsy.cli._ls import look
from forsy.errors import NoWork
from forsy.run import RetraceOptions, retrace
from forsy.sources import detect
from forsy.sources.claude_code import ClaudeCodeSource

FIX = Path(__file__).parent / "fixtures"
STUB = FIX / "claude" / "teleported" / "3f6e1d2c-8a4b-4c5d-9e7f-0a1b2c3d4e5f.jsonl"


def test_a_teleport_stub_is_claude_codes_and_skipped_alike_by_ls_and_retrace(tmp_path: Path) -> None:
    """A session teleported from claude.ai starts as a stub naming the remote session: it is
    Claude Code's file (not refused as an unknown format), with no work in it."""
    assert isinstance(detect(STUB), ClaudeCodeSource)
    info = look("claude_code", STUB)
    assert (info.records, info.work) == (1, False)
    with pytest.raises(NoWork):  # named alone: no work (exit 2), not "not a log format" (exit 3)
        retrace([STUB], RetraceOptions(out=tmp_path / "one", redact=False))
    run = retrace([STUB.parent], RetraceOptions(out=tmp_path / "folder", redact=False), raise_if_empty=False)
    assert [o.status for o in run.outcomes] == ["skipped"]


def test_records_of_a_json_document_and_the_project_from_the_place(tmp_path: Path) -> None:
    chats = tmp_path / "tmp" / "my-app" / "chats"
    chats.mkdir(parents=True)
    doc = {"sessionId": "s1", "projectHash": "abc", "startTime": "2026-01-01T10:00:00.000Z",
           "messages": [{"id": str(i), "type": "user" if i % 2 == 0 else "gemini",
                         "timestamp": f"2026-01-01T10:00:0{i}.000Z", "content": "x"} for i in range(3)]}
    f = chats / "session-2026-01-01T10-00-s1.json"
    f.write_text(json.dumps(doc, indent=2))
    info = look("gemini", f)
    assert (info.records, info.project, info.start) == (3, "my-app", "2026-01-01T10:00:00.000Z")
    aider = look("aider", FIX / "aider" / "startup-shell" / ".aider.chat.history.md")
    assert aider.project == "startup-shell"


def test_the_agent_version_is_named() -> None:
    main = FIX / "claude" / "windows-session" / "5e0c2a1f-7b3d-4c8e-9a6f-1d2e3f4a5b6c.jsonl"
    assert look("claude_code", main).version == "2.1.39"
    assert look("claude_code", main).work is True
