"""The SQLite store when two processes write at the same moment: each takes SQLite's write
lock before it reads what it decides on, so the second waits for the first and then sees its
work, where a lock taken late would fail at once with "database is locked". Two sweeps starting
together: one holds the sweep lock, the other is told who. Two copies of one reviewed draft into
one store: one copies, the other finds the history there and leaves it. And the documented 30 s
busy timeout, on a writable store and on a read-only one.

Each race pauses both sides where they have read and not yet written (at most a second each):
when the store lets both get there, they do; under the write lock, the second cannot."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forsy.store import _sqlite
from forsy.store._query import history_row
from forsy.store._sqlite import SqliteStore
from forsy.store.models import AuditRow, DraftState, LockInfo, NewTrace, ProposalRow, StoredFile

NOW = "2026-03-01T10:00:00+00:00"


def _trace(tid: str = "t-1") -> NewTrace:
    return NewTrace(trace_id=tid, source_kind="codex", session_id="s", unit_path="/l/a.jsonl", agent=None,
                    project=None, started_at=None, ended_at=None, confidence=None, steps=1, turns=1, task="t",
                    files=[StoredFile("trace.json", b"{}\n")], texts=[])


def _paused(real: Callable[..., Any], at_call: int) -> Callable[..., Any]:
    """`real`, pausing at its `at_call`-th call in each thread until the other thread gets there
    too (or a second has passed)."""
    meet = threading.Barrier(2, timeout=1.0)
    calls = threading.local()

    def paused(*a: Any, **k: Any) -> Any:
        calls.n = getattr(calls, "n", 0) + 1
        if calls.n == at_call:
            try:
                meet.wait()
            except threading.BrokenBarrierError:
                pass
        return real(*a, **k)

    return paused


def _both(work: Callable[[str], object]) -> dict[str, object]:
    """`work` run in two threads at once, as "a" and "b"; what each returned or raised."""
    results: dict[str, object] = {}

    def run(who: str) -> None:
        try:
            results[who] = work(who)
        except Exception as e:  # the test looks at what it is
            results[who] = e

    threads = [threading.Thread(target=run, args=(w,)) for w in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_two_sweeps_taking_the_sweep_lock_at_once_one_holds_it_the_other_is_told_who(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "s.db"
    SqliteStore(db).close()
    me = {"a": LockInfo(101, "host-a", NOW), "b": LockInfo(202, "host-b", NOW)}
    # the second look at the holder is the one under the write lock: both get there if the store lets them
    monkeypatch.setattr(SqliteStore, "lock_holder", _paused(SqliteStore.lock_holder, 2))

    def take(who: str) -> object:
        st = SqliteStore(db)
        try:
            return st.acquire_lock(me[who], lambda holder: True)
        finally:
            st.close()

    results = _both(take)
    winners = [w for w, r in results.items() if r is None]
    assert len(winners) == 1, results
    loser = "b" if winners == ["a"] else "a"
    assert results[loser] == me[winners[0]]  # told who holds it: the other sweep, not an error
    st = SqliteStore(db)
    try:
        assert st.lock_holder() == me[winners[0]]
    finally:
        st.close()


def _reviewed() -> tuple[DraftState, list[ProposalRow], list[AuditRow]]:
    state = DraftState(7, "t-1", "approved", 2, "2026-03-01T11:00:00+00:00", None, None, None)
    proposals = [ProposalRow(1, "t-1", "/steps/0/reasoning", '"why"', "human", "ana", "2026-03-01T10:30:00+00:00",
                             None)]
    audit = [AuditRow(1, "2026-03-01T10:30:00+00:00", "ana", "edit", "t-1", "{}", None, None),
             AuditRow(2, "2026-03-01T11:00:00+00:00", "ana", "approve", "t-1", "{}", None, None)]
    return state, proposals, audit


def test_two_copies_of_one_review_into_one_draft_at_once_one_copies_the_other_leaves_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "s.db"
    st = SqliteStore(db)
    st.add_trace(_trace(), NOW)
    st.close()
    state, proposals, audit = _reviewed()
    # `history_row` reads the draft's history: both get there if the store lets them
    monkeypatch.setattr(_sqlite, "history_row", _paused(history_row, 1))

    def copy(who: str) -> object:
        st = SqliteStore(db)
        try:
            return st.import_review("t-1", state, proposals, audit, f"from {who}", "2026-03-02T09:00:00+00:00")
        finally:
            st.close()

    results = _both(copy)
    assert sorted(results.values(), key=repr) == [False, True], results  # never "database is locked"
    st = SqliteStore(db)
    try:
        got = st.draft_state("t-1")
        assert got is not None and (got.status, got.version) == ("approved", 2)
        assert [p.value_json for p in st.proposals("t-1")] == ['"why"']  # copied once, not twice
        assert [a.action for a in st.audit("t-1")].count("approve") == 1
    finally:
        st.close()


def test_a_writable_store_waits_30_seconds_for_a_lock(tmp_path: Path) -> None:
    st = SqliteStore(tmp_path / "s.db")
    try:
        assert st.db.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
    finally:
        st.close()


def test_a_read_only_store_waits_30_seconds_for_a_lock(tmp_path: Path) -> None:
    """Reading a store the sweep is writing (`mode=ro`, not `immutable`) may meet its lock while
    a checkpoint runs: it waits as a writer would."""
    db = tmp_path / "s.db"
    SqliteStore(db).close()
    st = SqliteStore(db, readonly=True)
    try:
        assert st.db.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
    finally:
        st.close()
