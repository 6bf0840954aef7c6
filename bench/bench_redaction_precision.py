"""Redaction precision and recall per kind and per rule, on a labelled set of real masked spans.

    .venv/bin/python bench/bench_redaction_precision.py            # the table (docs/redaction.md)
    .venv/bin/python bench/bench_redaction_precision.py --review   # spans not labelled yet, with context
    .venv/bin/python bench/bench_redaction_precision.py --planted 2000

How the set was made: every real log in ../shared/real_logs (read at run time, never copied)
is retraced twice, with and without redaction; the two traces (trace.json and provenance.json)
are walked field by field and, in each string that differs, the masked spans are found by
aligning the redacted string (text between placeholders) on the original. Each span was then
classified by hand from its context: `secret`, `personal` or `not_sensitive`. The labels are in
tests/redaction_labels/labels.jsonl, one span a line, keyed by log, field and the SHA-256 of the
value (never the value): {"log", "field", "sha", "kind", "label", "why"}.

Measures (a span = one masked value in one field):
- precision per kind and per rule: of the spans masked today, the share labelled secret or
  personal (a span not labelled yet is reported apart, as `unlabelled`, and counted in no ratio);
- recall on the labelled set: of the spans labelled secret or personal, the share still masked;
- recall on planted secrets (tests/secretgen.py, tests/cmdline_secrets.py): bench_redact.py's
  measure, leaks must stay 0 (the leak tests also check it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

from forsy.errors import ForsyError  # noqa: E402
from forsy.redact import Redactor, user_names_from_paths  # noqa: E402
from forsy.run import RetraceOptions, retrace  # noqa: E402
from forsy.sources import detect  # noqa: E402

REAL_LOGS = ROOT.parent / "shared" / "real_logs"
LABELS = ROOT / "tests" / "redaction_labels" / "labels.jsonl"
SENSITIVE = ("secret", "personal")
AGENTS = ("claude", "codex", "shell")  # the formats forsy reads
# what the redactor writes (numbered path users and the older un-numbered form)
MASK = re.compile(r"\[(?:(?:CREDENTIAL|PRIVATE_KEY|EMAIL|PHONE|PERSON|PATH_USER)_\d+|PATH_USER|UNSCANNABLE_TEXT)\]")


@dataclass(frozen=True)
class Span:
    """One masked value: where (log, field, offsets in the unredacted string), what, found by."""

    log: str
    field: str
    start: int
    end: int
    sha: str
    kind: str
    rule: str
    context: str  # for --review only (printed, never stored)


def sha(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def masked_spans(orig: str, red: str) -> list[tuple[int, int, str]] | None:
    """(start, end, placeholder) of each masked value of `orig`, from its redacted form `red`;
    None when the two cannot be aligned (text between placeholders not found in order)."""
    parts = MASK.split(red)
    masks = MASK.findall(red)
    if not masks or not orig.startswith(parts[0]):
        return None
    out = []
    pos = len(parts[0])
    for k, mask in enumerate(masks):
        lit = parts[k + 1]
        if k + 1 == len(masks):
            end = len(orig) - len(lit) if orig.endswith(lit) and len(orig) - len(lit) > pos else -1
        else:
            end = orig.find(lit, pos + 1) if lit else -1
        if end <= pos:
            return None
        out.append((pos, end, mask))
        pos = end + len(lit)
    return out


def walk(orig: Any, red: Any, path: str) -> Iterator[tuple[str, str, str]]:
    """(field path, original string, redacted string) for every string of two same-shape values."""
    if isinstance(orig, str) and isinstance(red, str):
        if orig != red:
            yield path, orig, red
    elif isinstance(orig, dict) and isinstance(red, dict) and len(orig) == len(red):
        for (k1, v1), (k2, v2) in zip(orig.items(), red.items(), strict=True):
            if k1 != k2:
                yield f"{path}/<key>", k1, k2
            yield from walk(v1, v2, f"{path}/{k1}")
    elif isinstance(orig, list) and isinstance(red, list) and len(orig) == len(red):
        for i, (v1, v2) in enumerate(zip(orig, red, strict=True)):
            yield from walk(v1, v2, f"{path}/{i}")
    elif orig != red:
        yield path, "<shape>", "<shape>"


@dataclass
class Collected:
    spans: list[Span]
    unaligned: int  # fields whose redacted form could not be aligned on the original
    logs: int


def _docs(outcome: Any) -> dict[str, Any]:
    a = outcome.assembled
    return {"trace": a.trace.model_dump(mode="json"), "provenance": a.provenance.model_dump(mode="json"),
            **{f"files/{k}": v for k, v in sorted(a.files.items())}}


def collect(root: Path = REAL_LOGS) -> Collected:
    """Retrace every real log with and without redaction and list the masked spans."""
    root = root.resolve()  # the logs' paths come back resolved (../shared may be a link)
    logs = [p for agent in AGENTS if (root / agent).is_dir() for p in sorted((root / agent).rglob("*"))
            if p.is_file() and _readable(p)]
    plain = retrace(logs, RetraceOptions(redact=False), raise_if_empty=False)
    masked = retrace(logs, RetraceOptions(redact=True), raise_if_empty=False)
    spans: list[Span] = []
    unaligned = 0
    done = 0
    by_key = {(o.path, i): o for i, o in _indexed(masked.results)}
    for i, o in _indexed(plain.results):
        r = by_key.get((o.path, i))
        if r is None or o.assembled is None or r.assembled is None or o.session is None:
            continue
        done += 1
        where = Path(o.path).resolve()
        log = str(where.relative_to(root)) if where.is_relative_to(root) else o.path
        cwd = [o.session.meta.cwd] if o.session.meta.cwd else []
        scanner = Redactor(user_names=user_names_from_paths(cwd))
        d1, d2 = _docs(o), _docs(r)
        for name in d1:
            for field, s1, s2 in walk(d1[name], d2.get(name), name):
                if not MASK.search(s2):
                    continue  # not masked: the release tier and hashes differ, by design
                found = masked_spans(s1, s2) if s1 != "<shape>" else None
                if found is None:
                    unaligned += 1
                    continue
                hits = scanner.scan(s1)
                for start, end, mask in found:
                    hit = next((h for h in hits if h.start < end and start < h.end), None)
                    rule = hit.rule if hit is not None else "secret-field"
                    kind = mask.strip("[]").rstrip("0123456789").rstrip("_")
                    ctx = s1[max(0, start - 60) : start] + "⟦" + s1[start:end] + "⟧" + s1[end : end + 60]
                    spans.append(Span(log, field, start, end, sha(s1[start:end]), kind, rule, ctx))
    return Collected(spans, unaligned, done)


def _readable(path: Path) -> bool:
    try:
        detect(path)
    except ForsyError:
        return False
    return True


def _indexed(outcomes: list[Any]) -> Iterator[tuple[int, Any]]:
    """(n-th outcome of its file, outcome): one file may hold several sessions."""
    seen: Counter[str] = Counter()
    for o in outcomes:
        yield seen[o.path], o
        seen[o.path] += 1


@dataclass(frozen=True)
class Label:
    log: str
    field: str
    sha: str
    kind: str
    label: str
    why: str


def load_labels(path: Path = LABELS) -> list[Label]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            out.append(Label(d["log"], d["field"], d["sha"], d["kind"], d["label"], d.get("why", "")))
    return out


def label_of(labels: list[Label]) -> tuple[dict[tuple[str, str, str], Label], dict[tuple[str, str], Label]]:
    """Labels by (log, field, sha), and by (log, sha) for a value that moved to another field."""
    exact = {(x.log, x.field, x.sha): x for x in labels}
    loose = {(x.log, x.sha): x for x in labels}
    return exact, loose


@dataclass
class Tally:
    masked: int = 0
    good: int = 0  # masked and labelled secret/personal
    unlabelled: int = 0

    @property
    def precision(self) -> float | None:
        n = self.masked - self.unlabelled
        return self.good / n if n else None


def measure(col: Collected, labels: list[Label]) -> tuple[dict[str, Tally], dict[str, Tally], dict[str, Any]]:
    exact, loose = label_of(labels)
    by_kind: dict[str, Tally] = {}
    by_rule: dict[str, Tally] = {}
    seen: set[tuple[str, str, str]] = set()
    for s in col.spans:
        lab = exact.get((s.log, s.field, s.sha)) or loose.get((s.log, s.sha))
        for key, table in ((s.kind, by_kind), (s.rule, by_rule), ("all", by_kind)):
            t = table.setdefault(key, Tally())
            t.masked += 1
            if lab is None:
                t.unlabelled += 1
            elif lab.label in SENSITIVE:
                t.good += 1
        if lab is not None:
            seen.add((lab.log, lab.field, lab.sha))
    # recall on the labelled set: sensitive labels whose value is still masked in its field
    masked_keys = {(s.log, s.field, s.sha) for s in col.spans}
    masked_loose = {(s.log, s.sha) for s in col.spans}
    sensitive = [x for x in labels if x.label in SENSITIVE]
    kept = [x for x in sensitive if (x.log, x.field, x.sha) in masked_keys or (x.log, x.sha) in masked_loose]
    missed = Counter(x.kind for x in sensitive if x not in kept)
    recall = {"sensitive": len(sensitive), "still_masked": len(kept), "missed_by_kind": dict(missed),
              "unaligned_fields": col.unaligned, "logs": col.logs}
    return by_kind, by_rule, recall


def table(title: str, rows: dict[str, Tally], min_masked: int = 0) -> str:
    lines = [f"| {title} | masked | secret or personal | not sensitive | unlabelled | precision |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for key, t in sorted(rows.items(), key=lambda kv: (kv[0] == "all", -kv[1].masked, kv[0])):
        if t.masked < min_masked and key != "all":
            continue
        p = t.precision
        bad = t.masked - t.unlabelled - t.good
        lines.append(f"| {key} | {t.masked} | {t.good} | {bad} | {t.unlabelled} | "
                     f"{'' if p is None else f'{p:.2f}'} |")
    return "\n".join(lines)


def planted_recall(n: int, seed: int) -> str:
    """bench_redact.py's planted-secret recall (fresh secrets; leaks must stay 0)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_redact import recall  # type: ignore[import-not-found]

    from forsy.redact import shared_engine

    rate, total, found, missed = recall(shared_engine(), n, seed)
    return f"planted secrets: {sum(found.values())}/{sum(total.values())} found (recall {rate:.4f}); " \
           f"missed: {len(missed)}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--review", action="store_true", help="print the spans not labelled yet, with context")
    ap.add_argument("--all", action="store_true", help="with --review: every span, labelled or not")
    ap.add_argument("--dump", type=Path, help="write every span (with context: keep it out of the repo) as JSONL")
    ap.add_argument("--from-dump", type=Path, help="measure the spans of an earlier --dump (e.g. of older code)")
    ap.add_argument("--planted", type=int, default=0, help="also measure recall on N planted secrets")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    if not REAL_LOGS.is_dir():
        print(f"skipped: {REAL_LOGS} is absent")
        return 0
    if args.from_dump:
        rows = [json.loads(line) for line in args.from_dump.read_text(encoding="utf-8").splitlines() if line]
        col = Collected([Span(**r) for r in rows], 0, len({r["log"] for r in rows}))
    else:
        col = collect()
    labels = load_labels()
    if args.dump:
        with args.dump.open("w", encoding="utf-8") as f:
            for s in col.spans:
                f.write(json.dumps(s.__dict__, ensure_ascii=False) + "\n")
    if args.review:
        exact, loose = label_of(labels)
        for s in col.spans:
            if args.all or not (exact.get((s.log, s.field, s.sha)) or loose.get((s.log, s.sha))):
                print(f"{s.kind:11} {s.rule:28} {s.log} {s.field}\n    {s.context!r}")
    by_kind, by_rule, rec = measure(col, labels)
    print(f"{rec['logs']} traces, {len(col.spans)} masked spans, {rec['unaligned_fields']} fields not aligned\n")
    print(table("kind", by_kind) + "\n")
    print(table("rule", by_rule) + "\n")
    print(f"recall on the labelled set: {rec['still_masked']}/{rec['sensitive']} secret or personal spans still "
          f"masked; missed by kind: {rec['missed_by_kind']}")
    if args.planted:
        print(planted_recall(args.planted, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
