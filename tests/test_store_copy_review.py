"""`forsy store copy` carries a draft's review history: status, version, the reviewer's edits
(with the values they replaced) and the audit records (who, when, the trace hashes), so the
destination — usually the team's shared store — publishes what was reviewed locally. A
destination draft with a review history of its own is left untouched and reported; a second
copy adds nothing. SQLite → SQLite and SQLite → PostgreSQL (skipped without PostgreSQL)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from typer.testing import CliRunner

from _paths import SAMPLES
from _review import put
from forsy.cli import app
from forsy.errors import ExitCode
from forsy.review import actions
from forsy.review.export import INDEX, export_approved
from forsy.store import AuditRow, ProposalRow, Store, open_store

runner = CliRunner()
ADA = "Ada Lovelace <ada@example.org>"
BOB = "Bob <bob@example.org>"
T1, T2, T3 = "2026-03-02T09:00:00+00:00", "2026-03-02T09:05:00+00:00", "2026-03-02T09:10:00+00:00"


@pytest.fixture(params=["sqlite", "postgresql"])
def dst_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'team.db'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def reviewed(tmp_path: Path) -> tuple[str, str, str]:
    """A local store whose demo-session draft Ada edited then approved: (url, draft, reviewed trace)."""
    url = f"sqlite:///{tmp_path / 'local.db'}"
    st = open_store(url)
    try:
        tid = put(st, SAMPLES / "claude" / "demo-session.jsonl")
        actions.edit(st, tid, "/steps/2/reasoning", "Looked first.", reviewer=ADA, at=T1)
        done = actions.approve(st, tid, "human_reviewed", reviewer=ADA, at=T2)
    finally:
        st.close()
    assert done.reviewed_trace_id
    return url, tid, done.reviewed_trace_id


def copy(src: str, dst: str) -> dict[str, object]:
    out = runner.invoke(app, ["store", "copy", "--from", src, "--to", dst, "--json"])
    rep: dict[str, object] = json.loads(out.stdout)
    # something not copied is a partial copy, for a script too (each item is in the report)
    assert out.exit_code == (ExitCode.PARTIAL if rep["not_copied"] else 0), out.output
    return rep


def history(st: Store, tid: str) -> tuple[object, list[tuple[object, ...]], list[tuple[object, ...]]]:
    """A draft's review history as copied: its state, its proposals and its audit records (not the
    ids, which are the store's own, nor its `draft_created` and the copy's own notes)."""
    s = st.draft_state(tid)
    assert s is not None
    return ((s.status, s.version, s.updated_at, s.reviewed_as, s.review_of, s.validation_level),
            [_p(p) for p in st.proposals(tid)],
            [_a(a) for a in st.audit(tid) if a.action not in ("draft_created", "review_copied")])


def _p(p: ProposalRow) -> tuple[object, ...]:
    return (p.trace_id, p.path, p.value_json, p.origin, p.actor, p.created_at, p.replaced_json, p.citations_json)


def _a(a: AuditRow) -> tuple[object, ...]:
    return (a.at, a.actor, a.action, a.trace_id, a.detail_json, a.before_sha256, a.after_sha256)


def published(url: str, dest: Path) -> tuple[bytes, dict[str, bytes]]:
    st = open_store(url)
    try:
        export_approved(st, dest)
    finally:
        st.close()
    return (dest / INDEX).read_bytes(), {p.relative_to(dest).as_posix(): p.read_bytes()
                                         for p in sorted(dest.rglob("*")) if p.is_file() and p.name != INDEX}


def test_the_destination_publishes_the_review_the_source_would(
        reviewed: tuple[str, str, str], dst_url: str, tmp_path: Path) -> None:
    src, tid, rid = reviewed
    rep = copy(src, dst_url)
    index, folders = published(src, tmp_path / "from-local")
    assert json.loads(index)["reviewer"] == ADA and json.loads(index)["validation_level"] == "human_reviewed"
    assert set(folders) >= {f"{rid}/trace.json", f"{rid}/provenance.json"}
    assert published(dst_url, tmp_path / "from-team") == (index, folders)
    assert (rep["copied"], rep["reviews_copied"], rep["proposals_copied"]) == (2, 2, 1)
    assert rep["not_copied"] == []


def test_the_destination_shows_the_edit_its_replaced_value_and_the_approval_hashes(
        reviewed: tuple[str, str, str], dst_url: str) -> None:
    src, tid, rid = reviewed
    copy(src, dst_url)
    a, b = open_store(src), open_store(dst_url)
    try:
        for t in (tid, rid):
            assert history(b, t) == history(a, t)
        [edit] = b.proposals(tid)
        assert edit.replaced_json and edit.actor == ADA and edit.created_at == T1
        [approve] = [x for x in b.audit(tid) if x.action == "approve"]
        assert (approve.actor, approve.at) == (ADA, T2) and approve.before_sha256 and approve.after_sha256
        notes = [x for x in b.audit(tid) if x.action == "review_copied"]
        assert len(notes) == 1 and src in notes[0].detail_json  # says it was copied, and from where
    finally:
        a.close()
        b.close()
    out = runner.invoke(app, ["review", "audit", tid, "--store", dst_url])
    assert out.exit_code == 0, out.output
    assert f"{approve.before_sha256[:12]}→{approve.after_sha256[:12]}" in out.stdout
    show = runner.invoke(app, ["review", "show", tid, "--store", dst_url, "--json"])
    [e] = json.loads(show.stdout)["edits"]
    assert (e["path"], e["value"], e["reviewer"]) == ("/steps/2/reasoning", "Looked first.", ADA)
    assert e["replaced"] == json.loads(edit.replaced_json)


def test_a_second_copy_adds_nothing(reviewed: tuple[str, str, str], dst_url: str) -> None:
    src, tid, rid = reviewed
    copy(src, dst_url)
    b = open_store(dst_url)
    try:
        before = [b.audit(t, limit=10**6) for t in (tid, rid)], b.proposals(tid)
    finally:
        b.close()
    rep = copy(src, dst_url)
    assert (rep["copied"], rep["already"], rep["reviews_copied"], rep["reviews_already"]) == (0, 2, 0, 2)
    assert rep["not_copied"] == []  # its own copy found there is no conflict
    b = open_store(dst_url)
    try:
        assert ([b.audit(t, limit=10**6) for t in (tid, rid)], b.proposals(tid)) == before
    finally:
        b.close()


def test_a_destination_draft_with_its_own_review_is_left_untouched_and_reported(
        reviewed: tuple[str, str, str], dst_url: str) -> None:
    src, tid, rid = reviewed
    b = open_store(dst_url)
    try:
        assert put(b, SAMPLES / "claude" / "demo-session.jsonl") == tid
        actions.needs_changes(b, tid, "Say why step 2 reads the file.", reviewer=BOB, at=T3)
        own = history(b, tid)
    finally:
        b.close()
    text = runner.invoke(app, ["store", "copy", "--from", src, "--to", dst_url])
    assert text.exit_code == ExitCode.PARTIAL and f"not copied: {tid}" in text.stderr
    rep = copy(src, dst_url)
    b = open_store(dst_url)
    try:
        assert history(b, tid) == own  # never two histories merged
        # nor the trace Ada's approval made: the team store would publish an approval it does not
        # hold, of a draft its own reviewer sent back
        assert b.trace(rid) is None
    finally:
        b.close()
    why, why_r = rep["not_copied"]  # type: ignore[misc]
    assert why.startswith(tid) and "own review history" in why
    assert why_r.startswith(rid) and f"approval of {tid}" in why_r
    assert (rep["copied"], rep["already"], rep["reviews_copied"]) == (0, 1, 0)


def test_a_draft_reviewed_further_after_its_copy_is_reported_not_updated(dst_url: str, tmp_path: Path) -> None:
    src = f"sqlite:///{tmp_path / 'local.db'}"
    a = open_store(src)
    try:
        tid = put(a, SAMPLES / "claude" / "demo-session.jsonl")
        actions.needs_changes(a, tid, "Say why step 2 reads the file.", reviewer=BOB, at=T1)
    finally:
        a.close()
    assert copy(src, dst_url)["reviews_copied"] == 1
    a = open_store(src)
    try:
        rid = actions.approve(a, tid, "human_reviewed", reviewer=ADA, at=T2).reviewed_trace_id
    finally:
        a.close()
    rep = copy(src, dst_url)
    why, why_r = rep["not_copied"]  # type: ignore[misc]
    assert why.startswith(tid) and "needs_changes, version 1" in why and "approved, version 2" in why
    assert rid is not None and why_r.startswith(rid)
    assert published(dst_url, tmp_path / "from-team") == (b"", {})


@pytest.mark.parametrize("status", ["needs_changes", "rejected"])
def test_a_draft_sent_back_or_rejected_carries_its_status_and_note(
        status: str, dst_url: str, tmp_path: Path) -> None:
    src = f"sqlite:///{tmp_path / 'local.db'}"
    a = open_store(src)
    try:
        tid = put(a, SAMPLES / "claude" / "demo-session.jsonl")
        act = actions.needs_changes if status == "needs_changes" else actions.reject
        act(a, tid, "The task text is cut short.", reviewer=ADA, at=T1)
    finally:
        a.close()
    rep = copy(src, dst_url)
    assert (rep["reviews_copied"], rep["status_set"], rep["audit_copied"]) == (1, 1, 1)
    a, b = open_store(src), open_store(dst_url)
    try:
        assert history(b, tid) == history(a, tid)
        s = b.draft_state(tid)
        assert s is not None and (s.status, s.version) == (status, 1)
        [rec] = [x for x in b.audit(tid) if x.action in ("needs_changes", "reject")]
        assert json.loads(rec.detail_json)["note"] == "The task text is cut short." and rec.actor == ADA
    finally:
        a.close()
        b.close()


def test_a_draft_an_older_copy_gave_only_its_status_gets_its_history(
        reviewed: tuple[str, str, str], dst_url: str, tmp_path: Path) -> None:
    """The forsy before this one copied only the status (an audit record by `forsy store copy`):
    that is no review of the destination's, so the history it stood for is given now, after it."""
    src, tid, rid = reviewed
    b = open_store(dst_url)
    try:
        assert put(b, SAMPLES / "claude" / "demo-session.jsonl") == tid
        b.set_draft_status(tid, "approved", "forsy store copy", T3, f"copied from {src}")
        [old] = [a for a in b.audit(tid) if a.action == "status"]
    finally:
        b.close()
    rep = copy(src, dst_url)
    assert published(dst_url, tmp_path / "from-team") == published(src, tmp_path / "from-local")
    assert rep["not_copied"] == [] and rep["reviews_copied"] == 2
    a, b = open_store(src), open_store(dst_url)
    try:
        assert history(b, tid)[:2] == history(a, tid)[:2]
        assert history(b, tid)[2] == [_a(old), *history(a, tid)[2]]  # the older copy's record stays, first
    finally:
        a.close()
        b.close()
    again = copy(src, dst_url)
    assert (again["reviews_copied"], again["reviews_already"], again["not_copied"]) == (0, 2, [])


T = TypeVar("T")


def _read_and_plan(url: str, read: Callable[[Store], T], table: str) -> tuple[T, list[str]]:
    """What `read` returns from the SQLite store at `url`, and SQLite's plan for its query on `table`."""
    st = open_store(url)
    try:
        conn = st.conn  # type: ignore[attr-defined]
        seen: list[str] = []
        conn.set_trace_callback(seen.append)
        got = read(st)
        conn.set_trace_callback(None)
        [sql] = [q for q in seen if f"FROM {table}" in q]
        return got, [r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql)]
    finally:
        st.close()


def test_one_traces_audit_records_are_found_through_indexes(reviewed: tuple[str, str, str]) -> None:
    """`store copy` (and `review export`) read one trace's audit records per trace: a query that
    scans the whole audit table made a copy of n traces read n² rows (8,000 traces: 7.8 s)."""
    src, tid, _ = reviewed
    records, plan = _read_and_plan(src, lambda st: st.audit(tid), "audit")
    assert [r.action for r in records] == ["draft_created", "edit", "approve"]
    assert not [step for step in plan if step.startswith("SCAN")], plan


def test_one_traces_proposals_are_found_through_an_index(reviewed: tuple[str, str, str]) -> None:
    """The review page and `store copy` read one draft's proposals per trace: without an index on
    proposals.trace_id each read scanned every proposal of the store."""
    src, tid, _ = reviewed
    props, plan = _read_and_plan(src, lambda st: st.proposals(tid), "proposals")
    assert [p.path for p in props] == ["/steps/2/reasoning"]
    assert not [step for step in plan if step.startswith("SCAN")], plan
