"""The step page of the review UI, in process: a long field is cut at FIELD_CAP characters with
a link that shows it whole, the edit form carries the draft's current version, the step's
evidence records are listed with their place (none cut with `?full=1`), the previous/next links
stop at the ends, the title and flash name what was done, and only an open draft has edit forms.
(The promises the third mutation round found untested: testing-floors-3.md, `web/app.step`.)"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from _paths import SAMPLES
from _review import ADA, HOST, TOKEN, csrf, put
from forsy.review.evidence import RECORD_CAP
from forsy.review.view import FIELD_CAP
from forsy.store import Store, open_store
from forsy.web.app import make_app
from forsy.web.guard import Settings

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

NOW = "2026-03-02T10:00:00+00:00"
LONG = "".join(f"line {i:05d} of the test output\n" for i in range(800))  # 24,000 characters: over both caps


class Page:
    def __init__(self, c: TestClient, st: Store, tid: str, long_line: int) -> None:
        self.c, self.st, self.tid, self.long_line = c, st, tid, long_line  # the log line holding LONG

    def step(self, n: int, query: str = "") -> str:
        r = self.c.get(f"/t/{self.tid}/s/{n}{query}")
        assert r.status_code == 200, r.text
        return r.text

    def step_of(self, tid: str, n: int) -> str:
        r = self.c.get(f"/t/{tid}/s/{n}")
        assert r.status_code == 200, r.text
        return r.text

    def trace(self) -> dict[str, object]:
        [f] = [f for f in self.st.trace_files(self.tid) if f.name == "trace.json"]
        return json.loads(f.data)  # type: ignore[no-any-return]


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Page]:
    """The demo session with its first tool result made LONG."""
    recs = [json.loads(x) for x in (SAMPLES / "claude" / "demo-session.jsonl").read_text().splitlines()]
    for i, r in enumerate(recs):
        content = r.get("message", {}).get("content") if isinstance(r.get("message"), dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            block = next(b for b in content if b.get("type") == "tool_result")
            block["content"] = LONG
            r.pop("toolUseResult", None)
            long_line = i + 1
            break
    log = tmp_path / "logs" / "long.jsonl"
    log.parent.mkdir()
    log.write_text("".join(json.dumps(r) + "\n" for r in recs))
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    tid = put(st, log)
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: NOW)
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield Page(c, st, tid, long_line)
    st.close()


def _long_step(p: Page) -> int:
    steps = p.trace()["steps"]
    assert isinstance(steps, list)
    [n] = [s["step"] for s in steps if s.get("output") == LONG]
    return int(n)


def test_a_long_field_is_cut_at_the_cap_and_shown_whole_when_asked(page: Page) -> None:
    n = _long_step(page)
    cut = page.step(n)
    assert f"cut at {FIELD_CAP} of {len(LONG)} characters" in cut
    assert f'<a href="/t/{page.tid}/s/{n}?full=1">show all</a>' in cut
    assert LONG[:FIELD_CAP] in cut and LONG[: FIELD_CAP + 1] not in cut
    whole = page.step(n, "?full=1")
    assert LONG in whole and "cut at" not in whole.split("<h1>", 1)[1].split("evidence", 1)[0]


def test_the_edit_form_carries_the_drafts_current_version(page: Page) -> None:
    v0 = page.st.draft_state(page.tid).version  # type: ignore[union-attr]
    assert f'name="version" value="{v0}"' in page.step(2)
    r = page.c.post(f"/t/{page.tid}/edit", data={"csrf": csrf(), "version": str(v0), "step": "2",
                                                 "field": "eval", "value": "1"})
    assert r.status_code == 303
    v1 = page.st.draft_state(page.tid).version  # type: ignore[union-attr]
    assert v1 == v0 + 1
    html = page.step(2)
    assert f'name="version" value="{v1}"' in html and f'name="version" value="{v0}"' not in html


def test_a_step_lists_its_evidence_with_file_line_and_bytes(page: Page) -> None:
    n = _long_step(page)
    html = page.step(n)
    found = re.findall(r'<details class="evidence" data-ev="(ev_[0-9a-f]{16})">\s*<summary><code>\1</code> '
                       r"long\.jsonl:(\d+) · bytes (\d+)\+(\d+)", html)
    assert page.long_line in [int(line) for _, line, _, _ in found]  # the record its output was copied from
    assert all(int(length) > 0 for _, _, _, length in found)


def test_previous_and_next_links_stop_at_the_ends(page: Page) -> None:
    total = len(page.trace()["steps"])  # type: ignore[arg-type]
    first, second, last = page.step(1), page.step(2), page.step(total)
    assert 'id="prev"' not in first and f'<a href="/t/{page.tid}/s/2" id="next" rel="next">step 2</a>' in first
    assert f'<a href="/t/{page.tid}/s/1" id="prev" rel="prev">step 1</a>' in second
    assert f'<a href="/t/{page.tid}/s/3" id="next" rel="next">step 3</a>' in second
    assert 'id="next"' not in last and f'id="prev" rel="prev">step {total - 1}</a>' in last
    assert f"<h1>Step {total} of {total} · " in last
    assert page.c.get(f"/t/{page.tid}/s/{total + 1}").status_code == 404


def test_a_full_step_page_cuts_no_evidence_record_either(page: Page) -> None:
    n = _long_step(page)
    cut = page.step(n)
    assert f'<p class="cut">cut at {RECORD_CAP} of ' in cut  # the log line holding LONG, cut on the step page
    whole = page.step(n, "?full=1")
    assert 'class="cut"' not in whole and json.dumps(LONG)[1:-1] in whole


def test_the_step_page_title_and_the_flash_of_what_was_done(page: Page) -> None:
    html = page.step(3, "?done=edit")
    assert f"<title>{page.tid} step 3 · forsy</title>" in html
    assert '<p class="flash ok" role="status">Edit saved.</p>' in html
    assert 'class="flash' not in page.step(3, "?done=nothing")


def test_only_an_open_draft_has_edit_forms_on_its_step_pages(page: Page) -> None:
    form = f'action="/t/{page.tid}/edit"'
    assert form in page.step(2)
    v = page.st.draft_state(page.tid).version  # type: ignore[union-attr]
    r = page.c.post(f"/t/{page.tid}/approve", data={"csrf": csrf(), "version": str(v), "level": "human_reviewed"})
    assert r.status_code == 303
    assert form not in page.step(2)  # approved: decided
    reviewed = page.st.draft_state(page.tid).reviewed_as  # type: ignore[union-attr]
    assert reviewed and f'action="/t/{reviewed}/edit"' not in page.step_of(reviewed, 2)  # the reviewed trace itself
