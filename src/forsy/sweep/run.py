"""`forsy sweep`: keep a store of draft traces up to date with the agents' log folders.

One run, in order:

1. take the store's sweep lock (a live holder: stop at once, exit 0; a dead one: take over);
2. walk the roots: one `stat` per session-like file, nothing read;
3. compare with what the store remembers of each file (device, inode, size, mtime):
   a session whose files all match is unchanged and costs nothing more;
4. a changed session file is fingerprinted (first block, last complete line) to tell
   `grown` (re-traced; the new draft links the previous one) from `rewritten` (from
   scratch); one that failed before is read again though unchanged (`retried`: the fault
   may have been forsy's); a vanished one is marked `source_gone` (its traces stay);
5. files no session claims yet are handed to the sources' discovery to find new sessions;
6. a session touched within the settle window, or ending in an incomplete line, waits for
   the next run; every other is traced through `run.retrace_one` into the store, and
   its traces and its files' new state are committed in one transaction — a kill -9 at any
   point leaves the previous state, and the next run does that session again. With
   `retrace.jobs` > 1 the reading to assembled runs in worker processes a few sessions
   ahead, while the store writes stay here, in order, one transaction per session: the
   store ends up byte for byte as a serial sweep leaves it;
7. the run's counts are recorded, the lock released.

Only a session's own files (those under the roots) are watched: a shell history or git
repository merged from the config joins each trace made, but a change to it alone does not
re-trace old sessions (what it adds lies after their time window).
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .. import sources
from ..errors import ExitCode, ForsyError, StoreError
from ..evidence import PART_UNREADABLE_WARNINGS as PART_UNREADABLE
from ..run import RetraceOptions, parallel_jobs
from ..sources.walk import NOT_READ_LOG, session_of
from ..store import ErrorRow, FaultRow, FileState, LockInfo, RunCounts, Store
from ._files import Stat, classify, fingerprint, line_oriented, stat_path, sweep_sources, walk, why
from ._hold import _TestHold
from ._roots import missing_roots
from ._units import Plan, Unit, plan_units
from .lock import Lease, holder_alive, this_process

if TYPE_CHECKING:
    from ..run import Timeline
    from ..run.parallel import Pending, SessionPool
    from ..sources import Source

# the limits of the sources' search (sources.walk) whose folders hold files under the roots
# that the sweep's own walk saw: those files are left out, saying why, not silently ignored
_LIMITS = ("deeper than", "stops looking after")
INCOMPLETE_GIVE_UP_S = 86400.0  # a last line still incomplete after a day: its writer is gone
CLEANUP_WARN_DAYS = 5


@dataclass
class SweepOptions:
    roots: list[Path]
    retrace: RetraceOptions = field(default_factory=RetraceOptions)
    settle_seconds: float = 120.0
    now: Callable[[], float] = time.time  # injected in tests: settle and age checks use it
    ignore_settle: bool = False  # --now
    claude_home: Path | None = None  # for the cleanup warning; default ~/.claude
    progress: Callable[[SweepProgress], None] | None = None  # told before each session file is traced


@dataclass(frozen=True)
class SweepProgress:
    """Where a run is: the session files to trace and their bytes, done so far, and the one in
    hand; `files` 0: still looking for them under the root `path`."""

    files_done: int
    files: int
    bytes_done: int
    bytes_total: int
    path: str


@dataclass
class SweepReport:
    store: str
    roots: list[str]
    run_id: int | None = None
    counts: RunCounts = field(default_factory=RunCounts)
    duration_s: float = 0.0
    failures: list[ErrorRow] = field(default_factory=list)  # this run's
    waiting: list[tuple[str, str]] = field(default_factory=list)  # (session file, why)
    no_work: list[tuple[str, str]] = field(default_factory=list)  # (session file, why): read, no draft made
    # (session file, trace id, the file it was stored from): read, its trace in the store already
    already_stored: list[tuple[str, str, str]] = field(default_factory=list)
    # (session file, its trace id, the draft it lags behind, the file that was read from): a copy
    # of a session each of whose steps is in a draft of it stored from another file; not queued
    behind: list[tuple[str, str, str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    locked_by: LockInfo | None = None
    # what could not be looked at (folders, files): skipped, tried again next run; with since when
    faults: list[FaultRow] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (file, why): beyond a limit of the search
    failure: str | None = None  # the run was stopped by the environment (the store could not be written)
    marked_failed: bool = False  # and the store took the mark of the run as failed

    @property
    def exit_code(self) -> int:
        c = self.counts
        if self.failure is not None:
            return ExitCode.STORE
        if self.faults:
            return ExitCode.PARTIAL  # something was skipped for a fault; everything else was done
        if not c.failed:
            return ExitCode.OK
        # something was done (another file, or another session of a failing file): partly done
        return ExitCode.PARTIAL if c.seen > c.failed or c.traces_written else ExitCode.INPUT

    def to_json(self) -> dict[str, object]:
        counts = dict(vars(self.counts))
        lock = vars(self.locked_by) if self.locked_by else None
        return {"store": self.store, "roots": self.roots, "run_id": self.run_id, "locked_by": lock, **counts,
                "counts": counts, "duration_s": round(self.duration_s, 3), "failure": self.failure,
                "failures": [{"path": e.path, "message": e.message} for e in self.failures],
                "faults": [{"path": f.path, "what": f.what, "reason": f.reason, "since": f.first_at, "runs": f.runs}
                           for f in self.faults],
                "left_out": [{"path": p, "reason": r} for p, r in self.left_out],
                "waiting_files": [{"path": p, "reason": r} for p, r in self.waiting],
                "no_work_files": [{"path": p, "reason": r} for p, r in self.no_work], "warnings": self.warnings,
                "already_stored": [{"path": p, "trace_id": t, "stored_from": f} for p, t, f in self.already_stored],
                "behind": [{"path": p, "trace_id": t, "behind": b, "stored_from": f} for p, t, b, f in self.behind],
                "exit_code": self.exit_code}


def _session_of(path: str) -> str | None:
    """The session file a source says `path` is a part of (sources.walk.session_of), absolute."""
    found = session_of(Path(path), sweep_sources())
    return os.path.abspath(found) if found is not None else None


def iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds")


def _source(unit: Unit) -> Source | None:
    """The source whose discovery found the session file: it reads it, as `forsy retrace DIR`
    does (sniffing alone cannot tell what an empty or just-created file will be)."""
    if unit.source_kind is None:
        return None
    try:
        return sources.load(unit.source_kind)
    except ForsyError:
        return None  # a plugin source gone since the last run: sniff the file instead


def sweep(store: Store, options: SweepOptions) -> SweepReport:
    """One run (see the module's docstring). What cannot be looked at (a folder, a file) is
    skipped and named in `report.faults`; a store that cannot be written (a full disk, a
    read-only file) stops the run: `report.failure` says why, the run is marked failed when
    the store still takes that much, and what was being written is rolled back."""
    roots = [os.path.abspath(os.path.expanduser(r)) for r in options.roots]
    report = SweepReport(store.url, roots)
    me = this_process(iso(options.now()))
    try:
        holder = store.acquire_lock(me, holder_alive)
    except StoreError as e:
        report.failure = e.message
        return report
    if holder is not None:
        report.locked_by = holder
        return report
    run = _Sweep(store, options, roots, report, Lease(store, me))
    try:
        store.interrupt_running()  # we hold the lock: any run still marked running died
        run.run()
    except StoreError as e:
        report.failure = e.message
        run.failed(e.message)
    except BaseException as e:  # a bug, an interruption: the run is not left `running`
        run.failed(e.message if isinstance(e, ForsyError) else "interrupted (Ctrl-C or SIGTERM); the next run goes on"
                   if isinstance(e, KeyboardInterrupt) else f"{type(e).__name__}: {e}"[:300])
        raise
    finally:
        try:
            store.release_lock(me.pid)
        except StoreError:
            pass  # a full disk: the lock's holder is gone, so the next sweep takes it over
    return report


class _Sweep:
    def __init__(self, store: Store, options: SweepOptions, roots: list[str], report: SweepReport,
                 lease: Lease) -> None:
        self.store, self.lease = store, lease
        self.opt = options
        self.roots = roots
        self.report = report
        self.c = report.counts
        self.now = options.now()
        self.now_iso = iso(self.now)
        self.hold = _TestHold.from_env()
        self.timeline: Timeline | None = None  # the config's histories and git, read once per run
        self.t0 = time.perf_counter()
        self.faults: list[tuple[str, str, str]] = []  # (path, "folder" | "file", why)
        self.left_out: dict[str, str] = {}  # files a limit of the search left out: why
        self.files_total = self.files_done = 0
        self.bytes_total = self.bytes_done = 0

    def run(self) -> None:
        self.report.run_id = run_id = self.store.start_run(self.now_iso, os.getpid(), self.roots)
        on_disk: dict[str, Stat] = {}
        missing = missing_roots(self.roots)  # faults, and out of sight as a folder not listed: not gone
        blocked: dict[str, str] = {r: reason for r, (_, reason) in missing.items()}
        links: list[tuple[str, str]] = []
        for r in self.roots:
            self._looking(r)
            on_disk.update(walk(r, blocked, links))
        for d, reason in sorted(blocked.items()):
            self._fault(d, missing[d][0] if d in missing else "folder", reason)
        known = self.store.file_states(self.roots)
        plan = plan_units(on_disk, known, self.roots, self._discover, set(blocked), _session_of)
        self._mark_gone(plan, known)
        changed = [u for u in plan.units if u.failure is None and u.change != "unchanged"]
        self.files_total = len(changed)
        sizes = [sum(on_disk[p].size for p in (u.path, *u.members) if p in on_disk) for u in changed]
        self.bytes_total = sum(sizes)
        jobs = parallel_jobs(self.opt.retrace, len(changed), self.bytes_total, max(sizes, default=0))
        if changed and (self.opt.retrace.history or self.opt.retrace.git):
            self.timeline = self._timeline()  # only when something is to be traced
        if jobs > 1:
            self._run_parallel(plan.units, known, on_disk, jobs)
        else:
            for unit in plan.units:
                self._do(self._check(unit, known, on_disk), on_disk, None)
        self.report.left_out = sorted([*((p, w) for p, w in self.left_out.items() if p in plan.unclaimed),
                                       *links])
        self._remember_ignored(plan, on_disk)
        with self.store.transaction():
            # the config's histories and git are this sweep's too: a fault of theirs is cleared here
            extra = [str(h) for h in self.opt.retrace.history] + \
                ([str(self.opt.retrace.git)] if self.opt.retrace.git is not None else [])
            self.report.faults = self.store.record_faults(run_id, self.now_iso, self.roots + extra, self.faults)
            for f in self.report.faults:  # the run's errors: a fault when first met (sweep_faults counts the rest)
                if f.runs == 1:
                    self.store.add_error(ErrorRow(run_id, f.path, f.reason, self.now_iso))
        self.c.failed = len(self.faults) + sum(
            1 for s in self.store.file_states(self.roots).values() if s.status == "failed")
        self._cleanup_warning(plan, on_disk)
        self.report.duration_s = time.perf_counter() - self.t0
        self.store.finish_run(run_id, iso(self.opt.now()), self.c, self.report.duration_s)

    def _timeline(self) -> Timeline:
        """The config's histories and git repository, each on its own: one that cannot be read
        is a fault (named, tried again next run) and the sessions are traced without it,
        rather than not at all while Claude Code's cleanup runs on."""
        from dataclasses import replace

        from ..run import Timeline, timeline_inputs

        out = Timeline([], [])
        inputs: list[tuple[Path, RetraceOptions]] = [
            (h, replace(self.opt.retrace, history=[h], git=None)) for h in self.opt.retrace.history]
        if self.opt.retrace.git is not None:
            inputs.append((self.opt.retrace.git, replace(self.opt.retrace, history=[])))
        for where, opts in inputs:
            try:
                got = timeline_inputs(opts)
            except (ForsyError, OSError) as e:
                reason = e.message if isinstance(e, ForsyError) else why(e)
                self._fault(str(where), "file", f"cannot read this history or repository: {reason} (sessions "
                                                "traced without it)")
                continue
            out.history += got.history
            out.git += got.git
        return out

    def failed(self, message: str) -> None:
        """The store could not be written: mark the run failed, if the store takes even that."""
        self.report.duration_s = time.perf_counter() - self.t0
        if self.report.run_id is None:
            return
        try:
            self.store.fail_run(self.report.run_id, iso(self.opt.now()), self.c, self.report.duration_s, message)
            self.report.marked_failed = True
        except StoreError:
            pass  # not even that: `--status` shows a run left running by no live sweep as stopped

    def _looking(self, root: str) -> None:
        """Tell the progress display the run is looking for files under `root` (files = 0)."""
        if self.opt.progress is not None:
            self.opt.progress(SweepProgress(0, 0, 0, 0, root))

    def _fault(self, path: str, what: str, reason: str) -> None:
        """Something that could not be looked at: skipped this run, named, tried again next run."""
        self.faults.append((path, what, reason))

    # ------------------------------------------------------------------ discovery
    def _discover(self, fresh: set[str]) -> tuple[dict[str, str], list[tuple[str, str]]]:
        """Session files (and their source) under the roots holding files the store has not
        seen; and roots that could not be searched, with why. Files the search left out for
        one of its limits (a folder too deep) go into `self.left_out`, saying which."""
        from ..run import discover

        mains: dict[str, str] = {}
        problems: list[tuple[str, str]] = []
        for r in self.roots:
            if not any(p == r or p.startswith(r.rstrip(os.sep) + os.sep) for p in fresh):
                continue
            self._looking(r)
            unread: list[tuple[Path, str]] = []
            try:
                mains.update((os.path.abspath(p), src.name) for src, p in discover([Path(r)], unread))
            except (ForsyError, OSError) as e:
                if Path(r).is_file():
                    problems.append((r, e.message if isinstance(e, ForsyError) else why(e)))
            for folder, why_ in unread:
                # a log this walk saw that the search does not read (a copy beside a log, a log
                # kept compressed): named once, as it is then remembered
                if why_.startswith(NOT_READ_LOG) and os.path.abspath(folder) in fresh:
                    self.left_out.setdefault(os.path.abspath(folder), why_)
                elif any(limit in why_ for limit in _LIMITS):
                    top = os.path.abspath(folder)
                    self.left_out.update((p, why_) for p in fresh
                                         if p.startswith(top.rstrip(os.sep) + os.sep) and p not in self.left_out)
        return mains, problems

    def _run_parallel(self, units: list[Unit], known: dict[str, FileState], on_disk: dict[str, Stat],
                      jobs: int) -> None:
        """The units on `jobs` processes: each unit is checked and, when it is to be traced,
        sent to a worker a few units ahead; everything the store and the report see (rows,
        transactions, failures) happens here in unit order, exactly as in a serial sweep."""
        from ..run.parallel import SessionPool

        todo = iter(units)
        queue: deque[_Todo] = deque()
        flying = 0  # traces submitted and not yet committed: what bounds memory

        def fill(pool: SessionPool, limit: int) -> None:
            nonlocal flying
            while flying < limit:
                unit = next(todo, None)
                if unit is None:
                    return
                step = self._check(unit, known, on_disk)
                if isinstance(step, _ToTrace):
                    step.pending = pool.submit(Path(unit.path), _source(unit), keep=False, sinked=True)
                    flying += 1
                queue.append(step)

        with SessionPool(self.opt.retrace, jobs, self.timeline) as pool:
            fill(pool, pool.window)
            while queue:
                step = queue.popleft()
                if isinstance(step, _ToTrace):
                    flying -= 1
                # the files after this one are already with the workers while it is waited for:
                # the fill after each step keeps `window` of them in flight
                self._do(step, on_disk, pool)
                fill(pool, pool.window)

    # ------------------------------------------------------------------ one session file
    def _do(self, step: _Todo, on_disk: dict[str, Stat], pool: SessionPool | None) -> None:
        self.lease.renew()  # every unit, written or not: a sweep whose lock was taken over stops
        if isinstance(step, _ToTrace):
            self._trace(step.unit, step.main, on_disk, pool, step.pending)
        elif step is not None:
            assert step.failure is not None
            try:
                self._record_failure(step.path, step.failure, on_disk.get(step.path))
            except OSError as e:  # its fingerprint could not be taken either
                self._fault(step.path, "file", _file_reason(e, step.path))

    def _check(self, unit: Unit, known: dict[str, FileState], on_disk: dict[str, Stat]) -> _Todo:
        """Count one session file and say what is left to do with it: nothing (unchanged,
        vanished, waiting), record its failure (the unit), or trace it. Reads no more than its
        fingerprint, and writes nothing to the store."""
        self.c.seen += 1
        if unit.failure is not None:
            return unit
        if unit.change == "unchanged":
            self.c.unchanged += 1
            return None
        main_stat = on_disk.get(unit.path) or stat_path(unit.path)
        if main_stat is None:
            return None  # vanished since the walk: the next run marks it gone
        try:
            return self._look(unit, known, on_disk, main_stat)
        except OSError as e:  # the file system said no (permission, gone, I/O): this file, not the run
            self._fault(unit.path, "file", _file_reason(e, unit.path))
            return None

    def _look(self, unit: Unit, known: dict[str, FileState], on_disk: dict[str, Stat], main_stat: Stat) -> _Todo:
        change: str = unit.change
        old_main = known.get(unit.path)
        if change == "changed" and old_main is not None and old_main.status != "source_gone" and \
                (old_main.dev, old_main.ino, old_main.size, old_main.mtime_ns) == \
                (main_stat.dev, main_stat.ino, main_stat.size, main_stat.mtime_ns):
            change = "grown"  # the session file is as it was: one of its other files (a subagent's) grew
        if change == "changed":
            old = known[unit.path]
            change, n = classify(unit.path, main_stat, old.head_sha256, old.size, old.tail_sha256, old.tail_offset,
                                 old.read_to, Stat(old.dev, old.ino, old.size, old.mtime_ns))
            self.c.bytes_read += n
        fp = fingerprint(unit.path, main_stat.size)
        self.c.bytes_read += fp.bytes_read
        why = self._not_settled(unit, main_stat, fp.complete, on_disk)
        if why:
            self.c.waiting += 1
            self.report.waiting.append((unit.path, why))
            return None
        setattr(self.c, change, getattr(self.c, change) + 1)
        return _ToTrace(unit, main_stat)

    def _not_settled(self, unit: Unit, main: Stat, complete: bool, on_disk: dict[str, Stat]) -> str | None:
        age = self.now - main.mtime_ns / 1e9
        if not complete and line_oriented(unit.path) and age < INCOMPLETE_GIVE_UP_S:
            # said with when it will be read anyway: a crashed agent's cut line does not wait forever
            return (f"its last line is incomplete (the agent may be writing it); unchanged, it is traced as it is "
                    f"from {iso(main.mtime_ns / 1e9 + INCOMPLETE_GIVE_UP_S)}")
        if self.opt.ignore_settle:
            return None
        newest = max([main.mtime_ns] + [on_disk[m].mtime_ns for m in unit.members if m in on_disk])
        if self.now - newest / 1e9 < self.opt.settle_seconds:
            return f"modified within the last {self.opt.settle_seconds:g} s (settle window)"
        return None

    def _trace(self, unit: Unit, main: Stat, on_disk: dict[str, Stat], pool: SessionPool | None = None,
               pending: Pending | None = None) -> None:
        from ..run import Meter, retrace_one
        from ..store.sink import StoreSink

        assert self.report.run_id is not None
        if self.opt.progress is not None:
            self.opt.progress(SweepProgress(self.files_done, self.files_total, self.bytes_done, self.bytes_total,
                                            unit.path))
        size = main.size + sum(on_disk[m].size for m in unit.members if m in on_disk)
        self.files_done += 1
        self.bytes_done += size
        sink = StoreSink(self.store, now=self.now_iso, unit_path=unit.path, run_id=self.report.run_id)
        try:
            with self.store.transaction():
                if pool is not None and pending is not None:  # read → assembled in a worker; stored here
                    outcomes = pool.finish(pending, sink, Meter(None))
                else:
                    outcomes = retrace_one(Path(unit.path), self.opt.retrace, sink=sink, keep=False,
                                           source=_source(unit), timeline=self.timeline)
                self.hold.maybe("traced")
                failed = [o for o in outcomes if o.status == "failed"]
                for o in failed:
                    if isinstance(o.error, StoreError):
                        raise o.error  # the store, not the file: the run stops (and this is rolled back)
                for o in failed:  # gone or unreadable (it, or a part of it): a fault, not its content's
                    for p in {unit.path, o.path}:
                        if p == unit.path or self._under_roots(p):
                            _still_readable(p)
                # a part not read (evidence.PART_UNREADABLE_WARNINGS): its draft is kept, the session read again
                parts = [f"{w.file}: {w.message}" for o in outcomes for w in o.warnings if w.code in PART_UNREADABLE]
                status = "failed" if failed or parts else ("ok" if any(o.status == "written" for o in outcomes)
                                                           else "skipped")
                members = sorted(m for m in sink.files_read | set(unit.members)
                                 if m != unit.path and self._under_roots(m))
                states = [self._state(unit.path, unit.path, main, status,
                                      "; ".join([*(o.message for o in failed), *parts]) or None, unit.source_kind)]
                for m in members:
                    st = on_disk.get(m) or stat_path(m)
                    if st is not None:
                        states.append(self._state(m, unit.path, st, "member", None, unit.source_kind))
                self.store.put_file_states(states)
                for path, message in [*((o.path, o.message) for o in failed), *((unit.path, p) for p in parts)]:
                    err = ErrorRow(self.report.run_id, path, message, self.now_iso)
                    self.store.add_error(err)
                    self.report.failures.append(err)
        except OSError as e:  # rolled back: nothing of this file is stored, and the next run tries it again
            self.report.failures = [f for f in self.report.failures if f.path != unit.path]
            self._fault(unit.path, "file", _file_reason(e, unit.path))
            return
        self.hold.maybe("committed")
        self.c.bytes_read += main.size + sum(on_disk[m].size for m in members if m in on_disk)
        self.c.traces_written += sink.written
        for tid in sink.already:
            row = self.store.trace(tid)
            self.report.already_stored.append((unit.path, tid, row.unit_path if row is not None else "?"))
        for tid, fuller in sink.behind:
            row = self.store.trace(fuller)
            self.report.behind.append((unit.path, tid, fuller, row.unit_path if row is not None else "?"))
        if status == "skipped":
            self.c.skipped += 1
            self.report.no_work.append((unit.path, next((o.message for o in outcomes if o.message),
                                                        "the log holds no work")))
        elif status == "ok":
            self.c.traced += 1

    def _state(self, path: str, unit_path: str, st: Stat, status: str, error: str | None,
               kind: str | None) -> FileState:
        fp = fingerprint(path, st.size) if not path.endswith(".zst") else None
        if fp is not None:
            self.c.bytes_read += fp.bytes_read
        return FileState(path, unit_path, kind, st.dev, st.ino, st.size, st.mtime_ns,
                         fp.head_sha256 if fp else "", fp.tail_sha256 if fp else None,
                         fp.tail_offset if fp else 0, fp.read_to if fp else st.size,
                         status, error, self.now_iso, self.report.run_id)  # type: ignore[arg-type]

    def _record_failure(self, path: str, message: str, st: Stat | None) -> None:
        assert self.report.run_id is not None
        err = ErrorRow(self.report.run_id, path, message, self.now_iso)
        with self.store.transaction():
            if st is not None:
                self.store.put_file_states([self._state(path, path, st, "failed", message, None)])
            self.store.add_error(err)
        self.report.failures.append(err)

    def _under_roots(self, path: str) -> bool:
        return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in self.roots)

    # ------------------------------------------------------------------ gone, ignored, cleanup
    def _mark_gone(self, plan: Plan, known: dict[str, FileState]) -> None:
        gone = [known[p] for p in plan.gone]
        if not gone:
            return
        self.c.gone += sum(1 for s in gone if s.path == s.unit_path)
        self.store.put_file_states([FileState(**{**vars(s), "status": "source_gone", "updated_at": self.now_iso,
                                                 "run_id": self.report.run_id}) for s in gone])

    def _remember_ignored(self, plan: Plan, on_disk: dict[str, Stat]) -> None:
        """Files under the roots that no session claims are remembered too, so the next run
        does not search them again (they are looked at again only when they change)."""
        now = self.store.file_states(self.roots)
        rows = []
        for p in sorted(plan.unclaimed):
            if p in on_disk and (p not in now or now[p].status == "ignored"):
                try:
                    rows.append(self._state(p, "", on_disk[p], "ignored", self.left_out.get(p), None))
                except OSError as e:  # not readable: nobody can tell whether it is a session
                    self._fault(p, "file", _file_reason(e, p))
        if rows:
            self.store.put_file_states(rows)

    def _cleanup_warning(self, plan: Plan, on_disk: dict[str, Stat]) -> None:
        from ..config import claude_home
        from ._cleanup import cleanup_warnings

        home = self.opt.claude_home or claude_home()
        states = self.store.file_states(self.roots)
        sessions = [(u.path, on_disk[u.path].mtime_ns, states.get(u.path)) for u in plan.units if u.path in on_disk]
        self.report.warnings += cleanup_warnings(home, sessions, self.now, CLEANUP_WARN_DAYS)


def _file_reason(e: OSError, path: str) -> str:
    what = f" ({e.filename})" if isinstance(e.filename, str) and e.filename != path else ""  # a member's, say
    if isinstance(e, FileNotFoundError):
        return "vanished during the sweep" + what
    return f"cannot read: {why(e)}" + what


def _still_readable(path: str) -> None:
    """Raise the OSError that opening `path` meets now, if any."""
    with open(path, "rb") as f:
        f.read(1)


@dataclass
class _ToTrace:
    """A session file to trace: its unit, its stat, and its work in the pool (when parallel)."""

    unit: Unit
    main: Stat
    pending: Pending | None = None


_Todo = _ToTrace | Unit | None  # trace it; record the unit's failure; nothing more to do


__all__ = ["SweepOptions", "SweepProgress", "SweepReport", "iso", "sweep"]
