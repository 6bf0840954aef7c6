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
from forsy.store import TraceQuery, open_store
from forsy.sweep import SweepOptions, sweep


def test_a_grown_sessions_replaced_drafts_are_not_exported(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "p" / "s.jsonl"
    log.parent.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", log)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    try:
        for more in ("", "and add a test", "one more thing"):
            if more:
                append_user(log, more)
            rep = sweep(store, SweepOptions(roots=[log.parent.parent], now=time.time, ignore_settle=True,
                                            claude_home=tmp_path / "no-claude"))
            assert rep.counts.traces_written == 1
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
