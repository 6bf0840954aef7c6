"""The look-alikes among Cline, Claude Code, Aider, asciinema and shell histories: for every
file below exactly one source's `sniff` says yes, and it is the reader of the writer that
made it (a JSON array of messages: Cline's or Claude Code's; a JSON-lines file: Claude Code's
stub or asciinema's events; a line history: a shell's or aider's input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forsy.sources import available, detect, read_head

FIX = Path(__file__).parent / "fixtures"
CLAUDE = FIX / "claude" / "windows-session"
SID = "5e0c2a1f-7b3d-4c8e-9a6f-1d2e3f4a5b6c"

FILES: dict[str, tuple[Path, str]] = {
    "cline API history (native tool calls)": (FIX / "cline" / "harness-text" / "api_conversation_history.json",
                                              "cline"),
    "cline UI messages alone": (FIX / "cline" / "ui-only" / "ui_messages.json", "cline"),
    "claude session": (CLAUDE / f"{SID}.jsonl", "claude_code"),
    "claude subagent": (CLAUDE / SID / "subagents" / "agent-a1b2c3d.jsonl", "claude_code"),
    "claude prompt-suggestion helper": (CLAUDE / SID / "subagents" / "agent-aprompt_suggestion-9f8e7d.jsonl",
                                        "claude_code"),
    "claude teleport stub": (next((FIX / "claude" / "teleported").glob("*.jsonl")), "claude_code"),
    "asciinema v2 recording": (FIX / "asciinema" / "highlighted.cast", "asciinema"),
    "aider chat history": (FIX / "aider" / "startup-shell" / ".aider.chat.history.md", "aider"),
    "aider input history": (FIX / "aider" / "project" / ".aider.input.history", "aider"),
    "zsh .zhistory": (FIX / "shell" / "prezto" / ".zhistory", "shell"),
    "zsh .histfile (plain)": (FIX / "shell" / "custom" / ".histfile", "shell"),
    "a history known by content": (FIX / "shell" / "custom" / ".history_zsh_work", "shell"),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_one_reader_and_the_right_one(name: str) -> None:
    path, want = FILES[name]
    head = read_head(path)
    assert detect(path).name == want
    assert [s.name for s in available() if s.sniff(path, head)] == [want]


def test_clines_messages_under_another_name_are_not_taken_for_clines_task(tmp_path: Path) -> None:
    """Cline's API history is an Anthropic message array, like others' exports: only its
    file name inside a task folder makes it Cline's."""
    api = json.loads(FILES["cline API history (native tool calls)"][0].read_text("utf-8"))
    other = tmp_path / "messages.json"
    other.write_text(json.dumps(api))
    head = read_head(other)
    assert "cline" not in [s.name for s in available() if s.sniff(other, head)]
