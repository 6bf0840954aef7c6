"""Load test of the team store: 2 sweepers and 4 workers against one PostgreSQL server.

    .venv/bin/python bench/bench_team.py [--sessions 2000] [--lease 3]

1. A throwaway PostgreSQL cluster (initdb/pg_ctl in a temp folder, Unix socket only; as the
   `postgres` user when run as root).
2. N sessions: copies of the sample Claude Code logs, each with a fresh session id (every
   occurrence of the old id replaced), split between two log roots.
3. Two `forsy sweep` processes at once, one per root, as two machines (FORSY_HOST).
   Checked: every session traced exactly once (one trace per session, N traces).
4. One export job per trace; four `forsy worker --until-idle` processes at once. One of them
   is held on a job (FORSY_WORKER_TEST_HOLD) and killed with SIGKILL; its job must be done
   by another after the lease. Checked: every job done exactly once (one done record per
   job, every folder exported), the killed job done on its second attempt.

Prints the throughput of each phase (sessions/s, jobs/s).
"""

from __future__ import annotations

import argparse
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs" / "claude"
FORSY = [sys.executable, "-m", "forsy.cli"]


def pg_start(tmp: Path) -> tuple[str, list[str], Path]:
    bindir = Path(shutil.which("initdb") or sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))[-1]).parent
    as_user: list[str] = []
    if os.geteuid() == 0:
        pw = pwd.getpwnam("postgres")
        os.chown(tmp, pw.pw_uid, pw.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data = tmp / "data"
    subprocess.run([*as_user, str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "forsy", "-E", "UTF8",
                    "--no-sync"], check=True, stdout=subprocess.DEVNULL)
    opts = f"-k {tmp} -p 5499 -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c max_connections=50"
    subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-l", str(tmp / "log"), "-o", opts, "-w",
                    "start"], check=True, stdout=subprocess.DEVNULL)
    stop = [*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"]
    return f"postgresql://forsy@/postgres?host={tmp}&port=5499", stop, data


def make_sessions(n: int, roots: list[Path]) -> list[str]:
    texts = []
    for p in sorted(SAMPLES.glob("*.jsonl")):
        text = p.read_text()
        m = re.search(r'"sessionId":"([^"]+)"', text)
        if m:
            texts.append((m.group(1), text))
    ids = []
    for i in range(n):
        old, text = texts[i % len(texts)]
        new = str(uuid.UUID(int=i + 1))
        folder = roots[i % len(roots)] / f"-home-dev-p{i % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{new}.jsonl").write_text(text.replace(old, new))
        ids.append(new)
    return ids


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--lease", type=float, default=3.0)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="forsy-bench-team-"))
    url, stop_cmd, _ = pg_start(tmp)
    logs = Path(tempfile.mkdtemp(prefix="forsy-bench-logs-"))
    try:
        run(url, logs, args.sessions, args.lease)
    finally:
        subprocess.run(stop_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(logs, ignore_errors=True)


def run(url: str, logs: Path, n: int, lease: float) -> None:
    from forsy.store import open_store
    from forsy.store.jobs import JobQueue

    roots = [logs / "a", logs / "b"]
    ids = make_sessions(n, roots)
    subprocess.run([*FORSY, "store", "migrate", "--store", url], check=True, stdout=subprocess.DEVNULL)

    t0 = time.perf_counter()
    sweepers = [subprocess.Popen([*FORSY, "sweep", str(r), "--now", "--store", url],
                                 env={**os.environ, "FORSY_HOST": f"sweeper-{i}"}, stdout=subprocess.PIPE)
                for i, r in enumerate(roots)]
    for p in sweepers:
        out, _ = p.communicate()
        print("  ", out.decode().strip())
        assert p.returncode == 0, p.returncode
    sweep_s = time.perf_counter() - t0
    st = open_store(url)
    conn = st.conn  # type: ignore[attr-defined]
    per_session = dict(conn.execute("SELECT s.session_id, COUNT(*) FROM traces t JOIN sessions s "
                                    "ON s.id = t.session_ref GROUP BY s.session_id").fetchall())
    assert sorted(per_session) == sorted(ids), "a session not traced"
    assert set(per_session.values()) == {1}, "a session traced twice"
    print(f"sweep: {n} sessions by 2 sweepers in {sweep_s:.1f} s = {n / sweep_s:.0f} sessions/s; "
          f"each traced exactly once")

    q = JobQueue(st)
    out_dir = logs / "exports"
    tids = [r[0] for r in conn.execute("SELECT trace_id FROM traces ORDER BY trace_id").fetchall()]
    now = "2026-03-01T00:00:00+00:00"
    for tid in tids:
        q.enqueue("export", {"trace_id": tid, "dest": str(out_dir)}, now)
    mark = logs / "held"
    t0 = time.perf_counter()
    workers = []
    for i in range(4):
        env = dict(os.environ)
        if i == 0:  # held on its 25th job, then killed
            env |= {"FORSY_WORKER_TEST_HOLD": "25", "FORSY_WORKER_TEST_MARK": str(mark)}
        workers.append(subprocess.Popen([*FORSY, "worker", "--store", url, "--until-idle", "--lease", str(lease),
                                         "--poll", "0.2"], env=env, stdout=subprocess.PIPE))
    while not mark.exists():
        assert workers[0].poll() is None, "the worker to kill ended first"
        time.sleep(0.05)
    held = int(mark.read_text())
    workers[0].send_signal(signal.SIGKILL)
    killed_at = time.perf_counter()
    for p in workers[1:]:
        out, _ = p.communicate()
        print("  ", out.decode().strip())
        assert p.returncode == 0
    workers[0].wait()
    jobs_s = time.perf_counter() - t0
    jobs = q.jobs(limit=10**9)
    assert len(jobs) == len(tids) and all(j.status == "done" for j in jobs), q.counts()
    [h] = [j for j in jobs if j.id == held]
    assert h.attempts == 2 and h.worker and not h.worker.startswith(f"{os.uname().nodename}:{workers[0].pid}:")
    done_again = conn.execute("SELECT COUNT(*) FROM jobs WHERE attempts > 1").fetchone()[0]
    folders = sorted(p.name for p in out_dir.iterdir())
    assert folders == sorted(tids), "an export missing"
    by_worker = dict(conn.execute("SELECT worker, COUNT(*) FROM jobs GROUP BY worker").fetchall())
    print(f"jobs: {len(jobs)} exports by 4 workers in {jobs_s:.1f} s = {len(jobs) / jobs_s:.0f} jobs/s; "
          f"each done exactly once ({len(by_worker)} workers recorded: {sorted(by_worker.values())}); "
          f"job {held} held by the killed worker done by another on attempt 2 "
          f"({done_again} job(s) claimed twice), {time.perf_counter() - killed_at:.1f} s after the kill")
    st.close()


if __name__ == "__main__":
    main()
