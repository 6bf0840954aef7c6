"""Every page of the review UI, in a real browser, with hostile text from the log (the task, an
answer, a tool's output, an edit's file, a reasoning) and from reviewers (an edit, a reason, a
rule's pattern, a reviewer's name): nothing runs (no dialog, no injected element), nothing is
fetched from elsewhere, and the text is shown as text. The pages are those of `web/app.py`'s
routes (the queue, the audit log, a draft, a step, the approval page, who is reviewing, the bulk
confirmation and its result, the error page) and the page `forsy render` writes (opened from
file://)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _paths import SAMPLES
from _review import ADA, put, review_serve

CHROMIUM = Path("/usr/bin/chromium")
# markup that would run or fetch if it reached a page unescaped (or through Markdown)
PAYLOADS = [
    "<script>window.__pwned=1;alert(1)</script>",
    "<img src=x onerror=\"window.__pwned=2;alert(2)\">",
    "<svg onload=\"window.__pwned=3\"></svg>",
    "[click](javascript:window.__pwned=4) ![b](http://127.0.0.9:1/beacon.png)",
    "\"><iframe src=\"javascript:window.__pwned=5\"></iframe>",
    "{{ 7*7 }} {% raw %}x{% endraw %} ${7*7}",
    "\u202egnp.exe\u202c",
]
HOSTILE = " ".join(PAYLOADS)


def hostile_session(folder: Path) -> Path:
    """demo-session.jsonl with the payloads in the first prompt, an answer, a tool output, an
    Edit's new text and a reasoning."""
    lines = (SAMPLES / "claude" / "demo-session.jsonl").read_text("utf-8").splitlines()
    out = []
    for line in lines:
        rec = json.loads(line)
        msg = rec.get("message") or {}
        content = msg.get("content")
        if rec.get("type") == "user" and isinstance(content, str):
            msg["content"] = HOSTILE + " " + content
        elif isinstance(content, list):
            for block in content:
                if block.get("type") == "text":
                    block["text"] = block["text"] + "\n\n" + HOSTILE
                elif block.get("type") == "thinking":
                    block["thinking"] = HOSTILE
                elif block.get("type") == "tool_result" and isinstance(block.get("content"), str):
                    block["content"] = block["content"] + "\n" + HOSTILE
                elif block.get("type") == "tool_use" and block.get("name") == "Edit":
                    block["input"]["new_string"] = block["input"]["new_string"] + "\n# " + HOSTILE
        out.append(json.dumps(rec, ensure_ascii=False))
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "hostile.jsonl"
    log.write_text("\n".join(out) + "\n", "utf-8")
    return log


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is absent (apt-get install chromium)")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    from forsy.store import open_store
    from forsy.store.reviewers import create_reviewer_token

    st = open_store(url)
    try:
        tid = put(st, hostile_session(tmp_path / "logs"))
        put(st, SAMPLES / "claude" / "compaction-and-branches.jsonl")
        create_reviewer_token(st, "Mallory " + PAYLOADS[1], "2026-03-01T00:00:00+00:00")
    finally:
        st.close()
    env = {**os.environ, "FORSY_REVIEWER": ADA + " " + PAYLOADS[0][:40]}
    with review_serve(["--store", url, "--port", "0"], env) as first:
        yield first, url, tid


def _watched(b: Any, url: str) -> tuple[Any, list[str], list[str]]:
    """A new page of browser `b` at `url`, with the dialogs it opened and the URLs it fetched."""
    page = b.new_page()
    dialogs: list[str] = []
    requests: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url)
    return page, dialogs, requests


def test_no_page_runs_or_fetches_what_the_log_or_a_reviewer_wrote(served: tuple[str, str, str]) -> None:
    from playwright.sync_api import expect

    from _browser import browser

    first, _, tid = served
    base = first.split("/?")[0]
    with browser() as b:
        page, dialogs, requests = _watched(b, first)

        def check(where: str) -> None:
            assert page.evaluate("window.__pwned === undefined"), where
            assert page.locator("iframe, svg[onload], img[onerror], a[href^='javascript']").count() == 0, where
            html = page.content()
            assert "<script>window" not in html and "\u202e" not in html, where

        # reviewers' own text, through every form that stores some
        page.goto(f"{base}/t/{tid}/s/2")
        row = page.locator("#f-reasoning")
        row.locator("details.edit summary").click()
        row.locator("textarea").fill(HOSTILE)
        row.locator("button[type=submit]").click()
        expect(page.locator("p.flash")).to_have_text("Edit saved.")
        page.goto(f"{base}/t/{tid}")
        page.locator("#j-learning textarea").fill(HOSTILE)
        page.locator("#j-learning button", has_text="set").click()
        page.goto(base + "/")
        page.locator("details.rules summary").click()
        page.locator("#rule-form input[name=name]").fill("bots")
        page.locator("#rule-form input[name=task]").fill("*" + PAYLOADS[0])
        page.locator("#rule-form button").click()
        pages = ["/", "/?hidden=1", f"/t/{tid}", f"/t/{tid}/approve?level=human_reviewed", "/audit",
                 f"/audit?trace={tid}", "/who"] + [f"/t/{tid}/s/{n}" for n in range(1, 10)] + [f"/t/{tid}/s/2?full=1"]
        for path in pages:
            page.goto(base + path)
            check(path)
            assert "&lt;script&gt;" in page.content() or path in ("/?hidden=1",), path
        # the pages that answer a form: a refused edit, the bulk confirmation, a rejection
        page.goto(f"{base}/t/{tid}/s/2")
        row = page.locator("#f-success")
        row.locator("details.edit summary").click()
        row.locator("textarea").fill(HOSTILE)
        row.locator("button[type=submit]").click()
        check("refused edit")
        expect(page.locator("#typed")).to_have_value(re.compile(re.escape(PAYLOADS[0])))
        page.goto(base + "/")
        page.locator(f"input[name=t][value='{tid}']").check()
        page.select_option("#bulk-action", "reject")
        page.locator("#bulk-form input[name=reason]").fill(HOSTILE)
        page.click("#bulk-go")
        check("bulk confirmation")
        page.click("#bulk-confirm")
        check("bulk done")
        page.goto(f"{base}/audit?trace={tid}")
        check("audit after the rejection")
        page.goto(first.split("?")[0] + "t/does-not-exist")
        check("error page")
        # the rendered Markdown answers are there, as text
        page.goto(f"{base}/t/{tid}")
        assert page.locator("article.answer .md").count() >= 1
        expect(page.locator("article.answer .md").first).to_contain_text("window.__pwned=1")
    assert dialogs == []
    elsewhere = [u for u in requests if not u.startswith(base) and not u.startswith("data:")]
    assert elsewhere == [], elsewhere


def test_the_rendered_page_runs_and_fetches_nothing_the_log_wrote(tmp_path: Path) -> None:
    """`forsy render`'s page shows every step in full (the served pages show one at a time):
    opened from file://, nothing runs, nothing is fetched, the payloads are text."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is absent (apt-get install chromium)")

    from _browser import browser
    from forsy.review.source import from_store
    from forsy.store import open_store
    from forsy.web.render import render_html

    st = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        tid = put(st, hostile_session(tmp_path / "logs"))
        html = render_html(from_store(st, tid))
    finally:
        st.close()
    out = tmp_path / "page.html"
    out.write_text(html, "utf-8")
    url = out.as_uri()
    with browser() as b:
        page, dialogs, requests = _watched(b, url)
        assert page.evaluate("window.__pwned === undefined")
        assert page.locator("iframe, svg[onload], img[onerror], a[href^='javascript']").count() == 0
        shown = page.content()
        assert "<script>window" not in shown and "\u202e" not in shown
        # the payloads are there as text: in the step views (a tool's output, a reasoning) too
        assert page.locator("section.step pre.value", has_text="<script>window.__pwned=1").count() >= 2
    assert dialogs == []
    assert [u for u in requests if u != url and not u.startswith("data:")] == []
