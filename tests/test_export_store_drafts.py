"""`forsy export --from-store '*' --status pending` exports the drafts the queue shows: of a
session whose log grew over three sweeps, its newest draft once, never the drafts it replaced
(each an older state of the same work: three overlapping copies of one session were exported)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from typer.testing import CliRunner

from _grow import append_user
from _paths import SAMPLES
from forsy.cli import app
from forsy.store import Store, TraceQuery, open_store
from forsy.sweep import SweepOptions, sweep

GROWTH = ("", "and add a test", "one more thing")  # the log as first swept, then grown twice


def _log(tmp_path: Path) -> tuple[Path, str]:
    """The demo session in a folder to sweep, and the URL of an empty store."""
    log = tmp_path / "logs" / "p" / "s.jsonl"
    log.parent.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", log)
    return log, f"sqlite:///{tmp_path / 'store.db'}"


def _grow_and_sweep(store: Store, log: Path, more: str, tmp_path: Path) -> None:
    if more:
        append_user(log, more)
    rep = sweep(store, SweepOptions(roots=[log.parent.parent], now=time.time, ignore_settle=True,
                                    claude_home=tmp_path / "no-claude"))
    assert rep.counts.traces_written == 1


def test_a_grown_sessions_replaced_drafts_are_not_exported(tmp_path: Path) -> None:
    log, url = _log(tmp_path)
    store = open_store(url)
    try:
        for more in GROWTH:
            _grow_and_sweep(store, log, more, tmp_path)
        drafts = store.traces(TraceQuery(status="pending"))
        newest = store.traces(TraceQuery(status="pending", latest_only=True))
    finally:
        store.close()
    assert len(drafts) == 3 and len(newest) == 1
    out = tmp_path / "out.jsonl"
    r = CliRunner().invoke(app, ["export", "--to", "openai", "--from-store", "*", "--status", "pending",
                                 "--store", url, "-o", str(out)])
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) == 1
    assert "1 draft(s) no person has approved" in r.stderr
    assert "one more thing" in out.read_text()  # the newest state of the log


def test_a_session_approved_again_after_it_grew_is_exported_once_as_last_approved(tmp_path: Path) -> None:
    """Approved, then grown and approved again: both approvals were exported, one session twice
    in a dataset. The last approval is, and the other is named (--all-versions exports both)."""
    from forsy.review.actions import approve

    log, url = _log(tmp_path)
    store = open_store(url)
    try:
        for i, more in enumerate(GROWTH):
            _grow_and_sweep(store, log, more, tmp_path)
            if i < 2:  # the first two states approved; the third left pending
                [head] = store.traces(TraceQuery(status="pending", latest_only=True))
                approve(store, head.trace_id, "human_reviewed", reviewer="Ada <ada@example.org>",
                        at=f"2026-11-29T0{i}:00:00+00:00")
    finally:
        store.close()
    run = CliRunner()
    r = run.invoke(app, ["export", "--to", "openai", "--from-store", "*", "--store", url, "-o", str(tmp_path / "a")])
    assert r.exit_code == 0, r.output
    text = (tmp_path / "a").read_text()
    assert len(text.splitlines()) == 1 and "and add a test" in text and "one more thing" not in text
    assert "1 approval(s) of older drafts left out" in r.stderr
    r = run.invoke(app, ["export", "--to", "openai", "--from-store", "*", "--store", url, "-o", str(tmp_path / "b"),
                         "--all-versions"])
    assert r.exit_code == 0 and len((tmp_path / "b").read_text().splitlines()) == 2
    # `forsy review export` writes each approval, its index line saying which a later one superseded
    r = run.invoke(app, ["review", "export", "-o", str(tmp_path / "pub"), "--store", url])
    assert r.exit_code == 0, r.output
    index = [json.loads(x) for x in (tmp_path / "pub" / "index.jsonl").read_text().splitlines()]
    assert [x["superseded"] for x in sorted(index, key=lambda x: x["steps"])] == [True, False]
