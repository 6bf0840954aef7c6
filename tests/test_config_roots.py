"""Where the sweep looks by default: where each agent writes, as its own code decides. Claude
Code writes under CLAUDE_CONFIG_DIR when it is set, Codex under CODEX_HOME (and moves an archived
thread to archived_sessions/); the usual folders under the home folder stay roots as well (logs
written before the variable was set)."""

from __future__ import annotations

from pathlib import Path

from forsy.config import claude_home, codex_home, default_log_roots


def test_the_default_roots_without_the_agents_variables(tmp_path: Path) -> None:
    roots = default_log_roots(tmp_path, env={})
    assert roots[:4] == [tmp_path / ".claude" / "projects", tmp_path / ".codex" / "sessions",
                         tmp_path / ".codex" / "archived_sessions", tmp_path / ".gemini" / "tmp"]
    assert len(roots) == len(set(roots))  # no folder twice


def test_the_default_roots_follow_claude_config_dir_and_codex_home(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cc"), "CODEX_HOME": str(tmp_path / "cx")}
    roots = default_log_roots(tmp_path, env=env)
    assert roots[:6] == [tmp_path / "cc" / "projects", tmp_path / ".claude" / "projects",
                         tmp_path / "cx" / "sessions", tmp_path / "cx" / "archived_sessions",
                         tmp_path / ".codex" / "sessions", tmp_path / ".codex" / "archived_sessions"]
    assert (claude_home(env, tmp_path), codex_home(env, tmp_path)) == (tmp_path / "cc", tmp_path / "cx")
    assert (claude_home({"CLAUDE_CONFIG_DIR": ""}, tmp_path), codex_home({"CODEX_HOME": ""}, tmp_path)) == (
        tmp_path / ".claude", tmp_path / ".codex")  # set but empty: as unset
