"""The store in a PostgreSQL database (psycopg 3), shared by many sweepers and reviewers.

`postgresql://user@/db?host=/run/postgresql&port=5432` (any libpq URL or key=value string).
The connection is in autocommit mode and `transaction()` opens one explicit transaction
(nested: joins it), like the SQLite backend. Differences from SQLite that callers can see:

- Each sweeper has a name (`FORSY_HOST`, else the machine's host name): what it remembers of
  its files (`source_files`), its sessions and its sweep lock are keyed by that name too, so
  two machines with the same paths (CI runners, containers) never see each other's files as
  gone, and sweep at the same time. Runs record the name. A new draft still replaces the
  previous draft of the same session whichever sweeper made it (`prior_draft_id`), and the
  trace an approval makes is kept in its draft's session, never in one of the reviewer's name.
- Full-text search is a tsvector over the same words SQLite's unicode61 tokenizer makes.
- Concurrent writers: a trace added by two sweepers at once is stored once (the second
  `add_trace` returns False); the job queue is `SELECT … FOR UPDATE SKIP LOCKED` (`jobs`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import zstandard

from ..errors import InputError, StoreError, StoreUnreachable
from ..schema_migrations import Migration, missing
from ..urls import shown_url
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
from .migrations import POSTGRESQL_DIALECT, POSTGRESQL_ONLY, for_backend
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
from .sweeper import sweeper_name

try:
    import psycopg
except ImportError:  # pragma: no cover - the optional extra is not installed
    psycopg = None  # type: ignore[assignment]

MIGRATIONS: list[Migration] = for_backend(POSTGRESQL_ONLY)
# A tsvector holds at most 1 MB: a long text is indexed in pieces of this many characters
# (a phrase across two pieces is not found; every word still is).
TEXT_PIECE = 100_000
# The database's clock, in seconds since the epoch: leases are compared with it, so the
# machines' own clocks need not agree.
EPOCH_SQL = POSTGRESQL_DIALECT["epoch"]
_WORD = re.compile(r"[^\W_]+")  # SQLite unicode61: letters and digits make words, all else separates


def words(text: str) -> str:
    """`text` as the words full-text search indexes, lower-case, one space apart."""
    return " ".join(_WORD.findall(text.lower()))


_FAULT_COLS = "path, what, reason, first_at, first_run, last_at, last_run, runs"


def _file_state(r: tuple[Any, ...]) -> FileState:
    return FileState(from_db(r[0]), from_db(r[1]), *r[2:])


@contextmanager
def _environment() -> Iterator[None]:
    """What the server reports when the environment is at fault — the connection lost (a
    StoreUnreachable: the same work succeeds once the server is back), a full disk, damaged
    data, a read-only server — becomes a StoreError (exit 8); the transaction it happened in
    is rolled back by the server."""
    try:
        yield
    except StoreError:
        raise
    except Exception as e:
        if psycopg is not None and _lost(e):  # the server went away: try again once it is back
            raise StoreUnreachable(f"the PostgreSQL store: {' '.join(str(e).split())}") from None
        if psycopg is not None and isinstance(e, (psycopg.OperationalError, psycopg.errors.InsufficientResources,
                                                  psycopg.errors.DataCorrupted, psycopg.errors.IndexCorrupted,
                                                  psycopg.errors.ReadOnlySqlTransaction)):
            raise StoreError(f"the PostgreSQL store: {' '.join(str(e).split())}") from None
        raise


# The server's codes for a connection it ended or refused for now: shutting down (57P01, also
# what a terminated backend gets), crashed (57P02), starting up or in recovery (57P03).
_GONE = ("57P01", "57P02", "57P03")


def _lost(e: BaseException) -> bool:
    """Whether `e` says the connection to the server was lost or refused for now, rather than
    that a statement failed: an OperationalError with no code of the server's (libpq's own:
    "server closed the connection unexpectedly"), of class 08 (connection exception), or one
    of _GONE."""
    if not isinstance(e, psycopg.OperationalError):
        return False
    code = e.sqlstate
    return code is None or code.startswith("08") or code in _GONE


# libpq's refusal of a setting of the URL, before it tries any server: 'invalid integer value
# "x" for connection option "port"', 'invalid port number: "x"', 'invalid sslmode value: "x"'.
# (In a locale whose messages libpq translates, such a URL is reported as unreachable instead,
# with libpq's words: still exit 8, never mistaken the other way round.)
_BAD_SETTING = re.compile(r"\binvalid\b.*\b(?:value|port number)\b")


def _connect_error(e: Exception, url: str) -> InputError | StoreUnreachable:
    """Why connecting to the store at `url` (as shown) failed, as forsy reports it. A URL that
    libpq cannot read, or whose settings it refuses, is the user's input (exit 2). Anything
    else is a store that cannot be reached for now (exit 8): no server on that socket or host
    (stopped, restarting), a host name that does not resolve, or a server that turned the
    connection away (starting up, too many clients, no such database or role: libpq reports
    them all as one failure, without the server's code)."""
    said = shown_url(" ".join(str(e).split()))  # one line: libpq puts its hint on a line of its own
    if isinstance(e, psycopg.OperationalError) and not _BAD_SETTING.search(said):
        return StoreUnreachable(f"cannot connect to the PostgreSQL store {url}: {said}")
    return InputError(f"cannot connect to the PostgreSQL store {url}: {said}")


class PostgresStore:
    dialect = "postgresql"

    def __init__(self, url: str, *, migrate: bool = True) -> None:
        if psycopg is None:
            raise InputError("PostgreSQL stores need psycopg: pip install 'forsy[postgres]'")
        self.url = shown_url(url)  # as printed and reported: never with its password
        self.host = sweeper_name()
        try:
            self.conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as e:  # a URL that leads nowhere (exit 2), or a server not there now (exit 8)
            raise _connect_error(e, self.url) from None
        self._depth = 0
        self._zc = zstandard.ZstdCompressor(level=3)
        self._zd = zstandard.ZstdDecompressor()
        self.applied_on_open: list[str] = []  # what this open applied, for `forsy store migrate` to name
        try:
            self._check_or_migrate(migrate)
        except BaseException:
            self.conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    # ------------------------------------------------------------------ plumbing
    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._depth = 1
        try:
            with _environment(), self.conn.transaction():
                yield
        finally:
            self._depth = 0

    def _q(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with _environment():
            return self.conn.execute(sql, args).fetchall()

    def _x(self, sql: str, args: Sequence[object] = ()) -> int:
        with _environment():
            return self.conn.execute(sql, args).rowcount

    def _check_or_migrate(self, migrate: bool) -> None:
        if self._q("SELECT to_regclass('schema_migrations')")[0][0] is None:  # a read-only server can be read
            self._x("CREATE TABLE IF NOT EXISTS schema_migrations "
                    "(seq BIGINT GENERATED ALWAYS AS IDENTITY, name TEXT PRIMARY KEY, applied_at TEXT)")
        if not missing(set(self.migrations()), MIGRATIONS, what="the store"):
            return
        if not migrate:
            raise InputError("the store's schema is not up to date: run `forsy store migrate --store URL`")
        self.applied_on_open = self.migrate()

    def migrate(self) -> list[str]:
        """Apply the migrations not applied yet (several processes at once: one does, the
        others wait for it and find them applied); their names."""
        applied: list[str] = []
        with self.transaction():
            self.conn.execute("SELECT pg_advisory_xact_lock(hashtext('forsy.migrate'))")
            done = set(self.migrations())
            for name, sql in MIGRATIONS:
                if name in done:
                    continue
                self.conn.execute(sql.format(**POSTGRESQL_DIALECT))
                self.conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (%s, now()::text)",
                                  (name,))
                applied.append(name)
        return applied

    def migrations(self) -> list[str]:
        return [r[0] for r in self._q("SELECT name FROM schema_migrations ORDER BY seq")]

    # ------------------------------------------------------------------ lock (one per sweeper)
    def acquire_lock(self, me: LockInfo, alive: Callable[[LockInfo], bool]) -> LockInfo | None:
        with self.transaction():
            # the row lock makes a second sweep of this name wait for the first's decision
            self._x("INSERT INTO sweep_lock (sweeper, id, pid, host, since) VALUES (%s, 1, 0, '', '') "
                    "ON CONFLICT (sweeper) DO NOTHING", (self.host,))
            self._q("SELECT 1 FROM sweep_lock WHERE sweeper = %s FOR UPDATE", (self.host,))
            holder = self.lock_holder()
            if holder is not None and holder.pid != me.pid and alive(holder):
                return holder
            self._x(f"UPDATE sweep_lock SET pid = %s, host = %s, since = %s, proc = %s, renewed = {EPOCH_SQL} "
                    "WHERE sweeper = %s", (me.pid, me.host, me.since, me.proc, self.host))
        return None

    def renew_lock(self, me: LockInfo) -> bool:
        with self.transaction():
            n = self._x(f"UPDATE sweep_lock SET renewed = {EPOCH_SQL} "
                        "WHERE sweeper = %s AND pid = %s AND host = %s AND proc = %s",
                        (self.host, me.pid, me.host, me.proc))
        return n == 1

    def release_lock(self, pid: int) -> None:
        with self.transaction():
            self._x("UPDATE sweep_lock SET pid = 0, host = '', since = '', proc = '', renewed = NULL "
                    "WHERE sweeper = %s AND pid = %s",
                    (self.host, pid))

    def lock_holder(self) -> LockInfo | None:
        rows = self._q(f"SELECT pid, host, since, proc, {EPOCH_SQL} - renewed FROM sweep_lock "
                       "WHERE sweeper = %s AND pid <> 0", (self.host,))
        return LockInfo(*rows[0]) if rows else None

    # ------------------------------------------------------------------ runs
    def start_run(self, started_at: str, pid: int, roots: list[str]) -> int:
        with self.transaction():
            rows = self._q("INSERT INTO runs (started_at, pid, status, roots, host) VALUES (%s, %s, 'running', %s, %s) "
                           "RETURNING id", (started_at, pid, json.dumps(roots), self.host))
        return int(rows[0][0])

    def finish_run(self, run_id: int, finished_at: str, counts: RunCounts, duration_s: float) -> None:
        sets = ", ".join(f"{c} = %s" for c in COUNTS)
        with self.transaction():
            self._x(f"UPDATE runs SET status = 'done', finished_at = %s, duration_s = %s, {sets} WHERE id = %s",
                    (finished_at, duration_s, *(getattr(counts, c) for c in COUNTS), run_id))

    def fail_run(self, run_id: int, finished_at: str, counts: RunCounts, duration_s: float, failure: str) -> None:
        sets = ", ".join(f"{c} = %s" for c in COUNTS)
        with self.transaction():
            self._x(f"UPDATE runs SET status = 'interrupted', failure = %s, finished_at = %s, duration_s = %s, "
                    f"{sets} WHERE id = %s",
                    (failure, finished_at, duration_s, *(getattr(counts, c) for c in COUNTS), run_id))

    def interrupt_running(self) -> int:
        # only this sweeper's runs: another machine's running sweep is alive as far as we know
        with self.transaction():
            return self._x("UPDATE runs SET status = 'interrupted' WHERE status = 'running' AND host = %s",
                           (self.host,))

    def runs(self, limit: int = 10) -> list[RunRow]:
        rows = self._q(RUN_SELECT + " WHERE host = %s ORDER BY id DESC LIMIT %s", (self.host, limit))
        failures = dict(self._q("SELECT id, failure FROM runs WHERE host = %s AND failure IS NOT NULL AND id >= %s",
                                (self.host, rows[-1][0] if rows else 0)))
        return [with_failure(run_row(r), failures.get(r[0])) for r in rows]

    def add_error(self, error: ErrorRow) -> None:
        with self.transaction():
            self._x("INSERT INTO errors (run_id, path, message, at) VALUES (%s, %s, %s, %s)",
                    (error.run_id, to_db(error.path), error.message, error.at))

    def errors(self, run_id: int) -> list[ErrorRow]:
        rows = self._q("SELECT run_id, path, message, at FROM errors WHERE run_id = %s ORDER BY id", (run_id,))
        return [ErrorRow(r[0], from_db(r[1]), r[2], r[3]) for r in rows]

    # ------------------------------------------------------------------ what a sweep could not look at
    def record_faults(self, run_id: int, at: str, under: list[str],
                      faults: list[tuple[str, str, str]]) -> list[FaultRow]:
        now = {to_db(p): (w, r) for p, w, r in faults}
        with self.transaction():
            old = {r[0]: r for r in self._q(f"SELECT {_FAULT_COLS} FROM sweep_faults WHERE host = %s FOR UPDATE",
                                            (self.host,))
                   if any(below(from_db(r[0]), u) for u in under)}
            with self.conn.cursor() as cur:
                gone = [(self.host, p) for p in old if p not in now]
                if gone:
                    cur.executemany("DELETE FROM sweep_faults WHERE host = %s AND path = %s", gone)
                rows = [(self.host, p, w, r, old[p][3] if p in old else at, old[p][4] if p in old else run_id, at,
                         run_id, old[p][7] + 1 if p in old else 1) for p, (w, r) in sorted(now.items())]
                if rows:
                    cur.executemany(
                        "INSERT INTO sweep_faults (host, path, what, reason, first_at, first_run, last_at, last_run, "
                        "runs) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (host, path) DO UPDATE SET "
                        "what = excluded.what, reason = excluded.reason, last_at = excluded.last_at, "
                        "last_run = excluded.last_run, runs = excluded.runs", rows)
        return [f for f in self.faults() if any(below(f.path, u) for u in under)]

    def faults(self) -> list[FaultRow]:
        rows = self._q(f"SELECT {_FAULT_COLS} FROM sweep_faults WHERE host = %s ORDER BY path COLLATE \"C\"",
                       (self.host,))
        return [FaultRow(from_db(r[0]), *r[1:]) for r in rows]

    def file_counts(self) -> dict[str, int]:
        return {k: int(n) for k, n in self._q("SELECT status, count(*) FROM source_files WHERE host = %s "
                                               "GROUP BY status", (self.host,))}

    def gone(self, limit: int = 20) -> list[FileState]:
        cols = ", ".join(FILE_COLS)
        rows = self._q(f"SELECT {cols} FROM source_files WHERE host = %s AND status = 'source_gone' "
                       'AND path = unit_path ORDER BY updated_at DESC, path COLLATE "C" LIMIT %s', (self.host, limit))
        return [_file_state(r) for r in rows]

    def left_out(self) -> list[FileState]:
        cols = ", ".join(FILE_COLS)
        rows = self._q(f"SELECT {cols} FROM source_files WHERE host = %s AND status = 'ignored' "
                       "AND last_error IS NOT NULL ORDER BY path COLLATE \"C\"", (self.host,))
        return [_file_state(r) for r in rows]

    # ------------------------------------------------------------------ source files (this sweeper's)
    def file_states(self, under: list[str]) -> dict[str, FileState]:
        out: dict[str, FileState] = {}
        cols = ", ".join(FILE_COLS)
        for root in under:
            root, lo, hi = path_range(to_db(root))
            # COLLATE "C": byte order, as the range above assumes (a locale collation would not)
            rows = self._q(f"SELECT {cols} FROM source_files WHERE host = %s AND (path = %s OR "
                           '(path COLLATE "C" >= %s AND path COLLATE "C" < %s))', (self.host, root, lo, hi))
            for r in rows:
                st = _file_state(r)
                out[st.path] = st
        return out

    def put_file_states(self, states: list[FileState]) -> None:
        if not states:
            return
        cols = ", ".join(FILE_COLS)
        marks = ", ".join("%s" for _ in FILE_COLS)
        upd = ", ".join(f"{c} = excluded.{c}" for c in FILE_COLS[1:])
        with self.transaction(), self.conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO source_files (host, {cols}) VALUES (%s, {marks}) "
                f"ON CONFLICT (host, path) DO UPDATE SET {upd}",
                [(self.host, to_db(s.path), to_db(s.unit_path), *(getattr(s, c) for c in FILE_COLS[2:]))
                 for s in states])

    def failures(self) -> list[FileState]:
        cols = ", ".join(FILE_COLS)
        rows = self._q(f"SELECT {cols} FROM source_files WHERE host = %s AND status = 'failed' "
                       'ORDER BY path COLLATE "C"', (self.host,))
        return [_file_state(r) for r in rows]

    # ------------------------------------------------------------------ traces
    def add_trace(self, trace: NewTrace, now: str) -> bool:
        return self._add_trace(trace, now)

    def _add_trace(self, trace: NewTrace, now: str, session_ref: int | None = None) -> bool:
        """`add_trace`, in this sweeper's session of the trace's file, or in session `session_ref`
        (the trace an approval made: in its draft's, never a session of the reviewer's machine)."""
        trace = coded_trace(trace)
        with self.transaction():
            if self._q("SELECT 1 FROM traces WHERE trace_id = %s", (trace.trace_id,)):
                return False
            ref = session_ref
            if ref is None:
                self._x("INSERT INTO sessions (host, source_kind, session_id, unit_path, agent, project, first_seen) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (host, unit_path, session_id) DO NOTHING",
                        (self.host, trace.source_kind, trace.session_id, trace.unit_path, trace.agent,
                         trace.project, now))
                ref = self._q("SELECT id FROM sessions WHERE host = %s AND unit_path = %s AND session_id = %s",
                              (self.host, trace.unit_path, trace.session_id))[0][0]
            # another sweeper may be adding the same trace right now: the second waits, then adds nothing
            added = self._q(
                f"INSERT INTO traces ({TRACE_COLS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (trace_id) DO NOTHING RETURNING trace_id",
                (trace.trace_id, ref, trace.prior_trace_id, trace.agent, trace.project, trace.started_at,
                 trace.ended_at, trace.confidence, trace.steps, trace.turns, trace.task, now, trace.run_id,
                 trace.model_values))
            if not added:
                return False
            with self.conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO trace_files (trace_id, name, data, size, sha256) VALUES (%s, %s, %s, %s, %s)",
                    [(trace.trace_id, f.name, self._zc.compress(f.data), len(f.data),
                      hashlib.sha256(f.data).hexdigest()) for f in trace.files])
                pieces = [(trace.trace_id, what, words(text[i:i + TEXT_PIECE]))
                          for what, text in trace.texts if text for i in range(0, len(text), TEXT_PIECE)]
                if pieces:
                    cur.executemany("INSERT INTO trace_text (trace_id, what, words) VALUES (%s, %s, %s)", pieces)
            draft = self._q("INSERT INTO drafts (trace_id, status, created_at, updated_at) "
                            "VALUES (%s, 'pending', %s, %s) RETURNING id", (trace.trace_id, now, now))[0][0]
            self._x("INSERT INTO audit (at, actor, action, draft_id, detail_json) VALUES (%s, %s, %s, %s, %s)",
                    (now, "forsy", "draft_created", draft,
                     json.dumps({"trace_id": trace.trace_id, "prior_trace_id": trace.prior_trace_id,
                                 "host": self.host})))
        return True

    def latest_trace_id(self, unit_path: str, session_id: str) -> str | None:
        rows = self._q(
            "SELECT t.trace_id FROM traces t JOIN sessions s ON s.id = t.session_ref JOIN drafts d "
            "ON d.trace_id = t.trace_id WHERE s.host = %s AND s.unit_path = %s AND s.session_id = %s "
            "AND d.review_of IS NULL ORDER BY t.created_at DESC, t.trace_id DESC LIMIT 1",
            (self.host, to_db(unit_path), to_db(session_id)))
        return rows[0][0] if rows else None

    # `prior_draft_id` (the protocol says the rule): this sweeper's drafts of the session file, or another
    # sweeper's of the same session (kind, id, start); the queue's head first, then one of the same path (a
    # folder the sweepers share), then the draft stored last
    _PRIOR = ("SELECT t.trace_id FROM traces t JOIN drafts d ON d.trace_id = t.trace_id JOIN sessions s "
              "ON s.id = t.session_ref WHERE d.review_of IS NULL AND t.trace_id <> %s AND ((s.host = %s "
              "AND s.unit_path = %s AND s.session_id = %s) OR (s.host <> %s AND s.source_kind = %s "
              "AND s.session_id = %s AND t.started_at = %s AND t.steps <= %s)) ORDER BY EXISTS (SELECT 1 "
              "FROM traces n JOIN drafts nd ON nd.trace_id = n.trace_id WHERE n.prior_trace_id = t.trace_id "
              "AND nd.review_of IS NULL), s.unit_path = %s DESC, d.id DESC LIMIT 1")

    def prior_draft_id(self, trace: NewTrace) -> str | None:
        t = coded_trace(trace)
        # Two sweepers drafting one session at the same time: in the transaction that adds the draft
        # (StoreSink), the second waits here for the first to commit, then finds its draft and links
        # it, instead of each finding none and leaving two pending drafts of one session.
        self._q("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"{t.source_kind}/{t.session_id}",))
        rows = self._q(self._PRIOR, (t.trace_id, self.host, t.unit_path, t.session_id, self.host, t.source_kind,
                                     t.session_id, t.started_at, t.steps, t.unit_path))
        return rows[0][0] if rows else None

    def copies(self, trace: NewTrace, fuller: bool) -> list[str]:
        t = coded_trace(trace)
        sql = COPIES.format(m="%s", cmp=">" if fuller else "<", other="(s.host <> %s OR s.unit_path <> %s)")
        return [r[0] for r in self._q(sql, (t.source_kind, t.session_id, t.started_at, t.steps, self.host,
                                            t.unit_path))]

    _SELECT = trace_select("false", "f.host = s.host AND f.path = s.unit_path")

    def trace(self, trace_id: str) -> TraceRow | None:
        rows = self._q(self._SELECT + " WHERE t.trace_id = %s", (trace_id,))
        if not rows:
            return None
        sha = {n: s for n, s in self._q("SELECT name, sha256 FROM trace_files WHERE trace_id = %s ORDER BY name",
                                        (trace_id,))}
        return uncoded_row(trace_row(rows[0], sha))

    def trace_files(self, trace_id: str) -> list[StoredFile]:
        rows = self._q("SELECT name, data, sha256 FROM trace_files WHERE trace_id = %s ORDER BY name", (trace_id,))
        return stored_files(rows, self._zd, trace_id)

    def _where(self, query: TraceQuery) -> tuple[str, list[Any]] | None:
        """The WHERE clause and its arguments; None when the query can match nothing."""
        where, args = trace_filters(query, "%s")
        if query.text:
            # every whitespace-separated word of the query must occur, each as a phrase of its
            # own words (as the SQLite backend quotes each word for FTS5)
            phrases = [words(w) for w in query.text.split()]
            if not phrases or not all(phrases):
                return None  # blank text, or a word of punctuation only, matches nothing (FTS5: the same)
            for p in phrases:
                where.append("t.trace_id IN (SELECT trace_id FROM trace_text "
                             "WHERE tsv @@ phraseto_tsquery('simple', %s))")
                args.append(p)
        return (" WHERE " + " AND ".join(where) if where else ""), args

    def traces(self, query: TraceQuery) -> list[TraceRow]:
        got = self._where(query)
        if got is None:
            return []
        where, args = got
        sql = self._SELECT + where + order_sql(query, ' COLLATE "C"') + " LIMIT %s OFFSET %s"
        return [uncoded_row(trace_row(r)) for r in self._q(sql, (*args, query.limit, query.offset))]

    def count_traces(self, query: TraceQuery) -> int:
        got = self._where(query)
        if got is None:
            return 0
        where, args = got
        sql = ("SELECT COUNT(*) FROM traces t JOIN drafts d ON d.trace_id = t.trace_id "
               "JOIN sessions s ON s.id = t.session_ref" + where)
        return int(self._q(sql, tuple(args))[0][0])

    def set_draft_status(self, trace_id: str, status: DraftStatus, actor: str, now: str, note: str = "") -> None:
        check_status(status)
        with self.transaction():
            rows = self._q("SELECT id, status FROM drafts WHERE trace_id = %s FOR UPDATE", (trace_id,))
            if not rows:
                raise InputError(f"no draft of trace {trace_id} in the store")
            draft, old = rows[0]
            self._x("UPDATE drafts SET status = %s, updated_at = %s WHERE id = %s",
                    (status, now, draft))
            self._x("INSERT INTO audit (at, actor, action, draft_id, detail_json) VALUES (%s, %s, %s, %s, %s)",
                    (now, actor, "status", draft, json.dumps({"from": old, "to": status, "note": note})))

    # ------------------------------------------------------------------ review
    def draft_state(self, trace_id: str) -> DraftState | None:
        rows = self._q(f"SELECT {DRAFT_COLS} FROM drafts WHERE trace_id = %s", (trace_id,))
        return DraftState(*rows[0]) if rows else None

    def proposals(self, trace_id: str) -> list[ProposalRow]:
        rows = self._q(f"SELECT {PROPOSAL_COLS} FROM proposals WHERE trace_id = %s ORDER BY id", (trace_id,))
        return [ProposalRow(*r) for r in rows]

    def audit(self, trace_id: str | None = None, limit: int = 1000) -> list[AuditRow]:
        sql = AUDIT_SELECT
        args: tuple[Any, ...] = ()
        if trace_id is not None:
            sql += audit_of("%s")
            args = (trace_id, trace_id)
        return [AuditRow(*r) for r in self._q(sql + " ORDER BY a.id LIMIT %s", (*args, limit))]

    def record_review(self, change: ReviewChange) -> DraftState:
        with self.transaction():
            # the draft's row lock: a second reviewer's action waits here, then sees the new
            # version and is refused (one save wins, the other is a conflict, nothing is lost)
            rows = self._q("SELECT d.id, d.version, t.session_ref FROM drafts d JOIN traces t ON t.trace_id = "
                           "d.trace_id WHERE d.trace_id = %s FOR UPDATE OF d", (change.trace_id,))
            if not rows:
                raise InputError(f"no draft of trace {change.trace_id} in the store")
            draft_id, version, session_ref = rows[0]
            check_version(change, version)
            p = change.proposal
            if p is not None:
                self._x("INSERT INTO proposals (draft_id, trace_id, path, value_json, origin, actor, created_at, "
                        "citations_json, replaced_json) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                        (draft_id, change.trace_id, p.path, p.value_json, p.origin, p.actor, change.at,
                         p.citations_json, p.replaced_json))
            reviewed_as = None
            if change.reviewed is not None:
                reviewed_as = change.reviewed.trace_id
                # in the draft's session: a session of the reviewer's name would be taken for a
                # session file of that sweeper's, and the trace for one of its drafts
                self._add_trace(change.reviewed, change.at, session_ref)
                self._x("UPDATE drafts SET status = 'approved', review_of = %s, validation_level = %s, "
                        "updated_at = %s WHERE trace_id = %s",
                        (change.trace_id, change.validation_level, change.at, reviewed_as))
            self._x("UPDATE drafts SET status = COALESCE(%s, status), version = version + 1, updated_at = %s, "
                    "reviewed_as = COALESCE(%s, reviewed_as) WHERE id = %s",
                    (change.status, change.at, reviewed_as, draft_id))
            self._x("INSERT INTO audit (at, actor, action, draft_id, detail_json, trace_id, before_sha256, "
                    "after_sha256) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    (change.at, change.actor, change.action, draft_id, change.detail_json, change.trace_id,
                     change.before_sha256, change.after_sha256))
        state = self.draft_state(change.trace_id)
        assert state is not None
        return state

    def import_review(self, trace_id: str, state: DraftState, proposals: list[ProposalRow], audit: list[AuditRow],
                      note: str, now: str) -> bool:
        with self.transaction():
            # the draft's row lock: a review action on it waits for the copy (and then finds the
            # version moved on), or came first and the draft has a history of its own
            rows = self._q(history_sql("%s") + " FOR UPDATE OF d", (trace_id,))
            if not rows:
                raise InputError(f"no draft of trace {trace_id} in the store")
            draft_id, own = history_row(rows[0], trace_id)
            if own:
                return False
            with self.conn.cursor() as cur:
                for sql, args in import_writes("%s", draft_id, trace_id, state, proposals, audit, note, now):
                    if args:
                        cur.executemany(sql, args)
        return True
