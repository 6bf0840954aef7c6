"""A reviewer's whole job in Debian's Chromium (Playwright), on a real multi-turn session: open the
queue, page to the draft, read an answer and a tool output, see a diff, decide every "Needs you"
item, accept one model value and decline another, approve through the confirmation, export; and
an accessibility pass (axe-core) on the queue, draft and step pages.

FORSY_SCREENSHOTS=docs/screenshots saves a screenshot of each page there (how the README's are made);
the pages are then of the shipped demo session, since what the docs show must not copy a real log.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from _paths import REAL_LOGS, SAMPLES
from _review import ADA, NOW, review_serve
from forsy.assemble import Assembled
from forsy.evidence import Session
from forsy.models import FieldProvenance
from forsy.run import RetraceOptions, retrace_one
from forsy.store import open_store
from forsy.store.sink import StoreSink
from test_review_queue import many

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = os.environ.get("FORSY_SCREENSHOTS")
# a real Claude Code session of two turns with a subagent, edits and failures; the demo sample without ../shared
REAL = (REAL_LOGS / "claude" / "marot__spotter" / "test" / "fixtures" / "transcripts"
        / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
PROPOSED = {2: "Looked the issue up before starting.", 3: "Listed what was ready to work on."}


class TwoModelValues:
    """The draft as a --llm retrace leaves it: two values a (scripted) model proposed, each cited."""

    def __init__(self, inner: StoreSink) -> None:
        self.inner = inner

    def write(self, a: Assembled, s: Session) -> str:
        for n, value in PROPOSED.items():
            a.trace.steps[n - 1].observation = value
            sp = next(p for p in a.provenance.steps if p.step == n)
            ev = sp.evidence[0]
            sp.fields["observation"] = FieldProvenance.model_validate({
                "origin": "model", "evidence": [{"id": ev, "pointer": ""}],
                "model": {"model": "scripted/model-a", "citations": [{"id": ev, "quote": "a quote", "score": 1.0}]}})
        return self.inner.write(a, s)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is absent (apt-get install chromium)")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    log = REAL if REAL.is_file() and not SHOTS else SAMPLES / "claude" / "demo-session.jsonl"
    st = open_store(url)
    try:
        many(st, 60)  # newer drafts: the real one is on the second page
        [o] = retrace_one(log, RetraceOptions(), sink=TwoModelValues(StoreSink(st, now=NOW)), keep=False)
        assert o.status == "written" and o.trace_id
    finally:
        st.close()
    with review_serve(["--store", url, "--port", "0"], {**os.environ, "FORSY_REVIEWER": ADA}) as first:
        yield first, url, o.trace_id


def shot(page: object, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / name), full_page=False)  # type: ignore[attr-defined]


def serious(page: object) -> list[str]:
    """axe-core's violations of impact serious or critical on the page."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [f"{v['id']}: {v['help']} ({len(v['nodes'])} nodes)" for v in found
            if v.get("impact") in ("serious", "critical")]


def test_a_reviewer_reviews_a_real_session_end_to_end(served: tuple[str, str, str], tmp_path: Path) -> None:
    from playwright.sync_api import expect

    from _browser import browser

    first, url, tid = served
    with browser() as b:
        page = b.new_page(viewport={"width": 1280, "height": 900})
        page.goto(first)
        expect(page.locator("#total")).to_contain_text("61 draft(s) · page 1 of 2")
        assert serious(page) == []
        shot(page, "queue.png")
        page.click("#next")
        page.click(f"a.open[href='/t/{tid}']")
        expect(page.locator("h1")).to_contain_text("Draft")
        assert serious(page) == []
        # the work: an answer, a tool's output, a diff
        expect(page.locator("article.answer .md").first).not_to_be_empty()
        out = page.locator("article.call pre.out, article.call details.output").first
        expect(out).to_be_attached()
        expect(page.locator(".diff .d-add").first).to_be_visible()
        shot(page, "draft.png")
        needs = page.locator("section.needs")
        expect(needs.locator(".count")).to_have_text("7 open")  # 5 judgements, 2 model values
        # decide every item in place
        needs.locator("#j-summary-goal_achieved input[value=true]").check()
        needs.locator("#j-summary-goal_achieved button").click()
        expect(page.locator("p.flash")).to_have_text("Edit saved.")
        for path in ("termination_reason", "dataset_summary-description"):
            page.locator(f"#j-{path} button", has_text="keep as is").click()
            expect(page.locator("p.flash")).to_contain_text("Kept as it is")
        for path, text in (("summary-goal_notes", "The issue was worked on, not closed."),
                           ("learning", "Read the failing output before editing.")):
            page.locator(f"#j-{path} textarea").fill(text)
            page.locator(f"#j-{path} button", has_text="set").click()
            expect(page.locator("p.flash")).to_have_text("Edit saved.")
        page.locator("li.proposal", has_text="/steps/2/observation").locator("button", has_text="accept").click()
        page.locator("li.proposal", has_text="/steps/3/observation").locator("button", has_text="decline").click()
        expect(page.locator("section.needs .count")).to_have_text("all decided")
        # a step, one click away
        page.locator("article#c-2 a.stepno").click()
        expect(page.locator("h1")).to_contain_text("Step 2")
        assert serious(page) == []
        shot(page, "step.png")
        page.go_back()
        page.click("#approve")
        expect(page.locator("ul.edits li")).to_have_count(7)
        shot(page, "approve.png")
        page.click("#confirm")
        expect(page.locator("h1")).to_contain_text("Reviewed")
        expect(page.locator("#status")).to_have_text("approved")
    out_dir = tmp_path / "published"
    r = subprocess.run([sys.executable, "-m", "forsy.cli", "review", "export", "-o", str(out_dir), "--store", url],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    [line] = (out_dir / "index.jsonl").read_text().splitlines()
    t = json.loads((out_dir / json.loads(line)["folder"] / "trace.json").read_text())
    assert t["prior_trace_id"] == tid and t["validation_level"] == "human_reviewed"
    assert t["summary"]["goal_achieved"] is True and t["learning"] == "Read the failing output before editing."
    assert t["steps"][1]["observation"] == PROPOSED[2] and t["steps"][2]["observation"] is None
    assert re.fullmatch(r"forsy_[0-9a-f]+", t["trace_id"])
