"""`forsy dataset build` at 1×, 3× and 10× a corpus: sessions/s and peak memory per worker,
on both engines, with 1 and 2 CPUs.

The corpus is N copies of varied real Claude Code and Codex sessions from ../shared/real_logs
(the sample logs when it is absent), each copy with its own session ids so every one is its
own trace (as bench_dir_memory.py makes them). Each build runs in a child process; a sampler
reads the resident memory of every process under it from /proc every 50 ms and keeps each
one's peak: the workers (the local engine's spawned processes, Ray's `ray::` workers), the
driver, and Ray's own daemons (raylet, GCS, agents) apart. A local Ray is started inside each
build (its start-up is in the wall time, as it is for a user).

    python bench/bench_dataset.py                    # base 40 sessions: 40, 120, 400
    python bench/bench_dataset.py --base 10 --engines local,ray --cpus 1,2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dir_memory import build as make_corpus

PAGE = os.sysconf("SC_PAGE_SIZE")


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(_children(p))
    return out


def _rss_and_role(pid: int, driver: int) -> tuple[int, str] | None:
    try:
        with open(f"/proc/{pid}/statm") as f:
            rss = int(f.read().split()[1]) * PAGE
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\x00", b" ").decode(errors="replace")
    except OSError:
        return None
    if pid == driver:
        return rss, "driver"
    if "spawn_main" in cmd or cmd.startswith("ray::"):
        return rss, "worker"
    return rss, "other"


class Sampler(threading.Thread):
    def __init__(self, driver: int) -> None:
        super().__init__(daemon=True)
        self.driver = driver
        self.peaks: dict[int, tuple[int, str]] = {}
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            for pid in _tree(self.driver):
                got = _rss_and_role(pid, self.driver)
                if got is not None and got[0] > self.peaks.get(pid, (0, ""))[0]:
                    self.peaks[pid] = got
            time.sleep(0.05)

    def peak(self, role: str) -> float:
        return max((r for r, k in self.peaks.values() if k == role), default=0) / 1e6

    def total(self, role: str) -> float:
        return sum(r for r, k in self.peaks.values() if k == role) / 1e6


def run(corpus: Path, out: Path, engine: str, cpus: int) -> tuple[float, Sampler, int]:
    code = ("import sys; from forsy.dataset import build; "
            f"r = build([{str(corpus)!r}], {str(out)!r}, engine={engine!r}, num_cpus={cpus}); print(r.retraced)")
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    sampler = Sampler(proc.pid)
    sampler.start()
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - t0
    sampler.done.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"{engine} x{cpus} failed: {stderr.decode()[-800:]}")
    return wall, sampler, int(stdout.decode().split()[-1])  # sessions retraced (the walk's count, not files)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=int, default=40, help="sessions at 1×")
    ap.add_argument("--scales", default="1,3,10")
    ap.add_argument("--engines", default="local,ray")
    ap.add_argument("--cpus", default="1,2")
    a = ap.parse_args()
    print(f"{os.cpu_count()} cores; load average (1 min) at start: {os.getloadavg()[0]:.1f}")
    print("| scale | files | sessions | MB | engine | CPUs | wall s | sessions/s | × 1 CPU | worker peak MB | "
          "workers | driver peak MB | other MB (Ray daemons; the resource tracker) |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for scale in (int(s) for s in a.scales.split(",")):
            corpus = Path(tmp) / f"corpus-{scale}"
            corpus.mkdir()
            n = a.base * scale
            size = make_corpus(corpus, n)
            for engine in a.engines.split(","):
                one = None
                for cpus in (int(c) for c in a.cpus.split(",")):
                    wall, s, sessions = run(corpus, Path(tmp) / f"out-{scale}-{engine}-{cpus}", engine, cpus)
                    one = one or wall
                    workers = sum(1 for _, k in s.peaks.values() if k == "worker")
                    print(f"| {scale}× | {n} | {sessions} | {size / 1e6:.1f} | {engine} | {cpus} | {wall:.1f} | "
                          f"{sessions / wall:.2f} | "
                          f"{one / wall:.2f} | {s.peak('worker'):.0f} | {workers} | {s.peak('driver'):.0f} | "
                          f"{s.total('other'):.0f} |", flush=True)
    print(f"load average (1 min) at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
