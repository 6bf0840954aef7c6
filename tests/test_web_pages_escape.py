"""A tool's name comes from the log like any other text: every page that shows it (the step
page's heading, the draft's step table) shows it escaped. Through Starlette's test client, on
the HTML as served; test_web_hostile.py checks the other log- and reviewer-supplied texts in a
real browser."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from _paths import SAMPLES
from _review import put
from forsy.store import TraceQuery, open_store
from forsy.web.app import make_app
from forsy.web.guard import Settings

TOKEN = "t" * 40
HOST = "127.0.0.1:9"
NAME = "<img src=x onerror=alert(7)>Bash"
ESCAPED = "&lt;img src=x onerror=alert(7)&gt;Bash"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[tuple[TestClient, str, int]]:
    text = (SAMPLES / "claude" / "demo-session.jsonl").read_text("utf-8")
    assert '"name":"Bash"' in text
    log = tmp_path / "logs" / "s.jsonl"
    log.parent.mkdir()
    log.write_text(text.replace('"name":"Bash"', '"name":' + json.dumps(NAME)), "utf-8")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    tid = put(st, log)
    [row] = st.traces(TraceQuery())
    st.close()
    s = Settings(store_url=url, reviewer="Ada <ada@example.org>", token=TOKEN, hosts={HOST})
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield c, tid, row.steps


def test_a_tool_name_from_the_log_is_shown_escaped_on_every_step_page(client: tuple[TestClient, str, int]) -> None:
    c, tid, steps = client
    draft = c.get(f"/t/{tid}")
    assert draft.status_code == 200 and "onerror=alert(7)>" not in draft.text
    shown = 0
    for n in range(1, steps + 1):
        r = c.get(f"/t/{tid}/s/{n}")
        assert r.status_code == 200, n
        assert "<img src=x onerror=alert(7)>" not in r.text, n
        shown += ESCAPED in r.text
    assert shown >= 3  # the three Bash calls' pages name the tool, escaped
