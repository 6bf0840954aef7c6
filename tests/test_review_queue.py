"""The queue for hundreds of drafts: every draft reachable by pages (never a silent cap), a sort
on any column, filters, counts per status from one GROUP BY, and several drafts approved or
rejected with one confirmation, each draft's outcome said."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from _paths import SAMPLES
from _review import ADA, HOST, TOKEN, csrf, put
from forsy.review.queue import QueueQuery, queue_page
from forsy.store import NewTrace, Store, StoredFile, TraceQuery, open_store
from forsy.store.queue_rules import status_counts
from forsy.web.app import make_app
from forsy.web.guard import Settings

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

CSRF = csrf()
N = 1234  # more than any page, and than the 500 rows the queue once stopped at


def many(st: Store, n: int) -> None:
    """`n` drafts of `n` sessions, with confidences and steps that differ (a row each: the queue
    reads rows, not the files)."""
    with st.transaction():
        for i in range(n):
            st.add_trace(NewTrace(
                trace_id=f"forsy_q{i:05d}", source_kind="claude_code", session_id=f"s{i}",
                unit_path=f"/logs/p{i % 7}/s{i}.jsonl", agent="claude-code" if i % 3 else "codex-cli",
                project=f"proj{i % 7}", started_at=f"2026-03-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
                ended_at=None, confidence=(i * 37) % 101, steps=i % 50 + 1, turns=1, task=f"task number {i}",
                files=[StoredFile("trace.json", b"{}")], texts=[("task", f"task number {i}")]),
                "2026-03-01T00:00:00+00:00")


@pytest.fixture(params=["sqlite", "postgresql"])
def big(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """The same queue in both backends: sorting, paging and counting are the database's."""
    url = f"sqlite:///{tmp_path / 'store.db'}" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    st = open_store(url)
    many(st, N)
    yield st
    st.close()


@pytest.mark.parametrize("order", ["started", "confidence", "project", "task"])
def test_every_draft_is_on_some_page_exactly_once(big: Store, order: str) -> None:
    seen: list[str] = []
    page = 1
    while True:  # many drafts share a confidence, a project: the id breaks the ties, pages never overlap
        pg = queue_page(big, QueueQuery(TraceQuery(order=order, latest_only=True, reviewed=False),  # type: ignore[arg-type]
                                        per_page=100, page=page))
        assert pg.total == N and pg.pages == -(-N // 100)
        seen += [r.trace_id for r in pg.rows]
        if page == pg.pages:
            break
        page += 1
    assert len(seen) == len(set(seen)) == N


def test_sorted_by_any_column_both_ways(big: Store) -> None:
    for key, get in (("confidence", lambda r: r.confidence), ("steps", lambda r: r.steps),
                     ("started", lambda r: r.started_at), ("project", lambda r: r.project)):
        up = queue_page(big, QueueQuery(TraceQuery(order=key, descending=False), per_page=500)).rows  # type: ignore[arg-type]
        down = queue_page(big, QueueQuery(TraceQuery(order=key, descending=True), per_page=500)).rows  # type: ignore[arg-type]
        assert [get(r) for r in up] == sorted(get(r) for r in up), key
        assert [get(r) for r in down] == sorted((get(r) for r in down), reverse=True), key


def test_filters_and_counts(big: Store) -> None:
    pg = queue_page(big, QueueQuery(TraceQuery(agent="codex-cli", min_confidence=50, max_confidence=60,
                                               latest_only=True, reviewed=False), per_page=500))
    expect = [i for i in range(N) if i % 3 == 0 and 50 <= (i * 37) % 101 <= 60]
    assert pg.total == len(expect) and {r.trace_id for r in pg.rows} == {f"forsy_q{i:05d}" for i in expect}
    big.set_draft_status("forsy_q00007", "rejected", "t", "2026-03-02T00:00:00+00:00")
    assert dict(status_counts(big)) == {"pending": N - 1, "approved": 0, "rejected": 1, "needs_changes": 0}
    with pytest.raises(Exception, match="no page 99"):
        queue_page(big, QueueQuery(page=99, per_page=500))


@pytest.fixture
def web(tmp_path: Path) -> Iterator[tuple[TestClient, Store, list[str]]]:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    tids = [put(st, SAMPLES / "claude" / name) for name in ("demo-session.jsonl", "compaction-and-branches.jsonl",
                                                             "legacy-inline-sidechain.jsonl")]
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: "2026-03-02T10:00:00+00:00")
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield c, st, tids
    st.close()


def test_the_queue_page_pages_sorts_and_counts(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    many(st, 130)
    st.close()
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST})
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=True) as c:
        c.get(f"/?token={TOKEN}")
        first = c.get("/?sort=confidence&dir=asc").text
        assert "130 draft(s) · page 1 of 3" in first and "pending 130" in first
        shown = [int(x) for x in re.findall(r"<td>(\d+)</td><td>\d+</td><td class=\"task\">", first)]
        assert len(shown) == 50 and shown == sorted(shown)
        nxt = re.search(r'href="([^"]+)" id="next"', first)
        assert nxt
        second = c.get(nxt.group(1).replace("&amp;", "&")).text
        again = [int(x) for x in re.findall(r"<td>(\d+)</td><td>\d+</td><td class=\"task\">", second)]
        assert "page 2 of 3" in second and again[0] >= shown[-1]  # the sort is kept across pages
        assert c.get("/?sort=nonsense").status_code == 400


def test_several_drafts_decided_with_one_confirmation(web: tuple[TestClient, Store, list[str]]) -> None:
    c, st, tids = web
    r = c.post("/bulk", data={"csrf": CSRF, "action": "approve", "t": tids[:2]})
    assert r.status_code == 200 and "Approve 2 draft(s)?" in r.text  # asks first, does nothing yet
    assert [st.draft_state(t).status for t in tids] == ["pending"] * 3  # type: ignore[union-attr]
    form = {"csrf": CSRF, "action": "approve", "confirm": "1", "t": tids[:2],
            "v": re.findall(r'name="v" value="([^"]+)"', r.text)}
    # meanwhile a colleague rejects the second one: it is a conflict, the first is still approved
    from forsy.review import actions

    actions.reject(st, tids[1], "not ours", reviewer="Bob <bob@example.org>", at="2026-03-02T09:00:00+00:00")
    done = c.post("/bulk", data=form)
    assert done.status_code == 200
    assert re.search(rf"{tids[0]}</a>: approved as forsy_", done.text)
    assert re.search(rf"{tids[1]}</a>: not done: ", done.text)
    assert [st.draft_state(t).status for t in tids] == ["approved", "rejected", "pending"]  # type: ignore[union-attr]
    r = c.post("/bulk", data={"csrf": CSRF, "action": "reject", "t": [tids[2]], "reason": ""})
    assert r.status_code == 400 and "needs a reason" in r.text
    r = c.post("/bulk", data={"csrf": CSRF, "action": "approve", "t": [tids[2]]}, headers={})
    assert r.status_code == 200
    assert c.post("/bulk", data={"action": "approve", "t": [tids[2]], "confirm": "1"}).status_code == 403  # no CSRF


@pytest.mark.parametrize(("cwd", "shown"), [
    ("/home/[PATH_USER_1]/work/api", "~/work/api"), ("/home/[PATH_USER_1]/oss/api", "~/oss/api"),
    ("/Users/[PATH_USER_2]", "~"), ("/home/[PATH_USER_1]/[PATH_USER_1]-blog", "~/…-blog"),
    ("C:\\Users\\[PATH_USER_1]\\proj", "~/proj"), ("/srv/app", "/srv/app")])
def test_a_project_is_named_readably_and_apart_from_its_namesakes(cwd: str, shown: str) -> None:
    from forsy.store.sink import project_name

    assert project_name(cwd) == shown


def test_a_project_is_found_by_its_last_folders(tmp_path: Path) -> None:
    st = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        tid = put(st, SAMPLES / "claude" / "demo-session.jsonl")  # run in /home/dev/projects/textkit
        for name in ("~/projects/textkit", "textkit", "projects/textkit"):
            assert [r.trace_id for r in st.traces(TraceQuery(project=name))] == [tid], name
        for name in ("kit", "xtkit", "projects", "~/textkit"):
            assert st.traces(TraceQuery(project=name)) == [], name
    finally:
        st.close()


def test_the_queue_filters_what_needs_a_person_and_what_holds_model_proposals(tmp_path: Path) -> None:
    from forsy.run import RetraceOptions, retrace_one
    from forsy.store.sink import StoreSink
    from test_review_conversation import ModelSink

    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        [o] = retrace_one(SAMPLES / "claude" / "demo-session.jsonl", RetraceOptions(),
                          sink=ModelSink(StoreSink(st, now="2026-03-01T00:00:00+00:00")), keep=False)
        with_model = o.trace_id
        plain = put(st, SAMPLES / "claude" / "compaction-and-branches.jsonl")
        done = put(st, SAMPLES / "claude" / "legacy-inline-sidechain.jsonl")
        st.set_draft_status(done, "rejected", "t", "2026-03-02T00:00:00+00:00")
        q = TraceQuery(latest_only=True, reviewed=False)
        from dataclasses import replace

        assert {r.trace_id for r in st.traces(replace(q, model_values=True))} == {with_model}
        assert {r.trace_id for r in st.traces(replace(q, model_values=False))} == {plain, done}
        assert {r.trace_id for r in st.traces(replace(q, open_only=True))} == {with_model, plain}
    finally:
        st.close()
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST})
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=True) as c:
        c.get(f"/?token={TOKEN}")
        page = c.get("/?proposals=with&needs=1").text
        assert "1 draft(s)" in page and with_model in page and plain not in page
        assert "2 draft(s)" in c.get("/?needs=1").text
