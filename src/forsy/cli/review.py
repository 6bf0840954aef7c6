"""`forsy show`, `forsy render` and `forsy review …`: read a trace, review the store's drafts."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from ..errors import InputError
from ._output import StoreOpt, now_iso, path_arg, say, store_url

if TYPE_CHECKING:
    from rich.console import Console

    from ..review.actions import Done
    from ..review.source import LoadedTrace
    from ..store import Store

review_app = typer.Typer(name="review", no_args_is_help=True,
                         help="The review queue: list drafts, read them against their evidence, edit, approve, reject.")

LogsOpt = Annotated[list[Path] | None, typer.Option("--logs", help="Where the logs are (to show each step's "
                                                    "evidence); a stored trace knows its session's folder.",
                                                    parser=path_arg)]
ReviewerOpt = Annotated[str | None, typer.Option("--reviewer", help="Who is reviewing ('Name <email>'). "
                                                 "Default: FORSY_REVIEWER, else git config user.name/email.")]
VersionOpt = Annotated[int | None, typer.Option("--expect-version", help="The draft's version the action was "
                                                "decided on (see `forsy review show`): an approval, rejection or "
                                                "note is refused if another reviewer acted since; an edit, if its "
                                                "field was set or the draft decided since. Without it an edit is "
                                                "saved on the draft as it is then.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON Lines.")]
SHOWN_CHARS = 2000  # of a log record, under a step (the rest is said, not dropped)
IdArg = Annotated[str, typer.Argument(help="The draft's trace id (see `forsy review list`).")]


def _line(data: object) -> None:
    sys.stdout.write(orjson.dumps(data).decode() + "\n")


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


# ---------------------------------------------------------------- show / render


def _t(text: object) -> str:
    """Log text for the terminal: control characters shown, rich markup not interpreted."""
    from rich.markup import escape

    from ._output import safe

    return "\n".join(escape(safe(line)) for line in ("" if text is None else str(text)).split("\n"))


def print_trace(d: LoadedTrace, step: int | None, con: Console, *, raw: bool = False) -> None:
    from ..review.evidence import EvidenceReader
    from ..review.view import extras, header, rows, short, step_view
    from ._output import safe

    if step is not None:
        if not 1 <= step <= len(d.steps):
            raise InputError(f"no step {step}: the trace has {len(d.steps)} steps")
        v = step_view(d, step, EvidenceReader(d, raw=raw), cap=None)
        con.print(f"[bold]step {step} of {len(d.steps)}[/] · {_t(v.row.actor)} · {_t(v.row.what)}")
        for f in v.fields:
            if f.value == "":
                continue
            verdict = f" · {_t(f.verdict)}" if f.verdict else ""
            con.print(f"[bold cyan]{f.name}[/] [dim]({_t(f.origin)}{verdict})[/]")
            con.print(_t(f.value))
        ev = v.evidence
        if ev is not None:
            con.print("[bold]evidence[/]" + (f" [yellow]{_t(ev.log_note)}[/]" if ev.log_note else ""))
            for rec in ev.records:
                con.print(f"  {rec.id} {_t(rec.source)}:{rec.line} bytes {rec.byte_offset}+{rec.byte_length} "
                          f"{_t(rec.record_type or '')} cited by {', '.join(rec.fields) or '-'}")
                if rec.text is None:
                    con.print(f"    [yellow]{_t(rec.note)}[/]")
                    continue
                con.print("    " + _t(rec.text[:SHOWN_CHARS]))
                if len(rec.text) > SHOWN_CHARS:
                    con.print(f"    [yellow]… {len(rec.text) - SHOWN_CHARS} more character(s) of this record "
                              "(forsy render writes it whole)[/]")
        return
    h = header(d)
    con.print(f"[bold]{_t(h.trace_id)}[/]" + (f" (prior {_t(h.prior_trace_id)})" if h.prior_trace_id else ""))
    con.print(f"task: {_t(h.task)}")
    con.print(f"agent {_t(h.agent)} · model {_t(h.model)} · {_t(h.started_at)} → {_t(h.ended_at)}")
    con.print(f"tokens: {_t(h.tokens)}")
    con.print(f"confidence {_t(h.confidence)}: " + "; ".join(_t(f) for f in h.factors))
    con.print(f"validation level {_t(h.validation_level)} · {h.steps} steps · {h.turns} turns"
              + (f" · review: {h.status} (version {h.version})" if h.status else "")
              + (f" · reviewed as {h.reviewed_as}" if h.reviewed_as else ""))
    if h.replaced_by:
        con.print(f"[yellow]replaced by {h.replaced_by}, traced again when its log changed: review that one[/]")
    if h.decided:
        con.print(f"[yellow]{_t(h.decided)}[/]")
    if h.earlier_work:
        con.print("[yellow]earlier drafts of this session were worked on; none of it was carried over to this "
                  "draft:[/]")
        for tid, what in h.earlier_work:
            con.print(f"  {tid}: {_t(what)}")
    from ..review.conversation import Subagent, conversation, gist, marked

    # one line a step, whatever the terminal's width: what it did, cut to fit (--step N shows it whole)
    blocks = conversation(d)
    entries = {e.step: e for b in blocks for e in (b.entries if isinstance(b, Subagent) else [b])}
    about_width = max(10, con.width - 44)
    con.print(f"[bold]{'#':>4} {'time':8} {'who':10} {'what':12} {'ok':4} about[/]")
    for r in rows(d):
        e = entries.get(r.step)
        # what the trace marks on a step leads its line: a reader must not take it as plain work
        marks = "".join(f"({m.label}) " for m in e.marks) if e else ""
        about = short(marks + safe(gist(e) if e else r.input), about_width)
        rejected = e is not None and e.marked("rejected")
        ok = "REJ" if rejected else {"yes": "ok", "no": "FAIL"}.get(r.success, "")
        line = f"{r.step:>4} {r.time:8} {short(safe(r.actor), 10):10} {short(safe(r.what), 12):12} {ok:4} {about}"
        style = "yellow" if rejected else "red" if r.failed else "dim" if e is not None and e.marked("abandoned") \
            else None
        con.print(_t(line), style=style, no_wrap=True, overflow="ellipsis")
    ex = extras(d)
    if ex.failed:
        con.print("failed steps: " + ", ".join(f"{r.step} ({_t(r.what)})" for r in ex.failed))
    for _, label, at in marked(blocks):
        con.print(f"{label}: steps " + ", ".join(map(str, at)))
    for path, kind, steps in ex.files:
        con.print(f"file {kind}: {_t(path)} (steps {steps})")
    if ex.subagents:
        con.print("subagents: " + ", ".join(_t(s) for s in ex.subagents))


def show_cmd(
    trace: Annotated[str, typer.Argument(help="A trace folder, its trace.json, or a stored trace id.")],
    step: Annotated[int | None, typer.Option("--step", help="Show this step whole, with provenance and evidence.")]
    = None,
    store: StoreOpt = None,
    logs: LogsOpt = None,
    raw_evidence: Annotated[bool, typer.Option("--raw-evidence", help="With --step: show the log records as "
                                               "they are, unredacted (secrets and personal data included).")]
    = False,
) -> None:
    """Read a trace in the terminal: header, steps, failures, files; --step N for one step whole.
    Log records are shown masked with the trace's own placeholders."""
    from ..review.source import load

    if raw_evidence:
        sys.stderr.write("forsy: WARNING: --raw-evidence shows the log records unredacted: secrets and personal "
                         "data in them are printed as they are\n")
    print_trace(load(trace, store_url(store), logs), step, _console(), raw=raw_evidence)


def render_cmd(
    trace: Annotated[str, typer.Argument(help="A trace folder, its trace.json, or a stored trace id.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="The page to write: .html or .md.", parser=path_arg)],
    store: StoreOpt = None,
    logs: LogsOpt = None,
) -> None:
    """Write a trace as one self-contained page (HTML opens offline from file://, or Markdown)."""
    from ..review.source import load
    from ..web.render import html_parts, markdown_parts, write_page

    suffix = output.suffix.lower()
    if suffix not in (".html", ".htm", ".md"):
        raise InputError("the page is .html or .md", path=output)
    d = load(trace, store_url(store), logs)
    write_page(output, markdown_parts(d) if suffix == ".md" else html_parts(d))
    typer.echo(str(output))


# ---------------------------------------------------------------- review


def _open(store: str | None) -> Store:
    from ..store import open_store

    return open_store(store_url(store), create=False)


@review_app.command("list")
def review_list(
    store: StoreOpt = None,
    agent: Annotated[str | None, typer.Option(help="Only this agent (claude-code, codex-cli, …; or the source "
                                              "that read it: claude_code, codex, …).")] = None,
    project: Annotated[str | None, typer.Option(help="Only this project (folder name).")] = None,
    status: Annotated[str | None, typer.Option(help="pending, approved, rejected or needs_changes.")] = None,
    since: Annotated[str | None, typer.Option(help="Started at or after (2026-01-31, or a full ISO time).")] = None,
    until: Annotated[str | None, typer.Option(help="Started before.")] = None,
    min_confidence: Annotated[int | None, typer.Option("--min-confidence")] = None,
    max_confidence: Annotated[int | None, typer.Option("--max-confidence")] = None,
    search: Annotated[str | None, typer.Option(help="Words that must occur in a prompt or tool input.")] = None,
    every: Annotated[bool, typer.Option("--all", help="Also drafts a later draft replaced, and those a queue "
                                        "rule hides.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """The drafts to review (the newest of each session), with their status."""
    from ..store import DRAFT_STATUSES, TraceQuery, every_trace
    from ..times import time_bound

    if status is not None and status not in DRAFT_STATUSES:
        raise InputError(f"unknown status {status!r}; known: {', '.join(DRAFT_STATUSES)}")
    for flag, value in (("--since", since), ("--until", until)):
        if value is not None:
            time_bound(value, flag)
    st = _open(store)
    try:
        found = every_trace(st, TraceQuery(agent=agent, project=project, status=status, since=since, until=until,
                                           min_confidence=min_confidence, max_confidence=max_confidence,
                                           text=search, latest_only=not every, reviewed=False,
                                           hidden=None if every else False))
        states = {r.trace_id: st.draft_state(r.trace_id) for r in found}
    finally:
        st.close()
    if not found and not as_json:  # (a script reads no line as none)
        typer.echo("no drafts match" + ("" if every else " (--all: also replaced and hidden ones)"), err=True)
    for r in found:
        s = states[r.trace_id]
        if as_json:
            _line({**{k: v for k, v in vars(r).items() if k != "sha256"}, "version": s.version if s else None,
                   "reviewed_as": s.reviewed_as if s else None})
        else:
            typer.echo(f"{r.trace_id}  {r.status:13} {r.agent or '-':12} {_short(r.project or '-', 20):20} "
                       f"{(r.started_at or '-')[:19]:19} conf {r.confidence}  {r.steps} steps  {_short(r.task, 50)}")


def _short(text: str, n: int) -> str:
    from ..review.view import short
    from ._output import safe

    return safe(short(text, n))


@review_app.command("show")
def review_show(trace_id: IdArg, step: Annotated[int | None, typer.Option("--step")] = None, store: StoreOpt = None,
                logs: LogsOpt = None, as_json: JsonOpt = False) -> None:
    """A draft with its review state, edits and audit log (--step N: one step whole)."""
    from ..review.labels import Labels
    from ..review.source import from_store
    from ..review.view import value_text
    from ..store import every_audit

    st = _open(store)
    try:
        d = from_store(st, trace_id, logs)
        log = every_audit(st, trace_id)
    finally:
        st.close()
    if as_json:
        s = d.state
        _line({"trace_id": trace_id, "status": s.status if s else None, "version": s.version if s else None,
               "reviewed_as": s.reviewed_as if s else None, "review_of": s.review_of if s else None,
               "edits": [{"path": p.path, "value": p.value, "reviewer": p.actor.name, "time": p.time,
                          "replaced": p.replaces.value if p.replaces else None} for p in d.proposals]})
        return
    con = _console()
    print_trace(d, step, con)
    if step is None:
        names = Labels(d)  # each field named as the web form and the conflict messages name it
        for p in d.proposals:
            text = value_text(p.value)  # as the pages spell it: true, not Python's True
            text = "null" if text is None else text
            cut = f" ({len(text)} characters: --json gives it whole)" if len(text) > 80 else ""
            con.print(f"edit {_t(names(p.path))} ({p.path}) by {_t(p.actor.name)} at {p.time}: "
                      f"{_t(_short(text, 80))}{cut}")
        for a in log:
            con.print(f"audit {a.at} {_t(a.actor)} {a.action} {_t(_short(a.detail_json, 100))}")


def _act(store: str | None, what: str, call: Callable[[Store], Done]) -> None:
    st = _open(store)
    try:
        done = call(st)
    finally:
        st.close()
    s = done.state
    say(f"{s.trace_id}: {what}; now {s.status} (version {s.version})"
               + (f"; reviewed trace {done.reviewed_trace_id}" if done.reviewed_trace_id else ""))


@review_app.command("edit")
def review_edit(
    trace_id: IdArg,
    field: Annotated[str, typer.Option("--field", help="A step field (reasoning, output, success, eval, …) or, "
                                       "without --step, a trace field (learning, summary.goal_notes, …).")],
    value: Annotated[str, typer.Option("--value", help="The new value (true/false, -1/0/1 where typed).")],
    step: Annotated[int | None, typer.Option("--step", help="The step (from 1).")] = None,
    store: StoreOpt = None, reviewer: ReviewerOpt = None, expect_version: VersionOpt = None,
) -> None:
    """Correct one field of a draft (kept as an edit over the draft, with the old value)."""
    from ..review import actions, field_path
    from ..review.identity import reviewer as who

    me = who(reviewer)
    _act(store, f"edited {field_path(step, field)}", lambda st: actions.edit(
        st, trace_id, field_path(step, field), value, reviewer=me, at=now_iso(), expected_version=expect_version))


@review_app.command("approve")
def review_approve(
    trace_id: IdArg,
    level: Annotated[str, typer.Option("--level", help="human_reviewed, expert_reviewed or client_validated.")]
    = "human_reviewed",
    store: StoreOpt = None, reviewer: ReviewerOpt = None, expect_version: VersionOpt = None,
) -> None:
    """Approve a draft: store the reviewed trace (draft + edits, new id, prior = the draft)."""
    from ..review import actions
    from ..review.identity import reviewer as who

    me = who(reviewer)
    _act(store, f"approved as {level}", lambda st: actions.approve(
        st, trace_id, level, reviewer=me, at=now_iso(), expected_version=expect_version))


@review_app.command("reject")
def review_reject(
    trace_id: IdArg,
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the audit log).")],
    store: StoreOpt = None, reviewer: ReviewerOpt = None, expect_version: VersionOpt = None,
) -> None:
    """Reject a draft, with a reason."""
    from ..review import actions
    from ..review.identity import reviewer as who

    me = who(reviewer)
    _act(store, "rejected", lambda st: actions.reject(
        st, trace_id, reason, reviewer=me, at=now_iso(), expected_version=expect_version))


@review_app.command("needs-changes")
def review_needs_changes(
    trace_id: IdArg,
    note: Annotated[str, typer.Option("--note", help="What should change.")] = "",
    store: StoreOpt = None, reviewer: ReviewerOpt = None, expect_version: VersionOpt = None,
) -> None:
    """Mark a draft as needing changes (it stays open for edits)."""
    from ..review import actions
    from ..review.identity import reviewer as who

    me = who(reviewer)
    _act(store, "marked as needing changes", lambda st: actions.needs_changes(
        st, trace_id, note, reviewer=me, at=now_iso(), expected_version=expect_version))


@review_app.command("export")
def review_export(
    output: Annotated[Path, typer.Option("-o", "--output", help="The folder to write (one folder per trace, "
                                         "and index.jsonl).", parser=path_arg)],
    status: Annotated[str, typer.Option("--status", help="Only 'approved' traces are published.")] = "approved",
    agent: Annotated[str | None, typer.Option(help="Only this agent.")] = None,
    project: Annotated[str | None, typer.Option(help="Only this project.")] = None,
    store: StoreOpt = None, as_json: JsonOpt = False,
) -> None:
    """Write the approved (reviewed) traces as trace folders plus one JSON Lines index."""
    from ..review.export import INDEX, export_approved

    if status != "approved":
        raise InputError("only approved traces are exported (--status approved)")
    st = _open(store)
    skipped: list[tuple[str, str]] = []
    try:
        done = export_approved(st, output, agent=agent, project=project, skipped=skipped)
    finally:
        st.close()
    from ..errors import ExitCode
    from ._output import safe

    for tid, why in skipped:  # an error each: left out of the folder and the index
        typer.echo(f"forsy: skipped: {tid}: {safe(why)}", err=True)
    for e in done:
        if as_json:
            _line({"trace_id": e.trace_id, "folder": str(e.folder), "written": e.written})
    if not as_json:
        left = f"; {len(skipped)} left out (above)" if skipped else ""  # approved too, but not written
        say(f"{len(done)} approved trace(s) in {output} ({sum(e.written for e in done)} written{left}); "
            f"index {output / INDEX}")
    if skipped:
        raise typer.Exit(ExitCode.PARTIAL)


@review_app.command("audit")
def review_audit(
    trace_id: Annotated[str | None, typer.Argument(help="Only this trace's records.")] = None,
    store: StoreOpt = None, as_json: JsonOpt = False,
) -> None:
    """The audit log: who did what to which draft, when, with the trace hashes before and after."""
    from ..store import every_audit

    st = _open(store)
    try:
        log = every_audit(st, trace_id)
    finally:
        st.close()
    for a in log:
        if as_json:
            _line({**vars(a), "detail": orjson.loads(a.detail_json)})
        else:
            typer.echo(f"{a.id} {a.at} {_short(a.actor, 40)} {a.action} {a.trace_id or '-'} "
                       f"{(a.before_sha256 or '-')[:12]}→{(a.after_sha256 or '-')[:12]} {_short(a.detail_json, 80)}")


@review_app.command("serve")
def review_serve(
    store: StoreOpt = None,
    port: Annotated[int, typer.Option("--port", help="Port (0: any free one).")] = 8765,
    host: Annotated[str, typer.Option("--host", help="Address to bind; not loopback needs --allow-remote "
                                      "and --token.")] = "127.0.0.1",
    allow_remote: Annotated[bool, typer.Option("--allow-remote", help="Allow a non-loopback --host.")] = False,
    token: Annotated[str | None, typer.Option("--token", envvar="FORSY_REVIEW_TOKEN",
                                              help="Use this token (32+ characters) instead of a random one.")]
    = None,
    reviewer: ReviewerOpt = None,
    reviewer_tokens: Annotated[bool, typer.Option("--reviewer-tokens", help="Team mode: each reviewer logs in "
                                                  "with their own token (`forsy review token add NAME`).")] = False,
    allow_host: Annotated[list[str] | None, typer.Option("--allow-host", help="A further name clients reach the "
                                                         "server by, with --host 0.0.0.0 (a reverse proxy's).")]
    = None,
) -> None:
    """Review in a browser: prints the URL to open (with its token) as the first line."""
    from ..review.identity import reviewer as who
    from ..web.serve import serve

    try:
        me: str | None = who(reviewer)
    except InputError:
        me = None  # team mode: each reviewer logs in with a token of their own; else the page asks, once
    url = store_url(store)
    _open(url).close()  # a store that cannot be opened is an error now, not at the first page
    serve(url, me, host=host, port=port, allow_remote=allow_remote, token=token, reviewer_tokens=reviewer_tokens,
          allow_hosts=allow_host)


token_app = typer.Typer(name="token", no_args_is_help=True,
                        help="Reviewer tokens for `forsy review serve --reviewer-tokens` (stored hashed).")


@token_app.command("add")
def token_add(name: Annotated[str, typer.Argument(help="The reviewer, e.g. 'Ada <ada@example.org>'.")],
              store: StoreOpt = None) -> None:
    """Make a login token for a reviewer; it is printed once and only its sha256 is stored."""
    from ..store.reviewers import create_reviewer_token

    st = _open(store)
    try:
        typer.echo(create_reviewer_token(st, name, now_iso()))
    finally:
        st.close()


@token_app.command("revoke")
def token_revoke(name: Annotated[str, typer.Argument(help="The reviewer whose tokens stop working.")],
                 store: StoreOpt = None) -> None:
    """Revoke every token of a reviewer."""
    from ..store.reviewers import revoke_reviewer_tokens

    st = _open(store)
    try:
        n = revoke_reviewer_tokens(st, name, now_iso())
    finally:
        st.close()
    say(f"{n} token(s) revoked")


rule_app = typer.Typer(name="rule", no_args_is_help=True,
                        help="Rules that hide or dismiss the drafts of automated sessions (kept in the store).")


@rule_app.command("add")
def rule_add(
    name: Annotated[str, typer.Argument(help="The rule's name (a word).")],
    task: Annotated[str, typer.Option("--task", help="A glob over the draft's task (its first prompt): "
                                      "'Observer session*', '*[bot]*'.")],
    agent: Annotated[str | None, typer.Option(help="Only drafts of this agent (claude-code, or its source's "
                                              "name: claude_code).")] = None,
    dismiss: Annotated[bool, typer.Option("--dismiss", help="Reject matching drafts (now and as the store "
                                          "receives them) instead of hiding them from the queue.")] = False,
    store: StoreOpt = None, reviewer: ReviewerOpt = None,
) -> None:
    """Hide (or, with --dismiss, reject) the drafts whose task matches; the sweep remembers the rule."""
    from ..review.identity import reviewer as who
    from ..store.queue_rules import QueueRule, add_rule, dismiss_matching

    me = who(reviewer)
    st = _open(store)
    try:
        add_rule(st, QueueRule(name, task, "dismiss" if dismiss else "hide", agent), actor=me, now=now_iso())
        done = dismiss_matching(st, now=now_iso()) if dismiss else []
    finally:
        st.close()
    say(f"rule {name}: " + (f"{len(done)} pending draft(s) dismissed now; new ones as they are stored"
                                   if dismiss else "matching drafts are hidden from the queue"))


@rule_app.command("list")
def rule_list(store: StoreOpt = None, as_json: JsonOpt = False) -> None:
    """The queue's rules."""
    from ..store.queue_rules import rules

    st = _open(store)
    try:
        found = rules(st)
    finally:
        st.close()
    for r in found:
        if as_json:
            _line(vars(r))
        else:
            typer.echo(f"{r.name:20} {r.action:8} {r.agent or 'any agent':12} {_short(r.pattern, 60)}")


@rule_app.command("remove")
def rule_remove(name: Annotated[str, typer.Argument(help="The rule's name.")], store: StoreOpt = None) -> None:
    """Remove a rule: what it hid shows again; what it dismissed stays rejected (audited)."""
    from ..store.queue_rules import remove_rule

    st = _open(store)
    try:
        remove_rule(st, name)
    finally:
        st.close()
    say(f"rule {name} removed")


review_app.add_typer(token_app, name="token")
review_app.add_typer(rule_app, name="rule")

__all__ = ["render_cmd", "review_app", "show_cmd"]
