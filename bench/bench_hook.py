"""How long forsy's hook holds the agent (not a test).

    python bench/bench_hook.py                  # 30 Claude Code SessionEnd calls, then 30 Codex notifies
    python bench/bench_hook.py --runs 100 --json

The agent runs the hook and waits for it to exit and to close its stdout and stderr (a
background process that kept them open would hold the agent as long as it runs). This
script does exactly that: `subprocess.run(..., capture_output=True)` of the command that
`forsy hook install` writes (`python -m forsy.hooks run --agent …`), the payload on stdin
(Claude Code) or as the last argument (Codex), and times it from start to both pipes
closed, each call after the previous one's background work ended (`--together`: at
once, with the background sweeps competing for the CPUs). It reports the median and the
worst, and for comparison the same through the `forsy` command line (`python -m forsy.cli
hook run`), which imports typer and every command first.

Everything happens in a temp folder (forsy's data folder, store and the agents' homes): the
session is a copy of sample_logs/claude/demo-session.jsonl. At the end it waits for the
background processes to finish and reports how many drafts they made, and how long the
first one took from the hook's call to its line in the hook log.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_retrace import bytecode  # noqa: E402

SAMPLE = ROOT / "sample_logs" / "claude" / "demo-session.jsonl"
CODEX_SAMPLE = next((ROOT / "sample_logs" / "codex" / "sessions").rglob("rollout-*aaaa.jsonl"))


def timed(argv: list[str], stdin: bytes, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(argv, input=stdin, capture_output=True, env=env, timeout=120)
    held = time.perf_counter() - t0
    if r.returncode != 0 or r.stdout:
        raise SystemExit(f"the hook misbehaved: exit {r.returncode}, stdout {r.stdout[:200]!r}")
    return held


def log_lines(data: Path) -> list[str]:
    try:
        return (data / "forsy" / "hook.log").read_text(encoding="utf-8").splitlines()
    except OSError:
        return []


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--together", action="store_true",
                    help="call again at once, while earlier calls' background sweeps still run")
    a = ap.parse_args()
    bytecode(ROOT / "src")  # as installed by pip (bench_retrace.bytecode)

    tmp = Path(tempfile.mkdtemp(prefix="forsy-hook-bench-"))
    try:
        proj = tmp / "claude" / "projects" / "-home-dev-app"
        proj.mkdir(parents=True)
        transcript = proj / "demo.jsonl"
        shutil.copy(SAMPLE, transcript)
        sessions = tmp / "codex" / "sessions" / "2026" / "05" / "12"
        sessions.mkdir(parents=True)
        shutil.copy(CODEX_SAMPLE, sessions / CODEX_SAMPLE.name)
        env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data"), "FORSY_STORE": f"sqlite:///{tmp / 'store.db'}",
               "FORSY_CONFIG": str(tmp / "none.toml"), "CODEX_HOME": str(tmp / "codex"),
               "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
        claude = json.dumps({"session_id": "bench", "transcript_path": str(transcript), "cwd": "/home/dev/app",
                             "hook_event_name": "SessionEnd", "reason": "exit"}).encode()
        thread = CODEX_SAMPLE.name.removesuffix(".jsonl")[-36:]
        codex = json.dumps({"type": "agent-turn-complete", "thread-id": thread, "turn-id": "1",
                            "cwd": "/home/dev/shop", "input-messages": ["hi"], "last-assistant-message": "done"})
        hook = [sys.executable, "-m", "forsy.hooks", "run"]
        cli = [sys.executable, "-m", "forsy.cli", "hook", "run"]
        results: dict[str, list[float]] = {}
        t_first = time.time()
        cases = [("claude-code (python -m forsy.hooks)", hook + ["--agent", "claude-code"], claude),
                 ("codex (python -m forsy.hooks)", hook + ["--agent", "codex", codex], b""),
                 ("claude-code (python -m forsy.cli hook run)", cli + ["--agent", "claude-code"], claude)]
        calls = 0
        for name, argv, stdin in cases:
            n = a.runs if "forsy.hooks" in name else max(5, a.runs // 3)
            results[name] = []
            for _ in range(n):
                results[name].append(timed(argv, stdin, env))
                calls += 1
                if not a.together:  # the previous call's background work done: its CPU is not in this hold
                    until = time.monotonic() + 120
                    while len(log_lines(tmp / "data")) < calls and time.monotonic() < until:
                        time.sleep(0.05)
        deadline = time.monotonic() + 600
        while len(log_lines(tmp / "data")) < calls and time.monotonic() < deadline:
            time.sleep(0.5)
        lines = [ln.split("\t") for ln in log_lines(tmp / "data")]
        ok = sum(1 for ln in lines if len(ln) > 3 and ln[3] == "ok")
        first = lines[0][0] if lines else None
        out = {name: {"runs": len(v), "median_ms": round(statistics.median(v) * 1000, 1),
                      "worst_ms": round(max(v) * 1000, 1), "best_ms": round(min(v) * 1000, 1)}
               for name, v in results.items()}
        summary = {"hold": out, "background": {"calls": calls, "logged": len(lines), "ok": ok,
                                               "first_logged_at": first, "started_at": time.strftime(
                                                   "%Y-%m-%dT%H:%M:%SZ", time.gmtime(t_first))},
                   "python": sys.version.split()[0], "cpus": os.cpu_count()}
        if a.json:
            print(json.dumps(summary))
            return
        print(f"{'hook':45} {'runs':>5} {'median ms':>10} {'worst ms':>9} {'best ms':>8}")
        for name, r in out.items():
            print(f"{name:45} {r['runs']:5} {r['median_ms']:10} {r['worst_ms']:9} {r['best_ms']:8}")
        print(f"background: {len(lines)} of {calls} calls logged, {ok} ok (a draft made, or found up to date)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
