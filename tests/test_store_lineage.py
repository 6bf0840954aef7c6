"""Which draft a new draft of a session replaces (`prior_trace_id`), on both backends: the previous
draft of the same session whichever sweeper made it (a PostgreSQL store shared by sweepers of
several names, a log folder they share or mount at other paths), never the trace an approval made;
and an approval makes no session of the reviewer's machine. Real sweeps of a Claude Code log and
hand-built traces; PostgreSQL through conftest's throwaway server."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from _grow import append_user
from _paths import SAMPLES
from forsy.review.actions import approve
from forsy.review.lineage import earlier_work, replacement
from forsy.store import NewTrace, Store, StoredFile, TraceQuery, TraceRow, open_store
from forsy.store.sink import add_draft
from forsy.sweep import SweepOptions, sweep

NOW = "2026-03-01T12:00:00+00:00"
ADA = "Ada Lovelace <ada@example.org>"


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def stores() -> Iterator[list[Store]]:
    """The stores a test opened (closed after it)."""
    opened: list[Store] = []
    yield opened
    for s in opened:
        s.close()


def as_sweeper(url: str, name: str, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> Store:
    """The store at `url`, opened by the sweeper (or reviewer) named `name` (FORSY_HOST)."""
    monkeypatch.setenv("FORSY_HOST", name)
    st = open_store(url)
    stores.append(st)
    return st


def session_log(folder: Path, session_id: str | None = None) -> Path:
    """The demo Claude Code session in `folder/p/s.jsonl` (under another sessionId when given)."""
    p = folder / "p" / "s.jsonl"
    p.parent.mkdir(parents=True, exist_ok=True)
    text = (SAMPLES / "claude" / "demo-session.jsonl").read_text("utf-8")
    if session_id is not None:
        [old] = {json.loads(x)["sessionId"] for x in text.splitlines() if '"sessionId"' in x}
        text = text.replace(old, session_id)
    p.write_text(text, "utf-8")
    return p


def swept(store: Store, root: Path) -> None:
    rep = sweep(store, SweepOptions(roots=[root], now=time.time, ignore_settle=True, claude_home=root / "no-claude"))
    assert rep.failure is None and rep.counts.failed == 0 and rep.counts.traces_written == 1


def later() -> str:
    """A time after the sweeps so far (an approval made after the draft)."""
    return datetime.fromtimestamp(time.time() + 1, UTC).isoformat(timespec="seconds")


def queue(store: Store) -> list[TraceRow]:
    """What the review queue lists: the newest draft of each session, open for review."""
    return store.traces(TraceQuery(latest_only=True, reviewed=False, open_only=True))


def drafts(store: Store) -> list[TraceRow]:
    """Every draft a sweep made (no reviewed copy), oldest first."""
    return sorted(store.traces(TraceQuery(reviewed=False)), key=lambda r: r.draft_id)


# --------------------------------------------------------------------------- two sweepers, one session
def test_a_session_another_sweeper_drafted_grows_and_the_new_draft_replaces_that_one(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    log = session_log(tmp_path / "shared")
    b = as_sweeper(pg_url, "sweeper-b", monkeypatch, stores)
    a = as_sweeper(pg_url, "sweeper-a", monkeypatch, stores)
    swept(b, tmp_path / "shared")
    append_user(log, "and please add a test for the empty string")
    swept(a, tmp_path / "shared")
    first, second = drafts(a)
    assert second.prior_trace_id == first.trace_id and second.steps > first.steps
    assert [r.trace_id for r in queue(a)] == [second.trace_id]  # one pending draft, not two
    assert replacement(a, first.trace_id) is not None
    # and back: b sweeps it grown again, after a
    append_user(log, "one more thing")
    swept(b, tmp_path / "shared")
    third = drafts(b)[-1]
    assert third.prior_trace_id == second.trace_id
    assert [r.trace_id for r in queue(b)] == [third.trace_id]


def test_the_same_session_under_another_path_on_another_machine_is_linked(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    """One log folder mounted at /mnt/… on one machine and /srv/… on another: the log's own session
    id and start, not the path, say it is the same session."""
    there = session_log(tmp_path / "srv-logs")
    b = as_sweeper(pg_url, "sweeper-b", monkeypatch, stores)
    swept(b, tmp_path / "srv-logs")
    here = session_log(tmp_path / "mnt-logs")
    shutil.copy(there, here)
    append_user(here, "and please add a test for the empty string")
    a = as_sweeper(pg_url, "sweeper-a", monkeypatch, stores)
    swept(a, tmp_path / "mnt-logs")
    first, second = drafts(a)
    assert first.unit_path != second.unit_path and second.prior_trace_id == first.trace_id
    assert [r.trace_id for r in queue(a)] == [second.trace_id]


def test_two_files_of_one_sweeper_are_two_sessions_even_of_one_id(
        url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    """On one machine the file is the session: a copy elsewhere that a person edited is drafted
    apart, as before. A copy that only grew holds the first one's steps, then more: it replaces
    the first one's draft (copies of one session lagging behind one another leave the fullest in
    the queue; `store.sink.add_draft`)."""
    old = session_log(tmp_path / "before")
    st = as_sweeper(url, "laptop", monkeypatch, stores)
    swept(st, tmp_path / "before")
    copy = session_log(tmp_path / "after")
    shutil.copy(old, copy)
    append_user(copy, "and please add a test for the empty string")
    swept(st, tmp_path / "after")
    first, second = drafts(st)
    assert second.prior_trace_id == first.trace_id
    assert {r.trace_id for r in queue(st)} == {second.trace_id}
    edited = session_log(tmp_path / "edited")
    edited.write_text(old.read_text("utf-8").replace("slugify", "slugger"), "utf-8")
    append_user(edited, "and please add a test for the empty string")
    swept(st, tmp_path / "edited")
    *_, third = drafts(st)
    assert third.prior_trace_id is None
    assert {r.trace_id for r in queue(st)} == {second.trace_id, third.trace_id}


def test_another_sweepers_session_is_the_same_by_its_kind_id_and_start(
        pg_url: str, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    b = as_sweeper(pg_url, "sweeper-b", monkeypatch, stores)
    a = as_sweeper(pg_url, "sweeper-a", monkeypatch, stores)
    assert b.add_trace(hand_trace("t-1", unit="/logs/a/run.jsonl", session="run"), NOW)
    assert a.prior_draft_id(hand_trace("t-2", unit="/srv/logs/run.jsonl", session="run")) == "t-1"
    for other in (hand_trace("t-2", unit="/srv/logs/run.jsonl", session="run", started="2026-03-02T10:00:00Z"),
                  hand_trace("t-2", unit="/srv/logs/run.jsonl", session="run", started=None),  # no start: not alike
                  hand_trace("t-2", unit="/srv/logs/run.jsonl", session="other"),
                  hand_trace("t-2", unit="/srv/logs/run.jsonl", session="run", kind="codex")):
        assert a.prior_draft_id(other) is None


def test_in_a_shared_folder_each_file_follows_its_own_drafts(
        pg_url: str, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    """Two files of one session id and start in a folder both sweepers read (a session and a copy a
    person edited): each new draft follows the drafts of its own file."""
    b = as_sweeper(pg_url, "sweeper-b", monkeypatch, stores)
    a = as_sweeper(pg_url, "sweeper-a", monkeypatch, stores)
    assert b.add_trace(hand_trace("t-orig", unit="/shared/p/s.jsonl"), NOW)
    assert b.add_trace(hand_trace("t-edit", unit="/shared/p/s-edited.jsonl"), NOW)
    assert a.prior_draft_id(hand_trace("t-orig2", unit="/shared/p/s.jsonl", steps=4)) == "t-orig"
    assert a.prior_draft_id(hand_trace("t-edit2", unit="/shared/p/s-edited.jsonl", steps=4)) == "t-edit"


def test_a_session_of_the_same_path_and_name_on_another_machine_is_another_session(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    """Two machines, each its own session in a file of the same path whose id is the file's name:
    neither replaces the other (their logs started at other times)."""
    b = as_sweeper(pg_url, "sweeper-b", monkeypatch, stores)
    a = as_sweeper(pg_url, "sweeper-a", monkeypatch, stores)
    assert b.add_trace(hand_trace("t-b", started="2026-03-01T09:00:00Z", session="s"), NOW)
    mine = hand_trace("t-a", started="2026-03-01T11:00:00Z", session="s")
    assert a.prior_draft_id(mine) is None
    assert a.prior_draft_id(hand_trace("t-a", started=None, session="s")) is None  # no start: not said alike
    assert a.add_trace(mine, NOW)
    assert {r.trace_id for r in queue(a)} == {"t-a", "t-b"}
    # each machine's own file still links its own drafts, whatever their start
    assert a.prior_draft_id(hand_trace("t-a2", started=None, session="s")) == "t-a"
    assert b.prior_draft_id(hand_trace("t-b2", started="2026-03-01T08:00:00Z", session="s")) == "t-b"


def test_a_lagging_copy_does_not_hide_the_fuller_draft_another_sweeper_made(
        pg_url: str, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    """A copy not yet up to date (a synced folder) read after the fuller one replaces nothing of
    another machine's: it would hide the fuller draft from the queue."""
    a = as_sweeper(pg_url, "sweeper-a", monkeypatch, stores)
    b = as_sweeper(pg_url, "sweeper-b", monkeypatch, stores)
    assert a.add_trace(hand_trace("t-1", steps=10), NOW)
    assert a.add_trace(hand_trace("t-2", steps=18, prior="t-1"), NOW)
    assert b.prior_draft_id(hand_trace("t-x", steps=16, unit="/other/a.jsonl")) == "t-1"
    assert b.prior_draft_id(hand_trace("t-y", steps=18, unit="/other/a.jsonl")) == "t-2"


def test_the_draft_replaced_is_the_newest_of_the_session_whatever_the_sweepers_clocks(
        pg_url: str, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    """Sweeper a's clock runs late: its draft, made after b's and replacing it, has the earlier
    time. The next draft replaces a's (the newest, the one the queue shows), not b's."""
    a = as_sweeper(pg_url, "sweeper-a", monkeypatch, stores)
    b = as_sweeper(pg_url, "sweeper-b", monkeypatch, stores)
    assert a.add_trace(hand_trace("t-1"), "2026-03-01T10:00:00+00:00")
    assert b.add_trace(hand_trace("t-2", prior="t-1", steps=4), "2026-03-01T10:10:00+00:00")
    assert a.add_trace(hand_trace("t-3", prior="t-2", steps=5), "2026-03-01T10:05:00+00:00")
    assert b.prior_draft_id(hand_trace("t-4", steps=6)) == "t-3"
    assert a.prior_draft_id(hand_trace("t-4", steps=6)) == "t-3"


# --------------------------------------------------------------------------- an approval is no draft
def test_a_grown_session_replaces_the_draft_not_the_trace_its_approval_made(
        url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    """The reviewer works under the sweep's own name (one machine, the default)."""
    st = as_sweeper(url, "laptop", monkeypatch, stores)
    log = session_log(tmp_path / "logs")
    swept(st, tmp_path / "logs")
    [draft] = drafts(st)
    done = approve(st, draft.trace_id, "human_reviewed", reviewer=ADA, at=later())
    assert done.reviewed_trace_id is not None
    append_user(log, "and please add a test for the empty string")
    swept(st, tmp_path / "logs")
    old, new = drafts(st)
    assert old.trace_id == draft.trace_id
    assert new.prior_trace_id == draft.trace_id  # not the reviewed copy
    nxt = replacement(st, draft.trace_id)
    assert nxt is not None and nxt.trace_id == new.trace_id
    [work] = earlier_work(st, new.trace_id)  # what was done on the draft is said on the new one
    assert draft.trace_id in str(work) and f"approved by {ADA}" in str(work)
    assert [r.trace_id for r in queue(st)] == [new.trace_id]
    made = [a for a in st.audit(new.trace_id) if a.action == "draft_created"]
    assert json.loads(made[0].detail_json)["prior_trace_id"] == draft.trace_id


def test_a_grown_session_approved_on_another_machine_replaces_the_sweeps_draft(
        url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    log = session_log(tmp_path / "logs")
    st = as_sweeper(url, "laptop", monkeypatch, stores)
    swept(st, tmp_path / "logs")
    [draft] = drafts(st)
    reviewer = as_sweeper(url, "review-server", monkeypatch, stores)
    approve(reviewer, draft.trace_id, "human_reviewed", reviewer=ADA, at=later())
    append_user(log, "and please add a test for the empty string")
    swept(st, tmp_path / "logs")
    assert drafts(st)[-1].prior_trace_id == draft.trace_id


def test_an_approval_makes_no_session_of_the_reviewers_machine(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    session_log(tmp_path / "logs")
    st = as_sweeper(pg_url, "laptop", monkeypatch, stores)
    swept(st, tmp_path / "logs")
    [draft] = drafts(st)
    reviewer = as_sweeper(pg_url, "review-server", monkeypatch, stores)
    done = approve(reviewer, draft.trace_id, "human_reviewed", reviewer=ADA, at=NOW)
    conn = reviewer.conn  # type: ignore[attr-defined]
    assert [r[0] for r in conn.execute("SELECT host FROM sessions").fetchall()] == ["laptop"]
    refs = dict(conn.execute("SELECT trace_id, session_ref FROM traces").fetchall())
    assert refs[done.reviewed_trace_id] == refs[draft.trace_id]
    row = reviewer.trace(done.reviewed_trace_id)  # type: ignore[arg-type]
    assert row is not None and (row.unit_path, row.session_id) == (draft.unit_path, draft.session_id)


def test_the_prior_draft_is_never_a_reviewed_copy_nor_the_trace_itself(
        url: str, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    from forsy.store import ReviewChange

    st = as_sweeper(url, "laptop", monkeypatch, stores)
    assert st.add_trace(hand_trace("t-1"), NOW)
    st.record_review(ReviewChange("t-1", 0, "approve", ADA, "2026-03-01T12:30:00+00:00", status="approved",
                                  reviewed=hand_trace("r-1", prior="t-1"), validation_level="human_reviewed"))
    assert st.prior_draft_id(hand_trace("t-2", steps=4)) == "t-1"
    assert st.latest_trace_id("/logs/a.jsonl", "sess-1") == "t-1"
    assert st.prior_draft_id(hand_trace("t-x", session="sess-404")) is None
    assert st.prior_draft_id(hand_trace("t-1")) is None  # stored already: it replaces nothing


def test_two_sweepers_drafting_one_session_at_once_leave_one_draft_in_the_queue(
        pg_url: str, monkeypatch: pytest.MonkeyPatch, stores: list[Store]) -> None:
    """Sweepers a and b read one shared folder and draft the same session at the same moment: b's
    lookup of the earlier draft waits until a's draft is committed, then links it, so the queue
    holds one draft of the session (each finding none left two pending drafts of one session)."""
    a = as_sweeper(pg_url, "sweeper-a", monkeypatch, stores)
    b = as_sweeper(pg_url, "sweeper-b", monkeypatch, stores)
    done: list[bool] = []
    b_draft = hand_trace("t-b", unit="/mnt/b/shared/a.jsonl", steps=5)
    other = threading.Thread(target=lambda: done.append(add_draft(b, b_draft, NOW)))
    with a.transaction():  # a is between its lookup and its commit when b starts
        assert a.prior_draft_id(hand_trace("t-a", steps=5)) is None
        other.start()
        time.sleep(1.0)
        assert other.is_alive() and not done  # b waits for a's draft
        assert a.add_trace(hand_trace("t-a", steps=5), NOW)
    other.join(timeout=30)
    assert done == [True]
    assert b.trace("t-b").prior_trace_id == "t-a"  # type: ignore[union-attr]
    assert [r.trace_id for r in queue(a)] == ["t-b"]


def hand_trace(tid: str, *, session: str = "sess-1", unit: str = "/logs/a.jsonl", prior: str | None = None,
               started: str | None = "2026-03-01T10:00:00Z", steps: int = 3, kind: str = "claude_code") -> NewTrace:
    return NewTrace(trace_id=tid, source_kind=kind, session_id=session, unit_path=unit, agent="claude-code",
                    project="~/proj", started_at=started, ended_at="2026-03-01T10:05:00Z", confidence=70,
                    steps=steps, turns=1, task="fix the parser",
                    files=[StoredFile("trace.json", f'{{"trace": "{tid}"}}\n'.encode())],
                    texts=[("prompt", "fix the parser")], prior_trace_id=prior)
