"""What a read session holds, and how much of a retrace's memory is the reading's leftovers (not a test).

    .venv/bin/python bench/bench_session_memory.py /tmp/b100.jsonl
    .venv/bin/python bench/bench_session_memory.py FILE --src /tmp/wt-old/src

Runs in a child (so another checkout's `src` can be measured the same way), without redaction:

1. the file read as `forsy retrace` reads it (collector paused, freed memory given back);
   resident memory then;
2. what the session holds, walked object by object (`sys.getsizeof`, each object once): its
   events (texts, calls, results) and its evidence (one record per line read, with its id,
   place and hash), by type;
3. the session written to a temporary file, dropped, and read back: resident memory after the
   drop (what the process holds without it) and after the reload (the same session in fresh
   memory: the difference from 1 is the most a reader that never held the records could save);
4. for each of the two sessions (as read, as reloaded), segmenting and assembling: the peak.

Only 4 is repeated, once per way, each in a fresh child: the peak of a process never goes down.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import gc, json, os, pickle, resource, sys, tempfile
from collections import Counter
from pathlib import Path
from forsy.run import RetraceOptions
from forsy.run.discovery import read
from forsy._gc import gc_paused, give_back
from forsy.protocols import NoRedactor
from forsy.rules.segment import Segmenter
from forsy.assemble import assemble

def rss():
    with open("/proc/self/status") as f:
        return next(int(x.split()[1]) // 1024 for x in f if x.startswith("VmRSS"))

def walk(root):
    size, count, seen, stack = Counter(), Counter(), set(), [root]
    while stack:
        x = stack.pop()
        if id(x) in seen or isinstance(x, type):
            continue
        seen.add(id(x))
        name = type(x).__name__
        size[name] += sys.getsizeof(x)
        count[name] += 1
        if isinstance(x, dict):
            stack.extend(x.keys()); stack.extend(x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
        elif not isinstance(x, (str, bytes, int, float, bool)) and x is not None:
            d = getattr(x, "__dict__", None)
            if d is not None:
                stack.append(d)
            for slot in getattr(type(x), "__slots__", ()) or ():
                if hasattr(x, slot):
                    stack.append(getattr(x, slot))
    return size, count

path, mode = Path(sys.argv[1]), sys.argv[2]
out = {}
with gc_paused():
    s = read([path], RetraceOptions(redact=False))[0]
    give_back()
    out["rss_after_read_mb"] = rss()
    if mode == "parts":
        for part in ("events", "evidence"):
            size, count = walk(getattr(s, part))
            out[part] = {"mb": round(sum(size.values()) / 1e6, 1),
                         "by_type_mb": {k: round(v / 1e6, 1) for k, v in size.most_common(6)},
                         "objects": dict(count.most_common(6))}
    if mode in ("parts", "reloaded"):
        fd, name = tempfile.mkstemp()
        with os.fdopen(fd, "wb") as f:
            pickle.dump(s, f, protocol=5)
        del s
        gc.collect()
        give_back()
        out["rss_without_session_mb"] = rss()
        with open(name, "rb") as f:
            s = pickle.load(f)
        os.unlink(name)
        out["rss_session_reloaded_mb"] = rss()
    if mode != "parts":
        seg = Segmenter(s)
        drafts = seg.run()
        a = assemble(s, drafts, release_tier="private", redaction=NoRedactor().report(), matches=seg.matches)
        out["rss_after_assembly_mb"] = rss()
        out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(json.dumps(out))
"""


def child(src: Path, file: Path, mode: str) -> dict[str, object]:
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", CHILD, str(file), mode], env=env, capture_output=True, text=True,
                          check=True)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--src", type=Path, default=ROOT / "src")
    args = ap.parse_args()
    mb = args.file.stat().st_size / 1e6
    print(f"{args.file} ({mb:.1f} MB), no redaction, src {args.src}")
    for mode in ("parts", "as-read", "reloaded"):
        print(mode, json.dumps(child(args.src, args.file, mode), indent=1))


if __name__ == "__main__":
    main()
