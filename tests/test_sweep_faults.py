"""Fault injection into `forsy sweep`: what a file system can do to an unattended sweep (a
folder or a file it may not read, a name that is not UTF-8, a file deleted mid-run, a full
disk, a damaged or read-only store), at each stage of a run. Each test checks that the other
sessions are stored, that the fault is named, the documented exit code, that the store passes
SQLite's integrity check, and that the next run after the fault is gone picks the item up.

Permission faults need a process without root's read-anything capabilities: as root (CI), the
sweep runs under `capsh --drop=cap_dac_override,cap_dac_read_search` (or `setpriv` with the
same bounding set); as any other user, as it is."""

from __future__ import annotations

import json
import os
import resource
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import forsy.run as forsy_run
import forsy.sweep.run as sweep_mod
from _paths import SAMPLES, system_tool
from forsy.errors import ExitCode
from forsy.store import open_store
from forsy.sweep import SweepOptions, SweepProgress, sweep

DROP = "cap_dac_override,cap_dac_read_search"
SESSIONS = {"a": "demo-session.jsonl", "b": "compaction-and-branches.jsonl", "c": "legacy-inline-sidechain.jsonl"}


def _unprivileged_prefix() -> list[str] | None:
    if os.geteuid() != 0:
        return []
    if capsh := system_tool("capsh"):
        return [capsh, f"--drop={DROP}", "--"]
    if setpriv := system_tool("setpriv"):
        return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    return None


PREFIX = _unprivileged_prefix()
needs_unprivileged = pytest.mark.skipif(
    PREFIX is None, reason="running as root without capsh or setpriv: root reads every file, so a permission "
                           "fault cannot be made (install libcap2-bin)")


def forsy(*args: str, unprivileged: bool = False, fsize: int | None = None,
          env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`forsy ARGS` in a subprocess: without root's read-anything capabilities when
    `unprivileged`; with a file-size limit of `fsize` bytes (writes past it fail with EFBIG,
    which SQLite reports as a full disk)."""
    cmd = [sys.executable, "-m", "forsy.cli", *args]
    if unprivileged:
        assert PREFIX is not None
        if Path(PREFIX[0]).name == "capsh":
            cmd = [*PREFIX, "-c", shlex.join(cmd)]
        else:
            cmd = [*PREFIX, *cmd]

    def limit() -> None:
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of killing the process
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    # (no progress line: stderr is no terminal here; FORSY_QUIET would silence the summaries checked)
    base = {k: v for k, v in os.environ.items() if k != "FORSY_QUIET"}
    return subprocess.run(cmd, capture_output=True, text=True, errors="surrogateescape", timeout=300,
                          preexec_fn=limit, env={**base, **(env or {})})


def integrity(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def stored_units(db: Path) -> set[str]:
    """The session files the store holds a trace of (names as Python gives them)."""
    st = open_store(f"sqlite:///{db}", create=False)
    try:
        from forsy.store import TraceQuery

        return {os.path.basename(r.unit_path) for r in st.traces(TraceQuery(limit=10_000))}
    finally:
        st.close()


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Path]:
    """root/proj-a/{a,b}.jsonl and root/proj-b/c.jsonl: three different sessions. Modes are
    restored at the end, so pytest can remove what a test locked."""
    root = tmp_path / "logs"
    for proj, names in (("proj-a", "ab"), ("proj-b", "c")):
        (root / proj).mkdir(parents=True)
        for n in names:
            shutil.copy(SAMPLES / "claude" / SESSIONS[n], root / proj / f"{n}.jsonl")
    yield root
    for d, dirs, files in os.walk(tmp_path):
        for name, mode in [*((n, 0o755) for n in dirs), *((n, 0o644) for n in files)]:
            if not os.path.islink(os.path.join(d, name)):
                os.chmod(os.path.join(d, name), mode)


def sweep_cli(root: Path, db: Path, *extra: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return forsy("sweep", str(root), "--now", "--store", f"sqlite:///{db}", *extra, **kw)


def last_json(res: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = [x for x in res.stdout.splitlines() if x.strip()]
    assert len(lines) == 1, res.stdout  # one JSON line per run
    out: dict[str, Any] = json.loads(lines[0])
    return out


# --------------------------------------------------------------------------- permissions


@needs_unprivileged
@pytest.mark.parametrize("depth", [1, 2], ids=["project-folder", "one-level-deeper"])
def test_a_folder_that_cannot_be_listed_hides_only_itself(tree: Path, tmp_path: Path, depth: int) -> None:
    db = tmp_path / "s.db"
    first = sweep_cli(tree, db, "--json", unprivileged=True)
    assert first.returncode == 0, first.stderr
    locked = tree / "proj-b" if depth == 1 else tree / "proj-b" / "inner"
    if depth == 2:
        (locked).mkdir()
        shutil.move(tree / "proj-b" / "c.jsonl", locked / "c.jsonl")
        db.unlink()  # a fresh store: c is new, behind the locked folder
    shutil.copy(SAMPLES / "claude" / "subagents" / "c7133dee-e28c-4d03-8ec3-1209007ef3b4.jsonl",
                tree / "proj-a" / "new.jsonl")  # a new session beside the locked folder
    os.chmod(locked, 0)
    res = sweep_cli(tree, db, "--json", unprivileged=True)
    assert res.returncode == ExitCode.PARTIAL, res.stderr
    out = last_json(res)
    assert [(f["path"], f["what"]) for f in out["faults"]] == [(str(locked), "folder")]
    assert "permission denied" in out["faults"][0]["reason"]
    assert out["gone"] == 0  # out of sight is not gone
    assert {"a.jsonl", "b.jsonl", "new.jsonl"} <= stored_units(db)
    assert integrity(db) == "ok"
    text = sweep_cli(tree, db, unprivileged=True)  # the summary line and stderr name it too
    assert text.returncode == ExitCode.PARTIAL
    assert "1 failed (1 of them skipped for a fault, tried again next run)" in text.stdout
    assert f"skipped: {locked}: cannot list this folder: permission denied" in text.stderr
    assert "(since " in text.stderr and "3 runs" not in text.stderr and "2 runs" in text.stderr
    status = forsy("sweep", "--status", "--json", "--store", f"sqlite:///{db}", unprivileged=True)
    assert status.returncode == ExitCode.PARTIAL
    faults = json.loads(status.stdout)["faults"]
    assert [(f["path"], f["runs"]) for f in faults] == [(str(locked), 2)]

    os.chmod(locked, 0o755)
    again = sweep_cli(tree, db, "--json", unprivileged=True)
    assert again.returncode == 0, again.stderr
    assert last_json(again)["faults"] == []
    assert "c.jsonl" in stored_units(db)
    assert forsy("sweep", "--status", "--store", f"sqlite:///{db}").returncode == 0
    assert integrity(db) == "ok"


@needs_unprivileged
def test_a_root_that_cannot_be_listed_is_a_fault_not_a_usage_error(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert sweep_cli(tree, db, unprivileged=True).returncode == 0
    os.chmod(tree, 0)
    res = sweep_cli(tree, db, "--json", unprivileged=True)
    assert res.returncode == ExitCode.PARTIAL, res.stderr
    out = last_json(res)
    assert [f["path"] for f in out["faults"]] == [str(tree)] and out["gone"] == 0
    os.chmod(tree, 0o755)
    again = sweep_cli(tree, db, "--json", unprivileged=True)
    assert again.returncode == 0 and last_json(again)["unchanged"] == 3 and integrity(db) == "ok"


@needs_unprivileged
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_session_file_that_cannot_be_read_is_skipped_named_and_retried(tree: Path, tmp_path: Path,
                                                                         jobs: str) -> None:
    db = tmp_path / "s.db"
    os.chmod(tree / "proj-a" / "a.jsonl", 0)
    res = sweep_cli(tree, db, "--json", "-j", jobs, unprivileged=True)
    assert res.returncode == ExitCode.PARTIAL, res.stderr
    out = last_json(res)
    assert [(f["path"], f["what"], f["reason"]) for f in out["faults"]] == [
        (str(tree / "proj-a" / "a.jsonl"), "file", "cannot read: permission denied")]
    assert stored_units(db) == {"b.jsonl", "c.jsonl"}
    assert integrity(db) == "ok"
    os.chmod(tree / "proj-a" / "a.jsonl", 0o644)  # the mode alone changed: no size or mtime change
    again = sweep_cli(tree, db, "--json", "-j", jobs, unprivileged=True)
    assert again.returncode == 0 and last_json(again)["faults"] == []
    assert stored_units(db) == {"a.jsonl", "b.jsonl", "c.jsonl"}


@needs_unprivileged
def test_a_known_session_that_grew_and_cannot_be_read_keeps_its_trace(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert sweep_cli(tree, db, unprivileged=True).returncode == 0
    a = tree / "proj-a" / "a.jsonl"
    with a.open("ab") as f:
        f.write((SAMPLES / "claude" / SESSIONS["a"]).read_bytes().splitlines(keepends=True)[-1])
    os.chmod(a, 0)
    res = sweep_cli(tree, db, "--json", unprivileged=True)
    assert res.returncode == ExitCode.PARTIAL
    assert [f["path"] for f in last_json(res)["faults"]] == [str(a)]
    assert "a.jsonl" in stored_units(db) and integrity(db) == "ok"
    os.chmod(a, 0o644)
    again = sweep_cli(tree, db, "--json", unprivileged=True)
    assert again.returncode == 0 and last_json(again)["grown"] + last_json(again)["rewritten"] == 1


@needs_unprivileged
def test_a_part_of_a_session_that_cannot_be_read_is_named_and_the_session_retried(tree: Path, tmp_path: Path) -> None:
    """A subagent's transcript the sweep may not read: the session is drafted from what can be
    read, marked failed naming the part (exit 7), and read again each run; once the part can be
    read, the session is traced whole and that draft replaces the partial one."""
    db = tmp_path / "s.db"
    sid = "c7133dee-e28c-4d03-8ec3-1209007ef3b4"
    shutil.copy(SAMPLES / "claude" / "subagents" / f"{sid}.jsonl", tree / "proj-b" / f"{sid}.jsonl")
    shutil.copytree(SAMPLES / "claude" / "subagents" / sid, tree / "proj-b" / sid)
    [part] = (tree / "proj-b" / sid).rglob("*.jsonl")
    os.chmod(part, 0)
    res = sweep_cli(tree, db, "--json", unprivileged=True)
    assert res.returncode == ExitCode.PARTIAL, res.stderr
    failures = {f["path"]: f["message"] for f in last_json(res)["failures"]}
    session = str(tree / "proj-b" / f"{sid}.jsonl")
    assert failures[session] == f"{sid}/subagents/{part.name}: subagent {part.stem[len('agent-'):]}'s transcript " \
                                "could not be read, its events are not here: permission denied"
    assert stored_units(db) == {"a.jsonl", "b.jsonl", "c.jsonl", f"{sid}.jsonl"} and integrity(db) == "ok"
    os.chmod(part, 0o644)
    again = sweep_cli(tree, db, "--json", unprivileged=True)
    assert again.returncode == 0 and last_json(again)["failures"] == [], again.stderr
    assert last_json(again)["traces_written"] == 1  # the whole session, replacing the partial draft
    st = open_store(f"sqlite:///{db}", create=False)
    try:
        from forsy.store import TraceQuery

        drafts = [r for r in st.traces(TraceQuery(limit=100)) if r.unit_path == session]
        [head] = [r for r in st.traces(TraceQuery(latest_only=True, limit=100)) if r.unit_path == session]
    finally:
        st.close()
    assert len(drafts) == 2 and head.prior_trace_id is not None and head.steps > min(d.steps for d in drafts)


@needs_unprivileged
def test_a_configured_history_that_cannot_be_read_is_a_fault_and_sessions_are_still_traced(
        tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    hist = tmp_path / "zsh_history"
    hist.write_text(": 1700000000:0;ls\n")
    os.chmod(hist, 0)
    res = sweep_cli(tree, db, "--json", unprivileged=True, env={"FORSY_HISTORIES": str(hist)})
    assert res.returncode == ExitCode.PARTIAL, res.stderr
    [fault] = last_json(res)["faults"]
    assert fault["path"] == str(hist) and "permission denied" in fault["reason"]
    assert stored_units(db) == {"a.jsonl", "b.jsonl", "c.jsonl"} and integrity(db) == "ok"
    os.chmod(hist, 0o644)
    shutil.copy(SAMPLES / "claude" / "subagents" / "c7133dee-e28c-4d03-8ec3-1209007ef3b4.jsonl",
                tree / "proj-a" / "new.jsonl")
    again = sweep_cli(tree, db, "--json", unprivileged=True, env={"FORSY_HISTORIES": str(hist)})
    assert again.returncode == 0 and last_json(again)["faults"] == [], again.stderr
    assert "new.jsonl" in stored_units(db)


# --------------------------------------------------------------------------- names, vanishing files


def test_a_name_that_is_not_utf8_is_stored_and_given_back_as_its_bytes(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    raw = os.fsencode(str(tree / "proj-b")) + b"/caf\xe9-latin1.jsonl"
    shutil.move(tree / "proj-b" / "c.jsonl", os.fsdecode(raw))
    res = sweep_cli(tree, db, "--json")
    assert res.returncode == 0, res.stderr
    assert {"a.jsonl", "b.jsonl", os.fsdecode(b"caf\xe9-latin1.jsonl")} == stored_units(db)
    out = forsy("store", "list", "--json", "--store", f"sqlite:///{db}").stdout
    assert "\\udce9" in out  # the byte, escaped in JSON
    listed = [json.loads(x) for x in out.splitlines()]
    assert raw in {os.fsencode(r["unit_path"]) for r in listed}  # back to the very file
    text = forsy("store", "list", "--store", f"sqlite:///{db}")
    assert text.returncode == 0
    again = sweep_cli(tree, db, "--json")
    assert last_json(again)["unchanged"] == 3  # remembered under its own name: not new again
    assert integrity(db) == "ok"


@needs_unprivileged
def test_a_failing_name_that_is_not_utf8_is_named_in_status(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    raw = os.fsencode(str(tree / "proj-b")) + b"/caf\xe9.jsonl"
    shutil.move(tree / "proj-b" / "c.jsonl", os.fsdecode(raw))
    os.chmod(os.fsdecode(raw), 0)
    res = sweep_cli(tree, db, unprivileged=True)
    assert res.returncode == ExitCode.PARTIAL
    assert "caf\\xe9.jsonl: cannot read: permission denied" in res.stderr
    status = forsy("sweep", "--status", "--store", f"sqlite:///{db}")
    assert status.returncode == ExitCode.PARTIAL and "SKIPPED file" in status.stdout and "caf\\xe9" in status.stdout
    js = forsy("sweep", "--status", "--json", "--store", f"sqlite:///{db}")
    assert os.fsencode(json.loads(js.stdout)["faults"][0]["path"]) == raw


def _in_process(root: Path, db: Path, **kw: Any) -> Any:
    st = open_store(f"sqlite:///{db}")
    try:
        return sweep(st, SweepOptions(roots=[root], ignore_settle=True, claude_home=root / "none", **kw))
    finally:
        st.close()


@pytest.mark.parametrize("stage", ["fingerprint", "read", "discovery"])
def test_a_file_deleted_during_the_sweep_is_skipped_and_named(tree: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch, stage: str) -> None:
    db = tmp_path / "s.db"
    victim = tree / "proj-a" / "a.jsonl"
    keep = tmp_path / "a.keep"
    shutil.copy(victim, keep)
    if stage == "fingerprint":
        real_fp = sweep_mod.fingerprint

        def fp(path: str, size: int) -> Any:
            if path == str(victim) and victim.exists():
                victim.unlink()
            return real_fp(path, size)

        monkeypatch.setattr(sweep_mod, "fingerprint", fp)
    elif stage == "read":
        real = forsy_run.retrace_one

        def retrace_one(path: Any, *a: Any, **k: Any) -> Any:
            if str(path) == str(victim) and victim.exists():
                victim.unlink()
            return real(path, *a, **k)

        monkeypatch.setattr(forsy_run, "retrace_one", retrace_one)
    else:
        real_discover = forsy_run.discover

        def discover(paths: Any, unread: Any = None) -> Any:
            if victim.exists():
                victim.unlink()
            return real_discover(paths, unread)

        monkeypatch.setattr(forsy_run, "discover", discover)
    report = _in_process(tree, db)
    assert report.exit_code == ExitCode.PARTIAL
    assert [(f.path, f.reason) for f in report.faults] == [(str(victim), "vanished during the sweep")]
    assert stored_units(db) == {"b.jsonl", "c.jsonl"}
    assert integrity(db) == "ok"
    monkeypatch.undo()
    shutil.copy(keep, victim)
    again = _in_process(tree, db)
    assert again.exit_code == 0 and again.faults == []
    assert stored_units(db) == {"a.jsonl", "b.jsonl", "c.jsonl"}


def test_a_file_deleted_after_the_sweep_is_gone_next_run_without_a_fault(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert _in_process(tree, db).exit_code == 0
    (tree / "proj-a" / "a.jsonl").unlink()
    again = _in_process(tree, db)
    assert again.exit_code == 0 and again.faults == [] and again.counts.gone == 1
    status = forsy("sweep", "--status", "--json", "--store", f"sqlite:///{db}")
    assert status.returncode == 0
    assert [g["path"] for g in json.loads(status.stdout)["gone_files"]] == [str(tree / "proj-a" / "a.jsonl")]
    assert f"GONE {tree / 'proj-a' / 'a.jsonl'}" in forsy("sweep", "--status", "--store", f"sqlite:///{db}").stdout


# --------------------------------------------------------------------------- the store


def test_a_full_disk_stops_the_run_marks_it_failed_and_leaves_the_store_whole(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    shutil.move(tree / "proj-b", tmp_path / "later")
    assert sweep_cli(tree, db).returncode == 0
    before = stored_units(db)
    shutil.move(tmp_path / "later", tree / "proj-b")
    for i in range(6):  # enough new drafts that they cannot fit under the limit
        shutil.copy(SAMPLES / "claude" / SESSIONS["b"], tree / "proj-b" / f"b{i}.jsonl")
        with (tree / "proj-b" / f"b{i}.jsonl").open("a") as f:
            f.write(json.dumps({"type": "summary", "summary": f"copy {i}", "leafUuid": f"x{i}"}) + "\n")
    res = sweep_cli(tree, db, "--json", fsize=db.stat().st_size + 48 * 1024)
    assert res.returncode == ExitCode.STORE, (res.returncode, res.stderr)
    out = last_json(res)
    assert "disk is full" in out["failure"] or "disk I/O error" in out["failure"]
    assert integrity(db) == "ok"
    assert before <= stored_units(db)
    status = forsy("sweep", "--status", "--json", "--store", f"sqlite:///{db}")
    assert status.returncode == ExitCode.STORE
    assert json.loads(status.stdout)["runs"][0]["status"] in ("failed", "stopped")
    again = sweep_cli(tree, db, "--json")
    assert again.returncode == 0, again.stderr
    assert {"c.jsonl", *(f"b{i}.jsonl" for i in range(6))} <= stored_units(db)
    healthy = forsy("sweep", "--status", "--store", f"sqlite:///{db}")
    assert healthy.returncode == 0 and "healthy" in healthy.stdout
    assert integrity(db) == "ok"


@needs_unprivileged
def test_a_store_that_cannot_be_written_is_a_store_error(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "store" / "s.db"
    assert sweep_cli(tree, db).returncode == 0
    os.chmod(db, 0o444)
    os.chmod(db.parent, 0o555)
    res = sweep_cli(tree, db, unprivileged=True)
    assert res.returncode == ExitCode.STORE, res.stderr
    assert "read-only" in res.stderr and "internal error" not in res.stderr
    # reading commands read it
    listed = forsy("store", "list", "--store", f"sqlite:///{db}", unprivileged=True)
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == 3, listed.stderr
    status = forsy("sweep", "--status", "--store", f"sqlite:///{db}", unprivileged=True)
    assert status.returncode == 0, status.stderr
    tid = listed.stdout.split()[0]
    out = tmp_path / "out"
    exported = forsy("store", "export", tid, "-o", str(out), "--store", f"sqlite:///{db}", unprivileged=True)
    assert exported.returncode == 0 and (out / "trace.json").is_file(), exported.stderr


def test_a_damaged_store_page_is_a_store_error_not_an_internal_error(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert sweep_cli(tree, db).returncode == 0
    conn = sqlite3.connect(db)
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'traces'").fetchone()[0]
    conn.close()
    with db.open("r+b") as f:  # the traces table's first page, overwritten
        f.seek((root - 1) * page)
        f.write(b"\xa5" * page)
    shutil.copy(SAMPLES / "claude" / "subagents" / "c7133dee-e28c-4d03-8ec3-1209007ef3b4.jsonl",
                tree / "proj-a" / "new.jsonl")  # the sweep then looks for its earlier traces
    for args in (["store", "list"], ["export", "--from-store", "*", "--to", "openai", "-o", str(tmp_path / "x")],
                 ["sweep", str(tree), "--now"]):
        res = forsy(*args, "--store", f"sqlite:///{db}")
        assert res.returncode == ExitCode.STORE, (args, res.returncode, res.stderr)
        assert "malformed" in res.stderr and "internal error" not in res.stderr, res.stderr


# --------------------------------------------------------------------------- limits, output, progress


def test_a_session_below_the_depth_limit_is_named_as_left_out(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    deep = tree / "proj-b" / Path(*(f"d{i}" for i in range(18)))
    deep.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "subagents" / "c7133dee-e28c-4d03-8ec3-1209007ef3b4.jsonl", deep / "deep.jsonl")
    res = sweep_cli(tree, db)
    assert res.returncode == 0
    assert "1 left out" in res.stdout and f"left out: {deep / 'deep.jsonl'}: not searched: deeper than" in res.stderr
    status = forsy("sweep", "--status", "--json", "--store", f"sqlite:///{db}")
    assert [x["path"] for x in json.loads(status.stdout)["left_out"]] == [str(deep / "deep.jsonl")]


def test_links_to_folders_are_named_as_left_out_and_links_to_sessions_watched(tree: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(SAMPLES / "claude" / "subagents" / "c7133dee-e28c-4d03-8ec3-1209007ef3b4.jsonl", elsewhere / "x.jsonl")
    (tree / "linked-project").symlink_to(elsewhere)
    (tree / "proj-a" / "linked.jsonl").symlink_to(elsewhere / "x.jsonl")  # a link to a session: read
    (tree / "proj-a" / "dangling.jsonl").symlink_to(tmp_path / "nothing.jsonl")
    db = tmp_path / "s.db"
    res = sweep_cli(tree, db, "--json")
    assert res.returncode == 0
    assert {x["path"] for x in last_json(res)["left_out"]} == {str(tree / "linked-project"),
                                                              str(tree / "proj-a" / "dangling.jsonl")}
    assert all(x["reason"].startswith("a symbolic link") for x in last_json(res)["left_out"])
    assert stored_units(db) == {"a.jsonl", "b.jsonl", "c.jsonl", "linked.jsonl"}
    again = last_json(sweep_cli(tree, db, "--json"))
    assert (again["unchanged"], again["gone"]) == (4, 0)  # the linked session is watched, not gone


def test_sweep_json_is_one_line_per_run(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    for _ in range(2):
        res = sweep_cli(tree, db, "--json")
        assert res.returncode == 0 and res.stdout.count("\n") == 1
        assert last_json(res)["exit_code"] == 0


def test_progress_names_files_bytes_and_the_session_and_fits_80_columns(tree: Path, tmp_path: Path) -> None:
    from forsy.cli.sweep import progress_text

    events: list[SweepProgress] = []
    _in_process(tree, tmp_path / "s.db", progress=events.append)
    looking = [p for p in events if p.files == 0]
    assert looking and {p.path for p in looking} == {str(tree)}  # the walk and the discovery, announced
    line = progress_text(looking[0], 79)
    assert line.startswith("sweep: looking under ") and line.endswith("/logs") and len(line) <= 79
    seen = [p for p in events if p.files]
    total = sum(p.stat().st_size for p in tree.rglob("*.jsonl"))
    assert [(p.files_done, p.files) for p in seen] == [(0, 3), (1, 3), (2, 3)]
    assert {p.bytes_total for p in seen} == {total} and seen[-1].bytes_done < total
    assert sorted(os.path.basename(p.path) for p in seen) == ["a.jsonl", "b.jsonl", "c.jsonl"]
    long = SweepProgress(4, 113, 12_500_000, 5_000_000_000, "/home/someone/.claude/projects/" + "-x" * 80 + "/s.jsonl")
    line = progress_text(long, 79)
    assert len(line) <= 79 and line.startswith("sweep 5/113  12.5/5000.0 MB") and line.endswith("s.jsonl")


def test_no_progress_under_cron(tree: Path, tmp_path: Path) -> None:
    res = sweep_cli(tree, tmp_path / "s.db")  # stderr is a pipe, as under cron
    assert res.returncode == 0 and "\r" not in res.stderr and "sweep 1/" not in res.stderr


def test_status_says_when_a_run_stopped_without_a_word(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert sweep_cli(tree, db).returncode == 0
    st = open_store(f"sqlite:///{db}")
    try:
        st.start_run("2026-05-01T10:00:00+00:00", 999_999, [str(tree)])  # killed, or no room to say it ended
    finally:
        st.close()
    res = forsy("sweep", "--status", "--json", "--store", f"sqlite:///{db}")
    assert res.returncode == ExitCode.STORE
    out = json.loads(res.stdout)
    assert [r["status"] for r in out["runs"]] == ["stopped", "done"]
    assert isinstance(out["last_success_age_s"], int) and out["last_success"] == out["runs"][1]["finished_at"]
    text = forsy("sweep", "--status", "--store", f"sqlite:///{db}")
    assert text.returncode == ExitCode.STORE and "stopped" in text.stdout and "did not finish" in text.stdout
    assert sweep_cli(tree, db).returncode == 0  # the next run marks it interrupted and is healthy again
    assert forsy("sweep", "--status", "--store", f"sqlite:///{db}").returncode == 0


def _as_made_by_an_older_forsy(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.executescript("DELETE FROM schema_migrations WHERE name = '0006_sweep_faults'; DROP TABLE sweep_faults; "
                       "ALTER TABLE runs DROP COLUMN failure;")
    conn.close()


def test_an_older_store_is_brought_up_to_date_by_a_reading_command_when_it_can_be_written(
        tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert sweep_cli(tree, db).returncode == 0
    _as_made_by_an_older_forsy(db)
    status = forsy("sweep", "--status", "--store", f"sqlite:///{db}")
    assert status.returncode == 0, status.stderr
    assert len(forsy("store", "list", "--store", f"sqlite:///{db}").stdout.splitlines()) == 3


@needs_unprivileged
def test_an_older_read_only_store_is_refused_saying_why(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "store" / "s.db"
    assert sweep_cli(tree, db).returncode == 0
    _as_made_by_an_older_forsy(db)
    os.chmod(db, 0o444)
    os.chmod(db.parent, 0o555)
    res = forsy("store", "list", "--store", f"sqlite:///{db}", unprivileged=True)
    assert res.returncode == ExitCode.STORE and "made by an older forsy" in res.stderr, res.stderr


def test_a_disk_full_before_the_run_can_start_is_a_store_error(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert sweep_cli(tree, db).returncode == 0
    (tree / "proj-a" / "a.jsonl").touch()
    res = sweep_cli(tree, db, fsize=0)  # not even the lock can be written
    assert res.returncode == ExitCode.STORE, res.stderr
    assert "internal error" not in res.stderr and "file-size limit" in res.stderr
    assert integrity(db) == "ok"
    assert sweep_cli(tree, db).returncode == 0


@needs_unprivileged
def test_a_root_that_is_one_unreadable_session_file_is_a_fault(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    one = tree / "proj-a" / "a.jsonl"
    os.chmod(one, 0)
    res = forsy("sweep", str(one), "--now", "--json", "--store", f"sqlite:///{db}", unprivileged=True)
    assert res.returncode == ExitCode.PARTIAL, res.stderr
    faults = [(f["path"], f["reason"]) for f in last_json(res)["faults"]]
    assert faults == [(str(one), "cannot read: permission denied")]
    os.chmod(one, 0o644)
    again = forsy("sweep", str(one), "--now", "--json", "--store", f"sqlite:///{db}", unprivileged=True)
    assert again.returncode == 0 and last_json(again)["traced"] == 1 and integrity(db) == "ok"
