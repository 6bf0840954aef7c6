"""Work done beside the caller in a forked child (forsy._aside) gives what the caller would
have computed, in every case: the child's result, a child that fails or dies, a part that
raises, a block that raises (the child is stopped and reaped), and no fork at all.

Redaction uses it for a large session's texts: what is masked with the child and without it
is the same. That run is made in a fresh interpreter, so no thread another test left running
stops the fork."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from _forks import COUNT_FORKS, NEEDS_FORK, run_fresh, src_first
from forsy import _aside


def _no_child_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@NEEDS_FORK
def test_the_childs_result_comes_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_aside, "can_fork", lambda: True)
    parent = os.getpid()
    with _aside.aside(lambda: (os.getpid(), [1, "two", {"3": 4.5}])) as later:
        pid, value = later()
    assert pid != parent and value == [1, "two", {"3": 4.5}]
    assert _no_child_left()


@NEEDS_FORK
def test_a_child_that_dies_or_fails_is_replaced_by_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_aside, "can_fork", lambda: True)
    parent = os.getpid()

    def dies() -> int:
        if os.getpid() != parent:
            os._exit(3)
        return 7

    def unpicklable() -> object:
        return (lambda: 1) if os.getpid() != parent else "here"

    with _aside.aside(dies) as died:
        assert died() == 7
    with _aside.aside(unpicklable) as unsent:
        assert unsent() == "here"
    assert _no_child_left()


@NEEDS_FORK
def test_a_part_that_raises_raises_in_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_aside, "can_fork", lambda: True)

    def boom() -> None:
        raise ValueError("bad part")

    with pytest.raises(ValueError, match="bad part"), _aside.aside(boom) as later:
        later()
    assert _no_child_left()


@NEEDS_FORK
def test_a_block_that_raises_stops_and_reaps_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_aside, "can_fork", lambda: True)
    import time

    with pytest.raises(RuntimeError), _aside.aside(lambda: time.sleep(60)):
        raise RuntimeError("the caller's own part failed")
    assert _no_child_left()


@NEEDS_FORK
def test_a_fork_that_fails_or_a_child_reaped_elsewhere_still_gives_the_result(monkeypatch: pytest.MonkeyPatch) -> None:
    import signal

    monkeypatch.setattr(_aside, "can_fork", lambda: True)
    parent = os.getpid()
    with monkeypatch.context() as m:
        def no_fork() -> int:
            raise BlockingIOError(11, "Resource temporarily unavailable")

        m.setattr(os, "fork", no_fork)
        with _aside.aside(os.getpid) as later:
            assert later() == parent  # computed here
    old = signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reaped by the kernel
    try:
        with _aside.aside(os.getpid) as later:
            assert later() != parent  # the child's own answer, though no one could wait for it
        with _aside.aside(lambda: os._exit(0) if os.getpid() != parent else "here") as unsent:
            assert unsent() == "here"  # a child that left without a result: computed here
    finally:
        signal.signal(signal.SIGCHLD, old)
    assert _no_child_left()


_KILLED = r"""
import os, sys, time
from forsy import _aside
_aside.can_fork = lambda: True
def part():
    print(os.getpid(), flush=True)  # the child says who it is, then works for a minute
    time.sleep(60)
with _aside.aside(part) as later:
    later()
"""


@NEEDS_FORK
def test_a_child_ends_when_its_caller_is_killed() -> None:
    """A caller killed (SIGKILL: no cleanup of its own runs) leaves no child computing a part
    no one will read."""
    import signal
    import time

    with subprocess.Popen([sys.executable, "-c", _KILLED], stdout=subprocess.PIPE, text=True,
                          env={**os.environ, "PYTHONPATH": src_first()}) as caller:
        assert caller.stdout is not None
        child = int(caller.stdout.readline())
        os.kill(caller.pid, signal.SIGKILL)
        caller.wait(10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_no_fork_when_not_worth_it_or_not_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()
    with _aside.aside(os.getpid, worth_it=False) as later:
        assert later() == parent
    monkeypatch.setenv(_aside.ENV, "0")
    assert not _aside.can_fork()
    with _aside.aside(os.getpid) as later:
        assert later() == parent


def test_no_fork_from_a_process_with_threads() -> None:
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert not _aside.can_fork()
    finally:
        stop.set()
        t.join()


_REDACT = COUNT_FORKS + r"""
import json, random, sys
sys.path.insert(0, sys.argv[1])
from secretgen import SecretGen
from forsy import _aside
from forsy.redact import Redactor, _redactor
_redactor.ASIDE_CHARS = 0  # every call, however small
gen = SecretGen(seed=11)
rng = random.Random(5)
planted = gen.planted(400)
texts = [p.text for p in planted] + gen.lookalikes(200)
# a password named only late (in the child's half) is masked everywhere, in the first text too
late = "Qv7-unguessable-Xk2"
values = [rng.choice(texts) + " " + "filler " * rng.randint(0, 2000) for _ in range(600)]
values = [f"bare {late} in an early text"] + values + [f'export DB_PASSWORD="{late}"']
values += [{"args": {"password": "hunter2hunter2", "n": [1, t]}} for t in texts[:50]]
values.append("\ud800 a lone surrogate, and " + texts[0])
out = {}
for mode in ("1", "0"):
    os.environ[_aside.ENV] = mode
    red = Redactor()
    got = red.redact_values(values)
    out[mode] = [got, red.report(), red.redact(late)]
print(json.dumps({"same": out["1"] == out["0"], "forks": len(forks),
                  "masked": sum(1 for a, b in zip(values, out["1"][0]) if a != b),
                  "late_masked": late not in json.dumps(out["1"][0]), "by_kind": out["1"][1]["by_kind"]}))
"""


@NEEDS_FORK
def test_redaction_scanned_in_two_processes_masks_what_one_process_masks() -> None:
    tests = Path(__file__).resolve().parent
    got = run_fresh(_REDACT, str(tests))
    assert got["same"] is True
    assert got["forks"] >= 1
    assert got["masked"] > 300 and got["late_masked"] is True
    assert {"CREDENTIAL", "PRIVATE_KEY"} <= set(got["by_kind"])


def test_the_progress_line_on_a_terminal_starts_no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A retrace at a terminal draws its progress line without a timer thread, so it may
    still fork for a large session."""
    import io

    import rich.console

    from forsy.cli import _progress
    from forsy.run import ProgressEvent

    screen = io.StringIO()
    monkeypatch.setattr(_progress, "err", rich.console.Console(file=screen, force_terminal=True, width=120))
    before = threading.active_count()
    with _progress.ProgressLine(enabled=True) as line:
        line(ProgressEvent("redacting", "/x/session.jsonl", 1, 1, 1000, 0, 1000))
        assert threading.active_count() == before
    assert "redacting" in screen.getvalue() and "session.jsonl" in screen.getvalue()


@NEEDS_FORK
def test_a_value_handed_off_after_the_fork_reaches_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_aside, "can_fork", lambda: True)
    parent = os.getpid()
    handoff = _aside.Handoff()
    computed = {"n": 0}

    def part() -> tuple[int, object]:
        return os.getpid(), handoff.receive() or computed

    big = {"steps": [{"k": True} for _ in range(50_000)]}  # more than a pipe's buffer
    with _aside.aside(part) as later:
        assert later is not part
        computed["n"] = 1  # after the fork: the child never sees it, only what is sent
        handoff.send(big, forked=later is not part)
        pid, got = later()
    assert pid != parent and got == big
    assert _no_child_left()


def test_no_fork_the_part_takes_what_the_caller_left(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_aside, "can_fork", lambda: False)
    handoff = _aside.Handoff()
    left: dict[str, int] = {}
    with _aside.aside(lambda: handoff.receive() or left) as later:
        left["n"] = 1
        handoff.send({"n": 2}, forked=False)  # nothing is written: no child reads it
        assert later() == {"n": 1}


@NEEDS_FORK
def test_a_child_sent_nothing_is_replaced_by_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_aside, "can_fork", lambda: True)
    handoff = _aside.Handoff()
    parent = os.getpid()

    def part() -> int:
        handoff.receive()  # in the child: the caller closed its end without a word, so this raises
        return os.getpid()

    with _aside.aside(part) as later:
        handoff.send("unused", forked=False)  # as if the caller believed no child was forked
        assert later() == parent  # the child failed: computed here, where receive() gives None
    assert _no_child_left()
