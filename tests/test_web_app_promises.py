"""The promises of `forsy.web.app`, in process through Starlette's test client on a store holding
two drafts of the demo session (one from a log whose first words are hostile markup): every
action names the version it was decided on and lands where it says; a refused edit gives the
typed value back; a bulk action shows what it will do first, then does it draft by draft; the
queue's parameters are checked and its links keep the filters; only the two static files exist."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from _paths import SAMPLES
from _review import ADA, HOST, SHOWN, TOKEN, csrf, hostile_log, put
from forsy.store import Store, open_store
from forsy.web import app as web_app
from forsy.web.app import make_app
from forsy.web.guard import Settings

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

CSRF = csrf()
NOW = "2026-03-02T10:00:00+00:00"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


class Web:
    def __init__(self, c: TestClient, st: Store, demo: str, hostile: str) -> None:
        self.c, self.st, self.demo, self.hostile = c, st, demo, hostile

    def version(self, tid: str) -> int:
        return self.st.draft_state(tid).version  # type: ignore[union-attr]

    def post(self, url: str, **form: Any) -> Any:
        return self.c.post(url, data={"csrf": CSRF, **form})


@pytest.fixture
def web(tmp_path: Path) -> Iterator[Web]:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    demo = put(st, SAMPLES / "claude" / "demo-session.jsonl")
    hostile = put(st, hostile_log(tmp_path / "logs"))
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: NOW)
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield Web(c, st, demo, hostile)
    st.close()


def query(location: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(location).query))


# ------------------------------------------------------------------ actions


def test_an_edit_lands_on_its_step_page_and_a_trace_edit_on_the_draft(web: Web) -> None:
    t = web.demo
    r = web.post(f"/t/{t}/edit", version=str(web.version(t)), step="3", field="eval", value="1")
    assert r.status_code == 303 and r.headers["location"] == f"/t/{t}/s/3?done=edit"
    r = web.post(f"/t/{t}/edit", version=str(web.version(t)), step="", field="summary.goal_notes", value="<b>ok</b>")
    assert r.status_code == 303 and r.headers["location"] == f"/t/{t}?done=edit"
    rows = web.st.proposals(t)
    assert [(p.path, p.value_json, p.actor, p.created_at) for p in rows] == [
        ("/steps/3/eval", "1", ADA, NOW), ("/summary/goal_notes", '"<b>ok</b>"', ADA, NOW)]
    page = web.c.get(f"/t/{t}/s/3?done=edit").text
    assert "Edit saved." in page and f'name="csrf" value="{CSRF}"' in page  # its forms carry the CSRF value
    assert f'name="csrf" value="{CSRF}"' in web.c.get(f"/t/{t}").text
    draft = web.c.get(f"/t/{t}?done=edit").text
    assert "Edit saved." in draft and "&lt;b&gt;ok&lt;/b&gt;" in draft and "<b>ok</b>" not in draft


def test_a_refused_edit_gives_the_typed_value_back_and_a_conflict_is_409(web: Web) -> None:
    t = web.demo
    v = web.version(t)
    r = web.post(f"/t/{t}/edit", version=str(v), step="3", field="eval", value="<i>2</i>")
    assert r.status_code == 400 and "Refused" in r.text and "eval is -1, 0 or 1" in r.text
    assert "&lt;i&gt;2&lt;/i&gt;</textarea>" in r.text and 'href="/t/' + t + '/s/3"' in r.text
    web.post(f"/t/{t}/edit", version=str(v), step="2", field="reasoning", value="Mine.")
    r = web.post(f"/t/{t}/edit", version=str(v), step="2", field="reasoning", value="Theirs <b>.</b>")
    assert r.status_code == 409 and "Conflict: someone acted first" in r.text
    assert "Theirs &lt;b&gt;.&lt;/b&gt;</textarea>" in r.text and "reasoning of step #2 (Read) was not saved" in r.text
    assert [p.value_json for p in web.st.proposals(t)] == ['"Mine."']


def test_every_action_needs_the_version_and_the_csrf(web: Web) -> None:
    t = web.demo
    for form in ({}, {"version": ""}, {"version": " "}):
        r = web.post(f"/t/{t}/reject", reason="no", **form)
        assert r.status_code == 400 and "the form names no draft version; reload the page" in r.text
    r = web.c.post(f"/t/{t}/reject", data={"version": str(web.version(t)), "reason": "no"})
    assert r.status_code == 403
    r = web.post(f"/t/{t}/explode", version=str(web.version(t)))
    assert r.status_code == 404 and "no such action" in r.text
    assert web.st.draft_state(t).status == "pending"  # type: ignore[union-attr]
    assert [a.action for a in web.st.audit(t)] == ["draft_created"]


def test_reject_needs_changes_confirm_decline_and_approve(web: Web) -> None:
    t = web.demo
    r = web.post(f"/t/{t}/needs-changes", version=str(web.version(t)), note="Look at step 3.")
    assert r.headers["location"] == f"/t/{t}?done=needs_changes"
    assert "Marked as needing changes." in web.c.get(r.headers["location"]).text
    r = web.post(f"/t/{t}/confirm", version=str(web.version(t)), path="/steps/3/success")
    assert r.headers["location"] == f"/t/{t}?done=confirm"
    r = web.post(f"/t/{t}/decline", version=str(web.version(t)), path="/steps/3/success")
    assert r.status_code == 400 and "was not proposed by a model" in r.text
    r = web.post(f"/t/{t}/approve", version=str(web.version(t)), level="expert_reviewed")
    assert r.headers["location"] == f"/t/{t}?done=approve"
    state = web.st.draft_state(t)
    assert state is not None and state.status == "approved" and state.reviewed_as
    assert web.st.draft_state(state.reviewed_as).validation_level == "expert_reviewed"  # type: ignore[union-attr]
    h = web.hostile
    r = web.post(f"/t/{h}/reject", version=str(web.version(h)), reason="Not a real session.")
    assert r.headers["location"] == f"/t/{h}?done=reject"
    assert [a.action for a in web.st.audit(h)] == ["draft_created", "reject"]
    assert [a.action for a in web.st.audit(t)] == ["draft_created", "needs_changes", "edit", "approve"]
    assert {a.actor for a in web.st.audit(t)} == {"forsy", ADA} and web.st.audit(t)[-1].at == NOW


def test_the_approve_page_shows_what_will_be_published(web: Web) -> None:
    t = web.demo
    web.post(f"/t/{t}/edit", version=str(web.version(t)), step="3", field="eval", value="1")
    page = web.c.get(f"/t/{t}/approve")
    assert page.status_code == 200
    assert f"Approve {t} as human_reviewed?" in page.text and "the draft with 1 edit(s)" in page.text
    assert "<del>-1</del> → <ins>1</ins>" in page.text
    assert f'name="version" value="{web.version(t)}"' in page.text
    assert 'name="level" value="human_reviewed"' in page.text
    assert re.search(r"(\d+) item\(s\) under \"Needs you\" are still open", page.text)
    page = web.c.get(f"/t/{t}/approve?level=client_validated")
    assert "as client_validated?" in page.text
    r = web.c.get(f"/t/{t}/approve?level=retraced_from_logs")
    assert r.status_code == 400 and "unknown level &#39;retraced_from_logs&#39;" in r.text
    web.post(f"/t/{t}/reject", version=str(web.version(t)), reason="no")
    r = web.c.get(f"/t/{t}/approve")
    assert r.status_code == 400 and f"trace {t} is not a draft open for review" in r.text


# ------------------------------------------------------------------ bulk


def test_a_bulk_action_shows_what_it_will_do_then_does_it_draft_by_draft(web: Web) -> None:
    d, h = web.demo, web.hostile
    r = web.post("/bulk", action="reject", reason="  Automated.  ", t=[d, h, d])
    assert r.status_code == 200 and "Reject 2 draft(s)?" in r.text and "<q>Automated.</q>" in r.text
    assert f'name="v" value="{d}:{web.version(d)}"' in r.text and f'name="v" value="{h}:{web.version(h)}"' in r.text
    assert [a.action for a in web.st.audit(None)].count("reject") == 0  # nothing done yet
    # someone acts on one draft meanwhile: it is a conflict, the other is still rejected
    stale = [f"{d}:{web.version(d)}", f"{h}:{web.version(h)}"]
    web.post(f"/t/{d}/needs-changes", version=str(web.version(d)), note="")
    r = web.post("/bulk", action="reject", reason="Automated.", t=[d, h], v=stale, confirm="1")
    assert r.status_code == 200 and "The selection: done" in r.text and "<title>Done · forsy</title>" in r.text
    done = re.findall(r'<li><a href="/t/([^"]+)">[^<]+</a>: ([^<]+)</li>', r.text)
    assert done[1] == (h, "rejected") and done[0][0] == d and done[0][1].startswith("not done: ")
    assert web.st.draft_state(h).status == "rejected" and web.st.draft_state(d).status == "needs_changes"  # type: ignore[union-attr]


def test_a_drafts_page_says_why_it_was_rejected_or_what_should_change(web: Web) -> None:
    """The reason of a rejection and the note of 'needs changes' were kept in the audit log only:
    whoever picked the draft up saw a status and not what to fix."""
    d, h = web.demo, web.hostile
    web.post(f"/t/{d}/needs-changes", version=str(web.version(d)), note="Split step 4 in two.")
    web.post(f"/t/{h}/reject", version=str(web.version(h)), reason="Not a coding session.")
    page = web.c.get(f"/t/{d}").text
    said = re.search(r'<p class="notice" id="decided">(.*?)</p>', page)
    assert said is not None and said.group(1).startswith("sent back for changes by ")
    assert said.group(1).endswith("&#34;Split step 4 in two.&#34;") or "Split step 4 in two." in said.group(1)
    page = web.c.get(f"/t/{h}").text
    assert 'id="decided">rejected by ' in page and "Not a coding session." in page
    assert 'id="decided"' not in web.c.get(f"/t/{web.demo}/s/1").text  # the step pages do not repeat it


def test_a_bulk_approval_shows_the_edits_each_draft_will_be_published_with(web: Web) -> None:
    """An edit made in another tab after the queue was read is published by a bulk approval: the
    confirmation lists each draft's edits, named as the forms name them, and by whom (it said
    only 'with the edits it has')."""
    d, h = web.demo, web.hostile
    web.post(f"/t/{d}/edit", version=str(web.version(d)), step="", field="summary.goal_notes", value="not met")
    web.post(f"/t/{d}/edit", version=str(web.version(d)), step="3", field="eval", value="1")
    r = web.post("/bulk", action="approve", t=[d, h])
    assert r.status_code == 200 and "edits it has" in r.text
    cells = re.findall(r'<td class="edits">([^<]*)</td>', r.text)
    assert len(cells) == 2 and cells[1] == "none"
    assert cells[0].startswith("2: ") and "eval of step #3 (" in cells[0] and "goal_notes" not in cells[0], cells


def test_a_bulk_approval_publishes_each_at_human_reviewed(web: Web) -> None:
    d, h = web.demo, web.hostile
    v = [f"{d}:{web.version(d)}", f"{h}:{web.version(h)}"]
    r = web.post("/bulk", action="approve", t=[d, h], v=v, confirm="1")
    done = dict(re.findall(r'<li><a href="/t/([^"]+)">[^<]+</a>: ([^<]+)</li>', r.text))
    for t in (d, h):
        state = web.st.draft_state(t)
        assert state is not None and state.status == "approved"
        assert done[t] == f"approved as {state.reviewed_as}"
        assert web.st.draft_state(state.reviewed_as).validation_level == "human_reviewed"  # type: ignore[arg-type, union-attr]


@pytest.mark.parametrize(("form", "message"), [
    ({"action": "delete", "t": ["x"]}, "choose approve or reject for the selected drafts"),
    ({"t": ["x"]}, "choose approve or reject for the selected drafts"),
    ({"action": "reject", "reason": "  ", "t": ["x"]}, "a rejection needs a reason"),
    ({"action": "reject", "t": ["x"]}, "a rejection needs a reason"),
    ({"action": "approve"}, "no draft selected"),
    ({"action": "approve", "t": ["ok", "../etc"]}, "select 1 to 500 drafts by their ids"),
    ({"action": "approve", "t": [f"t{i}" for i in range(501)]}, "select 1 to 500 drafts by their ids"),
])
def test_a_bulk_form_that_makes_no_sense_is_refused(web: Web, form: dict[str, Any], message: str) -> None:
    r = web.post("/bulk", **form)
    assert r.status_code == 400 and f'<p class="error">{message}</p>' in r.text


def test_five_hundred_drafts_is_the_most_for_one_confirmation(web: Web) -> None:
    r = web.post("/bulk", action="approve", t=[f"t{i}" for i in range(500)])
    assert r.status_code == 200 and "Approve 500 draft(s)?" in r.text and "not in the store" in r.text


# ------------------------------------------------------------------ pages


def test_the_queue_checks_its_parameters(web: Web) -> None:
    for q, message in (("status=lost", "unknown status &#39;lost&#39;"), ("sort=size", "unknown sort &#39;size&#39;"),
                       ("min_confidence=101", "confidence is a whole number from 0 to 100"),
                       ("max_confidence=-1", "confidence is a whole number from 0 to 100"),
                       ("page=0", "page is a whole number from 1 to"), ("per=0", "per page is a whole number from 1")):
        r = web.c.get(f"/?{q}")
        assert r.status_code == 400 and message in r.text, q
    assert web.c.get("/?min_confidence=0&max_confidence=100&page=1&per=1").status_code == 200


def test_the_queue_links_keep_the_filters(web: Web) -> None:
    page = web.c.get("/?agent=claude-code&per=1&sort=steps&dir=asc&token=x&done=rule").text
    assert page.count("/t/") >= 1 and "2 draft(s)" in page and "page 1 of 2" in page
    nxt = re.search(r'href="([^"]+)" id="next"', page)
    assert nxt and query(nxt.group(1).replace("&amp;", "&")) == {
        "agent": "claude-code", "per": "1", "sort": "steps", "dir": "asc", "page": "2"}
    sorts = {query(h.replace("&amp;", "&"))["sort"]: query(h.replace("&amp;", "&"))
             for h in re.findall(r'<a href="([^"]+)" class="sort"', page)}
    assert sorts["steps"] == {"agent": "claude-code", "per": "1", "sort": "steps", "dir": "desc", "page": "1"}
    assert sorts["task"]["dir"] == "desc" and sorts["task"]["page"] == "1"
    desc = web.c.get("/?sort=task").text  # the default direction: descending; its own link flips it
    link = next(h for h in re.findall(r'<a href="([^"]+)" class="sort"', desc) if "sort=task" in h)
    assert query(link.replace("&amp;", "&"))["dir"] == "asc"
    assert "Rule saved" in web.c.get("/?done=rule").text and "Rule saved" not in web.c.get("/?done=x").text


def test_the_queue_filters(web: Web) -> None:
    web.post(f"/t/{web.hostile}/reject", version=str(web.version(web.hostile)), reason="no")
    page = web.c.get("/?status=rejected").text
    assert f"/t/{web.hostile}" in page and f"/t/{web.demo}" not in page
    page = web.c.get("/?status=pending").text
    assert f"/t/{web.demo}" in page and f"/t/{web.hostile}" not in page
    assert "1 draft(s)" in web.c.get("/?text=alert").text and "0 draft(s)" in web.c.get("/?project=none").text


def test_a_drafts_task_in_the_queue_opens_it_as_its_id_does(web: Web) -> None:
    """A reviewer clicks what the session was about, not only its id (one tab stop a row: the id)."""
    page = web.c.get("/").text
    for tid in (web.demo, web.hostile):
        cell = re.search(rf'<td class="task"><a href="/t/{tid}" tabindex="-1">([^<]*)</a></td>', page)
        assert cell is not None and cell.group(1).strip(), tid


def test_a_long_draft_is_paged_by_steps(web: Web, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_app, "STEPS_PER_PAGE", 4)  # the demo has 9 steps: pages 1-4, 5-8, 9
    t = web.demo
    p1 = web.c.get(f"/t/{t}").text
    assert re.findall(rf'<a href="/t/{t}/s/(\d+)" class="open">', p1) == ["1", "2", "3", "4"]
    assert '<a href="?page=2">2</a>' in p1 and '<a href="?page=3">3</a>' in p1 and "<b>1</b>" in p1
    p3 = web.c.get(f"/t/{t}?page=3").text
    assert re.findall(rf'<a href="/t/{t}/s/(\d+)" class="open">', p3) == ["9"]
    assert web.c.get(f"/t/{t}?page=0").status_code == 400


def test_a_step_page_links_its_neighbours_and_refuses_a_step_not_there(web: Web) -> None:
    t = web.demo
    first = web.c.get(f"/t/{t}/s/1").text
    assert 'id="prev"' not in first and f'href="/t/{t}/s/2" id="next"' in first
    mid = web.c.get(f"/t/{t}/s/5").text
    assert f'href="/t/{t}/s/4" id="prev"' in mid and f'href="/t/{t}/s/6" id="next"' in mid
    last = web.c.get(f"/t/{t}/s/9").text
    assert f'href="/t/{t}/s/8" id="prev"' in last and 'id="next"' not in last
    for n in (0, 10):
        r = web.c.get(f"/t/{t}/s/{n}")
        assert r.status_code == 404 and f"no step {n}: the trace has 9 steps" in r.text


def test_the_audit_page_of_one_trace_or_all(web: Web) -> None:
    web.post(f"/t/{web.demo}/reject", version=str(web.version(web.demo)), reason="<b>no</b>")
    one = web.c.get(f"/audit?trace={web.demo}").text
    assert "reject" in one and web.hostile not in one and "&lt;b&gt;no&lt;/b&gt;" in one
    every = web.c.get("/audit").text
    assert web.hostile in every and web.demo in every
    for bad in ("a.b", "a%0A", ""):
        r = web.c.get(f"/audit?trace={bad}")
        assert r.status_code == 400 and '<p class="error">not a trace id</p>' in r.text, bad
    assert "<title>Audit log · forsy</title>" in every and "<h1>Audit log</h1>" in every
    assert f'<h1>Audit log of <a href="/t/{web.demo}">{web.demo}</a></h1>' in one


def test_only_the_two_static_files_are_served(web: Web) -> None:
    css = web.c.get("/static/review.css")
    assert css.status_code == 200 and css.headers["content-type"] == "text/css; charset=utf-8" and css.content
    js = web.c.get("/static/review.js")
    assert js.status_code == 200 and js.headers["content-type"] == "text/javascript; charset=utf-8"
    for name in ("review.html", "REVIEW.CSS", "templates", "review.css.map"):
        r = web.c.get(f"/static/{name}")
        assert r.status_code == 404 and r.text == "not found", name
        assert r.headers["content-type"] == "text/plain; charset=utf-8"
    assert web.c.get("/static/..%2Fapp.py").status_code == 404


def test_hostile_text_is_escaped_on_the_queue_draft_and_bulk_pages(web: Web) -> None:
    h = web.hostile
    for page in (web.c.get("/").text, web.c.get(f"/t/{h}").text,
                 web.post("/bulk", action="reject", reason="<img src=x onerror=alert(3)>", t=[h]).text):
        assert SHOWN not in page and "onerror=alert(3)>" not in page
    assert ESCAPED in web.c.get(f"/t/{h}").text


def test_a_queue_rule_from_the_queue_page(web: Web) -> None:
    r = web.post("/rules", name="observer", task="*alert(1)*", action="dismiss", agent="")
    # a rule that rejects drafts shows them first (escaped) and does nothing until confirmed
    assert r.status_code == 200 and "Dismiss 1 draft(s)?" in r.text and f'href="/t/{web.hostile}"' in r.text
    assert "<script>alert(1)" not in r.text
    assert web.st.draft_state(web.hostile).status == "pending"  # type: ignore[union-attr]
    from forsy.store.queue_rules import rules

    assert rules(web.st) == []
    r = web.post("/rules", name="observer", task="*alert(1)*", action="dismiss", agent="", confirm="1")
    assert r.status_code == 303 and r.headers["location"] == "/?done=rule"
    assert web.st.draft_state(web.hostile).status == "rejected"  # type: ignore[union-attr]
    assert web.st.draft_state(web.demo).status == "pending"  # type: ignore[union-attr]
    r = web.post("/rules", name=" quiet ", task="slugify*", action="anything else")
    assert r.status_code == 303
    assert [(q.name, q.pattern, q.action, q.agent) for q in rules(web.st)] == [
        ("observer", "*alert(1)*", "dismiss", None), ("quiet", "slugify*", "hide", None)]
    assert web.st.draft_state(web.demo).status == "pending"  # type: ignore[union-attr]  # hidden, not dismissed


def test_who_is_reviewing_is_asked_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "forsy.toml"
    monkeypatch.setenv("FORSY_CONFIG", str(cfg))
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    tid = put(st, SAMPLES / "claude" / "demo-session.jsonl")
    st.close()
    s = Settings(store_url=url, reviewer="", token=TOKEN, hosts={HOST}, clock=lambda: NOW)
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        c.get(f"/?token={TOKEN}")
        assert c.get(f"/t/{tid}").headers["location"] == "/who"
        assert "<title>Who is reviewing? · forsy</title>" in c.get("/who").text
        for form in ({"csrf": CSRF, "name": "   "}, {"csrf": CSRF}):
            r = c.post("/who", data=form)
            assert r.status_code == 400
            assert '<p class="error">a reviewer&#39;s name is needed (&#39;Name &lt;email&gt;&#39;)</p>' in r.text
        r = c.post("/who", data={"name": "Grace <g@example.org>"})
        assert r.status_code == 403 and s.reviewer == ""
        r = c.post("/who", data={"csrf": CSRF, "name": "  Grace   Hopper <grace@example.org> "})
        assert r.status_code == 303 and r.headers["location"].startswith("/?done=who&kept=")
        assert query(r.headers["location"])["kept"] == str(cfg)
        assert s.reviewer == "Grace Hopper <grace@example.org>"
        assert "Grace Hopper" in cfg.read_text("utf-8")
        assert c.get(f"/t/{tid}").status_code == 200


# ------------------------------------------------------------------ second round


def test_the_bulk_preview_names_each_draft_as_stored(web: Web) -> None:
    d = web.demo
    row = web.st.trace(d)
    assert row is not None
    r = web.post("/bulk", action="approve", t=[d, "gone"])
    assert "<title>Review the selection · forsy</title>" in r.text
    assert f'<td>pending</td><td>{row.steps}</td><td>{row.task[:20]}' in r.text
    assert 'name="v" value="gone:"></td>' not in r.text and "<td>not in the store</td><td></td><td></td>" in r.text


def test_a_bulk_confirmation_acts_only_at_the_version_its_form_names(web: Web) -> None:
    """A draft the form names no version of, or a version that is no number, is that draft's
    refusal: never acted on at whatever version it has now, never stopping the drafts after it."""
    d, h = web.demo, web.hostile
    r = web.post("/bulk", action="reject", reason="no", t=[d, h, "gone"], v=[f"{h}:{web.version(h)}:2"], confirm="1")
    done = dict(re.findall(r'<li><a href="/t/([^"]+)">[^<]+</a>: ([^<]+)</li>', r.text))
    assert r.status_code == 200 and done == {
        d: "not done: the form names no version of this draft; select it again",
        h: f"not done: version is a whole number from 0 to 1000000000, not &#39;{web.version(h)}:2&#39;",
        "gone": "not done: no trace gone in the store " + web.st.url}
    assert web.st.draft_state(d).status == "pending" and web.st.draft_state(h).status == "pending"  # type: ignore[union-attr]
    r = web.post("/bulk", action="reject", reason="no", t=[h, d], v=[f"{h}:x", f"{d}:{web.version(d)}"], confirm="1")
    done = dict(re.findall(r'<li><a href="/t/([^"]+)">[^<]+</a>: ([^<]+)</li>', r.text))
    assert done == {h: "not done: version is a whole number from 0 to 1000000000, not &#39;x&#39;", d: "rejected"}


def test_the_approve_page_title_and_a_long_unknown_level(web: Web) -> None:
    t = web.demo
    assert f"<title>approve {t} · forsy</title>" in web.c.get(f"/t/{t}/approve").text
    r = web.c.get(f"/t/{t}/approve?level=" + "a" * 39 + "bc")
    assert r.status_code == 400 and "unknown level &#39;" + "a" * 39 + "b&#39;</p>" in r.text


def test_a_queue_rule_keeps_its_agent_and_a_form_missing_a_field_is_refused(web: Web) -> None:
    r = web.post("/rules", name="bots", task="*alert(1)*", action="hide", agent="claude-code")
    assert r.status_code == 303
    from forsy.store.queue_rules import rules

    assert [(q.name, q.agent) for q in rules(web.st)] == [("bots", "claude-code")]
    for form, message in (({"task": "x*"}, "a rule&#39;s name is a word of letters"),
                          ({"name": "quiet"}, "a rule&#39;s pattern must name some text")):
        r = web.post("/rules", action="hide", **form)
        assert r.status_code == 400 and message in r.text, form
    assert len(rules(web.st)) == 1


def test_an_action_whose_version_is_no_number_is_refused_by_name(web: Web) -> None:
    r = web.post(f"/t/{web.demo}/reject", version="v2", reason="no")
    assert r.status_code == 400 and "version is a whole number from 0 to 1000000000, not &#39;v2&#39;" in r.text


def test_an_edit_form_missing_its_field_or_value_is_refused_as_if_empty(web: Web) -> None:
    t = web.demo
    v = str(web.version(t))
    r = web.post(f"/t/{t}/edit", version=v, step="3", value="1")
    assert r.status_code == 400 and "<title>Refused · forsy</title>" in r.text
    assert '<p class="error"> cannot be edited in review; editable: ' in r.text and "<h1>Refused</h1>" in r.text
    assert "<p>What you typed for  was not saved; here it is, to copy back:</p>" in r.text
    r = web.post(f"/t/{t}/edit", version=v, step="3", field="eval")
    assert r.status_code == 400 and '<p class="error">eval is -1, 0 or 1, not &#39;&#39;</p>' in r.text
    assert re.search(r"What you typed for eval of step #3 \(Bash\) was not saved.*\n<textarea [^>]+></textarea>",
                     r.text)
    web.post(f"/t/{t}/edit", version=v, step="2", field="reasoning", value="Mine.")
    r = web.post(f"/t/{t}/edit", version=v, step="2", field="reasoning", value="Theirs.")
    assert r.status_code == 409 and "<title>Conflict · forsy</title>" in r.text
    assert "<h1>Conflict: someone acted first</h1>" in r.text
    r = web.post(f"/t/{t}/edit", step="3", field="eval", value="1")
    assert r.status_code == 400 and '<p class="error">the form names no draft version; reload the page</p>' in r.text
    r = web.post(f"/t/{t}/edit", version=v, step="0", field="eval", value="1")
    assert r.status_code == 400 and "step is a whole number from 1 to 1000000000, not &#39;0&#39;" in r.text
    assert len(web.st.proposals(t)) == 1
    r = web.post(f"/t/{t}/edit", version=str(web.version(t)), step="2", field="eval", value="1")
    assert r.status_code == 303 and r.headers["location"] == f"/t/{t}/s/2?done=edit"


def test_a_decision_form_missing_its_field_is_refused_as_if_empty(web: Web) -> None:
    t = web.demo
    for what in ("confirm", "decline"):
        for form in ({}, {"path": "success"}):
            r = web.post(f"/t/{t}/{what}", version=str(web.version(t)), **form)
            shown = form.get("path", "")
            assert r.status_code == 400, (what, form)
            assert f"proposal path &#39;{shown}&#39; names no field a proposal may set" in r.text
    r = web.post(f"/t/{t}/approve", version=str(web.version(t)))
    assert r.status_code == 400 and "unknown review level &#39;&#39;; one of human_reviewed" in r.text
    r = web.post(f"/t/{t}/reject", version=str(web.version(t)))
    assert r.status_code == 400 and "a rejection needs a reason" in r.text
    assert [a.action for a in web.st.audit(t)] == ["draft_created"]
    r = web.post(f"/t/{t}/needs-changes", version=str(web.version(t)))
    assert r.status_code == 303 and web.st.audit(t)[-1].detail_json == '{"status_before":"pending"}'
    r = web.post(f"/t/{t}/needs-changes", version=str(web.version(t)), note="Step 3.")
    assert web.st.audit(t)[-1].detail_json == '{"note":"Step 3.","status_before":"needs_changes"}'


def test_an_action_not_there_is_404_and_does_nothing(web: Web) -> None:
    t = web.demo
    r = web.post(f"/t/{t}/publish", version=str(web.version(t)))
    assert r.status_code == 404 and "<title>Not found · forsy</title>" in r.text
    assert '<p class="error">no such action</p>' in r.text and [a.action for a in web.st.audit(t)] == ["draft_created"]


def test_the_audit_page_shows_the_newest_records_first_and_says_how_many_there_are(
        web: Web, monkeypatch: pytest.MonkeyPatch) -> None:
    t = web.demo
    for v in ("-1", "0", "1"):
        web.post(f"/t/{t}/edit", version=str(web.version(t)), step="2", field="eval", value=v)
    monkeypatch.setattr(web_app, "AUDIT_SHOWN", 3)
    page = web.c.get(f"/audit?trace={t}").text
    ids = [int(n) for n in re.findall(r"<tr><td>(\d+)</td>", page)]
    assert len(ids) == 3 and ids == sorted(ids, reverse=True)  # the three edits, newest first
    assert "eval" in page and "draft_created" not in page  # the oldest record is the one left out
    assert (f"4 record(s), newest first; the newest 3 shown (all of them: <code>forsy review audit {t} --json</code>)"
            in page)
    monkeypatch.setattr(web_app, "AUDIT_SHOWN", 1000)
    page = web.c.get(f"/audit?trace={t}").text
    assert "4 record(s), newest first</p>" in page and "draft_created" in page
