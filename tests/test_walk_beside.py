"""A folder holding sessions of one agent is read whole: a session file its agent's layout does
not name is not taken for a part of the session beside it when it is a session itself.

Two cases were lost without a word: shell histories beside one another (only those with a
standard name or a content signature were offered; a plain `work.bash_history` beside a
`.zsh_history` was taken for its part), and Claude Code transcripts saved as one JSON array (a
hook's re-save, a print-mode run saved whole) beside `.jsonl` sessions. A file that is a part of
a session (Cline's task files, an old-layout subagent file) is still read with it, once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from _paths import SAMPLES
from forsy import sources
from forsy.sources.walk import discover_tree


def _found(root: Path) -> list[tuple[str, str]]:
    tree = discover_tree(root, sources.available())
    return sorted((src.name, p.relative_to(root).as_posix()) for src, p in tree.found)


def test_every_shell_history_in_a_folder_is_read(tmp_path: Path) -> None:
    (tmp_path / ".zsh_history").write_text(": 1700000000:0;ls\n: 1700000005:0;git status\n")
    (tmp_path / "work.bash_history").write_text("make test\ngit push\n")  # plain bash: only its name tells
    (tmp_path / "old_history").write_text("cd /srv\n")
    assert _found(tmp_path) == [("shell", ".zsh_history"), ("shell", "old_history"), ("shell", "work.bash_history")]


def test_the_shipped_shell_samples_are_all_read() -> None:
    names = {p for _, p in _found(SAMPLES / "shell")}
    assert names == {"epoch.bash_history", "extended.zsh_history", "plain.bash_history",
                     "sample.bash_eternal_history", "sample.fish_history"}


def test_claude_code_sessions_saved_as_json_beside_jsonl_ones_are_read(tmp_path: Path) -> None:
    for name in ("demo-session.jsonl", "hook-array.json", "print-mode-run.jsonl"):
        shutil.copy(SAMPLES / "claude" / name, tmp_path / name)
    run = [json.loads(line) for line in (SAMPLES / "claude" / "print-mode-run.jsonl").read_text().splitlines()]
    (tmp_path / "execution-output.json").write_text(json.dumps(run, indent=2))  # claude-code-action's file
    (tmp_path / "settings.json").write_text('{"model": "opus"}')  # no session: not read, as before
    assert _found(tmp_path) == [("claude_code", n) for n in (
        "demo-session.jsonl", "execution-output.json", "hook-array.json", "print-mode-run.jsonl")]


def test_a_cline_task_is_still_read_once_by_its_history(tmp_path: Path) -> None:
    task = tmp_path / "tasks" / "1769053680585"
    task.mkdir(parents=True)
    (task / "api_conversation_history.json").write_text(json.dumps([
        {"role": "user", "content": [{"type": "text", "text": "<task>\nSay hi.\n</task>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Hi."}]}]))
    (task / "ui_messages.json").write_text(json.dumps([{"ts": 1769053680585, "type": "say", "say": "text",
                                                        "text": "Say hi."}]))
    (task / "task_metadata.json").write_text('{"files_in_context": [], "model_usage": []}')
    assert _found(tmp_path) == [("cline", "tasks/1769053680585/api_conversation_history.json")]


def test_a_store_named_as_its_agent_names_it_that_no_source_reads_is_said_beside_its_sessions(tmp_path: Path) -> None:
    # Goose's sessions folder: its session files, and a damaged `sessions.db` (Goose's store):
    # the sessions are read, the store is named (it is not the agent's settings or cache)
    folder = tmp_path / "sessions"
    shutil.copytree(SAMPLES / "goose" / "sessions", folder)
    (folder / "sessions.db").write_bytes(b"\x00\x01 not a database " * 64)
    (folder / "notes.txt").write_text("the agent's own file")  # no log's name: not said
    tree = discover_tree(tmp_path, sources.available())
    assert sorted(p.name for _, p in tree.found) == sorted(p.name for p in (SAMPLES / "goose" / "sessions").iterdir())
    assert [p.name for p in tree.unrecognised] == ["sessions.db"]
