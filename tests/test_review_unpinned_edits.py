"""An edit given without a version (`forsy review edit` without `--expect-version`) sets the field
on the draft as it is when the edit is saved: another reviewer's action landing between the
moment the draft was read and the moment the edit is written is not a conflict the reviewer has
to resolve by running the command again (ten reviewers editing different steps at once: nine
were refused). Both edits are kept, in the order they were saved, and an edit of the same field
records the other reviewer's value as the one it replaced. An edit pinned to a version, and every
approval, rejection and request for changes, is still refused when the draft moved on."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from _paths import SAMPLES
from _review import ADA, put
from forsy.review import actions
from forsy.store import ReviewChange, ReviewConflict, Store, open_store

BOB = "Bob Builder <bob@example.org>"
T = "2026-03-02T10:00:{:02d}+00:00"
DEMO = SAMPLES / "claude" / "demo-session.jsonl"


class Racing:
    """The store, with another reviewer's action run just before each of the first `races`
    review changes is saved (after the draft was read): the change then names a version that
    is no longer the draft's, as when two reviewers act at once."""

    def __init__(self, store: Store, other: Any, races: int) -> None:
        self._store, self._other, self.races, self.saves = store, other, races, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def record_review(self, change: ReviewChange) -> Any:
        self.saves += 1
        if self.races > 0:
            self.races -= 1
            self._other(self._store)
        return self._store.record_review(change)


@pytest.fixture
def st(tmp_path: Path) -> Any:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield store
    store.close()


def bob_edits(path: str, value: str, second: int) -> Any:
    return lambda s: actions.edit(s, TID[0], path, value, reviewer=BOB, at=T.format(second))


TID: list[str] = [""]


def edits(st: Store, tid: str) -> list[tuple[str, str, Any, Any]]:
    return [(p.path, p.actor, json.loads(p.value_json), json.loads(p.replaced_json or "null"))
            for p in st.proposals(tid)]


def test_an_unpinned_edit_lands_after_another_reviewers_edit_of_another_field(st: Store) -> None:
    TID[0] = tid = put(st, DEMO)
    racing = Racing(st, bob_edits("/steps/3/eval", "1", 1), races=1)
    actions.edit(racing, tid, "/steps/5/eval", "-1", reviewer=ADA, at=T.format(2))
    assert racing.saves == 2  # refused once (Bob came first), then saved on the draft as it was
    assert edits(st, tid) == [("/steps/3/eval", BOB, 1, -1), ("/steps/5/eval", ADA, -1, 0)]
    assert st.draft_state(tid).version == 2  # type: ignore[union-attr]
    assert [a.action for a in st.audit(tid)] == ["draft_created", "edit", "edit"]


def test_an_unpinned_edit_of_the_same_field_replaces_the_other_reviewers_value_and_says_so(st: Store) -> None:
    TID[0] = tid = put(st, DEMO)
    racing = Racing(st, bob_edits("/steps/3/eval", "1", 1), races=1)
    actions.edit(racing, tid, "/steps/3/eval", "0", reviewer=ADA, at=T.format(2))
    # Bob's value is kept in the history, as the value Ada's edit replaced (not the draft's -1)
    assert edits(st, tid) == [("/steps/3/eval", BOB, 1, -1), ("/steps/3/eval", ADA, 0, 1)]
    [_, _, ada] = st.audit(tid)
    assert json.loads(ada.detail_json)["replaced"] == 1


def test_a_pinned_edit_of_the_same_field_and_every_status_action_are_still_refused(st: Store) -> None:
    TID[0] = tid = put(st, DEMO)
    v0 = st.draft_state(tid).version  # type: ignore[union-attr]
    racing = Racing(st, bob_edits("/steps/3/eval", "1", 1), races=1)
    with pytest.raises(actions.ChangedSince) as e:  # Bob set the field the form showed
        actions.edit(racing, tid, "/steps/3/eval", "-1", reviewer=ADA, at=T.format(2),
                     expected_version=v0)
    assert racing.saves == 1 and e.value.field == "/steps/3/eval" and e.value.change.actor == BOB
    # pinned to the version its form was loaded at, an edit of another field lands after Bob's
    racing = Racing(st, bob_edits("/steps/4/eval", "1", 2), races=1)
    actions.edit(racing, tid, "/steps/5/eval", "-1", reviewer=ADA, at=T.format(3), expected_version=v0)
    assert racing.saves == 2  # at v1, refused (Bob's edit landed first), then saved at v2
    assert edits(st, tid)[-1] == ("/steps/5/eval", ADA, -1, 0)
    acts: list[Callable[[Any], Any]] = [
        lambda s: actions.approve(s, tid, "expert_reviewed", reviewer=ADA, at=T.format(3)),
        lambda s: actions.reject(s, tid, "No.", reviewer=ADA, at=T.format(3)),
        lambda s: actions.needs_changes(s, tid, "More.", reviewer=ADA, at=T.format(3)),
    ]
    for i, act in enumerate(acts):
        # an approval decides on the draft the approver read: one Bob changed meanwhile is not it
        racing = Racing(st, bob_edits("/steps/4/eval", str(i % 2), 4 + i), races=1)
        with pytest.raises(ReviewConflict):
            act(racing)
        assert racing.saves == 1, i
    assert [p.actor for p in st.proposals(tid)] == [BOB, BOB, ADA, BOB, BOB, BOB]
    assert st.draft_state(tid).status == "pending"  # type: ignore[union-attr]


def test_an_edit_raced_every_time_gives_up_and_says_so(st: Store) -> None:
    TID[0] = tid = put(st, DEMO)
    racing = Racing(st, bob_edits("/steps/3/eval", "1", 1), races=1000)
    with pytest.raises(ReviewConflict) as e:
        actions.edit(racing, tid, "/steps/5/eval", "-1", reviewer=ADA, at=T.format(2))
    assert racing.saves == actions.UNPINNED_TRIES
    assert "another review action came first" in e.value.message
    assert all(p.actor == BOB for p in st.proposals(tid))


def test_reviewers_editing_different_steps_at_once_all_land(tmp_path: Path) -> None:
    """Ten edits of ten steps from two reviewers in threads, each with its own connection."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        tid = put(st, DEMO)
        n = min(10, len(json.loads([f for f in st.trace_files(tid) if f.name == "trace.json"][0].data)["steps"]))
    finally:
        st.close()
    errors: list[BaseException] = []

    def one(step: int) -> None:
        s = open_store(url)
        try:
            actions.edit(s, tid, f"/steps/{step}/causal_note", f"note {step}", reviewer=(ADA, BOB)[step % 2],
                         at=T.format(step))
        except BaseException as e:  # collected, asserted on below
            errors.append(e)
        finally:
            s.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(1, n + 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    st = open_store(url)
    try:
        assert sorted(p.path for p in st.proposals(tid)) == sorted(f"/steps/{i}/causal_note" for i in range(1, n + 1))
        assert st.draft_state(tid).version == n  # type: ignore[union-attr]
    finally:
        st.close()
