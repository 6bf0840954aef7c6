"""Queue rules: a person writes once which automated sessions to hide or dismiss, and the queue,
`review list` and every later sweep follow it (in both backends); nothing is deleted, a
dismissal is a review decision with the rule named in the audit log."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _paths import SAMPLES
from _review import ADA, TOKEN, put
from forsy.cli import app
from forsy.errors import InputError
from forsy.store import NewTrace, Store, StoredFile, TraceQuery, open_store
from forsy.store.queue_rules import QueueRule, add_rule, dismiss_matching, like, remove_rule
from forsy.web.app import make_app
from forsy.web.guard import Settings

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

NOW = "2026-03-02T10:00:00+00:00"
runner = CliRunner()
TASKS = ["Observer session: summarise memory #1", "observer SESSION: summarise memory #2", "fix the slug test",
         "100% coverage_please", "100x coverage please"]


def row(st: Store, i: int, task: str, agent: str = "claude-code") -> str:
    tid = f"forsy_r{i:04d}"
    st.add_trace(NewTrace(tid, "claude_code", f"s{i}", f"/l/s{i}.jsonl", agent, "p", f"2026-03-01T00:00:{i:02d}Z",
                          None, 90, 3, 1, task, [StoredFile("trace.json", b"{}")], [("task", task)]), NOW)
    return tid


@pytest.fixture(params=["sqlite", "postgresql"])
def st(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 'store.db'}" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    s = open_store(url)
    yield s
    s.close()


def queue(st: Store, hidden: bool | None = False) -> set[str]:
    return {r.task for r in st.traces(TraceQuery(latest_only=True, reviewed=False, hidden=hidden))}


def test_a_hide_rule_keeps_matching_drafts_out_of_the_queue_and_back_when_removed(st: Store) -> None:
    for i, task in enumerate(TASKS):
        row(st, i, task)
    add_rule(st, QueueRule("observer", "observer session:*"), actor=ADA, now=NOW)
    assert queue(st) == set(TASKS[2:])  # either case of the words
    assert queue(st, hidden=True) == set(TASKS[:2]) and queue(st, hidden=None) == set(TASKS)
    assert st.count_traces(TraceQuery(latest_only=True, reviewed=False, hidden=False)) == 3
    add_rule(st, QueueRule("pct", "100% coverage_*"), actor=ADA, now=NOW)  # % and _ are the task's own
    assert queue(st, hidden=True) == {*TASKS[:2], "100% coverage_please"}
    remove_rule(st, "observer")
    assert queue(st) == set(TASKS[:3] + TASKS[4:])
    assert all(r.status == "pending" for r in st.traces(TraceQuery()))  # hiding decides nothing


def test_a_dismiss_rule_rejects_what_matches_now_and_later(st: Store) -> None:
    ids = [row(st, i, task) for i, task in enumerate(TASKS)]
    add_rule(st, QueueRule("bots", "*summarise memory*", "dismiss", agent="claude-code"), actor=ADA, now=NOW)
    assert sorted(dismiss_matching(st, now=NOW)) == ids[:2]
    assert [st.draft_state(t).status for t in ids] == ["rejected"] * 2 + ["pending"] * 3  # type: ignore[union-attr]
    a = st.audit(ids[0])[-1]
    assert (a.actor, a.action, json.loads(a.detail_json)["rule"]) == ("forsy rule bots", "reject", "bots")
    later = row(st, 9, "Observer session: summarise memory #9")
    other_agent = row(st, 10, "summarise memory for codex", agent="codex-cli")
    assert dismiss_matching(st, now=NOW, trace_ids=[later, other_agent]) == [later]
    assert st.draft_state(other_agent).status == "pending"  # type: ignore[union-attr]


def test_a_dismiss_rule_leaves_a_draft_a_person_has_acted_on_to_them(st: Store) -> None:
    from forsy.store import ReviewChange
    from forsy.store.queue_rules import matching

    ids = [row(st, i, task) for i, task in enumerate(TASKS)]
    # a reviewer at work on the first: a note (its version moves on, its status stays open)
    st.record_review(ReviewChange(ids[0], 0, "needs_changes", ADA, NOW, status="pending", detail_json="{}"))
    rule = QueueRule("bots", "*summarise memory*", "dismiss")
    assert [t for t, _, _ in matching(st, rule)] == [ids[1]]
    add_rule(st, rule, actor=ADA, now=NOW)
    assert dismiss_matching(st, now=NOW) == [ids[1]]
    assert st.draft_state(ids[0]).status == "pending"  # type: ignore[union-attr]


def test_the_store_applies_dismiss_rules_to_every_draft_it_receives(tmp_path: Path) -> None:
    st = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        add_rule(st, QueueRule("slug", "slugify()*", "dismiss"), actor=ADA, now=NOW)
        tid = put(st, SAMPLES / "claude" / "demo-session.jsonl")  # as a sweep stores it (StoreSink)
        kept = put(st, SAMPLES / "claude" / "compaction-and-branches.jsonl")
        assert st.draft_state(tid).status == "rejected" and st.draft_state(kept).status == "pending"  # type: ignore[union-attr]
    finally:
        st.close()


@pytest.mark.parametrize(("rule", "why"), [(QueueRule("all", "*"), "matches every draft"),
                                           (QueueRule("sp ace", "x*"), "a word"),
                                           (QueueRule("x", "y", "delete"), "hides or dismisses")])  # type: ignore[arg-type]
def test_rules_that_would_do_harm_or_make_no_sense_are_refused(st: Store, rule: QueueRule, why: str) -> None:
    with pytest.raises(InputError, match=why):
        add_rule(st, rule, actor=ADA, now=NOW)


def test_like_escapes_the_sql_wildcards() -> None:
    assert like("100%_x*?\\") == "100\\%\\_x%_\\\\"
    assert like("Observer É*") == "observer É%"  # ASCII letters folded, as SQLite's lower() does


def test_rules_from_the_command_line_and_the_queue_page(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        ids = [row(st, i, task) for i, task in enumerate(TASKS)]
    finally:
        st.close()
    env = {"FORSY_REVIEWER": ADA}
    r = runner.invoke(app, ["review", "rule", "add", "obs", "--task", "observer session*", "--store", url], env=env)
    assert r.exit_code == 0, r.stderr
    listed = runner.invoke(app, ["review", "list", "--json", "--store", url]).stdout.splitlines()
    assert len(listed) == 3
    assert len(runner.invoke(app, ["review", "list", "--all", "--json", "--store", url]).stdout.splitlines()) == 5
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={"127.0.0.1:9"}, clock=lambda: NOW)
    csrf = Settings(store_url="", reviewer="", token=TOKEN, hosts=set()).csrf
    with TestClient(make_app(s), base_url="http://127.0.0.1:9", follow_redirects=True) as c:
        page = c.get(f"/?token={TOKEN}").text
        assert "3 draft(s)" in page and "2 hidden by queue rules" in page and ids[0] not in page
        assert ids[0] in c.get("/?hidden=1").text
        r2 = c.post("/rules", data={"csrf": csrf, "name": "pct", "task": "100*", "action": "dismiss"})
        assert r2.status_code == 200 and "Dismiss 2 draft(s)?" in r2.text  # shown first, nothing done
        assert all(f'href="/t/{t}"' in r2.text for t in ids[3:])
        assert [st.status for st in map(open_store(url).draft_state, ids[3:])] == ["pending", "pending"]  # type: ignore[union-attr]
        r2 = c.post("/rules", data={"csrf": csrf, "name": "pct", "task": "100*", "action": "dismiss", "confirm": "1"})
        assert r2.status_code == 200 and "Rule saved" in r2.text
    st = open_store(url)
    try:
        assert [st.draft_state(t).status for t in ids[3:]] == ["rejected", "rejected"]  # type: ignore[union-attr]
    finally:
        st.close()
    out = runner.invoke(app, ["review", "rule", "list", "--json", "--store", url]).stdout
    assert [json.loads(x)["name"] for x in out.splitlines()] == ["obs", "pct"]
    r = runner.invoke(app, ["review", "rule", "remove", "nope", "--store", url])
    assert r.exit_code == 2 and "no rule named" in r.stderr
