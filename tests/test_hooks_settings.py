"""`forsy hook install|uninstall|status` on the agents' settings files: forsy's entry only,
twice = once, a backup beside it that never overwrites the user's, and the user's bytes back
on uninstall (Claude Code and Gemini CLI settings.json, Codex config.toml with its comments
and a notify of the user's, chained)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from forsy import hooks
from forsy.cli import app

runner = CliRunner()

# A user's Claude Code settings: other keys, a hook of their own on Stop, 2-space indent
CLAUDE_SETTINGS = """{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(npm test)"],
    "deny": []
  },
  "hooks": {
    "Stop": [
      {
        "matcher": "",
        "hooks": [{"type": "command", "command": "notify-send 'Claude is done'", "timeout": 5}]
      }
    ],
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/check-bash"}]}
    ]
  },
  "env": {"FOO": "é"}
}
"""

GEMINI_SETTINGS = """{
    "theme": "GitHub",
    "hooksConfig": {"notifications": false},
    "hooks": {
        "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./audit.sh"}]}]
    }
}"""

# A Codex config with comments, a multi-line notify of the user's, and tables after it
CODEX_CONFIG = """# Codex settings, kept in my dotfiles
model = "gpt-5-codex"   # the default model
approval_policy = "on-request"

# ping my phone when a turn is done
notify = [
  "python3",
  "/home/me/bin/ping.py",  # with a comment inside
]

[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "9000"]
"""


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """forsy's data folder (hook log, install record, store) and every agent home in tmp."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("FORSY_STORE", f"sqlite:///{tmp_path / 'store.db'}")
    monkeypatch.setenv("FORSY_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def test_claude_install_twice_is_once_and_uninstall_gives_the_bytes_back(tmp_path: Path) -> None:
    path = tmp_path / "claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(CLAUDE_SETTINGS, encoding="utf-8")
    first = hooks.install("claude-code")
    assert first.changed and first.backup is not None
    assert first.backup.read_text(encoding="utf-8") == CLAUDE_SETTINGS
    after = path.read_bytes()
    doc = json.loads(after)
    before = json.loads(CLAUDE_SETTINGS)
    assert {k: v for k, v in doc.items() if k != "hooks"} == {k: v for k, v in before.items() if k != "hooks"}
    assert list(doc) == list(before)  # key order kept
    assert doc["hooks"]["Stop"][0] == before["hooks"]["Stop"][0]  # the user's own hook first, untouched
    assert doc["hooks"]["PreToolUse"] == before["hooks"]["PreToolUse"]
    for event in ("SessionEnd", "Stop", "PreCompact"):
        ours = [h for g in doc["hooks"][event] for h in g["hooks"] if "forsy.hooks" in h["command"]]
        assert len(ours) == 1 and ours[0]["type"] == "command"
    assert '"é"' in after.decode()  # not escaped to \\u00e9

    again = hooks.install("claude-code")
    assert not again.changed and path.read_bytes() == after
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json", "settings.json.forsy-backup"]

    st = hooks.status("claude-code")
    assert st.installed == ["PreCompact", "SessionEnd", "Stop"] and st.backup == first.backup and not st.warnings

    gone = hooks.uninstall("claude-code")
    assert gone.changed and path.read_text(encoding="utf-8") == CLAUDE_SETTINGS
    assert not first.backup.exists()  # it held the same bytes as the file now
    assert not hooks.uninstall("claude-code").changed


def test_a_backup_of_the_users_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(CLAUDE_SETTINGS, encoding="utf-8")
    mine = path.with_name("settings.json.forsy-backup")
    mine.write_text("my own notes", encoding="utf-8")
    ch = hooks.install("claude-code")
    assert ch.backup == path.with_name("settings.json.forsy-backup.1")
    assert mine.read_text(encoding="utf-8") == "my own notes"
    hooks.uninstall("claude-code")
    assert path.read_text(encoding="utf-8") == CLAUDE_SETTINGS and mine.read_text(encoding="utf-8") == "my own notes"


def test_uninstall_after_the_user_changed_the_file_removes_forsys_entries_only(tmp_path: Path) -> None:
    path = tmp_path / "claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(CLAUDE_SETTINGS, encoding="utf-8")
    ch = hooks.install("claude-code")
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["theme"] = "dark"  # the user (or Claude Code) writes the file meanwhile
    doc["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": "say done"})
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    hooks.uninstall("claude-code")
    got = json.loads(path.read_text(encoding="utf-8"))
    want = json.loads(CLAUDE_SETTINGS)
    want["theme"] = "dark"
    want["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": "say done"})
    assert got == want  # no empty SessionEnd/PreCompact lists left behind: install had made them
    assert ch.backup is not None and ch.backup.read_text(encoding="utf-8") == CLAUDE_SETTINGS  # kept


def test_install_changes_nothing_when_forsy_cannot_record_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(CLAUDE_SETTINGS, encoding="utf-8")
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "a-file" / "data"))  # no folder can be made there
    with pytest.raises(hooks.HookError, match="nothing changed"):
        hooks.install("claude-code")
    assert path.read_text(encoding="utf-8") == CLAUDE_SETTINGS
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_a_settings_file_that_did_not_exist_is_made_and_removed(tmp_path: Path) -> None:
    path = tmp_path / "claude" / "settings.json"
    ch = hooks.install("claude-code")
    assert ch.changed and ch.backup is None and path.is_file()
    assert set(json.loads(path.read_text())["hooks"]) == {"SessionEnd", "Stop", "PreCompact"}
    hooks.uninstall("claude-code")
    assert not path.exists()


def test_gemini_install_keeps_the_rest_and_uninstall_gives_the_bytes_back(tmp_path: Path) -> None:
    path = tmp_path / "gemini-settings.json"
    path.write_text(GEMINI_SETTINGS, encoding="utf-8")
    hooks.install("gemini", path)
    text = path.read_text(encoding="utf-8")
    assert '\n    "theme"' in text  # its 4-space indent kept
    doc = json.loads(text)
    assert doc["hooksConfig"] == {"notifications": False} and doc["theme"] == "GitHub"
    assert doc["hooks"]["BeforeTool"] == json.loads(GEMINI_SETTINGS)["hooks"]["BeforeTool"]
    for event in ("SessionEnd", "AfterAgent", "PreCompress"):
        (g,) = doc["hooks"][event]
        assert g["hooks"][0]["name"] == "forsy" and "--agent gemini" in g["hooks"][0]["command"]
    hooks.install("gemini", path)
    assert path.read_text(encoding="utf-8") == text
    hooks.uninstall("gemini", path)
    assert path.read_text(encoding="utf-8") == GEMINI_SETTINGS


def test_gemini_switches_inside_hooks_are_left_alone(tmp_path: Path) -> None:
    """Gemini CLI before 0.26 kept `enabled` and `disabled` inside `hooks`, beside the events."""
    path = tmp_path / "gemini-settings.json"
    text = '{"hooks": {"enabled": true, "disabled": ["./x.sh"], "AfterAgent": []}}'
    path.write_text(text, encoding="utf-8")
    hooks.install("gemini", path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["hooks"]["enabled"] is True and doc["hooks"]["disabled"] == ["./x.sh"]
    assert hooks.status("gemini", path).installed == ["AfterAgent", "PreCompress", "SessionEnd"]
    hooks.uninstall("gemini", path)
    assert path.read_text(encoding="utf-8") == text


def test_gemini_hooks_turned_off_is_said_by_status(tmp_path: Path) -> None:
    path = tmp_path / "gemini-settings.json"
    path.write_text('{"hooksConfig": {"enabled": false}}\n', encoding="utf-8")
    hooks.install("gemini", path)
    assert any("enabled is false" in w for w in hooks.status("gemini", path).warnings)


def test_settings_with_comments_are_not_written(tmp_path: Path) -> None:
    """Gemini CLI strips comments from its settings before parsing; writing JSON back would lose them."""
    path = tmp_path / "gemini-settings.json"
    text = '{\n  // my theme\n  "theme": "GitHub"\n}\n'
    path.write_text(text, encoding="utf-8")
    with pytest.raises(hooks.HookError, match="not plain JSON"):
        hooks.install("gemini", path)
    assert path.read_text(encoding="utf-8") == text and list(tmp_path.glob("*.forsy-backup*")) == []
    r = runner.invoke(app, ["hook", "install", "--agent", "gemini", "--settings", str(path)])
    assert r.exit_code == 2 and "not plain JSON" in r.output


def test_codex_notify_of_the_users_is_chained_and_restored(tmp_path: Path) -> None:
    path = tmp_path / "codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(CODEX_CONFIG, encoding="utf-8")
    ch = hooks.install("codex")
    assert "ping.py" in ch.message  # said, not replaced silently
    text = path.read_text(encoding="utf-8")
    got, old = tomllib.loads(text), tomllib.loads(CODEX_CONFIG)
    assert {k: v for k, v in got.items() if k != "notify"} == {k: v for k, v in old.items() if k != "notify"}
    assert got["notify"][:6] == hooks.hook_argv("codex")
    assert json.loads(got["notify"][got["notify"].index("--chain") + 1]) == old["notify"]
    for line in CODEX_CONFIG.splitlines():  # every comment and line of the user's still there, in order
        assert line in text
    assert text.index("model =") < text.index("notify = [\"") < text.index("[mcp_servers.docs]")
    assert hooks.status("codex").chained == old["notify"]

    hooks.install("codex")
    assert path.read_text(encoding="utf-8") == text
    hooks.uninstall("codex")
    assert path.read_text(encoding="utf-8") == CODEX_CONFIG
    assert list(path.parent.glob("*.forsy-backup*")) == []


def test_codex_config_without_notify(tmp_path: Path) -> None:
    path = tmp_path / "codex" / "config.toml"
    path.parent.mkdir()
    text = 'model = "o3"\r\n\r\n[profiles.fast]\r\nmodel = "o4-mini"\r\n'  # Windows line ends kept
    path.write_bytes(text.encode())
    hooks.install("codex")
    got = tomllib.loads(path.read_text())
    assert got["notify"] == hooks.hook_argv("codex") and got["profiles"] == {"fast": {"model": "o4-mini"}}
    assert b"\r\n" in path.read_bytes() and b"\n" not in path.read_bytes().replace(b"\r\n", b"")
    hooks.uninstall("codex")
    assert path.read_bytes() == text.encode()


def test_forsys_hook_written_by_hand_is_not_added_twice(tmp_path: Path) -> None:
    path = tmp_path / "claude" / "settings.json"
    path.parent.mkdir()
    by_hand = {"hooks": {"SessionEnd": [{"hooks": [{"type": "command",
                                                    "command": "forsy hook run --agent claude-code"}]}]}}
    path.write_text(json.dumps(by_hand), encoding="utf-8")
    hooks.install("claude-code")
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert [len(doc["hooks"][e]) for e in ("SessionEnd", "Stop", "PreCompact")] == [1, 1, 1]
    codex = tmp_path / "codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text('notify = ["forsy", "hook", "run", "--agent", "codex"]\n', encoding="utf-8")
    with pytest.raises(hooks.HookError, match="already"):
        hooks.install("codex")
    assert codex.read_text(encoding="utf-8") == 'notify = ["forsy", "hook", "run", "--agent", "codex"]\n'


def test_codex_notify_not_a_list_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "codex" / "config.toml"
    path.parent.mkdir()
    path.write_text('notify = "ping"\n', encoding="utf-8")
    with pytest.raises(hooks.HookError):
        hooks.install("codex")
    assert path.read_text(encoding="utf-8") == 'notify = "ping"\n'


def test_cli_install_status_uninstall(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(CLAUDE_SETTINGS, encoding="utf-8")
    r = runner.invoke(app, ["hook", "install", "--agent", "claude-code", "--settings", str(path)])
    assert r.exit_code == 0 and "installed" in r.output
    r = runner.invoke(app, ["hook", "status", "--agent", "claude-code", "--settings", str(path), "--json"])
    got = json.loads(r.output)
    assert got["agents"][0]["installed"] == ["PreCompact", "SessionEnd", "Stop"]
    r = runner.invoke(app, ["hook", "uninstall", "--agent", "claude-code", "--settings", str(path)])
    assert r.exit_code == 0 and path.read_text(encoding="utf-8") == CLAUDE_SETTINGS


def test_cli_an_unknown_agent_is_a_usage_error_not_a_crash() -> None:
    r = runner.invoke(app, ["hook", "install", "--agent", "cursor"])
    assert r.exit_code == 2 and "claude-code, codex, gemini" in r.output
