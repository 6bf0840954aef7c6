"""A bounded wait for in-process tests that drive a loop: `within(seconds)` raises `TooLong` in
the test when the time is up, so a loop that never ends (a read back that never reaches the
start of a file, a folder walked again and again) fails the test instead of hanging it (and,
under mutmut, is counted killed rather than timed out). SIGALRM: the main thread, POSIX only."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


class TooLong(Exception):
    pass


@contextmanager
def within(seconds: int) -> Iterator[None]:
    def stop(signum: int, frame: object) -> None:
        raise TooLong(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
