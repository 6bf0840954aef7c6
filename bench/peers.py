"""forsy against its peers on one large Claude Code session (not a test).

    .venv/bin/python bench/peers.py                     # 100 MB, 3 interleaved rounds
    .venv/bin/python bench/peers.py --mb 100 300 --rounds 3
    .venv/bin/python bench/peers.py --mb 10 30 100 --tools forsy-plain forsy   # linearity
    .venv/bin/python bench/peers.py --cache /tmp/peers  # where the peers' venvs live
    .venv/bin/python bench/peers.py --baseline /tmp/wt-old/src   # also forsy from another checkout

What it does:

1. Installs each peer into its own venv under the cache folder (`--cache`, default
   `$XDG_CACHE_HOME/forsy-bench` or `~/.cache/forsy-bench`), from the package registry with
   pip, at a pinned version: `opentraces==0.4.13`, `claude-code-transcripts==0.6`,
   `claude-code-log==1.7.0`. A venv that already holds the pinned version is reused.
2. Builds each session with bench_retrace.py's builder (fresh ids per repetition of a real
   2.1.x log, one long parent chain).
3. Runs every tool as a child process, in interleaved rounds (the order rotates every round
   so no tool always runs first or last), and reads each child's own wall time and peak RSS
   (`os.wait4`: `ru_maxrss` of that process only). The median of the rounds is shown.
4. Prints a markdown table: wall s, MB/s, peak RSS ÷ input, × bare orjson; with the machine,
   the date, forsy's commit and the load average before and after (the ratios within one
   run are what matter on a shared machine). Also the child's CPU seconds (user + system,
   from the same `wait4`) and the ratio on CPU: on a loaded machine wall time is mostly
   waiting for a core, CPU time much less so.

What each tool does with the file:

* `orjson`: bare `orjson.loads` of every line, streamed (the limit: no work at all);
* `opentraces`: `ClaudeCodeParser().parse_session(path)`, its TraceRecord in memory;
* `claude-code-transcripts`: `claude-code-transcripts json FILE -o DIR` (paginated HTML);
* `claude-code-log`: `claude-code-log FILE -o out.json --no-cache` (a JSON transcript);
* `forsy-plain`: `forsy retrace FILE -o DIR --no-redact` (a trace folder);
* `forsy`: `forsy retrace FILE -o DIR` (redaction on, the default).
* with `--baseline SRC`: the same two forsy runs with another checkout's `src` (e.g. a git
  worktree of an older commit), interleaved with the others: before/after in one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_retrace import FORSY_COMMAND, MB, REAL, SAMPLE, build, bytecode, machine

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Peer:
    name: str  # the package on the registry
    version: str

    def venv(self, cache: Path) -> Path:
        return cache / f"{self.name}-{self.version}"


PEERS = (Peer("opentraces", "0.4.13"), Peer("claude-code-transcripts", "0.6"), Peer("claude-code-log", "1.7.0"))
TOOLS = ("orjson", "opentraces", "claude-code-transcripts", "claude-code-log", "forsy-plain", "forsy")
BASELINE_TOOLS = ("baseline-forsy-plain", "baseline-forsy")
LABELS = {
    "orjson": ("bare `orjson.loads` per line (the limit)", "nothing"),
    "opentraces": ("opentraces 0.4.13 parser", "its trace record (in memory)"),
    "claude-code-transcripts": ("claude-code-transcripts 0.6", "paginated HTML"),
    "claude-code-log": ("claude-code-log 1.7.0", "JSON transcript"),
    "forsy-plain": ("**forsy `--no-redact`**", "trace folder"),
    "forsy": ("**forsy** (redaction on)", "trace folder"),
    "baseline-forsy-plain": ("forsy `--no-redact`, baseline checkout", "trace folder"),
    "baseline-forsy": ("forsy (redaction on), baseline checkout", "trace folder"),
}

ORJSON_SCRIPT = "import sys, orjson\nfor line in open(sys.argv[1], 'rb'):\n    orjson.loads(line)\n"
OPENTRACES_SCRIPT = (
    "import sys\nfrom pathlib import Path\n"
    "from opentraces.capture.claude_code.parse import ClaudeCodeParser\n"
    "r = ClaudeCodeParser().parse_session(Path(sys.argv[1]))\n"
    "assert r is not None and r.steps, 'opentraces read no steps'\n"
)


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "forsy-bench"


def install(peer: Peer, cache: Path) -> Path:
    """The peer's venv (its python), created and filled with pip when missing."""
    venv = peer.venv(cache)
    py = venv / "bin" / "python"
    marker = venv / "installed.txt"  # written only after pip succeeded
    if py.exists() and marker.exists():
        return py
    cache.mkdir(parents=True, exist_ok=True)
    print(f"installing {peer.name}=={peer.version} into {venv} ...", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", f"{peer.name}=={peer.version}"], check=True)
    marker.write_text(f"{peer.name}=={peer.version}\n")
    return py


def command(tool: str, path: Path, out: Path, cache: Path, baseline: Path | None) -> tuple[list[str], Path | None]:
    """The child's command line, and the forsy `src` to put on its PYTHONPATH (forsy runs only)."""
    bin_ = {p.name: p.venv(cache) / "bin" for p in PEERS}
    if tool == "orjson":
        return [sys.executable, "-c", ORJSON_SCRIPT, str(path)], None
    if tool == "opentraces":
        return [str(bin_["opentraces"] / "python"), "-c", OPENTRACES_SCRIPT, str(path)], None
    if tool == "claude-code-transcripts":
        return [str(bin_["claude-code-transcripts"] / "claude-code-transcripts"), "json", str(path), "-o",
                str(out)], None
    if tool == "claude-code-log":
        return [str(bin_["claude-code-log"] / "claude-code-log"), str(path), "-o", str(out / "out.json"),
                "--no-cache"], None
    forsy = [sys.executable, "-c", FORSY_COMMAND, "retrace", str(path), "-o", str(out / "t")]
    src = baseline if tool.startswith("baseline-") else ROOT / "src"
    return forsy + (["--no-redact"] if tool.endswith("forsy-plain") else []), src


@dataclass
class Runs:
    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # user + system seconds
    rss: list[int] = field(default_factory=list)  # bytes
    failed: str = ""


def run_once(cmd: list[str], src: Path | None, work: Path) -> tuple[float, float, int, int, str]:
    """(wall seconds, CPU seconds, peak RSS bytes, exit code, stderr tail) of one child process."""
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(src)) if src is not None else None
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=work, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        err.seek(0)
        tail = " ".join(err.read().decode("utf-8", "replace").strip().splitlines()[-2:])[:200]
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status), tail  # Linux: KiB


def commit() -> str:
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "src"], capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + (" (+ uncommitted changes under src/)" if dirty else "")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(path: Path, tools: list[str], rounds: int, cache: Path, tmp: Path,
            baseline: Path | None) -> dict[str, Runs]:
    runs = {t: Runs() for t in tools}
    for r in range(rounds):
        order = tools[r % len(tools):] + tools[:r % len(tools)]  # rotate: no tool always first
        for tool in order:
            if runs[tool].failed:
                continue
            work = tmp / f"{tool}-{r}"
            seconds, cpu, rss, code, tail = run_once(*command(tool, path, work, cache, baseline), work)
            shutil.rmtree(work, ignore_errors=True)
            if code != 0:
                runs[tool].failed = f"exit {code}: {tail}"
                continue
            runs[tool].seconds.append(seconds)
            runs[tool].cpu.append(cpu)
            runs[tool].rss.append(rss)
            print(f"  round {r + 1} {tool:<24} {seconds:7.2f} s  CPU {cpu:7.2f} s  peak RSS {rss / MB:7.0f} MB",
                  flush=True)
    return runs


def table(path: Path, runs: dict[str, Runs]) -> str:
    mb = path.stat().st_size / MB
    ok = "orjson" in runs and runs["orjson"].seconds
    base = statistics.median(runs["orjson"].seconds) if ok else None
    base_cpu = statistics.median(runs["orjson"].cpu) if ok else None
    rows = ["| tool (version) | what it produces | wall s | MB/s | peak RSS ÷ input | × bare orjson "
            "| CPU s | × orjson (CPU) |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    for tool, r in runs.items():
        label, what = LABELS[tool]
        if not r.seconds:
            rows.append(f"| {label} | {what} | failed: {r.failed} | | | | | |")
            continue
        s, cpu = statistics.median(r.seconds), statistics.median(r.cpu)
        rss = statistics.median(r.rss) / MB
        ratio = f"{s / base:.1f}" if base else ""
        ratio_cpu = f"{cpu / base_cpu:.1f}" if base_cpu else ""
        rows.append(f"| {label} | {what} | {s:.2f} | {mb / s:.1f} | {rss / mb:.2f} | {ratio} | {cpu:.2f} "
                    f"| {ratio_cpu} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--mb", type=float, nargs="+", default=[100.0], help="session sizes to build, MB (10^6 bytes)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tools", nargs="+", choices=TOOLS, default=list(TOOLS))
    ap.add_argument("--cache", type=Path, default=default_cache(), help="where the peers' venvs live")
    ap.add_argument("--source", type=Path, default=None, help="Claude Code session whose records are repeated")
    ap.add_argument("--input", type=Path, default=None, help="measure this session as is (no build)")
    ap.add_argument("--baseline", type=Path, default=None,
                    help="another forsy checkout's src folder: its two forsy runs are measured too")
    args = ap.parse_args(argv)
    tools = [t for t in TOOLS if t in args.tools]
    if args.baseline:
        tools += [t for t in BASELINE_TOOLS if t.removeprefix("baseline-") in tools]
    for peer in PEERS:
        if peer.name in tools:
            install(peer, args.cache)
    # forsy's checkouts load bytecode too, as the peers do (pip wrote theirs): bench_retrace.bytecode
    bytecode(ROOT / "src", *([args.baseline] if args.baseline else []))
    print(f"machine: {machine()}")
    print(f"date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}, forsy commit {commit()}")
    with tempfile.TemporaryDirectory(prefix="forsy-peers-") as tmp_s:
        tmp = Path(tmp_s)
        inputs: list[Path] = []
        if args.input:
            inputs.append(args.input)
        else:
            source = args.source or (REAL if REAL.is_file() else SAMPLE)
            for mb in args.mb:
                dest = tmp / f"session-{mb:g}mb.jsonl"
                size, reps = build(source, dest, mb)
                print(f"built {dest.name}: {size / MB:.1f} MB, {reps} repetitions of {source.name}")
                inputs.append(dest)
        for path in inputs:
            before = load()
            print(f"\n{path.name} ({path.stat().st_size / MB:.1f} MB), load average {before}", flush=True)
            runs = measure(path, tools, args.rounds, args.cache, tmp, args.baseline)
            lines = sum(1 for _ in path.open("rb"))
            print(f"\n{path.stat().st_size / MB:.1f} MB, {lines} lines; {args.rounds} interleaved rounds, median; "
                  f"load average before {before}, after {load()}\n")
            print(table(path, runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
