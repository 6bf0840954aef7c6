"""The name the person gave a Claude Code session: `custom-title` `{customTitle}` (`/rename`,
`--name`, a rename from the desktop app or claude.ai, which 2.1.221 carries to the CLI), written
again after later turns so `/resume` finds it (CHANGELOG 2.1.239), and before the first user
record when the session was started with a name (as public probes of 2.1.2xx show). Records built
by hand, made-up words.

The latest name stands, in `agent_config.title` (the generated `ai-title` stays the card's, as
before); a name cleared (blank) leaves none; a record without a string name is warned (file, line)
and read as absent. The records stay in the ledger as metadata (title).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _claude_events_view import marks, session_of
from _oracle import retrace
from _small_logs import SESSION, answer, user, write


def _titled(*names: Any) -> list[dict[str, Any]]:
    recs: list[dict[str, Any]] = [{"type": "ai-title", "aiTitle": "Login button bug", "sessionId": SESSION}]
    recs += [{"type": "custom-title", "customTitle": n, "sessionId": SESSION} for n in names[:1]]
    recs += [user(0, "u1", None, "Fix the login button."), answer(1, "a1", "u1", "Fixed.")]
    recs += [{"type": "custom-title", "customTitle": n, "sessionId": SESSION} for n in names[1:]]
    return recs


def test_the_latest_name_the_person_gave_is_the_traces_title(tmp_path: Path) -> None:
    log = write(tmp_path / "s.jsonl", _titled("login fix", "login fix v2"))
    [trace] = retrace(log, tmp_path / "out")
    assert trace["agent_config"]["title"] == "login fix v2"
    assert "Title the agent gave the session: Login button bug" in trace["dataset_summary"]["description"]
    s = session_of(tmp_path, _titled("login fix", "login fix v2"), "t.jsonl")
    assert marks(s)[2] == marks(s)[5] == ("metadata", "title", None)


def test_a_name_cleared_leaves_no_title(tmp_path: Path) -> None:
    s = session_of(tmp_path, _titled("login fix", "  "))
    assert "title" not in s.meta.extra


def test_a_custom_title_without_a_string_name_is_warned_and_not_read(tmp_path: Path) -> None:
    s = session_of(tmp_path, _titled("login fix", 7))
    assert s.meta.extra["title"] == "login fix"
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("field-type", "s.jsonl", 5)]
