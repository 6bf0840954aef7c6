"""The validator's findings on a review server's draft page are worked out once for the same
bytes (`needs.Seen`): a draft's page is loaded again and again while a person reviews it, and
validating a large draft is most of its time. The bytes are the key, so an edit (new bytes) is
validated again; without a `Seen`, every call validates."""

from __future__ import annotations

from typing import Any

import pytest

from _paths import SAMPLES
from _review import ADA, put
from forsy.review import needs as nd
from forsy.review.actions import edit
from forsy.review.source import from_store
from forsy.store import Store

NOW = "2026-03-01T10:00:00+00:00"


def test_the_same_draft_is_validated_once_and_an_edited_one_again(store: Store,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = nd._findings

    def counted(files: Any) -> Any:
        calls.append(1)
        return real(files)

    monkeypatch.setattr(nd, "_findings", counted)
    seen = nd.Seen()
    tid = put(store, SAMPLES / "claude" / "demo-session.jsonl")
    first = nd.needs(from_store(store, tid), seen=seen).findings
    again = nd.needs(from_store(store, tid), seen=seen).findings
    assert len(calls) == 1 and again == first
    assert nd.needs(from_store(store, tid)).findings == first and len(calls) == 2  # no `seen`: validated
    edit(store, tid, "/steps/3/eval", "1", reviewer=ADA, at=NOW)
    edited = nd.needs(from_store(store, tid), seen=seen).findings
    assert len(calls) == 3 and edited != first
    assert nd.needs(from_store(store, tid), seen=seen).findings == edited and len(calls) == 3


def test_a_finding_an_edit_makes_is_shown_at_once(store: Store) -> None:
    tid = put(store, SAMPLES / "claude" / "demo-session.jsonl")
    seen = nd.Seen()
    before = {(f.rule, f.message) for f in nd.needs(from_store(store, tid), seen=seen).findings}
    edit(store, tid, "/steps/3/eval", "1", reviewer=ADA, at=NOW)  # step 3 failed: +1 contradicts it
    after = {(f.rule, f.message) for f in nd.needs(from_store(store, tid), seen=seen).findings}
    assert ("C008", "eval +1 but success is false") in after - before  # not the draft's list, kept from before
