"""Two tabs, two fields: an edit made on a page loaded at an older version of a draft is saved when
its own field is as that page showed it; other fields edited meanwhile (another tab, another
reviewer on another step) are no conflict. It is a conflict when its field was set since, or the
draft was decided since, and the conflict page names the field as the form did (its label on the
page, a step by number and title), says who set it and when, shows what it holds now and what
was typed. A decision stays strict: an approval or a request for changes decided on a page that
no longer shows the draft is refused, and the page lists what was done since."""

from __future__ import annotations

import html
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from _paths import SAMPLES
from _review import ADA, HOST, TOKEN, cli, csrf, put
from forsy.errors import ExitCode
from forsy.review import actions
from forsy.review.since import changes_since, same_field
from forsy.store import ReviewConflict, Store, open_store
from forsy.web.app import make_app
from forsy.web.guard import Settings

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

BOB = "Bob Builder <bob@example.org>"
T = "2026-03-02T10:00:{:02d}+00:00"
DEMO = SAMPLES / "claude" / "demo-session.jsonl"
CSRF = csrf()


@pytest.fixture
def st(tmp_path: Path) -> Iterator[Store]:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield store
    store.close()


def version(st: Store, tid: str) -> int:
    state = st.draft_state(tid)
    assert state is not None
    return state.version


# ------------------------------------------------------------------ the actions


def test_edits_of_two_fields_from_pages_of_one_version_both_land(st: Store) -> None:
    tid = put(st, DEMO)
    actions.edit(st, tid, "/learning", "Read first.", reviewer=ADA, at=T.format(1), expected_version=0)
    actions.edit(st, tid, "/steps/2/reasoning", "Reads it.", reviewer=BOB, at=T.format(2), expected_version=0)
    actions.confirm(st, tid, "/steps/3/success", reviewer=BOB, at=T.format(3), expected_version=0)
    assert [(p.path, p.actor) for p in st.proposals(tid)] == [
        ("/learning", ADA), ("/steps/2/reasoning", BOB), ("/steps/3/success", BOB)]
    assert version(st, tid) == 3
    # a decision stays strict: the page it was made on does not show those edits
    for decide in (lambda: actions.approve(st, tid, "human_reviewed", reviewer=BOB, at=T.format(4),
                                           expected_version=0),
                   lambda: actions.needs_changes(st, tid, "More.", reviewer=BOB, at=T.format(4), expected_version=0),
                   lambda: actions.reject(st, tid, "No.", reviewer=BOB, at=T.format(4), expected_version=0)):
        with pytest.raises(ReviewConflict, match="changed since it was read"):
            decide()
    state = st.draft_state(tid)
    assert state is not None and (state.status, state.version) == ("pending", 3)


def test_an_edit_of_a_field_set_since_its_page_was_loaded_is_a_conflict_naming_who(st: Store) -> None:
    tid = put(st, DEMO)
    actions.edit(st, tid, "/learning", "Read first.", reviewer=ADA, at=T.format(1), expected_version=0)
    actions.edit(st, tid, "/steps/4/eval", "1", reviewer=ADA, at=T.format(2), expected_version=0)
    before = (st.proposals(tid), st.audit(tid))
    for path in ("/learning", "learning"):  # the form's spelling of it, or the path's
        with pytest.raises(actions.ChangedSince) as e:
            actions.edit(st, tid, path, "Mine.", reviewer=BOB, at=T.format(3), expected_version=0)
        assert e.value.field == path and (e.value.change.actor, e.value.change.at) == (ADA, T.format(1))
        assert e.value.message == (f"{path} changed since it was read (version 0, now 2): {ADA} set it at "
                                   f"{T.format(1)}; nothing was written, look again")
    # loaded after Ada's edit of it: no conflict
    actions.edit(st, tid, "/learning", "Mine.", reviewer=BOB, at=T.format(4), expected_version=1)
    assert (st.proposals(tid)[:2], st.audit(tid)[:3]) == (before[0], before[1])
    assert st.proposals(tid)[-1].replaced_json == '"Read first."'  # what it replaced: Ada's, seen on the page


def test_an_edit_after_a_decision_since_its_page_is_a_conflict(st: Store) -> None:
    tid = put(st, DEMO)
    actions.needs_changes(st, tid, "Check step 3.", reviewer=ADA, at=T.format(1), expected_version=0)
    with pytest.raises(actions.ChangedSince) as e:  # the note was not on the page the edit came from
        actions.edit(st, tid, "/learning", "Mine.", reviewer=BOB, at=T.format(2), expected_version=0)
    assert e.value.field is None and e.value.change.action == "needs_changes"
    assert "marked as needing changes" in e.value.message and st.proposals(tid) == []


def test_changes_since_counts_the_versions_in_the_audit_log(st: Store) -> None:
    tid = put(st, DEMO)
    actions.edit(st, tid, "/learning", "A.", reviewer=ADA, at=T.format(1))
    actions.needs_changes(st, tid, "More.", reviewer=BOB, at=T.format(2))
    actions.edit(st, tid, "/steps/3/eval", "0", reviewer=BOB, at=T.format(3))
    got = changes_since(st, tid, 1, 3)
    assert got is not None and [(c.version, c.action, c.path, c.actor) for c in got] == [
        (2, "needs_changes", None, BOB), (3, "edit", "/steps/3/eval", BOB)]
    assert changes_since(st, tid, 3, 3) == []
    assert changes_since(st, tid, 0, 2) is None  # not the draft's version: the log does not account for it
    assert changes_since(st, tid, 4, 3) is None
    assert same_field("/summary/goal_notes", "summary/goal_notes") and not same_field("/steps/3/eval", "/steps/4/eval")
    with pytest.raises(ReviewConflict, match="changed since it was read"):  # a version the draft never had
        actions.edit(st, tid, "/learning", "Mine.", reviewer=ADA, at=T.format(4), expected_version=5)
    assert len(st.proposals(tid)) == 2


# ------------------------------------------------------------------ the pages


@dataclass
class Web:
    c: TestClient
    st: Store
    tid: str

    def edit(self, at: int, **form: Any) -> Any:
        return self.c.post(f"/t/{self.tid}/edit", data={"csrf": CSRF, "version": str(at), **form})


@pytest.fixture
def web(tmp_path: Path) -> Iterator[Web]:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    tid = put(store, DEMO)
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: T.format(9))
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield Web(c, store, tid)
    store.close()


def text_of(page: str, pattern: str) -> str:
    m = re.search(pattern, page, re.S)
    assert m, page
    return html.unescape(m.group(1))


def test_two_tabs_of_one_version_save_two_fields(web: Web) -> None:
    assert web.edit(0, field="dataset_summary.description", value="Fixes slugify.").status_code == 303
    r = web.edit(0, step="2", field="reasoning", value="Reads the function first.")  # the other tab
    assert r.status_code == 303 and r.headers["location"] == f"/t/{web.tid}/s/2?done=edit"
    assert [p.path for p in web.st.proposals(web.tid)] == ["/dataset_summary/description", "/steps/2/reasoning"]


def test_a_conflict_names_a_judgement_by_its_label_and_shows_both_values(web: Web) -> None:
    assert web.edit(0, field="dataset_summary.description", value="Fixes <b>slugify</b>.").status_code == 303
    r = web.edit(0, field="dataset_summary.description", value="Mine, typed with care.")
    assert r.status_code == 409 and "<h1>Conflict: someone acted first</h1>" in r.text
    detail = text_of(r.text, r'<p class="error">(.*?)</p>')
    assert detail == (f"Summary of the work changed since it was read: {ADA} set it at {T.format(9)}, after this "
                      "page was loaded. Nothing was written: what it holds now and what you typed are below.")
    assert "dataset_summary" not in r.text.split("<main>")[1].split('<input type="hidden"')[0]
    assert text_of(r.text, r'<pre class="value" id="now"[^>]*>(.*?)</pre>') == "Fixes <b>slugify</b>."
    assert "What you typed for Summary of the work was not saved" in r.text
    assert text_of(r.text, r'<textarea id="typed"[^>]*>(.*?)</textarea>') == "Mine, typed with care."
    assert 'id="retry-form"' not in r.text  # saved again only after a look at what changed


def test_a_conflict_names_a_step_field_as_the_step_page_does(web: Web) -> None:
    assert web.edit(0, step="3", field="eval_reason", value="The tests failed.").status_code == 303
    r = web.edit(0, step="3", field="eval_reason", value="Mine.")
    assert r.status_code == 409
    detail = text_of(r.text, r'<p class="error">(.*?)</p>')
    assert detail.startswith("eval_reason of step #3 (Bash) changed since it was read: ")
    assert "/steps/3" not in r.text and "What you typed for eval_reason of step #3 (Bash) was not saved" in r.text


def test_a_refusal_names_the_field_as_the_form_did(web: Web) -> None:
    r = web.edit(0, field="summary.goal_achieved", value="maybe")
    assert r.status_code == 400
    assert text_of(r.text, r'<p class="error">(.*?)</p>') == "“Was the user's goal achieved?” is true or false, " \
        "not 'maybe'"
    assert "What you typed for Was the user&#39;s goal achieved? was not saved" in r.text
    assert "/summary/goal_achieved" not in r.text


def test_a_stale_approval_is_refused_and_says_what_was_done_since(web: Web) -> None:
    assert web.edit(0, field="learning", value="Read first.").status_code == 303
    assert web.edit(1, step="3", field="eval", value="0").status_code == 303
    r = web.c.post(f"/t/{web.tid}/approve", data={"csrf": CSRF, "version": "0", "level": "human_reviewed"})
    assert r.status_code == 409 and "changed since it was read" in r.text
    done = [html.unescape(x) for x in re.findall(r"<li>(.*?)</li>", text_of(r.text, r'(<ul class="changes".*?</ul>)'))]
    assert done == [f"{ADA} set What is there to learn from it? at {T.format(9)}",
                    f"{ADA} set eval of step #3 (Bash) at {T.format(9)}"]
    state = web.st.draft_state(web.tid)
    assert state is not None and state.status == "pending"
    r = web.c.post(f"/t/{web.tid}/needs-changes", data={"csrf": CSRF, "version": "1", "note": "x"})
    assert r.status_code == 409 and "eval of step #3 (Bash)" in r.text


def test_a_stale_keep_as_is_of_a_field_set_since_is_a_conflict_naming_it(web: Web) -> None:
    assert web.edit(0, field="termination_reason", value="user_confirmed_done").status_code == 303
    r = web.c.post(f"/t/{web.tid}/confirm", data={"csrf": CSRF, "version": "0", "path": "/termination_reason"})
    assert r.status_code == 409
    assert text_of(r.text, r'<p class="error">(.*?)</p>').startswith("Why did the session end? changed since it was "
                                                                      f"read: {ADA} set it at")
    r = web.c.post(f"/t/{web.tid}/confirm", data={"csrf": CSRF, "version": "0", "path": "/steps/3/success"})
    assert r.status_code == 303  # another field, as the page showed it


# ------------------------------------------------------------------ the terminal


def test_the_terminal_saves_edits_of_two_fields_pinned_to_one_version(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    try:
        tid = put(store, DEMO)
    finally:
        store.close()
    base = ["--expect-version", "0", "--store", url]
    assert cli("review", "edit", tid, "--field", "learning", "--value", "A.", *base)[0] == 0
    code, _, err = cli("review", "edit", tid, "--step", "2", "--field", "reasoning", "--value", "B.", *base,
                       who=BOB)
    assert code == 0, err
    code, _, err = cli("review", "edit", tid, "--field", "learning", "--value", "C.", *base, who=BOB)
    assert code == ExitCode.CONFLICT
    assert f"/learning changed since it was read (version 0, now 2): {ADA} set it at" in err
