"""`forsy sweep` takes every kind of log forsy reads, not only JSONL sessions: a Gemini chat
(`.json`), a terminal recording (`.cast`), a shell history, Aider's markdown history. Before,
its file walk looked only at `*.jsonl`, so a root holding only these reported "0 session
files" and traced nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from _paths import SAMPLES
from forsy.store import Store, TraceQuery, open_store
from forsy.sweep import SweepOptions, SweepReport, sweep

FIX = Path(__file__).parent / "fixtures"


def _gemini(root: Path) -> None:
    chats = root / "gemini" / "tmp" / "h1" / "chats"
    chats.mkdir(parents=True)
    (chats / "session-1.json").write_text(json.dumps({
        "sessionId": "g-1", "projectHash": "h1", "startTime": "2026-01-01T00:00:00Z", "messages": [
            {"id": "u1", "timestamp": "2026-01-01T00:00:01Z", "type": "user", "content": "list files"},
            {"id": "g1", "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": "done", "model": "m"}]},
        indent=2))
    (root / "gemini" / "tmp" / "h1" / "logs.json").write_text(json.dumps([
        {"sessionId": "g-1", "messageId": 0, "type": "user", "message": "list files",
         "timestamp": "2026-01-01T00:00:01Z"}]))


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    _gemini(root)
    (root / "rec").mkdir(parents=True)
    shutil.copy(FIX / "asciinema" / "typed.cast", root / "rec" / "typed.cast")
    (root / "home").mkdir()
    shutil.copy(SAMPLES / "shell" / "extended.zsh_history", root / "home" / ".zsh_history")
    shutil.copytree(FIX / "aider" / "project", root / "proj")
    return root


def _sweep(store: Store, root: Path) -> SweepReport:
    return sweep(store, SweepOptions(roots=[root], ignore_settle=True, claude_home=root / "no-claude-home"))


def test_a_sweep_traces_every_kind_of_log_it_finds(logs: Path, tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        first = _sweep(store, logs)
        assert first.counts.failed == 0, first.failures
        kinds = sorted({r.source_kind for r in store.traces(TraceQuery(limit=100))})
        assert kinds == ["aider", "asciinema", "gemini", "shell"]
        # the chat's logs.json is part of its session (read with it), not a session of its own
        states = store.file_states([str(logs)])
        logs_json = str(logs / "gemini" / "tmp" / "h1" / "logs.json")
        assert states[logs_json].status in ("member", "ignored")
        # nothing changed: the second run reads nothing
        second = _sweep(store, logs)
        assert (second.counts.traced, second.counts.new, second.counts.unchanged) == (0, 0, first.counts.seen)
        # a recording that grows is traced again, alone
        with open(logs / "rec" / "typed.cast", "a") as f:
            f.write('[99.0, "o", "more output\\r\\n"]\n')
        third = _sweep(store, logs)
        assert (third.counts.grown + third.counts.rewritten, third.counts.traced) == (1, 1)
    finally:
        store.close()


def test_an_empty_session_file_is_read_by_the_source_that_found_it(tmp_path: Path) -> None:
    """Claude Code creates a session file before it writes to it: the sweep reads it with
    the source whose discovery found it (no work: skipped), not by sniffing (an empty file
    sniffs as nothing, and was a failure on every run)."""
    proj = tmp_path / "projects" / "-home-dev-p"
    proj.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", proj / "a.jsonl")
    (proj / "b.jsonl").write_bytes(b"")
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        rep = _sweep(store, tmp_path / "projects")
        assert (rep.counts.failed, rep.counts.traced, rep.counts.skipped) == (0, 1, 1), rep.failures
        assert rep.exit_code == 0
    finally:
        store.close()
