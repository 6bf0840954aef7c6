"""`forsy sweep`: incremental, settled, locked, crash-safe, on a real SQLite store over trees
built in tmp from sample_logs (and ../shared/real_logs when present)."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import forsy.run as forsy_run
from _grow import append_user
from _paths import SAMPLES, needs_shared, real_logs
from forsy.cli import app
from forsy.errors import ExitCode
from forsy.store import LockInfo, Store, TraceQuery, open_store
from forsy.sweep import SweepOptions, SweepReport, sweep
from forsy.sweep._files import Stat, classify, fingerprint

runner = CliRunner()
CLAUDE = ["demo-session.jsonl", "compaction-and-branches.jsonl", "legacy-inline-sidechain.jsonl"]
SUB_ID = "c7133dee-e28c-4d03-8ec3-1209007ef3b4"


def build_tree(tmp: Path) -> Path:
    """~/.claude/projects-like and ~/.codex/sessions-like folders under one root."""
    root = tmp / "logs"
    proj = root / "claude" / "-home-dev-projects-a"
    proj.mkdir(parents=True)
    for name in CLAUDE:
        shutil.copy(SAMPLES / "claude" / name, proj / name)
    proj_b = root / "claude" / "-home-dev-projects-b"
    proj_b.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "subagents" / f"{SUB_ID}.jsonl", proj_b / f"{SUB_ID}.jsonl")
    shutil.copytree(SAMPLES / "claude" / "subagents" / SUB_ID, proj_b / SUB_ID)
    shutil.copytree(SAMPLES / "codex" / "sessions", root / "codex" / "sessions")
    return root


ROOTS = ["claude", "codex/sessions"]


class Counter:
    """Counts calls to the session reader (forsy_run.retrace_one), per path."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        real = forsy_run.retrace_one

        def counted(path: Any, *a: Any, **kw: Any) -> Any:
            self.calls.append(str(path))
            return real(path, *a, **kw)

        monkeypatch.setattr(forsy_run, "retrace_one", counted)


def run(store: Store, root: Path, now: float | None = None, ignore_settle: bool = True,
        claude_home: Path | None = None) -> SweepReport:
    clock: Callable[[], float] = (lambda: now) if now is not None else time.time
    return sweep(store, SweepOptions(roots=[root / r for r in ROOTS], now=clock, ignore_settle=ignore_settle,
                                     claude_home=claude_home or root / "no-claude-home"))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return build_tree(tmp_path)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield s  # type: ignore[misc]
    s.close()


def units(store: Store) -> dict[str, str]:
    return {s.path: s.status for s in store.file_states(["/"]).values() if s.path == s.unit_path}


# --------------------------------------------------------------------------- the incremental sweep

def test_first_sweep_traces_all_second_reads_nothing(tree: Path, store: Store,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    first = run(store, tree)
    c = first.counts
    assert (c.seen, c.new, c.traced, c.failed, c.waiting) == (5, 5, 5, 0, 0), first.to_json()
    assert c.traces_written == 5 and first.exit_code == 0
    assert len(store.traces(TraceQuery(status="pending"))) == 5
    # the subagent file is watched as a member of its session
    sub = next(p for p, s in store.file_states(["/"]).items() if "agent-" in p)
    assert store.file_states(["/"])[sub].status == "member"

    calls = Counter(monkeypatch)
    reads: list[str] = []
    monkeypatch.setattr("forsy.sweep._files.fingerprint", lambda *a: reads.append(a[0]))  # type: ignore[misc]
    monkeypatch.setattr("forsy.sweep.run.fingerprint", lambda *a: reads.append(a[0]))  # type: ignore[misc]
    monkeypatch.setattr(forsy_run, "discover", lambda *a: pytest.fail("discovery on an unchanged tree"))
    second = run(store, tree)
    assert calls.calls == [] and reads == []
    assert (second.counts.unchanged, second.counts.traced, second.counts.bytes_read) == (5, 0, 0)
    assert len(store.traces(TraceQuery())) == 5
    assert [r.status for r in store.runs()] == ["done", "done"]


def test_appended_session_is_retraced_alone_and_linked(tree: Path, store: Store,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    run(store, tree)
    target = tree / "claude" / "-home-dev-projects-a" / "demo-session.jsonl"
    before = store.traces(TraceQuery(latest_only=True))
    old = next(t for t in before if t.unit_path == str(target))
    append_user(target, "and please add a test for the empty string")
    calls = Counter(monkeypatch)
    rep = run(store, tree)
    assert calls.calls == [str(target)]
    assert (rep.counts.grown, rep.counts.unchanged, rep.counts.traces_written) == (1, 4, 1)
    new = next(t for t in store.traces(TraceQuery(latest_only=True)) if t.unit_path == str(target))
    assert new.trace_id != old.trace_id and new.prior_trace_id == old.trace_id
    assert new.steps == old.steps + 1
    assert store.trace(old.trace_id) is not None  # the earlier draft stays
    assert len(store.traces(TraceQuery())) == 6


def test_new_subagent_file_retraces_its_session(tree: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    run(store, tree)
    sub_dir = tree / "claude" / "-home-dev-projects-b" / SUB_ID / "subagents"
    shutil.copy(next(sub_dir.iterdir()), sub_dir / "agent-zz99.jsonl")
    calls = Counter(monkeypatch)
    rep = run(store, tree)
    assert calls.calls == [str(tree / "claude" / "-home-dev-projects-b" / f"{SUB_ID}.jsonl")]
    assert (rep.counts.unchanged, rep.counts.grown) == (4, 1)


def test_rewritten_file_is_traced_from_scratch(tree: Path, store: Store) -> None:
    run(store, tree)
    target = tree / "claude" / "-home-dev-projects-a" / "demo-session.jsonl"
    lines = target.read_text().splitlines(keepends=True)
    target.write_text("".join(lines[:-3]))  # shorter: the old tail is gone
    rep = run(store, tree)
    assert (rep.counts.rewritten, rep.counts.grown, rep.counts.traces_written) == (1, 0, 1)
    st = store.file_states([str(target)])[str(target)]
    assert st.size == target.stat().st_size and st.read_to == st.size


def test_deleted_file_keeps_its_traces_marked_source_gone(tree: Path, store: Store) -> None:
    run(store, tree)
    target = tree / "claude" / "-home-dev-projects-a" / "legacy-inline-sidechain.jsonl"
    target.unlink()
    rep = run(store, tree)
    assert (rep.counts.gone, rep.counts.seen) == (1, 4)
    rows = [t for t in store.traces(TraceQuery()) if t.unit_path == str(target)]
    assert len(rows) == 1 and rows[0].source_gone
    assert units(store)[str(target)] == "source_gone"
    assert run(store, tree).counts.gone == 0  # counted once, when it went


def test_incomplete_last_line_waits_for_the_next_run(tree: Path, store: Store,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    run(store, tree)
    target = tree / "claude" / "-home-dev-projects-a" / "demo-session.jsonl"
    append_user(target, "half written")
    data = target.read_bytes()
    target.write_bytes(data[:-20])  # the writer is mid-record
    calls = Counter(monkeypatch)
    rep = run(store, tree)
    assert calls.calls == [] and rep.counts.waiting == 1
    assert rep.waiting[0][0] == str(target) and "incomplete" in rep.waiting[0][1]
    target.write_bytes(data)
    rep = run(store, tree)
    assert calls.calls == [str(target)] and rep.counts.grown == 1


def test_a_file_too_fresh_waits_for_the_settle_window(tree: Path, store: Store) -> None:
    t = 2_000_000_000.0
    for p in tree.rglob("*.jsonl"):
        os.utime(p, (t, t))
    rep = run(store, tree, now=t + 30, ignore_settle=False)
    assert (rep.counts.waiting, rep.counts.traced) == (5, 0)
    assert all("settle" in why for _, why in rep.waiting)
    assert store.traces(TraceQuery()) == []
    rep = run(store, tree, now=t + 121, ignore_settle=False)
    assert (rep.counts.new, rep.counts.traced, rep.counts.waiting) == (5, 5, 0)


def test_a_failing_file_is_recorded_and_the_sweep_goes_on(tree: Path, store: Store) -> None:
    bad = tree / "claude" / "-home-dev-projects-a" / "broken.jsonl"
    bad.write_bytes(b"this is not a log\n\x00\x01 nor this\n")
    rep = run(store, tree)
    assert (rep.counts.traced, rep.counts.failed) == (5, 1)
    assert [e.path for e in rep.failures] == [str(bad)]
    # why, with the first unreadable record's line: junk is not a cut line
    assert rep.failures[0].message.startswith("no record of the file could be read (2 unreadable; first at line 1: ")
    assert rep.exit_code == ExitCode.PARTIAL
    assert [f.path for f in store.failures()] == [str(bad)]
    assert [e.path for e in store.errors(rep.run_id or 0)] == [str(bad)]
    again = run(store, tree)  # read again (the failure may be forsy's), still failing, still said
    assert (again.counts.unchanged, again.counts.failed, again.exit_code) == (5, 1, ExitCode.PARTIAL)
    assert [e.path for e in again.failures] == [str(bad)]


# --------------------------------------------------------------------------- one sweep at a time

def test_stale_lock_of_a_dead_process_is_taken_over(tree: Path, store: Store) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    assert store.acquire_lock(LockInfo(dead.pid, socket.gethostname(), "2020-01-01T00:00:00+00:00"),
                              lambda _: True) is None
    rid = store.start_run("2020-01-01T00:00:00+00:00", dead.pid, [])
    rep = run(store, tree)
    assert rep.locked_by is None and rep.counts.traced == 5
    assert next(r for r in store.runs() if r.id == rid).status == "interrupted"
    assert store.lock_holder() is None


def _spawn(tree: Path, db: Path, hold: str, mark: Path, extra: list[str] | None = None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FORSY_SWEEP_TEST_HOLD": hold, "FORSY_SWEEP_TEST_MARK": str(mark),
           "HOME": str(tree.parent / "home")}
    args = [sys.executable, "-m", "forsy.cli", "sweep", *(str(tree / r) for r in ROOTS), "--now", "--json",
            "--store", f"sqlite:///{db}", *(extra or [])]
    with open(mark.with_suffix(".log"), "wb") as log:  # the child keeps its own copy
        return subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT)


def _wait_for(mark: Path, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while not mark.exists():
        if proc.poll() is not None:
            pytest.fail(f"the sweep ended before its hold point: {mark.with_suffix('.log').read_text()}")
        assert time.monotonic() < deadline, "the sweep never reached its hold point"
        time.sleep(0.05)


def test_a_second_sweep_exits_at_once_naming_the_holder(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    mark = tmp_path / "held"
    first = _spawn(tree, db, "1:traced", mark)  # holds the lock, and SQLite's write lock, mid-file
    try:
        _wait_for(mark, first)
        res = runner.invoke(app, ["sweep", *(str(tree / r) for r in ROOTS), "--now", "--store", f"sqlite:///{db}"])
        assert res.exit_code == 0
        assert f"pid {first.pid}" in res.stderr and "since" in res.stderr
        res = runner.invoke(app, ["sweep", *(str(tree / r) for r in ROOTS), "--now", "--json",
                                  "--store", f"sqlite:///{db}"])
        assert res.exit_code == 0 and json.loads(res.stdout)["locked_by"]["pid"] == first.pid
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()


@pytest.mark.parametrize("seed", [0, 1, 6, 7])  # fixed seeds: killed at 4 different points
def test_kill_9_mid_sweep_then_rerun_gives_every_file_once(tree: Path, tmp_path: Path, seed: int) -> None:
    shutil.rmtree(tree / "claude" / "-home-dev-projects-b")  # three session files: enough, and quicker
    shutil.rmtree(tree / "codex" / "sessions" / "2026")
    rng = random.Random(seed)
    n = rng.randint(1, 3)
    stage = rng.choice(["traced", "committed"])
    db = tmp_path / "store.db"
    mark = tmp_path / "held"
    child = _spawn(tree, db, f"{n}:{stage}", mark)
    _wait_for(mark, child)
    child.send_signal(signal.SIGKILL)
    child.wait()
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        drafts_after_kill = c.execute("SELECT count(*) FROM drafts").fetchone()[0]
        done = c.execute("SELECT status FROM source_files WHERE path = unit_path").fetchall()
    # the session file open in the killed transaction left nothing: neither its draft nor its state
    assert len(done) == (n if stage == "committed" else n - 1)
    assert drafts_after_kill == sum(1 for (st,) in done if st == "ok")
    # the killed run recorded no counts; its drafts are counted in the store, the rest not claimed
    res = runner.invoke(app, ["sweep", "--status", "--store", f"sqlite:///{db}", "--json"])
    [killed] = json.loads(res.output.strip().splitlines()[-1])["runs"]
    assert (killed["counts"]["traces_written"], killed["counts_recorded"]) == (drafts_after_kill, False)
    res = runner.invoke(app, ["sweep", "--status", "--store", f"sqlite:///{db}"])
    assert f"drafts {drafts_after_kill}; its other counts are said when a run ends" in res.output
    assert "seen 0" not in res.output
    store = open_store(f"sqlite:///{db}")
    try:
        rep = run(store, tree)
        assert rep.locked_by is None and rep.counts.failed == 0
        assert rep.counts.new + rep.counts.unchanged == 3 and rep.counts.new == 3 - len(done)
        traces = store.traces(TraceQuery())
        assert len(traces) == 3 and len({t.unit_path for t in traces}) == 3
        assert set(units(store).values()) == {"ok"}
        assert [r.status for r in store.runs()] == ["done", "interrupted"]
        assert store.runs()[1].counts.traces_written == drafts_after_kill
    finally:
        store.close()


def test_sigterm_mid_sweep_rolls_back_the_session_in_hand_and_marks_the_run(tree: Path, tmp_path: Path) -> None:
    """systemd stopping the service, a timeout: the sweep stops as on Ctrl-C, its run marked
    with why and its lock released, not left looking as if still going."""
    shutil.rmtree(tree / "claude" / "-home-dev-projects-b")
    shutil.rmtree(tree / "codex" / "sessions" / "2026")
    db = tmp_path / "store.db"
    mark = tmp_path / "held"
    child = _spawn(tree, db, "2:traced", mark)  # inside the second session file's transaction
    _wait_for(mark, child)
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=60) == ExitCode.INTERRUPTED
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM drafts").fetchone()[0] == 1  # the second was rolled back
        assert c.execute("SELECT status, failure FROM runs").fetchall() == [
            ("interrupted", "interrupted (Ctrl-C or SIGTERM); the next run goes on")]
        assert c.execute("SELECT count(*) FROM sweep_lock").fetchone()[0] == 0
    store = open_store(f"sqlite:///{db}")
    try:
        rep = run(store, tree)
        assert rep.locked_by is None and (rep.counts.new, rep.counts.unchanged, rep.counts.failed) == (2, 1, 0)
    finally:
        store.close()


# --------------------------------------------------------------------------- CLI, schedule, warnings

def test_json_output_shape(tree: Path, tmp_path: Path) -> None:
    args = ["sweep", *(str(tree / r) for r in ROOTS), "--now", "--json", "--store", f"sqlite:///{tmp_path / 's.db'}"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert (out["traced"], out["unchanged"], out["failed"]) == (5, 0, 0)
    assert out["counts"]["traced"] == 5 and out["run_id"] == 1 and out["locked_by"] is None
    assert set(out) >= {"new", "grown", "rewritten", "gone", "waiting", "traces_written", "bytes_read",
                        "duration_s", "failures", "waiting_files", "warnings", "exit_code"}
    out2 = json.loads(runner.invoke(app, args).stdout)
    assert (out2["traced"], out2["unchanged"]) == (0, 5)
    status = runner.invoke(app, ["sweep", "--status", "--json", "--store", f"sqlite:///{tmp_path / 's.db'}"])
    assert [r["counts"]["unchanged"] for r in json.loads(status.stdout)["runs"]] == [5, 0]


def test_store_export_gives_the_stored_trace_folder(tree: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    runner.invoke(app, ["sweep", str(tree / "claude"), "--now", "--store", url])
    listed = [json.loads(x) for x in runner.invoke(app, ["store", "list", "--json", "--store", url]).stdout.split("\n")
              if x]
    assert len(listed) == 4 and all(r["status"] == "pending" for r in listed)
    res = runner.invoke(app, ["store", "export", listed[0]["trace_id"], "-o", str(tmp_path / "out"), "--store", url])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "out" / "trace.json").read_text())["trace_id"] == listed[0]["trace_id"]
    assert runner.invoke(app, ["validate", str(tmp_path / "out")]).exit_code == 0


def test_print_cron_and_systemd_install_nothing(tmp_path: Path) -> None:
    cron = runner.invoke(app, ["sweep", "--print-cron", "--store", "sqlite:////x/y.db"])
    assert cron.exit_code == 0 and cron.stdout.startswith("*/15 * * * * ") and "sweep --json" in cron.stdout
    assert "--store sqlite:////x/y.db" in cron.stdout
    unit = runner.invoke(app, ["sweep", "--print-systemd"]).stdout
    assert "[Timer]" in unit and "OnUnitActiveSec=15min" in unit and "ExecStart=" in unit


def test_claude_cleanup_warning(tree: Path, store: Store, tmp_path: Path) -> None:
    home = tmp_path / "home" / ".claude"
    (home / "projects").mkdir(parents=True)
    shutil.move(str(tree / "claude" / "-home-dev-projects-a"), home / "projects" / "p")
    (home / "settings.json").write_text(json.dumps({"cleanupPeriodDays": 10}))
    now = 2_000_000_000.0
    old = home / "projects" / "p" / "demo-session.jsonl"
    for p in (home / "projects").rglob("*.jsonl"):
        os.utime(p, (now - 86400, now - 86400))  # 1 day old: 9 days left
    os.utime(old, (now - 7 * 86400, now - 7 * 86400))  # 3 days left
    bad = home / "projects" / "p" / "broken.jsonl"
    bad.write_text("not a log\n")
    os.utime(bad, (now - 8 * 86400, now - 8 * 86400))
    rep = sweep(store, SweepOptions(roots=[home / "projects"], now=lambda: now, claude_home=home))
    assert any(str(bad) in w and "deletes it in 2.0 day(s)" in w for w in rep.warnings), rep.warnings
    assert any(w.startswith("1 traced session log(s) will be deleted") for w in rep.warnings), rep.warnings
    assert len(rep.warnings) == 2


@needs_shared
def test_real_claude_logs_sweep_then_nothing_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [p for p in real_logs("claude") if "subagents" not in p.parts][:6]
    root = tmp_path / "projects" / "real"
    root.mkdir(parents=True)
    for i, p in enumerate(files):
        shutil.copy(p, root / f"{i:02d}-{p.name}")
    store = open_store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        opts = SweepOptions(roots=[tmp_path / "projects"], ignore_settle=True, claude_home=tmp_path / "none")
        first = sweep(store, opts)
        c = first.counts
        assert c.seen == len(files) and c.traced + c.skipped + c.failed == len(files)
        assert len(store.failures()) == c.failed
        calls = Counter(monkeypatch)
        second = sweep(store, opts)
        assert calls.calls == [] and second.counts.unchanged == len(files)
    finally:
        store.close()


# --------------------------------------------------------------------------- fingerprints

def test_fingerprint_tells_grown_from_rewritten(tmp_path: Path) -> None:
    p = tmp_path / "f.jsonl"
    long_line = b"{" + b"x" * 200_000 + b"}\n"  # longer than a read-back chunk
    p.write_bytes(b"{}\n" + long_line)
    fp = fingerprint(str(p), p.stat().st_size)
    assert (fp.tail_offset, fp.read_to, fp.complete) == (3, p.stat().st_size, True)
    old = Stat.of(p.stat())
    with open(p, "ab") as f:
        f.write(b'{"more": 1}\n{"partial"')
    change, _ = classify(str(p), Stat.of(p.stat()), fp.head_sha256, old.size, fp.tail_sha256, fp.tail_offset,
                         fp.read_to, old)
    assert change == "grown"
    assert not fingerprint(str(p), p.stat().st_size).complete
    p.write_bytes(b"{}\n" + long_line.replace(b"x", b"y", 1) + b"{}\n")  # same head, edited tail line
    change, _ = classify(str(p), Stat.of(p.stat()), fp.head_sha256, old.size, fp.tail_sha256, fp.tail_offset,
                         fp.read_to, old)
    assert change == "rewritten"
