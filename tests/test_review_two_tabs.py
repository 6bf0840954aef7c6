"""Two tabs of one draft in Debian's Chromium (Playwright), against `forsy review serve`: a judgement
saved in one tab and a step's field in the other, both loaded at the same version, are both kept;
the same judgement saved in both is a conflict for the second, named by its label on the page,
with what the first saved and what the second typed; and an approval from a page that no longer
shows the draft is refused, listing what was done since."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _browser import browser
from _paths import SAMPLES
from _review import ADA, put, review_serve
from forsy.store import open_store

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    """The server's login URL, its base and the draft's id."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is absent (apt-get install chromium)")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        tid = put(st, SAMPLES / "claude" / "demo-session.jsonl")
    finally:
        st.close()
    env = {**os.environ, "FORSY_REVIEWER": ADA, "XDG_DATA_HOME": str(tmp_path / "data")}
    with review_serve(["--store", url, "--port", "0"], env) as first:
        yield first, first.split("/?")[0], tid


def set_judgement(page: Any, anchor: str, text: str) -> None:
    j = page.locator(anchor)
    j.locator("textarea").fill(text)
    j.get_by_role("button", name="set").click()
    page.wait_for_load_state()


def edit_step_field(page: Any, name: str, text: str) -> None:
    row = page.locator(f"#f-{name}")
    row.locator("summary", has_text="edit").click()
    row.locator("textarea").fill(text)
    row.get_by_role("button", name="save edit").click()
    page.wait_for_load_state()


def test_two_tabs_save_two_fields_and_a_conflict_names_the_field_as_the_form_did(
        served: tuple[str, str, str]) -> None:
    login, base, tid = served
    with browser() as b:
        ctx = b.new_context()
        one, two = ctx.new_page(), ctx.new_page()
        one.goto(login)
        one.goto(f"{base}/t/{tid}")
        two.goto(f"{base}/t/{tid}/s/2")  # loaded before the first tab saves
        set_judgement(one, "#j-dataset_summary-description", "Fixes slugify: one dash per run.")
        assert one.locator(".flash").inner_text() == "Edit saved."
        edit_step_field(two, "reasoning", "Reads slugify before running the tests.")
        assert two.locator(".flash").inner_text() == "Edit saved."
        assert "Reads slugify before running the tests." in two.locator("#f-reasoning").inner_text()
        # the same judgement in both tabs
        one.goto(f"{base}/t/{tid}")
        two.goto(f"{base}/t/{tid}")
        set_judgement(one, "#j-summary-goal_notes", "The goal was met.")
        set_judgement(two, "#j-summary-goal_notes", "My own note, typed with care.")
        assert two.title() == "Conflict · forsy"
        said = two.locator("p.error").inner_text()
        assert said.startswith(f"Notes on the goal changed since it was read: {ADA} set it at ")
        assert "goal_notes" not in two.locator("main").inner_text()
        assert two.locator("#now").inner_text() == "The goal was met."
        assert two.locator("#typed").input_value() == "My own note, typed with care."
        # an approval decided on a page that no longer shows the draft
        two.goto(f"{base}/t/{tid}")
        two.locator("#approve").click()
        two.wait_for_load_state()
        one.goto(f"{base}/t/{tid}/s/3")
        edit_step_field(one, "eval_reason", "The tests fail.")
        two.locator("#confirm").click()
        two.wait_for_load_state()
        assert two.title() == "Conflict · forsy"
        done = two.locator("#changes li").all_inner_texts()
        assert [t.rsplit(" at ", 1)[0] for t in done] == [f"{ADA} set eval_reason of step #3 (Bash)"]
        two.goto(f"{base}/t/{tid}")
        assert two.locator("#status").inner_text() == "pending"


def test_what_was_typed_in_one_box_is_kept_when_another_is_saved(served: tuple[str, str, str]) -> None:
    """Typing in two boxes of the draft page and saving one reloaded the page with the other's
    text gone, without a word: it is put back, said not to be saved yet, and saved after; and
    typed on a page since changed by another reviewer, its save is still that field's conflict."""
    login, base, tid = served
    with browser() as b:
        page = b.new_context().new_page()
        page.goto(login)
        page.goto(f"{base}/t/{tid}")
        page.locator("#j-summary-goal_notes textarea").fill("Typed, not saved yet.")
        set_judgement(page, "#j-dataset_summary-description", "Fixes slugify.")
        assert page.locator(".flash").inner_text() == "Edit saved."
        box = page.locator("#j-summary-goal_notes")
        assert box.locator("textarea").input_value() == "Typed, not saved yet."
        assert box.locator("p.restored").inner_text() == "what you typed here before, not saved yet"
        box.get_by_role("button", name="set").click()
        page.wait_for_load_state()
        assert page.locator(".flash").inner_text() == "Edit saved."
        assert page.locator("#j-summary-goal_notes textarea").input_value() == "Typed, not saved yet."
        assert page.locator("p.restored").count() == 0  # saved: let go
        # typed, then another reviewer sets the same field, then this page is loaded again and saved
        page.locator("#j-summary-goal_notes textarea").fill("Mine, typed first.")
        other = b.new_context().new_page()
        other.goto(login)
        other.goto(f"{base}/t/{tid}")
        set_judgement(other, "#j-summary-goal_notes", "Theirs, saved first.")
        page.goto(f"{base}/t/{tid}")
        assert page.locator("#j-summary-goal_notes textarea").input_value() == "Mine, typed first."
        page.locator("#j-summary-goal_notes").get_by_role("button", name="set").click()
        page.wait_for_load_state()
        assert page.title() == "Conflict · forsy"
        assert page.locator("#typed").input_value() == "Mine, typed first."


def test_what_was_typed_survives_a_save_that_did_not_go_through(served: tuple[str, str, str]) -> None:
    """A save the server did not take (restarted, it asks for its link again: here the session is
    gone) lost what was typed: the tab let it go when the form was sent. It comes back when the
    draft is opened again, said not to have been saved, and is let go once it is."""
    login, base, tid = served
    with browser() as b:
        ctx = b.new_context()
        page = ctx.new_page()
        page.goto(login)
        page.goto(f"{base}/t/{tid}")
        box = page.locator("#j-summary-goal_notes")
        box.locator("textarea").fill("Typed before the restart.")
        ctx.clear_cookies()  # the server no longer knows this browser
        box.get_by_role("button", name="set").click()
        page.wait_for_load_state()
        assert "forbidden" in page.content()
        page.goto(login)
        page.goto(f"{base}/t/{tid}")
        box = page.locator("#j-summary-goal_notes")
        assert box.locator("textarea").input_value() == "Typed before the restart."
        assert box.locator("p.restored").inner_text() == "what you typed here before: its save did not go through"
        box.get_by_role("button", name="set").click()
        page.wait_for_load_state()
        assert page.locator(".flash").inner_text() == "Edit saved."
        page.goto(f"{base}/t/{tid}")
        assert page.locator("#j-summary-goal_notes textarea").input_value() == "Typed before the restart."
        assert page.locator("p.restored").count() == 0
