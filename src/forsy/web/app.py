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
- every action names the draft version its page was loaded at: a decision on a draft that
  changed since is a conflict (409) saying what changed; an edit is saved unless its own
  field changed since (then a conflict, what was typed shown back), never silently lost.
"""

from __future__ import annotations

from importlib import resources
from typing import Any
from urllib.parse import quote, urlencode

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..errors import ForsyError, InputError, RedactionError
from ..proposals import parse_path
from ..review import actions
from ..review.conversation import Block, Subagent, conversation, marked
from ..review.evidence import EvidenceReader
from ..review.labels import Labels, field_label
from ..review.needs import JUDGEMENTS, judgements, needs
from ..review.overlay import REVIEW_LEVELS, field_path
from ..review.queue import MAX_PER_PAGE, PER_PAGE, SORTS, QueueQuery, queue_page
from ..review.redacted import warm
from ..review.source import LoadedTrace, from_store
from ..review.view import FIELD_CAP, extras, header, rows, short, step_view, value_text
from ..store import DRAFT_STATUSES, ReviewConflict, Store, TraceQuery, every_audit
from ..store.queue_rules import (
    QueueRule,
    RuleAction,
    add_rule,
    dismiss_matching,
    hidden_count,
    matching,
    rules,
)
from .guard import (
    ID,
    Handler,
    HostCheck,
    NotFound,
    SecurityHeaders,
    Settings,
    a_time,
    error_page,
    guard,
    number,
    open_for,
    read_form,
    read_form_lists,
    render_page,
    trace_id_of,
)
from .refused import closed, closed_page, conflict_page, decision, refused_edit

STEPS_PER_PAGE = 200
AUDIT_SHOWN = 1000  # records on the audit page, newest first (all of them: forsy review audit)
_STATIC = {"review.css": "text/css; charset=utf-8", "review.js": "text/javascript; charset=utf-8"}

# ---------------------------------------------------------------- pages


async def queue(request: Request, s: Settings) -> Response:
    q = request.query_params
    status = q.get("status") or None
    if status is not None and status not in DRAFT_STATUSES:
        raise InputError(f"unknown status {status[:40]!r}")
    sort = q.get("sort") or "started"
    if sort not in SORTS:
        raise InputError(f"unknown sort {sort[:40]!r}")
    text = q.get("text") or None
    if text is not None and "\x00" in text:  # no search engine takes it (SQLite's stops there, PostgreSQL refuses it)
        raise InputError("the search text cannot hold the character NUL (%00)")
    f = TraceQuery(agent=q.get("agent") or None, project=q.get("project") or None, status=status,
                   since=a_time(q.get("since"), "since"), until=a_time(q.get("until"), "until"),
                   min_confidence=number(q.get("min_confidence"), "confidence", 0, 100),
                   max_confidence=number(q.get("max_confidence"), "confidence", 0, 100), text=text,
                   latest_only=True, reviewed=False, order=sort, descending=q.get("dir", "desc") != "asc",
                   hidden=q.get("hidden") == "1",
                   model_values={"with": True, "without": False}.get(q.get("proposals") or ""),
                   open_only=q.get("needs") == "1")
    qq = QueueQuery(f, page=number(q.get("page"), "page", 1) or 1,
                    per_page=number(q.get("per"), "per page", 1, MAX_PER_PAGE) or PER_PAGE)
    with open_for(s) as st:
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

    return render_page(s, "queue.html", title="Review queue", pg=pg, counts=pg.counts, f=f, qq=qq, hidden=hidden,
                 queue_rules=queue_rules,
                 statuses=DRAFT_STATUSES, link=link, sort_link=sort_link, csrf=s.csrf,
                 message=_DONE.get(q.get("done") or ""), message_kind="ok")


async def draft(request: Request, s: Settings) -> Response:
    tid = trace_id_of(request)
    with open_for(s) as st:
        d = loaded(st, tid)
        # who decided what and when: the page of a decided draft says it (it offers nothing to do)
        decided = decision(st, tid) if d.state is not None and d.state.status != "pending" else None
    if s.warm_redactors:  # the draft's redactor, rebuilt while the person reads: the first step opened shows at once
        warm(d)
    h = header(d)
    page = number(request.query_params.get("page"), "page", 1) or 1
    all_rows = rows(d)
    pages = max(1, -(-len(all_rows) // STEPS_PER_PAGE))
    first, last = (page - 1) * STEPS_PER_PAGE, page * STEPS_PER_PAGE
    every = conversation(d)
    blocks = [b for b in every if first < _first_step(b) <= last]
    # the page each step's entry is on (a block's steps on the page of its first step): a link
    # to a step of the conversation leads to its page, not to an anchor this page lacks
    page_of = {e.step: -(-_first_step(b) // STEPS_PER_PAGE)
               for b in every for e in (b.entries if isinstance(b, Subagent) else [b])}
    can = not closed(d)  # a draft still open, that no later draft replaced
    msg = request.query_params.get("done")
    names = Labels(d)
    return render_page(s, "draft.html", title=tid, h=h, can_review=can, levels=REVIEW_LEVELS, edits=edit_rows(d, names),
                 decided=decided, field_name=names, edit_cap=FIELD_CAP,
                 extras=extras(d), step_rows=all_rows[first:last], pages=pages, page=page, step_views=[],
                 blocks=blocks, marked=marked(every),
                 needs=needs(d, seen=s.seen) if d.state is not None and d.state.review_of is None else None,
                 step_url=lambda n: f"/t/{tid}/s/{n}", conv_url=lambda n: _conv_url(n, page_of, page),
                 message=_DONE.get(msg or ""), message_kind="ok")


def loaded(st: Store, tid: str) -> LoadedTrace:
    """The trace the URL names; a 404 when the store has none (naming the id: the store's own
    message names where the store is, which no page shows)."""
    if st.trace(tid) is None:
        raise NotFound(f"no trace {tid} in the store")
    return from_store(st, tid)


def _conv_url(step: int, page_of: dict[int, int], page: int) -> str:
    on = page_of.get(step, page)
    return f"#c-{step}" if on == page else f"?page={on}#c-{step}"


def _first_step(b: Block) -> int:
    return b.entries[0].step if isinstance(b, Subagent) else b.step


def edit_rows(d: LoadedTrace, names: Labels | None = None) -> list[dict[str, Any]]:
    """The reviewer's edits as old → new, oldest first: each field named as its form names it
    (the path beside it); `inline` when both values are short words said whole on one line (a
    page shows the others in boxes, whole up to FIELD_CAP characters, and says where the rest is).
    Only the values' text is given (`value_text`: `true`, not Python's `True`), so a page cannot
    show a value spelled otherwise than the trace's JSON spells it."""
    names = names or Labels(d)
    out = []
    for i, p in enumerate(d.proposals):
        if p.origin != "human":
            continue
        texts = value_text(p.replaces.value if p.replaces else None), value_text(p.value)
        inline = all(t is None or (len(t) <= 200 and t == " ".join(t.split())) for t in texts)
        out.append({"n": i + 1, "label": names(p.path), "path": p.path,
                    "old_text": texts[0], "new_text": texts[1], "inline": inline, "actor": p.actor.name,
                    "time": p.time})
    return out


async def approve_page(request: Request, s: Settings) -> Response:
    """What an approval will publish, and the button that does it."""
    tid = trace_id_of(request)
    level = request.query_params.get("level") or REVIEW_LEVELS[0]
    if level not in REVIEW_LEVELS:
        raise InputError(f"unknown level {level[:40]!r}")
    with open_for(s) as st:
        d = loaded(st, tid)
        decided = decision(st, tid) if d.state is not None and d.state.review_of is None else None
    if d.state is None or d.state.review_of is not None or d.state.status not in actions.OPEN:
        raise InputError(f"trace {tid} is not a draft open for review" + (f": it was {decided}" if decided else ""))
    return render_page(s, "approve.html", title=f"approve {tid}", tid=tid, level=level, edits=edit_rows(d),
                 version=d.state.version, open_count=needs(d, seen=s.seen).open_count, edit_cap=FIELD_CAP)


async def edits_page(request: Request, s: Settings) -> Response:
    """A draft's edits, every value whole however long (the draft and approve pages show a value
    whole up to FIELD_CAP characters, and link here for the rest)."""
    tid = trace_id_of(request)
    with open_for(s) as st:
        d = loaded(st, tid)
    return render_page(s, "edits.html", title=f"edits of {tid}", tid=tid, edits=edit_rows(d))


async def judgement_page(request: Request, s: Settings) -> Response:
    """One judgement's value whole, however long (the draft page shows one too long to edit
    there cut, and links here for the rest)."""
    tid = trace_id_of(request)
    path = request.query_params.get("path") or ""
    label = dict(JUDGEMENTS).get(path)
    if label is None:
        raise NotFound("no such judgement")
    with open_for(s) as st:
        d = loaded(st, tid)
    j = next(j for j in judgements(d, set()) if j.path == path)  # (not `needs`: no validator run for it)
    return render_page(s, "judgement.html", title=f"{label} · {tid}", tid=tid, j=j)


_DONE = {"edit": "Edit saved.", "approve": "Approved: the reviewed trace is stored.", "reject": "Rejected.",
         "needs_changes": "Marked as needing changes.", "confirm": "Kept as it is, as your decision.",
         "decline": "Declined: the field is null again.",
         "rule": "Rule saved: the queue follows it, and so does every sweep.",
         "who": "Thank you: your name is kept in the config file and recorded with every action."}


async def step(request: Request, s: Settings) -> Response:
    tid = trace_id_of(request)
    n = int(request.path_params["n"])
    with open_for(s) as st:
        d = loaded(st, tid)
        # a decided draft's step page offers no edit: it says why (who decided what, when)
        decided = decision(st, tid) if d.state is not None and d.state.review_of is None \
            and d.state.status in ("approved", "rejected") else None
    if not 1 <= n <= len(d.steps):
        raise NotFound(f"no step {n}: the trace has {len(d.steps)} steps")
    full = request.query_params.get("full") == "1"
    v = step_view(d, n, EvidenceReader(d), cap=None if full else FIELD_CAP)
    can = not closed(d)  # a draft still open, that no later draft replaced
    return render_page(s, "step.html", title=f"{tid} step {n}", trace_id=tid, v=v, total=len(d.steps), full=full,
                 prev=n - 1 if n > 1 else None, next=n + 1 if n < len(d.steps) else None,
                 version=d.state.version if d.state else 0, can_review=can, state=d.state, decided=decided,
                 replaced_by=d.replaced_by,
                 message=_DONE.get(request.query_params.get("done") or ""), message_kind="ok")


async def audit(request: Request, s: Settings) -> Response:
    tid = request.query_params.get("trace")
    if tid is not None and not ID.match(tid):
        raise InputError("not a trace id")
    with open_for(s) as st:
        log = every_audit(st, tid)
    # the newest first, and at most AUDIT_SHOWN of them (the page said nothing past the oldest 1000)
    return render_page(s, "audit.html", title="Audit log", rows=log[::-1][:AUDIT_SHOWN], total=len(log),
                       trace_id=tid)


async def static(request: Request, s: Settings) -> Response:
    name = str(request.path_params["name"])
    if name not in _STATIC:  # a fixed list: no path from the URL ever reaches the file system
        return (Response("not found", status_code=404, media_type="text/plain"))
    data = resources.files("forsy.web").joinpath("static", name).read_bytes()
    return (Response(data, media_type=_STATIC[name]))


# ---------------------------------------------------------------- actions


async def act(request: Request, s: Settings) -> Response:
    tid = trace_id_of(request)
    form = await read_form(request, s)
    if isinstance(form, Response):
        return form
    what = str(request.path_params["action"])
    version = number(form.get("version"), "version")
    if version is None:
        raise InputError("the form names no draft version; reload the page")
    kw: dict[str, Any] = dict(reviewer=s.reviewer, at=s.clock(), expected_version=version)
    back = f"/t/{tid}"
    with open_for(s) as st:
        if st.trace(tid) is None:
            raise NotFound(f"no trace {tid} in the store")
        if what == "edit":
            n = number(form.get("step"), "step", 1)
            back = f"/t/{tid}/s/{n}" if n else back
            field, typed = form.get("field", ""), form.get("value", "")
            path = field_path(n, field)
            try:
                actions.edit(st, tid, path, typed, **kw)
            except ForsyError as e:  # the typed value is shown back, never lost
                return refused_edit(s, st, tid, e, path=path, step=n, field=field, typed=typed, version=version,
                                    back=back)
        elif what in ("confirm", "decline"):
            path = form.get("path", "")
            try:  # a path that names no field is the form's fault (400), never an unexpected error (500)
                parse_path(path)
            except ValueError as e:
                raise InputError(str(e)) from None
            try:
                (actions.confirm if what == "confirm" else actions.decline)(st, tid, path, **kw)
            except ReviewConflict as e:  # decided since the page was loaded: by whom, when; else what changed
                return closed_page(s, st, tid) or conflict_page(s, st, tid, e, version, path)
        else:
            try:
                done = _decide(st, tid, what, form, kw)
            except ReviewConflict as e:  # decided since the page was loaded: by whom, when; else what changed
                return closed_page(s, st, tid) or conflict_page(s, st, tid, e, version)
            if done is None:
                return error_page(s, 404, "Not found", "no such action")
            what = done
    return (RedirectResponse(f"{back}?done={what}", status_code=303))


def _decide(st: Store, tid: str, what: str, form: dict[str, str], kw: dict[str, Any]) -> str | None:
    """A decision on the draft (approve, reject, needs changes): what was done (None: no such action)."""
    if what == "approve":
        actions.approve(st, tid, form.get("level", ""), **kw)
    elif what == "reject":
        if not form.get("reason", "").strip():  # said here: the store's refusal names the terminal's --reason
            raise InputError("a rejection needs a reason")
        actions.reject(st, tid, form.get("reason", ""), **kw)
    elif what == "needs-changes":
        actions.needs_changes(st, tid, form.get("note", ""), **kw)
        return "needs_changes"
    else:
        return None
    return what


MAX_BULK = 500  # drafts decided with one confirmation


async def bulk(request: Request, s: Settings) -> Response:
    """Several drafts approved or rejected with one confirmation: the first POST (from the queue)
    shows what will happen to which drafts, at which version; the second (`confirm`) does it,
    draft by draft, and says what became of each (a draft someone else acted on is a conflict)."""
    form = await read_form_lists(request, s)
    if isinstance(form, Response):
        return form
    action = (form.get("action") or [""])[-1]
    if action not in ("approve", "reject"):
        raise InputError("choose approve or reject for the selected drafts")
    # (an approval takes no reason: text left in the box is not carried to the next page)
    reason = (form.get("reason") or [""])[-1].strip() if action == "reject" else ""
    if action == "reject" and not reason:
        raise InputError("a rejection needs a reason")
    picked = list(dict.fromkeys(form.get("t") or []))
    if reason and _holds_secret(reason):
        # the reason goes back and forth in the confirmation page's form, raw: one that holds a
        # secret is refused rather than shown (stored, it would be masked draft by draft); what
        # was typed comes back masked, in the form again with the selection, to correct it
        return _secret_reason(s, reason, [t for t in picked if ID.match(t)][:MAX_BULK])
    if not picked:
        raise InputError("no draft selected")
    if len(picked) > MAX_BULK or not all(ID.match(t) for t in picked):
        raise InputError(f"select 1 to {MAX_BULK} drafts by their ids")
    if (form.get("confirm") or [""])[-1] != "1":
        with open_for(s) as st:  # each draft with its edits: what an approval publishes, seen before it
            rows = [(t, st.trace(t), st.draft_state(t), _edits(st, t)) for t in picked]
        return render_page(s, "bulk.html", title="Review the selection", action=action, reason=reason, rows=rows)
    versions = dict(v.split(":", 1) for v in form.get("v") or [] if ":" in v)
    done: list[tuple[str, str]] = []
    with open_for(s) as st:
        for t in picked:
            try:  # a version the form got wrong is this draft's refusal, after the others before it were done
                version = number(versions.get(t), "version")
                if version is None and st.draft_state(t) is not None:  # never at whatever version is there now
                    raise InputError("the form names no version of this draft; select it again")
                kw: dict[str, Any] = dict(reviewer=s.reviewer, at=s.clock(), expected_version=version)
                if action == "approve":
                    d = actions.approve(st, t, REVIEW_LEVELS[0], **kw)
                    done.append((t, f"approved as {d.reviewed_trace_id}"))
                else:
                    actions.reject(st, t, reason, read_log=False, **kw)  # (a secret in it was refused above)
                    done.append((t, "rejected"))
            except ForsyError as e:  # one draft's refusal never stops the others
                done.append((t, f"not done: {e.message}"))
    return render_page(s, "bulk.html", title="Done", action=action, reason=reason, rows=[], done=done)


def _edits(st: Store, trace_id: str) -> list[str]:
    """The fields a draft's edits and a model's proposals set, as the forms name them, and by whom."""
    return [f"{field_label(None, p.path)} ({p.actor if p.origin == 'human' else 'model, ' + p.actor})"
            for p in st.proposals(trace_id)]


async def rule(request: Request, s: Settings) -> Response:
    """A queue rule made from the queue page (`forsy review rule add` in a form)."""
    form = await read_form(request, s)
    if isinstance(form, Response):
        return form
    action: RuleAction = "dismiss" if form.get("action") == "dismiss" else "hide"
    new = QueueRule(form.get("name", "").strip(), form.get("task", ""), action, form.get("agent") or None)
    with open_for(s) as st:
        if action == "dismiss" and not form.get("confirm"):
            # a dismiss rule rejects drafts at once: the person sees which before it does
            return render_page(s, "rule.html", title="Dismiss drafts?", rule=new, rows=matching(st, new),
                               short=short)
        add_rule(st, new, actor=s.reviewer, now=s.clock())
        if action == "dismiss":
            dismiss_matching(st, now=s.clock())
    return (RedirectResponse("/?done=rule", status_code=303))


def _secret_reason(s: Settings, reason: str, picked: list[str]) -> Response:
    """The page of a bulk rejection refused for a secret in its reason: the reason masked (as a
    refused edit shows what was typed: the secret never on the page), the selection kept."""
    from ..review.redacted import mask_typed

    try:
        shown: str | None = mask_typed(reason, {})
    except RedactionError:  # fail closed: what cannot be masked is not shown
        shown = None
    return render_page(s, "bulk.html", 400, title="Refused", action="reject", reason=shown, rows=[], picked=picked,
                       refused="the reason holds what looks like a secret or personal data, which a page never "
                               "shows: write it without (a reason is read by every reviewer)")


def _holds_secret(text: str) -> bool:
    from ..redact import Redactor

    return Redactor().redact(text) != text


async def who_page(request: Request, s: Settings) -> Response:
    """Who is reviewing, asked once when nothing names a reviewer; kept in the config file."""
    if request.method == "POST":
        form = await read_form(request, s)
        if isinstance(form, Response):
            return form
        from ..config import remember_reviewer
        from ..review.identity import clean

        name = clean(form.get("name", ""))  # the same checks as --reviewer
        if not name:
            raise InputError("a reviewer's name is needed ('Name <email>')")
        kept = remember_reviewer(name)
        s.reviewer = name
        return (RedirectResponse(f"/?done=who&kept={quote(str(kept))}", status_code=303))
    return render_page(s, "who.html", title="Who is reviewing?")


def make_app(settings: Settings) -> Starlette:
    def r(path: str, h: Handler, methods: list[str] | None = None, *, needs_reviewer: bool = True) -> Route:
        return Route(path, guard(settings, h, needs_reviewer=needs_reviewer), methods=methods or ["GET"])

    return Starlette(routes=[
        r("/", queue), r("/audit", audit), r("/static/{name}", static, needs_reviewer=False),
        r("/t/{tid}", draft), r("/t/{tid}/s/{n:int}", step), r("/t/{tid}/approve", approve_page),
        r("/t/{tid}/edits", edits_page), r("/t/{tid}/judgement", judgement_page),
        r("/t/{tid}/{action}", act, ["POST"]), r("/who", who_page, ["GET", "POST"], needs_reviewer=False),
        r("/bulk", bulk, ["POST"]), r("/rules", rule, ["POST"]),
    ], middleware=[Middleware(SecurityHeaders), Middleware(HostCheck, settings=settings)])
