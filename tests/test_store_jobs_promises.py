"""The job queue's promises, in process (test_team.py runs workers against it): a job is
queued once per kind and key, claimed oldest first by a worker that may run it, taken over only
after its lease passed, recorded done or failed only by the claim that holds it, and failed (with
why) once its worker was lost on every attempt. A lease that has passed is a negative lease. On
SQLite and PostgreSQL (the queue's statements are written once for both)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forsy.errors import InputError
from forsy.store import Store, open_store
from forsy.store.jobs import JobQueue, Sql

NOW, LATER = "2026-03-01T12:00:00+00:00", "2026-03-01T12:05:00+00:00"
EXPORT = {"trace_id": "t1", "dest": "/x"}


@pytest.fixture(params=["sqlite", "postgresql"])
def st(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A store of each backend (PostgreSQL: skipped where there is none, as in test_team.py)."""
    url = f"sqlite:///{tmp_path / 'a.db'}" if request.param == "sqlite" else str(request.getfixturevalue("pg_url"))
    store = open_store(url)
    yield store
    store.close()


def test_a_job_is_queued_once_per_kind_and_key(st: Store) -> None:
    q = JobQueue(st)
    assert q.enqueue("export", EXPORT, NOW) is True
    assert q.enqueue("export", dict(EXPORT), LATER) is False  # the same args are the same key
    assert q.enqueue("export", {"trace_id": "t2", "dest": "/x"}, NOW, key="k") is True
    assert q.enqueue("export", {"trace_id": "t3", "dest": "/y"}, NOW, key="k") is False  # same key
    assert q.enqueue("retrace", {"path": "/l.jsonl"}, NOW, key="k") is True  # another kind
    [a, b, c] = q.jobs()
    assert (a.kind, a.key, a.args, a.status, a.attempts, a.max_attempts, a.host, a.worker) == \
        ("export", '{"dest": "/x", "trace_id": "t1"}', EXPORT, "queued", 0, 3, None, None)
    assert (b.key, b.args, c.kind, c.key) == ("k", {"trace_id": "t2", "dest": "/x"}, "retrace", "k")
    assert q.counts() == {"queued": 3}


def test_a_job_without_its_args_or_of_no_known_kind_is_refused(st: Store) -> None:
    q = JobQueue(st)
    with pytest.raises(InputError, match=r"^a export job needs dest$"):
        q.enqueue("export", {"trace_id": "t1", "dest": ""}, NOW)
    with pytest.raises(InputError, match=r"^a enrich job needs path, model$"):
        q.enqueue("enrich", {}, NOW)
    with pytest.raises(InputError, match=r"^unknown job kind 'mine'; known: retrace, export, enrich$"):
        q.enqueue("mine", {"path": "p"}, NOW)  # type: ignore[arg-type]
    assert q.jobs() == [] and q.counts() == {}


def test_jobs_are_claimed_oldest_first_by_a_worker_that_may_run_them(st: Store) -> None:
    q = JobQueue(st)
    q.enqueue("retrace", {"path": "/a"}, NOW, host="box")
    q.enqueue("export", EXPORT, NOW)
    q.enqueue("retrace", {"path": "/b"}, NOW)
    assert q.claim("w0", 60, NOW, kinds=("enrich",)) is None  # no job of its kinds
    first = q.claim("w1", 60, NOW)  # no host: not the job pinned to "box"
    assert first is not None and (first.kind, first.args, first.status, first.attempts, first.worker) == \
        ("export", EXPORT, "running", 1, "w1")
    second = q.claim("w2", 60, NOW, host="box")
    assert second is not None and second.args == {"path": "/a"} and second.host == "box"
    third = q.claim("w3", 60, NOW, kinds=("retrace",))
    assert third is not None and third.args == {"path": "/b"}
    assert q.claim("w4", 60, NOW, host="box") is None  # all three running under live leases
    assert q.counts() == {"running": 3}
    assert [j.id for j in q.jobs("running")] == sorted([first.id, second.id, third.id])
    assert q.jobs("queued") == [] and len(q.jobs(limit=2)) == 2


def test_only_the_claim_that_holds_a_job_records_it(st: Store) -> None:
    q = JobQueue(st)
    q.enqueue("export", EXPORT, NOW)
    lost = q.claim("w1", -1, NOW)  # its lease has passed at once
    assert lost is not None
    taken = q.claim("w2", 60, LATER)
    assert taken is not None and (taken.id, taken.attempts, taken.worker) == (lost.id, 2, "w2")
    assert q.renew(lost, 60) is False and q.complete(lost, "late", LATER) is False
    assert q.fail(lost, "late", LATER) is False
    assert q.renew(taken, 60) is True
    assert q.complete(taken, "/x/t1", LATER) is True
    [done] = q.jobs("done")
    assert (done.status, done.result, done.error, done.worker, done.attempts) == ("done", "/x/t1", None, "w2", 2)
    assert q.complete(taken, "again", LATER) is False  # no longer running
    assert q.claim("w3", 60, LATER) is None  # a done job is not run again


def test_a_failed_job_says_why_and_is_not_run_again(st: Store) -> None:
    q = JobQueue(st)
    q.enqueue("export", EXPORT, NOW)
    job = q.claim("w1", 60, NOW)
    assert job is not None and q.fail(job, "no such trace", LATER) is True
    [failed] = q.jobs("failed")
    assert (failed.error, failed.result) == ("no such trace", None)
    assert q.claim("w2", 60, LATER) is None and q.counts() == {"failed": 1}


def test_a_job_whose_worker_was_lost_on_every_attempt_fails_with_why(st: Store) -> None:
    q = JobQueue(st)
    q.enqueue("export", EXPORT, NOW, max_attempts=2)
    assert q.claim("w1", -1, NOW) is not None
    again = q.claim("w2", -1, NOW)  # the second and last attempt, also lost
    assert again is not None and again.attempts == 2
    assert q.claim("w3", 60, LATER) is None  # not a third time
    [failed] = q.jobs()
    assert (failed.status, failed.error, failed.attempts) == \
        ("failed", "its worker was lost on every attempt (the lease passed 2 times)", 2)


def test_a_renewed_lease_is_not_taken_over(st: Store) -> None:
    q = JobQueue(st)
    q.enqueue("export", EXPORT, NOW)
    job = q.claim("w1", -1, NOW)
    assert job is not None and q.renew(job, 60) is True
    assert q.claim("w2", 60, NOW) is None


def test_a_store_without_a_job_queue_says_so() -> None:
    class Elsewhere:
        url = "memory://x"

    with pytest.raises(InputError, match=r"^the store memory://x has no job queue$"):
        Sql(Elsewhere())  # type: ignore[arg-type]


def test_the_job_list_is_a_thousand_unless_asked_for_more(tmp_path: Path) -> None:
    st = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    q = JobQueue(st)
    for i in range(1001):
        q.enqueue("retrace", {"path": f"/l{i}.jsonl"}, NOW)
    assert len(q.jobs()) == 1000 and len(q.jobs(limit=2000)) == 1001
    assert q.jobs()[-1].args == {"path": "/l999.jsonl"}  # the oldest thousand
    st.close()
