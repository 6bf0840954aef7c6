"""A team's shared store: sweepers keyed by name, the job queue under leases (claimed once,
returned after a dead worker's lease), two reviewers on one draft, reviewer tokens, copying
a local store into the shared one. Against a real PostgreSQL server (conftest.pg_server);
the job queue and tokens also against SQLite."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _paths import SAMPLES
from forsy.cli import app
from forsy.run import RetraceOptions, retrace_one
from forsy.run.store_worker import WorkerOptions, run_worker
from forsy.store import FileState, LockInfo, Store, TraceQuery, open_store
from forsy.store.copy import EVIDENCE_FILE
from forsy.store.jobs import JobQueue
from forsy.store.models import NewProposal, ReviewChange, ReviewConflict
from forsy.store.reviewers import create_reviewer_token, revoke_reviewer_tokens, verify_reviewer_token
from forsy.store.sink import StoreSink
from forsy.sweep import SweepOptions, sweep

NOW = "2026-03-01T12:00:00+00:00"
runner = CliRunner()


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return str(request.getfixturevalue("pg_url"))


def put(store: Store, name: str) -> str:
    [o] = retrace_one(SAMPLES / "claude" / name, RetraceOptions(), sink=StoreSink(store, now=NOW), keep=False)
    assert o.trace_id
    return o.trace_id


def as_host(monkeypatch: pytest.MonkeyPatch, url: str, host: str) -> Store:
    monkeypatch.setenv("FORSY_HOST", host)
    return open_store(url)


# --------------------------------------------------------------------------- many sweepers
def test_two_sweepers_with_the_same_paths_keep_apart(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = as_host(monkeypatch, pg_url, "ci-runner-1"), as_host(monkeypatch, pg_url, "ci-runner-2")
    state = FileState("/root/logs/x.jsonl", "/root/logs/x.jsonl", "claude_code", 1, 2, 3, 4, "h", None, 0, 3,
                      "ok", None, NOW, None)
    a.put_file_states([state])
    assert set(a.file_states(["/root/logs"])) == {"/root/logs/x.jsonl"}
    assert b.file_states(["/root/logs"]) == {}  # b's sweep must not take a's file for gone
    # each sweeper its own lock: both sweep at once
    assert a.acquire_lock(LockInfo(1, "m1", NOW), lambda _: True) is None
    assert b.acquire_lock(LockInfo(2, "m2", NOW), lambda _: True) is None
    assert a.acquire_lock(LockInfo(3, "m1", NOW), lambda _: True) == LockInfo(1, "m1", NOW)
    a.close()
    b.close()


def test_a_sweep_into_postgresql_records_its_host_and_is_incremental(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "logs" / "-home-dev-p"
    root.mkdir(parents=True)
    for name in ("demo-session.jsonl", "compaction-and-branches.jsonl"):
        shutil.copy(SAMPLES / "claude" / name, root / name)
    st = as_host(monkeypatch, pg_url, "laptop-7")
    first = sweep(st, SweepOptions(roots=[tmp_path / "logs"], ignore_settle=True))
    again = sweep(st, SweepOptions(roots=[tmp_path / "logs"], ignore_settle=True))
    assert (first.counts.new, first.counts.traces_written, first.exit_code) == (2, 2, 0)
    assert (again.counts.unchanged, again.counts.traces_written) == (2, 0)
    assert len(st.traces(TraceQuery())) == 2
    assert {r[0] for r in st.conn.execute("SELECT host FROM runs").fetchall()} == {"laptop-7"}  # type: ignore[attr-defined]
    st.close()


def test_one_trace_added_by_two_sweepers_at_once_is_stored_once(pg_url: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    stores = [as_host(monkeypatch, pg_url, f"h{i}") for i in range(2)]
    go = threading.Barrier(2)
    ids: list[str] = []

    def run(s: Store) -> None:
        go.wait()
        ids.append(put(s, "demo-session.jsonl"))

    threads = [threading.Thread(target=run, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(ids)) == 1
    assert [r.trace_id for r in stores[0].traces(TraceQuery())] == ids[:1]
    for s in stores:
        s.close()


# --------------------------------------------------------------------------- the job queue
def test_enqueueing_the_same_work_twice_adds_one_job(url: str) -> None:
    st = open_store(url)
    q = JobQueue(st)
    assert q.enqueue("export", {"trace_id": "t1", "dest": "/x"}, NOW)
    assert not q.enqueue("export", {"dest": "/x", "trace_id": "t1"}, NOW)
    assert [j.args for j in q.jobs()] == [{"trace_id": "t1", "dest": "/x"}]
    st.close()


def test_concurrent_workers_claim_every_job_exactly_once(url: str) -> None:
    setup = open_store(url)
    for i in range(40):
        JobQueue(setup).enqueue("export", {"trace_id": f"t{i}", "dest": "/x"}, NOW)
    got: dict[str, list[int]] = {}

    def work(name: str) -> None:
        s = open_store(url)
        q = JobQueue(s)
        got[name] = []
        while (job := q.claim(name, 60, NOW)) is not None:
            got[name].append(job.id)
            assert q.complete(job, "ok", NOW)
        s.close()

    threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    claimed = [j for ids in got.values() for j in ids]
    assert sorted(claimed) == sorted(set(claimed)) and len(claimed) == 40
    assert JobQueue(setup).counts() == {"done": 40}
    setup.close()


def test_a_lost_lease_returns_the_job_and_the_late_worker_cannot_complete_it(url: str) -> None:
    st = open_store(url)
    q = JobQueue(st)
    q.enqueue("export", {"trace_id": "t", "dest": "/x"}, NOW)
    first = q.claim("dead-worker", 0.3, NOW)
    assert first is not None and first.attempts == 1
    assert q.claim("other", 60, NOW) is None  # held under its lease
    time.sleep(0.5)
    second = q.claim("other", 60, NOW)
    assert second is not None and (second.id, second.attempts) == (first.id, 2)
    assert not q.renew(first, 60) and not q.complete(first, "late", NOW)  # taken over: refused
    assert q.complete(second, "ok", NOW)
    [job] = q.jobs()
    assert (job.status, job.worker, job.result) == ("done", "other", "ok")
    st.close()


def test_a_job_whose_worker_dies_every_time_ends_failed_saying_so(url: str) -> None:
    st = open_store(url)
    q = JobQueue(st)
    q.enqueue("export", {"trace_id": "t", "dest": "/x"}, NOW, max_attempts=2)
    for _ in range(2):
        assert q.claim("w", 0.05, NOW) is not None
        time.sleep(0.15)
    assert q.claim("w", 60, NOW) is None
    [job] = q.jobs()
    assert job.status == "failed" and "lost on every attempt" in (job.error or "")
    st.close()


def test_a_job_bound_to_a_host_is_run_only_there(url: str) -> None:
    st = open_store(url)
    q = JobQueue(st)
    q.enqueue("retrace", {"path": "/logs/a.jsonl"}, NOW, host="laptop-7")
    assert q.claim("w", 60, NOW, host="ci-runner") is None
    job = q.claim("w", 60, NOW, host="laptop-7")
    assert job is not None and job.kind == "retrace"
    st.close()


def test_a_worker_killed_mid_job_loses_it_to_another_after_the_lease(pg_url: str, tmp_path: Path) -> None:
    st = open_store(pg_url)
    tid = put(st, "demo-session.jsonl")
    q = JobQueue(st)
    q.enqueue("export", {"trace_id": tid, "dest": str(tmp_path / "out")}, NOW)
    mark = tmp_path / "mark"
    env = {**os.environ, "FORSY_WORKER_TEST_HOLD": "1", "FORSY_WORKER_TEST_MARK": str(mark)}
    with (tmp_path / "err").open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "forsy.cli", "worker", "--store", pg_url, "--lease", "1"],
                                env=env, stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 30
        while not mark.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert mark.exists(), (tmp_path / "err").read_text()
        assert q.jobs()[0].status == "running"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    report = run_worker(WorkerOptions(pg_url, lease_s=5, poll_s=0.2, exit_when_idle=True))
    [job] = q.jobs()
    assert (job.status, job.attempts, report.done) == ("done", 2, [job.id])
    assert (tmp_path / "out" / tid / "trace.json").is_file()
    st.close()


def test_worker_retraces_on_its_host_and_reports_a_bad_file(pg_url: str, tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", log)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    st = open_store(pg_url)
    q = JobQueue(st)
    q.enqueue("retrace", {"path": str(log)}, NOW, host="me")
    q.enqueue("retrace", {"path": str(bad)}, NOW, host="me")
    report = run_worker(WorkerOptions(pg_url, host="me", poll_s=0.1, exit_when_idle=True))
    assert len(report.done) == 1 and len(report.failed) == 1
    assert len(st.traces(TraceQuery())) == 1
    assert q.counts() == {"done": 1, "failed": 1}
    st.close()


# --------------------------------------------------------------------------- many reviewers
def test_two_reviewers_saving_one_draft_at_once_one_wins(pg_url: str) -> None:
    setup = open_store(pg_url)
    tid = put(setup, "demo-session.jsonl")
    state = setup.draft_state(tid)
    assert state is not None
    go = threading.Barrier(2)
    outcome: dict[str, str] = {}

    def save(who: str) -> None:
        s = open_store(pg_url)
        change = ReviewChange(tid, state.version, "edit", who, NOW,
                              proposal=NewProposal("/steps/1/reasoning", json.dumps(f"{who} says"), "human", who,
                                                   None))
        go.wait()
        try:
            s.record_review(change)
            outcome[who] = "saved"
        except ReviewConflict as e:
            outcome[who] = f"conflict: {e}"
        s.close()

    threads = [threading.Thread(target=save, args=(w,)) for w in ("alice", "bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(v.split(":")[0] for v in outcome.values()) == ["conflict", "saved"]
    [winner] = [w for w, v in outcome.items() if v == "saved"]
    [prop] = setup.proposals(tid)
    assert (prop.actor, json.loads(prop.value_json)) == (winner, f"{winner} says")  # nothing else written
    after = setup.draft_state(tid)
    assert after is not None and after.version == state.version + 1
    setup.close()


def test_reviewer_tokens_are_stored_hashed_and_can_be_revoked(url: str) -> None:
    st = open_store(url)
    token = create_reviewer_token(st, "alice", NOW)
    assert verify_reviewer_token(st, token) == "alice"
    assert verify_reviewer_token(st, token + "x") is None
    assert verify_reviewer_token(st, "") is None
    stored = st.conn.execute("SELECT reviewer, token_sha256 FROM reviewer_tokens").fetchall()  # type: ignore[attr-defined]
    assert len(stored) == 1 and token not in repr(stored)
    assert revoke_reviewer_tokens(st, "alice", NOW) == 1
    assert verify_reviewer_token(st, token) is None
    st.close()


# --------------------------------------------------------------------------- copy, migrate
def test_copy_a_local_store_into_the_shared_one_twice_adds_nothing(pg_url: str, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(SAMPLES / "claude" / "compaction-and-branches.jsonl", logs / "c.jsonl")
    local_url = f"sqlite:///{tmp_path / 'local.db'}"
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", logs / "d.jsonl")
    local = open_store(local_url)
    a, b = (retrace_one(logs / n, RetraceOptions(), sink=StoreSink(local, now=NOW), keep=False)[0].trace_id
            for n in ("d.jsonl", "c.jsonl"))
    assert a is not None and b is not None
    (logs / "d.jsonl").unlink()  # a's log is no longer on this machine
    local.set_draft_status(a, "approved", "alice", NOW)
    local.close()
    out = runner.invoke(app, ["store", "copy", "--from", local_url, "--to", pg_url, "--ship-evidence", "--json"])
    assert out.exit_code == 0, out.output
    rep = json.loads(out.stdout)
    assert (rep["copied"], rep["already"], rep["status_set"]) == (2, 0, 1)
    again = runner.invoke(app, ["store", "copy", "--from", local_url, "--to", pg_url, "--json"])
    assert (json.loads(again.stdout)["copied"], json.loads(again.stdout)["already"]) == (0, 2)
    shared = open_store(pg_url)
    rows = {r.trace_id: r for r in shared.traces(TraceQuery())}
    assert set(rows) == {a, b} and rows[a].status == "approved" and rows[b].status == "pending"
    assert [r.trace_id for r in shared.traces(TraceQuery(text="header row"))] == [b]  # search texts copied
    # the cited records of the trace whose log is here, redacted, each checked against its sha256
    ev = [json.loads(line) for line in
          next(f.data for f in shared.trace_files(b) if f.name == EVIDENCE_FILE).splitlines()]
    assert ev and all("record" in e for e in ev)
    missing = [json.loads(x) for x in next(f.data for f in shared.trace_files(a)
                                           if f.name == EVIDENCE_FILE).splitlines()]
    assert missing and all("missing" in e for e in missing)  # its log is gone: said so, per record
    shared.close()


def test_store_migrate_applies_the_migrations_once(pg_url: str) -> None:
    out = runner.invoke(app, ["store", "migrate", "--store", pg_url])
    assert out.exit_code == 0, out.output
    assert "0002_postgresql_text_and_hosts" in out.stdout and "0003_team" in out.stdout and "applied" in out.stdout
    again = runner.invoke(app, ["store", "migrate", "--store", pg_url]).stdout
    assert "none to apply" in again and "0003_team" not in again  # applied once: the second run names none
    bad = runner.invoke(app, ["store", "migrate", "--store", pg_url.replace("?host=", "?host=/nonexistent")])
    assert bad.exit_code == 8 and "cannot connect to the PostgreSQL store" in bad.output
