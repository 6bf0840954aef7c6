"""The draft page shows the work and what needs a person: the conversation in step order (the
user's words, the agent's answers as safe Markdown, calls with their commands and outputs, edits
as diffs, failures and retries linked), and "Needs you" (judgements decided in place, model
values accepted or declined one by one, approval through a page that shows what it publishes)."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from _paths import SAMPLES
from _review import ADA, HOST, NOW, TOKEN, csrf
from forsy.assemble import Assembled
from forsy.evidence import Session
from forsy.models import FieldProvenance
from forsy.review.conversation import Entry, Subagent, answer_diff, conversation, edit_diff
from forsy.review.source import from_folder
from forsy.run import RetraceOptions, retrace_one
from forsy.store import open_store
from forsy.store.sink import StoreSink
from forsy.web.app import make_app
from forsy.web.guard import Settings

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

CSRF = csrf()
MODEL_VALUE = "The function replaces one character at a time."
QUOTE = "import re"
ANSWER = "Done. <script>alert(1)</script> ![beacon](https://evil.example/b.png) **bold**"


class ModelSink:
    """Stores the draft with a value a (scripted) model proposed for step 2's observation, cited
    with a quote, and a hostile final answer: what a --llm retrace would hold."""

    def __init__(self, inner: StoreSink) -> None:
        self.inner = inner

    def write(self, a: Assembled, s: Session) -> str:
        step = a.trace.steps[1]
        step.observation = MODEL_VALUE
        a.trace.steps[-1].output = ANSWER
        sp = next(p for p in a.provenance.steps if p.step == 2)
        ev = sp.evidence[0]
        sp.fields["observation"] = FieldProvenance.model_validate({
            "origin": "model", "evidence": [{"id": ev, "pointer": ""}],
            "model": {"model": "scripted/model-a", "citations": [{"id": ev, "quote": QUOTE, "score": 1.0}]}})
        return self.inner.write(a, s)


@pytest.fixture
def web(tmp_path: Path) -> Iterator[tuple[TestClient, str, str]]:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        [o] = retrace_one(SAMPLES / "claude" / "demo-session.jsonl", RetraceOptions(),
                          sink=ModelSink(StoreSink(st, now=NOW)), keep=False)
        assert o.status == "written" and o.trace_id
        tid = o.trace_id
    finally:
        st.close()
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: "2026-03-02T10:00:00+00:00")
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield c, url, tid


def post(c: TestClient, tid: str, action: str, **form: str) -> str:
    version = re.search(r'name="version" value="(\d+)"', c.get(f"/t/{tid}").text)
    assert version, "no form on the draft page"
    r = c.post(f"/t/{tid}/{action}", data={"csrf": CSRF, "version": version.group(1), **form})
    assert r.status_code == 303, r.text[:500]
    return c.get(r.headers["location"]).text


def test_the_draft_page_shows_the_conversation_in_order(web: tuple[TestClient, str, str]) -> None:
    c, _, tid = web
    html = c.get(f"/t/{tid}").text
    conv = html[html.index('class="conversation"'):]
    said = ["Runs of spaces and punctuation should become a single dash",  # the user's words
            "$ python -m pytest -q",  # the command of the first test run
            "AssertionError: assert &#39;hello---world&#39;",  # its output
            "Does it keep accented letters?"]  # the second prompt
    at = [conv.find(x) for x in said]
    assert all(i >= 0 for i in at), list(zip(said, at, strict=True))
    assert at == sorted(at)
    # the edit as a diff: the old line taken out, the new one put in
    assert re.search(r'class="d-del">-\s+return re\.sub\(r&#34;\[\^a-z0-9\]&#34;', conv), conv[:3000]
    assert re.search(r'class="d-add">\+\s+return re\.sub\(r&#34;\[\^a-z0-9\]\+&#34;', conv)
    # the failed run, and the run that retried it, linked both ways
    assert 'href="#c-5" class="retry">retried in #5' in conv and 'href="#c-3" class="retry">retry of #3' in conv
    # the final answer as Markdown, with nothing of the log's own markup run or fetched
    assert "<strong>bold</strong>" in conv
    assert "<script>alert" not in html and "<img" not in html and "&lt;script&gt;alert(1)" in conv


def test_needs_you_lists_what_only_a_person_decides(web: tuple[TestClient, str, str]) -> None:
    c, _, tid = web
    html = c.get(f"/t/{tid}").text
    needs = html[html.index('class="needs"'):html.index('class="conversation"')]
    assert "Was the user&#39;s goal achieved?" in needs and "not assessed" in needs
    assert "M009" in needs  # the validator's warning about it
    assert "full agent transcript" in needs  # the confidence factors
    assert "scripted/model-a" in needs and f"<blockquote>{QUOTE}</blockquote>" in needs
    assert re.search(r'class="count">6 open<', needs), needs[:400]  # 5 judgements + 1 model value


def test_deciding_in_place_closes_each_item(web: tuple[TestClient, str, str]) -> None:
    c, url, tid = web
    html = post(c, tid, "edit", field="summary.goal_achieved", value="true")
    assert re.search(r'class="count">5 open<', html)
    html = post(c, tid, "confirm", path="/termination_reason")
    assert re.search(r'class="count">4 open<', html)
    html = post(c, tid, "confirm", path="/steps/2/observation")  # the model's value accepted
    assert re.search(r'class="count">3 open<', html) and '<span class="ok">replaced</span>' not in html
    st = open_store(url)
    try:
        edits = [(p.path, orjson.loads(p.value_json)) for p in st.proposals(tid)]
    finally:
        st.close()
    assert edits == [("/summary/goal_achieved", True), ("/termination_reason", "task_complete"),
                     ("/steps/2/observation", MODEL_VALUE)]
    # the approval page shows what will be published, old -> new, and asks
    page = c.get(f"/t/{tid}/approve?level=expert_reviewed").text
    assert "<del>null</del> → <ins>true</ins>" in page and "expert_reviewed" in page and 'id="confirm"' in page
    assert "3 item(s)" in page


def test_a_declined_model_value_is_null_in_the_reviewed_trace(web: tuple[TestClient, str, str],
                                                              tmp_path: Path) -> None:
    from forsy.review.export import export_approved

    c, url, tid = web
    html = post(c, tid, "decline", path="/steps/2/observation")
    assert re.search(r'class="count">5 open<', html) and "declined" in html
    r = c.post(f"/t/{tid}/decline", data={"csrf": CSRF, "version": "1", "path": "/steps/2/reasoning"})
    assert r.status_code == 400 and "not proposed by a model" in r.text  # only model values are declined
    assert "Reviewed" in post(c, tid, "approve", level="human_reviewed")
    st = open_store(url)
    try:
        [e] = export_approved(st, tmp_path / "out")
    finally:
        st.close()
    t = orjson.loads((e.folder / "trace.json").read_bytes())
    assert t["steps"][1]["observation"] is None
    prov = orjson.loads((e.folder / "provenance.json").read_bytes())
    fp = next(sp for sp in prov["steps"] if sp["step"] == 2)["fields"]["observation"]
    assert fp["origin"] == "human" and fp["reviewer"]["replaced"]["value"] == MODEL_VALUE


def test_an_approved_draft_asks_nothing_more(web: tuple[TestClient, str, str]) -> None:
    c, _, tid = web
    post(c, tid, "edit", field="summary.goal_achieved", value="true")
    html = post(c, tid, "approve", level="human_reviewed")
    assert 'id="status">approved<' in html
    page = c.get(f"/t/{tid}").text
    needs = page[page.index('class="needs closed"'):page.index('class="conversation"')]
    # what was open when it was approved is said as such, not as decisions still to make
    assert "Needs you" not in needs and ">Judgements <" in needs
    assert re.search(r'class="count closed">5 left undecided when it was approved<', needs), needs[:400]
    assert 'action="/t/' not in needs  # no form to set or keep a value of a closed item


def test_edits_of_every_form_become_diffs() -> None:
    claude = edit_diff("MultiEdit", orjson.dumps({"file_path": "a.py", "edits": [
        {"old_string": "x = 1", "new_string": "x = 2"}, {"old_string": "y", "new_string": "z"}]}).decode())
    assert [(d.kind, d.text) for d in claude if d.kind in ("file", "add", "del")] == [
        ("file", "a.py"), ("del", "-x = 1"), ("add", "+x = 2"), ("del", "-y"), ("add", "+z")]
    written = edit_diff("Write", orjson.dumps({"file_path": "n.txt", "content": "one\ntwo"}).decode())
    assert [d.kind for d in written if d.kind != "hunk"] == ["file", "add", "add"]
    patch = "*** Begin Patch\n*** Update File: src/m.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch"
    codex = edit_diff("apply_patch", orjson.dumps({"input": patch}).decode())
    assert [(d.kind, d.text) for d in codex] == [("file", "src/m.py (update)"), ("hunk", "@@ def f():"),
                                                 ("del", "-    return 1"), ("add", "+    return 2")]
    aider = answer_diff("Here:\n\nsrc/m.py\n```python\n<<<<<<< SEARCH\nreturn 1\n=======\nreturn 2\n"
                        ">>>>>>> REPLACE\n```\n")
    assert [(d.kind, d.text) for d in aider if d.kind != "hunk"] == [("file", "src/m.py"), ("del", "-return 1"),
                                                                     ("add", "+return 2")]
    assert edit_diff("Bash", '{"command": "ls"}') == [] and edit_diff("Read", '{"file_path": "a"}') == []


def test_subagents_are_nested_under_their_own_heading() -> None:
    golden = SAMPLES.parent / "tests" / "golden" / "claude__legacy-inline-sidechain.jsonl"
    blocks = conversation(from_folder(golden))
    subs = [b for b in blocks if isinstance(b, Subagent)]
    assert subs and all(e.actor == subs[0].actor for e in subs[0].entries)
    flat = [e.step for b in blocks for e in (b.entries if isinstance(b, Subagent) else [b])]
    assert flat == sorted(flat) == list(range(1, len(flat) + 1))  # every step once, in order
    assert all(isinstance(b, Entry) and not b.actor.startswith("subagent") for b in blocks
               if not isinstance(b, Subagent))


def test_the_termination_reason_is_picked_from_what_the_format_allows(web: tuple[TestClient, str, str]) -> None:
    c, _, tid = web
    html = c.get(f"/t/{tid}").text
    box = html[html.index('id="j-termination_reason"'):]
    box = box[:box.index("</div>")]
    from forsy.models import TerminationReason

    assert re.findall(r"<option(?: selected)?>([a-z_]+)</option>", box) == [r.value for r in TerminationReason]
    assert "<option selected>task_complete</option>" in box and "<textarea" not in box
    assert "user_confirmed_done" in post(c, tid, "edit", field="termination_reason", value="user_confirmed_done")
