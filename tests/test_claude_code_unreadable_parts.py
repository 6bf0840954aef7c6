"""A Claude Code session whose subagents' folder or transcript the user may not read (mode 000,
as a user who is not root meets it): the session is read from what can be read, and each part
that could not be is named with the session's file. Before, a folder that could not be listed
dropped its subagents' work without a word, and one transcript that could not be opened failed
the whole session. The tests run as root in CI, where mode 000 stops nothing: the denial is
made where the reader meets it (listing, stat, open)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

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


def deny(monkeypatch: pytest.MonkeyPatch, name: str, target: Path) -> None:
    """os.`name` on `target` raises PermissionError, as for a user who may not."""
    real: Callable[..., Any] = getattr(os, name)

    def denied(p: Any, *a: Any, **k: Any) -> Any:
        if isinstance(p, (str, os.PathLike)) and Path(p) == target:
            raise PermissionError(13, "Permission denied", str(p))
        return real(p, *a, **k)

    monkeypatch.setattr(os, name, denied)


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
