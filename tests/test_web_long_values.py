"""Long values on the review pages: a field shown cut is not offered for an edit holding the
cut (saved, it would replace the value with its first part), and a trace-level value too long
for a page is shown cut, not whole in a text box (a 1 MB value made the page take minutes)."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from _paths import SAMPLES
from _review import ADA, HOST, TOKEN, put
from forsy.review.actions import edit
from forsy.review.view import FIELD_CAP
from forsy.store import Store
from forsy.web.app import make_app
from forsy.web.guard import Settings

NOW = "2026-03-01T12:00:00+00:00"


def _client(tmp_path: Path) -> TestClient:
    s = Settings(store_url=f"sqlite:///{tmp_path / 's.db'}", reviewer=ADA, token=TOKEN, hosts={HOST})
    return TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=True)


def test_a_field_shown_cut_is_edited_only_once_shown_whole(store: Store, tmp_path: Path) -> None:
    tid = put(store, SAMPLES / "claude" / "demo-session.jsonl")
    long = "".join(f"line {i} of the output\n" for i in range(2000))  # ~45,000 characters
    assert len(long) > 2 * FIELD_CAP
    edit(store, tid, "/steps/2/output", long, reviewer=ADA, at=NOW)
    with _client(tmp_path) as c:
        c.get(f"/?token={TOKEN}")
        page = c.get(f"/t/{tid}/s/2").text
        boxes = re.findall(r'<textarea name="value"[^>]*>(.*?)</textarea>', page, re.S)
        assert not any("line 0 of the output" in b for b in boxes)  # no box holds the cut value
        assert f'<a href="/t/{tid}/s/2?full=1">show it all</a> to edit it' in page
        page = c.get(f"/t/{tid}/s/2?full=1").text
        boxes = re.findall(r'<textarea name="value"[^>]*>(.*?)</textarea>', page, re.S)
        assert any("line 1999 of the output" in b for b in boxes)  # shown whole, editable whole


def test_a_trace_value_too_long_for_a_page_is_shown_cut_and_replaced_whole(store: Store, tmp_path: Path) -> None:
    tid = put(store, SAMPLES / "claude" / "demo-session.jsonl")
    edit(store, tid, "/learning", "x" * 1_000_000, reviewer=ADA, at=NOW)
    with _client(tmp_path) as c:
        c.get(f"/?token={TOKEN}")
        page = c.get(f"/t/{tid}").text
        assert "x" * 20_000 not in page and len(page) < 400_000
        assert "1000000 characters, too long to edit in a page: what you type here replaces it whole" in page
