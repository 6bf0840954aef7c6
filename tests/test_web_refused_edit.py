"""A refused edit says why at the field: the page that refuses it holds the field's own form again,
with what the reviewer typed in it and the reason beside it (and what the field takes), so it is
corrected and saved from there; a conflict is not saved again from its page (the reviewer looks
at what changed first). A step's typed fields say what they take before anything is sent."""

from __future__ import annotations

import html
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from _paths import SAMPLES
from _review import ADA, HOST, TOKEN, csrf, put
from forsy.store import Store, open_store
from forsy.web.app import make_app
from forsy.web.guard import Settings

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

CSRF = csrf()


@pytest.fixture
def web(tmp_path: Path) -> Iterator[tuple[TestClient, Store, str]]:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    tid = put(st, SAMPLES / "claude" / "demo-session.jsonl")
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: "2026-03-02T10:00:00+00:00")
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield c, st, tid
    st.close()


def retry_form(page: str) -> dict[str, str]:
    """The fields the refusal page's form sends (its hidden inputs and its textarea)."""
    m = re.search(r'<form method="post" action="([^"]+)" class="retry-edit" id="retry-form">(.*?)</form>', page, re.S)
    assert m, page
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', m.group(2)))
    typed = re.search(r'<textarea id="typed"[^>]* name="value"[^>]*>(.*?)</textarea>', m.group(2), re.S)
    assert typed, m.group(2)
    return {"action": m.group(1), **fields, "value": html.unescape(typed.group(1))}


def test_a_refused_step_edit_is_corrected_and_saved_from_its_refusal(web: tuple[TestClient, Store, str]) -> None:
    c, st, tid = web
    r = c.post(f"/t/{tid}/edit", data={"csrf": CSRF, "version": "0", "step": "3", "field": "eval", "value": "5 <i>"})
    assert r.status_code == 400
    why = re.search(r'<p class="why" id="why">(.*?)</p>', r.text)
    assert why and why.group(1) == "eval is -1, 0 or 1, not &#39;5 &lt;i&gt;&#39;"  # beside the value typed
    form = retry_form(r.text)
    assert form == {"action": f"/t/{tid}/edit", "csrf": CSRF, "version": "0", "step": "3", "field": "eval",
                    "value": "5 <i>"}
    assert 'aria-describedby="why"' in r.text and 'id="save-again"' in r.text
    action = form.pop("action")
    r = c.post(action, data={**form, "value": "1"})  # corrected where it was refused
    assert r.status_code == 303 and r.headers["location"] == f"/t/{tid}/s/3?done=edit"
    assert [(p.path, p.value_json) for p in st.proposals(tid)] == [("/steps/3/eval", "1")]


def test_a_refused_judgement_is_corrected_from_its_refusal(web: tuple[TestClient, Store, str]) -> None:
    c, st, tid = web
    r = c.post(f"/t/{tid}/edit", data={"csrf": CSRF, "version": "0", "field": "learning", "value": "   "})
    why = re.search(r'<p class="why" id="why">(.*?)</p>', r.text)
    assert r.status_code == 400 and why and why.group(1) == (
        "“What is there to learn from it?”: an empty value; a field is cleared by re-tracing, not by review · it takes "
        "text (not empty)")
    form = retry_form(r.text)
    assert (form["step"], form["field"]) == ("", "learning")
    r = c.post(form.pop("action"), data={**form, "value": "Read the tests first."})
    assert r.status_code == 303 and r.headers["location"] == f"/t/{tid}?done=edit"
    assert [(p.path, p.value_json) for p in st.proposals(tid)] == [("/learning", '"Read the tests first."')]


def test_a_conflict_is_not_saved_again_from_its_page(web: tuple[TestClient, Store, str]) -> None:
    c, _, tid = web
    form = {"csrf": CSRF, "version": "0", "step": "2", "field": "reasoning"}
    assert c.post(f"/t/{tid}/edit", data={**form, "value": "first"}).status_code == 303
    r = c.post(f"/t/{tid}/edit", data={**form, "value": "second"})
    assert r.status_code == 409 and 'id="retry-form"' not in r.text and 'id="why"' not in r.text
    assert re.search(r'<textarea id="typed" rows="6" readonly [^>]*>second</textarea>', r.text)


def test_a_steps_typed_fields_say_what_they_take(web: tuple[TestClient, Store, str]) -> None:
    c, _, tid = web
    page = c.get(f"/t/{tid}/s/3").text
    assert '<p class="hint" id="hint-eval">eval takes -1, 0 or 1</p>' in page
    assert '<p class="hint" id="hint-success">success takes true or false</p>' in page
    assert 'aria-describedby="hint-eval"' in page and 'id="hint-output"' not in page  # text takes any text
