"""`forsy store …`: look into the store of draft traces, export one as a folder, bring a store's
schema up to date, copy a store into another (a local one into a team's)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import orjson
import typer

from ..errors import ExitCode, InputError
from ._output import StoreOpt, emit_json_line, now_iso, path_arg, say, store_url

store_app = typer.Typer(name="store", help="The store of draft traces: list, export a trace as a folder, migrate, "
                        "copy.", no_args_is_help=True)


@store_app.command("list")
def store_list(
    store: StoreOpt = None,
    agent: Annotated[str | None, typer.Option(help="Only this agent (claude-code, codex-cli, …).")] = None,
    project: Annotated[str | None, typer.Option(help="Only this project (folder name).")] = None,
    status: Annotated[str | None, typer.Option(help="pending, approved, rejected or needs_changes.")] = None,
    search: Annotated[str | None, typer.Option(help="Words that must occur in a prompt or tool input.")] = None,
    min_confidence: Annotated[int | None, typer.Option("--min-confidence")] = None,
    latest: Annotated[bool, typer.Option("--latest", help="Only the newest draft of each session.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """List the stored traces and their draft status."""
    from ..store import DRAFT_STATUSES, TraceQuery, every_trace, open_store

    if status is not None and status not in DRAFT_STATUSES:
        raise InputError(f"unknown status {status!r}; known: {', '.join(DRAFT_STATUSES)}")
    st = open_store(store_url(store), readonly=True)
    try:
        rows = every_trace(st, TraceQuery(agent=agent, project=project, status=status, text=search,
                                          min_confidence=min_confidence, latest_only=latest))
    finally:
        st.close()
    for r in rows:
        if as_json:
            emit_json_line({k: v for k, v in vars(r).items() if k != "sha256"})
        else:
            typer.echo(f"{r.trace_id}  {r.status:13} {r.agent or '-':12} {r.project or '-':20} "
                       f"{(r.started_at or '-')[:19]:19} conf {r.confidence}  {r.steps} steps"
                       + ("  [source gone]" if r.source_gone else ""))


@store_app.command("export")
def store_export(
    trace_id: Annotated[str, typer.Argument(help="The trace id (see `forsy store list`).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="The trace folder to write.", parser=path_arg)],
    store: StoreOpt = None,
) -> None:
    """Write a stored trace as a trace folder (trace.json, manifest.json, provenance.json, README.md)."""
    from ..store import open_store
    from ..store.export import export_trace

    st = open_store(store_url(store), readonly=True)
    try:
        folder = export_trace(st, trace_id, output)
    finally:
        st.close()
    typer.echo(str(folder))


@store_app.command("migrate")
def store_migrate(
    store: StoreOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as one JSON object.")] = False,
) -> None:
    """Create the store or bring its schema up to date; names the migrations this run applied."""
    from ..store import open_store

    url = store_url(store)
    st = open_store(url)  # opening applies what is missing, under a lock (several at once: one does it)
    try:
        applied: list[str] = list(getattr(st, "applied_on_open", []))
        total = len(st.migrations()) if hasattr(st, "migrations") else 0
    finally:
        st.close()
    if as_json:
        emit_json_line({"ok": True, "store": st.url, "applied": applied, "migrations": total})
    elif applied:
        say(f"{st.url}: applied {len(applied)} of {total} migrations ({', '.join(applied)}); schema up to date")
    else:
        say(f"{st.url}: schema up to date ({total} migrations, none to apply)")


@store_app.command("copy")
def store_copy(
    src: Annotated[str, typer.Option("--from", help="The store to copy from (sqlite:///path.db).")],
    dst: Annotated[str, typer.Option("--to", help="The store to copy into (postgresql://…).")],
    ship_evidence: Annotated[bool, typer.Option(
        "--ship-evidence", help="Also copy the redacted log records each trace cites (read from the logs "
                                "on this machine). Off: only redacted traces, manifests and provenance.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
) -> None:
    """Copy every trace of one store into another (idempotent: run it twice, nothing doubles)."""
    from ..store import open_store
    from ..store.copy import check_copyable, copy_store

    a = open_store(src, create=False)
    try:
        b = open_store(dst)
        try:
            check_copyable(a, b)
            rep = copy_store(a, b, now_iso(), ship_evidence=ship_evidence)
        finally:
            b.close()
    finally:
        a.close()
    # something not copied (each listed) makes a partial copy, for a script from cron too
    code = ExitCode.PARTIAL if rep.not_copied else ExitCode.OK
    if as_json:
        sys.stdout.write(orjson.dumps(vars(rep), option=orjson.OPT_INDENT_2).decode() + "\n")
        raise typer.Exit(code)
    say(f"copied {rep.copied} trace(s), {rep.already} already there"
        + (f", {rep.evidence_shipped} evidence record(s) shipped" if ship_evidence else ""))
    say(f"review histories: {rep.reviews_copied} carried ({rep.proposals_copied} proposal(s), "
        f"{rep.audit_copied} audit record(s), {rep.status_set} draft status(es) set), "
        f"{rep.reviews_already} already there")
    for m in rep.evidence_missing:
        typer.echo(f"forsy: evidence not shipped: {m}", err=True)
    for m in rep.not_copied:
        typer.echo(f"forsy: not copied: {m}", err=True)
    raise typer.Exit(code)



__all__ = ["store_app"]
