"""User records Claude Code wrote itself, read as no one's words typed at the prompt (Claude Code
2.1.213–2.1.240, records built by hand in the shape public readers of such transcripts quote;
made-up words):

* `promptSource: "system"` (2.1.165+) with no `origin` and no isMeta: Claude Code's own prompt — a
  /goal check-in on background work (CHANGELOG 2.1.234, 2.1.236), "N background agents were stopped
  by the user", a scheduled turn's prompt — is a note `prompt-source:system`, never a user message
  and never the task; the rewind rule does not take it for a typed message either. "typed",
  "queued" and "sdk" leave the words to the text rules, as before.
* an interrupted-turn marker in print/SDK mode (`entrypoint` sdk-cli, sdk-ts, sdk-py) before
  2.1.236: Claude Code wrote one when the process got SIGTERM (CHANGELOG 2.1.236: it no longer
  does), so no one at a prompt stopped the turn: a note, warned `interrupt-unattributed` (file,
  line), counted in `unattributed_interrupts`; the trace does not end `user_abandoned` on it. An
  interactive session's, or a 2.1.236+ print-mode session's, stays the user's interrupt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _claude_events_view import session_of
from _oracle import retrace
from _small_logs import answer, call, result, user, write
from forsy.payloads import NoteInfo


def _said(n: int, uuid: str, parent: str | None, text: Any, **fields: Any) -> dict[str, Any]:
    r = user(n, uuid, parent, text)
    r.update(fields)
    return r


def _goal_session(source: str) -> list[dict[str, Any]]:
    return [
        _said(0, "u1", None, "/goal the tests pass", promptSource="typed", origin={"kind": "human"}),
        call(1, "a1", "u1", "t1", "Bash", {"command": "pytest -q", "run_in_background": True}),
        result(2, "r1", "a1", "t1", "Command running in background with ID: b1"),
        answer(3, "a2", "r1", "The tests run in the background."),
        _said(4, "u2", "a2", "Check if background task b1 finished.", promptSource=source),
        answer(5, "a3", "u2", "All tests pass."),
    ]


def test_a_prompt_claude_code_wrote_itself_is_a_note_not_the_users_message(tmp_path: Path) -> None:
    s = session_of(tmp_path, _goal_session("system"))
    [typed] = [e for e in s.events if e.kind == "user"]
    assert typed.text == "/goal the tests pass"
    [note] = [e for e in s.events if e.kind == "note"]
    assert (note.actor, note.text, note.info) == ("system", "Check if background task b1 finished.",
                                                   NoteInfo(subtype="prompt-source:system"))
    [trace] = retrace(tmp_path / "s.jsonl", tmp_path / "out")
    assert [st["input"] for st in trace["steps"] if st["action"] == "user_message"] == ["/goal the tests pass"]


@pytest.mark.parametrize("source", ["typed", "queued", "sdk"])
def test_a_prompt_the_person_or_the_driving_program_gave_stays_a_user_message(tmp_path: Path, source: str) -> None:
    s = session_of(tmp_path, _goal_session(source))
    assert [e.text for e in s.events if e.kind == "user"] == ["/goal the tests pass",
                                                              "Check if background task b1 finished."]


def test_claude_code_s_prompt_is_never_the_task(tmp_path: Path) -> None:
    """A session that starts on a scheduled turn's prompt has no words of the person's."""
    log = write(tmp_path / "s.jsonl", [
        _said(0, "u1", None, "2 background agents were stopped by the user: \"tests\".", promptSource="system"),
        answer(1, "a1", "u1", "Noted."),
    ])
    [trace] = retrace(log, tmp_path / "out")
    assert not [st for st in trace["steps"] if st["action"] == "user_message"]
    assert trace["task"] != "2 background agents were stopped by the user: \"tests\"."


def test_a_branch_after_claude_code_s_prompt_is_no_rewind(tmp_path: Path) -> None:
    """Two model turns answering one system prompt chain off it; neither the prompt nor what hangs
    off it is a branch the person rewound away from (which a typed message off the path would be)."""
    s = session_of(tmp_path, [
        user(0, "u1", None, "Watch the build."),
        answer(1, "a1", "u1", "Watching."),
        _said(2, "u2", "a1", "Check if background task b1 finished.", promptSource="system"),
        _said(3, "u3", "a1", "Check if background task b1 finished.", promptSource="system"),
        answer(4, "a2", "u3", "It finished."),
    ])
    assert not [e for e in s.events if e.abandoned]
    assert "abandoned-branch" not in [w.code for w in s.warnings]


def _interrupted(entry: str | None, version: str) -> list[dict[str, Any]]:
    recs = [user(0, "u1", None, "Run the long migration."),
            call(1, "a1", "u1", "t1", "Bash", {"command": "./migrate.sh"}),
            result(2, "r1", "a1", "t1", "[Request interrupted by user for tool use]", err=True),
            user(3, "u2", "r1", [{"type": "text", "text": "[Request interrupted by user for tool use]"}])]
    for r in recs:
        r["version"] = version
        if entry is not None:
            r["entrypoint"] = entry
    recs[2]["toolDenialKind"] = "interrupted"
    return recs


@pytest.mark.parametrize("entry", ["sdk-cli", "sdk-ts", "sdk-py"])
def test_a_print_mode_interrupt_before_2_1_236_is_no_ones_at_a_prompt(tmp_path: Path, entry: str) -> None:
    s = session_of(tmp_path, _interrupted(entry, "2.1.235"))
    assert not [e for e in s.events if e.kind == "interrupt"]
    [note] = [e for e in s.events if e.kind == "note"]
    assert (note.actor, note.info) == ("system", NoteInfo(subtype="interrupt"))
    [w] = [w for w in s.warnings if w.code == "interrupt-unattributed"]
    assert (w.file, w.line) == ("s.jsonl", 4) and entry in w.message and "2.1.235" in w.message
    assert s.quality.extra["unattributed_interrupts"] == 1
    [trace] = retrace(tmp_path / "s.jsonl", tmp_path / "out")
    assert trace["termination_reason"] != "user_abandoned"


@pytest.mark.parametrize(("entry", "version"), [("cli", "2.1.235"), (None, "2.1.235"), ("sdk-cli", "2.1.236"),
                                                ("sdk-ts", "2.1.240")])
def test_an_interrupt_of_an_interactive_or_later_print_mode_session_stays_the_users(
        tmp_path: Path, entry: str | None, version: str) -> None:
    s = session_of(tmp_path, _interrupted(entry, version))
    [e] = [e for e in s.events if e.kind == "interrupt"]
    assert e.actor == "user"
    assert "interrupt-unattributed" not in [w.code for w in s.warnings]
    assert "unattributed_interrupts" not in s.quality.extra
    [trace] = retrace(tmp_path / "s.jsonl", tmp_path / "out")
    assert trace["termination_reason"] == "user_abandoned"
