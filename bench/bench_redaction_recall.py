"""Redaction recall by category on forms the rules were not written from, and look-alikes kept.

    .venv/bin/python bench/bench_redaction_recall.py               # the table (docs/redaction.md)
    .venv/bin/python bench/bench_redaction_recall.py --show        # every leak and changed look-alike
    PYTHONPATH=/old/src .venv/bin/python bench/bench_redaction_recall.py   # "before": older code

Sets (each case is the texts of one session, redacted in order by one Redactor, after
`Redactor.learn` of all of them when the code has it, as the pipeline does):
- held-out (tests/redaction_heldout/heldout.py): forms written before the rules, never tuned on
  (the forms the issue itself named were then fixed; the others were left as they are);
- second held-out (heldout2.py): written after the rules, before any change made from it;
- third held-out (heldout3.py): written before the last round of rules (SQL, quoted values);
- fourth held-out (heldout4.py): written before the rules for run-together secret names,
  positional `name value` pairs and pre-shared keys;
- fifth held-out (heldout5.py): forms written in one sitting as a user would paste them, before
  the rules for typed declarations, other assignment operators, key/value element pairs and a
  token as a URL's user;
- sixth held-out (heldout6.py): what tools print (CLI listings and dumps, REPLs, database
  shells, diffs, device configuration, remote-login command lines), written before any rule
  change made from it;
- seventh held-out (heldout7.py): personal data (e-mail addresses, phones, postal addresses,
  government numbers, dates of birth, public IPs, card and bank numbers, a home folder's user)
  as agents meet it, written before any rule change made from it;
- structure (tests/redaction_structure_samples.py): the must-match samples of the rules'
  own tests, i.e. what the rules were written from (optimistic by construction);
A secret leaks when any of its forms (raw, JSON-escaped, URL-encoded) is in any output; a
`keep` string (a host next to a password) must still be readable. Look-alikes must come out
unchanged. Precision on real logs is bench_redaction_precision.py's measure.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "redaction_heldout"))
if str(ROOT / "src") not in sys.path and not any(p.endswith("/src") for p in sys.path):
    sys.path.insert(0, str(ROOT / "src"))

from heldout import Case, heldout_cases, heldout_lookalikes  # noqa: E402
from heldout2 import heldout2_cases, heldout2_lookalikes  # noqa: E402
from heldout3 import heldout3_cases, heldout3_lookalikes  # noqa: E402
from heldout4 import heldout4_cases, heldout4_lookalikes  # noqa: E402
from heldout5 import heldout5_cases, heldout5_lookalikes  # noqa: E402
from heldout6 import heldout6_cases, heldout6_lookalikes  # noqa: E402
from heldout7 import heldout7_cases, heldout7_lookalikes  # noqa: E402

from forsy.redact import Redactor  # noqa: E402
from secretgen import forms  # noqa: E402


def run_case(texts: tuple[str, ...] | list[str]) -> list[str]:
    red = Redactor()
    learn = getattr(red, "learn", None)
    if learn is not None:
        learn(list(texts))
    return red.redact_many(list(texts))


def measure(cases: list[Any], lookalikes: list[str], show: bool) -> tuple[dict[str, Counter[str]], int, int]:
    by_cat: dict[str, Counter[str]] = defaultdict(Counter)
    for case in cases:
        out = "\n".join(run_case(case.texts))
        leaked = [s for s in case.secrets if any(f in out for f in forms(s))]
        lost = [k for k in case.keep if k not in out]
        cat = by_cat[case.category]
        cat["secrets"] += len(case.secrets)
        cat["leaked"] += len(leaked)
        cat["cases"] += 1
        cat["too_wide"] += bool(lost)
        if show and (leaked or lost):
            print(f"  LEAK {case.category} / {case.form}: {out!r}" if leaked else
                  f"  WIDE {case.category} / {case.form}: {out!r} (lost {lost})")
    red = Redactor()
    changed = 0
    for text in lookalikes:
        got = red.redact(text)
        if got != text:
            changed += 1
            if show:
                print(f"  CHANGED {text!r} -> {got!r}")
    return by_cat, changed, len(lookalikes)


def table(name: str, by_cat: dict[str, Counter[str]], changed: int, n_clean: int) -> None:
    print(f"\n{name}\n")
    print("| category | cases | secrets | masked | recall | mask too wide |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    total: Counter[str] = Counter()
    for cat, c in by_cat.items():
        total.update(c)
        masked = c["secrets"] - c["leaked"]
        print(f"| {cat} | {c['cases']} | {c['secrets']} | {masked} | {masked / c['secrets']:.2f} | {c['too_wide']} |")
    masked = total["secrets"] - total["leaked"]
    print(f"| **all** | {total['cases']} | {total['secrets']} | {masked} | **{masked / total['secrets']:.2f}** |"
          f" {total['too_wide']} |")
    print(f"\nlook-alikes changed: {changed} of {n_clean}")


# each held-out set: its name for --set, its title, its cases and its look-alikes (by seed)
SETS: dict[str, tuple[str, Callable[[int], list[Case]], Callable[[int], list[str]]]] = {
    "heldout": ("held-out set", heldout_cases, heldout_lookalikes),
    "heldout2": ("second held-out set", heldout2_cases, heldout2_lookalikes),
    "heldout3": ("third held-out set", heldout3_cases, heldout3_lookalikes),
    "heldout4": ("fourth held-out set", heldout4_cases, heldout4_lookalikes),
    "heldout5": ("fifth held-out set", heldout5_cases, heldout5_lookalikes),
    "heldout6": ("sixth held-out set", heldout6_cases, heldout6_lookalikes),
    "heldout7": ("seventh held-out set: personal data", heldout7_cases, heldout7_lookalikes),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--set", default="all", choices=(*SETS, "structure", "all"))
    args = ap.parse_args()
    for name, (title, cases, lookalikes) in SETS.items():
        if args.set in (name, "all"):
            by_cat, changed, n = measure(cases(args.seed), lookalikes(args.seed), args.show)
            table(f"{title} (seed {args.seed})", by_cat, changed, n)
    if args.set in ("structure", "all"):
        try:
            from redaction_structure_samples import structure_cases, structure_lookalikes
        except ImportError:
            print("\nstructure set: absent")
            return
        by_cat, changed, n = measure(structure_cases(args.seed), structure_lookalikes(), args.show)
        table(f"structure set: the rules' own samples (seed {args.seed})", by_cat, changed, n)


if __name__ == "__main__":
    main()
