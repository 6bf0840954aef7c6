"""What reviewers met using the review pages, each kept fixed: an edit's old and new values
spelled as the trace's JSON spells them (`true`, `null`; never Python's `True`, `None`) on every
page and in `forsy review show`; a judgement too long to edit in a page says how much of it is
cut and links to the page that shows it whole; the step page of a decided draft says who
decided what, and when (no edit is offered there); and a step whose log was swept on another
machine names that machine and the log's path there."""

from __future__ import annotations

import html
import re
import shutil
import sqlite3
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from _grow import append_user
from _paths import SAMPLES
from _review import ADA, HOST, TOKEN, cli, put
from forsy.review import actions
from forsy.review.view import value_text
from forsy.store import Store, TraceQuery, open_store
from forsy.sweep import SweepOptions, sweep
from forsy.web.app import make_app
from forsy.web.guard import Settings

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

NOW = "2026-03-02T10:00:00+00:00"


@dataclass
class Web:
    c: TestClient
    st: Store
    tid: str
    url: str
    log: Path

    def page(self, path: str) -> str:
        r = self.c.get(path)
        assert r.status_code == 200, r.text[:500]
        return r.text


def client(url: str) -> TestClient:
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: NOW)
    return TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False)


def session_log(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", folder / "demo-session.jsonl"))


@pytest.fixture
def web(tmp_path: Path) -> Iterator[Web]:
    """A server on a SQLite store holding a draft of the demo session."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    log = session_log(tmp_path / "logs")
    tid = put(st, log)
    with client(url) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield Web(c, st, tid, url, log)
    st.close()


def edit(w: Web, path: str, text: str) -> None:
    actions.edit(w.st, w.tid, path, text, reviewer=ADA, at=NOW)


def a_bool_step(w: Web) -> tuple[int, bool]:
    """A step whose `success` is true or false, and that value."""
    trace = orjson.loads(next(f.data for f in w.st.trace_files(w.tid) if f.name == "trace.json"))
    return next((s["step"], s["success"]) for s in trace["steps"] if isinstance(s.get("success"), bool))


# ---------------------------------------------------------------- an edit's values, as JSON spells them


@pytest.mark.parametrize(("value", "shown"), [(True, "true"), (False, "false"), (None, None), (3, "3"),
                                              ("True", "True"), ({"a": [1, None]}, '{"a":[1,null]}')])
def test_a_value_is_text_as_it_is_else_json(value: Any, shown: str | None) -> None:
    assert value_text(value) == shown


def test_a_boolean_edit_reads_true_and_false_on_every_page(web: Web) -> None:
    n, was = a_bool_step(web)
    edit(web, "/summary/goal_achieved", "true")  # was null
    edit(web, f"/steps/{n}/success", "false" if was else "true")
    old, new = ("true", "false") if was else ("false", "true")
    for url in (f"/t/{web.tid}", f"/t/{web.tid}/approve?level=human_reviewed", f"/t/{web.tid}/edits"):
        page = web.page(url)
        edits = page[page.index('<ul class="edits">'):]
        edits = edits[:edits.index("</ul>")]
        assert "<del>null</del> → <ins>true</ins>" in edits, url
        assert f"<del>{old}</del> → <ins>{new}</ins>" in edits, url
        assert not re.search(r"\b(True|False|None)\b", edits), (url, edits)


def test_review_show_prints_an_edit_as_json_spells_it(web: Web) -> None:
    edit(web, "/summary/goal_achieved", "false")
    code, out, err = cli("review", "show", web.tid, "--store", web.url)
    assert code == 0, err
    said = " ".join(out.split())  # (the terminal wraps a long line)
    line = said[said.index("edit Was the user's goal achieved?"):]
    assert re.match(rf"edit Was the user's goal achieved\? \(/summary/goal_achieved\) by {re.escape(ADA)} "
                    rf"at {re.escape(NOW)}: false( |$)", line), line[:200]


# ---------------------------------------------------------------- a judgement too long to edit in a page


def test_a_judgement_too_long_to_edit_says_what_is_cut_and_links_to_all_of_it(web: Web) -> None:
    body = "".join(f"line {i} <b>of</b> what was learnt\n" for i in range(1_000))  # 32,890 characters
    assert len(body) > 20_000
    edit(web, "/learning", body)
    page = web.page(f"/t/{web.tid}")
    box = page[page.index('id="j-learning"'):]
    box = box[:box.index("</form>")]
    assert f"cut at 2000 of {len(body)} characters ({len(body) - 2000} more)" in box
    link = re.search(r'<a href="([^"]+)">show all of it</a>', box)
    assert link and html.unescape(link.group(1)) == f"/t/{web.tid}/judgement?path=/learning"
    assert "<b>of</b>" not in page  # escaped, as every value
    whole = web.page(html.unescape(link.group(1)))
    assert html.escape(body, quote=False) in whole and "<b>of</b>" not in whole
    assert "What is there to learn from it?" in whole and f'href="/t/{web.tid}#j-learning"' in whole
    assert f"{len(body)} characters, all of them here" in whole


def test_only_a_judgement_has_a_page_of_its_own(web: Web) -> None:
    for path in ("/steps/1/output", "/trace_id", ""):
        assert web.c.get(f"/t/{web.tid}/judgement", params={"path": path}).status_code == 404


# ---------------------------------------------------------------- a decided draft's step page


def test_the_step_page_of_an_approved_draft_says_who_approved_it_and_links_the_trace(web: Web) -> None:
    done = actions.approve(web.st, web.tid, "expert_reviewed", reviewer=ADA, at=NOW)
    page = web.page(f"/t/{web.tid}/s/2")
    said = re.search(r'<p class="notice" id="decided">(.*?)</p>', page, re.S)
    assert said, page[:2000]
    assert f"this draft was approved by {html.escape(ADA)} at {NOW} as expert_reviewed" in said.group(1)
    assert f'<a href="/t/{done.reviewed_trace_id}/s/2" id="reviewed-link">{done.reviewed_trace_id}</a>' \
        in said.group(1)
    assert 'class="edit-form"' not in page
    reviewed = web.page(f"/t/{done.reviewed_trace_id}/s/2")  # the approval's trace says what it is
    assert f'the approval of <a href="/t/{web.tid}/s/2">{web.tid}</a>' in reviewed


def test_the_step_page_of_a_rejected_draft_says_who_rejected_it_and_why(web: Web) -> None:
    actions.reject(web.st, web.tid, "not <our> project", reviewer=ADA, at=NOW)
    page = web.page(f"/t/{web.tid}/s/1")
    said = re.search(r'<p class="notice" id="decided">(.*?)</p>', page, re.S)
    assert said and f"this draft was rejected by {html.escape(ADA)} at {NOW}: “not &lt;our&gt; project”" \
        in said.group(1)
    assert "reviewed-link" not in page and 'class="edit-form"' not in page


def test_the_step_page_of_a_replaced_draft_names_the_draft_to_edit(tmp_path: Path) -> None:
    log = session_log(tmp_path / "logs" / "p")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        old = put(st, log)
        append_user(log, "and please add a test for the empty string")
        new = _swept(st, log)
    finally:
        st.close()
    assert new != old
    with client(url) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        page = c.get(f"/t/{old}/s/1").text
    said = re.search(r'<p class="notice" id="closed">(.*?)</p>', page, re.S)
    assert said and f'replaced by <a href="/t/{new}">{new}</a>' in said.group(1) and 'class="edit-form"' not in page


def _swept(st: Store, log: Path) -> str:
    """The draft a sweep of the log's folder stores: its session's newest."""
    rep = sweep(st, SweepOptions(roots=[log.parent.parent], now=time.time, ignore_settle=True,
                                 claude_home=log.parent / "no-claude"))
    assert rep.failure is None and rep.counts.failed == 0
    [row] = st.traces(TraceQuery(latest_only=True, reviewed=False, status="pending"))
    return row.trace_id


def test_an_open_draft_step_page_has_its_edit_forms_and_no_such_line(web: Web) -> None:
    page = web.page(f"/t/{web.tid}/s/1")
    assert 'class="edit-form"' in page and 'id="decided"' not in page and 'id="closed"' not in page


# ---------------------------------------------------------------- a log swept on another machine


def swept_by(db: Path, tid: str, host: str) -> None:
    """Say in the draft's `draft_created` record that sweeper `host` stored it, as a shared
    (PostgreSQL) store's record does."""
    with sqlite3.connect(db) as c:
        [(rid, detail)] = c.execute("SELECT a.id, a.detail_json FROM audit a JOIN drafts d ON d.id = a.draft_id "
                                    "WHERE d.trace_id = ? AND a.action = 'draft_created'", (tid,)).fetchall()
        c.execute("UPDATE audit SET detail_json = ? WHERE id = ?",
                  (orjson.dumps({**orjson.loads(detail), "host": host}).decode(), rid))


def evidence_note(page: str) -> str:
    m = re.search(r'<h3>Evidence</h3>\s*<p class="unavailable">(.*?)</p>', page, re.S)
    assert m, page[-3000:]
    return html.unescape(m.group(1))


def test_a_log_swept_on_another_machine_names_it_and_the_path_there(web: Web, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORSY_HOST", "review-box")
    swept_by(tmp_path / "store.db", web.tid, "laptop-ada")
    web.log.unlink()
    note = evidence_note(web.page(f"/t/{web.tid}/s/1"))
    assert note == f"the log demo-session.jsonl is on laptop-ada ({web.log}), not on this machine", note


@pytest.mark.parametrize("host", [None, "review-box"])
def test_a_log_of_no_named_machine_or_of_this_one_keeps_its_words(web: Web, tmp_path: Path, host: str | None,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORSY_HOST", "review-box")
    if host is not None:
        swept_by(tmp_path / "store.db", web.tid, host)
    web.log.unlink()
    note = evidence_note(web.page(f"/t/{web.tid}/s/1"))
    assert note == "the log demo-session.jsonl is not on this machine (it stays where it was swept)"


def test_a_shared_store_names_the_sweeper_of_a_log_not_here(pg_server: Any, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    url = pg_server.new_database()
    log = session_log(tmp_path / ".claude" / "projects" / "-p")
    monkeypatch.setenv("FORSY_HOST", "laptop-ada")  # the sweeper
    st = open_store(url)
    try:
        tid = put(st, log)
    finally:
        st.close()
    monkeypatch.setenv("FORSY_HOST", "review-box")  # the reviewer's machine, which stores the approval's trace
    st = open_store(url)
    try:
        done = actions.approve(st, tid, "human_reviewed", reviewer=ADA, at=NOW)
    finally:
        st.close()
    log.unlink()
    with client(url) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        for t in (tid, done.reviewed_trace_id):
            r = c.get(f"/t/{t}/s/1")
            assert r.status_code == 200
            note = evidence_note(r.text)
            assert note.startswith("the log demo-session.jsonl is on laptop-ada (") and \
                note.endswith("/.claude/projects/-p/demo-session.jsonl), not on this machine"), note
