"""Redaction benchmark: recall on planted secrets, false positives, speed.

    /work/venv/bin/python bench/bench_redact.py [--secrets 2000] [--mb 50] [--seed N] [--show]

1. recall: `--secrets` fresh fake secrets (tests/secretgen.py) planted in varied contexts
   (prose, JSON-in-a-string twice escaped, URL-encoded, .env dumps, markdown, tool output);
   a snippet counts as found when none of its secrets is left in any form (raw, JSON-escaped
   once or twice, URL-encoded). Per kind, and for forsy rules alone (no engine findings).
   Also the command-line set (tests/cmdline_secrets.py): credentials given as a tool's flag
   or an environment assignment, and their look-alikes (ports, prompts, `$VAR`...).
2. false positives: look-alikes (UUIDs, git SHAs, sha256/sha512 digests, base64 images,
   versions, timestamps, ports, code that names secrets...) must come out unchanged; and
   what is masked in the real agent logs under ../shared/real_logs (read at run time, never
   copied), counted per rule and per MB (`--show` prints each with its context: review them).
3. speed on ~`--mb` MB built from the real logs (or generated text when they are absent), in
   the three ways a caller may redact: whole texts, many lines (`redact_many`), JSON records
   (`redact_value`), as CPU MB/s (the machine is shared; wall time is printed too).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

from cmdline_secrets import CmdlineGen  # noqa: E402
from forsy.redact import EngineHit, KingfisherEngine, Redactor, shared_engine  # noqa: E402
from secretgen import SecretGen, forms  # noqa: E402

REAL_LOGS = ROOT.parent / "shared" / "real_logs"


class RulesOnly:
    """The engine's anchors without its findings: what forsy's own rules find alone."""

    def __init__(self, inner: KingfisherEngine) -> None:
        self.inner = inner
        self.name = "none"
        self.reports_anchors = True

    def scan(self, data: bytes) -> Sequence[EngineHit]:
        return [h for h in self.inner.scan(data) if h.rule.startswith("custom.forsy-anchor")]


def recall(engine: Any, n: int, seed: int) -> tuple[float, Counter[str], Counter[str], list[str]]:
    planted = SecretGen(seed=seed).planted(n)
    outs = Redactor(engine=engine).redact_many([p.text for p in planted])
    total: Counter[str] = Counter()
    found: Counter[str] = Counter()
    missed = []
    for p, out in zip(planted, outs, strict=True):
        total[p.kind] += 1
        if p.leaks(out):
            missed.append(p.text)
        else:
            found[p.kind] += 1
    return sum(found.values()) / n, found, total, missed


def engine_alone(engine: KingfisherEngine, n: int, seed: int) -> float:
    """Baseline: kingfisher's own findings on the raw text, nothing else (no views, no rules)."""
    found = 0
    for p in SecretGen(seed=seed).planted(n):
        data = bytearray(p.text.encode("utf-8"))
        for h in engine.scan(bytes(data)):
            if not h.rule.startswith("custom.forsy-anchor"):
                data[h.start : h.end] = b"\x00" * (h.end - h.start)
        found += not p.leaks(data.decode("utf-8", "replace"))
    return found / n


def cmdline(engine: Any, n: int, seed: int) -> tuple[int, int, list[str], int, list[str]]:
    """Command lines: (lines, masked, missed, look-alikes, changed look-alikes)."""
    gen = CmdlineGen(seed=seed)
    cases, clean = gen.must_mask(n), gen.must_not_mask(n)
    red = Redactor(engine=engine)
    outs = red.redact_many([c.text for c in cases])
    missed = [o for c, o in zip(cases, outs, strict=True) if any(f in o for s in c.secrets for f in forms(s))]
    changed = [o for t, o in zip(clean, red.redact_many(clean), strict=True) if t != o]
    return len(cases), len(cases) - len(missed), missed, len(clean), changed


def lookalike_fp(engine: Any, n: int, seed: int) -> list[tuple[str, str]]:
    clean = SecretGen(seed=seed).lookalikes(n)
    outs = Redactor(engine=engine).redact_many(clean)
    return [(c, o) for c, o in zip(clean, outs, strict=True) if c != o]


def real_log_texts() -> list[tuple[str, str]]:
    if not REAL_LOGS.is_dir():
        return []
    files = sorted(p for p in REAL_LOGS.rglob("*") if p.is_file() and p.name != "SOURCES.md")
    return [(str(p.relative_to(REAL_LOGS)), p.read_text("utf-8", "replace")) for p in files]


def real_log_hits(engine: Any, texts: list[tuple[str, str]], show: bool) -> tuple[Counter[str], float]:
    red = Redactor(engine=engine)
    hits: Counter[str] = Counter()
    for name, text in texts:
        for h in red.scan(text):
            hits[h.rule] += 1
            if show:
                ctx = f"{text[max(0, h.start - 50) : h.start]}<<<{text[h.start : h.end]}>>>{text[h.end : h.end + 20]}"
                print(f"  {h.rule:28} {name[:40]:40} {ctx!r:.200}")
    return hits, sum(len(t) for _, t in texts) / 1e6


def corpus(texts: list[tuple[str, str]], mb: float, seed: int) -> list[str]:
    """About `mb` MB: the real logs repeated, or generated text with planted secrets."""
    if not texts:
        gen, rng = SecretGen(seed=seed), random.Random(seed)
        words = "the agent ran the tests and fixed the import error in module config".split()
        line = lambda: " ".join(rng.choice(words) for _ in range(12))  # noqa: E731
        texts = [("gen", "\n".join(line() if rng.random() < 0.97 else gen.planted_one().text for _ in range(20000)))]
    out: list[str] = []
    size = 0
    while size < mb * 1e6:
        for _, t in texts:
            out.append(t)
            size += len(t)
    return out


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall


def speed(engine: Any, texts: list[str]) -> list[tuple[str, float, float, float]]:
    size = sum(len(t) for t in texts) / 1e6
    lines = [ln for t in texts for ln in t.splitlines(keepends=True)]
    records: list[Any] = []
    for ln in lines:
        if ln.startswith("{"):
            try:
                records.append(json.loads(ln))
            except ValueError:
                pass
    rec_mb = sum(len(json.dumps(r, ensure_ascii=False)) for r in records) / 1e6
    rows = []
    red = Redactor(engine=engine)
    cpu, wall = timed(lambda: [red.redact(t) for t in texts])
    rows.append(("redact(text), whole files", size, cpu, wall))
    red = Redactor(engine=engine)
    cpu, wall = timed(lambda: red.redact_many(lines))
    rows.append((f"redact_many({len(lines):,} lines)", size, cpu, wall))
    if records:
        red = Redactor(engine=engine)
        cpu, wall = timed(lambda: [red.redact_value(r) for r in records])
        rows.append((f"redact_value, {len(records):,} JSONL records", rec_mb, cpu, wall))
    sample = lines[: max(1, len(lines) // 20)]
    red = Redactor(engine=engine)
    cpu, wall = timed(lambda: [red.redact(ln) for ln in sample])
    rows.append(("redact(line), one call per line (1/20)", sum(map(len, sample)) / 1e6, cpu, wall))
    return rows


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--secrets", type=int, default=2000)
    ap.add_argument("--lookalikes", type=int, default=2000)
    ap.add_argument("--mb", type=float, default=50)
    ap.add_argument("--seed", type=int, default=random.randrange(1 << 30))
    ap.add_argument("--show", action="store_true", help="print every hit in the real logs with its context")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    engine = shared_engine()
    print(f"engine: {engine.name}, ready in {time.perf_counter() - t0:.2f} s; seed {args.seed}\n")

    rate, found, total, missed = recall(engine, args.secrets, args.seed)
    own_rate, own_found, _, _ = recall(RulesOnly(engine), args.secrets, args.seed)
    base = engine_alone(engine, args.secrets, args.seed)
    print(f"recall on {args.secrets} planted snippets: {rate:.4f} (forsy rules alone: {own_rate:.4f}, "
          f"kingfisher alone on raw text: {base:.4f})")
    print(f"  {'kind':16} {'found':>7} {'of':>5} {'rules alone':>12}")
    for kind in sorted(total):
        print(f"  {kind:16} {found[kind]:7} {total[kind]:5} {own_found[kind]:12}")
    for text in missed[:5]:
        print(f"  missed: {text!r:.160}")

    lines, masked, missed_lines, n_clean, changed = cmdline(engine, args.secrets, args.seed)
    print(f"\ncommand lines (tests/cmdline_secrets.py): {masked}/{lines} masked, "
          f"{len(changed)}/{n_clean} look-alikes changed")
    for text in missed_lines[:5] + changed[:5]:
        print(f"  {text!r:.160}")

    fps = lookalike_fp(engine, args.lookalikes, args.seed + 1)
    print(f"\nfalse positives on {args.lookalikes} look-alikes: {len(fps)}")
    for before, after in fps[:5]:
        print(f"  {before!r:.100} -> {after!r:.100}")

    texts = real_log_texts()
    if texts:
        hits, mb = real_log_hits(engine, texts, args.show)
        print(f"\nmasked in the real logs ({len(texts)} files, {mb:.1f} MB): {sum(hits.values())} spans "
              f"({sum(hits.values()) / mb:.1f} per MB); review with --show")
        for rule, n in hits.most_common():
            print(f"  {rule:40} {n:6}")

    rows = speed(engine, corpus(texts, args.mb, args.seed))
    print(f"\n{'speed':46} {'MB':>7} {'cpu s':>7} {'MB/s cpu':>9} {'MB/s wall':>10}")
    for name, size, cpu, wall in rows:
        print(f"{name:46} {size:7.1f} {cpu:7.2f} {size / cpu:9.1f} {size / wall:10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
