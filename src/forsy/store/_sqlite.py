"""The store in one SQLite file (stdlib sqlite3).

WAL journal (readers never block the sweep, a kill -9 loses at most the open transaction,
never a half-written row), foreign keys on, a busy timeout so two processes wait for each
other briefly instead of failing. Transactions are explicit (`isolation_level=None`): the
sweep commits one session file's traces and its bookkeeping together.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import zstandard

from ..errors import InputError, StoreError
from ..schema_migrations import Migration, applied_sqlite, migrate_sqlite, missing
from ._query import (
    AUDIT_SELECT,
    COPIES,
    COUNTS,
    DRAFT_COLS,
    FILE_COLS,
    PROPOSAL_COLS,
    RUN_SELECT,
    TRACE_COLS,
    audit_of,
    check_status,
    check_version,
    history_row,
    history_sql,
    import_writes,
    order_sql,
    path_range,
    run_row,
    stored_files,
    trace_filters,
    trace_row,
    trace_select,
)
from ._sqlite_env import _environment, _wal
from .migrations import CORE, SQLITE_DIALECT
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
from .names import below, coded_trace, from_db, to_db, uncoded_row, with_failure

EPOCH_SQL = SQLITE_DIALECT["epoch"]  # the database's clock, in seconds since the epoch

# SQLite-only parts of the schema: full-text search over prompts and tool inputs.
SQLITE_ONLY: list[Migration] = [
    ("0002_sqlite_fts5", """
CREATE VIRTUAL TABLE trace_text USING fts5(trace_id UNINDEXED, what UNINDEXED, text, tokenize = 'unicode61');
"""),
]
MIGRATIONS: list[Migration] = [*CORE, *SQLITE_ONLY]


class OutdatedStore(StoreError):
    """A store opened read-only that lacks migrations this forsy applies."""


class _Cursor:
    """A cursor whose reads raise StoreError for a fault of the environment (a damaged page
    is met while stepping through rows, not only when the statement starts)."""

    def __init__(self, cur: sqlite3.Cursor, path: Path) -> None:
        self._cur = cur
        self._path = path

    @property
    def lastrowid(self) -> int | None:
        return self._cur.lastrowid

    @property
    def rowcount(self) -> int:
        return self._cur.rowcount

    def fetchone(self) -> Any:
        try:
            return self._cur.fetchone()
        except sqlite3.Error as e:
            raise _environment(e, self._path) or e from None

    def fetchall(self) -> list[Any]:
        try:
            return self._cur.fetchall()
        except sqlite3.Error as e:
            raise _environment(e, self._path) or e from None

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class _Conn:
    """The connection, with faults of the environment translated (see `_environment`)."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.raw = conn
        self._path = path

    @property
    def in_transaction(self) -> bool:
        return self.raw.in_transaction

    def execute(self, sql: str, args: Sequence[Any] = ()) -> _Cursor:
        try:
            return _Cursor(self.raw.execute(sql, args), self._path)
        except sqlite3.Error as e:
            raise _environment(e, self._path) or e from None

    def executemany(self, sql: str, rows: Any) -> _Cursor:
        try:
            return _Cursor(self.raw.executemany(sql, rows), self._path)
        except sqlite3.Error as e:
            raise _environment(e, self._path) or e from None

    def close(self) -> None:
        self.raw.close()


def _file_state(r: tuple[Any, ...]) -> FileState:
    return FileState(from_db(r[0]), from_db(r[1]), *r[2:])


class SqliteStore:
    def __init__(self, path: Path, *, url: str | None = None, readonly: bool = False) -> None:
        """`readonly`: open the file read-only (a backup, a mounted copy, a store of another
        user): nothing is created or migrated, and a write raises StoreError."""
        self.path = path
        self.url = url or f"sqlite:///{path}"
        self.readonly = readonly
        try:
            if readonly:
                self.db = self._open_readonly(path)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                self.db = _Conn(sqlite3.connect(path, isolation_level=None, timeout=30.0), path)
            # `db` for this module (faults of the environment are StoreErrors); `conn`, the
            # plain connection, for the modules that run their own SQL (the job queue)
            self.conn = self.db.raw
            if not readonly:
                _wal(self.db.raw, path)
            self.db.execute("PRAGMA foreign_keys=ON")
            if not readonly:
                self.db.execute("PRAGMA synchronous=NORMAL")  # with WAL: safe against a killed process
        except OSError as e:
            raise StoreError(f"cannot open the store: {e.strerror or e}", path=path) from None
        except StoreError as e:
            raise StoreError(f"cannot open the store: {e.message}", path=path) from None
        except sqlite3.Error as e:
            raise StoreError(f"cannot open the store: {e}", path=path) from None
        self._depth = 0
        self._zc = zstandard.ZstdCompressor(level=3)
        self._zd = zstandard.ZstdDecompressor()
        try:
            # what this open applied, for `forsy store migrate` to name
            self.applied_on_open: list[str] = [] if readonly else self._migrate()
            if readonly:
                self._check_migrations()
        except BaseException:
            self.db.close()
            raise

    @staticmethod
    def _open_readonly(path: Path) -> _Conn:
        """`mode=ro`; when that cannot open a WAL store (its -shm cannot be made in a read-only
        folder), `immutable=1`: the file is read as it is, without locks (a copy nobody writes)."""
        uri = "file:" + quote(str(path.resolve()))
        conn = _Conn(sqlite3.connect(uri + "?mode=ro", uri=True, isolation_level=None, timeout=30.0), path)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except StoreError:
            conn.close()
        conn = _Conn(sqlite3.connect(uri + "?mode=ro&immutable=1", uri=True, isolation_level=None), path)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------ plumbing
    @contextmanager
    def transaction(self, immediate: bool = False) -> Iterator[None]:
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self.db.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
        self._depth = 1
        try:
            yield
            self._depth = 0
            self.db.execute("COMMIT")
        except BaseException:
            self._depth = 0
            # SQLite may have rolled back already (a full disk, an I/O error): then there is
            # nothing to roll back, and trying would hide the error that stopped it
            if self.db.in_transaction:
                try:
                    self.db.execute("ROLLBACK")
                except (sqlite3.Error, StoreError):
                    pass  # the first error is the one to report
            raise

    def _check_migrations(self) -> set[str]:
        """The migrations applied; refused when one is unknown, or (read-only) when one is missing."""
        try:
            done = applied_sqlite(self.db)
        except sqlite3.OperationalError:
            if not self.readonly:
                raise
            raise InputError("not a forsy store (no schema_migrations table)", path=self.path) from None
        lacking = missing(done, MIGRATIONS, what="the store", where=self.path)
        if self.readonly and lacking:
            raise OutdatedStore(f"the store is read-only and was made by an older forsy (it lacks "
                                f"{', '.join(lacking)}): open it once writable (forsy store migrate) to bring it "
                                "up to date", path=self.path)
        return done

    def _migrate(self) -> list[str]:
        return migrate_sqlite(self.db, MIGRATIONS, what="the store", where=self.path, dialect=SQLITE_DIALECT,
                       transaction=lambda: self.transaction(immediate=True))

    def migrations(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM schema_migrations ORDER BY rowid")]

    # ------------------------------------------------------------------ lock
    def acquire_lock(self, me: LockInfo, alive: Callable[[LockInfo], bool]) -> LockInfo | None:
        # Look first without a write transaction: the running sweep may hold SQLite's write
        # lock (it commits a session at a time), and a second sweep must answer at once
        # rather than wait for it. The check is repeated under the write lock to decide.
        holder = self.lock_holder()
        if holder is not None and holder.pid != me.pid and alive(holder):
            return holder
        with self.transaction(immediate=True):
            holder = self.lock_holder()
            if holder is not None and holder.pid != me.pid and alive(holder):
                return holder
            self.db.execute(
                f"INSERT INTO sweep_lock (id, pid, host, since, proc, renewed) VALUES (1, ?, ?, ?, ?, {EPOCH_SQL}) "
                "ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host, since = excluded.since, "
                "proc = excluded.proc, renewed = excluded.renewed",
                (me.pid, me.host, me.since, me.proc))
        return None

    def renew_lock(self, me: LockInfo) -> bool:
        with self.transaction():
            cur = self.db.execute(f"UPDATE sweep_lock SET renewed = {EPOCH_SQL} "
                                  "WHERE id = 1 AND pid = ? AND host = ? AND proc = ?", (me.pid, me.host, me.proc))
        return cur.rowcount == 1

    def release_lock(self, pid: int) -> None:
        with self.transaction():
            self.db.execute("DELETE FROM sweep_lock WHERE id = 1 AND pid = ?", (pid,))

    def lock_holder(self) -> LockInfo | None:
        row = self.db.execute(f"SELECT pid, host, since, proc, {EPOCH_SQL} - renewed FROM sweep_lock WHERE id = 1"
                              ).fetchone()
        return LockInfo(row[0], row[1], row[2], row[3], row[4]) if row else None

    # ------------------------------------------------------------------ runs
    def start_run(self, started_at: str, pid: int, roots: list[str]) -> int:
        with self.transaction():
            cur = self.db.execute("INSERT INTO runs (started_at, pid, status, roots) VALUES (?, ?, 'running', ?)",
                                    (started_at, pid, json.dumps(roots)))
        assert cur.lastrowid is not None
        return cur.lastrowid

    def finish_run(self, run_id: int, finished_at: str, counts: RunCounts, duration_s: float) -> None:
        sets = ", ".join(f"{c} = ?" for c in COUNTS)
        with self.transaction():
            self.db.execute(f"UPDATE runs SET status = 'done', finished_at = ?, duration_s = ?, {sets} WHERE id = ?",
                              (finished_at, duration_s, *(getattr(counts, c) for c in COUNTS), run_id))

    def fail_run(self, run_id: int, finished_at: str, counts: RunCounts, duration_s: float, failure: str) -> None:
        sets = ", ".join(f"{c} = ?" for c in COUNTS)
        with self.transaction():
            self.db.execute(f"UPDATE runs SET status = 'interrupted', failure = ?, finished_at = ?, duration_s = ?, "
                              f"{sets} WHERE id = ?",
                              (failure, finished_at, duration_s, *(getattr(counts, c) for c in COUNTS), run_id))

    def interrupt_running(self) -> int:
        with self.transaction():
            cur = self.db.execute("UPDATE runs SET status = 'interrupted' WHERE status = 'running'")
        return cur.rowcount

    def runs(self, limit: int = 10) -> list[RunRow]:
        rows = self.db.execute(RUN_SELECT + " ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        failures = dict(self.db.execute(
            "SELECT id, failure FROM runs WHERE failure IS NOT NULL AND id >= ?",
            (rows[-1][0] if rows else 0,)).fetchall())
        return [with_failure(run_row(r), failures.get(r[0])) for r in rows]

    def add_error(self, error: ErrorRow) -> None:
        with self.transaction():
            self.db.execute("INSERT INTO errors (run_id, path, message, at) VALUES (?, ?, ?, ?)",
                              (error.run_id, to_db(error.path), error.message, error.at))

    def errors(self, run_id: int) -> list[ErrorRow]:
        rows = self.db.execute("SELECT run_id, path, message, at FROM errors WHERE run_id = ? ORDER BY id",
                                 (run_id,)).fetchall()
        return [ErrorRow(r[0], from_db(r[1]), r[2], r[3]) for r in rows]

    # ------------------------------------------------------------------ what a sweep could not look at
    def record_faults(self, run_id: int, at: str, under: list[str],
                      faults: list[tuple[str, str, str]]) -> list[FaultRow]:
        """This run's faults under `under` (path, what, reason) replace the ones remembered there:
        one met again keeps its first time and counts one more run; one not met is gone."""
        now = {to_db(p): (w, r) for p, w, r in faults}
        with self.transaction():
            old = {r[0]: r for r in self.db.execute(f"SELECT {_FAULT_COLS} FROM sweep_faults")
                   if any(below(from_db(r[0]), u) for u in under)}
            self.db.executemany("DELETE FROM sweep_faults WHERE host = '' AND path = ?",
                                  [(p,) for p in old if p not in now])
            self.db.executemany(
                "INSERT INTO sweep_faults (host, path, what, reason, first_at, first_run, last_at, last_run, runs) "
                "VALUES ('', ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (host, path) DO UPDATE SET what = excluded.what, "
                "reason = excluded.reason, last_at = excluded.last_at, last_run = excluded.last_run, "
                "runs = excluded.runs",
                [(p, w, r, old[p][3] if p in old else at, old[p][4] if p in old else run_id, at, run_id,
                  old[p][7] + 1 if p in old else 1) for p, (w, r) in sorted(now.items())])
        return [f for f in self.faults() if any(below(f.path, u) for u in under)]

    def faults(self) -> list[FaultRow]:
        rows = self.db.execute(f"SELECT {_FAULT_COLS} FROM sweep_faults WHERE host = '' ORDER BY path").fetchall()
        return [FaultRow(from_db(r[0]), *r[1:]) for r in rows]

    def file_counts(self) -> dict[str, int]:
        """How many remembered files are in each status (ok, failed, source_gone, …)."""
        return dict(self.db.execute("SELECT status, count(*) FROM source_files GROUP BY status").fetchall())

    def gone(self, limit: int = 20) -> list[FileState]:
        cols = ", ".join(FILE_COLS)
        rows = self.db.execute(f"SELECT {cols} FROM source_files WHERE status = 'source_gone' AND path = unit_path "
                               "ORDER BY updated_at DESC, path LIMIT ?", (limit,)).fetchall()
        return [_file_state(r) for r in rows]

    def left_out(self) -> list[FileState]:
        """Files under the roots that a limit of the search left out (ignored, saying why)."""
        cols = ", ".join(FILE_COLS)
        rows = self.db.execute(f"SELECT {cols} FROM source_files WHERE status = 'ignored' "
                                 "AND last_error IS NOT NULL ORDER BY path").fetchall()
        return [_file_state(r) for r in rows]

    # ------------------------------------------------------------------ source files
    def file_states(self, under: list[str]) -> dict[str, FileState]:
        out: dict[str, FileState] = {}
        cols = ", ".join(FILE_COLS)
        for root in under:
            root, lo, hi = path_range(to_db(root))
            rows = self.db.execute(f"SELECT {cols} FROM source_files WHERE path = ? OR (path >= ? AND path < ?)",
                                     (root, lo, hi))
            for r in rows:
                st = _file_state(r)
                out[st.path] = st
        return out

    def put_file_states(self, states: list[FileState]) -> None:
        cols = ", ".join(FILE_COLS)
        marks = ", ".join("?" for _ in FILE_COLS)
        upd = ", ".join(f"{c} = excluded.{c}" for c in FILE_COLS[1:])
        with self.transaction():
            self.db.executemany(
                f"INSERT INTO source_files ({cols}) VALUES ({marks}) ON CONFLICT (path) DO UPDATE SET {upd}",
                [(to_db(s.path), to_db(s.unit_path), *(getattr(s, c) for c in FILE_COLS[2:])) for s in states])

    def failures(self) -> list[FileState]:
        cols = ", ".join(FILE_COLS)
        rows = self.db.execute(f"SELECT {cols} FROM source_files WHERE status = 'failed' ORDER BY path")
        return [_file_state(r) for r in rows]

    # ------------------------------------------------------------------ traces
    def add_trace(self, trace: NewTrace, now: str) -> bool:
        trace = coded_trace(trace)
        with self.transaction():
            if self.db.execute("SELECT 1 FROM traces WHERE trace_id = ?", (trace.trace_id,)).fetchone():
                return False
            self.db.execute(
                "INSERT INTO sessions (source_kind, session_id, unit_path, agent, project, first_seen) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (unit_path, session_id) DO NOTHING",
                (trace.source_kind, trace.session_id, trace.unit_path, trace.agent, trace.project, now))
            ref = self.db.execute("SELECT id FROM sessions WHERE unit_path = ? AND session_id = ?",
                                    (trace.unit_path, trace.session_id)).fetchone()[0]
            self.db.execute(
                f"INSERT INTO traces ({TRACE_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (trace.trace_id, ref, trace.prior_trace_id, trace.agent, trace.project, trace.started_at,
                 trace.ended_at, trace.confidence, trace.steps, trace.turns, trace.task, now, trace.run_id,
                 trace.model_values))
            self.db.executemany(
                "INSERT INTO trace_files (trace_id, name, data, size, sha256) VALUES (?, ?, ?, ?, ?)",
                [(trace.trace_id, f.name, self._zc.compress(f.data), len(f.data), hashlib.sha256(f.data).hexdigest())
                 for f in trace.files])
            cur = self.db.execute("INSERT INTO drafts (trace_id, status, created_at, updated_at) "
                                    "VALUES (?, 'pending', ?, ?)", (trace.trace_id, now, now))
            self.db.executemany("INSERT INTO trace_text (trace_id, what, text) VALUES (?, ?, ?)",
                                  [(trace.trace_id, what, text) for what, text in trace.texts if text])
            self.db.execute("INSERT INTO audit (at, actor, action, draft_id, detail_json) VALUES (?, ?, ?, ?, ?)",
                              (now, "forsy", "draft_created", cur.lastrowid,
                               json.dumps({"trace_id": trace.trace_id, "prior_trace_id": trace.prior_trace_id})))
        return True

    def latest_trace_id(self, unit_path: str, session_id: str) -> str | None:
        row = self.db.execute(
            "SELECT t.trace_id FROM traces t JOIN sessions s ON s.id = t.session_ref JOIN drafts d ON d.trace_id = "
            "t.trace_id WHERE s.unit_path = ? AND s.session_id = ? AND d.review_of IS NULL "
            "ORDER BY t.created_at DESC, t.rowid DESC LIMIT 1", (to_db(unit_path), to_db(session_id))).fetchone()
        return row[0] if row else None

    def prior_draft_id(self, trace: NewTrace) -> str | None:  # one sweeper: its session file is the session
        return None if (p := self.latest_trace_id(trace.unit_path, trace.session_id)) == trace.trace_id else p

    def copies(self, trace: NewTrace, fuller: bool) -> list[str]:
        t, sql = coded_trace(trace), COPIES.format(m="?", cmp=">" if fuller else "<", other="s.unit_path <> ?")
        return [r[0] for r in self.db.execute(sql, (t.source_kind, t.session_id, t.started_at, t.steps,
                                                    t.unit_path)).fetchall()]

    _SELECT = trace_select("0", "f.path = s.unit_path")

    def trace(self, trace_id: str) -> TraceRow | None:
        r = self.db.execute(self._SELECT + " WHERE t.trace_id = ?", (trace_id,)).fetchone()
        if r is None:
            return None
        sha = dict(self.db.execute("SELECT name, sha256 FROM trace_files WHERE trace_id = ? ORDER BY name",
                                     (trace_id,)).fetchall())
        return uncoded_row(trace_row(r, sha))

    def trace_files(self, trace_id: str) -> list[StoredFile]:
        rows = self.db.execute("SELECT name, data, sha256 FROM trace_files WHERE trace_id = ? ORDER BY name",
                                 (trace_id,)).fetchall()
        return stored_files(rows, self._zd, trace_id, self.path)

    def _where(self, query: TraceQuery) -> tuple[str, list[Any]]:
        where, args = trace_filters(query, "?")
        if query.text:
            where.append("t.trace_id IN (SELECT trace_id FROM trace_text WHERE trace_text MATCH ?)")
            args.append(_fts_query(query.text))
        return (" WHERE " + " AND ".join(where) if where else ""), args

    def traces(self, query: TraceQuery) -> list[TraceRow]:
        where, args = self._where(query)
        sql = self._SELECT + where + order_sql(query) + " LIMIT ? OFFSET ?"
        try:
            rows = self.db.execute(sql, (*args, query.limit, query.offset)).fetchall()
        except sqlite3.OperationalError as e:
            raise InputError(f"cannot run this search: {e}") from None
        return [uncoded_row(trace_row(r)) for r in rows]

    def count_traces(self, query: TraceQuery) -> int:
        where, args = self._where(query)
        sql = ("SELECT COUNT(*) FROM traces t JOIN drafts d ON d.trace_id = t.trace_id "
               "JOIN sessions s ON s.id = t.session_ref" + where)
        try:
            return int(self.db.execute(sql, args).fetchone()[0])
        except sqlite3.OperationalError as e:
            raise InputError(f"cannot run this search: {e}") from None

    def set_draft_status(self, trace_id: str, status: DraftStatus, actor: str, now: str, note: str = "") -> None:
        check_status(status)
        with self.transaction():
            row = self.db.execute("SELECT id, status FROM drafts WHERE trace_id = ?", (trace_id,)).fetchone()
            if row is None:
                raise InputError(f"no draft of trace {trace_id} in the store")
            self.db.execute("UPDATE drafts SET status = ?, updated_at = ? WHERE id = ?", (status, now, row[0]))
            self.db.execute("INSERT INTO audit (at, actor, action, draft_id, detail_json) VALUES (?, ?, ?, ?, ?)",
                              (now, actor, "status", row[0], json.dumps({"from": row[1], "to": status, "note": note})))

    # ------------------------------------------------------------------ review
    def draft_state(self, trace_id: str) -> DraftState | None:
        r = self.db.execute(f"SELECT {DRAFT_COLS} FROM drafts WHERE trace_id = ?", (trace_id,)).fetchone()
        return DraftState(*r) if r else None

    def proposals(self, trace_id: str) -> list[ProposalRow]:
        rows = self.db.execute(f"SELECT {PROPOSAL_COLS} FROM proposals WHERE trace_id = ? ORDER BY id",
                                 (trace_id,)).fetchall()
        return [ProposalRow(*r) for r in rows]

    def audit(self, trace_id: str | None = None, limit: int = 1000) -> list[AuditRow]:
        sql = AUDIT_SELECT
        args: tuple[Any, ...] = ()
        if trace_id is not None:
            sql += audit_of("?")
            args = (trace_id, trace_id)
        rows = self.db.execute(sql + " ORDER BY a.id LIMIT ?", (*args, limit)).fetchall()
        return [AuditRow(*r) for r in rows]

    def record_review(self, change: ReviewChange) -> DraftState:
        # BEGIN IMMEDIATE: the version is read and bumped under the write lock, so of two
        # reviewers acting on the same version exactly one wins and the other gets a conflict.
        with self.transaction(immediate=True):
            row = self.db.execute("SELECT id, version FROM drafts WHERE trace_id = ?", (change.trace_id,)).fetchone()
            if row is None:
                raise InputError(f"no draft of trace {change.trace_id} in the store")
            draft_id, version = row
            check_version(change, version)
            p = change.proposal
            if p is not None:
                self.db.execute(
                    "INSERT INTO proposals (draft_id, trace_id, path, value_json, origin, actor, created_at, "
                    "citations_json, replaced_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (draft_id, change.trace_id, p.path, p.value_json, p.origin, p.actor, change.at,
                     p.citations_json, p.replaced_json))
            reviewed_as = None
            if change.reviewed is not None:
                reviewed_as = change.reviewed.trace_id
                self.add_trace(change.reviewed, change.at)
                self.db.execute(
                    "UPDATE drafts SET status = 'approved', review_of = ?, validation_level = ?, updated_at = ? "
                    "WHERE trace_id = ?", (change.trace_id, change.validation_level, change.at, reviewed_as))
            self.db.execute(
                "UPDATE drafts SET status = COALESCE(?, status), version = version + 1, updated_at = ?, "
                "reviewed_as = COALESCE(?, reviewed_as) WHERE id = ?",
                (change.status, change.at, reviewed_as, draft_id))
            self.db.execute(
                "INSERT INTO audit (at, actor, action, draft_id, detail_json, trace_id, before_sha256, after_sha256) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (change.at, change.actor, change.action, draft_id, change.detail_json, change.trace_id,
                 change.before_sha256, change.after_sha256))
        state = self.draft_state(change.trace_id)
        assert state is not None
        return state

    def import_review(self, trace_id: str, state: DraftState, proposals: list[ProposalRow], audit: list[AuditRow],
                      note: str, now: str) -> bool:
        # under the write lock: a reviewer acting on the draft meanwhile either comes first (and
        # the draft then has a history of its own: nothing is written) or after the copy
        with self.transaction(immediate=True):
            row = self.db.execute(history_sql("?"), (trace_id,)).fetchone()
            if row is None:
                raise InputError(f"no draft of trace {trace_id} in the store")
            draft_id, own = history_row(row, trace_id)
            if own:
                return False
            for sql, rows in import_writes("?", draft_id, trace_id, state, proposals, audit, note, now):
                self.db.executemany(sql, rows)
        return True


_FAULT_COLS = "path, what, reason, first_at, first_run, last_at, last_run, runs"


def _fts_query(text: str) -> str:
    """Every word of `text` must occur (each quoted, so FTS5 syntax characters are literal)."""
    words = text.split()
    return " AND ".join('"' + w.replace('"', '""') + '"' for w in words) or '""'
