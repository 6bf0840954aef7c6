"""The sweep lock (`forsy.sweep.lock`): a lock left by a sweep that died is taken over, whatever
took its pid since (a reboot, a container's restart) or wherever it ran; a live holder keeps it;
a sweep whose lock was taken over while it was paused stops before writing more."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import forsy.sweep.lock as lock_mod
from _paths import SAMPLES
from forsy.cli import app
from forsy.errors import ExitCode, StoreError
from forsy.store import LockInfo, Store, TraceQuery, open_store
from forsy.sweep import SweepOptions, SweepReport, sweep
from forsy.sweep.lock import LEASE_S, Lease, holder_alive, process_token, this_process

LINUX = Path("/proc/self/stat").exists()
HERE = socket.gethostname()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "logs"
    (r / "p").mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", r / "p" / "a.jsonl")
    shutil.copy(SAMPLES / "claude" / "compaction-and-branches.jsonl", r / "p" / "b.jsonl")
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", r / "p" / "c.jsonl")
    return r


def swp(store: Store, root: Path) -> SweepReport:
    return sweep(store, SweepOptions(roots=[root], now=time.time, ignore_settle=True,
                                     claude_home=root / "no-claude"))


@pytest.fixture
def other() -> Iterator[int]:
    """The pid of a live process started after this one (a tick of /proc's clock later: a parent
    that forked this process at once may share its start tick)."""
    time.sleep(0.05)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    yield child.pid
    child.kill()
    child.wait()


@pytest.fixture
def zombie() -> Iterator[int]:
    """The pid of a child that has exited and not been waited for (it still has a pid)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.time() + 10
    while time.time() < deadline:  # exited: its state turns Z while nobody waits for it
        if not LINUX or Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            break
        time.sleep(0.01)
    yield child.pid
    child.wait()


# --------------------------------------------------------------------------- the process's name

@pytest.mark.skipif(not LINUX, reason="the process's start is read from /proc")
def test_a_process_is_named_by_its_boot_and_start_the_same_each_time_asked(other: int) -> None:
    mine = process_token(os.getpid())
    assert mine and mine == process_token(os.getpid())
    boot, tick = mine.split(":")
    assert len(boot) == 36 and tick.isdigit()
    assert process_token(other) not in (None, "", mine)  # a process started later, another name


@pytest.mark.skipif(not LINUX, reason="a process's state is read from /proc")
def test_a_process_that_ended_has_no_name_even_before_its_parent_waits(zombie: int) -> None:
    assert process_token(zombie) is None
    assert process_token(2**22 + 12345) is None  # above pid_max: no such process


def test_this_process_holds_the_lock_by_its_pid_host_and_name() -> None:
    me = this_process("2026-01-01T00:00:00+00:00")
    assert (me.pid, me.host, me.since, me.idle_s) == (os.getpid(), HERE, "2026-01-01T00:00:00+00:00", None)
    assert me.proc == (process_token(os.getpid()) or "")


# --------------------------------------------------------------------------- is the holder alive?

@pytest.mark.skipif(not LINUX, reason="the process's start is read from /proc")
def test_a_live_pid_now_anothers_process_is_not_the_holder(other: int) -> None:
    me = this_process("")
    assert holder_alive(me)
    assert not holder_alive(LockInfo(me.pid, HERE, "", "another-boot:12", 0.0))  # a reboot gave the pid away
    reused = LockInfo(other, HERE, "", me.proc, 0.0)  # a pid reused after the sweep died
    assert not holder_alive(reused)


@pytest.mark.skipif(not LINUX, reason="a process's state is read from /proc")
def test_a_killed_holder_not_yet_waited_for_is_dead(zombie: int) -> None:
    # `kill -9` of a sweep whose parent has not yet waited for it: its pid still answers signal 0
    os.kill(zombie, 0)
    assert not holder_alive(LockInfo(zombie, HERE, "", "whatever-it-was:1", 1.0))
    assert not holder_alive(LockInfo(zombie, HERE, "", "", 1.0))


@pytest.mark.skipif(not LINUX, reason="the process's start is read from /proc")
def test_the_same_process_keeps_the_lock_however_long_ago_it_renewed() -> None:
    # a laptop asleep for hours: its sweep is still the holder, and must not be run beside
    assert holder_alive(LockInfo(os.getpid(), HERE, "", process_token(os.getpid()) or "", LEASE_S * 10))


def test_a_holder_whose_process_is_not_named_is_held_by_its_lease(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lock_mod, "process_token", lambda pid: "")  # a system without /proc
    pid = os.getpid()
    assert holder_alive(LockInfo(pid, HERE, "", "", None))  # a lock that says nothing of renewals
    assert holder_alive(LockInfo(pid, HERE, "", "", LEASE_S - 5))
    assert not holder_alive(LockInfo(pid, HERE, "", "", LEASE_S + 5))  # the pid is someone else's by now
    assert not holder_alive(LockInfo(2**22 + 12345, HERE, "", "", 0.0))  # no such pid


def test_a_holder_on_another_host_is_held_by_its_lease_alone() -> None:
    other = HERE + ".elsewhere"
    assert holder_alive(LockInfo(2**22 + 12345, other, "", "", None))  # an older forsy's lock: cannot tell
    assert holder_alive(LockInfo(2**22 + 12345, other, "", "x:1", LEASE_S - 5))
    assert not holder_alive(LockInfo(os.getpid(), other, "", "", LEASE_S + 5))


# --------------------------------------------------------------------------- the store keeps it

def _backends(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        s = open_store(f"sqlite:///{tmp_path / 's.db'}")
    else:
        pytest.importorskip("psycopg")
        s = open_store(request.getfixturevalue("pg_url"))
    yield s
    s.close()


both = pytest.fixture(params=["sqlite", "postgresql"])(_backends)


def test_the_lock_keeps_its_holders_name_and_when_it_was_renewed(both: Store) -> None:
    me = LockInfo(os.getpid(), HERE, "2026-01-01T00:00:00+00:00", "boot:42")
    assert both.acquire_lock(me, holder_alive) is None
    held = both.lock_holder()
    assert held is not None and (held.pid, held.host, held.since, held.proc) == (me.pid, HERE, me.since, "boot:42")
    assert held.idle_s is not None and -5 < held.idle_s < 5  # by the database's clock
    assert both.renew_lock(me)
    assert not both.renew_lock(LockInfo(me.pid, HERE, me.since, "boot:43"))  # not the holder
    other = LockInfo(me.pid + 1, HERE + ".b", "2026-01-02T00:00:00+00:00", "boot:7")
    assert both.acquire_lock(other, lambda h: h.proc != "boot:42") is None  # the first holder is dead
    assert not both.renew_lock(me)  # taken over: the first may not renew it
    assert both.renew_lock(other)
    both.release_lock(other.pid)
    assert both.lock_holder() is None


def test_a_lock_held_when_the_store_is_upgraded_counts_as_renewed_then(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    open_store(f"sqlite:///{db}").close()
    with sqlite3.connect(db) as c:  # the store as forsy left it before locks were renewed
        c.execute("DELETE FROM schema_migrations WHERE name = '0010_sweep_lock_lease'")
        c.execute("ALTER TABLE sweep_lock DROP COLUMN proc")
        c.execute("ALTER TABLE sweep_lock DROP COLUMN renewed")
        c.execute("INSERT INTO sweep_lock (id, pid, host, since) "
                  "VALUES (1, 4242, 'old-host', '2020-01-01T00:00:00+00:00')")
    s = open_store(f"sqlite:///{db}")
    try:
        held = s.lock_holder()
        assert held is not None and (held.pid, held.host, held.proc) == (4242, "old-host", "")
        assert held.idle_s is not None and -5 < held.idle_s < 5
        assert holder_alive(held)  # its holder may still be at work: it has the lease to say so
    finally:
        s.close()


# --------------------------------------------------------------------------- sweeps

@pytest.mark.skipif(not LINUX, reason="the process's start is read from /proc")
def test_a_lock_whose_pid_another_process_took_is_taken_over(root: Path, store: Store) -> None:
    # the sweep died in a crash; after the reboot its pid is a live process's, not a sweep's
    dead = LockInfo(os.getppid(), HERE, "2026-01-01T00:00:00+00:00", "a-boot-before:99")
    assert store.acquire_lock(dead, lambda _: True) is None
    rid = store.start_run("2026-01-01T00:00:00+00:00", dead.pid, [])
    rep = swp(store, root)
    assert rep.locked_by is None and rep.counts.traced == 3 and rep.exit_code == ExitCode.OK
    assert next(r for r in store.runs() if r.id == rid).status == "interrupted"
    assert store.lock_holder() is None


def test_a_live_sweep_elsewhere_keeps_the_store_until_its_lease_passes(root: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = open_store(f"sqlite:///{db}")
    try:
        assert store.acquire_lock(LockInfo(77, "another-host", "2026-01-01T00:00:00+00:00", "b:1"),
                                  lambda _: True) is None
        rep = swp(store, root)
        assert rep.locked_by is not None and rep.locked_by.pid == 77 and rep.counts.seen == 0
        res = CliRunner().invoke(app, ["sweep", str(root), "--now", "--store", f"sqlite:///{db}"])
        assert res.exit_code == 0 and "pid 77 on another-host" in res.stderr
        assert "taken over if not renewed within 30 min" in res.stderr
        with sqlite3.connect(db) as c:  # its holder stopped renewing it 31 minutes ago
            c.execute("UPDATE sweep_lock SET renewed = renewed - ?", (LEASE_S + 60,))
        status = CliRunner().invoke(app, ["sweep", "--status", "--json", "--store", f"sqlite:///{db}"])
        held = json.loads(status.stdout)["locked_by"]
        assert (held["pid"], held["live"]) == (77, False) and held["idle_s"] > LEASE_S
        text = CliRunner().invoke(app, ["sweep", "--status", "--store", f"sqlite:///{db}"]).stdout
        assert "lock left by a sweep no longer running: pid 77 on another-host" in text
        rep = swp(store, root)
        assert rep.locked_by is None and rep.counts.traced == 3
        assert store.lock_holder() is None
    finally:
        store.close()


def test_a_sweep_whose_lock_was_taken_over_stops_before_writing_more(
        root: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lock_mod, "RENEW_EVERY_S", 0.0)  # renew before every session file
    renewals: list[LockInfo] = []
    real = store.renew_lock

    def taken_after_the_first(me: LockInfo) -> bool:
        renewals.append(me)
        if len(renewals) == 2:  # the machine slept; another sweep took the store over
            store.acquire_lock(LockInfo(me.pid + 1, "another-host", "later", "b:2"), lambda _: False)
        return real(me)

    monkeypatch.setattr(store, "renew_lock", taken_after_the_first)
    rep = swp(store, root)
    assert rep.failure is not None and "another sweep took the store over" in rep.failure
    assert rep.exit_code == ExitCode.STORE
    assert len(store.traces(TraceQuery())) == 1  # the first session only
    held = store.lock_holder()
    assert held is not None and held.host == "another-host"  # its lock is left to its new holder
    assert [me.pid for me in renewals] == [os.getpid()] * 2


def test_renewing_waits_its_interval_and_says_who_lost_the_lock(store: Store) -> None:
    me = this_process("2026-01-01T00:00:00+00:00")
    assert store.acquire_lock(me, holder_alive) is None
    calls: list[Any] = []
    lease = Lease(store, me)
    lease.store = type("Spy", (), {"renew_lock": lambda self, m: calls.append(m) or True})()  # type: ignore[assignment]
    lease.renew()
    assert calls == []  # renewed on taking it: not again within the interval
    lease.renewed -= 61
    lease.renew()
    assert calls == [me]
    lease = Lease(store, LockInfo(me.pid, me.host, me.since, "not:me"))
    lease.renewed -= 3600
    with pytest.raises(StoreError, match=r"had not renewed its lock for 60 min \(was the machine asleep\?\)"):
        lease.renew()
