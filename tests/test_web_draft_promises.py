"""The draft page of the review UI (`web/app.draft`), in process: its conversation is paged by the
first step of each block (a subagent's steps stay together, on the page of its first step), a
page number is checked in its own words, its title, flash and edits are shown, and only an open
draft has review forms or asks for judgements (not once approved, never the reviewed trace). And
`make_app`: the two static files are served before anyone is named as reviewer (the page that asks
needs its stylesheet), while every page asks first."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from _paths import SAMPLES
from _review import ADA, HOST, TOKEN, csrf, put
from forsy.store import Store, open_store
from forsy.web import app as web_app
from forsy.web.app import make_app
from forsy.web.guard import Settings

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

NOW = "2026-03-02T10:00:00+00:00"


class Drafts:
    def __init__(self, c: TestClient, st: Store, demo: str, side: str) -> None:
        self.c, self.st, self.demo, self.side = c, st, demo, side

    def page(self, tid: str, query: str = "") -> str:
        r = self.c.get(f"/t/{tid}{query}")
        assert r.status_code == 200, r.text
        return r.text

    def conversation(self, tid: str, query: str = "") -> list[int]:
        """The step numbers of the conversation's entries on that page, in order."""
        return [int(n) for n in re.findall(r'<article class="turn [^"]*" id="c-(\d+)">', self.page(tid, query))]


@pytest.fixture
def drafts(tmp_path: Path) -> Iterator[Drafts]:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    demo = put(st, SAMPLES / "claude" / "demo-session.jsonl")  # 9 steps
    side = put(st, SAMPLES / "claude" / "legacy-inline-sidechain.jsonl")  # 11 steps; a subagent ran steps 3-5
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: NOW)
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield Drafts(c, st, demo, side)
    st.close()


def test_the_conversation_is_paged_by_each_blocks_first_step(drafts: Drafts, monkeypatch: pytest.MonkeyPatch) -> None:
    assert drafts.conversation(drafts.side) == list(range(1, 12))
    monkeypatch.setattr(web_app, "STEPS_PER_PAGE", 3)  # pages 1-3, 4-6, 7-9, 10-11
    assert drafts.conversation(drafts.side) == [1, 2, 3, 4, 5]  # the subagent's 3-5 whole, on step 3's page
    assert drafts.conversation(drafts.side, "?page=2") == [6]
    assert drafts.conversation(drafts.side, "?page=3") == [7, 8, 9]
    assert drafts.conversation(drafts.side, "?page=4") == [10, 11]


def test_a_page_number_is_checked_in_its_own_words(drafts: Drafts) -> None:
    r = drafts.c.get(f"/t/{drafts.demo}?page=0")
    assert r.status_code == 400 and "page is a whole number from 1 to 1000000000, not &#39;0&#39;" in r.text
    one = drafts.page(drafts.demo, "?page=1")
    assert 'class="pages"' not in one  # 9 steps: one page, no page links
    assert drafts.conversation(drafts.demo, "?page=1") == list(range(1, 10))


def test_the_draft_page_title_flash_and_edits(drafts: Drafts) -> None:
    t = drafts.demo
    html = drafts.page(t, "?done=edit")
    assert f"<title>{t} · forsy</title>" in html and '<p class="flash ok" role="status">Edit saved.</p>' in html
    assert "<h2>Edits</h2>" not in html and 'class="flash' not in drafts.page(t, "?done=nothing")
    v = drafts.st.draft_state(t).version  # type: ignore[union-attr]
    r = drafts.c.post(f"/t/{t}/edit", data={"csrf": csrf(), "version": str(v), "step": "2", "field": "eval",
                                            "value": "1"})
    assert r.status_code == 303
    html = drafts.page(t)
    assert "<h2>Edits</h2>" in html and "<code>/steps/2/eval</code>" in html and f"by {ADA}" in html.replace(
        "&lt;", "<").replace("&gt;", ">")


def test_only_an_open_draft_has_review_forms_and_asks_for_judgements(drafts: Drafts) -> None:
    t = drafts.demo
    forms = (f'action="/t/{t}/needs-changes"', f'action="/t/{t}/edit"')
    html = drafts.page(t)
    assert all(f in html for f in forms) and 'id="needs-h"' in html
    v = drafts.st.draft_state(t).version  # type: ignore[union-attr]
    r = drafts.c.post(f"/t/{t}/approve", data={"csrf": csrf(), "version": str(v), "level": "human_reviewed"})
    assert r.status_code == 303
    html = drafts.page(t)
    assert not any(f in html for f in forms)  # approved: decided
    reviewed = drafts.st.draft_state(t).reviewed_as  # type: ignore[union-attr]
    assert reviewed
    html = drafts.page(reviewed)
    assert "/needs-changes" not in html and "/edit" not in html and 'id="needs-h"' not in html


def test_the_static_files_are_served_before_a_reviewer_is_named(tmp_path: Path) -> None:
    s = Settings(store_url=f"sqlite:///{tmp_path / 'store.db'}", reviewer="", token=TOKEN, hosts={HOST})
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        assert c.get("/").headers["location"] == "/who"
        for name in ("review.css", "review.js"):
            r = c.get(f"/static/{name}")
            assert r.status_code == 200 and r.content, name


def test_links_to_steps_lead_to_the_page_their_entry_is_on(drafts: Drafts, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the validator says of steps is one line per rule and message; each step links to its
    entry in the conversation: an anchor on this page, else its own page of steps (an anchor
    alone would lead nowhere on a long trace)."""
    from forsy import validation
    from forsy.validation._base import Finding
    from forsy.validation.check import Report

    said = [Finding("S015", "warning", "success is <null>", step=s) for s in (10, 1, 4)]
    monkeypatch.setattr(validation, "validate_files", lambda files: Report("x", said, False, {}))
    monkeypatch.setattr(web_app, "STEPS_PER_PAGE", 3)  # pages 1-3 (and the subagent's 3-5), 6, 7-9, 10-11

    def line(query: str) -> str:
        html = drafts.page(drafts.side, query)
        [found] = re.findall(r'<ul class="findings">(.*?)</ul>', html, re.S)
        return found

    assert line("") == ('<li>warning S015 steps <a href="#c-1">#1</a>, <a href="#c-4">#4</a>, '
                        '<a href="?page=4#c-10">#10</a>: success is &lt;null&gt;</li>')
    assert line("?page=4") == ('<li>warning S015 steps <a href="?page=1#c-1">#1</a>, <a href="?page=1#c-4">#4</a>, '
                               '<a href="#c-10">#10</a>: success is &lt;null&gt;</li>')
