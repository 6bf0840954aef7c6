"""Time to serve the review pages: a draft page of N steps and a queue page over M drafts.

A script, not a test (no timing is asserted anywhere). It:

1. builds a Claude Code session of about `--steps` steps by repeating the demo session's turns
   (`bench_retrace.build`, fresh ids per repetition), sweeps it into a fresh SQLite store, and
   times `GET /t/<id>` (the conversation, Needs you with the validator's run) and `GET /t/<id>/s/2`
   (a step with its evidence, masked by the rebuilt redactor: the first request pays the
   rebuild, the next ones hit the cache);
2. adds `--drafts` queue rows (rows only: the queue page reads rows, not files) and times `GET /`
   (first page, sorted by start), `GET /?sort=confidence&dir=asc&page=LAST` and a text search;
3. repeats at 1x, 3x and 10x of both sizes unless `--scales` says otherwise, and prints one
   table: median of `--rounds` requests each, in milliseconds, and the page's size.

    .venv/bin/python bench/bench_review_pages.py                       # 300 steps, 5,000 drafts; 1x 3x 10x
    .venv/bin/python bench/bench_review_pages.py --scales 1 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_retrace import build  # noqa: E402

from forsy.run import RetraceOptions, retrace_one  # noqa: E402
from forsy.store import open_store  # noqa: E402
from forsy.store.sink import StoreSink  # noqa: E402
from forsy.web.app import make_app  # noqa: E402
from forsy.web.guard import Settings  # noqa: E402
from test_review_queue import many  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

TOKEN = "t" * 40
DEMO = ROOT / "sample_logs" / "claude" / "demo-session.jsonl"
DEMO_STEPS = 9  # steps of one repetition of the demo session


def timed(c: TestClient, path: str, rounds: int) -> tuple[float, float, int]:
    """(first request ms, median of the next `rounds` ms, page bytes)."""
    t = time.perf_counter()
    r = c.get(path)
    first = (time.perf_counter() - t) * 1000
    if r.status_code != 200:
        raise SystemExit(f"{path}: {r.status_code} {r.text[:300]}")
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        c.get(path)
        times.append((time.perf_counter() - t) * 1000)
    return first, statistics.median(times), len(r.content)


def one(scale: int, steps: int, drafts: int, rounds: int, tmp: Path) -> list[tuple[str, float, float, int]]:
    log = tmp / f"session-{scale}.jsonl"
    size = DEMO.stat().st_size * max(1, steps * scale // DEMO_STEPS) / 1e6
    build(DEMO, log, size)
    url = f"sqlite:///{tmp / f'store-{scale}.db'}"
    st = open_store(url)
    try:
        [o] = retrace_one(log, RetraceOptions(), sink=StoreSink(st, now="2026-03-01T00:00:00+00:00"), keep=False)
        assert o.trace_id, o.message
        n_steps = st.trace(o.trace_id).steps  # type: ignore[union-attr]
        many(st, drafts * scale)
    finally:
        st.close()
    s = Settings(store_url=url, reviewer="bench <b@example.org>", token=TOKEN, hosts={"127.0.0.1:9"})
    out = []
    with TestClient(make_app(s), base_url="http://127.0.0.1:9", follow_redirects=True) as c:
        c.get(f"/?token={TOKEN}")
        out.append((f"draft page, {n_steps} steps", *timed(c, f"/t/{o.trace_id}", rounds)))
        out.append((f"step page with evidence ({n_steps}-step session)", *timed(c, f"/t/{o.trace_id}/s/2", rounds)))
        last = -(-(drafts * scale + 1) // 50)
        out.append((f"queue, first page of {drafts * scale + 1}", *timed(c, "/", rounds)))
        out.append((f"queue, page {last} sorted by confidence", *timed(c, f"/?sort=confidence&dir=asc&page={last}",
                                                                         rounds)))
        out.append((f"queue, text search over {drafts * scale + 1}", *timed(c, "/?text=number", rounds)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--drafts", type=int, default=5000)
    ap.add_argument("--scales", default="1,3,10")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)
    print(f"{'scale':>5}  {'page':<48} {'first ms':>9} {'median ms':>10} {'KB':>8}")
    with tempfile.TemporaryDirectory(prefix="forsy-bench-review-") as tmp:
        for scale in (int(x) for x in a.scales.split(",")):
            for name, first, median, size in one(scale, a.steps, a.drafts, a.rounds, Path(tmp)):
                print(f"{scale:>4}x  {name:<48} {first:>9.0f} {median:>10.0f} {size / 1024:>8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
