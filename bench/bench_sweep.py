"""Benchmark `forsy sweep` over a tree of many sessions (not a test).

    python bench/bench_sweep.py                    # 1,000 sessions, built in a temp dir
    python bench/bench_sweep.py --sessions 200 --keep /tmp/sweep-bench
    python bench/bench_sweep.py --compare-jobs 1,2 --rounds 3   # first sweep, one process vs two

What it does:

1. Builds `--sessions` Claude Code session files in projects of 50, by cycling through the
   real logs under ../shared/real_logs/claude (files under 400 KB; sample_logs/claude when
   that folder is absent). Every copy gets a fresh session id (the `sessionId` value
   replaced throughout, and the file named after it), so each is its own session and trace.
2. First sweep (redaction on, the default): seconds, sessions/s, MB/s of session files.
3. Re-run over the unchanged tree (target < 1 s for 1,000 sessions), best of 3.
4. Appends a few records to one small and one large session and re-sweeps each time: the
   cost should follow the appended session's size, not the tree's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from forsy.run import RetraceOptions  # noqa: E402
from forsy.store import open_store  # noqa: E402
from forsy.sweep import SweepOptions, SweepReport, sweep  # noqa: E402

REAL = ROOT.parent / "shared" / "real_logs" / "claude"
SID = re.compile(rb'"sessionId":"([0-9a-f-]{36})"')


def sources() -> list[bytes]:
    files = sorted(p for p in REAL.rglob("*.jsonl") if "subagents" not in p.parts and p.stat().st_size < 400_000) \
        if REAL.is_dir() else []
    files = files or sorted((ROOT / "sample_logs" / "claude").glob("*.jsonl"))
    out = []
    for p in files:
        data = p.read_bytes()
        if SID.search(data):
            out.append(data)
    return out


def build(root: Path, n: int) -> int:
    srcs = sources()
    total = 0
    for i in range(n):
        data = srcs[i % len(srcs)]
        old = SID.search(data)
        assert old is not None
        new = str(uuid.UUID(int=i + 1))
        data = data.replace(old.group(1), new.encode())
        proj = root / f"-home-dev-proj{i // 50:03d}"
        proj.mkdir(parents=True, exist_ok=True)
        (proj / f"{new}.jsonl").write_bytes(data)
        total += len(data)
    return total


def append_records(path: Path) -> int:
    """Append copies of the file's last user message, re-chained, with fresh uuids."""
    recs = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    last = [r for r in recs if r.get("uuid")][-1]
    added = b""
    parent = last["uuid"]
    for k in range(3):
        rec = {key: last[key] for key in ("sessionId", "cwd", "version", "gitBranch", "timestamp") if key in last}
        rec.update({"type": "user", "uuid": str(uuid.uuid4()), "parentUuid": parent, "isSidechain": False,
                    "userType": "external", "message": {"role": "user", "content": f"one more thing #{k}"}})
        parent = rec["uuid"]
        added += json.dumps(rec).encode() + b"\n"
    with open(path, "ab") as f:
        f.write(added)
    return len(added)


def once(store_url: str, root: Path, jobs: int = 1) -> tuple[float, SweepReport]:
    store = open_store(store_url)
    try:
        t = time.perf_counter()
        rep = sweep(store, SweepOptions(roots=[root], ignore_settle=True, claude_home=root / "no-claude-home",
                                        retrace=RetraceOptions(jobs=jobs)))
        return time.perf_counter() - t, rep
    finally:
        store.close()


def compare_jobs(work: Path, root: Path, n: int, total: int, rounds: int, jobs: list[int]) -> None:
    """First sweeps into fresh stores with each --jobs value, interleaved (a round runs every
    value, in an order that alternates), so a neighbour's load falls on all of them alike."""
    secs: dict[int, list[float]] = {j: [] for j in jobs}
    loads = [os.getloadavg()[0]]
    for r in range(rounds):
        for j in jobs if r % 2 == 0 else jobs[::-1]:
            db = work / f"store-j{j}.db"
            for f in work.glob(f"store-j{j}.db*"):
                f.unlink()
            t, rep = once(f"sqlite:///{db}", root, j)
            secs[j].append(t)
            loads.append(os.getloadavg()[0])
            print(f"  round {r + 1}, --jobs {j}: {t:.1f} s ({rep.counts.traced} traced, {rep.counts.failed} failed)",
                  flush=True)
    print(f"load average (1 min) during the runs: {min(loads):.1f} .. {max(loads):.1f} on {os.cpu_count()} cores")
    print("| --jobs | first sweep, median s | sessions/s | MB/s | × --jobs 1 |")
    print("|---:|---:|---:|---:|---:|")
    base = statistics.median(secs[jobs[0]])
    for j in jobs:
        m = statistics.median(secs[j])
        print(f"| {j} | {m:.1f} | {n / m:.1f} | {total / 1e6 / m:.2f} | {base / m:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--keep", type=Path, help="build the tree and store here (kept)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes for the sweeps (default 1)")
    ap.add_argument("--compare-jobs", type=str, metavar="1,2",
                    help="only compare first sweeps with these --jobs values (interleaved rounds, median)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="forsy-sweep-bench-"))
    root = work / "projects"
    if root.exists():
        shutil.rmtree(root)
    (work / "store.db").unlink(missing_ok=True)
    total = build(root, args.sessions)
    url = f"sqlite:///{work / 'store.db'}"
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"tree: {args.sessions} sessions, {total / 1e6:.1f} MB")
    if args.compare_jobs:
        compare_jobs(work, root, args.sessions, total, args.rounds, [int(j) for j in args.compare_jobs.split(",")])
        if not args.keep:
            shutil.rmtree(work)
        return

    secs, rep = once(url, root, args.jobs)
    c = rep.counts
    print(f"first sweep: {secs:.1f} s, {c.traced} traced, {c.skipped} skipped, {c.failed} failed; "
          f"{args.sessions / secs:.1f} sessions/s, {total / 1e6 / secs:.2f} MB/s")
    best = min(once(url, root, args.jobs)[0] for _ in range(3))
    print(f"re-run, nothing changed: {best * 1000:.0f} ms (best of 3) for {args.sessions} sessions")

    files = sorted(root.rglob("*.jsonl"), key=lambda p: p.stat().st_size)
    for label, path in (("small", files[len(files) // 4]), ("large", files[-1])):
        size = path.stat().st_size
        append_records(path)
        secs, rep = once(url, root, args.jobs)
        print(f"appended to the {label} session ({size / 1e3:.0f} KB): {secs * 1000:.0f} ms, "
              f"{rep.counts.grown} grown, {rep.counts.bytes_read / 1e3:.0f} KB read")
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
