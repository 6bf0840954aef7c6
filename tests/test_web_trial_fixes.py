"""What trials of `forsy review serve` found, each kept fixed: a refused or conflicting edit shows
what was typed masked as a saved edit is (never a pasted secret); a store that cannot be reached
is a store error (exit 8; a 503 page that says to try again), with advice that fits the backend
and never a backup for an outage; a time filter that is not a time is refused; a store migrated
by a newer forsy under a running server is the server's trouble (503: restart it); and what a
URL names that is not there is a 404 that does not show where the store is."""

from __future__ import annotations

import html
import re
import sqlite3
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from _paths import SAMPLES
from _review import ADA, HOST, TOKEN, cli, csrf, planted_log, put
from forsy.errors import RedactionError, StoreError, StoreUnreachable
from forsy.review.source import from_store
from forsy.store import Store, open_store
from forsy.web import guard as g
from forsy.web.app import make_app
from forsy.web.guard import Settings
from secretgen import SecretGen

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

CSRF = csrf()
NOW = "2026-03-02T10:00:00+00:00"
GEN = SecretGen(seed=23)
# secrets a reviewer might paste: a GitHub token, an AWS key id, a Slack webhook
GITHUB = GEN.github()
AWS_ID = GEN.aws_key_id()
_UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
HOOK = f"https://hooks.slack.com/services/T{GEN.chars(_UPPER, 8)}/B{GEN.chars(_UPPER, 8)}/" \
       f"{GEN.chars('abcdefghijkmnopqrstuvwxyzABCDEFGH23456789', 24)}"
PASTED = (GITHUB, AWS_ID, HOOK)


@dataclass
class Web:
    c: TestClient
    st: Store
    tid: str
    url: str

    def post(self, path: str, **form: Any) -> Any:
        return self.c.post(path, data={"csrf": CSRF, **form})

    def version(self) -> int:
        return self.st.draft_state(self.tid).version  # type: ignore[union-attr]


def client(url: str, **kw: Any) -> TestClient:
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST}, clock=lambda: NOW, **kw)
    return TestClient(make_app(s), base_url=f"http://{HOST}", follow_redirects=False)


@pytest.fixture
def web(tmp_path: Path) -> Iterator[Web]:
    """A server on a SQLite store holding a draft whose trace already masks three credentials."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    tid = put(st, planted_log(tmp_path / "logs")[0])
    with client(url) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        yield Web(c, st, tid, url)
    st.close()


def error_of(page: str) -> str:
    m = re.search(r'<p class="error">(.*?)</p>', page, re.S)
    assert m, page
    return html.unescape(m.group(1))


def typed_of(page: str) -> str:
    m = re.search(r'<textarea id="typed"[^>]*>(.*?)</textarea>', page, re.S)
    assert m, page
    return html.unescape(m.group(1))


def unreachable(tmp_path: Path) -> str:
    """The URL of a PostgreSQL store whose server is not running (no socket in its folder)."""
    pytest.importorskip("psycopg")
    (tmp_path / "nowhere").mkdir(exist_ok=True)
    return f"postgresql://forsy@/forsy?host={tmp_path}/nowhere&port=5999"


# ------------------------------------------------------------------ a refused edit never shows a secret
def test_a_conflicting_edit_shows_what_was_typed_masked_as_a_saved_edit_is(web: Web) -> None:
    v = str(web.version())
    assert web.post(f"/t/{web.tid}/edit", version=v, field="learning", value="first").status_code == 303
    typed = f"use {GITHUB} and {HOOK} with {AWS_ID}"
    r = web.post(f"/t/{web.tid}/edit", version=v, field="learning", value=typed)  # a stale page: a conflict
    assert r.status_code == 409 and "<h1>Conflict: someone acted first</h1>" in r.text
    assert not any(p in r.text for p in PASTED), "a pasted secret is on the page"
    shown = typed_of(r.text)
    # numbered after the draft's own three credentials, as a saved edit's would be
    assert shown == "use [CREDENTIAL_4] and [CREDENTIAL_5] with [CREDENTIAL_6]"
    assert 'id="typed-masked"' in r.text and "masked" in r.text
    # saved where it belongs, the edit stores exactly what the page showed
    r = web.post(f"/t/{web.tid}/edit", version=str(web.version()), field="learning", value=typed)
    assert r.status_code == 303
    assert web.st.proposals(web.tid)[-1].value_json == f'"{shown}"'


def test_a_refused_edit_masks_the_value_in_its_field_and_in_the_reason_that_quotes_it(web: Web) -> None:
    r = web.post(f"/t/{web.tid}/edit", version=str(web.version()), step="2", field="eval", value=HOOK)
    assert r.status_code == 400 and not any(p in r.text for p in PASTED)
    assert error_of(r.text) == "eval is -1, 0 or 1, not '[CREDENTIAL_4]'"
    assert typed_of(r.text) == "[CREDENTIAL_4]" and 'id="typed-masked"' in r.text
    assert 'id="retry-form"' in r.text  # still corrected and saved from there


def test_a_refused_edit_with_nothing_to_mask_shows_it_as_typed_and_says_nothing_of_masking(web: Web) -> None:
    r = web.post(f"/t/{web.tid}/edit", version=str(web.version()), step="2", field="eval", value="5 <i>")
    assert r.status_code == 400 and typed_of(r.text) == "5 <i>" and 'id="typed-masked"' not in r.text


def test_a_value_that_cannot_be_scanned_is_not_shown_at_all(web: Web, monkeypatch: pytest.MonkeyPatch) -> None:
    from forsy.review.redacted import TypedMasker

    def broken(self: TypedMasker, text: str) -> str:
        raise RedactionError("the secret engine failed")

    monkeypatch.setattr(TypedMasker, "mask", broken)
    r = web.post(f"/t/{web.tid}/edit", version=str(web.version()), step="2", field="eval", value=HOOK)
    assert r.status_code == 400 and HOOK not in r.text and 'id="typed"' not in r.text
    assert "could not be scanned for secrets" in error_of(r.text)


# ------------------------------------------------------------------ a store that cannot be reached
def test_a_postgresql_store_that_cannot_be_reached_is_a_store_error_exit_8(tmp_path: Path) -> None:
    url = unreachable(tmp_path)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "s.jsonl").write_bytes((SAMPLES / "claude" / "demo-session.jsonl").read_bytes())
    for args in (["sweep", str(logs), "--now"], ["sweep", "--status"], ["review", "approve", "forsy_abc"],
                 ["review", "list"]):
        code, _, err = cli(*args, "--store", url)
        assert code == 8, (args, code, err)
        assert "cannot connect to the PostgreSQL store" in err, (args, err)


def test_a_postgresql_url_that_is_wrong_stays_an_input_error(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    for url in (f"postgresql://forsy@/forsy?hots={tmp_path}",  # no such parameter
                f"postgresql://forsy@/forsy?host={tmp_path}&port=abc",  # a port that is no number
                "postgresql://forsy@[/forsy",  # not a URL libpq reads
                "postgresql+psycopg://forsy@/forsy"):  # a scheme forsy does not read
        code, _, err = cli("sweep", "--status", "--store", url)
        assert code == 2, (url, code, err)


def test_the_web_says_an_unreachable_store_is_to_be_tried_again_503(tmp_path: Path) -> None:
    with client(unreachable(tmp_path)) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        approve = c.post("/t/forsy_abc/approve", data={"csrf": CSRF, "version": "0"})
        for r in (c.get("/"), c.get("/t/forsy_abc"), approve):
            assert r.status_code == 503 and "<h1>The store cannot be reached</h1>" in r.text
            said = error_of(r.text)
            assert "try again" in said and "backup" not in said and "sqlite3" not in said, said
            assert "\n" not in said  # libpq's second line (a hint) is not a reviewer's business


def test_a_reviewer_token_checked_in_a_store_that_cannot_be_reached_is_a_503_page(tmp_path: Path) -> None:
    with client(unreachable(tmp_path), reviewer_tokens=True) as c:
        r = c.get("/?token=forsy_someone-elses-token")
        assert r.status_code == 503 and "<h1>The store cannot be reached</h1>" in r.text


# ------------------------------------------------------------------ 503 advice that fits the backend
def _raising(e: BaseException):  # type: ignore[no-untyped-def]
    async def handler(request: Request, s: Settings) -> Response:
        raise e
    return handler


@pytest.mark.parametrize(("url", "error", "heading", "advice", "not_said"), [
    ("postgresql://forsy@/forsy?host=/run/postgresql",
     StoreUnreachable('the PostgreSQL store: terminating connection due to administrator command\n'
                      'CONTEXT:  while locking tuple (0,2) in relation "drafts"'),
     "The store cannot be reached", "try again in a moment", ("backup", "sqlite3", "CONTEXT", "tuple")),
    ("postgresql://forsy@/forsy?host=/run/postgresql",
     StoreError("the PostgreSQL store: could not extend file: No space left on device\nHINT:  Check free disk space."),
     "The store cannot be used", "the PostgreSQL server's log says more", ("backup", "sqlite3", "HINT")),
    ("sqlite:////srv/forsy.db", StoreError("database is locked"),
     "The store cannot be used", "says whether the file is damaged (only then, restore it from a backup)",
     ("PostgreSQL",)),
], ids=["postgresql-gone", "postgresql-full", "sqlite"])
def test_a_store_error_page_gives_advice_that_fits_the_trouble_and_the_backend(
        url: str, error: StoreError, heading: str, advice: str, not_said: tuple[str, ...]) -> None:
    s = Settings(store_url=url, reviewer=ADA, token=TOKEN, hosts={HOST})
    app = Starlette(routes=[Route("/", g.guard(s, _raising(error)))])
    with TestClient(app, base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        r = c.get("/")
    said = error_of(r.text)
    assert r.status_code == 503 and f"<h1>{heading}</h1>" in r.text
    assert said.startswith(error.message.splitlines()[0] + "; ") and advice in said, said
    assert not any(w in said for w in not_said), said


def test_a_postgresql_server_that_turns_connections_away_is_a_503_to_try_again(pg_server: Any) -> None:
    import psycopg

    url = pg_server.new_database()
    name = url.split("?")[0].rsplit("/", 1)[1]
    open_store(url).close()
    with client(url) as c, psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        assert c.get("/").status_code == 200
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        try:
            r = c.get("/")
        finally:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        assert r.status_code == 503 and "<h1>The store cannot be reached</h1>" in r.text
        assert "backup" not in r.text and "sqlite3" not in r.text
        assert c.get("/").status_code == 200  # and back once the server lets it in


def test_a_connection_the_server_ends_is_a_store_that_cannot_be_reached(pg_server: Any) -> None:
    import psycopg

    st = open_store(pg_server.new_database())
    try:
        pid = st.conn.info.backend_pid  # type: ignore[attr-defined]
        with psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(StoreUnreachable, match="^the PostgreSQL store: terminating connection"):
            st.runs()
    finally:
        st.close()


# ------------------------------------------------------------------ time filters
@pytest.mark.parametrize("query", ["since=notadate", "since=2026-13-45", "until=yesterday", "until=2026-02-30",
                                   "since=20260101T000000Z"])
def test_a_time_filter_that_is_not_a_time_is_refused_naming_it_and_what_it_takes(web: Web, query: str) -> None:
    name, value = query.split("=")
    r = web.c.get(f"/?{query}")
    assert r.status_code == 400 and "<h1>Refused</h1>" in r.text
    assert error_of(r.text) == (f"unknown {name} {value!r}; give a date (2026-01-31) or an ISO time "
                                "(2026-01-31T10:00, 2026-01-31T10:00:00Z, 2026-01-31T12:00:00+02:00)")


def test_time_filters_that_are_times_filter(web: Web) -> None:
    assert "1 draft" in web.c.get("/?since=2026-01-01&until=2100-01-01T00:00:00Z").text
    assert "0 draft" in web.c.get("/?since=2099-01-01T10:00").text
    assert web.c.get("/?since=&until=").status_code == 200  # an empty field of the filter form: no bound


# ------------------------------------------------------------------ a store changed under a running server
def test_a_store_migrated_by_a_newer_forsy_under_a_running_server_says_to_restart_it(web: Web) -> None:
    assert web.c.get("/").status_code == 200
    db = sqlite3.connect(web.url.removeprefix("sqlite:///"))
    with db:
        db.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_future', 'x')")
    db.close()
    for r in (web.c.get("/"), web.c.get(f"/t/{web.tid}"), web.post(f"/t/{web.tid}/reject", version="0", reason="x")):
        assert r.status_code == 503 and "<h1>The store changed under this server</h1>" in r.text
        said = error_of(r.text)
        assert "the store was made by a newer forsy" in said and "restart `forsy review serve`" in said, said
        assert "upgrading" in said and "backup" not in said


# ------------------------------------------------------------------ 404s, the search text, the reject reason
def test_what_the_url_names_that_is_not_there_is_a_404_that_does_not_show_the_store(web: Web) -> None:
    where = web.url.removeprefix("sqlite:///")
    steps = len(from_store(web.st, web.tid).steps)
    for path, said in (("/t/forsy_nope", "no trace forsy_nope in the store"),
                       ("/t/forsy_nope/s/1", "no trace forsy_nope in the store"),
                       ("/t/forsy_nope/approve", "no trace forsy_nope in the store"),
                       (f"/t/{web.tid}/s/{steps + 1}", f"no step {steps + 1}: the trace has {steps} steps"),
                       (f"/t/{web.tid}/s/0", f"no step 0: the trace has {steps} steps")):
        r = web.c.get(path)
        assert r.status_code == 404 and "<h1>Not found</h1>" in r.text, (path, r.status_code)
        assert error_of(r.text) == said and where not in r.text and "sqlite:" not in r.text
    r = web.post("/t/forsy_nope/reject", version="0", reason="no")
    assert r.status_code == 404 and where not in r.text


def test_a_search_text_holding_a_nul_is_refused_in_words_a_reviewer_reads(web: Web) -> None:
    r = web.c.get("/?text=a%00b")
    assert r.status_code == 400 and error_of(r.text) == "the search text cannot hold the character NUL (%00)"


def test_a_rejection_without_a_reason_is_refused_without_naming_a_terminal_flag(web: Web) -> None:
    for reason in ("", "   "):
        r = web.post(f"/t/{web.tid}/reject", version=str(web.version()), reason=reason)
        assert r.status_code == 400 and error_of(r.text) == "a rejection needs a reason"
    assert web.st.draft_state(web.tid).status == "pending"  # type: ignore[union-attr]


def test_a_bulk_rejections_reason_holding_a_secret_is_refused_not_shown(web: Web) -> None:
    """The reason goes back and forth raw in the confirmation page's form: a token pasted into
    it would be on the page. It is refused, saying why, and no pasted value is on the page."""
    for secret in PASTED:
        for confirm in ({}, {"confirm": "1"}):
            r = web.post("/bulk", action="reject", reason=f"old key {secret}", t=[web.tid], **confirm)
            assert r.status_code == 400 and "the reason holds what looks like a secret" in r.text
            assert secret not in html.unescape(r.text)
    assert web.st.draft_state(web.tid).status == "pending"  # type: ignore[union-attr]
    r = web.post("/bulk", action="reject", reason="a CI bot's session", t=[web.tid])
    assert r.status_code == 200 and "Reject 1 draft(s)?" in r.text and "a CI bot&#39;s session" in r.text
