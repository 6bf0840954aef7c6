"""A Claude Code subagent file retraced on its own: the note made of its first user record (the
prompt its parent sent) becomes the delegation's input, and no other event changes hands, even
when other records come first; a file whose prompt line was lost is still read. Its hook and
bash progress lines are set aside silently; an `agent_progress` copy marked `isSidechain` is
said to be unread."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _small_logs import _rec, answer, call, result, user, write
from forsy.evidence import Session
from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _alone(tmp_path: Path, records: list[dict[str, Any]], extra: dict[int, str] | None = None) -> Session:
    path = write(tmp_path / "agent-ab12.jsonl", [dict(r, isSidechain=True, agentId="ab12") for r in records], extra)
    [s] = ClaudeCodeSource().read(path, ReadContext(root=tmp_path))
    return s


def _shape(s: Session) -> list[tuple[str, str, str | None, str | None]]:
    return [(e.kind, e.actor, e.text, e.info.subtype if isinstance(e.info, NoteInfo) else None) for e in s.events]


def test_records_before_the_prompt_keep_their_hands(tmp_path: Path) -> None:
    thinking = _rec(0, "assistant", [{"type": "redacted_thinking", "data": "EqQB"},
                                     {"type": "text", "text": "Starting."}], "x0", None)
    s = _alone(tmp_path, [thinking, user(1, "x1", "x0", "Find the retry limit."),
                          answer(2, "x2", "x1", "conf.py line 3.")])
    assert _shape(s) == [("note", "subagent:ab12", None, "encrypted_reasoning"),
                         ("agent_text", "subagent:ab12", "Starting.", None),
                         ("note", "agent", "Find the retry limit.", "subagent_input"),
                         ("agent_text", "subagent:ab12", "conf.py line 3.", None)]


def test_only_the_first_user_records_note_is_the_delegation(tmp_path: Path) -> None:
    s = _alone(tmp_path, [user(0, "x1", None, "Find the retry limit."), answer(1, "x2", "x1", "Which file?"),
                          user(2, "x3", "x2", "Any file."), answer(3, "x4", "x3", "conf.py line 3.")])
    assert [(e.actor, e.info.subtype) for e in s.events if isinstance(e.info, NoteInfo)] == [
        ("agent", "subagent_input"), ("subagent:ab12", "subagent_prompt")]


def test_a_file_whose_prompt_line_was_lost_is_still_read(tmp_path: Path) -> None:
    # no user record at all: the model's own lines are read as they are
    s = _alone(tmp_path, [call(1, "x2", "x1", "g1", "Grep", {"pattern": "retries"}),
                          answer(2, "x3", "x2", "Not found.")],
               extra={0: '{"type": "user", "message": {"role": "user", "content": "Find the ret'})
    assert [(e.kind, e.actor) for e in s.events] == [("tool_call", "subagent:ab12"), ("agent_text", "subagent:ab12")]
    assert [w.code for w in s.warnings] == ["unparsable-line"]


def _progress(n: int, uuid: str, parent: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "progress", "uuid": uuid, "parentUuid": parent, "sessionId": "s-small",
            "timestamp": f"2026-01-01T10:00:{n:02d}.000Z", "toolUseID": "g1", "parentToolUseID": "g1", "data": data}


def test_a_hook_progress_line_in_an_agent_file_is_set_aside_without_a_warning(tmp_path: Path) -> None:
    hook = {"type": "hook_progress", "hookEvent": "PostToolUse", "hookName": "PostToolUse:Grep", "command": "true"}
    s = _alone(tmp_path, [user(0, "x1", None, "Find the retry limit."),
                          call(1, "x2", "x1", "g1", "Grep", {"pattern": "retries"}),
                          _progress(2, "x3", "x2", hook),
                          result(3, "x4", "x2", "g1", "conf.py:3: retries = 5")])
    assert s.warnings == []
    [ev] = [ev for ev in s.evidence.values() if ev.line == 3]
    assert (s.ledger[ev.id].heading, s.ledger[ev.id].name, s.ledger[ev.id].subtype) == (
        "set_aside", "progress records carry no work", "hook_progress")


def test_an_agent_progress_copy_marked_sidechain_is_said_to_be_unread(tmp_path: Path) -> None:
    copy = {"type": "agent_progress", "agentId": "cd34", "prompt": "Count the tests.",
            "message": {"type": "user", "uuid": "y1", "timestamp": "2026-01-01T10:00:02.500Z",
                        "message": {"role": "user", "content": "Count the tests."}}}
    s = _alone(tmp_path, [user(0, "x1", None, "Find the retry limit."), _progress(1, "x2", "x1", copy),
                          answer(2, "x3", "x1", "conf.py line 3.")])
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("unread-content", "agent_progress record marked isSidechain; its copy of a subagent message was not read", 2)]
    assert json.dumps([e.text for e in s.events]).count("Count the tests.") == 0
