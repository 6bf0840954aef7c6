"""The sweep lock: one sweep at a time per store (per sweeper on PostgreSQL), and a lock left
by a sweep that died taken over rather than stopping every later run.

The holder is named by its pid and host, its process (`proc`: on Linux the boot and the
process's start, so a pid that another process took after a crash or a reboot is told apart),
and when it last renewed the lock by the store's clock. A holder on this host is asked
directly: the pid must still run and, where the system tells it, be the same process. A holder
on another host (or a host whose name changed: containers, laptops on another network) cannot
be asked: its lock stands while it is renewed, and expires `LEASE_S` after the last renewal.
A sweep that finds its lock taken over (it was paused past the lease: a machine asleep) stops.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

from ..errors import StoreError
from ..store import LockInfo, Store

# How long a lock that its holder stopped renewing stands, when the holder cannot be asked.
# A sweep renews it before each session it looks at (at most every RENEW_EVERY_S), so only a
# single session taking longer than this (a model pass with long retries) could outlive it.
LEASE_S = 30 * 60
RENEW_EVERY_S = 60.0


def process_token(pid: int) -> str | None:
    """The process `pid` as `boot id:start tick`, the same for its whole life and never for a
    process that took its pid later (two processes can share a tick, 10 ms, but not a pid);
    '' where the system does not tell (no /proc); None when there is no such process or it has
    ended (a zombie waiting for its parent)."""
    proc = Path("/proc")
    try:
        boot = (proc / "sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""
    try:
        stat = (proc / str(pid) / "stat").read_text()
    except OSError:
        return None
    # the command's name (in parentheses) may hold blanks and parentheses: read after the last
    fields = stat[stat.rfind(")") + 2:].split()
    if len(fields) < 20:
        return ""
    if fields[0] in ("Z", "X"):
        return None
    return f"{boot}:{fields[19]}"


def this_process(since: str) -> LockInfo:
    """The lock as this process holds it, from `since`."""
    pid = os.getpid()
    return LockInfo(pid, socket.gethostname(), since, process_token(pid) or "")


def holder_alive(holder: LockInfo) -> bool:
    """Is the lock's holder still sweeping? On this host: its pid runs and, when the lock
    names its process, is that process. Elsewhere: it renewed the lock within `LEASE_S`
    (a lock that says nothing of its renewals, from an older forsy, is taken as live)."""
    lease_passed = holder.idle_s is not None and holder.idle_s > LEASE_S
    if holder.host != socket.gethostname():
        return not lease_passed
    try:
        os.kill(holder.pid, 0)  # signal 0 asks whether the pid exists; nothing is sent
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # a process of another user has that pid: told apart below where possible
    now = process_token(holder.pid)
    if now is None:
        return False
    if holder.proc and now:
        return now == holder.proc
    # nothing tells the process apart: a pid that has not renewed the lock within the lease
    # is another process's (or a sweep paused so long that it stops when it wakes)
    return not lease_passed


class Lease:
    """The running sweep's hold on the lock, renewed as it goes (`renew`)."""

    def __init__(self, store: Store, me: LockInfo) -> None:
        self.store, self.me = store, me
        self.renewed = time.time()  # the wall clock: it moves on while a machine sleeps

    def renew(self) -> None:
        """Renew the lock when `RENEW_EVERY_S` have passed; raise StoreError when another
        sweep took it over (this one was paused past the lease), so this one stops writing."""
        now = time.time()
        if now - self.renewed < RENEW_EVERY_S:
            return
        if not self.store.renew_lock(self.me):
            raise StoreError(f"another sweep took the store over: this sweep (pid {self.me.pid} on "
                             f"{self.me.host}) had not renewed its lock for {(now - self.renewed) / 60:.0f} min "
                             "(was the machine asleep?); it stops here, and the next run goes on")
        self.renewed = now
