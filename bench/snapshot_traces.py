"""Retrace every real log (and sample log) into OUT, for byte-identical before/after checks.

    .venv/bin/python bench/snapshot_traces.py /tmp/before            # this checkout
    PYTHONPATH=/tmp/wt-base/src .venv/bin/python bench/snapshot_traces.py /tmp/base
    diff -r /tmp/base /tmp/before                                     # must print nothing

Each log is retraced in this process (no folder sink) with redaction on and off; for every
session it holds, OUT/<r|n>-<hash of its path>-<name>-<i>/ gets trace.json, provenance.json
and manifest.json as the folder sink would write them, and path.txt (the log, the outcome's
status and message). `--kinds` limits the real logs to some folders of ../shared/real_logs
(a speed change is compared on the kinds that existed when the first snapshot was taken);
extra files given after OUT are added (e.g. a session built by bench_retrace.py).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL_LOGS = ROOT.parent / "shared" / "real_logs"
KINDS = ("claude", "codex", "gemini", "cline", "openhands", "shell", "invariant", "atif")


def main(argv: list[str] | None = None) -> int:
    from forsy.errors import ForsyError
    from forsy.run import RetraceOptions, retrace_one
    from forsy.sinks.folder import render
    from forsy.sources import detect

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("extra", type=Path, nargs="*", help="more log files to retrace")
    ap.add_argument("--kinds", nargs="+", default=list(KINDS), help="folders of ../shared/real_logs")
    args = ap.parse_args(argv)
    roots = [REAL_LOGS / k for k in args.kinds] + [ROOT / "sample_logs"]
    files = sorted(p for r in roots if r.is_dir() for p in r.rglob("*") if p.is_file()) + list(args.extra)
    args.out.mkdir(parents=True, exist_ok=True)
    traces = 0
    for redact in (True, False):
        for f in files:
            key = ("r-" if redact else "n-") + hashlib.sha256(str(f).encode()).hexdigest()[:12] + "-" + f.name[:40]
            try:
                src = detect(f)
            except ForsyError:
                continue
            for i, o in enumerate(retrace_one(f, RetraceOptions(redact=redact), sink=None, keep=True, source=src)):
                d = args.out / f"{key}-{i}"
                d.mkdir(exist_ok=True)
                (d / "path.txt").write_text(f"{f}\n{o.status}\n{o.message}\n")
                if o.assembled is not None:
                    rendered = render(o.assembled)
                    for name in ("trace.json", "provenance.json", "manifest.json"):
                        (d / name).write_bytes(rendered[name])
                    traces += 1
    print(f"{traces} traces from {len(files)} files in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
