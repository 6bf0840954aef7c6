"""A subagent transcript read on its own: its first user record (the prompt it was started with)
becomes one `subagent_input` note, with that record's time and citation, written by the parent
agent (`agent`), or by Claude Code itself (`system`) for its prompt-suggestion helper; nothing
else of the thread changes hands."""

from __future__ import annotations

from pathlib import Path

import pytest

from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource

SUBAGENTS = (Path(__file__).parent / "fixtures" / "claude" / "windows-session"
             / "5e0c2a1f-7b3d-4c8e-9a6f-1d2e3f4a5b6c" / "subagents")


@pytest.mark.parametrize(("name", "actor", "ts", "text"), [
    ("agent-a1b2c3d.jsonl", "agent", "2026-03-04T10:00:05.000Z", "Find the slowest test in the saved output."),
    ("agent-aprompt_suggestion-9f8e7d.jsonl", "system", "2026-03-04T10:00:11.000Z",
     "[SUGGESTION MODE: Suggest what the user might naturally type next.]"),
])
def test_the_first_prompt_is_the_delegations_input_with_its_time(name: str, actor: str, ts: str, text: str) -> None:
    [s] = ClaudeCodeSource().read(SUBAGENTS / name, ReadContext(root=SUBAGENTS))
    first, *rest = s.events
    assert (first.kind, first.actor, first.ts, first.text) == ("note", actor, ts, text)
    assert isinstance(first.info, NoteInfo) and first.info.subtype == "subagent_input"
    [ref] = first.refs
    assert ref.pointer == "/message/content"
    assert first.ts_ref is not None and (first.ts_ref.ev, first.ts_ref.pointer) == (ref.ev, "/timestamp")
    assert rest and all(e.actor == "subagent:" + name[len("agent-"):-len(".jsonl")] for e in rest)
