"""Benchmark `forsy retrace` on a large Claude Code session (not a test).

    python bench/bench_retrace.py                 # 100 MB session, built in a temp dir
    python bench/bench_retrace.py --mb 20 --profile
    python bench/bench_retrace.py --keep /tmp/big.jsonl   # keep the built session
    python bench/bench_retrace.py --input /tmp/big.jsonl  # reuse a session built before

What it does:

1. Builds a session of at least `--mb` MB (10^6 bytes) by repeating the records of a real
   Claude Code log (`--source`; by default a 3 MB Claude Code 2.1.39 session from
   ../shared/real_logs, or sample_logs/claude/demo-session.jsonl when that folder is
   absent). Every repetition gets fresh ids: `uuid`, `parentUuid`, `logicalParentUuid`,
   snapshot `messageId`s, `message.id`, `requestId`, `tool_use` ids and the `tool_use_id`s
   and progress `toolUseID`s that point at them, and subagent `agentId`s. Timestamps are
   shifted so time moves forward, and the first root record of each repetition is chained
   to the last message of the one before, so the file is one long valid session, not
   duplicates forsy would drop.
2. Times bare `orjson.loads` over every line (the file is read and split into lines first;
   only the parsing is timed; best of 3).
3. Runs `forsy retrace` end to end in a child process, with `--no-redact` and with
   redaction (the default), and reads that child's own peak RSS (`os.wait4`).
4. Prints a table, the ratio retrace MB/s ÷ orjson MB/s (target ≥ 0.5) and peak RSS ÷ input
   size (target < 3).

`--profile` also runs the in-process pipeline (redaction off) under cProfile and prints the
top 25 functions by cumulative time and the top 15 by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import os
import platform
import pstats
import re
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT.parent / "shared" / "real_logs" / "claude" / "marot__spotter" / "test" / "fixtures" / "transcripts" \
    / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
SAMPLE = ROOT / "sample_logs" / "claude" / "demo-session.jsonl"
MB = 1_000_000
TARGET_SPEED_RATIO = 0.5
TARGET_RSS_RATIO = 3.0

# Quoted JSON strings that are ids (a whole string value, never a fragment of text).
TOKEN = re.compile(
    rb'"(?:(?P<uuid>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})'
    rb"|(?P<pid>(?:msg|toolu|srvtoolu|req|agent_msg)_[A-Za-z0-9_]+)"
    rb'|(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z))"'
)
AGENT_ID = re.compile(rb'"agentId":"([A-Za-z0-9_-]+)"')
SESSION_ID = re.compile(rb'"sessionId":"([^"]+)"')
ROOT_PARENT = b'"parentUuid":null'


# ---------------------------------------------------------------- building the session


@dataclass
class Template:
    """One source line cut at its ids: literal bytes alternate with (kind, token) slots."""

    parts: list[bytes | tuple[str, bytes]]
    is_root: bool = False  # the repetition's first root record: chained to the previous repetition


def _ts_parse(raw: bytes) -> datetime:
    return datetime.fromisoformat(raw.decode().replace("Z", "+00:00"))


def _ts_format(t: datetime, fraction: bool) -> bytes:
    s = t.astimezone(UTC).isoformat(timespec="milliseconds" if fraction else "seconds")
    return s.replace("+00:00", "Z").encode()


def _b58(data: bytes, n: int) -> str:
    alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    v = int.from_bytes(data, "big")
    out = []
    for _ in range(n):
        v, r = divmod(v, 58)
        out.append(alphabet[r])
    return "".join(out)


class Repeater:
    """Cuts the source once, then writes fresh-id copies of it."""

    def __init__(self, source: Path):
        data = source.read_bytes()
        lines = [ln for ln in data.split(b"\n") if ln.strip()]
        keep = set(SESSION_ID.findall(data))  # the session id stays: one session
        agents = {a for a in AGENT_ID.findall(data) if a not in keep}
        agent_re = re.compile(b'"(' + b"|".join(re.escape(a) for a in sorted(agents)) + b')"') if agents else None
        self.templates: list[Template] = []
        self.leaf: bytes | None = None  # last main-chain message uuid of the source
        stamps: list[datetime] = []
        root_done = False
        for ln in lines:
            spans: list[tuple[int, int, str, bytes]] = []
            for m in TOKEN.finditer(ln):
                kind = m.lastgroup or ""
                tok = m.group(kind)
                if kind == "uuid" and tok in keep:
                    continue
                spans.append((m.start(kind), m.end(kind), kind, tok))
                if kind == "ts":
                    stamps.append(_ts_parse(tok))
            if agent_re is not None:
                spans += [(m.start(1), m.end(1), "agent", m.group(1)) for m in agent_re.finditer(ln)]
            spans.sort()
            parts: list[bytes | tuple[str, bytes]] = []
            pos = 0
            for a, b, kind, tok in spans:
                if a < pos:
                    continue
                parts.append(ln[pos:a])
                parts.append((kind, tok))
                pos = b
            parts.append(ln[pos:] + b"\n")
            t = Template(parts)
            main = b'"isSidechain":false' in ln
            if main and not root_done and ROOT_PARENT in ln and b'"logicalParentUuid"' not in ln:
                t.is_root = root_done = True
            if main and (b'"type":"user"' in ln or b'"type":"assistant"' in ln):
                m = re.search(rb'"uuid":"([0-9a-f-]{36})"', ln)
                if m:
                    self.leaf = m.group(1)
            self.templates.append(t)
        self.size = sum(len(ln) + 1 for ln in lines)
        span = (max(stamps) - min(stamps)) if stamps else timedelta(0)
        self.period = span + timedelta(minutes=1)

    def copy(self, r: int, prev_leaf: bytes | None) -> tuple[bytes, bytes | None]:
        """Repetition `r` of the source (r = 0 is the source itself) and its mapped leaf uuid."""
        cache: dict[tuple[str, bytes], bytes] = {}
        salt = r.to_bytes(4, "big")
        shift = self.period * r

        def fresh(kind: str, tok: bytes) -> bytes:
            key = (kind, tok)
            got = cache.get(key)
            if got is not None:
                return got
            if r == 0:
                new = tok
            elif kind == "ts":
                new = _ts_format(_ts_parse(tok) + shift, b"." in tok)
            else:
                h = hashlib.blake2b(tok + salt, digest_size=16).digest()
                if kind == "uuid":
                    new = str(uuid.UUID(bytes=h, version=4)).encode()
                elif kind == "agent":
                    new = (tok[:1] + h.hex().encode())[: len(tok)]
                else:  # msg_01…, toolu_01…, req_011C…: keep the prefix and the length
                    head = tok[: tok.index(b"_") + 1]
                    head += tok[len(head):len(head) + 2]
                    new = head + _b58(h, len(tok) - len(head)).encode()
            cache[key] = new
            return new

        out = io.BytesIO()
        w = out.write
        for t in self.templates:
            if t.is_root and prev_leaf is not None:
                parts = [p.replace(ROOT_PARENT, b'"parentUuid":"' + prev_leaf + b'"', 1) if isinstance(p, bytes)
                         else p for p in t.parts]
            else:
                parts = t.parts
            for p in parts:
                w(p if isinstance(p, bytes) else fresh(*p))
        leaf = fresh("uuid", self.leaf) if self.leaf else None
        return out.getvalue(), leaf


def build(source: Path, dest: Path, mb: float) -> tuple[int, int]:
    """Write at least `mb` MB of fresh-id repetitions of `source` to `dest`; (bytes, repetitions)."""
    rep = Repeater(source)
    target = int(mb * MB)
    written, r, leaf = 0, 0, None
    with dest.open("wb") as f:
        while written < target:
            chunk, leaf = rep.copy(r, leaf)
            f.write(chunk)
            written += len(chunk)
            r += 1
    return written, r


# ---------------------------------------------------------------- measuring


def bench_orjson(path: Path, rounds: int = 3) -> tuple[float, int]:
    """Best time to `orjson.loads` every line (read and split first, not timed)."""
    lines = path.read_bytes().split(b"\n")
    lines = [ln for ln in lines if ln]
    best = float("inf")
    loads = orjson.loads
    for _ in range(rounds):
        t0 = time.perf_counter()
        for ln in lines:
            loads(ln)
        best = min(best, time.perf_counter() - t0)
    return best, len(lines)


@dataclass
class Run:
    label: str
    seconds: float | None = None
    peak_rss: int | None = None  # bytes
    note: str = ""
    ok: bool = False


# the `forsy` command as its entry point starts it (the launcher starts the secret engine early);
# a checkout from before the launcher runs its command line directly
FORSY_COMMAND = ("try:\n    from forsy._launch import main\nexcept ImportError:\n    from forsy.cli import main\n"
                 "main()")


def run_retrace(path: Path, out: Path, redact: bool) -> Run:
    """`forsy retrace` in a child process; wall time and the child's own peak RSS."""
    label = "forsy retrace" + ("" if redact else " --no-redact")
    cmd = [sys.executable, "-c", FORSY_COMMAND, "retrace", str(path), "-o", str(out)]
    if not redact:
        cmd.append("--no-redact")
    with tempfile.TemporaryFile() as so, tempfile.TemporaryFile() as se:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=so, stderr=se)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        se.seek(0)
        err = se.read().decode("utf-8", "replace")
        so.seek(0)
        stdout = so.read().decode("utf-8", "replace")
    run = Run(label, seconds, usage.ru_maxrss * 1024)  # Linux reports KiB
    if proc.returncode != 0:
        run.seconds = None
        if "forsy.redact" in err:
            run.note = "skipped: redaction is not available yet (No module named 'forsy.redact')"
        else:
            tail = " ".join(err.strip().splitlines()[-2:])[:200]
            run.note = f"failed (exit {proc.returncode}): {tail}"
        return run
    run.ok = True
    run.note = stdout.strip().splitlines()[-1][:120] if stdout.strip() else ""
    return run


def profile(path: Path, out: Path) -> None:
    from forsy.run import RetraceOptions, retrace

    prof = cProfile.Profile()
    prof.enable()
    retrace([path], RetraceOptions(out=out, redact=False))
    prof.disable()
    for key, n in (("cumulative", 25), ("tottime", 15)):
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).strip_dirs().sort_stats(key).print_stats(n)
        text = buf.getvalue()
        start = text.find("   ncalls")
        print(f"\n--- cProfile, in-process pipeline (redaction off): top {n} by {key}")
        print(text[start:].rstrip() if start >= 0 else text.rstrip())


def bytecode(*folders: Path) -> None:
    """Write the bytecode of every module under `folders`, as pip does when it installs a package.

    Without it a run of forsy from a checkout compiles its ~130 modules from source each time
    (0.15-0.25 s here) wherever bytecode is not written, as on this machine
    (PYTHONDONTWRITEBYTECODE=1), while a forsy installed with pip, and every peer, loads it:
    the benchmarks time what users run. `compileall` writes whatever that variable says.
    """
    for folder in folders:
        subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", str(folder)], check=True,
                       stdout=subprocess.DEVNULL)


# ---------------------------------------------------------------- report


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        from importlib.metadata import version

        forsy_v = version("forsy")
    except Exception:  # informational only
        forsy_v = "?"
    return (f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, orjson {orjson.__version__}, "
            f"forsy {forsy_v}, {platform.system()} {platform.release()}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=100.0, help="size of the built session in MB (10^6 bytes)")
    ap.add_argument("--source", type=Path, default=None, help="Claude Code session whose records are repeated")
    ap.add_argument("--keep", type=Path, default=None, help="write the built session here and keep it")
    ap.add_argument("--input", type=Path, default=None, help="benchmark this session as is (no build)")
    ap.add_argument("--profile", action="store_true", help="also profile the in-process pipeline (cProfile)")
    ap.add_argument("--no-redact-only", action="store_true", help="skip the run with redaction")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="forsy-bench-") as tmp_s:
        tmp = Path(tmp_s)
        if args.input:
            path = args.input
            print(f"input: {path} ({path.stat().st_size / MB:.1f} MB, not built)")
        else:
            source = args.source or (REAL if REAL.is_file() else SAMPLE)
            path = args.keep or tmp / "session.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            t0 = time.perf_counter()
            size, reps = build(source, path, args.mb)
            print(f"built {path}: {size / MB:.1f} MB, {reps} repetitions of {source.name} "
                  f"({source.stat().st_size / MB:.2f} MB) in {time.perf_counter() - t0:.1f} s")
        size = path.stat().st_size
        mb = size / MB

        bytecode(ROOT / "src")
        runs = [run_retrace(path, tmp / "out-plain", redact=False)]
        if not args.no_redact_only:
            runs.append(run_retrace(path, tmp / "out-redacted", redact=True))
        # after forsy's runs: Linux counts in a child's peak RSS what its parent held when the
        # child was started (the memory it replaced by exec), and this holds the whole file
        parse_s, n_lines = bench_orjson(path)
        parse_speed = mb / parse_s

        print(f"\nmachine: {machine()}")
        print(f"date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}")
        print(f"input: {mb:.1f} MB, {n_lines} lines\n")
        head = f"{'what':<28} {'seconds':>8} {'MB/s':>8} {'peak RSS MB':>12} {'RSS/input':>10} {'vs orjson':>10}"
        print(head)
        print("-" * len(head))
        print(f"{'orjson.loads per line':<28} {parse_s:>8.2f} {parse_speed:>8.1f} {'':>12} {'':>10} {'1.00':>10}")
        for r in runs:
            if not r.ok or r.seconds is None:
                print(f"{r.label:<28} {r.note}")
                continue
            speed = mb / r.seconds
            rss = (r.peak_rss or 0) / MB
            print(f"{r.label:<28} {r.seconds:>8.2f} {speed:>8.1f} {rss:>12.0f} {rss / mb:>10.2f} "
                  f"{speed / parse_speed:>10.3f}")
        print()
        for r in runs:
            if r.ok and r.seconds is not None:
                speed, rss = mb / r.seconds, (r.peak_rss or 0) / MB
                ok_speed = speed / parse_speed >= TARGET_SPEED_RATIO
                ok_rss = rss / mb < TARGET_RSS_RATIO
                print(f"{r.label}: speed {speed / parse_speed:.3f} × orjson (target ≥ {TARGET_SPEED_RATIO}: "
                      f"{'met' if ok_speed else 'NOT met'}), peak RSS {rss / mb:.2f} × input "
                      f"(target < {TARGET_RSS_RATIO:g}: {'met' if ok_rss else 'NOT met'})")
                if r.note:
                    print(f"  forsy said: {r.note}")
        if args.profile:
            profile(path, tmp / "out-profile")
    return 0


if __name__ == "__main__":
    sys.exit(main())
