"""A part of a stage computed beside the caller, on the other core: a forked child computes it
and sends the result back pickled while the caller does the rest of the stage.

    with aside(part, worth_it=big) as later:
        mine = the_rest()
        theirs = later()  # part()'s result, from the child or computed here

A child is forked only where that is safe: on Linux, from a process with a single thread (a
child of a threaded process may inherit a lock another thread held; /proc counts native
threads too), with a second CPU to run on, and not when FORSY_FORK=0. The child only computes:
it writes its result to a pipe and leaves with `os._exit`, so no exit handler runs, no buffered
output is written twice, and no database connection or terminal the caller holds is touched.
Wherever a child cannot be forked, or it fails or dies, `later()` computes the part itself:
the result is the same either way, only later, and an exception the part raises is raised in
the caller as if nothing had been forked. A child ends with its caller: a signal ends it at
once, and the kernel ends it when the caller is killed.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn, TypeVar

T = TypeVar("T")

ENV = "FORSY_FORK"  # "0": never fork


def can_fork() -> bool:
    """Whether a child may be forked now (see the module's doc)."""
    if sys.platform != "linux" or os.environ.get(ENV) == "0":
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1 and len(os.sched_getaffinity(0)) > 1
    except OSError:
        return False


@contextmanager
def aside(part: Callable[[], T], *, worth_it: bool = True) -> Iterator[Callable[[], T]]:
    """Start `part` in a forked child (when `worth_it` and it is safe); the value given is the
    function that returns its result. A child whose result was not asked for is stopped."""
    started = _start(part) if worth_it and can_fork() else None
    if started is None:
        yield part
        return
    pid, r = started
    asked = False

    def later() -> T:
        nonlocal asked
        asked = True
        with os.fdopen(r, "rb") as f:
            data = f.read()  # to the end: the child closes its side when it leaves
        # a truncated pickle never loads: a child that died mid-write is computed here
        if _reaped(pid) in (0, None) and data:
            try:
                got: T = pickle.loads(data)
                return got
            except Exception:  # a result that does not load is computed here
                pass
        return part()

    try:
        yield later
    finally:
        if not asked:
            os.close(r)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _reaped(pid)


class Handoff:
    """A value the caller sends a forked child after the fork: what it computed meanwhile (the
    child starts on its own share at once and takes this when it needs it).

        handoff = Handoff()
        with aside(lambda: finish(own_share(), handoff.receive()), worth_it=big) as later:
            handoff.send(computed_here(), forked=later is not part)
            ...

    `receive()` gives None in the caller (a part computed there finds the value where the caller
    left it). A child whose caller sent nothing, or is gone, reads an empty pipe and its part
    fails: the caller computes it."""

    def __init__(self) -> None:
        self._maker = os.getpid()
        self._r: int | None
        self._w: int | None
        try:
            self._r, self._w = os.pipe()
        except OSError:
            self._r = self._w = None

    def send(self, value: object, *, forked: bool) -> None:
        """In the caller: send `value` to the child, if one was forked; the pipe is closed after."""
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL) if forked and self._w is not None else b""
        self._close("_r")
        if data and self._w is not None:
            try:
                with os.fdopen(self._w, "wb") as f:
                    self._w = None
                    f.write(data)
            except OSError:  # the child has ended: the caller computes its part
                pass
        self._close("_w")

    def receive(self) -> Any:
        """In the child: the caller's value (blocks until it is sent); elsewhere None."""
        if os.getpid() == self._maker or self._r is None:
            return None
        self._close("_w")
        with os.fdopen(self._r, "rb") as f:
            self._r = None
            data = f.read()
        if not data:
            raise EOFError("the caller sent nothing")  # the child's part fails: the caller computes it
        return pickle.loads(data)

    def _close(self, end: str) -> None:
        fd = getattr(self, end)
        if fd is not None:
            setattr(self, end, None)
            os.close(fd)


def _start(part: Callable[[], object]) -> tuple[int, int] | None:
    """The child's pid and the read end of its pipe; None when no child could be made."""
    try:
        r, w = os.pipe()
    except OSError:
        return None
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:  # no memory or process left for it: computed here
        os.close(r)
        os.close(w)
        return None
    if pid == 0:
        _child(part, r, w, parent)
    os.close(w)
    return pid, r


def _reaped(pid: int) -> int | None:
    """The child's exit code once it has ended; None if it was reaped elsewhere (SIGCHLD
    ignored, or a caller's own wait)."""
    try:
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    except ChildProcessError:
        return None


def _child(part: Callable[[], object], r: int, w: int, parent: int) -> NoReturn:
    code = 1
    try:
        # a signal ends the child at once: no handler of the caller's runs twice
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        _end_with(parent)
        os.close(r)
        data = pickle.dumps(part(), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(w, "wb") as f:
            f.write(data)
        code = 0
    except BaseException:  # the caller computes the part itself
        pass
    os._exit(code)


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _end_with(parent: int) -> None:
    """Have the kernel end this child when the caller ends (killed, say): no child goes on
    computing a part no one will read."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # no prctl here: the child ends when its part is done
        return
    if os.getppid() != parent:  # the caller ended before the request was made
        os._exit(1)
