"""The review queue page (`web/app.queue`), in process, on a store holding a session read twice
(it grew: two drafts, the second replacing the first), a Codex session, and the reviewed trace an
approval made (the Codex draft holds a value a model proposed): the queue lists each session's
newest draft and never a reviewed trace; its agent, since, until and proposals filters each narrow
it; a refused parameter is named in its own words (at most 40 characters of it); its links keep
the order and go to page 1 on a new sort; its title, flash, rules and forms' CSRF token are shown."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from _paths import SAMPLES
from _review import ADA, HOST, TOKEN, csrf, put
from _review import NOW as SWEPT
from forsy.assemble import Assembled
from forsy.evidence import Session
from forsy.models import FieldProvenance
from forsy.run import RetraceOptions, retrace_one
from forsy.store import Store, open_store
from forsy.store.queue_rules import QueueRule, add_rule
from forsy.store.sink import StoreSink
from forsy.web.app import make_app
from forsy.web.guard import Settings

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

NOW = "2026-03-02T10:00:00+00:00"
CODEX = SAMPLES / "codex" / "rollout-2025-11-20T10-00-00-7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl"


class ModelSink(StoreSink):
    """Stores the draft with step 2's observation proposed by a (scripted) model: what --llm holds."""

    def write(self, a: Assembled, s: Session) -> str:
        a.trace.steps[1].observation = "The totals add the tax twice."
        sp = next(p for p in a.provenance.steps if p.step == 2)
        sp.fields["observation"] = FieldProvenance.model_validate({
            "origin": "model", "evidence": [{"id": sp.evidence[0], "pointer": ""}],
            "model": {"model": "scripted/model-a", "citations": []}})
        return super().write(a, s)


class Queue:
    def __init__(self, c: TestClient, st: Store, early: str, late: str, codex: str) -> None:
        self.c, self.st, self.early, self.late, self.codex = c, st, early, late, codex

    def listed(self, query: str = "") -> set[str]:
        """The drafts the queue page links, by trace id."""
        r = self.c.get(f"/?{query}")
        assert r.status_code == 200, r.text
        return set(re.findall(r'<a href="/t/(forsy_[0-9a-f]+)"', r.text))


@pytest.fixture
def queue(tmp_path: Path) -> Iterator[Queue]:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    lines = (SAMPLES / "claude" / "demo-session.jsonl").read_text("utf-8").splitlines(keepends=True)
    log = tmp_path / "logs" / "demo.jsonl"
    log.parent.mkdir()
    log.write_text("".join(lines[: len(lines) // 2]), "utf-8")
    early = put(st, log)  # the session as first read (started 2026-02-16)
    log.write_text("".join(lines), "utf-8")
    late = put(st, log)  # read again after it grew: a new draft of the same session
    [o] = retrace_one(CODEX, RetraceOptions(), sink=ModelSink(st, now=SWEPT), keep=False)
    codex = o.trace_id or ""  # started 2025-11-20, agent codex-cli, a value a model proposed
    assert len({early, late, codex}) == 3
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: NOW)
    with TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield Queue(c, st, early, late, codex)
    st.close()


def test_the_queue_lists_each_sessions_newest_draft_and_no_reviewed_trace(queue: Queue) -> None:
    assert queue.listed() == {queue.late, queue.codex}  # the first reading of the grown session is replaced
    v = queue.st.draft_state(queue.codex).version  # type: ignore[union-attr]
    r = queue.c.post(f"/t/{queue.codex}/approve", data={"csrf": csrf(), "version": str(v), "level": "human_reviewed"})
    assert r.status_code == 303
    reviewed = queue.st.draft_state(queue.codex).reviewed_as  # type: ignore[union-attr]
    assert reviewed
    assert queue.listed() == {queue.late, queue.codex}  # the approved draft stays; the trace it made is not a draft


def test_the_agent_since_and_until_filters_each_narrow_the_queue(queue: Queue) -> None:
    assert queue.listed("agent=codex-cli") == {queue.codex}
    assert queue.listed("agent=claude-code") == {queue.late}
    assert queue.listed("since=2026-01-01") == {queue.late}
    assert queue.listed("until=2026-01-01") == {queue.codex}
    assert queue.listed("since=2025-01-01&until=2027-01-01") == {queue.late, queue.codex}
    assert queue.listed("since=2026-01-01&until=2026-02-01") == set()


def test_a_refused_queue_parameter_is_named_in_at_most_40_characters(queue: Queue) -> None:
    for name in ("status", "sort"):
        r = queue.c.get(f"/?{name}={'z' * 60}")
        assert r.status_code == 400 and f"unknown {name} &#39;{'z' * 40}&#39;" in r.text, name
    for name in ("min_confidence", "max_confidence"):
        r = queue.c.get(f"/?{name}=101")
        assert r.status_code == 400 and "confidence is a whole number from 0 to 100, not &#39;101&#39;" in r.text, name


def test_the_proposals_filter_keeps_the_drafts_with_or_without_model_values(queue: Queue) -> None:
    assert queue.listed("proposals=with") == {queue.codex}
    assert queue.listed("proposals=without") == {queue.late}
    assert queue.listed("proposals=") == queue.listed("proposals=any") == {queue.late, queue.codex}


def test_the_per_page_count_is_checked_in_the_forms_own_words(queue: Queue) -> None:
    r = queue.c.get("/?per=501")
    assert r.status_code == 400 and "per page is a whole number from 1 to 500, not &#39;501&#39;" in r.text


def test_the_page_links_keep_the_order_and_a_new_sort_starts_at_page_1(queue: Queue) -> None:
    page2 = queue.c.get("/?per=1&page=2").text
    prev = re.search(r'<a href="/\?([^"]+)" id="prev"', page2)
    assert prev and dict(parse_qsl(prev.group(1).replace("&amp;", "&"))) == {
        "per": "1", "sort": "started", "dir": "desc", "page": "1"}
    sort = re.search(r'<a href="/\?([^"]+)" class="sort">steps', page2)
    assert sort and dict(parse_qsl(sort.group(1).replace("&amp;", "&"))) == {
        "per": "1", "sort": "steps", "dir": "desc", "page": "1"}


def test_the_queue_page_title_flash_rules_and_csrf(queue: Queue) -> None:
    add_rule(queue.st, QueueRule(name="nightly", pattern="*cron*", action="hide"), actor=ADA, now=SWEPT)
    html = queue.c.get("/?done=rule").text
    assert "<title>Review queue · forsy</title>" in html
    assert '<p class="flash ok" role="status">Rule saved: the queue follows it, and so does every sweep.</p>' in html
    assert "<li><b>nightly</b> hides drafts whose task matches <code>*cron*</code></li>" in html
    assert html.count(f'<input type="hidden" name="csrf" value="{csrf()}">') == 2  # the bulk and rule forms
