"""A Claude Code session whose subagents' folder or transcript the user may not read (mode 000,
as a user who is not root meets it): the session is read from what can be read, and each part
that could not be is named with the session's file. Before, a folder that could not be listed
dropped its subagents' work without a word, and one transcript that could not be opened failed
the whole session. The tests run as root in CI, where mode 000 stops nothing: the denial is
made where the reader meets it (listing, stat, open)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from _denied import deny
from _paths import SAMPLES
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource

SID = "c7133dee-e28c-4d03-8ec3-1209007ef3b4"
AGENT = "agent-ad0dfa3.jsonl"


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    shutil.copytree(SAMPLES / "claude" / "subagents", tmp_path / "p")
    return tmp_path / "p" / f"{SID}.jsonl"


def read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def transcript_read(s: Session) -> bool:
    """Whether the subagent's own transcript is among the files the session was read from."""
    return any(Path(f.path).name == AGENT for f in s.files)


def test_the_whole_session_is_read_with_its_subagent(session_file: Path) -> None:
    s = read(session_file)
    assert transcript_read(s) and not [w for w in s.warnings if w.code == "subagent_unreadable"]


def test_a_subagents_folder_that_may_not_be_listed_is_named(session_file: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    deny(monkeypatch, "scandir", session_file.parent / SID / "subagents")
    s = read(session_file)
    assert not transcript_read(s)
    [w] = [w for w in s.warnings if w.code == "subagent_unreadable"]
    assert (w.file, w.line) == (session_file.name, None)
    assert w.message == f"folder {SID}/subagents/ could not be read (Permission denied): a subagent's work there " \
                        "is not here"


def test_a_session_folder_that_may_not_be_looked_into_is_named(session_file: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    deny(monkeypatch, "stat", session_file.parent / SID / "subagents")
    s = read(session_file)
    assert not transcript_read(s)
    [w] = [w for w in s.warnings if w.code == "subagent_unreadable"]
    assert w.message.startswith(f"folder {SID}/ could not be read (Permission denied)")


def test_a_transcript_that_may_not_be_opened_is_named_and_the_session_read(
        session_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deny(monkeypatch, "open", session_file.parent / SID / "subagents" / AGENT)
    s = read(session_file)
    assert not transcript_read(s)
    assert [e.kind for e in s.events if e.kind == "user"]  # the session's own work is there
    [w] = [w for w in s.warnings if w.code == "subagent_unreadable"]
    assert (w.file, w.message) == (f"{SID}/subagents/{AGENT}", "subagent ad0dfa3's transcript could not be read, "
                                                              "its events are not here: permission denied")


WIN = "5e0c2a1f-7b3d-4c8e-9a6f-1d2e3f4a5b6c"


@pytest.mark.parametrize("denied", ["open", "stat"])
def test_a_saved_output_that_may_not_be_read_leaves_the_preview_and_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, denied: str) -> None:
    """The whole output Claude Code saved beside its log (tool-results/<id>.txt), there but not to
    be read (the file, or its folder looked into): the call keeps the preview the model was given,
    counted as cut and warned at the result's record; it failed the whole session."""
    shutil.copytree(Path(__file__).parent / "fixtures" / "claude" / "windows-session", tmp_path / "p")
    path = tmp_path / "p" / f"{WIN}.jsonl"
    saved = path.parent / WIN / "tool-results" / "toolu_main.txt"
    deny(monkeypatch, denied, saved)
    s = read(path)
    [w] = [w for w in s.warnings if w.code == "saved-output-unreadable"]
    assert w.file == path.name and w.line is not None
    assert "could not be read (" in w.message and w.message.endswith("the trace holds only the preview the model "
                                                                      "was given")
    cut = [e for e in s.events if e.kind == "tool_result" and getattr(e.info, "persisted_missing", False)]
    assert len(cut) == 1 and s.quality.truncated_outputs >= 1
    assert saved.name not in {Path(f.path).name for f in s.files}
