"""The security floor of `forsy review serve`: who may ask what, and how every answer is sent.

- `HostCheck` (middleware): the Host header must name the address served (no DNS rebinding);
  bound to every address, the address a connection came in on is accepted too.
- `SecurityHeaders` (middleware): one Content-Security-Policy and the other headers on every
  response, set in one place.
- `guard`: the login (the printed token, once, becomes a session of this server in a cookie
  named after its port; a reviewer's own token in team mode), and errors turned into pages.
- `form`: a POSTed form, bounded in size, with its CSRF token checked.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import sys
import traceback
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import ForsyError, InputError, StoreError, StoreUnreachable
from ..review.needs import Seen
from ..store import ReviewConflict, Store, open_store
from ..store.reviewers import verify_reviewer_token
from ..times import time_bound
from .pages import env

COOKIE = "forsy_review"  # and the port: forsy_review_8765
CSP = ("default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; "
       "frame-ancestors 'none'; base-uri 'none'")
ID = re.compile(r"^[A-Za-z0-9_-]{1,100}\Z")  # \Z: `$` would let a trailing newline through
MAX_FORM = 4 * 1024 * 1024  # bytes of a form body (an edited field can be long, not unbounded)
MAX_SESSIONS = 1000  # logins kept in memory at once


@dataclass
class Settings:
    store_url: str  # a store is opened per request: a connection stays in the thread that opened it
    reviewer: str
    token: str
    hosts: set[str]  # Host header values accepted ("127.0.0.1:8765", "localhost:8765")
    # team mode: each reviewer logs in with a token of their own (`forsy review token add`, stored
    # hashed in the store); the token names who acts, so actions are never one shared identity
    reviewer_tokens: bool = False
    clock: Callable[[], str] = field(default=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    cookie: str = COOKIE
    # bound to every address: a Host naming the address a connection came in on is accepted too
    any_address: bool = False
    own_token: bool = True  # False: the server's own token opens nothing (team mode, no local reviewer)
    # session id (the cookie's value) -> the token that opened it; the token stays in memory here
    sessions: dict[str, str] = field(default_factory=dict)
    # the validator's findings on the drafts this server showed lately, by their bytes
    seen: Seen = field(default_factory=Seen)
    # rebuild a draft's redactor in the background when its page is shown (`redacted.warm`): the
    # server does; an app made for a test does not unless asked, so no thread outlives its request
    warm_redactors: bool = False

    @property
    def csrf(self) -> str:
        return hmac.new(self.token.encode(), b"forsy-review-csrf", hashlib.sha256).hexdigest()


Handler = Callable[[Request, Settings], Awaitable[Response]]


class NotFound(InputError):
    """What the URL names is not there (a trace, a step): a 404 page that names what, never
    where the store is."""


class StoreChanged(StoreError):
    """The store, opened when the server started, is refused now: changed under the running
    server (a newer forsy migrated it, or it was moved away). The server's trouble, not the
    request's."""


@contextmanager
def open_for(s: Settings) -> Iterator[Store]:
    try:  # a store this user may only read is shown; a write says why
        st = open_store(s.store_url, create=False)
    except InputError as e:  # `forsy review serve` opened it at start: whatever refuses it now came since
        raise StoreChanged(e.message) from None
    try:
        yield st
    finally:
        st.close()


def render_page(s: Settings, name: str, status: int = 200, **ctx: Any) -> Response:
    base = dict(static=False, reviewer=s.reviewer, message=None, message_kind="", csrf=s.csrf)
    html = env().get_template(name).render(**{**base, **ctx})
    return HTMLResponse(html, status_code=status)


def error_page(s: Settings, status: int, heading: str, detail: str, back: str | None = None) -> Response:
    return render_page(s, "error.html", status, title=heading, heading=heading, detail=detail, back=back, typed=None)


class SecurityHeaders:
    """The same security headers on every response, set here and nowhere else."""

    HEADERS = ((b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
               (b"referrer-policy", b"no-referrer"), (b"cache-control", b"no-store"), (b"x-frame-options", b"DENY"))

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k for k, _ in self.HEADERS}
                message["headers"] = [*(h for h in message.get("headers", []) if h[0] not in names), *self.HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


class HostCheck:
    """421 unless the Host header names this server: one of `hosts`, or, bound to every address
    (`any_address`), the address the connection came in on. Starlette's TrustedHostMiddleware
    compares host names without their port and knows no per-connection address, hence this."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app, self.s = app, settings

    def ok(self, scope: Scope) -> bool:
        host = bytes(dict(scope.get("headers") or []).get(b"host", b"")).decode("latin-1")
        if host in self.s.hosts:
            return True
        if not self.s.any_address:
            return False
        local = scope.get("server") or ("", 0)  # the address this connection came in on
        shown = f"[{local[0]}]" if ":" in str(local[0]) else str(local[0])
        return bool(host == f"{shown}:{local[1]}")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.ok(scope):
            await Response("unknown host", status_code=421, media_type="text/plain")(scope, receive, send)
            return
        await self.app(scope, receive, send)


def guard(s: Settings, handler: Handler, *, needs_reviewer: bool = True) -> Callable[[Request], Awaitable[Response]]:
    """`handler` behind the login; its errors become pages. `needs_reviewer`: with no reviewer
    named yet, the request goes to the page that asks (`/who`) first."""

    async def endpoint(request: Request) -> Response:
        try:  # (a reviewer's token is checked in the store: a store that cannot be read is a page too)
            return await answer(request)
        except Exception as e:
            return error_of(s, request, e)

    async def answer(request: Request) -> Response:
        given = request.query_params.get("token")
        if given is not None and identify(s, given) is not None:
            # the token's first use: a session of its own in a cookie, the token out of the address bar
            sid = secrets.token_urlsafe(32)
            s.sessions[sid] = given
            while len(s.sessions) > MAX_SESSIONS:  # the oldest go first (dicts keep insertion order)
                del s.sessions[next(iter(s.sessions))]
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            resp = RedirectResponse(request.url.path + ("?" + urlencode(rest) if rest else ""), status_code=303)
            resp.set_cookie(s.cookie, sid, httponly=True, samesite="strict", path="/")
            return resp
        token = s.sessions.get(request.cookies.get(s.cookie, ""))
        rs = identify(s, token) if token else None  # a revoked reviewer token ends its sessions
        if rs is None:
            return Response("forbidden: open the URL with its token that `forsy review serve` printed"
                            + (", or with your own reviewer token" if s.reviewer_tokens else ""),
                            status_code=403, media_type="text/plain")
        if not rs.reviewer and needs_reviewer:  # nobody named yet: ask, once
            return RedirectResponse("/who", status_code=303)
        return await handler(request, rs)
    return endpoint


def error_of(s: Settings, request: Request, e: Exception) -> Response:
    """The page an error of a request becomes: what kind of trouble it is (the request's: 4xx;
    the store's or the server's: 5xx) and what to do, never a traceback."""
    if isinstance(e, ReviewConflict):  # (no Referer is ever sent: the page the action came from is the draft's)
        tid = request.path_params.get("tid")
        back = f"/t/{tid}" if isinstance(tid, str) and ID.match(tid) else "/"
        return error_page(s, 409, "Conflict: someone acted first", e.message, back)
    if isinstance(e, NotFound):
        return error_page(s, 404, "Not found", e.message, "/")
    if isinstance(e, StoreError):  # the server's trouble, not the request's: 503
        return error_page(s, 503, *store_trouble(s, e))
    if isinstance(e, ForsyError):
        return error_page(s, 400, "Refused", e.message)
    if isinstance(e, sqlite3.DatabaseError):  # a damaged store: say so, never a traceback on the page
        return error_page(s, 503, "The store cannot be read", f"{e}; check it with `sqlite3 FILE 'PRAGMA "
                          "integrity_check'` and restore it from a backup")
    # a bug: the details go to the server's terminal, not to the page
    traceback.print_exception(e, file=sys.stderr)
    return error_page(s, 500, "Internal error", "forsy met an error it did not expect; the terminal running "
                      "`forsy review serve` shows it (please report it)")


def store_trouble(s: Settings, e: StoreError) -> tuple[str, str]:
    """The heading and the words of a 503 page: what the store said (its first line: a server's
    CONTEXT and hints are for its log, not for a reviewer) and advice that fits the trouble
    and the backend. A backup is offered only for a SQLite file shown to be damaged."""
    said = (e.message.strip().splitlines() or [""])[0]
    if isinstance(e, StoreChanged):
        return ("The store changed under this server", f"{said}; restart `forsy review serve` (after upgrading "
                "forsy, if a newer one changed the store)")
    if isinstance(e, StoreUnreachable):
        return ("The store cannot be reached", f"{said}; try again in a moment (if it lasts, the database server "
                "may be down: its log says why)")
    if s.store_url.startswith(("postgresql:", "postgres:")):
        return "The store cannot be used", f"{said}; the PostgreSQL server's log says more"
    return ("The store cannot be used", f"{said}; try again in a moment; if it lasts, `sqlite3 FILE 'PRAGMA "
            "integrity_check'` says whether the file is damaged (only then, restore it from a backup)")


def identify(s: Settings, token: str) -> Settings | None:
    """The settings of the request's reviewer: the server's own token acts as the server's
    reviewer; in team mode a reviewer's own token (checked against its stored hash) acts as
    that reviewer, with a CSRF secret of its own. None: not allowed in."""
    if hmac.compare_digest(token.encode(), s.token.encode()):
        return s if s.own_token else None
    if s.reviewer_tokens:
        with open_for(s) as st:
            who = verify_reviewer_token(st, token)
        if who is not None:
            return replace(s, reviewer=who, token=token)
    return None


async def read_form(request: Request, s: Settings) -> dict[str, str] | Response:
    """The POSTed form (urlencoded; the last of repeated names), or a refusal (`_form_lists`)."""
    got = await read_form_lists(request, s)
    return got if isinstance(got, Response) else {k: v[-1] for k, v in got.items()}


async def read_form_lists(request: Request, s: Settings) -> dict[str, list[str]] | Response:
    """The POSTed form (urlencoded), or a refusal when its CSRF token is missing or wrong. A body
    over MAX_FORM is refused by its declared length, or as soon as it grows past it: never read whole."""
    too_large = error_page(s, 413, "Too large", f"a form of more than {MAX_FORM} bytes")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_FORM:
        return too_large
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_FORM:
            return too_large
        chunks.append(chunk)
    body = b"".join(chunks)
    try:
        data = parse_qs(body.decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError:
        return error_page(s, 400, "Refused", "the form is not UTF-8")
    if not hmac.compare_digest((data.get("csrf") or [""])[-1].encode(), s.csrf.encode()):
        return error_page(s, 403, "Refused", "the form's CSRF token is missing or wrong; reload the page")
    return data


def trace_id_of(request: Request) -> str:
    tid = str(request.path_params["tid"])
    if not ID.match(tid):
        raise InputError("not a trace id")
    return tid


def number(v: str | None, name: str, lo: int = 0, hi: int = 10**9) -> int | None:
    """A whole number from a URL or form, within [lo, hi] (a store cannot hold any integer)."""
    if v is None or v.strip() == "":
        return None
    try:
        n = int(v) if len(v) <= 20 else None
    except ValueError:
        n = None
    if n is None or not lo <= n <= hi:
        raise InputError(f"{name} is a whole number from {lo} to {hi}, not {v[:40]!r}")
    return n


def a_time(v: str | None, name: str) -> str | None:
    """A time bound from a URL (`since`, `until`), as given, when forsy reads it as a time: a
    typo is refused, never a filter that silently matches nothing (or everything)."""
    return None if v is None or v.strip() == "" else time_bound(v, name)


def new_token() -> str:
    return secrets.token_urlsafe(32)
