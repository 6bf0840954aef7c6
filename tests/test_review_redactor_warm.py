"""A draft's redactor (rebuilt from its log to mask the evidence a page shows: seconds for a
large session) is rebuilt once however many ask at once, and a review server starts rebuilding
it when the draft's page is shown, so the first step a person opens does not wait for it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.testclient import TestClient

from _paths import SAMPLES
from _review import ADA, HOST, TOKEN, put
from forsy.errors import InputError
from forsy.review import redacted
from forsy.review.redacted import cached_redactor, warm
from forsy.review.source import LoadedTrace, from_store
from forsy.store import Store
from forsy.web.app import make_app
from forsy.web.guard import Settings


@pytest.fixture(autouse=True)
def empty_cache(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    redacted._CACHE.clear()
    monkeypatch.setattr(redacted, "_WARMING", None)
    yield
    if redacted._WARMING is not None:
        redacted._WARMING.join(30)
    redacted._CACHE.clear()


def _slow(monkeypatch: pytest.MonkeyPatch, fail_first: bool = False) -> list[str]:
    made: list[str] = []

    def fake(d: LoadedTrace) -> Any:
        made.append(d.trace_id)
        time.sleep(0.3)  # long enough for the other askers to arrive while it is built
        if fail_first and len(made) == 1:
            raise InputError("the log cannot be read again")
        return SimpleNamespace(name=f"{d.trace_id}#{len(made)}", issued=frozenset)

    monkeypatch.setattr(redacted, "session_redactor", fake)
    return made


def _loaded(tid: str = "t") -> LoadedTrace:
    return LoadedTrace(tid, {}, {}, {"sources": {"s.jsonl": "a"}}, {}, [], None)


def test_askers_at_once_wait_for_one_build(monkeypatch: pytest.MonkeyPatch) -> None:
    made = _slow(monkeypatch)
    got: list[str] = []
    threads = [threading.Thread(target=lambda: got.append(cached_redactor(_loaded()).name))  # type: ignore[attr-defined]
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert made == ["t"] and got == ["t#1"] * 4
    assert redacted._BUILDING == {}


def test_a_build_that_fails_leaves_the_next_asker_to_try(monkeypatch: pytest.MonkeyPatch) -> None:
    made = _slow(monkeypatch, fail_first=True)
    errors: list[str] = []
    got: list[str] = []

    def ask() -> None:
        try:
            got.append(cached_redactor(_loaded()).name)  # type: ignore[attr-defined]
        except InputError as e:
            errors.append(e.message)

    first = threading.Thread(target=ask)
    first.start()
    time.sleep(0.1)
    second = threading.Thread(target=ask)
    second.start()
    first.join(10)
    second.join(10)
    assert errors == ["the log cannot be read again"] and got == ["t#2"] and made == ["t", "t"]
    assert redacted._BUILDING == {}


def test_warm_builds_in_the_background_once_and_not_for_a_log_not_here(store: Store,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    tid = put(store, SAMPLES / "claude" / "demo-session.jsonl")
    d = from_store(store, tid)
    t = warm(d)
    assert t is not None and warm(d) is None  # one at a time
    t.join(60)
    assert any(k[0] == tid for k in redacted._CACHE)
    assert warm(d) is None  # kept: nothing to do
    made = _slow(monkeypatch)
    cached_redactor(d)
    assert made == []  # the first step opened finds it built
    gone = LoadedTrace("x", {}, {}, {}, {"sources": [{"path": "nowhere.jsonl"}]}, [], None)
    assert warm(gone) is None


def test_a_draft_page_starts_it(store: Store, tmp_path: Path) -> None:
    tid = put(store, SAMPLES / "claude" / "demo-session.jsonl")
    quiet = Settings(store_url=store.url, reviewer=ADA, token=TOKEN, hosts={HOST})  # type: ignore[attr-defined]
    with TestClient(make_app(quiet), base_url=f"http://{HOST}", follow_redirects=True) as c:
        c.get(f"/?token={TOKEN}")
        assert c.get(f"/t/{tid}").status_code == 200
        assert redacted._WARMING is None  # an app made without asking starts no thread
    s = Settings(store_url=store.url, reviewer=ADA, token=TOKEN, hosts={HOST}, warm_redactors=True)  # type: ignore[attr-defined]
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=True) as c:
        c.get(f"/?token={TOKEN}")
        assert c.get(f"/t/{tid}").status_code == 200
        assert redacted._WARMING is not None
        redacted._WARMING.join(60)
        assert any(k[0] == tid for k in redacted._CACHE)
