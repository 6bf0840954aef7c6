"""Where `forsy retrace FILE` spends its time and memory, stage by stage (not a test).

    .venv/bin/python bench/bench_stages.py /tmp/b100.jsonl                 # this checkout
    .venv/bin/python bench/bench_stages.py /tmp/b100.jsonl --src /tmp/wt-old/src   # another checkout
    .venv/bin/python bench/bench_stages.py FILE --no-redact --rounds 3

Runs the stages the CLI runs, in this order, in a child process (so another checkout's
`src` can be measured the same way) with the collector paused as the CLI pauses it, and
prints each stage's CPU seconds (user + system of the process and of the children it forked
for a part of a stage, forsy._aside), its wall seconds (median of the rounds), and the peak
RSS reached by its end (of the process or any such child):

    import   forsy's modules a retrace needs
    read     the source reads the file into a Session
    engine   the secret engine built (its rules loaded; hidden behind reading in a real run)
    redact   the session masked (`redact_session`)
    segment  the segmenter's drafts
    assemble Trace, Provenance and Manifest
    rescan   the last scan of the trace before it is written
    write    the trace folder written (rendered, flushed to disk, swapped into place)
    validate the folder read back and checked, as `forsy retrace` does after writing

Works with the checkout before the `run/` package (where these were `forsy.pipeline`'s), so a
before/after pair is one command each.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from bench_retrace import bytecode  # noqa: E402

CHILD = r"""
import json, resource, sys, time, tempfile
from pathlib import Path
def cpu():  # this process and the children it forked and waited for (forsy._aside)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime
t0 = (cpu(), time.perf_counter())
out = {}
def mark(name, since):
    now = (cpu(), time.perf_counter())
    rss = max(resource.getrusage(w).ru_maxrss for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    out[name] = (now[0] - since[0], rss / 1024, now[1] - since[1])
    return now
path, redact = Path(sys.argv[1]), sys.argv[2] == "1"
try:
    from forsy.run import RetraceOptions
    from forsy.run.discovery import read
    from forsy.run.redaction import make_redactor, redact_session, rescan
except ImportError:  # before the run/ package
    from forsy.pipeline import RetraceOptions, read, make_redactor
    from forsy.pipeline import _redact_session as redact_session, _rescan as rescan
from forsy._gc import gc_paused
from forsy.rules.segment import Segmenter
from forsy.assemble import assemble
from forsy.sinks.folder import write_folder
from forsy.validation import validate_path
t = mark("import", t0)
with gc_paused():
    sessions = read([path], RetraceOptions(redact=redact))
    t = mark("read", t)
    s = sessions[0]
    red = None
    if redact:
        red = make_redactor(sessions)
        t = mark("engine", t)
        redact_session(s, red)
        t = mark("redact", t)
    seg = Segmenter(s)
    drafts = seg.run()
    t = mark("segment", t)
    report = red.report() if red is not None else {"enabled": False}
    a = assemble(s, drafts, release_tier="research_preview" if redact else "private", redaction=report,
                 matches=seg.matches)
    t = mark("assemble", t)
    if red is not None:
        rescan(a, red)
        t = mark("rescan", t)
    dest = Path(tempfile.mkdtemp()) / "trace"
    write_folder(a, dest)
    t = mark("write", t)
    del a, drafts, seg, sessions, s
    rep = validate_path(dest)
    t = mark("validate", t)
print(json.dumps(out))
"""

STAGES = ("import", "read", "engine", "redact", "segment", "assemble", "rescan", "write", "validate")


def run(path: Path, redact: bool, src: Path | None) -> dict[str, tuple[float, float, float]]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    r = subprocess.run([sys.executable, "-c", CHILD, str(path), "1" if redact else "0"], env=env,
                       capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return {k: (v[0], v[1], v[2] if len(v) > 2 else v[0]) for k, v in
            json.loads(r.stdout.strip().splitlines()[-1]).items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--src", type=Path, help="another checkout's src/ (default: this one's)")
    ap.add_argument("--no-redact", action="store_true")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args(argv)
    bytecode(args.src or ROOT / "src")  # as installed by pip (bench_retrace.bytecode)
    runs = [run(args.file, not args.no_redact, args.src) for _ in range(args.rounds)]
    size = args.file.stat().st_size / 1e6
    print(f"{args.file} ({size:.1f} MB), redaction {'off' if args.no_redact else 'on'}, "
          f"src {args.src or ROOT / 'src'}, {args.rounds} round(s), median\n")
    print("| stage | CPU s | wall s | peak RSS MB by its end |")
    print("|---|---:|---:|---:|")
    total = wall = 0.0
    for st in STAGES:
        if st in runs[0]:
            cpu = statistics.median(r[st][0] for r in runs)
            w = statistics.median(r[st][2] for r in runs)
            total, wall = total + cpu, wall + w
            print(f"| {st} | {cpu:.2f} | {w:.2f} | {statistics.median(r[st][1] for r in runs):.0f} |")
    print(f"| **all** | **{total:.2f}** | **{wall:.2f}** | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
