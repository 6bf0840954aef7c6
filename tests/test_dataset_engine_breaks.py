"""The local engine when its pool breaks: a worker may die between one result and the next
submit, so the break is seen by `submit` as well as by a result. Either way the run goes on:
units that finished keep their rows, units without a result are retried alone, and every unit
is yielded once, in order.

The pool here is a scripted double (no processes): it runs work in this process and breaks
where the script says, the way a killed worker breaks a real `ProcessPoolExecutor`."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest

from forsy.dataset import _engines
from forsy.dataset._engines import CRASHED, run_local
from forsy.dataset._units import Unit


def _units(n: int) -> list[Unit]:
    return [Unit(key=f"k{i}", kind="file", path=f"/nowhere/{i}.jsonl", name=f"{i}.jsonl") for i in range(n)]


class ScriptedPool:
    """Breaks on the `break_at`-th submit (counted over the whole test); the futures it had
    handed out without running stay broken, like those of a real pool whose worker died."""

    submits = 0

    def __init__(self, break_at: int, run_before_break: set[str], dies: set[str]) -> None:
        self.break_at, self.ran, self.dies = break_at, run_before_break, dies
        self.broken = False
        self.pending: list[Future[Any]] = []

    def submit(self, fn: Callable[..., Any], unit_json: str, redact: bool) -> Future[Any]:
        ScriptedPool.submits += 1
        if self.broken or ScriptedPool.submits == self.break_at:
            self.broken = True
            for f in self.pending:
                f.set_exception(BrokenProcessPool("a child process terminated abruptly"))
            self.pending.clear()
            raise BrokenProcessPool("a child process terminated abruptly")
        fut: Future[Any] = Future()
        name = Unit.from_json(unit_json).name
        if name in self.dies:
            fut.set_exception(BrokenProcessPool("a child process terminated abruptly"))
        elif name in self.ran or self.break_at == 0:
            fut.set_result(fn(unit_json, redact))
        else:
            self.pending.append(fut)
        return fut

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        for f in self.pending:
            f.set_exception(BrokenProcessPool("shut down"))
        self.pending.clear()

    def __enter__(self) -> ScriptedPool:
        return self

    def __exit__(self, *a: object) -> None:
        self.shutdown()


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    done: list[str] = []

    def fake_work(unit_json: str, redact: bool) -> list[dict[str, Any]]:
        name = Unit.from_json(unit_json).name
        done.append(name)
        return [{"status": "traced", "name": name}]

    monkeypatch.setattr(_engines, "_work_json", fake_work)
    ScriptedPool.submits = 0
    return done


def test_a_pool_broken_at_submit_loses_no_unit(monkeypatch: pytest.MonkeyPatch, calls: list[str]) -> None:
    # one worker, three in flight: 0 and 1 finish, 2 is running when its worker dies, and the
    # break is first seen by the submit of 3 (the 4th submit)
    pools = iter([ScriptedPool(4, {"0.jsonl", "1.jsonl"}, set())])
    monkeypatch.setattr(_engines, "_pool", lambda workers: next(pools, ScriptedPool(0, set(), set())))
    got = list(run_local(_units(6), num_cpus=1))
    assert [u.name for u, _ in got] == [f"{i}.jsonl" for i in range(6)]
    assert [rows[0]["name"] for _, rows in got] == [f"{i}.jsonl" for i in range(6)]
    # 1 had finished: its rows are kept, not worked out again; 2 is retried alone
    assert calls.count("1.jsonl") == 1 and calls.count("2.jsonl") == 1


def test_a_unit_whose_worker_dies_twice_is_a_failed_row(monkeypatch: pytest.MonkeyPatch, calls: list[str]) -> None:
    fatal = {"2.jsonl"}
    first = ScriptedPool(4, {"0.jsonl", "1.jsonl"}, set())
    pools = iter([first])
    monkeypatch.setattr(_engines, "_pool", lambda workers: next(pools, ScriptedPool(0, set(), fatal)))
    got = list(run_local(_units(5), num_cpus=1))
    assert [u.name for u, _ in got] == [f"{i}.jsonl" for i in range(5)]
    assert got[2][1][0]["status"] == "failed" and got[2][1][0]["error"] == CRASHED
    assert all(rows[0]["status"] == "traced" for i, (_, rows) in enumerate(got) if i != 2)
