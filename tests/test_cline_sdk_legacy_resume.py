"""A Cline task begun before the SDK and resumed in it: its SDK session is seeded from the old
API history (apps/vscode/src/sdk/legacy-task-handling.ts legacyApiHistoryToSdkMessages), whose
user turns keep the blocks Cline wrote then: the task in `<task>`, the task-progress reminder
and the environment details, each result as `[tool for '...'] Result:` text, and a warning
after them. Only the task's words are the person's; before, every block was a user message.
Blocks shaped as in the real Cline log of ../shared (one block per result)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.payloads import MessageInfo, NoteInfo
from forsy.sources.cline._sdk import LEGACY_WARNING, read_sdk


def _text(t: str) -> dict[str, str]:
    return {"type": "text", "text": t}


def _session(tmp_path: Path) -> Any:
    env = "<environment_details>\n# Visual Studio Code Visible Files\nx.py\n</environment_details>"
    doc = {"version": 1, "sessionId": "1769053680585", "messages": [
        {"role": "user", "content": [_text("<task>\nfix the bug\n</task>"),
                                     _text("\n# task_progress RECOMMENDED\n\nWhen starting a new task…"), _text(env)]},
        {"role": "assistant", "content": [_text("<read_file>\n<path>x.py</path>\n</read_file>")]},
        {"role": "user", "content": [_text("[read_file for 'x.py'] Result:\nprint(1)"), _text(env)]},
        {"role": "assistant", "content": [_text("done")]},
        {"role": "user", "content": [_text(LEGACY_WARNING + " Please use the most up-to-date tools you are "
                                           "aware of.")]},
        {"role": "user", "content": [_text("now add a test")]},
    ]}
    p = tmp_path / "1769053680585.messages.json"
    p.write_text(json.dumps(doc, indent=1), "utf-8")
    return read_sdk(p, p.read_bytes(), p.name)


def test_only_the_task_and_later_typed_words_are_the_persons(tmp_path: Path) -> None:
    s = _session(tmp_path)
    users = [(e.text, e.info.span if isinstance(e.info, MessageInfo) else None,
              e.info.wrapped if isinstance(e.info, MessageInfo) else None) for e in s.events if e.kind == "user"]
    assert users == [("fix the bug", (7, 18), "task"), ("now add a test", None, None)]
    notes = [e.info.subtype for e in s.events if e.kind == "note" and isinstance(e.info, NoteInfo)]
    assert notes == ["injected_context", "injected_context", "legacy_result_text", "injected_context",
                     "legacy_resume_warning"]
    assert [e.text for e in s.events if e.kind == "agent_text"] == ["<read_file>\n<path>x.py</path>\n</read_file>",
                                                                    "done"]
