"""A review action, on both stores: an edit's proposal stored as given, an approval storing the
trace it made as an approved trace pointing back at its draft, the draft's version and status
moved on and the action audited; a trace without a draft refused by name. And the sweep lock
asks whether its holder is alive about the holder itself."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from forsy.errors import InputError
from forsy.store import LockInfo, NewProposal, ReviewChange, Store, StoredFile, open_store
from forsy.store.models import NewTrace

NOW = "2026-03-01T12:00:00+00:00"
LATER = "2026-03-01T13:00:00+00:00"


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 's.db'}" if request.param == "sqlite" else str(request.getfixturevalue("pg_url"))
    st = open_store(url)
    yield st
    st.close()


def _trace(tid: str, session: str, prior: str | None = None) -> NewTrace:
    return NewTrace(trace_id=tid, source_kind="codex", session_id=session, unit_path=f"/l/{session}.jsonl",
                    agent=None, project=None, started_at=None, ended_at=None, confidence=None, steps=1, turns=1,
                    task="t", files=[StoredFile("trace.json", b"{}\n")], texts=[], prior_trace_id=prior)


def test_an_edit_then_an_approval_are_stored_as_given(store: Store) -> None:
    store.add_trace(_trace("t-1", "s1"), NOW)
    edit = NewProposal("/steps/0/reasoning", '"because"', "human", "ana", '"old"', '["src/a.py"]')
    s1 = store.record_review(ReviewChange("t-1", 0, "edit", "ana", NOW, proposal=edit, detail_json='{"n": 1}',
                                          before_sha256="a" * 64, after_sha256="b" * 64))
    assert (s1.status, s1.version, s1.updated_at, s1.reviewed_as) == ("pending", 1, NOW, None)
    [p] = store.proposals("t-1")
    assert (p.trace_id, p.path, p.value_json, p.origin, p.actor, p.created_at, p.replaced_json,
            p.citations_json) == ("t-1", "/steps/0/reasoning", '"because"', "human", "ana", NOW, '"old"',
                                  '["src/a.py"]')
    s2 = store.record_review(ReviewChange("t-1", 1, "approve", "bo", LATER, status="approved",
                                          reviewed=_trace("r-1", "s1", prior="t-1"),
                                          validation_level="human_reviewed"))
    assert (s2.status, s2.version, s2.updated_at, s2.reviewed_as) == ("approved", 2, LATER, "r-1")
    made = store.draft_state("r-1")
    assert made is not None
    assert (made.status, made.review_of, made.validation_level, made.updated_at) == \
        ("approved", "t-1", "human_reviewed", LATER)
    trace = store.trace("r-1")
    assert trace is not None and trace.created_at == LATER
    audit = [(a.at, a.actor, a.action, a.trace_id, a.detail_json, a.before_sha256, a.after_sha256)
             for a in store.audit("t-1") if a.action != "draft_created"]
    assert audit == [(NOW, "ana", "edit", "t-1", '{"n": 1}', "a" * 64, "b" * 64),
                     (LATER, "bo", "approve", "t-1", "{}", None, None)]


def test_a_review_or_a_copy_of_a_trace_without_a_draft_is_refused_by_name(store: Store) -> None:
    with pytest.raises(InputError) as e:
        store.record_review(ReviewChange("t-9", 0, "reject", "ana", NOW, status="rejected"))
    assert str(e.value) == "no draft of trace t-9 in the store"
    st = store.draft_state("t-1")
    with pytest.raises(InputError) as e:
        store.import_review("t-9", st, [], [], "", NOW)  # type: ignore[arg-type]
    assert str(e.value) == "no draft of trace t-9 in the store"


def test_the_lock_asks_about_its_holder(store: Store) -> None:
    first, second = LockInfo(os.getpid() + 1, "h1", NOW), LockInfo(os.getpid() + 2, "h2", LATER)
    assert store.acquire_lock(first, lambda _: True) is None
    asked: list[LockInfo] = []

    def alive(holder: LockInfo) -> bool:
        asked.append(holder)
        return holder == first

    assert store.acquire_lock(second, alive) == first
    assert asked and set(asked) == {first}  # the holder's own record, never anything else


def test_a_status_change_is_audited_from_to_and_with_its_note(store: Store) -> None:
    store.add_trace(_trace("t-1", "s1"), NOW)
    store.set_draft_status("t-1", "rejected", "ana", NOW)  # no note given: an empty one
    store.set_draft_status("t-1", "pending", "bo", LATER, note="a second look")
    changes = [(a.at, a.actor, a.action, json.loads(a.detail_json)) for a in store.audit("t-1")
               if a.action == "status"]
    assert changes == [(NOW, "ana", "status", {"from": "pending", "to": "rejected", "note": ""}),
                       (LATER, "bo", "status", {"from": "rejected", "to": "pending", "note": "a second look"})]
    with pytest.raises(InputError) as e:
        store.set_draft_status("t-9", "rejected", "ana", NOW)
    assert str(e.value) == "no draft of trace t-9 in the store"
