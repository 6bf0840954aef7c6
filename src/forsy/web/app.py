"""`forsy review serve`: the review queue in a browser (Starlette, Jinja2, uvicorn; no JS build).

Safe by default, as Jupyter is:
- it binds 127.0.0.1; another address needs an explicit flag and a token the user chose;
- a random token is in the URL printed at start; the first request carrying it gets an
  HttpOnly, SameSite=Strict cookie holding a session id (never the token: a cookie of
  127.0.0.1 reaches every server on that address), named after this server's port so that
  two forsy servers never log each other out; every request (pages, static files, actions)
  must carry the token or a live session;
- the Host header must name the address served (a DNS-rebinding page cannot talk to it);
  a server bound to every address (0.0.0.0) accepts the address each connection came in on,
  this machine's names and the names given with --allow-host;
- every form carries a CSRF token (an HMAC of the session token), checked on every POST;
- every value is escaped by the templates; a Content-Security-Policy allows only this
  server's own stylesheet and script; ids only in URLs, never paths;
- every action names the draft version it was decided on: a second reviewer acting on a
  stale page gets a conflict (409), never a silently lost edit.
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
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from ..errors import ForsyError, InputError, StoreError
from ..review import actions
from ..review.conversation import Block, Subagent, conversation
from ..review.needs import needs
from ..review.overlay import REVIEW_LEVELS, field_path
from ..review.queue import MAX_PER_PAGE, PER_PAGE, SORTS, QueueQuery, queue_page
from ..review.source import EvidenceReader, LoadedTrace, from_store
from ..review.view import extras, header, rows, step_view
from ..store import DRAFT_STATUSES, ReviewConflict, Store, TraceQuery, open_store
from ..store.queue_rules import QueueRule, add_rule, dismiss_matching, hidden_count, rules
from ..store.reviewers import verify_reviewer_token
from .pages import env

COOKIE = "forsy_review"  # and the port: forsy_review_8765
CSP = ("default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; "
       "frame-ancestors 'none'; base-uri 'none'")
STEPS_PER_PAGE = 200
_ID = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
_STATIC = {"review.css": "text/css; charset=utf-8", "review.js": "text/javascript; charset=utf-8"}
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

    @property
    def csrf(self) -> str:
        return hmac.new(self.token.encode(), b"forsy-review-csrf", hashlib.sha256).hexdigest()


Handler = Callable[[Request, Settings], Awaitable[Response]]


@contextmanager
def _store(s: Settings) -> Iterator[Store]:
    st = open_store(s.store_url)
    try:
        yield st
    finally:
        st.close()


def _secure(resp: Response) -> Response:
    resp.headers["Content-Security-Policy"] = CSP
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Frame-Options"] = "DENY"
    return resp


def _page(s: Settings, name: str, status: int = 200, **ctx: Any) -> Response:
    base = dict(static=False, reviewer=s.reviewer, message=None, message_kind="", csrf=s.csrf)
    html = env().get_template(name).render(**{**base, **ctx})
    return _secure(HTMLResponse(html, status_code=status))


def _error(s: Settings, status: int, heading: str, detail: str, back: str | None = None) -> Response:
    return _page(s, "error.html", status, title=heading, heading=heading, detail=detail, back=back, typed=None)


def _host_ok(request: Request, s: Settings) -> bool:
    host = request.headers.get("host", "")
    if host in s.hosts:
        return True
    if not s.any_address:
        return False
    local = request.scope.get("server") or ("", 0)  # the address this connection came in on
    shown = f"[{local[0]}]" if ":" in str(local[0]) else str(local[0])
    return host == f"{shown}:{local[1]}"


def _guard(s: Settings, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        if not _host_ok(request, s):
            return _secure(Response("unknown host", status_code=421, media_type="text/plain"))
        given = request.query_params.get("token")
        if given is not None and _identify(s, given) is not None:
            # the token's first use: a session of its own in a cookie, the token out of the address bar
            sid = secrets.token_urlsafe(32)
            s.sessions[sid] = given
            while len(s.sessions) > MAX_SESSIONS:  # the oldest go first (dicts keep insertion order)
                del s.sessions[next(iter(s.sessions))]
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            resp = RedirectResponse(request.url.path + ("?" + urlencode(rest) if rest else ""), status_code=303)
            resp.set_cookie(s.cookie, sid, httponly=True, samesite="strict", path="/")
            return _secure(resp)
        token = s.sessions.get(request.cookies.get(s.cookie, ""))
        rs = _identify(s, token) if token else None  # a revoked reviewer token ends its sessions
        if rs is None:
            return _secure(Response("forbidden: open the URL with its token that `forsy review serve` printed"
                                    + (", or with your own reviewer token" if s.reviewer_tokens else ""),
                                    status_code=403, media_type="text/plain"))
        if not rs.reviewer and handler not in (who_page, static):  # nobody named yet: ask, once
            return _secure(RedirectResponse("/who", status_code=303))
        try:
            return await handler(request, rs)
        except ReviewConflict as e:  # (no Referer is ever sent: the page the action came from is the draft's)
            tid = request.path_params.get("tid")
            back = f"/t/{tid}" if isinstance(tid, str) and _ID.match(tid) else "/"
            return _error(s, 409, "Conflict: someone acted first", e.message, back)
        except StoreError as e:  # a damaged, full or unwritable store: the server's trouble, not the request's
            return _error(s, 503, "The store cannot be read", f"{e.message}; check it with `sqlite3 FILE 'PRAGMA "
                          "integrity_check'` (or the PostgreSQL server's log) and restore it from a backup")
        except ForsyError as e:
            return _error(s, 400, "Refused", e.message)
        except sqlite3.DatabaseError as e:  # a damaged store: say so, never a traceback on the page
            return _error(s, 503, "The store cannot be read", f"{e}; check it with `sqlite3 FILE 'PRAGMA "
                          "integrity_check'` and restore it from a backup")
        except Exception:  # a bug: the details go to the server's terminal, not to the page
            traceback.print_exc(file=sys.stderr)
            return _error(s, 500, "Internal error", "forsy met an error it did not expect; the terminal running "
                          "`forsy review serve` shows it (please report it)")
    return endpoint


def _identify(s: Settings, token: str) -> Settings | None:
    """The settings of the request's reviewer: the server's own token acts as the server's
    reviewer; in team mode a reviewer's own token (checked against its stored hash) acts as
    that reviewer, with a CSRF secret of its own. None: not allowed in."""
    if hmac.compare_digest(token.encode(), s.token.encode()):
        return s if s.own_token else None
    if s.reviewer_tokens:
        with _store(s) as st:
            who = verify_reviewer_token(st, token)
        if who is not None:
            return replace(s, reviewer=who, token=token)
    return None


async def _form(request: Request, s: Settings) -> dict[str, str] | Response:
    """The POSTed form (urlencoded; the last of repeated names), or a refusal (`_form_lists`)."""
    got = await _form_lists(request, s)
    return got if isinstance(got, Response) else {k: v[-1] for k, v in got.items()}


async def _form_lists(request: Request, s: Settings) -> dict[str, list[str]] | Response:
    """The POSTed form (urlencoded), or a refusal when its CSRF token is missing or wrong. A body
    over MAX_FORM is refused by its declared length, or as soon as it grows past it: never read whole."""
    too_large = _error(s, 413, "Too large", f"a form of more than {MAX_FORM} bytes")
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
        return _error(s, 400, "Refused", "the form is not UTF-8")
    if not hmac.compare_digest((data.get("csrf") or [""])[-1].encode(), s.csrf.encode()):
        return _error(s, 403, "Refused", "the form's CSRF token is missing or wrong; reload the page")
    return data


def _tid(request: Request) -> str:
    tid = str(request.path_params["tid"])
    if not _ID.match(tid):
        raise InputError("not a trace id")
    return tid


def _int(v: str | None, name: str, lo: int = 0, hi: int = 10**9) -> int | None:
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


# ---------------------------------------------------------------- pages


async def queue(request: Request, s: Settings) -> Response:
    q = request.query_params
    status = q.get("status") or None
    if status is not None and status not in DRAFT_STATUSES:
        raise InputError(f"unknown status {status[:40]!r}")
    sort = q.get("sort") or "started"
    if sort not in SORTS:
        raise InputError(f"unknown sort {sort[:40]!r}")
    f = TraceQuery(agent=q.get("agent") or None, project=q.get("project") or None, status=status,
                   since=q.get("since") or None, until=q.get("until") or None,
                   min_confidence=_int(q.get("min_confidence"), "confidence", 0, 100),
                   max_confidence=_int(q.get("max_confidence"), "confidence", 0, 100), text=q.get("text") or None,
                   latest_only=True, reviewed=False, order=sort, descending=q.get("dir", "desc") != "asc",
                   hidden=q.get("hidden") == "1")
    qq = QueueQuery(f, page=_int(q.get("page"), "page", 1) or 1,
                    per_page=_int(q.get("per"), "per page", 1, MAX_PER_PAGE) or PER_PAGE)
    with _store(s) as st:
        pg = queue_page(st, qq)
        hidden = hidden_count(st)
        queue_rules = rules(st)
    kept = [(k, v) for k, v in q.multi_items() if k not in ("page", "sort", "dir", "token", "done") and v]

    def link(**changes: object) -> str:
        params = dict(kept)
        params.update({"sort": f.order, "dir": "desc" if f.descending else "asc", "page": str(qq.page)})
        params.update({k: str(v) for k, v in changes.items()})
        return "/?" + urlencode(params)

    def sort_link(key: str) -> str:
        flip = "asc" if key == f.order and f.descending else "desc"
        return link(sort=key, dir=flip, page=1)

    return _page(s, "queue.html", title="Review queue", pg=pg, counts=pg.counts, f=f, qq=qq, hidden=hidden,
                 queue_rules=queue_rules,
                 statuses=DRAFT_STATUSES, link=link, sort_link=sort_link, csrf=s.csrf,
                 message=_DONE.get(q.get("done") or ""), message_kind="ok")


async def draft(request: Request, s: Settings) -> Response:
    tid = _tid(request)
    with _store(s) as st:
        d = from_store(st, tid)
    h = header(d)
    page = _int(request.query_params.get("page"), "page", 1) or 1
    all_rows = rows(d)
    pages = max(1, -(-len(all_rows) // STEPS_PER_PAGE))
    first, last = (page - 1) * STEPS_PER_PAGE, page * STEPS_PER_PAGE
    blocks = [b for b in conversation(d) if first < _first_step(b) <= last]
    can = d.state is not None and d.state.review_of is None and d.state.status in actions.OPEN
    msg = request.query_params.get("done")
    return _page(s, "draft.html", title=tid, h=h, can_review=can, levels=REVIEW_LEVELS, edits=edit_rows(d),
                 extras=extras(d), step_rows=all_rows[first:last], pages=pages, page=page, step_views=[],
                 blocks=blocks, needs=needs(d) if d.state is not None and d.state.review_of is None else None,
                 step_url=lambda n: f"/t/{tid}/s/{n}", message=_DONE.get(msg or ""), message_kind="ok")


def _first_step(b: Block) -> int:
    return b.entries[0].step if isinstance(b, Subagent) else b.step


def edit_rows(d: LoadedTrace) -> list[dict[str, Any]]:
    """The reviewer's edits as old → new, oldest first."""
    return [{"path": p.path, "old": p.replaces.value if p.replaces else None, "new": p.value,
             "actor": p.actor.name, "time": p.time} for p in d.proposals if p.origin == "human"]


async def approve_page(request: Request, s: Settings) -> Response:
    """What an approval will publish, and the button that does it."""
    tid = _tid(request)
    level = request.query_params.get("level") or REVIEW_LEVELS[0]
    if level not in REVIEW_LEVELS:
        raise InputError(f"unknown level {level[:40]!r}")
    with _store(s) as st:
        d = from_store(st, tid)
    if d.state is None or d.state.review_of is not None or d.state.status not in actions.OPEN:
        raise InputError(f"trace {tid} is not a draft open for review")
    return _page(s, "approve.html", title=f"approve {tid}", tid=tid, level=level, edits=edit_rows(d),
                 version=d.state.version, open_count=needs(d).open_count)


_DONE = {"edit": "Edit saved.", "approve": "Approved: the reviewed trace is stored.", "reject": "Rejected.",
         "needs_changes": "Marked as needing changes.", "confirm": "Kept as it is, as your decision.",
         "decline": "Declined: the field is null again.",
         "rule": "Rule saved: the queue follows it, and so does every sweep.",
         "who": "Thank you: your name is kept in the config file and recorded with every action."}


async def step(request: Request, s: Settings) -> Response:
    tid = _tid(request)
    n = int(request.path_params["n"])
    with _store(s) as st:
        d = from_store(st, tid)
    if not 1 <= n <= len(d.steps):
        raise InputError(f"no step {n}: the trace has {len(d.steps)} steps")
    full = request.query_params.get("full") == "1"
    v = step_view(d, n, EvidenceReader(d), cap=None if full else 4_000)
    can = d.state is not None and d.state.review_of is None and d.state.status in actions.OPEN
    return _page(s, "step.html", title=f"{tid} step {n}", trace_id=tid, v=v, total=len(d.steps), full=full,
                 prev=n - 1 if n > 1 else None, next=n + 1 if n < len(d.steps) else None,
                 version=d.state.version if d.state else 0, can_review=can,
                 message=_DONE.get(request.query_params.get("done") or ""), message_kind="ok")


async def audit(request: Request, s: Settings) -> Response:
    tid = request.query_params.get("trace")
    if tid is not None and not _ID.match(tid):
        raise InputError("not a trace id")
    with _store(s) as st:
        log = st.audit(tid)
    return _page(s, "audit.html", title="Audit log", rows=log, trace_id=tid)


async def static(request: Request, s: Settings) -> Response:
    name = str(request.path_params["name"])
    if name not in _STATIC:  # a fixed list: no path from the URL ever reaches the file system
        return _secure(Response("not found", status_code=404, media_type="text/plain"))
    data = resources.files("forsy.web").joinpath("static", name).read_bytes()
    return _secure(Response(data, media_type=_STATIC[name]))


# ---------------------------------------------------------------- actions


async def act(request: Request, s: Settings) -> Response:
    tid = _tid(request)
    form = await _form(request, s)
    if isinstance(form, Response):
        return form
    what = str(request.path_params["action"])
    version = _int(form.get("version"), "version")
    if version is None:
        raise InputError("the form names no draft version; reload the page")
    kw: dict[str, Any] = dict(reviewer=s.reviewer, at=s.clock(), expected_version=version)
    back = f"/t/{tid}"
    with _store(s) as st:
        if what == "edit":
            n = _int(form.get("step"), "step", 1)
            back = f"/t/{tid}/s/{n}" if n else back
            try:
                actions.edit(st, tid, field_path(n, form.get("field", "")), form.get("value", ""), **kw)
            except ForsyError as e:  # the typed value is shown back, never lost
                conflict = isinstance(e, ReviewConflict)
                return _page(s, "error.html", 409 if conflict else 400,
                             title="Conflict" if conflict else "Refused",
                             heading="Conflict: someone acted first" if conflict else "Refused", detail=e.message,
                             back=back, typed=form.get("value", ""), field=form.get("field", ""))
        elif what == "approve":
            actions.approve(st, tid, form.get("level", ""), **kw)
        elif what in ("confirm", "decline"):
            path = form.get("path", "")
            (actions.confirm if what == "confirm" else actions.decline)(st, tid, path, **kw)
        elif what == "reject":
            actions.reject(st, tid, form.get("reason", ""), **kw)
        elif what == "needs-changes":
            actions.needs_changes(st, tid, form.get("note", ""), **kw)
            what = "needs_changes"
        else:
            return _error(s, 404, "Not found", "no such action")
    return _secure(RedirectResponse(f"{back}?done={what}", status_code=303))


MAX_BULK = 500  # drafts decided with one confirmation


async def bulk(request: Request, s: Settings) -> Response:
    """Several drafts approved or rejected with one confirmation: the first POST (from the queue)
    shows what will happen to which drafts, at which version; the second (`confirm`) does it,
    draft by draft, and says what became of each (a draft someone else acted on is a conflict)."""
    form = await _form_lists(request, s)
    if isinstance(form, Response):
        return form
    action = (form.get("action") or [""])[-1]
    if action not in ("approve", "reject"):
        raise InputError("choose approve or reject for the selected drafts")
    reason = (form.get("reason") or [""])[-1].strip()
    if action == "reject" and not reason:
        raise InputError("a rejection needs a reason")
    picked = list(dict.fromkeys(form.get("t") or []))
    if not picked:
        raise InputError("no draft selected")
    if len(picked) > MAX_BULK or not all(_ID.match(t) for t in picked):
        raise InputError(f"select 1 to {MAX_BULK} drafts by their ids")
    if (form.get("confirm") or [""])[-1] != "1":
        with _store(s) as st:
            rows = [(t, st.trace(t), st.draft_state(t)) for t in picked]
        return _page(s, "bulk.html", title="Review the selection", action=action, reason=reason, rows=rows)
    versions = dict(v.split(":", 1) for v in form.get("v") or [] if ":" in v)
    done: list[tuple[str, str]] = []
    with _store(s) as st:
        for t in picked:
            kw: dict[str, Any] = dict(reviewer=s.reviewer, at=s.clock(),
                                      expected_version=_int(versions.get(t), "version"))
            try:
                if action == "approve":
                    d = actions.approve(st, t, REVIEW_LEVELS[0], **kw)
                    done.append((t, f"approved as {d.reviewed_trace_id}"))
                else:
                    actions.reject(st, t, reason, **kw)
                    done.append((t, "rejected"))
            except ForsyError as e:  # one draft's refusal never stops the others
                done.append((t, f"not done: {e.message}"))
    return _page(s, "bulk.html", title="Done", action=action, reason=reason, rows=[], done=done)


async def rule(request: Request, s: Settings) -> Response:
    """A queue rule made from the queue page (`forsy review rule add` in a form)."""
    form = await _form(request, s)
    if isinstance(form, Response):
        return form
    action = form.get("action", "hide")
    if action not in ("hide", "dismiss"):
        raise InputError("a rule hides or dismisses")
    with _store(s) as st:
        add_rule(st, QueueRule(form.get("name", "").strip(), form.get("task", ""), action,  # type: ignore[arg-type]
                               form.get("agent") or None), actor=s.reviewer, now=s.clock())
        if action == "dismiss":
            dismiss_matching(st, now=s.clock())
    return _secure(RedirectResponse("/?done=rule", status_code=303))


async def who_page(request: Request, s: Settings) -> Response:
    """Who is reviewing, asked once when nothing names a reviewer; kept in the config file."""
    if request.method == "POST":
        form = await _form(request, s)
        if isinstance(form, Response):
            return form
        from ..config import remember_reviewer
        from ..review.identity import clean

        name = clean(form.get("name", ""))  # the same checks as --reviewer
        if not name:
            raise InputError("a reviewer's name is needed ('Name <email>')")
        kept = remember_reviewer(name)
        s.reviewer = name
        return _secure(RedirectResponse(f"/?done=who&kept={quote(str(kept))}", status_code=303))
    return _page(s, "who.html", title="Who is reviewing?")


def make_app(settings: Settings) -> Starlette:
    def r(path: str, h: Handler, methods: list[str] | None = None) -> Route:
        return Route(path, _guard(settings, h), methods=methods or ["GET"])

    return Starlette(routes=[
        r("/", queue), r("/audit", audit), r("/static/{name}", static),
        r("/t/{tid}", draft), r("/t/{tid}/s/{n:int}", step), r("/t/{tid}/approve", approve_page),
        r("/t/{tid}/{action}", act, ["POST"]), r("/who", who_page, ["GET", "POST"]), r("/bulk", bulk, ["POST"]),
        r("/rules", rule, ["POST"]),
    ])


def new_token() -> str:
    return secrets.token_urlsafe(32)
