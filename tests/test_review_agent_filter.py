"""An agent is filtered by any spelling forsy shows of it: its name as its traces say it
(`claude-code`: the queue, `forsy review list`, `forsy ls`, the draft page) or the source that
read it (`claude_code`: a manifest's `source_kind`, the JSON lists), in the store's query (both
backends), the queue's hide and dismiss rules, `forsy review list --agent` and the web queue."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from _paths import SAMPLES
from _review import ADA, HOST, TOKEN, cli, put
from forsy.store import NewTrace, Store, StoredFile, TraceQuery, open_store
from forsy.store.queue_rules import QueueRule, add_rule, dismiss_matching, matching
from forsy.web.app import make_app
from forsy.web.guard import Settings

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

NOW = "2026-03-01T12:00:00+00:00"


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 's.db'}" if request.param == "sqlite" else str(request.getfixturevalue("pg_url"))
    s = open_store(url)
    yield s
    s.close()


def _trace(tid: str, kind: str, agent: str, task: str = "fix it") -> NewTrace:
    return NewTrace(trace_id=tid, source_kind=kind, session_id=tid, unit_path=f"/l/{tid}.jsonl", agent=agent,
                    project=None, started_at=None, ended_at=None, confidence=None, steps=1, turns=1, task=task,
                    files=[StoredFile("trace.json", b"{}\n")], texts=[])


def test_the_query_takes_the_agents_name_or_its_sources(store: Store) -> None:
    store.add_trace(_trace("c-1", "claude_code", "claude-code"), NOW)
    store.add_trace(_trace("x-1", "codex", "codex-cli"), NOW)
    store.add_trace(_trace("k-1", "roo_code", "kilo-code"), NOW)

    def ids(agent: str) -> list[str]:
        return sorted(r.trace_id for r in store.traces(TraceQuery(agent=agent)))

    assert ids("claude-code") == ids("claude_code") == ["c-1"]
    assert ids("codex-cli") == ids("codex") == ["x-1"]
    assert ids("kilo-code") == ids("roo_code") == ["k-1"] and ids("roo-code") == []
    assert ids("claude") == [] and store.count_traces(TraceQuery(agent="claude_code")) == 1


def test_the_queues_rules_take_either_spelling(store: Store) -> None:
    store.add_trace(_trace("c-1", "claude_code", "claude-code", "Observer session 1"), NOW)
    store.add_trace(_trace("x-1", "codex", "codex-cli", "Observer session 2"), NOW)
    add_rule(store, QueueRule("obs", "Observer session*", "hide", "claude_code"), actor=ADA, now=NOW)
    shown = [r.trace_id for r in store.traces(TraceQuery(hidden=False))]
    assert shown == ["x-1"] and [r.trace_id for r in store.traces(TraceQuery(hidden=True))] == ["c-1"]
    rule = QueueRule("bots", "Observer*", "dismiss", "codex")
    assert [t for t, _, _ in matching(store, rule)] == ["x-1"]
    add_rule(store, rule, actor=ADA, now=NOW)
    assert dismiss_matching(store, now=NOW) == ["x-1"]


@pytest.fixture
def url(tmp_path: Path) -> Iterator[tuple[str, str]]:
    u = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(u)
    try:
        yield u, put(st, SAMPLES / "claude" / "demo-session.jsonl")
    finally:
        st.close()


def test_review_list_takes_the_spelling_forsy_ls_and_the_json_show(url: tuple[str, str]) -> None:
    u, tid = url
    code, out, _ = cli("review", "list", "--json", "--store", u)
    [row] = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and (row["agent"], row["source_kind"]) == ("claude-code", "claude_code")
    for spelled in ("claude-code", "claude_code"):
        code, out, _ = cli("review", "list", "--agent", spelled, "--store", u)
        assert code == 0 and out.split()[:3] == [tid, "pending", "claude-code"], spelled


def test_the_web_queue_takes_either_spelling(url: tuple[str, str]) -> None:
    u, tid = url
    s = Settings(store_url=u, reviewer=ADA, token=TOKEN, hosts={HOST})
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        for spelled in ("claude-code", "claude_code"):
            page = c.get("/", params={"agent": spelled}).text
            assert f'href="/t/{tid}"' in page and "<td>claude-code</td>" in page, spelled
        assert f'href="/t/{tid}"' not in c.get("/", params={"agent": "codex"}).text
