"""forsy review serve: the token, the Host check, CSRF, escaping, CSP and conflicts (in process,
through Starlette's test client), then the review loop in Debian's Chromium through Playwright
(one server for the module, a few pages)."""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

with warnings.catch_warnings():  # starlette 1.10 prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)  # StarletteDeprecationWarning is a UserWarning
    from starlette.testclient import TestClient

from _review import SHOWN, hostile_log, put, review_serve
from forsy.store import Store, open_store
from forsy.validation import validate_path
from forsy.web.app import make_app
from forsy.web.guard import Settings

TOKEN = "t" * 40
CSRF = Settings(store_url="", reviewer="", token=TOKEN, hosts=set()).csrf
HOST = "127.0.0.1:9"
ADA = "Ada Lovelace <ada@example.org>"
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = os.environ.get("FORSY_SCREENSHOTS")  # a folder: save screenshots of the queue and a draft there


@pytest.fixture
def web(tmp_path: Path) -> Iterator[tuple[TestClient, Store, str]]:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    tid = put(st, hostile_log(tmp_path / "logs"))
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: "2026-03-02T10:00:00+00:00")
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        yield c, st, tid
    st.close()


def login(c: TestClient) -> None:
    r = c.get(f"/?token={TOKEN}")
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert "httponly" in r.headers["set-cookie"].lower() and "samesite=strict" in r.headers["set-cookie"].lower()


def test_every_request_needs_the_token(web: tuple[TestClient, Store, str]) -> None:
    c, _, tid = web
    for path in ("/", f"/t/{tid}", f"/t/{tid}/s/1", "/static/review.js", "/audit"):
        assert c.get(path).status_code == 403, path
    assert c.get("/?token=wrong").status_code == 403
    assert c.post(f"/t/{tid}/reject", data={"reason": "x", "version": "0", "csrf": CSRF}).status_code == 403
    assert c.get(f"/?token={TOKEN}", headers={"host": "evil.example:9"}).status_code == 421  # DNS rebinding
    login(c)
    r = c.get("/")
    assert r.status_code == 200 and f'href="/t/{tid}"' in r.text
    assert r.headers["content-security-policy"].startswith("default-src 'none'")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert c.get("/static/..%2f..%2fapp.py").status_code == 404


def test_a_post_without_the_csrf_token_is_refused_and_writes_nothing(web: tuple[TestClient, Store, str]) -> None:
    c, s, tid = web
    login(c)
    for form in ({"reason": "x", "version": "0"}, {"reason": "x", "version": "0", "csrf": "0" * 64}):
        r = c.post(f"/t/{tid}/reject", data=form)
        assert r.status_code == 403 and "CSRF" in r.text
    assert s.draft_state(tid).status == "pending"  # type: ignore[union-attr]
    assert [a.action for a in s.audit(tid)] == ["draft_created"]


def test_log_text_is_escaped_in_every_page(web: tuple[TestClient, Store, str]) -> None:
    c, _, tid = web
    login(c)
    for path in ("/", f"/t/{tid}", f"/t/{tid}/s/1"):
        html = c.get(path).text
        assert "<script>alert" not in html and "<img src=x" not in html, path
        if path != "/":  # the queue shows the task's first 80 characters only
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, path
        assert re.findall(r"<script[^>]*>", html) in ([], ['<script src="/static/review.js" defer>'])


def test_a_stale_form_is_a_conflict_not_a_lost_edit(web: tuple[TestClient, Store, str]) -> None:
    c, s, tid = web
    login(c)
    form = {"csrf": CSRF, "version": "0", "step": "2", "field": "reasoning", "value": "first <b>"}
    r = c.post(f"/t/{tid}/edit", data=form)
    assert r.status_code == 303 and r.headers["location"] == f"/t/{tid}/s/2?done=edit"
    r = c.post(f"/t/{tid}/edit", data={**form, "value": "second"})  # the same page, submitted again
    assert r.status_code == 409 and "changed since it was read" in r.text
    assert [p.value_json for p in s.proposals(tid)] == ['"first <b>"']
    assert "first &lt;b&gt;" in c.get(f"/t/{tid}/s/2").text


# ---------------------------------------------------------------- in a browser


@pytest.fixture  # each browser test its own store and server: none depends on another's order
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is absent (apt-get install chromium)")
    base = tmp_path_factory.mktemp("web")
    url = f"sqlite:///{base / 'store.db'}"
    st = open_store(url)
    try:
        tid = put(st, hostile_log(base / "logs"))
        from _paths import SAMPLES

        put(st, SAMPLES / "claude" / "compaction-and-branches.jsonl")
    finally:
        st.close()
    with review_serve(["--store", url, "--port", "0"], {**os.environ, "FORSY_REVIEWER": ADA}) as first:
        # the URL to open is the first line
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{40,}", first), first
        yield first, url, tid


@pytest.fixture
def page(server: tuple[str, str, str]) -> Iterator[object]:
    from _browser import browser

    with browser() as b:
        p = b.new_page(viewport={"width": 1280, "height": 800})
        p.dialogs = []  # type: ignore[attr-defined]
        p.on("dialog", lambda d: (p.dialogs.append(d.message), d.dismiss()))  # type: ignore[attr-defined]
        yield p


def test_browser_queue_filter_draft_evidence_edit(server: tuple[str, str, str], page: object) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    first, url, tid = server
    page.goto(first)
    assert "token=" not in page.url  # kept in a cookie, dropped from the address bar
    expect(page.locator("table.queue tbody tr")).to_have_count(2)
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "queue.png"), full_page=True)
    page.fill("#filter-text", "slugify")
    page.click("form.filters button[type=submit]")
    expect(page.locator("table.queue tbody tr")).to_have_count(1)
    page.click(f"a[href='/t/{tid}']")
    expect(page.locator("td.task")).to_contain_text(SHOWN)  # the hostile text, shown as text
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "draft.png"), full_page=True)
    page.wait_for_load_state("load")  # the keys go to review.js (deferred): wait until it runs
    page.keyboard.press("j")  # keyboard: select the first step, open it
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/s/1$"))
    page.click("a#next")
    page.wait_for_url(re.compile(r"/s/2$"))
    ev = page.locator("details.evidence").first
    ev.locator("summary").click()
    expect(ev.locator("pre.record")).to_be_visible()
    expect(ev.locator("mark").first).to_be_visible()
    expect(page.locator("#f-input td.verdict")).to_have_text("matches the log")
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "step.png"), full_page=True)
    row = page.locator("#f-reasoning")
    row.locator("details.edit summary").click()
    row.locator("textarea").fill("Reads the function before changing it.")
    row.locator("button[type=submit]").click()
    expect(page.locator("p.flash")).to_have_text("Edit saved.")
    expect(page.locator("#f-reasoning td.origin")).to_contain_text("edited by Ada Lovelace")
    assert page.dialogs == []  # type: ignore[attr-defined]
    st = open_store(url)
    try:
        [p] = st.proposals(tid)
        assert (p.path, json.loads(p.value_json), p.actor) == ("/steps/2/reasoning",
                                                                "Reads the function before changing it.", ADA)
        assert [a.action for a in st.audit(tid)][-1] == "edit"
    finally:
        st.close()


def test_browser_approve_then_export(server: tuple[str, str, str], page: object, tmp_path: Path) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    first, url, tid = server
    page.goto(first)  # logs in (the token goes into a cookie)
    st = open_store(url)
    try:  # an edit to carry into the reviewed trace
        from forsy.review import actions

        actions.edit(st, tid, "/steps/2/reasoning", "Reads the function before changing it.", reviewer=ADA,
                     at="2026-03-02T10:00:00+00:00")
    finally:
        st.close()
    page.goto(first.split("?")[0] + f"t/{tid}")
    page.select_option("#level", "human_reviewed")
    page.click("#approve")  # shows what will be published, and asks
    expect(page.locator("ul.edits li")).to_contain_text("Reads the function before changing it.")
    page.click("#confirm")
    expect(page.locator("#status")).to_have_text("approved")
    expect(page.locator("h1")).to_contain_text("Reviewed")
    new = page.locator("#reviewed-link").inner_text()
    st = open_store(url)
    try:
        from forsy.review.export import export_approved

        [e] = export_approved(st, tmp_path / "out")
        assert st.audit(tid)[-1].action == "approve"
    finally:
        st.close()
    t = json.loads((e.folder / "trace.json").read_text())
    assert (t["trace_id"], t["prior_trace_id"], t["validation_level"]) == (new, tid, "human_reviewed")
    fp = next(sp for sp in json.loads((e.folder / "provenance.json").read_text())["steps"] if sp["step"] == 2)
    assert fp["fields"]["reasoning"]["reviewer"]["reviewer"] == ADA
    assert validate_path(e.folder).ok


def test_team_mode_each_reviewer_logs_in_with_their_own_token(tmp_path: Path) -> None:
    """--reviewer-tokens: a reviewer's own token (stored hashed) logs them in and names them on
    every action; a revoked or unknown token is refused; the server's token still works."""
    from forsy.store.reviewers import create_reviewer_token, revoke_reviewer_tokens

    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    tid = put(st, hostile_log(tmp_path / "logs"))
    bob_token = create_reviewer_token(st, "Bob <bob@example.org>", "2026-03-02T09:00:00+00:00")
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, reviewer_tokens=True,
                 clock=lambda: "2026-03-02T10:00:00+00:00")
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get("/?token=forsy_rt_not-a-real-one").status_code == 403
        r = c.get(f"/?token={bob_token}")
        assert r.status_code == 303
        page = c.get("/")
        assert page.status_code == 200 and "Bob" in page.text
        bob_csrf = Settings(store_url="", reviewer="", token=bob_token, hosts=set()).csrf
        r = c.post(f"/t/{tid}/reject", data={"reason": "wrong model name", "version": "0", "csrf": bob_csrf})
        assert r.status_code in (200, 303), r.text[:300]
        assert any(a.actor.startswith("Bob") and a.action == "reject" for a in st.audit(tid, 10))
        revoke_reviewer_tokens(st, "Bob <bob@example.org>", "2026-03-02T11:00:00+00:00")
        assert c.get("/").status_code == 403  # the cookie's token no longer logs anyone in
    st.close()
