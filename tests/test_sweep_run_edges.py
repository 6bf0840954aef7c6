"""Edges of one sweep run (`forsy.sweep.run`) beside tests/test_sweep_run_promises.py: asking
whether the lock's holder lives sends it nothing."""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Iterator

import pytest

from forsy.store import LockInfo
from forsy.sweep.run import pid_alive


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
    assert pid_alive(LockInfo(os.getpid(), socket.gethostname(), "2020-01-01T00:00:00+00:00"))
    assert signals == []
