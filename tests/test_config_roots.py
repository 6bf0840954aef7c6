"""Where the sweep looks by default: where each agent writes, as its own code decides. Claude
Code writes under CLAUDE_CONFIG_DIR when it is set, Codex under CODEX_HOME (and moves an archived
thread to archived_sessions/); the usual folders under the home folder stay roots as well (logs
written before the variable was set)."""

from __future__ import annotations

from pathlib import Path

from forsy.config import claude_home, codex_home, default_log_roots
from forsy.sources.cline.source import cline_data_dir


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


def test_cline_is_looked_for_in_every_editor_it_runs_in_and_outside_them(tmp_path: Path) -> None:
    roots = default_log_roots(tmp_path, env={})
    tasks = "User/globalStorage/saoudrizwan.claude-dev/tasks"
    for editor in ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"):
        assert tmp_path / ".config" / editor / tasks in roots  # Linux
        assert tmp_path / "Library" / "Application Support" / editor / tasks in roots  # macOS
    for server in (".vscode-server", ".cursor-server", ".windsurf-server"):
        assert tmp_path / server / "data" / tasks in roots  # a remote host
    # the standalone core (JetBrains, the CLI) keeps its tasks in ~/.cline/data/tasks, the SDK its sessions
    assert {tmp_path / ".cline" / "data" / "tasks", tmp_path / ".cline" / "data" / "sessions"} <= set(roots)
    assert len(roots) == len(set(roots))


def test_the_cline_roots_follow_clines_own_variables(tmp_path: Path) -> None:
    def cline(env: dict[str, str]) -> list[Path]:
        return [r for r in default_log_roots(tmp_path, env=env) if r.name in ("tasks", "sessions")
                and not {"globalStorage", ".openhands", ".codex", "goose"} & set(r.parts)]
    home = [tmp_path / ".cline" / "data" / "tasks", tmp_path / ".cline" / "data" / "sessions"]
    assert cline({}) == home
    assert cline({"CLINE_DIR": f" {tmp_path}/c "}) == home + [tmp_path / "c" / "data" / "tasks",
                                                             tmp_path / "c" / "data" / "sessions"]
    # CLINE_DATA_DIR wins over CLINE_DIR, as in Cline's resolveClineDataDir; blank is unset
    assert cline({"CLINE_DIR": str(tmp_path / "c"), "CLINE_DATA_DIR": str(tmp_path / "d")}) == home + [
        tmp_path / "d" / "tasks", tmp_path / "d" / "sessions"]
    assert cline({"CLINE_DATA_DIR": "  ", "CLINE_DIR": ""}) == home
    roots = default_log_roots(tmp_path, env={"CLINE_SESSION_DATA_DIR": str(tmp_path / "s")})
    assert [r for r in roots if r not in default_log_roots(tmp_path, env={})] == [tmp_path / "s"]  # the SDK's sessions
    assert set(home) <= set(roots)  # and where they were before it was set
    assert cline_data_dir({}, tmp_path) == tmp_path / ".cline" / "data"


def test_gemini_and_mini_swe_agent_roots_follow_their_variables(tmp_path: Path) -> None:
    plain = default_log_roots(tmp_path, env={})
    env = {"GEMINI_CLI_HOME": str(tmp_path / "g"), "MSWEA_GLOBAL_CONFIG_DIR": str(tmp_path / "m")}
    roots = default_log_roots(tmp_path, env=env)
    # each added beside the default folders it stands for (logs written before it was set)
    assert [r for r in roots if r not in plain] == [tmp_path / "g" / ".gemini" / "tmp", tmp_path / "m"]
    assert roots.index(tmp_path / "g" / ".gemini" / "tmp") == roots.index(tmp_path / ".gemini" / "tmp") + 1
    assert default_log_roots(tmp_path, env={"GEMINI_CLI_HOME": "", "MSWEA_GLOBAL_CONFIG_DIR": ""}) == plain
