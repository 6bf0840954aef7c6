"""The job queue of a shared store: work any worker may do (exports, re-traces, LLM passes).

A job is claimed under a lease: `claim` marks it `running`, names the worker and sets
`lease_until` (by the database's clock) in one statement — on PostgreSQL the candidate row is
picked with `SELECT … FOR UPDATE SKIP LOCKED`, so workers never wait for each other and never
take the same job; on SQLite the statement holds the write lock. A worker renews its lease
while it works; a worker that dies stops renewing, and once the lease has passed the job is
claimed again by another (up to `max_attempts` claims; then it is `failed`, saying so). Only
the holder of the current claim (worker name and attempt number) can complete a job, so a
job is recorded done once even if a worker thought dead comes back. What a job does must be
safe to do twice (a re-trace adds a trace once; an export replaces its folder atomically).

Jobs are unique per (kind, key): enqueueing the same work again adds nothing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import InputError
from . import Store

JobKind = Literal["retrace", "export", "enrich"]
JOB_KINDS: tuple[JobKind, ...] = ("retrace", "export", "enrich")
JobStatus = Literal["queued", "running", "done", "failed"]
# What each kind's `args` hold (all strings): retrace: path (a session file on the job's host);
# enrich: path, model (a re-trace with the model pass); export: trace_id, dest (a folder).
JOB_ARGS: dict[JobKind, tuple[str, ...]] = {"retrace": ("path",), "enrich": ("path", "model"),
                                            "export": ("trace_id", "dest")}


@dataclass(frozen=True)
class Job:
    id: int
    kind: JobKind
    key: str
    args: dict[str, str]
    host: str | None  # only a worker of this name runs it; None: any worker
    status: JobStatus
    attempts: int  # claims so far; the current claim is (worker, attempts)
    max_attempts: int
    worker: str | None
    result: str | None
    error: str | None


_COLS = "id, kind, job_key, args_json, host, status, attempts, max_attempts, worker, result, error"


def _job(r: tuple[Any, ...]) -> Job:
    return Job(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5], r[6], r[7], r[8], r[9], r[10])


class Sql:
    """Runs `?`-placeholder SQL on either backend's connection (outside any open transaction
    of the store object: each statement commits on its own)."""

    def __init__(self, store: Store) -> None:
        conn = getattr(store, "conn", None)
        if getattr(store, "dialect", "") == "postgresql":
            from ._postgres import EPOCH_SQL

            self.pg, self.epoch, self.skip_locked = True, EPOCH_SQL, " FOR UPDATE SKIP LOCKED"
        elif isinstance(conn, sqlite3.Connection):
            from ._sqlite import EPOCH_SQL as SQLITE_EPOCH_SQL

            self.pg, self.epoch, self.skip_locked = False, SQLITE_EPOCH_SQL, ""
        else:
            raise InputError(f"the store {store.url} has no job queue")
        self.conn: Any = conn

    def q(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        return list(self.conn.execute(sql.replace("?", "%s") if self.pg else sql, tuple(args)).fetchall())

    def x(self, sql: str, args: Sequence[object] = ()) -> int:
        return int(self.conn.execute(sql.replace("?", "%s") if self.pg else sql, tuple(args)).rowcount)


class JobQueue:
    def __init__(self, store: Store) -> None:
        self.db = Sql(store)

    def enqueue(self, kind: JobKind, args: dict[str, str], now: str, *, key: str | None = None,
                host: str | None = None, max_attempts: int = 3) -> bool:
        """Queue a job; False when a job of this kind and key is already there (any status)."""
        if kind not in JOB_KINDS:
            raise InputError(f"unknown job kind {kind!r}; known: {', '.join(JOB_KINDS)}")
        missing = [a for a in JOB_ARGS[kind] if not args.get(a)]
        if missing:
            raise InputError(f"a {kind} job needs {', '.join(missing)}")
        body = json.dumps(args, sort_keys=True)
        return self.db.x("INSERT INTO jobs (kind, job_key, args_json, host, max_attempts, created_at) "
                         "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (kind, job_key) DO NOTHING",
                         (kind, key or body, body, host, max_attempts, now)) == 1

    def claim(self, worker: str, lease_s: float, now: str, *, host: str | None = None,
              kinds: Sequence[JobKind] = JOB_KINDS) -> Job | None:
        """The oldest job this worker may run — queued, or running under a lease that has
        passed — now claimed by `worker` for `lease_s` seconds; None when there is none."""
        e = self.db.epoch
        self.db.x(f"UPDATE jobs SET status = 'failed', finished_at = ?, "
                  "error = 'its worker was lost on every attempt (the lease passed ' || attempts || ' times)' "
                  f"WHERE status = 'running' AND lease_until < {e} AND attempts >= max_attempts", (now,))
        marks = ", ".join("?" for _ in kinds)
        rows = self.db.q(
            f"UPDATE jobs SET status = 'running', attempts = attempts + 1, worker = ?, lease_until = {e} + ?, "
            "started_at = ?, error = NULL WHERE id = ("
            f"SELECT id FROM jobs WHERE kind IN ({marks}) AND (host IS NULL OR host = ?) "
            f"AND (status = 'queued' OR (status = 'running' AND lease_until < {e})) "
            f"ORDER BY id LIMIT 1{self.db.skip_locked}) RETURNING {_COLS}",
            (worker, lease_s, now, *kinds, host))
        return _job(rows[0]) if rows else None

    def renew(self, job: Job, lease_s: float) -> bool:
        """Extend the lease of a claim still held; False when it was lost (taken over)."""
        return self.db.x(f"UPDATE jobs SET lease_until = {self.db.epoch} + ? "
                         "WHERE id = ? AND status = 'running' AND worker = ? AND attempts = ?",
                         (lease_s, job.id, job.worker, job.attempts)) == 1

    def complete(self, job: Job, result: str, now: str) -> bool:
        """Record the job done; False (nothing recorded) when this claim is no longer the
        job's current one: another worker took it over after the lease passed."""
        return self.db.x("UPDATE jobs SET status = 'done', result = ?, finished_at = ?, lease_until = NULL "
                         "WHERE id = ? AND status = 'running' AND worker = ? AND attempts = ?",
                         (result, now, job.id, job.worker, job.attempts)) == 1

    def fail(self, job: Job, error: str, now: str) -> bool:
        """Record the job failed (its work raised an error: doing it again would too)."""
        return self.db.x("UPDATE jobs SET status = 'failed', error = ?, finished_at = ?, lease_until = NULL "
                         "WHERE id = ? AND status = 'running' AND worker = ? AND attempts = ?",
                         (error, now, job.id, job.worker, job.attempts)) == 1

    def jobs(self, status: JobStatus | None = None, limit: int = 1000) -> list[Job]:
        where, args = ("WHERE status = ?", (status,)) if status else ("", ())
        return [_job(r) for r in self.db.q(f"SELECT {_COLS} FROM jobs {where} ORDER BY id LIMIT ?", (*args, limit))]

    def counts(self) -> dict[str, int]:
        return {s: n for s, n in self.db.q("SELECT status, COUNT(*) FROM jobs GROUP BY status ORDER BY status")}


__all__ = ["JOB_ARGS", "JOB_KINDS", "Job", "JobKind", "JobQueue", "JobStatus", "Sql"]
