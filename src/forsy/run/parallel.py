"""Session files retraced in a pool of processes, handed to the sink in input order.

    parent: submit file 1, 2, … (at most jobs + READ_AHEAD open at once)
    worker: read ─ redact ─ segment ─ assemble        (the same code as a serial run)
    parent: file 1's traces ─▶ sink, file 2's ─▶ sink, …   (input order, whatever finished first)

Everything that decides what the output looks like runs in the parent, in input order: the
sink (folder names that grow when taken, store rows, prior-draft links), the outcomes, the
progress events. So a parallel run writes, prints and exits exactly as a serial one does.

A worker sends back, per file, its outcomes and each trace the sink must take: the assembled
trace (or, for a sink that writes trace folders, the folder's files rendered in the worker:
the parent only writes bytes) and the session without its events, evidence and ledger (a
sink reads only the session's id, kind, files and meta; the heavy parts stay in the worker).
Workers are started
with `spawn` (no fork of a parent that may hold threads, a SQLite connection or a terminal).

A worker that raises past the per-session stage's own handling gives a failed outcome for its file,
as a serial run would. A worker process that dies (killed, out of memory, a crash in C code)
breaks the whole pool, and the pool cannot say whose file killed it: every file still open
is then retraced again alone, one at a time in a fresh process, so only the file that kills
its worker again fails (with a message saying so); a new pool takes the rest.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, cast

from ..assemble import Assembled
from ..errors import ForsyError, InternalError
from ..evidence import Session
from ..sinks import Sink
from ..sinks.folder import Rendered
from ..sources import Source
from .options import Meter, RetraceOptions
from .outcome import Outcome
from .session import failed_outcome, retrace_file
from .timeline import Timeline

if TYPE_CHECKING:
    from ..validation import Report

READ_AHEAD = 2  # files open beyond one per worker: a worker that finishes finds the next one waiting
_PENDING = "\x00forsy-pending:"  # Outcome.where of a trace the parent's sink has still to take


class _TakesRendered(Protocol):
    def write_rendered(self, r: Rendered, session: Session) -> str: ...


@dataclass
class _Captured:
    assembled: Assembled | Rendered  # Rendered: the folder's files, for a sink that takes them
    session: Session
    checked: Report | None = None  # the rendered files' validation, made here in the worker


class _Capture:
    """The worker's sink: keeps each trace for the parent's sink, and says which one it was.
    `render`: the parent's sink writes trace folders, so the worker renders them here (the
    parent then writes bytes: no models to unpickle, no rendering in the one process that
    every trace goes through)."""

    def __init__(self, keep: bool, render: bool) -> None:
        self.keep = keep
        self.render = render
        self.got: list[_Captured] = []

    def write(self, assembled: Assembled, session: Session) -> str:
        light = session if self.keep else _light(session)
        if self.render:  # validated here too: what `forsy retrace` checks once the folder is written
            from ..validation import validate_files

            r = Rendered.of(assembled)
            self.got.append(_Captured(r, light, validate_files(r.files)))
        else:
            self.got.append(_Captured(assembled, light))
        return f"{_PENDING}{len(self.got) - 1}"


def _light(s: Session) -> Session:
    """The session as a sink needs it: its events, evidence and ledger (most of its size) left
    behind in the worker."""
    return replace(s, events=[], evidence={}, ledger={})


@dataclass
class _FileResult:
    outcomes: list[Outcome]
    captured: list[_Captured]


@dataclass
class _WorkerState:
    options: RetraceOptions = field(default_factory=RetraceOptions)
    timeline: Timeline | None = None


_STATE = _WorkerState()


def _init(options: RetraceOptions, timeline: Timeline | None, parent: int) -> None:
    """Each worker gets the options and the history/git timeline once, not with every file,
    and leaves when its parent is gone."""
    _STATE.options, _STATE.timeline = options, timeline
    threading.Thread(target=_exit_with, args=(parent,), name="forsy-parent-watch", daemon=True).start()


def _exit_with(parent: int) -> None:
    """A parent killed with SIGKILL (a cron job's timeout, the crash tests) cannot stop its
    workers, and a worker waiting for its next file would wait for ever: when its parent is
    gone (it was adopted by another process), it exits, within half a second."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _work(path: Path, source: Source | None, keep: bool, sinked: bool, render: bool = False) -> _FileResult:
    _test_fault(path)
    capture = _Capture(keep, render) if sinked else None
    outcomes = retrace_file(path, _STATE.options, capture, keep, source, _STATE.timeline, Meter(None))
    return _FileResult(outcomes, capture.got if capture is not None else [])


def _test_fault(path: Path) -> None:
    """For the tests only: `FORSY_PARALLEL_TEST_FAULT=raise:NAME` (or `kill:NAME`) makes the
    worker given the file NAME raise (or kill its own process). Unset, it does nothing."""
    kind, _, name = os.environ.get("FORSY_PARALLEL_TEST_FAULT", "").partition(":")
    if not name or path.name != name:
        return
    if kind == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if kind == "raise":
        raise RuntimeError(f"a test fault in the worker for {name}")


def _died(path: Path) -> ForsyError:
    return InternalError("internal error: the worker process retracing this file stopped abruptly (killed, out "
                         "of memory, or a crash); the other files were retraced", path=path)


@dataclass
class Pending:
    """A file submitted to the pool and not yet handed to the sink."""

    path: Path
    source: Source | None
    keep: bool
    sinked: bool
    render: bool = False  # the worker renders the trace folders (the sink takes them as bytes)
    future: Future[_FileResult] | None = None
    result: _FileResult | BaseException | None = None  # set once known


class SessionPool:
    """A pool of `jobs` worker processes retracing session files; `finish` hands a file's
    traces to the sink in the parent. Callers finish files in the order they submitted them."""

    def __init__(self, options: RetraceOptions, jobs: int, timeline: Timeline | None = None) -> None:
        # the model client a library caller may inject is not sent (the model pass runs serially)
        self.options = replace(options, llm_client=None) if options.llm_model is None else options
        self.jobs = jobs
        self.timeline = timeline
        self._ctx = multiprocessing.get_context("spawn")
        self._open: list[Pending] = []
        self._pool = self._new(jobs)

    def _new(self, workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(workers, mp_context=self._ctx, initializer=_init,
                                   initargs=(self.options, self.timeline, os.getpid()))

    def __enter__(self) -> SessionPool:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    @property
    def window(self) -> int:
        """Files open at once (submitted, not yet finished): what bounds the parent's memory."""
        return self.jobs + READ_AHEAD

    def submit(self, path: Path, source: Source | None, *, keep: bool, sinked: bool, render: bool = False) -> Pending:
        p = Pending(path, source, keep, sinked, render)
        try:
            p.future = self._pool.submit(_work, path, source, keep, sinked, render)
        except BrokenProcessPool:
            self._recover()
            p.future = self._pool.submit(_work, path, source, keep, sinked, render)
        self._open.append(p)
        return p

    def finish(self, p: Pending, sink: Sink | None, meter: Meter) -> list[Outcome]:
        """The file's outcomes, its traces handed to `sink` (in the parent) as a serial run
        hands them: a sink that raises makes that session's outcome a failure."""
        got = self._result(p)
        self._open.remove(p)
        if not isinstance(got, _FileResult):
            if isinstance(got, Exception):
                return [failed_outcome(str(p.path), got, self.options)]
            raise got
        return [self._hand_over(o, got, sink, meter) for o in got.outcomes]

    def _result(self, p: Pending) -> _FileResult | BaseException:
        if p.result is None:
            assert p.future is not None
            try:
                p.result = p.future.result()
            except BrokenProcessPool:
                self._recover()
            except Exception as e:  # an exception past the session stage's handling, or a result that did not pickle
                p.result = e
        assert p.result is not None
        return p.result

    def _hand_over(self, o: Outcome, got: _FileResult, sink: Sink | None, meter: Meter) -> Outcome:
        if o.where is None or not o.where.startswith(_PENDING):
            return o
        c = got.captured[int(o.where.removeprefix(_PENDING))]
        assert sink is not None
        try:
            meter.stage("writing")
            if isinstance(c.assembled, Rendered):
                where = cast(_TakesRendered, sink).write_rendered(c.assembled, c.session)
            else:
                where = sink.write(c.assembled, c.session)
        except Exception as e:
            return failed_outcome(o.path, e, self.options)
        return replace(o, status="written" if where else "traced", where=where, checked=c.checked)

    def _recover(self) -> None:
        """A worker process died and took the pool with it. Files whose results had come back
        keep them; every other open file is retraced alone, one at a time in a one-process
        pool (a fresh one after each death), so the one that kills its worker again is the
        one that fails; then a new pool takes the rest."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        alone: ProcessPoolExecutor | None = None
        try:
            for p in self._open:
                if p.result is not None:
                    continue
                f = p.future
                if f is not None and f.done() and not f.cancelled():
                    exc = f.exception()
                    if not isinstance(exc, BrokenProcessPool):
                        p.result = exc if exc is not None else f.result()
                        continue
                alone = alone or self._new(1)
                try:
                    p.result = alone.submit(_work, p.path, p.source, p.keep, p.sinked, p.render).result()
                except BrokenProcessPool:
                    p.result = _died(p.path)
                    alone.shutdown(wait=True)
                    alone = None
                except Exception as e:
                    p.result = e
        finally:
            if alone is not None:
                alone.shutdown(wait=True)
        self._pool = self._new(self.jobs)


def retrace_in_order(found: Sequence[tuple[Source, Path]], sizes: Sequence[int], options: RetraceOptions,
                     sink: Sink | None, keep: bool, timeline: Timeline | None, meter: Meter,
                     jobs: int) -> list[Outcome]:
    """`serial.retrace`'s loop on `jobs` processes: the same outcomes, in the same order,
    the sink called in the same order. A file's progress goes reading → writing → done when
    the parent takes its result (the stages in between run in a worker)."""
    out: list[Outcome] = []
    todo = iter(zip(found, sizes, strict=True))
    open_: deque[tuple[Pending, Path, int]] = deque()
    # a sink that writes trace folders takes them rendered by the worker (unless the caller
    # keeps the assembled traces: then the models come back anyway)
    render = not keep and callable(getattr(sink, "write_rendered", None))
    with SessionPool(options, jobs, timeline) as pool:
        def fill(limit: int) -> None:
            while len(open_) < limit:
                nxt = next(todo, None)
                if nxt is None:
                    return
                (src, path), size = nxt
                open_.append((pool.submit(path, src, keep=keep, sinked=sink is not None, render=render), path, size))

        fill(pool.window)
        while open_:
            pending, path, size = open_.popleft()
            fill(pool.window - 1)  # the next file goes to a worker before this one's result is waited for
            meter.start(str(path), size)
            meter.stage("reading")
            out += pool.finish(pending, sink, meter)
            meter.finish()
    return out
