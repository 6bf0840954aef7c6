"""How well does a model's pass do? Precision and recall of accepted values on a small labelled set.

    python bench/llm_eval.py --llm openai/qwen --llm-api-base http://127.0.0.1:8080/v1 \\
        --llm-timeout 900 --llm-concurrency 1 --llm-chunk-tokens 3000 [--json out.json]

The set: a synthetic session with a known correction (tests/test_llm.py's CORRECTION) and three
real logs from ../shared/real_logs, each labelled by hand with expected values for some fields
(`expect`: path → the acceptable values) and fields that must stay null (`must_null`: the
evidence does not support any value there). A path with `*` for the step matches every step.

Scoring, per accepted model value on a labelled path:
* correct: the value is one of the expected ones;
* wrong: another value, or any value on a must-null path.
precision = correct / (correct + wrong); recall = correct / expected paths.
Accepted values on unlabelled paths are counted, not scored (free text has no single right
answer: its grounding is checked by forsy, not here). Also reported: rejections by reason,
calls, retries, timeouts, context splits, fallbacks, tokens and wall time.

Not part of CI: it needs a model. Each run uses a fresh answer cache, so every call is made.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "real_logs"
sys.path.insert(0, str(ROOT / "tests"))
Value = str | bool | None


@dataclass
class Case:
    name: str
    log: Path | None  # None: the synthetic correction session, written to a temp file
    expect: dict[str, tuple[Value, ...]] = field(default_factory=dict)
    must_null: list[str] = field(default_factory=list)


NO_ALTERNATIVES = "/steps/*/alternatives_considered"  # none of these logs shows an agent weighing options
CASES = [
    Case("synthetic-correction", None,
         expect={"/steps/5/message_role": ("correction",), "/steps/5/feedback_type": ("correction",),
                 "/summary/goal_achieved": (True,)},
         must_null=[NO_ALTERNATIVES, "/steps/7/message_role"]),
    Case("claude-short-rejected", REAL / "claude/marot__spotter/test/fixtures/transcripts/short.jsonl",
         # both calls were rejected by the user; nothing shows the goal met, or failed by a test
         must_null=["/summary/goal_achieved", NO_ALTERNATIVES]),
    Case("claude-tool-heavy", REAL / "claude/marot__spotter/test/fixtures/transcripts/tool_heavy.jsonl",
         # the session stops mid-investigation (no final answer): no outcome to assess
         must_null=["/summary/goal_achieved", "/steps/4/feedback_type", "/steps/5/feedback_type", NO_ALTERNATIVES]),
    Case("claude-explore", REAL / "claude/codemie-ai__codemie-code/tests/integration/session/fixtures/"
         "session-9eda1058.jsonl",
         expect={"/steps/3/feedback_type": ("new_instruction",),
                 "/steps/3/message_role": ("direct_request", "new_constraint"),
                 "/steps/6/message_role": ("direct_request", "clarification"),
                 "/steps/6/feedback_type": ("new_instruction", "clarification")},
         # an exploration with no test or build: nothing shows the goal met
         must_null=["/summary/goal_achieved", NO_ALTERNATIVES]),
]


def _matches(pattern: str, path: str) -> bool:
    a, b = pattern.split("/"), path.split("/")
    return len(a) == len(b) and all(x == "*" or x == y for x, y in zip(a, b, strict=True))


def accepted_values(prov: dict[str, Any], trace: dict[str, Any]) -> dict[str, Any]:
    """path → value of every model-origin value in a trace."""
    out: dict[str, Any] = {}
    for sp in prov["steps"]:
        for name, fp in sp["fields"].items():
            if fp["origin"] == "model":
                out[f"/steps/{sp['step']}/{name}"] = trace["steps"][sp["step"] - 1][name]
    for key, fp in prov["trace_fields"].items():
        if fp["origin"] == "model":
            node: Any = trace
            for part in key.split("."):
                node = node.get(part) if isinstance(node, dict) else None
            out["/" + key.replace(".", "/")] = node
    return out


def score(case: Case, got: dict[str, Any]) -> dict[str, Any]:
    correct, wrong, unlabelled = [], [], []
    for path, value in sorted(got.items()):
        if path in case.expect:
            (correct if value in case.expect[path] else wrong).append(path)
        elif any(_matches(m, path) for m in case.must_null):
            wrong.append(path)
        else:
            unlabelled.append(path)
    return {"expected": len(case.expect), "correct": correct, "wrong": wrong, "unlabelled": len(unlabelled),
            "missed": sorted(set(case.expect) - set(correct))}


def run_case(case: Case, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    from forsy.run import RetraceOptions, retrace

    if case.log is None:
        from test_llm import CORRECTION, write_log

        log = write_log(work, "s-correction", CORRECTION)
    else:
        log = case.log
    opts = RetraceOptions(llm_model=args.llm, llm_api_base=args.llm_api_base, cache_dir=work / "cache",
                          llm_timeout_s=args.llm_timeout, llm_concurrency=args.llm_concurrency,
                          llm_chunk_tokens=args.llm_chunk_tokens)
    t0 = time.monotonic()
    run = retrace([log], opts, keep=True)
    seconds = time.monotonic() - t0
    a = run.results[0].assembled
    assert a is not None and a.manifest.llm is not None
    rep = a.manifest.llm
    got = accepted_values(a.provenance.model_dump(mode="json"), a.trace.model_dump(mode="json"))
    out = {"case": case.name, "seconds": round(seconds, 1), **score(case, got),
           "accepted_values": {k: v for k, v in got.items()}}
    for k in ("chunks", "calls", "retries", "timeouts", "context_splits", "call_seconds", "proposed", "accepted",
              "rejected", "rejected_by_reason", "fallbacks_by_reason", "malformed_answers", "tokens", "cost_usd"):
        out[k] = rep.get(k)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llm", required=True, help="litellm model name (openai/NAME for an OpenAI-compatible server)")
    ap.add_argument("--llm-api-base", default=None)
    ap.add_argument("--llm-timeout", type=float, default=60.0)
    ap.add_argument("--llm-concurrency", type=int, default=4)
    ap.add_argument("--llm-chunk-tokens", type=int, default=6000)
    ap.add_argument("--only", action="append", help="run only these cases (by name)")
    ap.add_argument("--json", type=Path, help="write the full results here")
    args = ap.parse_args()
    cases = [c for c in CASES if not args.only or c.name in args.only]
    missing = [c.name for c in cases if c.log is not None and not c.log.is_file()]
    if missing:
        print(f"llm_eval: real logs not found (../shared/real_logs): {', '.join(missing)}", file=sys.stderr)
        return 2
    results = []
    with tempfile.TemporaryDirectory(prefix="forsy-llm-eval-") as tmp:
        for c in cases:
            work = Path(tmp) / c.name
            work.mkdir()
            r = run_case(c, args, work)
            results.append(r)
            print(f"{c.name}: accepted {r['accepted']}/{r['proposed']}, correct {len(r['correct'])}, wrong "
                  f"{len(r['wrong'])}, missed {len(r['missed'])}, calls {r['calls']}, timeouts {r['timeouts']}, "
                  f"fallbacks {r['fallbacks_by_reason']}, {r['seconds']} s", flush=True)
    correct = sum(len(r["correct"]) for r in results)
    wrong = sum(len(r["wrong"]) for r in results)
    expected = sum(r["expected"] for r in results)
    reasons: Counter[str] = Counter()
    for r in results:
        reasons.update(r["rejected_by_reason"] or {})
    summary = {
        "model": args.llm, "api_base": args.llm_api_base, "timeout_s": args.llm_timeout,
        "concurrency": args.llm_concurrency, "chunk_tokens": args.llm_chunk_tokens,
        "precision": round(correct / (correct + wrong), 3) if correct + wrong else None,
        "recall": round(correct / expected, 3) if expected else None,
        "correct": correct, "wrong": wrong, "expected": expected,
        "accepted": sum(r["accepted"] or 0 for r in results), "proposed": sum(r["proposed"] or 0 for r in results),
        "unlabelled_accepted": sum(r["unlabelled"] for r in results),
        "rejected_by_reason": dict(sorted(reasons.items())),
        "calls": sum(r["calls"] or 0 for r in results), "timeouts": sum(r["timeouts"] or 0 for r in results),
        "fallbacks": sum(sum((r["fallbacks_by_reason"] or {}).values()) for r in results),
        "prompt_tokens": sum((r["tokens"] or {}).get("prompt", 0) for r in results),
        "completion_tokens": sum((r["tokens"] or {}).get("completion", 0) for r in results),
        "seconds": round(sum(r["seconds"] for r in results), 1),
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "cases": results}, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
