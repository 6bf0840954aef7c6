"""Peak memory of `forsy retrace DIR` against retracing DIR's largest session alone.

forsy reads, redacts, segments, assembles and writes one session at a time, so a directory
of many sessions should peak no higher than its largest session does (aim: within 20 %).

The directory holds N copies (default 200) of varied real Claude Code and Codex sessions
from ../shared/real_logs (the sample logs when it is absent), each copy under its own file
name and session id so every one is its own trace; the largest session is a bigger real
log (by default spotter's 3.2 MB session). Each run is a child process; its peak RSS is
read with os.wait4 (Linux: ru_maxrss of that process only).

    python bench/bench_dir_memory.py            # 200 sessions
    python bench/bench_dir_memory.py -n 50 --no-redact
    python bench/bench_dir_memory.py --compare-jobs 1,2 --rounds 3   # wall time, one process vs two

With --compare-jobs, the same directory is retraced with each --jobs value in interleaved
rounds (the order alternates, so a neighbour's load falls on all alike): median wall time,
sessions/s, MB/s, and the peak RSS of the parent process (workers hold one session each).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_retrace import FORSY_COMMAND, bytecode  # noqa: E402

REAL = ROOT.parent / "shared" / "real_logs"
LARGEST = REAL / "claude/marot__spotter/test/fixtures/transcripts/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def pool() -> list[Path]:
    """Varied real sessions (not the largest one), or the shipped samples."""
    if REAL.is_dir():
        found = sorted(p for kind in ("claude", "codex") for p in (REAL / kind).rglob("*.jsonl")
                       if p.is_file() and 20_000 < p.stat().st_size < 1_500_000 and "/subagents/" not in str(p))
        if found:
            return found
    return sorted(p for p in (ROOT / "sample_logs" / "claude").glob("*.jsonl"))


def build(folder: Path, n: int) -> int:
    """n sessions in `folder`, each a real log with its session ids made unique to the copy."""
    src = pool()
    total = 0
    for i in range(n):
        p = src[i % len(src)]
        data = p.read_bytes()
        # a distinct session id per copy: rewrite every uuid by a fixed mapping of the copy's index
        data = UUID.sub(lambda m, i=i: b"%08x" % i + m.group(0)[8:], data)
        name = p.name.replace(".jsonl", f"-copy{i:04d}.jsonl")
        (folder / name).write_bytes(data)
        total += len(data)
    return total


def peak_mb(args: list[str]) -> tuple[float, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", FORSY_COMMAND, *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode() if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 7):
        raise SystemExit(f"forsy {' '.join(args)} exited {code}: {err[-500:]}")
    return usage.ru_maxrss / 1024, wall


def compare_jobs(d: Path, out: Path, n: int, size: int, rounds: int, jobs: list[int], extra: list[str]) -> None:
    walls: dict[int, list[float]] = {j: [] for j in jobs}
    peaks: dict[int, list[float]] = {j: [] for j in jobs}
    loads = [os.getloadavg()[0]]
    for r in range(rounds):
        for j in jobs if r % 2 == 0 else jobs[::-1]:
            dest = out / f"j{j}-r{r}"
            peak, wall = peak_mb(["retrace", str(d), "-o", str(dest), "--jobs", str(j), *extra])
            walls[j].append(wall)
            peaks[j].append(peak)
            loads.append(os.getloadavg()[0])
            print(f"  round {r + 1}, --jobs {j}: {wall:.1f} s, parent peak {peak:.0f} MB", flush=True)
            shutil.rmtree(dest)
    print(f"directory: {n} sessions, {size / 1e6:.1f} MB; load average (1 min) during the runs: "
          f"{min(loads):.1f} .. {max(loads):.1f} on {os.cpu_count()} cores")
    print("| --jobs | wall, median s | sessions/s | MB/s | × --jobs 1 | parent peak RSS MB |")
    print("|---:|---:|---:|---:|---:|---:|")
    base = statistics.median(walls[jobs[0]])
    for j in jobs:
        m = statistics.median(walls[j])
        print(f"| {j} | {m:.1f} | {n / m:.1f} | {size / 1e6 / m:.2f} | {base / m:.2f} | "
              f"{statistics.median(peaks[j]):.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--largest", type=Path, default=LARGEST)
    ap.add_argument("--no-redact", action="store_true")
    ap.add_argument("--compare-jobs", type=str, metavar="1,2", help="only compare retrace wall time with these --jobs")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    largest = a.largest if a.largest.is_file() else max(pool(), key=lambda p: p.stat().st_size)
    extra = ["--no-redact"] if a.no_redact else []
    bytecode(ROOT / "src")  # as installed by pip (bench_retrace.bytecode)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "sessions"
        d.mkdir()
        size = build(d, a.n)
        if a.compare_jobs:
            compare_jobs(d, Path(tmp), a.n, size, a.rounds, [int(j) for j in a.compare_jobs.split(",")], extra)
            return
        big = d / largest.name
        shutil.copy(largest, big)
        one = Path(tmp) / "one"
        one.mkdir()
        shutil.copy(largest, one / largest.name)
        # one process (--jobs 1): wait4's peak RSS is that process's alone, workers' would not count
        alone, t_alone = peak_mb(["retrace", str(one / largest.name), "-o", str(Path(tmp) / "out1"), *extra])
        whole, t_whole = peak_mb(["retrace", str(d), "-o", str(Path(tmp) / "out2"), "--jobs", "1", *extra])
        written = sum(1 for _ in (Path(tmp) / "out2").iterdir())
    print(f"directory: {a.n + 1} sessions, {size / 1e6 + largest.stat().st_size / 1e6:.1f} MB "
          f"({written} trace folders written); largest session: {largest.name} {largest.stat().st_size / 1e6:.2f} MB")
    print("| run | peak RSS (MB) | wall (s) |")
    print("|---|---:|---:|")
    print(f"| largest session alone | {alone:.0f} | {t_alone:.1f} |")
    print(f"| the whole directory | {whole:.0f} | {t_whole:.1f} |")
    print(f"ratio directory / largest alone: {whole / alone:.2f} (aim ≤ 1.20)")


if __name__ == "__main__":
    main()
