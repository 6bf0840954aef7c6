"""A long draft is read with the keyboard (Chromium through Playwright): on the draft page j/k move
from step to step of the conversation, n/N to the next or previous step that asks for a look (a
failure, a call the user rejected, a step on an abandoned branch), from where the page is
scrolled; Enter opens the selected step's own page."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from _browser import browser
from _paths import SAMPLES
from _review import ADA, review_serve, stored

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str]]:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is absent (apt-get install chromium)")
    url, [tid] = stored(tmp_path / "store.db", "compaction-and-branches.jsonl")
    assert (SAMPLES / "claude" / "compaction-and-branches.jsonl").is_file()
    with review_serve(["--store", url, "--port", "0"], {**os.environ, "FORSY_REVIEWER": ADA}) as first:
        yield first, tid


def test_j_k_n_and_enter_walk_a_drafts_steps(served: tuple[str, str]) -> None:
    from playwright.sync_api import expect

    first, tid = served
    base = first.split("/?")[0]
    with browser() as b:
        page = b.new_context(viewport={"width": 1000, "height": 500}).new_page()
        page.goto(first)
        page.goto(f"{base}/t/{tid}")

        def selected() -> list[str]:
            return page.eval_on_selector_all("article.turn.selected", "els => els.map(e => e.id)")  # type: ignore[no-any-return]

        for key, want in [("n", "c-3"), ("n", "c-4"), ("n", "c-10"), ("N", "c-4"), ("j", "c-5"), ("k", "c-4")]:
            page.keyboard.press(key)
            assert selected() == [want], (key, want)
        top = page.eval_on_selector("#c-4", "e => e.getBoundingClientRect().top")
        assert abs(top) < 2  # brought to the top of the window
        page.evaluate("window.scrollTo(0, 0)")  # scrolled away by hand: the next step is read from there
        page.keyboard.press("j")
        assert selected() == ["c-1"]
        page.keyboard.press("n")
        page.keyboard.press("Enter")
        expect(page).to_have_url(f"{base}/t/{tid}/s/3")
