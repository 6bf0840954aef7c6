"""`forsy hook`: the agents' settings edited (forsy's entry only, twice = once, the user's bytes
back on uninstall), and the hook fed each agent's payload shapes: the draft it makes is the
sweep's, a later sweep finds it unchanged, and nothing reaches the agent (exit 0, no stdout)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _paths import SAMPLES, needs_shared, real_logs
from forsy import hooks
from forsy.cli import app
from forsy.hooks import log_path, read_log
from forsy.hooks import run as hook_run
from forsy.store import TraceQuery, open_store
from forsy.sweep import SweepOptions, sweep

runner = CliRunner()
FIXTURES = Path(__file__).parent / "fixtures"
SUB_ID = "c7133dee-e28c-4d03-8ec3-1209007ef3b4"
CODEX_THREAD = "019e2a10-0000-7000-8000-00000000aaaa"
GEMINI_CHAT = next((FIXTURES / "gemini").rglob("session-*.jsonl"))

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


def env() -> dict[str, str]:
    return dict(os.environ)


def log_lines() -> list[list[str]]:
    return read_log()


# ------------------------------------------------------------------ settings files
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


# ------------------------------------------------------------------ the hook run
def claude_tree(tmp: Path) -> Path:
    """A ~/.claude/projects folder: one session with a subagent's log beside it."""
    proj = tmp / "projects" / "-home-dev-app"
    proj.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "subagents" / f"{SUB_ID}.jsonl", proj / f"{SUB_ID}.jsonl")
    shutil.copytree(SAMPLES / "claude" / "subagents" / SUB_ID, proj / SUB_ID)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", proj / "demo-session.jsonl")
    return proj


def claude_payload(transcript: Path, event: str = "SessionEnd") -> str:
    """The shapes Claude Code sends on stdin (its hooks reference: common fields + the event's)."""
    common = {"session_id": SUB_ID, "transcript_path": str(transcript), "cwd": "/home/dev/app",
              "hook_event_name": event}
    extra = {"SessionEnd": {"reason": "prompt_input_exit"},
             "Stop": {"stop_hook_active": False, "permission_mode": "default"},
             "PreCompact": {"trigger": "auto", "custom_instructions": ""}}[event]
    return json.dumps({**common, **extra})


def drafts(url: str, under: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """The store's traces and the file states it keeps under `under`, in comparable form."""
    st = open_store(url)
    try:
        rows = st.traces(TraceQuery(limit=100))
        files = st.file_states([str(under)])
        return (sorted((r.trace_id, r.session_id, r.unit_path, r.steps, r.turns, r.task, r.prior_trace_id,
                        r.source_kind, tuple(sorted(r.sha256.items()))) for r in rows),
                sorted((f.path, f.unit_path, f.status, f.size, f.mtime_ns, f.head_sha256, f.tail_sha256, f.read_to)
                       for f in files.values()))
    finally:
        st.close()


@pytest.mark.parametrize("event", ["SessionEnd", "Stop", "PreCompact"])
def test_claude_hook_makes_the_sweeps_draft_and_a_sweep_then_finds_it_unchanged(tmp_path: Path, event: str,
                                                                                 capsys: pytest.CaptureFixture[str]
                                                                                 ) -> None:
    proj = claude_tree(tmp_path)
    transcript = proj / f"{SUB_ID}.jsonl"
    code = hook_run("claude-code", None, inline=True, payload=claude_payload(transcript, event), wait_s=0)
    assert code == 0 and capsys.readouterr().out == ""
    hooked = drafts(os.environ["FORSY_STORE"], proj)
    assert len(hooked[0]) == 1 and hooked[0][0][1] == SUB_ID
    assert {f[0] for f in hooked[1]} == {str(p) for p in proj.rglob("*.jsonl")} - {str(proj / "demo-session.jsonl")}

    other = f"sqlite:///{tmp_path / 'other' / 'store.db'}"  # what `forsy sweep` makes of the same session
    (tmp_path / "other").mkdir()
    st = open_store(other)
    try:
        sweep(st, SweepOptions(roots=[transcript, transcript.with_suffix("")], ignore_settle=True))
    finally:
        st.close()
    assert drafts(other, proj) == hooked  # the same trace (id = content hash), the same files remembered

    st = open_store(os.environ["FORSY_STORE"])  # cron's sweep over the whole folder, after the hook
    try:
        rep = sweep(st, SweepOptions(roots=[proj], ignore_settle=True))
        rows = st.traces(TraceQuery(limit=100))
    finally:
        st.close()
    assert rep.counts.unchanged == 1 and rep.counts.new == 1 and rep.counts.grown == 0  # demo-session is new
    assert sum(r.session_id == SUB_ID for r in rows) == 1
    (line,) = log_lines()
    assert line[1:4] == ["claude-code", event, "ok"] and line[4] == str(transcript)


def test_a_relative_transcript_path_and_a_bom_are_taken_as_the_agent_meant(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    proj = claude_tree(tmp_path)
    monkeypatch.chdir(proj)
    payload = "\ufeff" + json.dumps({"session_id": SUB_ID, "transcript_path": f"{SUB_ID}.jsonl",
                                     "hook_event_name": "SessionEnd", "reason": "other"})
    assert hook_run("claude-code", None, inline=True, payload=payload, wait_s=0) == 0
    line = log_lines()[-1]
    assert line[3] == "ok" and line[4] == str(proj / f"{SUB_ID}.jsonl")


def test_a_session_still_growing_gets_a_grown_draft_not_a_duplicate(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    proj.mkdir()
    full = (SAMPLES / "claude" / "demo-session.jsonl").read_bytes().splitlines(keepends=True)
    transcript = proj / "demo.jsonl"
    transcript.write_bytes(b"".join(full[: len(full) // 2]))
    assert hook_run("claude-code", None, inline=True, payload=claude_payload(transcript, "Stop"), wait_s=0) == 0
    with open(transcript, "ab") as f:
        f.write(b"".join(full[len(full) // 2:]))
    assert hook_run("claude-code", None, inline=True, payload=claude_payload(transcript, "SessionEnd"), wait_s=0) == 0
    st = open_store(os.environ["FORSY_STORE"])
    try:
        rows = st.traces(TraceQuery(limit=100))
        rep = sweep(st, SweepOptions(roots=[proj], ignore_settle=True))
    finally:
        st.close()
    assert len(rows) == 2
    newer, older = sorted(rows, key=lambda r: r.prior_trace_id is None)
    assert newer.prior_trace_id == older.trace_id  # linked
    assert rep.counts.unchanged == 1 and rep.counts.traces_written == 0
    assert "1 grown" in log_lines()[-1][5]


def codex_tree(tmp: Path) -> Path:
    shutil.copytree(SAMPLES / "codex" / "sessions", tmp / "codex" / "sessions")
    return next((tmp / "codex" / "sessions").rglob(f"*{CODEX_THREAD}.jsonl"))


def codex_payload(**over: object) -> str:
    """What Codex appends to the notify argv (codex-rs UserNotification::AgentTurnComplete)."""
    p: dict[str, object] = {"type": "agent-turn-complete", "thread-id": CODEX_THREAD, "turn-id": "019e2a10-0001",
                            "cwd": "/home/dev/shop", "client": "codex-tui", "input-messages": ["add a cart page"],
                            "last-assistant-message": "Added `cart.tsx` and its test."}
    p.update(over)
    return json.dumps({k: v for k, v in p.items() if v is not None})


@pytest.mark.parametrize("payload", [codex_payload(), codex_payload(**{"thread-id": None, "client": None})],
                         ids=["thread-id", "cwd-only"])
def test_codex_notify_finds_the_rollout_and_makes_its_draft(tmp_path: Path, payload: str) -> None:
    rollout = codex_tree(tmp_path)
    assert hook_run("codex", payload, inline=True, wait_s=0) == 0
    line = log_lines()[-1]
    assert line[3] == "ok" and line[4] == str(rollout) and "1 new" in line[5]
    st = open_store(os.environ["FORSY_STORE"])
    try:
        rep = sweep(st, SweepOptions(roots=[tmp_path / "codex" / "sessions"], ignore_settle=True))
    finally:
        st.close()
    assert rep.counts.unchanged == 1 and rep.counts.traces_written == 0


def test_codex_other_notifications_are_skipped(tmp_path: Path) -> None:
    codex_tree(tmp_path)
    assert hook_run("codex", json.dumps({"type": "approval-requested"}), inline=True, wait_s=0) == 0
    assert log_lines()[-1][3] == "skipped"


def test_gemini_hook_makes_the_draft(tmp_path: Path) -> None:
    chats = tmp_path / "gemini" / "tmp" / "abc" / "chats"
    chats.mkdir(parents=True)
    chat = chats / GEMINI_CHAT.name
    shutil.copy(GEMINI_CHAT, chat)
    for event, extra in (("AfterAgent", {"prompt": "fix it", "prompt_response": "done", "stop_hook_active": False}),
                         ("SessionEnd", {"reason": "exit"})):
        payload = {"session_id": "8f2c1a9b", "transcript_path": str(chat), "cwd": "/home/dev/app",
                   "hook_event_name": event, "timestamp": "2026-03-04T10:20:00.000Z", **extra}
        assert hook_run("gemini", None, inline=True, payload=json.dumps(payload), wait_s=0) == 0
    a, b = log_lines()
    assert a[3] == b[3] == "ok" and "1 new" in a[5] and "1 unchanged" in b[5]


@pytest.mark.parametrize("payload,why", [
    ('{"session_id": "x", "transcript_path": "/nowhere/gone.jsonl", "hook_event_name": "SessionEnd"}',
     "cannot read the session file"),
    ('{"session_id": "x", "hook_event_name": "Stop"}', "no transcript_path"),
    ("not json at all", "not JSON"),
    ("", "no payload"),
])
def test_what_cannot_be_read_is_logged_and_shown_by_status(payload: str, why: str) -> None:
    assert hook_run("claude-code", None, inline=True, payload=payload, wait_s=0) == 1
    line = log_lines()[-1]
    assert line[3] == "failed" and why in line[5]
    r = runner.invoke(app, ["hook", "status", "--agent", "claude-code"])
    assert r.exit_code == 0 and why in r.output and str(log_path()) in r.output


def test_an_unreadable_transcript_is_logged(tmp_path: Path) -> None:
    d = tmp_path / "a-folder.jsonl"  # reading it fails whoever runs the test (root reads a mode-000 file)
    d.mkdir()
    assert hook_run("claude-code", None, inline=True, payload=claude_payload(d), wait_s=0) == 1
    line = log_lines()[-1]
    assert line[3] == "failed" and line[4] == str(d) and "cannot read" in line[5]


def test_a_file_the_sweep_cannot_trace_is_in_the_sweep_status(tmp_path: Path) -> None:
    bad = tmp_path / "p" / "notes.jsonl"
    bad.parent.mkdir()
    bad.write_text("hello there\nnot a log\n", encoding="utf-8")
    assert hook_run("claude-code", None, inline=True, payload=claude_payload(bad), wait_s=0) == 1
    r = runner.invoke(app, ["sweep", "--status", "--json"])
    status = json.loads(r.output)
    assert status["runs"][0]["roots"] == [str(bad)]
    assert [f["path"] for f in status["failures"]] == [str(bad)] and r.exit_code == 7
    line = log_lines()[-1]
    assert line[3] == "failed" and line[4] == str(bad) and "not a log format" in line[5]


def test_the_foreground_returns_at_once_says_nothing_and_the_background_makes_the_draft(tmp_path: Path) -> None:
    proj = claude_tree(tmp_path)
    transcript = proj / f"{SUB_ID}.jsonl"
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "forsy.hooks", "run", "--agent", "claude-code"],
                       input=claude_payload(transcript).encode(), capture_output=True, env=env(), timeout=60)
    held = time.perf_counter() - t0
    assert r.returncode == 0 and r.stdout == b"" and r.stderr == b""
    assert held < 3.0, held  # a Python start; the sweep runs after it returned
    deadline = time.monotonic() + 90
    while not log_lines() and time.monotonic() < deadline:
        time.sleep(0.2)
    (line,) = log_lines()
    assert line[3] == "ok" and "1 new" in line[5]


def test_codex_chained_program_gets_the_same_argument(tmp_path: Path) -> None:
    codex_tree(tmp_path)
    seen = tmp_path / "seen.json"
    prog = tmp_path / "ping.py"
    prog.write_text(f"import sys, pathlib; pathlib.Path({str(seen)!r}).write_text(sys.argv[-1])\n")
    payload = codex_payload()
    argv = [sys.executable, "-m", "forsy.hooks", "run", "--agent", "codex",
            "--chain", json.dumps([sys.executable, str(prog)]), payload]
    r = subprocess.run(argv, capture_output=True, env=env(), timeout=60)
    assert r.returncode == 0 and r.stdout == b""
    deadline = time.monotonic() + 60
    while not (seen.exists() and log_lines()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert seen.read_text() == payload
    assert log_lines()[-1][3] == "ok"


def test_bad_arguments_still_exit_0_quietly() -> None:
    r = subprocess.run([sys.executable, "-m", "forsy.hooks", "run", "--agent", "nobody", "--what"],
                       capture_output=True, env=env(), timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")
    assert "does not take" in log_lines()[-1][5]


def test_cli_run_inline_prints_nothing(tmp_path: Path) -> None:
    proj = claude_tree(tmp_path)
    r = runner.invoke(app, ["hook", "run", "--agent", "claude-code", "--inline", "--wait", "0"],
                      input=claude_payload(proj / f"{SUB_ID}.jsonl"))
    assert r.exit_code == 0 and r.stdout == ""
    assert log_lines()[-1][3] == "ok"


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


@pytest.mark.real_logs
@needs_shared
def test_real_sessions_hooked_are_unchanged_for_the_next_sweep(tmp_path: Path) -> None:
    """Claude Code sessions (with their subagents' folders) and Codex rollouts of the real logs:
    the hook's draft is the one the folder's sweep would make, so that sweep has nothing to do."""
    claude = [p for p in real_logs("claude") if "subagents" not in p.parts and 0 < p.stat().st_size < 2_000_000]
    codex = [p for p in real_logs("codex", "**/rollout-*.jsonl") if p.stat().st_size < 2_000_000]
    cases: list[tuple[str, Path, str | None, str | None]] = []
    for i, p in enumerate(claude[:12]):
        d = tmp_path / "claude" / f"p{i}"
        d.mkdir(parents=True)
        shutil.copy(p, d / p.name)
        if (stem := p.with_name(p.name.removesuffix(".jsonl"))).is_dir():
            shutil.copytree(stem, d / stem.name)
        cases.append(("claude-code", d, None, json.dumps({"transcript_path": str(d / p.name),
                                                          "hook_event_name": "SessionEnd"})))
    for i, p in enumerate(codex[:6]):
        d = tmp_path / "codex" / "sessions" / "2026" / "01" / f"{i:02d}"
        d.mkdir(parents=True)
        shutil.copy(p, d / p.name)
        cases.append(("codex", d, codex_payload(**{"thread-id": p.name.removesuffix(".jsonl")[-36:]}), None))
    assert cases
    for agent, folder, arg, payload in cases:
        code = hook_run(agent, arg, inline=True, payload=payload, wait_s=0)
        line = log_lines()[-1]
        st = open_store(os.environ["FORSY_STORE"])
        try:
            rep = sweep(st, SweepOptions(roots=[folder], ignore_settle=True))
        finally:
            st.close()
        if code == 0:
            assert (rep.counts.unchanged, rep.counts.traces_written) == (1, 0), (folder, line)
        else:  # what the sweep could not read is said, and the folder's sweep says the same
            assert line[3] == "failed" and rep.counts.failed == 1, (folder, line)
