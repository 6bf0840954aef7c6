"""Edges of one sweep run (`forsy.sweep.run`) beside tests/test_sweep_run_promises.py: asking
whether the lock's holder lives sends it nothing; a session with no work, one that vanishes
while read, the crash tests' hold, members, several roots, the search's failures and limits."""

from __future__ import annotations

import os
import shutil
import signal
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from forsy.store import LockInfo, Store
from forsy.sweep import SweepOptions, SweepReport, sweep
from forsy.sweep.lock import holder_alive


@pytest.fixture
def signals() -> Iterator[list[int]]:
    """The signals this process receives (HUP, USR1, USR2, TERM are recorded, not acted on)."""
    got: list[int] = []
    watched = (signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGTERM)
    old = {s: signal.signal(s, lambda n, f: got.append(n)) for s in watched}
    yield got
    for s, h in old.items():
        signal.signal(s, h)


def test_asking_whether_the_holder_lives_sends_it_no_signal(signals: list[int]) -> None:
    assert holder_alive(LockInfo(os.getpid(), socket.gethostname(), "2020-01-01T00:00:00+00:00"))
    assert signals == []


# --------------------------------------------------------------------------- a sweep over a small tree

T = 2_000_000_000.0
SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"
DEMO = SAMPLES / "claude" / "demo-session.jsonl"
OTHER = SAMPLES / "claude" / "compaction-and-branches.jsonl"
SUB = "c7133dee-e28c-4d03-8ec3-1209007ef3b4"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "logs"
    (r / "p").mkdir(parents=True)
    shutil.copy(DEMO, r / "p" / "a.jsonl")
    shutil.copy(OTHER, r / "p" / "b.jsonl")
    return r



def swp(store: Store, *roots: Path, **kw: Any) -> SweepReport:
    return sweep(store, SweepOptions(roots=list(roots), now=lambda: T, ignore_settle=True,
                                     claude_home=roots[0] / "no-claude", **kw))


def test_a_session_file_with_no_work_is_skipped_and_remembered_so(root: Path, store: Store) -> None:
    (root / "p" / "c.jsonl").write_bytes(b"")  # created by the agent, not written yet
    rep = swp(store, root)
    assert (rep.counts.traced, rep.counts.skipped, rep.counts.failed, rep.exit_code) == (2, 1, 0, 0)
    assert store.file_states([str(root)])[str(root / "p" / "c.jsonl")].status == "skipped"
    again = swp(store, root)
    assert (again.counts.unchanged, again.counts.skipped) == (3, 0)


def test_a_session_file_vanishing_while_read_is_a_fault_and_other_failures_stay(
        root: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import forsy.run as forsy_run

    (root / "p" / "a0.jsonl").write_bytes(b"not a log\n")  # fails, before b
    victim = root / "p" / "b.jsonl"
    real = forsy_run.retrace_one

    def retrace_one(path: Any, *a: Any, **k: Any) -> Any:
        if str(path) == str(victim):
            victim.unlink()
        return real(path, *a, **k)

    monkeypatch.setattr(forsy_run, "retrace_one", retrace_one)
    rep = swp(store, root)
    assert [(f.path, f.what, f.reason) for f in rep.faults] == [(str(victim), "file", "vanished during the sweep")]
    assert [e.path for e in rep.failures] == [str(root / "p" / "a0.jsonl")]
    assert str(victim) not in store.file_states([str(root)])  # rolled back: tried again next run


@pytest.mark.parametrize("stage", ["traced", "committed"])
def test_the_crash_tests_hold_stops_inside_or_after_the_transaction(root: Path, store: Store, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    stage: str) -> None:
    import forsy.sweep.run as sweep_mod

    class Held(BaseException):
        pass

    def sleep(s: float) -> None:
        raise Held

    monkeypatch.setenv("FORSY_SWEEP_TEST_HOLD", f"2:{stage}")
    monkeypatch.setenv("FORSY_SWEEP_TEST_MARK", str(tmp_path / "mark"))
    monkeypatch.setattr(sweep_mod.time, "sleep", sleep)
    with pytest.raises(Held):
        swp(store, root)
    assert (tmp_path / "mark").read_text() == str(os.getpid())
    kept = {os.path.basename(p) for p, s in store.file_states([str(root)]).items() if s.status == "ok"}
    assert kept == ({"a.jsonl"} if stage == "traced" else {"a.jsonl", "b.jsonl"})


def test_a_sessions_other_files_are_remembered_as_its_members_from_the_first_run(tmp_path: Path,
                                                                                 store: Store) -> None:
    r = tmp_path / "logs"
    (r / "p").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "subagents" / f"{SUB}.jsonl", r / "p" / f"{SUB}.jsonl")
    shutil.copytree(SAMPLES / "claude" / "subagents" / SUB, r / "p" / SUB)
    swp(store, r)
    states = store.file_states([str(r)])
    main = str(r / "p" / f"{SUB}.jsonl")
    member = str(next((r / "p" / SUB).rglob("*.jsonl")))
    assert (states[main].status, states[main].source_kind) == ("ok", "claude_code")
    assert (states[member].status, states[member].unit_path, states[member].source_kind) == (
        "member", main, "claude_code")
    assert states[member].size == os.path.getsize(member)


def test_a_root_with_nothing_new_does_not_stop_the_search_of_the_next(root: Path, store: Store,
                                                                     tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    swp(store, root)
    shutil.copy(DEMO, other / "x.jsonl")
    rep = swp(store, root, other)
    assert (rep.counts.unchanged, rep.counts.new, rep.counts.traced) == (2, 1, 1)


def test_a_root_file_the_search_cannot_open_is_its_failure_saying_why(tmp_path: Path, store: Store,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import forsy.run as forsy_run

    f = tmp_path / "x.jsonl"
    f.write_bytes(b"{}\n")

    def discover(paths: Any, unread: Any = None) -> Any:
        raise PermissionError(13, "Permission denied", str(f))

    monkeypatch.setattr(forsy_run, "discover", discover)
    rep = swp(store, f)
    assert [(e.path, e.message) for e in rep.failures] == [(str(f), "permission denied")]


def test_only_a_search_limit_leaves_files_out_and_only_those_below_it(root: Path, store: Store,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import forsy.run as forsy_run

    for d in ("deep", "odd"):
        (root / "p" / d).mkdir()
        (root / "p" / d / "x.json").write_bytes(b"{}\n")
    (root / "p" / "notes.json").write_bytes(b"{}\n")
    real = forsy_run.discover

    def discover(paths: Any, unread: Any = None) -> Any:
        found = real(paths, unread)
        unread.append((root / "p" / "deep", "stops looking after 1000 folders"))
        unread.append((root / "p" / "odd", "looks like a log in no format forsy reads"))
        return found

    monkeypatch.setattr(forsy_run, "discover", discover)
    rep = swp(store, root)
    deep = str(root / "p" / "deep" / "x.json")
    assert rep.left_out == [(deep, "stops looking after 1000 folders")]
    states = store.file_states([str(root)])
    assert {p: (s.status, s.last_error) for p, s in states.items() if s.status == "ignored"} == {
        deep: ("ignored", "stops looking after 1000 folders"),
        str(root / "p" / "odd" / "x.json"): ("ignored", None),
        str(root / "p" / "notes.json"): ("ignored", None)}


def test_a_failure_whose_file_cannot_be_read_either_is_a_fault(tmp_path: Path, store: Store,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import forsy.run as forsy_run
    import forsy.sweep.run as sweep_mod

    f = tmp_path / "x.jsonl"
    f.write_bytes(b"{}\n")

    def denied(*a: Any, **k: Any) -> Any:
        raise PermissionError(13, "Permission denied", str(f))

    monkeypatch.setattr(forsy_run, "discover", denied)
    monkeypatch.setattr(sweep_mod, "fingerprint", denied)
    rep = swp(store, f)
    assert rep.failures == []
    assert [(x.path, x.what, x.reason) for x in rep.faults] == [(str(f), "file", "cannot read: permission denied")]
    assert [r.roots for r in store.runs()] == [[str(f)]]
