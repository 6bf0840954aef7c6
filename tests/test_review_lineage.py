"""A draft a later draft of its session replaced (the log grew, or was rewritten): its review is
closed (an edit would be lost, an approval would publish what the log no longer says) but for a
rejection, and the new draft says what people did on the earlier ones."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from _grow import append_user
from _paths import SAMPLES
from _review import ADA, cli
from forsy.errors import ExitCode, InputError
from forsy.review.actions import approve, edit, needs_changes, reject
from forsy.review.lineage import earlier_work, replacement
from forsy.review.source import from_store
from forsy.store import ReviewConflict, Store, TraceQuery, open_store
from forsy.sweep import SweepOptions, sweep

NOW = "2026-03-01T12:00:00+00:00"
BEA = "Bea <bea@example.org>"


@pytest.fixture
def log(tmp_path: Path) -> Path:
    p = tmp_path / "logs" / "p" / "s.jsonl"
    p.parent.mkdir(parents=True)
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", p)
    return p


def _sweep(store: Store, log: Path) -> str:
    """Sweep the log's folder; the id of its session's newest draft."""
    rep = sweep(store, SweepOptions(roots=[log.parent.parent], now=time.time, ignore_settle=True,
                                    claude_home=log.parent / "no-claude"))
    assert rep.failure is None and rep.counts.failed == 0
    [row] = store.traces(TraceQuery(latest_only=True, reviewed=False, status="pending"))
    return row.trace_id


def test_a_replaced_draft_takes_no_edit_or_approval_and_the_new_one_lists_its_edits(
        log: Path, store: Store) -> None:
    old = _sweep(store, log)
    edit(store, old, "/learning", "check the empty string first", reviewer=ADA, at=NOW)
    edit(store, old, "/steps/2/eval", "1", reviewer=ADA, at=NOW)
    edit(store, old, "/summary/goal_notes", "done", reviewer=BEA, at=NOW)
    assert replacement(store, old) is None and from_store(store, old).replaced_by is None
    append_user(log, "and please add a test for the empty string")
    new = _sweep(store, log)
    assert new != old and replacement(store, old) is not None and replacement(store, old).trace_id == new  # type: ignore[union-attr]
    assert from_store(store, old).replaced_by == new
    version = store.draft_state(old).version  # type: ignore[union-attr]
    for act in (lambda: edit(store, old, "/learning", "more", reviewer=ADA, at=NOW),
                lambda: approve(store, old, "human_reviewed", reviewer=ADA, at=NOW),
                lambda: needs_changes(store, old, "look again", reviewer=ADA, at=NOW)):
        with pytest.raises(ReviewConflict, match=f"draft {old} was replaced by {new} \\(\\d+ steps\\)"):
            act()
    assert store.draft_state(old).version == version  # type: ignore[union-attr]  # nothing written
    assert [r for r in store.traces(TraceQuery(reviewed=True))] == []  # nothing published
    # what was done on it is said on the new draft, by whom
    assert from_store(store, new).earlier_work == [(old, f"3 edit(s) by {ADA}, {BEA}")]
    assert earlier_work(store, old) == []
    # a rejection publishes nothing and loses nothing: a replaced draft may still take one
    reject(store, old, "superseded", reviewer=ADA, at=NOW)
    assert store.draft_state(old).status == "rejected"  # type: ignore[union-attr]
    assert from_store(store, new).earlier_work == [(old, f'rejected by {ADA}: "superseded"; 3 edit(s) by {ADA}, {BEA}')]


def test_a_rejection_is_said_on_the_drafts_of_the_session_that_follow(log: Path, store: Store) -> None:
    first = _sweep(store, log)
    reject(store, first, "not our project", reviewer=ADA, at=NOW)
    append_user(log, "one more thing")
    second = _sweep(store, log)  # a draft nobody touched between: the first's work is still said
    append_user(log, "and another")
    third = _sweep(store, log)
    assert len({first, second, third}) == 3
    assert from_store(store, third).earlier_work == [(first, f'rejected by {ADA}: "not our project"')]
    approve(store, third, "human_reviewed", reviewer=ADA, at=NOW)  # the newest takes a review


def test_the_terminal_refuses_a_replaced_draft_with_the_conflict_exit_and_names_the_new_one(
        log: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    st = open_store(url)
    try:
        old = _sweep(st, log)
        append_user(log, "and please add a test for the empty string")
        new = _sweep(st, log)
    finally:
        st.close()
    code, _, err = cli("review", "approve", old, "--store", url)
    assert code == ExitCode.CONFLICT and f"was replaced by {new}" in err and "review that one" in err
    code, _, err = cli("review", "edit", old, "--field", "learning", "--value", "x", "--store", url)
    assert code == ExitCode.CONFLICT and f"was replaced by {new}" in err
    code, out, err = cli("review", "approve", new, "--store", url)
    assert code == 0, err


# --------------------------------------------------------------------------- an edit the format refuses

def test_an_edit_that_would_break_the_formats_rules_is_refused_and_nothing_saved(log: Path, store: Store) -> None:
    tid = _sweep(store, log)
    d = from_store(store, tid)
    user = next(i for i, s in enumerate(d.steps, 1) if s.get("action") == "user_message")
    version = store.draft_state(tid).version  # type: ignore[union-attr]
    # a user's message has no reasoning (the format's rule): saved, no approval could ever pass
    with pytest.raises(InputError, match=rf"/steps/{user}/reasoning: the edit would break the format's rules "
                                         r"\(U\d+ .*reasoning.*\); nothing was saved"):
        edit(store, tid, f"/steps/{user}/reasoning", "x", reviewer=ADA, at=NOW)
    assert store.draft_state(tid).version == version and store.proposals(tid) == []  # type: ignore[union-attr]
    done = edit(store, tid, "/learning", "check the empty string first", reviewer=ADA, at=NOW)  # a fine one is saved
    assert done.state.version == version + 1
    approve(store, tid, "human_reviewed", reviewer=ADA, at=NOW)


def test_the_pages_say_which_draft_replaced_this_one_and_what_was_done_on_the_earlier(
        log: Path, store: Store, tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from _review import HOST, TOKEN
    from forsy.web.app import make_app
    from forsy.web.guard import Settings

    old = _sweep(store, log)
    edit(store, old, "/learning", "check the empty string first", reviewer=ADA, at=NOW)
    append_user(log, "and please add a test for the empty string")
    new = _sweep(store, log)
    url = f"sqlite:///{tmp_path / 's.db'}"
    settings = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST})
    with TestClient(make_app(settings), base_url=f"http://{HOST}", follow_redirects=True) as c:
        c.get(f"/?token={TOKEN}")
        page = c.get(f"/t/{old}").text
        assert f'id="replaced">This draft was replaced by <a href="/t/{new}">{new}</a>' in page
        assert 'id="approve-form"' not in page and 'id="reject-form"' not in page  # nothing to decide here
        page = c.get(f"/t/{new}").text
        assert f'<li><a href="/t/{old}">{old}</a>: 1 edit(s) by {ADA.replace("<", "&lt;").replace(">", "&gt;")}</li>' \
            in page
        assert 'id="approve-form"' in page
    code, out, _ = cli("review", "show", new, "--store", url)
    assert code == 0 and "earlier drafts of this session were worked on" in out and f"{old}: 1 edit(s) by" in out
    code, out, _ = cli("review", "show", old, "--store", url)
    assert code == 0 and f"replaced by {new}" in out
