"""`forsy hook run`: the hook fed each agent's payload shapes (Claude Code's and Gemini CLI's on
stdin, Codex's notify argument): the draft it makes is the sweep's, a later sweep finds it
unchanged, a growing session is linked, what cannot be read is logged and shown, and nothing
reaches the agent (exit 0, no stdout, back at once). The settings files: test_hooks_settings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _paths import SAMPLES, needs_shared, real_logs
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


def test_stdin_left_open_does_not_hold_the_agent(tmp_path: Path) -> None:
    proj = claude_tree(tmp_path)
    with subprocess.Popen([sys.executable, "-m", "forsy.hooks", "run", "--agent", "claude-code"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env()) as p:
        assert p.stdin is not None and p.stdout is not None and p.stderr is not None
        p.stdin.write(claude_payload(proj / f"{SUB_ID}.jsonl").encode())
        p.stdin.flush()  # and never closed, as a careless agent might
        code = p.wait(timeout=30)  # back after STDIN_WAIT_S at most, with what it had read
        assert (code, p.stdout.read(), p.stderr.read()) == (0, b"", b"")
    deadline = time.monotonic() + 90
    while not log_lines() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert log_lines()[-1][3] == "ok"


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
