"""Copies of one session lagging behind one another (a folder still syncing, a backup, another
machine's older copy, one made without a subagent's file) leave one draft of the session in the
queue, the fullest. A copy each of whose steps is in a draft stored from another file was queued
as a new pending draft beside it
(linked to an older draft, so it looked like the newest), and a reviewer could publish the older
state beside the fuller one. Copies that differ, and a file rewritten shorter, are drafted as before."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _paths import SAMPLES
from forsy.cli import app
from forsy.run import retrace_one
from forsy.store import Store, TraceQuery, open_store
from forsy.store.sink import StoreSink
from forsy.sweep import SweepOptions, sweep

runner = CliRunner()
DEMO = SAMPLES / "claude" / "demo-session.jsonl"
NAME = DEMO.name


def _whole(dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(DEMO, dest)
    return dest


def _cut(dest: Path, lines: int) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(b"".join(DEMO.read_bytes().splitlines(keepends=True)[:lines]))
    return dest


def _sweep(store: Store, *roots: Path) -> Any:
    return sweep(store, SweepOptions(roots=list(roots), ignore_settle=True))


def _queue(store: Store) -> list[tuple[str, int]]:
    return sorted((t.trace_id, t.steps) for t in store.traces(TraceQuery(latest_only=True)))


@pytest.fixture
def store(tmp_path: Path) -> Any:
    st = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield st
    st.close()


def test_a_copy_behind_a_stored_draft_is_not_queued_and_is_named(tmp_path: Path, store: Store) -> None:
    live, backup = tmp_path / "live", tmp_path / "backup"
    _whole(live / "-p" / NAME)
    _cut(backup / "-p" / NAME, 17)  # an older state: its last call has its answer
    first = _sweep(store, live)
    [(fuller, steps)] = _queue(store)
    rep = _sweep(store, backup)
    assert rep.counts.traces_written == 0 and rep.exit_code == 0
    assert [(p, b) for p, _t, b, _f in rep.behind] == [(str(backup / "-p" / NAME), fuller)]
    assert _queue(store) == [(fuller, steps)] and first.counts.traces_written == 1
    res = runner.invoke(app, ["sweep", str(backup), str(live), "--store", store.url, "--now", "--json"])
    assert res.exit_code == 0 and json.loads(res.output.strip().splitlines()[-1])["behind"] == []  # unchanged since


def test_a_copy_cut_mid_call_is_behind_too(tmp_path: Path, store: Store) -> None:
    _whole(tmp_path / "a" / NAME)
    _cut(tmp_path / "b" / NAME, 15)  # its last call has no answer yet: that step's output differs
    _sweep(store, tmp_path / "a")
    rep = _sweep(store, tmp_path / "b")
    assert len(rep.behind) == 1 and len(_queue(store)) == 1


def test_a_fuller_copy_found_later_replaces_the_one_before(tmp_path: Path, store: Store) -> None:
    _cut(tmp_path / "b" / NAME, 17)
    _sweep(store, tmp_path / "b")
    [(older, _)] = _queue(store)
    _whole(tmp_path / "a" / NAME)
    _sweep(store, tmp_path / "a")
    [(newer, _)] = _queue(store)  # one draft of the session in the queue: the fuller one
    assert newer != older and store.trace(newer).prior_trace_id == older  # type: ignore[union-attr]
    # and the older copy, swept again once changed, stays behind
    (tmp_path / "b" / NAME).write_bytes((tmp_path / "b" / NAME).read_bytes() + b"\n")
    rep = _sweep(store, tmp_path / "b")
    assert rep.counts.traces_written == 0 and _queue(store) == [(newer, store.trace(newer).steps)]  # type: ignore[union-attr]


def test_copies_that_differ_and_a_file_rewritten_shorter_are_drafted(tmp_path: Path, store: Store) -> None:
    _whole(tmp_path / "a" / NAME)
    lines = DEMO.read_bytes().splitlines(keepends=True)[:17]
    lines[2] = lines[2].replace(b"slugify", b"SLUGIFY")  # the person's first words differ
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / NAME).write_bytes(b"".join(lines))
    _sweep(store, tmp_path / "a", tmp_path / "b")
    assert len(_queue(store)) == 2  # two sessions for all forsy can tell: both for a person to see
    _cut(tmp_path / "a" / NAME, 17)  # the same file, rewritten shorter: what it says now is its newest
    rep = _sweep(store, tmp_path / "a")
    assert rep.counts.traces_written == 1 and rep.behind == []


def test_on_postgresql_another_machines_older_copy_is_behind(pg_server: Any, monkeypatch: pytest.MonkeyPatch,
                                                             tmp_path: Path) -> None:
    psycopg = pytest.importorskip("psycopg")
    name = f"lagging_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name}")
    _whole(tmp_path / "a" / NAME)
    _cut(tmp_path / "b" / NAME, 17)
    sinks: dict[str, StoreSink] = {}
    try:
        for host, folder in (("machine-a", "a"), ("machine-b", "b")):  # B's copy at the same path as A's
            monkeypatch.setenv("FORSY_HOST", host)
            st = open_store(pg_server.url(name))
            try:
                sinks[host] = sink = StoreSink(st, now="2026-11-29T00:00:00+00:00", unit_path=f"/logs/{NAME}")
                with st.transaction():
                    retrace_one(tmp_path / folder / NAME, sink=sink, keep=False)
                queued = {t.trace_id for t in st.traces(TraceQuery(latest_only=True))}
            finally:
                st.close()
        assert sinks["machine-a"].written == 1 and sinks["machine-b"].written == 0
        [(_, fuller)] = sinks["machine-b"].behind
        assert queued == {fuller}
    finally:
        with psycopg.connect(pg_server.url("postgres"), autocommit=True) as c:
            c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_a_codex_copy_made_without_its_subagents_file_is_behind(tmp_path: Path, store: Store) -> None:
    """The subagent's steps are in the middle of the session: the copy's steps are all in the
    fuller draft, in order, though not its first steps."""
    day = Path("sessions/2026/05/12")
    shutil.copytree(SAMPLES / "codex" / "sessions", tmp_path / "a" / "sessions")
    parent = sorted((tmp_path / "a" / day).iterdir())[0]
    (tmp_path / "b" / day).mkdir(parents=True)
    shutil.copy(parent, tmp_path / "b" / day / parent.name)  # the child's rollout left behind
    _sweep(store, tmp_path / "b")
    [(partial, n)] = _queue(store)
    _sweep(store, tmp_path / "a")
    [(whole, m)] = _queue(store)
    assert m > n and store.trace(whole).prior_trace_id == partial  # type: ignore[union-attr]
    store2_rep = _sweep(store, tmp_path / "b")
    assert store2_rep.behind == []  # unchanged: not read again
