"""The SQL and rows both stores share (`store._query`), the queue's counts (`queue_rules`), the
names below a root (`names.below`) and a stored trace back out as a folder (`store.export`),
on hand-built drafts with hand-counted expectations: the queue counts the newest draft of each
session (an approved one stays, even superseded) and never a trace a review made; a review's
history is told apart from a fresh draft by every field it leaves; a copied history keeps each
record's trace; an export refuses a trace lacking a file or whose written trace.json is not the
stored one, and writes artifacts byte for byte (lone surrogates included)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _paths import SAMPLES
from forsy.errors import InputError
from forsy.run import RetraceOptions, retrace_one
from forsy.store import Store, TraceQuery
from forsy.store._query import (
    COPY_ACTION,
    COPY_ACTOR,
    check_status,
    check_version,
    has_history,
    history_row,
    import_writes,
    old_copy_record,
    path_range,
)
from forsy.store.export import export_trace
from forsy.store.models import AuditRow, DraftState, NewTrace, ReviewChange, ReviewConflict, RunCounts, StoredFile
from forsy.store.names import below
from forsy.store.queue_rules import QueueRule, add_rule, hidden_count, status_counts
from forsy.store.sink import StoreSink

NOW = "2026-03-01T12:00:00+00:00"



def _trace(tid: str, session: str, task: str = "t", *, prior: str | None = None, started: str | None = None,
           agent: str | None = "claude-code", project: str | None = None,
           files: list[StoredFile] | None = None) -> NewTrace:
    return NewTrace(trace_id=tid, source_kind="codex", session_id=session, unit_path=f"/l/{session}.jsonl",
                    agent=agent, project=project, started_at=started, ended_at=None, confidence=None, steps=1,
                    turns=1, task=task, files=files or [StoredFile("trace.json", b"{}\n")], texts=[],
                    prior_trace_id=prior)


# ------------------------------------------------------------------ the queue's counts
def _queue(store: Store) -> None:
    """s1: t-1 superseded by t-2 (both pending, "secret" tasks); s2: t-3 approved, and r-3 the
    trace its approval made (a "secret" task too); s3: t-4 approved by hand, then superseded by t-5."""
    store.add_trace(_trace("t-1", "s1", "Secret plan"), NOW)
    store.add_trace(_trace("t-2", "s1", "Secret plan", prior="t-1"), NOW)
    store.add_trace(_trace("t-3", "s2", "refactor"), NOW)
    store.record_review(ReviewChange("t-3", 0, "approve", "ana", NOW, status="approved",
                                     reviewed=_trace("r-3", "s2", "secret review", prior="t-3"),
                                     validation_level="human_reviewed"))
    store.add_trace(_trace("t-4", "s3", "docs"), NOW)
    store.set_draft_status("t-4", "approved", "ana", NOW)
    store.add_trace(_trace("t-5", "s3", "docs", prior="t-4"), NOW)


def test_the_queue_counts_the_newest_draft_of_each_session_an_approved_one_stays(store: Store) -> None:
    _queue(store)
    counts = dict(status_counts(store))
    assert counts.pop("pending") == 2  # t-2 and t-5, not the superseded t-1
    assert counts.pop("approved") == 2  # t-3 and t-4 (superseded, but a person's decision); never r-3
    assert set(counts.values()) == {0}
    latest = {r.trace_id for r in store.traces(TraceQuery(latest_only=True))}
    assert latest == {"t-2", "t-3", "r-3", "t-4", "t-5"}


def test_the_hidden_count_is_of_the_queue_s_drafts_only(store: Store) -> None:
    _queue(store)
    add_rule(store, QueueRule("secrets", "*secret*"), actor="ana", now=NOW)
    assert hidden_count(store) == 1  # t-2: not the superseded t-1, not the reviewed r-3


# ------------------------------------------------------------------ filters
def test_filters_by_agent_project_and_time_together(store: Store) -> None:
    store.add_trace(_trace("a-1", "s1", started="2026-03-01T09:00:00Z", project="/home/me/work/api"), NOW)
    store.add_trace(_trace("a-2", "s2", started="2026-03-02T09:00:00Z", project="/home/me/work/api"), NOW)
    store.add_trace(_trace("a-3", "s3", started="2026-03-01T09:00:00Z", project="/home/me/work/api", agent="codex"),
                    NOW)
    store.add_trace(_trace("a-4", "s4", started="2026-03-01T09:00:00Z", project="/home/me/work/rapi"), NOW)

    def ids(q: TraceQuery) -> list[str]:
        return sorted(r.trace_id for r in store.traces(q))

    assert ids(TraceQuery(agent="claude-code", project="api")) == ["a-1", "a-2"]
    assert ids(TraceQuery(agent="claude-code", project="api", until="2026-03-02T09:00:00Z")) == ["a-1"]
    assert ids(TraceQuery(until="2026-03-02T00:00:00Z", status="pending", project="work/api")) == ["a-1", "a-3"]


# ------------------------------------------------------------------ runs
def test_a_finished_run_reads_back_every_field(store: Store) -> None:
    rid = store.start_run("2026-03-01T10:00:00+00:00", 4242, ["/logs"])
    store.finish_run(rid, "2026-03-01T10:00:05+00:00", RunCounts(seen=3, traced=2, bytes_read=99), 5.25)
    [run] = store.runs()
    assert (run.id, run.started_at, run.finished_at, run.pid, run.status, run.roots, run.duration_s) == \
        (rid, "2026-03-01T10:00:00+00:00", "2026-03-01T10:00:05+00:00", 4242, "done", ["/logs"], 5.25)
    assert run.counts == RunCounts(seen=3, traced=2, bytes_read=99)


# ------------------------------------------------------------------ paths below a root
def test_the_range_below_a_root_holds_its_paths_and_no_sibling_s() -> None:
    assert path_range("/a/b") == ("/a/b", "/a/b/", "/a/b0")  # "0" is the character after "/"
    assert path_range("/a/b/") == ("/a/b", "/a/b/", "/a/b0")
    assert path_range("/") == ("/", "/", "0")
    root, lo, hi = path_range("/a/b")
    assert lo <= "/a/b/x" < hi and not (lo <= "/a/b0/x" < hi) and not (lo <= "/a/b1" < hi)


@pytest.mark.parametrize("path, root, inside", [
    ("/a/b", "/a/b", True), ("/a/b", "/a/b/", True), ("/a/b/c", "/a/b/", True), ("/a/bc", "/a/b", False),
    ("/x/y", "/", True), ("/data/A/f", "/data/AX", False), ("/data/AX/f", "/data/AX", True),
])
def test_below_a_root(path: str, root: str, inside: bool) -> None:
    assert below(path, root) is inside


# ------------------------------------------------------------------ review histories
def test_refusals_name_the_status_and_the_versions() -> None:
    with pytest.raises(InputError) as e:
        check_status("done")
    assert str(e.value) == "unknown draft status 'done'; known: pending, approved, rejected, needs_changes"
    check_status("pending")
    change = ReviewChange("t-1", 2, "approve", "ana", NOW)
    check_version(change, 2)
    with pytest.raises(ReviewConflict) as c:
        check_version(change, 3)
    assert str(c.value) == ("trace t-1 changed since it was read (version 2, now 3): another review action came "
                            "first; nothing was written, look again")


FRESH = DraftState(1, "t-1", "pending", 0, "", None, None, None)


@pytest.mark.parametrize("state, proposals, audit", [
    (DraftState(1, "t-1", "rejected", 0, "", None, None, None), 0, 0),
    (DraftState(1, "t-1", "pending", 1, "", None, None, None), 0, 0),
    (DraftState(1, "t-1", "pending", 0, "", "r-1", None, None), 0, 0),
    (DraftState(1, "t-1", "pending", 0, "", None, "d-1", None), 0, 0),
    (DraftState(1, "t-1", "pending", 0, "", None, None, "human_reviewed"), 0, 0),
    (FRESH, 1, 0),
    (FRESH, 0, 1),
])
def test_any_one_trace_of_a_review_is_a_history(state: DraftState, proposals: int, audit: int) -> None:
    assert has_history(state, proposals, audit)
    assert not has_history(FRESH, 0, 0)


@pytest.mark.parametrize("row, own", [
    ((7, "pending", 0, None, None, None, 0, 0, 0), False),
    ((7, "approved", 0, None, None, None, 0, 0, 1), False),  # the status an older copy set: no history
    ((7, "approved", 0, None, None, None, 0, 0, 0), True),
    ((7, "pending", 2, None, None, None, 0, 0, 0), True),
    ((7, "pending", 0, "r-1", None, None, 0, 0, 0), True),
    ((7, "pending", 0, None, "d-1", None, 0, 0, 0), True),
    ((7, "pending", 0, None, None, "human_reviewed", 0, 0, 0), True),
    ((7, "pending", 0, None, None, None, 1, 0, 0), True),
    ((7, "pending", 0, None, None, None, 0, 1, 0), True),
])
def test_a_history_row_says_whether_the_draft_has_its_own(row: tuple[object, ...], own: bool) -> None:
    assert history_row(row, "t-1") == (7, own)


def test_an_older_copy_s_record_is_its_actor_and_action_together() -> None:
    def rec(actor: str, action: str) -> AuditRow:
        return AuditRow(1, NOW, actor, action, "t-1", "{}", None, None)

    assert old_copy_record(rec(COPY_ACTOR, "status"))
    assert not old_copy_record(rec(COPY_ACTOR, "edit"))
    assert not old_copy_record(rec("ana", "status"))


def test_a_copied_history_keeps_each_record_s_trace_and_says_what_it_copied() -> None:
    state = DraftState(3, "t-1", "approved", 2, "2026-03-01T11:00:00+00:00", None, None, None)
    audit = [AuditRow(1, "2026-03-01T10:30:00+00:00", "ana", "edit", None, "{}", None, None),
             AuditRow(2, "2026-03-01T11:00:00+00:00", "ana", "approve", "r-1", "{}", "a" * 64, "b" * 64)]
    writes = import_writes("?", 9, "t-1", state, [], audit, "from /old.db", NOW)
    rows = writes[2][1]
    assert rows == [
        ("2026-03-01T10:30:00+00:00", "ana", "edit", 9, "{}", "t-1", None, None),
        ("2026-03-01T11:00:00+00:00", "ana", "approve", 9, "{}", "r-1", "a" * 64, "b" * 64),
        (NOW, COPY_ACTOR, COPY_ACTION, 9, json.dumps({"note": "from /old.db", "version": 2, "proposals": 0,
                                                      "audit": 2}), "t-1", None, None),
    ]


# ------------------------------------------------------------------ export
def _stored(store: Store) -> dict[str, bytes]:
    sink = StoreSink(store, now=NOW)
    [o] = retrace_one(SAMPLES / "claude" / "compaction-and-branches.jsonl", RetraceOptions(), sink=sink, keep=False)
    assert o.trace_id
    return {f.name: f.data for f in store.trace_files(o.trace_id)}


def test_an_export_writes_artifacts_byte_for_byte(store: Store, tmp_path: Path) -> None:
    files = _stored(store)
    art = "a\udc80b".encode("utf-8", "surrogatepass")  # a lone surrogate, as an agent's output may hold
    store.add_trace(_trace("t-art", "s-art", files=[*(StoredFile(n, d) for n, d in files.items()),
                                                      StoredFile("artifacts/out.txt", art)]), NOW)
    folder = export_trace(store, "t-art", tmp_path / "out")
    assert (folder / "artifacts" / "out.txt").read_bytes() == art
    assert (folder / "trace.json").read_bytes() == files["trace.json"]


def test_an_export_refuses_a_trace_lacking_a_file(store: Store, tmp_path: Path) -> None:
    files = _stored(store)
    store.add_trace(_trace("t-m", "s-m", files=[StoredFile("trace.json", files["trace.json"])]), NOW)
    with pytest.raises(InputError) as e:
        export_trace(store, "t-m", tmp_path / "out")
    assert str(e.value) == "trace t-m lacks manifest.json, provenance.json in the store"


def test_an_export_whose_trace_json_is_not_the_stored_one_says_so_where(store: Store, tmp_path: Path) -> None:
    files = _stored(store)
    respaced = json.dumps(json.loads(files["trace.json"]), indent=7).encode()  # the same trace, other bytes
    store.add_trace(_trace("t-x", "s-x", files=[StoredFile(n, respaced if n == "trace.json" else d)
                                                  for n, d in files.items()]), NOW)
    with pytest.raises(InputError) as e:
        export_trace(store, "t-x", tmp_path / "out")
    assert e.value.message == "exported trace.json of t-x differs from the stored one"
    assert e.value.path == str(tmp_path / "out")  # the folder written, for the user to look at
