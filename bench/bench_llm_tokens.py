"""How many tokens `forsy retrace --llm` would send for a large real session (a dry run: no call).

    python bench/bench_llm_tokens.py                       # the 3 MB Claude Code session in ../shared
    python bench/bench_llm_tokens.py --input SESSION.jsonl --chunk-tokens 6000 12000

It reads the session, redacts it as `forsy retrace` does, segments it, builds the chunks the
model pass would send (`forsy.llm.plan`) and compares their tokens with the tokens of the
whole redacted log file and of the text forsy read from it. Tokens are counted two ways: forsy's
estimate (characters / 4, what chunking uses) and, when litellm is installed, litellm's
`token_counter` for gpt-4o (tiktoken o200k, offline). Target: the request is well under one
third of the whole redacted log. Exits 0 with a note when the session is absent.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = (ROOT.parent / "shared" / "real_logs" / "claude" / "marot__spotter" / "test" / "fixtures" / "transcripts"
           / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")


def counter() -> Any:
    try:
        from forsy.llm import litellm_module

        lit = litellm_module()
    except Exception:  # the [llm] extra is optional: fall back to the estimate alone
        return None
    return lambda text: int(lit.token_counter(model="gpt-4o", text=text))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--input", type=Path, default=DEFAULT)
    ap.add_argument("--chunk-tokens", type=int, nargs="+", default=[6000, 12000])
    args = ap.parse_args()
    if not args.input.is_file():
        print(f"skipped: {args.input} is absent")
        return 0

    from forsy import run as forsy_run
    from forsy.llm import LLMConfig, evidence_texts, plan
    from forsy.llm._request import estimate_tokens
    from forsy.rules.segment import Segmenter
    from forsy.run.redaction import redact_session

    session = forsy_run.read([args.input], forsy_run.RetraceOptions())[0]
    redactor = forsy_run.make_redactor([session])
    t0 = time.perf_counter()
    redact_session(session, redactor)
    whole = redactor.redact(args.input.read_text(encoding="utf-8", errors="replace"))
    redact_s = time.perf_counter() - t0
    drafts = Segmenter(session).run()
    read_text = "\n".join(evidence_texts(session).values())
    count = counter()

    def both(text: str) -> tuple[int, int | None]:
        return estimate_tokens(text), (count(text) if count else None)

    log_est, log_tok = both(whole)
    read_est, read_tok = both(read_text)
    print(f"session: {args.input.name}  {args.input.stat().st_size:,} bytes, {len(session.events):,} events, "
          f"{len(drafts)} steps  (redaction {redact_s:.1f} s)")
    print(f"{'what':44} {'estimate':>10} {'tiktoken':>10} {'÷ log':>7}")
    print(f"{'whole redacted log file':44} {log_est:>10,} {_n(log_tok):>10} {1:>7.3f}")
    print(f"{'text forsy read from it (evidence texts)':44} {read_est:>10,} {_n(read_tok):>10} "
          f"{_ratio(read_est, read_tok, log_est, log_tok):>7.3f}")
    for ct in args.chunk_tokens:
        p = plan(session, drafts, LLMConfig(model="dry-run", chunk_tokens=ct))
        text = "".join(m["content"] for c in p.chunks for m in c.messages)
        est, tok = both(text)
        biggest = max(c.tokens for c in p.chunks)
        label = f"sent, chunk_tokens={ct}: {len(p.chunks)} chunks (max {biggest})"
        print(f"{label:44} {est:>10,} {_n(tok):>10} {_ratio(est, tok, log_est, log_tok):>7.3f}")
    return 0


def _n(v: int | None) -> str:
    return f"{v:,}" if v is not None else "-"


def _ratio(est: int, tok: int | None, log_est: int, log_tok: int | None) -> float:
    return tok / log_tok if tok is not None and log_tok else est / log_est


if __name__ == "__main__":
    sys.exit(main())
