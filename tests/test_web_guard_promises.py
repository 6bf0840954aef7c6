"""The promises of `forsy.web.guard`, each on a small Starlette app made of `guard` and a handler
written here (no store unless a reviewer's token is checked): no token, no page; the token
becomes a session and leaves the address bar; a foreign Host is refused; every response carries
the same security headers; a form is bounded, UTF-8 and CSRF-checked; an error is a page that
says what kind of trouble it is and never shows a traceback."""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

with warnings.catch_warnings():  # starlette prefers `httpx2` for its test client; httpx works
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

from forsy.errors import InputError, StoreError
from forsy.store import ReviewConflict, open_store
from forsy.store.reviewers import create_reviewer_token
from forsy.web import guard as g
from forsy.web.guard import CSP, MAX_FORM, HostCheck, SecurityHeaders, Settings

TOKEN = "k" * 40
HOST = "127.0.0.1:9"
ADA = "Ada Lovelace <ada@example.org>"
HEADERS = {"content-security-policy": CSP, "x-content-type-options": "nosniff", "referrer-policy": "no-referrer",
           "cache-control": "no-store", "x-frame-options": "DENY"}


async def who(request: Request, s: Settings) -> Response:
    return PlainTextResponse(f"reviewer={s.reviewer} csrf={s.csrf}", headers={"cache-control": "max-age=99"})


async def echo_form(request: Request, s: Settings) -> Response:
    got = await g.read_form(request, s)
    if isinstance(got, Response):
        return got
    return PlainTextResponse(repr(sorted(got.items())))


def raising(e: BaseException):  # type: ignore[no-untyped-def]
    async def handler(request: Request, s: Settings) -> Response:
        raise e
    return handler


def app(s: Settings) -> Starlette:
    def r(path: str, h: g.Handler, methods: tuple[str, ...] = ("GET",), needs: bool = True) -> Route:
        return Route(path, g.guard(s, h, needs_reviewer=needs), methods=list(methods))

    return Starlette(routes=[
        r("/", who), r("/free", who, needs=False), r("/form", echo_form, ("POST",)),
        r("/t/{tid}/conflict", raising(ReviewConflict("draft moved to version 3"))),
        r("/store", raising(StoreError("database disk image is malformed"))),
        r("/refused", raising(InputError("no step 99 <b>here</b>"))),
        r("/sqlite", raising(sqlite3.DatabaseError("file is not a database"))),
        r("/bug", raising(KeyError("secret internal detail"))),
    ], middleware=[Middleware(SecurityHeaders), Middleware(HostCheck, settings=s)])


def settings(**kw: object) -> Settings:
    base: dict[str, object] = dict(store_url="", reviewer=ADA, token=TOKEN, hosts={HOST}, cookie="forsy_review_9")
    return Settings(**{**base, **kw})  # type: ignore[arg-type]


@pytest.fixture
def client() -> Iterator[tuple[TestClient, Settings]]:
    s = settings()
    with TestClient(app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        yield c, s


def logged_in(c: TestClient) -> None:
    assert c.get(f"/?token={TOKEN}").status_code == 303


def test_no_token_no_page_and_a_wrong_token_is_no_login(client: tuple[TestClient, Settings]) -> None:
    c, s = client
    r = c.get("/")
    assert r.status_code == 403 and "reviewer=" not in r.text
    assert r.text == "forbidden: open the URL with its token that `forsy review serve` printed"
    assert r.headers["content-type"] == "text/plain; charset=utf-8"
    r = c.get("/?token=" + "k" * 39 + "j")
    assert r.status_code == 403 and "set-cookie" not in r.headers and s.sessions == {}
    c.cookies.set("forsy_review_9", TOKEN)  # the token itself as a cookie opens nothing: only a session does
    assert c.get("/").status_code == 403


def test_the_token_becomes_a_session_cookie_and_leaves_the_address(client: tuple[TestClient, Settings]) -> None:
    c, s = client
    r = c.get(f"/free?a=1&token={TOKEN}&b=x+y&a=2")
    assert r.status_code == 303
    assert r.headers["location"] == "/free?a=1&b=x+y&a=2"  # every other parameter kept, in order
    cookie = r.headers["set-cookie"]
    [sid] = list(s.sessions)
    assert s.sessions[sid] == TOKEN and TOKEN not in cookie and len(sid) >= 40
    assert cookie.startswith(f"forsy_review_9={sid};")
    low = cookie.lower()
    assert "httponly" in low and "samesite=strict" in low and "path=/" in low
    assert c.get(f"/?token={TOKEN}").headers["location"] == "/"  # nothing else: no "?"
    page = c.get("/")
    assert page.status_code == 200 and page.text == f"reviewer={ADA} csrf={s.csrf}"


def test_the_oldest_sessions_go_first_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(g, "MAX_SESSIONS", 3)
    s = settings()
    with TestClient(app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        sids = []
        for _ in range(5):
            c.cookies.clear()
            c.get(f"/?token={TOKEN}")
            sids.append(c.cookies["forsy_review_9"])
        assert list(s.sessions) == sids[2:]
        c.cookies.clear()
        c.cookies.set("forsy_review_9", sids[1])  # evicted
        assert c.get("/").status_code == 403
        c.cookies.set("forsy_review_9", sids[2])
        assert c.get("/").status_code == 200


def test_without_its_own_token_the_server_token_opens_nothing() -> None:
    s = settings(own_token=False)
    with TestClient(app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        r = c.get(f"/?token={TOKEN}")
        assert r.status_code == 403 and s.sessions == {}


def test_a_reviewers_own_token_names_the_reviewer_and_a_csrf_of_its_own(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    st = open_store(url)
    try:
        bob = create_reviewer_token(st, "Bob <bob@example.org>", "2026-03-02T09:00:00+00:00")
    finally:
        st.close()
    s = settings(store_url=url, reviewer="", reviewer_tokens=True)
    with TestClient(app(s), base_url=f"http://{HOST}", follow_redirects=False) as c:
        r = c.get("/")
        assert r.status_code == 403 and r.text.endswith(", or with your own reviewer token")
        assert c.get("/?token=forsy_not-a-token").status_code == 403
        assert c.get(f"/?token={bob}").status_code == 303
        bob_csrf = Settings(store_url="", reviewer="", token=bob, hosts=set()).csrf
        assert c.get("/").text == f"reviewer=Bob <bob@example.org> csrf={bob_csrf}" and bob_csrf != s.csrf
        c.cookies.clear()
        # the server's own token, with nobody named: asked who first, but not on a page that needs nobody
        assert c.get(f"/?token={TOKEN}").status_code == 303
        r = c.get("/")
        assert r.status_code == 303 and r.headers["location"] == "/who"
        assert c.get("/free").text == f"reviewer= csrf={s.csrf}"


def test_errors_are_pages_of_their_kind_never_a_traceback(client: tuple[TestClient, Settings],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    c, _ = client
    logged_in(c)
    def page(path: str, status: int, heading: str, detail: str) -> None:
        r = c.get(path)
        assert r.status_code == status and f"<h1>{heading}</h1>" in r.text
        assert f"<title>{heading} · forsy</title>" in r.text
        assert f'<p class="error">{detail}</p>' in r.text, r.text

    page("/t/forsy_abc-1/conflict", 409, "Conflict: someone acted first", "draft moved to version 3")
    assert '<a href="/t/forsy_abc-1" id="back">back</a>' in c.get("/t/forsy_abc-1/conflict").text
    page("/store", 503, "The store cannot be used", "database disk image is malformed; try again in a moment; if it "
         "lasts, `sqlite3 FILE &#39;PRAGMA integrity_check&#39;` says whether the file is damaged (only then, restore "
         "it from a backup)")
    page("/refused", 400, "Refused", "no step 99 &lt;b&gt;here&lt;/b&gt;")
    page("/sqlite", 503, "The store cannot be read", "file is not a database; check it with `sqlite3 FILE "
         "&#39;PRAGMA integrity_check&#39;` and restore it from a backup")
    capsys.readouterr()
    page("/bug", 500, "Internal error", "forsy met an error it did not expect; the terminal running "
         "`forsy review serve` shows it (please report it)")
    r = c.get("/bug")
    assert r.status_code == 500 and "Internal error" in r.text and "secret internal detail" not in r.text
    assert "secret internal detail" in capsys.readouterr().err  # on the server's terminal instead
    for path in ("/t/forsy_abc-1/conflict", "/store", "/bug"):
        assert c.get(path).headers["content-type"].startswith("text/html")


def test_a_conflict_on_an_odd_trace_id_links_home() -> None:
    s = settings()
    conflict = Starlette(routes=[Route("/t/{tid}/x", g.guard(s, raising(ReviewConflict("moved"))))])
    with TestClient(conflict, base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/t/a.b/x?token={TOKEN}").status_code == 303
        r = c.get("/t/a.b/x")
        assert r.status_code == 409 and '<a href="/" id="back">back</a>' in r.text and 'href="/t/' not in r.text


def test_every_response_carries_the_security_headers_once(client: tuple[TestClient, Settings]) -> None:
    c, _ = client
    answers = [c.get("/"), c.get("/", headers={"host": "evil.example:9"})]
    logged_in(c)
    answers += [c.get("/"), c.get("/bug"), c.post("/form", data={"csrf": "no"})]
    for r in answers:
        for name, value in HEADERS.items():
            # once each, the handler's own cache-control replaced
            assert r.headers.get_list(name) == [value], (r.status_code, name)


def test_a_foreign_host_is_refused(client: tuple[TestClient, Settings]) -> None:
    c, _ = client
    logged_in(c)
    assert c.get("/").status_code == 200
    for host in ("evil.example:9", "127.0.0.1", "127.0.0.1:99", "localhost:9", ""):
        r = c.get("/", headers={"host": host})
        assert r.status_code == 421 and r.text == "unknown host", host
        assert r.headers["content-type"] == "text/plain; charset=utf-8"


@pytest.mark.parametrize(("server", "good", "bad"), [
    (("10.1.2.3", 8765), "10.1.2.3:8765", ["10.1.2.3:8766", "10.1.2.4:8765", "10.1.2.3"]),
    (("::1", 8765), "[::1]:8765", ["::1:8765", "[::1]:8766"]),
])
def test_bound_to_every_address_the_connections_own_address_is_accepted(server: tuple[str, int], good: str,
                                                                        bad: list[str]) -> None:
    check = HostCheck(lambda *a: None, settings(hosts={"localhost:8765"}, any_address=True))  # type: ignore[arg-type]

    def scope(host: str) -> dict[str, object]:
        return {"type": "http", "headers": [(b"host", host.encode())], "server": server}

    assert check.ok(scope(good)) and check.ok(scope("localhost:8765"))
    for h in bad:
        assert not check.ok(scope(h)), h
    only_named = HostCheck(lambda *a: None, settings(hosts={"localhost:8765"}))  # type: ignore[arg-type]
    assert not only_named.ok(scope(good)) and only_named.ok(scope("localhost:8765"))


def test_a_form_is_csrf_checked_utf8_and_the_last_of_repeated_names(client: tuple[TestClient, Settings]) -> None:
    c, s = client
    logged_in(c)
    r = c.post("/form", content=f"a=1&csrf={s.csrf}&a=2&b=&c=%3Cx%3E".encode(),
               headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 200 and r.text == repr([("a", "2"), ("b", ""), ("c", "<x>"), ("csrf", s.csrf)])
    other = s.csrf[:-1] + ("1" if s.csrf[-1] == "0" else "0")
    for body in (b"a=1", f"csrf={other}".encode(), f"csrf={s.csrf}x".encode(), f"csrf={s.csrf}&csrf={other}".encode()):
        r = c.post("/form", content=body, headers={"content-type": "application/x-www-form-urlencoded"})
        assert r.status_code == 403 and "<h1>Refused</h1>" in r.text, body
        assert '<p class="error">the form&#39;s CSRF token is missing or wrong; reload the page</p>' in r.text
    # the last csrf counts, as the last of any name
    assert c.post("/form", content=f"csrf=x&csrf={s.csrf}".encode()).status_code == 200
    r = c.post("/form", content=b"csrf=" + s.csrf.encode() + b"&v=\xff")
    assert r.status_code == 400 and "<h1>Refused</h1>" in r.text
    assert '<p class="error">the form is not UTF-8</p>' in r.text


def test_a_form_over_the_limit_is_refused_by_its_length_or_as_it_grows(client: tuple[TestClient, Settings]) -> None:
    c, s = client
    logged_in(c)
    head = f"csrf={s.csrf}&v=".encode()
    exact = head + b"x" * (MAX_FORM - len(head))
    assert c.post("/form", content=exact).status_code == 200  # MAX_FORM bytes: still taken
    r = c.post("/form", content=exact + b"x")
    assert r.status_code == 413 and f'<p class="error">a form of more than {MAX_FORM} bytes</p>' in r.text
    assert "<h1>Too large</h1>" in r.text

    def chunks() -> Iterator[bytes]:  # no content-length: refused as it grows
        yield head
        for _ in range(5):
            yield b"x" * (MAX_FORM // 4)

    r = c.post("/form", content=chunks())
    assert r.status_code == 413


def test_a_declared_length_over_the_limit_is_refused_unread() -> None:
    s = settings()
    sent: list[dict[str, object]] = []
    read: list[int] = []

    async def receive() -> dict[str, object]:
        read.append(1)
        return {"type": "http.request", "body": b"csrf=" + s.csrf.encode(), "more_body": False}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    async def run() -> None:
        scope = {"type": "http", "method": "POST", "path": "/", "query_string": b"",
                 "headers": [(b"content-length", str(MAX_FORM + 1).encode())]}
        got = await g.read_form(Request(scope, receive), s)  # type: ignore[arg-type]
        assert isinstance(got, Response) and got.status_code == 413
        assert not read  # never read
        scope["headers"] = [(b"content-length", str(MAX_FORM).encode())]
        ok = await g.read_form(Request(scope, receive), s)  # type: ignore[arg-type]
        assert ok == {"csrf": s.csrf} and read

    import asyncio

    asyncio.run(run())


@pytest.mark.parametrize(("v", "lo", "hi", "want"), [
    (None, 0, 9, None), ("", 0, 9, None), ("  ", 0, 9, None), ("0", 0, 9, 0), ("9", 0, 9, 9), ("5", 5, 5, 5),
    (" 7 ", 0, 9, 7), ("1" * 20, 0, 10**20, int("1" * 20)),
])
def test_a_number_within_its_bounds(v: str | None, lo: int, hi: int, want: int | None) -> None:
    assert g.number(v, "page", lo, hi) == want


@pytest.mark.parametrize(("v", "lo", "hi"), [("-1", 0, 9), ("10", 0, 9), ("4", 5, 5), ("6", 5, 5), ("x", 0, 9),
                                             ("1.5", 0, 9), ("1" * 21, 0, 10**30), ("0123456789" * 5, 0, 9)])
def test_a_number_out_of_bounds_or_not_whole_is_refused(v: str, lo: int, hi: int) -> None:
    with pytest.raises(InputError) as e:
        g.number(v, "page", lo, hi)
    assert e.value.message == f"page is a whole number from {lo} to {hi}, not {v[:40]!r}"


def test_the_default_bounds_of_a_number() -> None:
    assert g.number("0", "n") == 0 and g.number(str(10**9), "n") == 10**9
    for v in ("-1", str(10**9 + 1)):
        with pytest.raises(InputError):
            g.number(v, "n")


def test_a_trace_id_is_letters_digits_dash_underscore_up_to_a_hundred() -> None:
    def tid(v: str) -> str:
        return g.trace_id_of(Request({"type": "http", "path_params": {"tid": v}}))

    assert tid("forsy_AZaz09-_") == "forsy_AZaz09-_" and tid("a" * 100) == "a" * 100
    for bad in ("", "a" * 101, "a/b", "a.b", "a b", "../x", "a\n"):
        with pytest.raises(InputError) as e:
            tid(bad)
        assert e.value.message == "not a trace id"


def test_the_csrf_value_is_the_hmac_of_the_token() -> None:
    import hashlib
    import hmac

    want = hmac.new(TOKEN.encode(), b"forsy-review-csrf", hashlib.sha256).hexdigest()
    assert settings().csrf == want and settings(token="other").csrf != want
    assert len(g.new_token()) >= 40 and g.new_token() != g.new_token()


def test_a_body_that_grows_past_the_limit_in_pieces_is_refused() -> None:
    s = settings()
    piece = b"x" * (MAX_FORM // 4 + 1)  # each piece well under the limit, five of them over it
    pieces = [b"csrf=" + s.csrf.encode() + b"&v=", *[piece] * 5]
    read: list[int] = []

    async def receive() -> dict[str, object]:
        read.append(1)
        body = pieces[len(read) - 1]
        return {"type": "http.request", "body": body, "more_body": len(read) < len(pieces)}

    async def run() -> None:
        scope = {"type": "http", "method": "POST", "path": "/", "query_string": b"", "headers": []}
        got = await g.read_form(Request(scope, receive), s)  # type: ignore[arg-type]
        assert isinstance(got, Response) and got.status_code == 413
        assert len(read) == 5  # refused at the piece that took it past the limit, the last never read

    import asyncio

    asyncio.run(run())


def test_the_security_headers_on_a_response_that_sets_none_of_its_own() -> None:
    sent: list[dict[str, object]] = []

    async def bare(scope: object, receive: object, send: object) -> None:
        await send({"type": "http.response.start", "status": 200})  # type: ignore[operator]
        await send({"type": "http.response.body", "body": b"x"})  # type: ignore[operator]

    async def collect(message: dict[str, object]) -> None:
        sent.append(message)

    async def run() -> None:
        await SecurityHeaders(bare)({"type": "http"}, None, collect)  # type: ignore[arg-type]

    import asyncio

    asyncio.run(run())
    assert sent[0]["headers"] == list(SecurityHeaders.HEADERS) and sent[1] == {"type": "http.response.body",
                                                                              "body": b"x"}


def test_a_request_with_no_host_header_is_refused() -> None:
    for any_address in (False, True):
        check = HostCheck(lambda *a: None, settings(any_address=any_address))  # type: ignore[arg-type]
        assert not check.ok({"type": "http", "headers": [], "server": ("127.0.0.1", 9)})
        assert not check.ok({"type": "http", "server": ("127.0.0.1", 9)})


def test_a_page_behind_the_login_asks_who_is_reviewing_by_default() -> None:
    s = settings(reviewer="")
    plain = Starlette(routes=[Route("/", g.guard(s, who))])
    with TestClient(plain, base_url=f"http://{HOST}", follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        r = c.get("/")
        assert r.status_code == 303 and r.headers["location"] == "/who"
