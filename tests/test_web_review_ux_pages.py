"""What reviewers met on the review pages, each kept fixed: the approve page shows every value an
approval publishes whole (it cut them at 200 characters, silently); edits are named as their
forms name them (`reasoning of step #3 (Bash)`, the path beside it), not by a JSON path; a bulk
rejection refused for a secret in its reason gives the reason back, masked, in the form with the
selection (it came back empty); a page loaded before someone decided the draft says who decided
what and when instead of offering to save again what would be refused again; and the legend of
the keys shows only where the keys do something, listing only those."""

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
from _review import ADA, HOST, TOKEN, csrf, put, stored
from forsy.review import actions
from forsy.review.source import from_home as _from_home
from forsy.review.view import FIELD_CAP
from forsy.store import Store, open_store
from forsy.web.app import make_app
from forsy.web.guard import Settings
from secretgen import SecretGen

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

NOW = "2026-03-02T10:00:00+00:00"
LATER = "2026-03-02T10:05:00+00:00"
BEA = "Bea Jones <bea@example.org>"  # the other reviewer, who decides while Ada's page is open
CSRF = csrf()
# a value longer than any cut a page made (200 characters), its end marked
LONG = " ".join(f"word{i}" for i in range(150)) + " THE-END"


@dataclass
class Web:
    c: TestClient
    st: Store
    demo: str  # demo-session.jsonl: step 3 is a Bash call
    other: str

    def post(self, url: str, **form: Any) -> Any:
        return self.c.post(url, data={"csrf": CSRF, **form})

    def version(self, tid: str) -> int:
        return self.st.draft_state(tid).version  # type: ignore[union-attr]


@pytest.fixture
def web(tmp_path: Path) -> Iterator[Web]:
    url, [demo, other] = stored(tmp_path / "store.db", "demo-session.jsonl", "print-mode-run.jsonl")
    st = open_store(url)
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: NOW)
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield Web(c, st, demo, other)
    st.close()


def edited(web: Web) -> None:
    """Ada's two edits of the demo draft: a long reasoning of step 3, a short learning."""
    for form in ({"step": "3", "field": "reasoning", "value": LONG}, {"field": "learning", "value": "Read first."}):
        r = web.post(f"/t/{web.demo}/edit", version=str(web.version(web.demo)), **form)
        assert r.status_code == 303, r.text


def items(page: str) -> list[str]:
    """The edits a page lists, each as its text."""
    return [html.unescape(re.sub(r"<[^>]+>", " ", m)) for m in
            re.findall(r'<li class="edit-item"[^>]*>(.*?)</li>', page, re.S)]


# ------------------------------------------------------------------ what an approval publishes


def test_the_approve_page_shows_each_value_whole(web: Web) -> None:
    edited(web)
    page = web.c.get(f"/t/{web.demo}/approve?level=human_reviewed").text
    [reasoning, learning] = items(page)
    assert LONG in " ".join(reasoning.split())  # every word of it, to the end: nothing cut
    assert "…" not in reasoning
    assert "Read first." in learning
    assert f"{len(LONG)} characters, all of them here" in page  # a long value says it is whole


def test_the_draft_page_lists_each_edit_whole_with_who_and_when(web: Web) -> None:
    edited(web)
    [reasoning, _] = items(web.c.get(f"/t/{web.demo}").text)
    assert LONG in " ".join(reasoning.split()) and "…" not in reasoning
    assert f"by {ADA} at {NOW}" in reasoning


def test_a_value_too_long_for_a_page_says_where_it_is_cut_and_links_to_all_of_it(web: Web) -> None:
    """Past FIELD_CAP characters a page holds the first part (a value of megabytes would make it
    take minutes), says so, and links to the page that shows the edits whole."""
    huge = "".join(f"line {i}\n" for i in range(2000)) + "THE-END"
    assert len(huge) > FIELD_CAP
    r = web.post(f"/t/{web.demo}/edit", version=str(web.version(web.demo)), field="learning", value=huge)
    assert r.status_code == 303
    for url in (f"/t/{web.demo}/approve", f"/t/{web.demo}"):
        page = web.c.get(url).text
        [listed] = re.findall(r'<ul class="edits">.*?</ul>', page, re.S)
        assert "THE-END" not in listed and "line 1999" not in listed and "line 400\n" in listed, url
        cut = re.search(rf'cut at {FIELD_CAP} of {len(huge)} characters · <a href="([^"]+)">show all of it</a>', listed)
        assert cut is not None, url
        every = web.c.get(cut.group(1)).text
        assert huge in html.unescape(every) and "Edits of" in every


def test_an_edits_text_is_escaped_wherever_it_is_shown_whole(web: Web) -> None:
    hostile = "<img src=x onerror=alert(1)>\n" * 40  # long and on many lines: shown in a box
    r = web.post(f"/t/{web.demo}/edit", version=str(web.version(web.demo)), field="learning", value=hostile)
    assert r.status_code == 303
    for url in (f"/t/{web.demo}/approve", f"/t/{web.demo}", f"/t/{web.demo}/edits"):
        page = web.c.get(url).text
        assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page, url


def test_edits_are_named_as_their_forms_name_them_the_path_beside(web: Web) -> None:
    edited(web)
    for url in (f"/t/{web.demo}/approve", f"/t/{web.demo}"):
        page = web.c.get(url).text
        named = re.findall(r'<p class="what"><b>([^<]*)</b> <code>([^<]*)</code>', page)
        assert named == [("reasoning of step #3 (Bash)", "/steps/3/reasoning"),
                         ("What is there to learn from it?", "/learning")], url


def test_a_model_value_longer_than_its_line_says_it_is_cut_and_shows_all(web: Web) -> None:
    """A value a model proposed was shown cut at 300 characters, with nothing saying so, on the
    page where a reviewer accepts it."""
    from forsy.web.pages import env

    class Needs:
        open_count, judgements, findings, factors, cut_outputs, reading_warnings = 1, [], [], [], [], []
        model_values = [type("M", (), dict(path="/steps/3/observation", value=LONG, model="m/x", quotes=(),
                                           decision=""))()]

    macro = env().get_template("_needs.html").module.needs_you  # type: ignore[attr-defined]
    out = str(macro(Needs(), web.demo, CSRF, 1, True, lambda n: f"#c-{n}", "pending", lambda p: f"label of {p}"))
    assert "<b>label of /steps/3/observation</b>" in out
    assert f"cut at 300 characters: show all {len(LONG)}" in out and LONG in out


def test_a_task_cut_on_the_draft_page_says_where_it_is_whole(web: Web, tmp_path: Path) -> None:
    text = (SAMPLES / "claude" / "demo-session.jsonl").read_text("utf-8")
    log = tmp_path / "logs" / "long-task.jsonl"
    log.parent.mkdir()
    log.write_text(text.replace("Can you fix it", "word " * 80 + "TASK-END. Can you fix it", 1), "utf-8")
    tid = put(web.st, log)
    page = web.c.get(f"/t/{tid}").text
    line = re.search(r'<p class="task-line">(.*?)</p>', page, re.S)
    assert line is not None and "TASK-END" not in line.group(1)
    assert "(cut: the whole task is under “about this trace” below)" in line.group(1)
    assert "TASK-END" in page.split('<details class="about"', 1)[1]
    demo = re.search(r'<p class="task-line">(.*?)</p>', web.c.get(f"/t/{web.demo}").text, re.S)
    assert demo is not None and "cut" not in demo.group(1)  # a short task says nothing of the kind


# ------------------------------------------------------------------ a secret in a bulk reason


def test_a_bulk_reason_refused_for_a_secret_comes_back_masked_with_the_selection(web: Web) -> None:
    token = SecretGen(seed=31).github()
    typed = f"A CI bot's session; its token {token} is in the log"
    r = web.post("/bulk", action="reject", reason=typed, t=[web.demo, web.other])
    assert r.status_code == 400 and "the reason holds what looks like a secret" in r.text
    assert token not in html.unescape(r.text)  # never echoed, not even in the form
    box = re.search(r'<input name="reason" id="bulk-reason" value="([^"]*)"', r.text)
    assert box is not None
    assert html.unescape(box.group(1)) == "A CI bot's session; its token [CREDENTIAL_1] is in the log"
    assert re.findall(r'<input type="hidden" name="t" value="([^"]+)">', r.text) == [web.demo, web.other]
    assert "Write the reason without the secret" in r.text
    # corrected in that form, it goes on to the confirmation as any reason does
    r = web.post("/bulk", action="reject", reason="A CI bot's session", t=[web.demo, web.other])
    assert r.status_code == 200 and "Reject 2 draft(s)?" in r.text
    assert web.st.draft_state(web.demo).status == "pending"  # type: ignore[union-attr]


def test_an_approval_leaves_the_reason_box_behind(web: Web) -> None:
    """A bulk approval takes no reason: a secret left in the box neither stops it nor reaches the page."""
    token = SecretGen(seed=32).github()
    r = web.post("/bulk", action="approve", reason=f"key {token}", t=[web.demo])
    assert r.status_code == 200 and "Approve 1 draft(s)?" in r.text and token not in r.text


# ------------------------------------------------------------------ a draft decided since the page was loaded


DECIDED = [pytest.param("reject", f"rejected by {BEA} at {LATER}: “Wrong session, a test run”", id="rejected"),
           pytest.param("approve", f"approved by {BEA} at {LATER} as human_reviewed", id="approved")]


def decide(web: Web, how: str) -> None:
    """Bea decides the demo draft (Ada's pages were loaded before)."""
    kw: dict[str, Any] = dict(reviewer=BEA, at=LATER)
    if how == "reject":
        actions.reject(web.st, web.demo, "Wrong session, a test run", **kw)
    else:
        actions.approve(web.st, web.demo, "human_reviewed", **kw)


@pytest.mark.parametrize(("how", "said"), DECIDED)
def test_an_edit_from_a_page_loaded_before_a_decision_says_who_decided_and_offers_no_save(
        web: Web, how: str, said: str) -> None:
    version = str(web.version(web.demo))
    decide(web, how)
    for form in ({"field": "learning"}, {"step": "3", "field": "reasoning"}):
        r = web.post(f"/t/{web.demo}/edit", version=version, value="typed after the decision", **form)
        assert r.status_code == 409, r.text
        text = html.unescape(r.text)
        assert said in text and "after this page was loaded" in text
        assert 'id="save-again"' not in r.text and 'name="value"' not in r.text  # nothing to send again
        assert re.search(r'<textarea id="typed"[^>]* readonly[^>]*>typed after the decision</textarea>', r.text)


@pytest.mark.parametrize("how", ["reject", "approve"])
def test_a_decision_or_a_confirm_from_a_page_loaded_before_says_who_decided(web: Web, how: str) -> None:
    version = str(web.version(web.demo))
    decide(web, how)
    for url, form in ((f"/t/{web.demo}/confirm", {"path": "/termination_reason"}),
                      (f"/t/{web.demo}/needs-changes", {"note": "split step 4"}),
                      (f"/t/{web.demo}/reject", {"reason": "no"})):
        r = web.post(url, version=version, **form)
        assert r.status_code == 409 and f"by {BEA} at {LATER}" in html.unescape(r.text), (url, r.text[-800:])
        assert "Not done: the draft was decided" in r.text
        article = "An approved" if how == "approve" else "A rejected"
        assert f"{article} draft takes no more edits or decisions" in r.text


@pytest.mark.parametrize(("how", "said"), DECIDED)
def test_a_decided_drafts_page_says_who_decided_what_and_when_and_offers_nothing(
        web: Web, how: str, said: str) -> None:
    decide(web, how)
    page = web.c.get(f"/t/{web.demo}").text
    notice = re.search(r'<p class="notice" id="decided">(.*?)</p>', page, re.S)
    assert notice is not None and html.unescape(re.sub(r"<[^>]+>", "", notice.group(1))).startswith(said)
    assert "<form" not in page.split("<main>", 1)[1] and "<textarea" not in page
    r = web.c.get(f"/t/{web.demo}/approve")
    assert r.status_code == 400 and said in html.unescape(r.text)


# ------------------------------------------------------------------ the legend of the keys


def legend(page: str) -> str | None:
    m = re.search(r'<footer id="keys">(.*?)</footer>', page, re.S)
    return None if m is None else re.sub(r"<[^>]+>", "", m.group(1))


def test_the_keys_legend_lists_what_works_on_the_page_and_only_there(web: Web) -> None:
    queue = legend(web.c.get("/").text)
    assert queue is not None and "j/k next/previous draft" in queue and "/ search" in queue
    assert "approve" not in queue and "edit" not in queue and "n/N" not in queue
    draft = legend(web.c.get(f"/t/{web.demo}").text)
    assert draft is not None and "n/N next/previous step to look at" in draft and "a approve" in draft
    assert "r reject" in draft and "/ " not in draft and "e edit" not in draft
    step = legend(web.c.get(f"/t/{web.demo}/s/3").text)
    assert step is not None and "j/k next/previous step" in step and "e edit" in step and "u back to the draft" in step
    for url in (f"/t/{web.demo}/approve", "/audit"):
        assert legend(web.c.get(url).text) is None, url
    decide(web, "reject")  # a decided draft: nothing to approve, reject or edit
    draft = legend(web.c.get(f"/t/{web.demo}").text)
    assert draft is not None and "approve" not in draft and "reject" not in draft
    step = legend(web.c.get(f"/t/{web.demo}/s/3").text)
    assert step is not None and "edit" not in step


def test_the_draft_page_names_its_log_and_session_from_the_home_folder(web: Web) -> None:
    """Two copies of one session (a backup, another machine's older copy) looked the same: the
    page names the file each was read from, from the home folder, and the session's id."""
    row = web.st.trace(web.demo)
    assert row is not None
    page = html.unescape(web.c.get(f"/t/{web.demo}").text)
    assert f"<code>{row.session_id}</code>" in page and row.unit_path.rsplit("/", 1)[-1] in page
    assert _from_home("/home/alice/.claude/projects/-p/s.jsonl") == "~/.claude/projects/-p/s.jsonl"
    assert _from_home("C:\\Users\\Bo\\.codex\\s.jsonl") == "~\\.codex\\s.jsonl"
    assert _from_home("/srv/logs/home/x.jsonl") == "/srv/logs/home/x.jsonl"
