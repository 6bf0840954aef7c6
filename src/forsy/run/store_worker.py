"""`forsy worker`: run the shared store's jobs until stopped.

Loop: claim a job this worker may run (host-less jobs, and those bound to its name — a
re-trace needs the logs, which stay on the machine that has them), keep renewing its lease
from a second connection while the work runs, record it done (or failed, with the error),
repeat; with nothing to do, wait `poll_s` and look again. SIGTERM / SIGINT: finish the job in
hand, then stop. A worker killed outright simply stops renewing: its job goes back to the
queue when the lease passes and another worker does it.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..errors import ForsyError, InputError
from ..store import Store, open_store, sweeper_name
from ..store.jobs import JOB_KINDS, Job, JobKind, JobQueue
from .options import RetraceOptions


def _iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def worker_name() -> str:
    """This machine's name for jobs bound to a host (as the sweep records it)."""
    return sweeper_name()


@dataclass
class WorkerOptions:
    store_url: str
    host: str = field(default_factory=worker_name)
    lease_s: float = 60.0
    poll_s: float = 1.0
    kinds: tuple[JobKind, ...] = JOB_KINDS
    max_jobs: int | None = None  # stop after this many (None: until stopped)
    exit_when_idle: bool = False  # stop when no job is left (tests, the load bench)
    retrace: RetraceOptions = field(default_factory=RetraceOptions)


@dataclass
class WorkerReport:
    worker: str
    done: list[int] = field(default_factory=list)
    failed: list[tuple[int, str]] = field(default_factory=list)
    lost: list[int] = field(default_factory=list)  # done here, but the claim had been taken over


class _Lease(threading.Thread):
    """Renews a claim's lease every third of it, on its own connection (the work may hold
    the main connection in a long transaction)."""

    def __init__(self, url: str, job: Job, lease_s: float) -> None:
        super().__init__(daemon=True, name=f"lease-{job.id}")
        self.url, self.job, self.lease_s = url, job, lease_s
        self.stop = threading.Event()
        self.lost = False

    def run(self) -> None:
        store = open_store(self.url)
        try:
            queue = JobQueue(store)
            while not self.stop.wait(self.lease_s / 3):
                if not queue.renew(self.job, self.lease_s):
                    self.lost = True
                    return
        finally:
            store.close()


def run_worker(options: WorkerOptions, stop: threading.Event | None = None) -> WorkerReport:
    stop = stop or threading.Event()
    me = f"{options.host}:{os.getpid()}:{secrets.token_hex(4)}"  # unique per process, even after pid reuse
    report = WorkerReport(me)
    hold = _TestHold.from_env()
    store = open_store(options.store_url, create=False)  # a worker at a typo would wait forever on nothing
    try:
        queue = JobQueue(store)
        while not stop.is_set() and (options.max_jobs is None or len(report.done) + len(report.failed)
                                     < options.max_jobs):
            job = queue.claim(me, options.lease_s, _iso(), host=options.host, kinds=options.kinds)
            if job is None:
                if options.exit_when_idle and not _any_left(queue):
                    break
                stop.wait(options.poll_s)
                continue
            hold.maybe(job)
            lease = _Lease(options.store_url, job, options.lease_s)
            lease.start()
            try:
                result = HANDLERS[job.kind](store, job, options)
            except ForsyError as e:
                queue.fail(job, e.message, _iso())
                report.failed.append((job.id, e.message))
                continue
            finally:
                lease.stop.set()
                lease.join()
            if queue.complete(job, result, _iso()):
                report.done.append(job.id)
            else:
                report.lost.append(job.id)
    finally:
        store.close()
    return report


def _any_left(queue: JobQueue) -> bool:
    c = queue.counts()
    return bool(c.get("queued") or c.get("running"))


# ---------------------------------------------------------------------- what each kind does
def _retrace(store: Store, job: Job, options: WorkerOptions, model: str | None = None) -> str:
    from ..store.sink import StoreSink
    from .serial import retrace_one

    path = Path(job.args["path"])
    if not path.is_file():
        raise InputError("the session file is not on this machine", path=path)
    opts = options.retrace if model is None else RetraceOptions(
        redact=options.retrace.redact, llm_model=model, llm_api_base=options.retrace.llm_api_base,
        llm_client=options.retrace.llm_client, cache_dir=options.retrace.cache_dir)
    sink = StoreSink(store, now=_iso(), unit_path=str(path))
    with store.transaction():  # its traces together or not at all
        outcomes = retrace_one(path, opts, sink=sink, keep=False)
    failed = [o.message for o in outcomes if o.status == "failed"]
    if failed and not any(o.status == "written" for o in outcomes):
        raise InputError("; ".join(failed), path=path)
    behind = dict(sink.behind)  # a copy lagging behind a draft of its session: said, not queued
    return " ".join(sorted(f"{o.trace_id} (not queued: an earlier state of {behind[o.trace_id]})"
                           if o.trace_id in behind else o.trace_id for o in outcomes if o.trace_id))


def _enrich(store: Store, job: Job, options: WorkerOptions) -> str:
    return _retrace(store, job, options, model=job.args["model"])


def _export(store: Store, job: Job, options: WorkerOptions) -> str:
    from ..store.export import export_trace

    tid = job.args["trace_id"]
    return str(export_trace(store, tid, Path(job.args["dest"]) / tid))


HANDLERS: dict[JobKind, Callable[[Store, Job, WorkerOptions], str]] = {
    "retrace": _retrace, "enrich": _enrich, "export": _export}


@dataclass
class _TestHold:
    """For the crash tests only: `FORSY_WORKER_TEST_HOLD=N` makes the Nth job this worker
    claims stop before its work, write its job id to `FORSY_WORKER_TEST_MARK` and sleep until
    killed. Unset, it does nothing."""

    n: int = 0
    mark: str = ""
    seen: int = 0

    @staticmethod
    def from_env() -> _TestHold:
        n = os.environ.get("FORSY_WORKER_TEST_HOLD", "")
        return _TestHold(int(n), os.environ.get("FORSY_WORKER_TEST_MARK", "")) if n else _TestHold()

    def maybe(self, job: Job) -> None:
        if not self.n:
            return
        self.seen += 1
        if self.seen == self.n:
            if self.mark:
                Path(self.mark).write_text(str(job.id))
            while True:
                time.sleep(60)


__all__ = ["HANDLERS", "WorkerOptions", "WorkerReport", "run_worker", "worker_name"]
