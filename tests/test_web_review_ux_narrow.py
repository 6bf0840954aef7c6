"""The review pages in a narrow window (400 px: a phone, a window beside an editor), in Debian's
Chromium: the queue, a draft, its approve and edits pages, a step and the audit log fit the width (nothing
wider than the window: tables become a card per row, long ids, paths and values wrap), and a long
value an approval publishes is in a box within the page. The queue's j/k move between its drafts
even when it has pages (they went to the next page instead)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from _review import ADA, NOW, review_serve, stored
from forsy.review import actions
from forsy.store import open_store

CHROMIUM = Path("/usr/bin/chromium")
LONG = " ".join(f"word{i}" for i in range(150)) + " " + "x" * 300 + " THE-END"  # and a word longer than the window


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str]]:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is absent (apt-get install chromium)")
    pytest.importorskip("playwright")
    url, [tid, *_] = stored(tmp_path / "store.db", "demo-session.jsonl", "print-mode-run.jsonl",
                            "compaction-and-branches.jsonl")
    st = open_store(url)
    try:
        actions.edit(st, tid, "/steps/3/reasoning", LONG, reviewer=ADA, at=NOW)
    finally:
        st.close()
    with review_serve(["--store", url, "--port", "0"], {**os.environ, "FORSY_REVIEWER": ADA}) as first:
        yield first, tid


# what sticks out of the window (not what scrolls within a box of its own, as a long record does)
WIDER = """() => { const w = document.documentElement.clientWidth;
  const boxed = e => { for (let p = e.parentElement; p; p = p.parentElement) {
    if (getComputedStyle(p).overflowX !== 'visible') return p.getBoundingClientRect().right <= w + 1; } return false; };
  return Array.from(document.querySelectorAll('body *'))
  .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right > w + 1 && !boxed(e); })
  .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + (e.textContent || '').trim().slice(0, 40)); }"""


def test_every_page_fits_a_400_px_window(served: tuple[str, str]) -> None:
    from _browser import browser

    first, tid = served
    base = first.split("/?")[0]
    with browser() as b:
        page = b.new_context(viewport={"width": 400, "height": 800}).new_page()
        page.goto(first)
        for url in ("/", f"/t/{tid}", f"/t/{tid}/approve", f"/t/{tid}/edits", f"/t/{tid}/s/3", "/audit"):
            page.goto(base + url)
            page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")  # all of it shown
            assert page.evaluate("document.documentElement.scrollWidth") <= 400, (url, page.evaluate(WIDER))
            assert page.evaluate(WIDER) == [], url
        page.goto(f"{base}/t/{tid}/approve")
        box = page.locator("pre.whole.ins")
        assert "THE-END" in box.inner_text()
        right = page.evaluate("document.querySelector('pre.whole.ins').getBoundingClientRect().right")
        assert right <= 400


def test_j_and_k_on_a_queue_of_several_pages_move_between_its_drafts(served: tuple[str, str]) -> None:
    from playwright.sync_api import expect

    from _browser import browser

    first, _ = served
    base = first.split("/?")[0]
    with browser() as b:
        page = b.new_context(viewport={"width": 1000, "height": 700}).new_page()
        page.goto(first)
        page.goto(f"{base}/?per=2")
        expect(page.locator("#next")).to_be_attached()  # the queue has a next page
        page.wait_for_load_state("load")
        url = page.url
        page.keyboard.press("j")
        page.keyboard.press("j")
        expect(page.locator("tr.row.selected")).to_have_count(1)
        assert page.locator("tr.row").nth(1).get_attribute("class") == "row selected"
        page.keyboard.press("k")
        assert page.locator("tr.row").nth(0).get_attribute("class") == "row selected"
        assert page.url == url  # still on the first page
