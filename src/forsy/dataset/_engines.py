"""The engines that map `work` over units: `local` (a pool of processes on this machine) and
`ray` (Ray Data, on a local Ray or a cluster). Both yield `(unit, rows)` in the units' order,
so what is written does not depend on the engine.

A worker that dies (killed, out of memory, a crash in C code) is retried once; a unit whose
worker dies again becomes a failed row saying so, and the run goes on.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import warnings
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import orjson

from ..errors import ForsyError, InputError
from ._row import UNKNOWN, Row, _empty, retrace_bytes
from ._units import Unit, load, source_id

CRASHED = "the worker retracing this session died twice (killed, out of memory or a crash in C code)"
READ_AHEAD = 2  # units in flight beyond one per worker
WAVE = 4096  # units per Ray Dataset: one block each


def _test_fault(unit: Unit) -> None:
    """For the tests only: `FORSY_DATASET_TEST_FAULT=kill:NAME` kills the worker given the
    session NAME. Unset, it does nothing."""
    kind, _, name = os.environ.get("FORSY_DATASET_TEST_FAULT", "").partition(":")
    if kind == "kill" and name and unit.name == name:
        os.kill(os.getpid(), signal.SIGKILL)


def _stamp(rows: list[Row], unit: Unit) -> list[Row]:
    for r in rows:
        r["source_id"], r["source_sha256"] = source_id(unit.key), unit.sha256
    return rows


def failed(unit: Unit, message: str, agent: str = UNKNOWN) -> list[Row]:
    return _stamp([_empty("failed", message, agent)], unit)


def work(unit: Unit, redact: bool = True) -> list[Row]:
    """The rows of one unit: loaded here, in the worker, so the driver never holds a log."""
    _test_fault(unit)
    try:
        name, data, side = load(unit)
    except (OSError, InputError, ValueError) as e:
        return failed(unit, f"could not read the session: {getattr(e, 'message', None) or e}")
    rows = retrace_bytes(name, data, side, redact=redact) or [_empty("skipped", "no session in the file", UNKNOWN)]
    return _stamp(rows, unit)


# ---------------------------------------------------------------- local


def _work_json(unit_json: str, redact: bool) -> list[Row]:
    return work(Unit.from_json(unit_json), redact)


def _pool(workers: int) -> ProcessPoolExecutor:
    # spawn: no fork of a driver that may hold threads (Ray's, a terminal's)
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))


def _alone(unit: Unit, redact: bool) -> list[Row]:
    """A unit whose pool broke, retried once in a fresh process of its own."""
    with _pool(1) as pool:
        try:
            return pool.submit(_work_json, unit.to_json(), redact).result()
        except BrokenProcessPool:
            return failed(unit, CRASHED)


def run_local(units: Sequence[Unit], num_cpus: int, redact: bool = True) -> Iterator[tuple[Unit, list[Row]]]:
    """Units retraced by `num_cpus` worker processes, yielded in order. When the pool breaks
    (seen by a result or by the next submit: a worker may die between the two), no one can
    say whose unit killed it: every unit in flight without a result is retried alone."""
    todo = deque(units)
    pool = _pool(num_cpus)
    flight: deque[tuple[Unit, Future[list[Row]]]] = deque()
    try:
        while todo or flight:
            broken = False
            while todo and len(flight) < num_cpus + READ_AHEAD:
                try:
                    fut = pool.submit(_work_json, todo[0].to_json(), redact)
                except BrokenProcessPool:
                    broken = True
                    break
                flight.append((todo.popleft(), fut))
            if not broken:
                unit, fut = flight[0]
                try:
                    rows = fut.result()
                except BrokenProcessPool:
                    broken = True
                else:
                    flight.popleft()
                    yield unit, rows
                    continue
            pool.shutdown(wait=True, cancel_futures=True)
            for u, f in flight:
                yield u, _settled(f) or _alone(u, redact)
            flight.clear()
            pool = _pool(num_cpus)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _settled(fut: Future[list[Row]]) -> list[Row] | None:
    """The rows of a unit whose worker finished before the pool broke; None otherwise."""
    if fut.done() and not fut.cancelled() and fut.exception() is None:
        return fut.result()
    return None


# ---------------------------------------------------------------- ray


def _ray_rows(item: dict[str, Any], redact: bool) -> list[dict[str, Any]]:
    unit = Unit.from_json(item["unit"])
    # a row travels as JSON text: Arrow would otherwise type each block's columns on its own
    return [{"unit": item["unit"], "row": orjson.dumps(r).decode()} for r in work(unit, redact)]


def ray_session(address: str | None, num_cpus: int | None) -> Any:
    """A local Ray (loopback only, no dashboard, no usage stats) or a connection to a cluster;
    None when Ray was already started by the caller (left running)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError:
        raise ForsyError("--engine ray needs Ray Data: pip install 'forsy[ray]'") from None
    if ray.is_initialized():
        return None
    if address:
        return ray.init(address=address, include_dashboard=False, log_to_driver=False)
    return ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")


def run_ray(units: Sequence[Unit], num_cpus: int | None, address: str | None = None,
            redact: bool = True) -> Iterator[tuple[Unit, list[Row]]]:
    """Units retraced by Ray Data tasks, one unit per block (so a crash loses one unit),
    yielded in order, in waves of WAVE units (the driver holds one wave's blocks, not the
    corpus's). A task whose worker dies is retried once by Ray; a block that fails again is
    let go (`max_errored_blocks`), and its unit becomes a failed row here."""
    started = ray_session(address, num_cpus)
    import ray
    import ray.data

    ctx = ray.data.DataContext.get_current()
    saved = (ctx.execution_options.preserve_order, ctx.max_errored_blocks, ctx.enable_progress_bars)
    try:
        ctx.execution_options.preserve_order = True
        ctx.max_errored_blocks = -1
        ctx.enable_progress_bars = False
        for i in range(0, len(units), WAVE):
            yield from _wave(units[i:i + WAVE], redact)
    finally:
        ctx.execution_options.preserve_order, ctx.max_errored_blocks, ctx.enable_progress_bars = saved
        if started is not None:
            ray.shutdown()


def _wave(units: Sequence[Unit], redact: bool) -> Iterator[tuple[Unit, list[Row]]]:
    import ray.data

    def rows_of(item: dict[str, Any]) -> list[dict[str, Any]]:
        return _ray_rows(item, redact)

    with warnings.catch_warnings():
        # a task's retries have no named parameter in Ray Data before 2.64 (hence the pin):
        # without it Ray's default (3) would retry a crashing session three times
        warnings.simplefilter("ignore", DeprecationWarning)
        ds = ray.data.from_items([{"unit": u.to_json()} for u in units], override_num_blocks=len(units)).flat_map(
            rows_of, num_cpus=1, ray_remote_args_fn=lambda: {"max_retries": 1})
    pending = deque(units)
    current: Unit | None = None
    rows: list[Row] = []
    for got in ds.iter_rows():
        key = Unit.from_json(got["unit"]).key
        if current is not None and current.key == key:
            rows.append(orjson.loads(got["row"]))
            continue
        if current is not None:
            yield current, rows
        while pending and pending[0].key != key:  # units whose block was let go
            lost = pending.popleft()
            yield lost, failed(lost, CRASHED)
        current, rows = pending.popleft(), [orjson.loads(got["row"])]
    if current is not None:
        yield current, rows
    for lost in pending:
        yield lost, failed(lost, CRASHED)
