"""The `Store` protocol every backend implements, and `open_store`, which picks the backend
a store URL names (SQLite by default, PostgreSQL for a libpq URL)."""


from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from ..errors import InputError
from .models import (
    AuditRow,
    DraftState,
    DraftStatus,
    ErrorRow,
    FaultRow,
    FileState,
    LockInfo,
    NewTrace,
    ProposalRow,
    ReviewChange,
    RunCounts,
    RunRow,
    StoredFile,
    TraceQuery,
    TraceRow,
)


class Store(Protocol):
    url: str

    def close(self) -> None: ...

    def transaction(self) -> AbstractContextManager[None]:
        """Everything inside commits together or not at all (nested: joins the outer one)."""
        ...

    # --- one sweep at a time
    def acquire_lock(self, me: LockInfo, alive: Callable[[LockInfo], bool]) -> LockInfo | None:
        """Take the sweep lock; the holder when another live process has it (None = taken).
        A lock whose holder is not `alive` is taken over."""
        ...

    def renew_lock(self, me: LockInfo) -> bool:
        """Say the sweep holding the lock is still at work; False when `me` no longer holds it."""
        ...

    def release_lock(self, pid: int) -> None: ...

    def lock_holder(self) -> LockInfo | None: ...

    # --- runs and their errors
    def start_run(self, started_at: str, pid: int, roots: list[str]) -> int: ...

    def finish_run(self, run_id: int, finished_at: str, counts: RunCounts, duration_s: float) -> None: ...

    def fail_run(self, run_id: int, finished_at: str, counts: RunCounts, duration_s: float, failure: str) -> None:
        """Mark a run stopped by the environment (the store could not be written) as failed, saying why."""
        ...

    def interrupt_running(self) -> int:
        """Mark runs left `running` by a process that died as `interrupted`; how many."""
        ...

    def runs(self, limit: int = 10) -> list[RunRow]: ...

    def add_error(self, error: ErrorRow) -> None: ...

    def errors(self, run_id: int) -> list[ErrorRow]: ...

    # --- what each source file was when last swept
    def file_states(self, under: list[str]) -> dict[str, FileState]:
        """Every remembered file at or under these paths, by path."""
        ...

    def put_file_states(self, states: list[FileState]) -> None: ...

    def failures(self) -> list[FileState]: ...

    # --- what a sweep could not look at (migration 0006_sweep_faults)
    def record_faults(self, run_id: int, at: str, under: list[str],
                      faults: list[tuple[str, str, str]]) -> list[FaultRow]:
        """Replace the faults remembered under `under` by this run's (path, what, reason): one met
        again keeps its first time and counts one more run, one not met again is forgotten. The
        faults under `under` after it."""
        ...

    def faults(self) -> list[FaultRow]: ...

    def file_counts(self) -> dict[str, int]:
        """How many remembered files are in each status."""
        ...

    def left_out(self) -> list[FileState]:
        """Ignored files a limit of the search left out (their `last_error` says which)."""
        ...

    def gone(self, limit: int = 20) -> list[FileState]:
        """Session files gone from disk (`source_gone`; their traces stay), the latest first."""
        ...

    # --- traces and their drafts
    def add_trace(self, trace: NewTrace, now: str) -> bool:
        """Store a trace as a pending draft; False (and nothing written) when a trace of
        that id is already stored."""
        ...

    def latest_trace_id(self, unit_path: str, session_id: str) -> str | None:
        """The newest draft a sweep stored of the session `session_id` read from `unit_path` (on
        PostgreSQL, this sweeper's file): never the trace an approval made."""
        ...

    def prior_draft_id(self, trace: NewTrace) -> str | None:
        """The draft a sweep's new draft `trace` replaces (its `prior_trace_id`): the newest draft of
        the same session, whichever sweeper made it; never `trace` itself, nor the trace an approval
        made (it replaces nothing: the draft it came from stays in the lineage).

        The same session is
        - of this sweeper (the only one of a SQLite store): its drafts of the same session file,
          `unit_path` and `session_id` (as the store keys sessions). On one machine the file is the
          session, rewritten or without step times; two files are two sessions, even of one id (a
          copy a person edited, a fork).
        - of another sweeper (PostgreSQL): its drafts of the same `source_kind`, `session_id` and
          `started_at` (the log's first step time, which growth keeps), at any path. Not the path:
          one folder is mounted at other paths on other machines, and two machines have other
          sessions at the same path. Not the id alone: many ids are a file's or folder's name or a
          counter, not unique across machines (Claude Code's sessionId is; Goose's `20250101_1` is
          not); two logs of one id that started at the same instant are copies of one session. A
          draft with more steps than `trace` is not replaced by it: a copy lagging behind (a folder
          still syncing) must not hide the fuller draft from the queue (both stay listed).

        Of these, the newest: on PostgreSQL one no later draft replaces (the queue's head), then one
        of the same path, then the one stored last (sweepers' clocks need not agree); on SQLite, as
        `latest_trace_id` (one sweeper's runs take turns). Called in the transaction that adds the
        draft, it holds off another sweeper's lookup for the same session until that commits."""
        ...

    def copies(self, trace: NewTrace, fuller: bool) -> list[str]:
        """The stored drafts (a sweep's, never an approval's trace) of the session `trace` is of,
        read from another file (another path; on PostgreSQL, or another machine: the same source,
        session id and first step time), holding more steps than `trace` (`fuller`) or fewer: at
        most three, the fullest first. Copies of one session lagging behind one another (a folder
        still syncing, a backup): `store.sink.add_draft` compares their steps."""
        ...

    def trace(self, trace_id: str) -> TraceRow | None: ...

    def trace_files(self, trace_id: str) -> list[StoredFile]: ...

    def traces(self, query: TraceQuery) -> list[TraceRow]: ...

    def count_traces(self, query: TraceQuery) -> int:
        """How many traces `query` selects on all its pages (its limit and offset aside)."""
        ...

    def set_draft_status(self, trace_id: str, status: DraftStatus, actor: str, now: str, note: str = "") -> None:
        """Change a draft's review status, with an audit record."""
        ...

    # --- the review queue (forsy review; migration 0004_review)
    def draft_state(self, trace_id: str) -> DraftState | None:
        """The review state of a stored trace (None: no such trace)."""
        ...

    def proposals(self, trace_id: str) -> list[ProposalRow]:
        """The proposals made on a draft, oldest first (append-only: the last for a path wins)."""
        ...

    def audit(self, trace_id: str | None = None, limit: int = 1000) -> list[AuditRow]:
        """Audit records, oldest first: of one trace (its draft's records and those naming it),
        or all of them."""
        ...

    def record_review(self, change: ReviewChange) -> DraftState:
        """Apply one review action atomically (see `ReviewChange`); the draft's new state.
        Raises `ReviewConflict` when the draft is no longer at `change.expected_version`."""
        ...

    def import_review(self, trace_id: str, state: DraftState, proposals: list[ProposalRow], audit: list[AuditRow],
                      note: str, now: str) -> bool:
        """Give a draft with no review history of its own (version 0, pending, no proposals, no
        audit record but its `draft_created`) another store's: `state`'s status, version,
        updated_at, reviewed_as, review_of and validation_level; `proposals` in order and `audit`
        (not a `draft_created`) with their own times, actors and hashes; and one `review_copied`
        audit record holding `note` (where it came from) — in one transaction. False, and nothing
        written, when the draft has a history of its own: two histories are never merged. (A
        status set by an older `forsy store copy`, which copied the status alone, is not one.)"""
        ...


def open_store(url: str | None = None, *, create: bool = True, readonly: bool = False) -> Store:
    """The store at `url` (`sqlite:///abs/path.db`, `sqlite:rel.db`, a plain path, or a libpq
    URL `postgresql://user@/db?host=SOCKET_DIR&port=N`); the default store (`FORSY_STORE`,
    else the platform data folder) when None. `create=False` (commands that do not make a
    store): a SQLite store that is not there is an InputError, never an empty database made at
    a typo; and one this user cannot write (a backup, a mounted copy) is opened read-only, so
    it can be read, and a write to it is a StoreError. `readonly` (commands that only read):
    a SQLite store is always opened read-only (`mode=ro`)."""
    from ..config import default_store_url
    from ..errors import StoreError
    from ..urls import shown_url

    url = url or default_store_url()
    if url.startswith(("postgresql:", "postgres:")):  # a libpq URL: postgresql://user@/db?host=/socket/dir
        from ._postgres import PostgresStore

        return PostgresStore(url)
    if url.startswith("sqlite:"):
        rest = url[len("sqlite:"):]
        path = rest[2:] if rest.startswith("//") else rest  # sqlite:///abs → /abs; sqlite:rel → rel
        if path.startswith("//"):  # sqlite:////abs (SQLAlchemy's spelling, and the default store's) → /abs
            path = "/" + path.lstrip("/")
    elif "://" in url:
        raise InputError(f"unknown store URL {shown_url(url)!r}; use sqlite:///path/to.db or postgresql://…")
    else:
        path = url
    if not path:
        raise InputError(f"no database path in the store URL {url!r}")
    if path.endswith(("/", "\\")) or Path(path).expanduser().is_dir():  # `--store ./data/` would make a file `data`
        raise InputError(f"{url!r} names a folder; give the database file (e.g. {path.rstrip('/')}/forsy.db)")
    from ._sqlite import SqliteStore

    where = Path(path).expanduser()
    if (readonly or not create) and not where.exists():
        raise InputError(f"no store at {path}: `forsy sweep` (or `forsy store migrate`) makes one")
    if readonly:
        from ._sqlite import OutdatedStore

        try:
            return SqliteStore(where, url=url, readonly=True)
        except OutdatedStore as e:  # made by an older forsy: brought up to date once, if it can be written
            try:
                return SqliteStore(where, url=url)
            except StoreError:
                raise e from None
    try:
        return SqliteStore(where, url=url)
    except StoreError as e:
        if create:
            raise
        first = e
    try:  # not writable by this user: readable at least
        return SqliteStore(where, url=url, readonly=True)
    except StoreError:
        raise first from None


_FIRST_RECORDS = 50  # a draft's `draft_created` is its first audit record: looked for among the first ones


def swept_on(store: Store, trace_id: str) -> str | None:
    """The sweeper (host) that stored draft `trace_id`, as its `draft_created` audit record names
    it; None when the record names none (a SQLite store's: one machine's store)."""
    import json

    for a in store.audit(trace_id, limit=_FIRST_RECORDS):
        if a.action == "draft_created" and a.trace_id == trace_id:
            try:
                host = json.loads(a.detail_json or "{}").get("host")
            except (ValueError, AttributeError):
                return None
            return host if isinstance(host, str) and host else None
    return None


def every_trace(store: Store, query: TraceQuery) -> list[TraceRow]:
    """Every row `query` selects, whatever its `limit` (a page size): asked for one more than the
    store counts, and again with twice as many while the answer comes back full (traces stored
    meanwhile), so none is left out without a word."""
    limit = store.count_traces(query) + 1
    while True:
        rows = store.traces(replace(query, limit=limit, offset=0))
        if len(rows) < limit:
            return rows
        limit *= 2


def every_audit(store: Store, trace_id: str | None = None) -> list[AuditRow]:
    """Every audit record (of one trace, or all): asked again with twice the limit while the
    answer comes back full."""
    limit = 1000
    while True:
        rows = store.audit(trace_id, limit=limit)
        if len(rows) < limit:
            return rows
        limit *= 2

