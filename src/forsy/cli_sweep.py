"""The `forsy sweep` and `forsy store …` commands (registered on the main app by `register`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from .errors import InputError

if TYPE_CHECKING:
    from .store import Store

store_app = typer.Typer(name="store", help="Look into the store of draft traces; export a trace as a folder.",
                        no_args_is_help=True)

StoreOpt = Annotated[str | None, typer.Option("--store", help="Store URL (sqlite:///path/to.db). "
                                              "Default: FORSY_STORE, the config file, else the data folder.")]


def _store_url(flag: str | None, config: Path | None = None) -> str:
    from .config import default_store_url, load_config

    return flag or load_config(config).store or default_store_url()


def _emit_json(data: object) -> None:
    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")


def sweep_cmd(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Log roots to sweep. Default: the agents' log folders on this machine (~/.claude/projects, "
             "~/.codex/sessions) and the roots of the config file.", show_default=False)] = None,
    store: StoreOpt = None,
    now: Annotated[bool, typer.Option("--now", help="Do not wait for the settle window (files modified "
                                      "within the last N seconds are traced too).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object (counts, failures).")] = False,
    status: Annotated[bool, typer.Option("--status", help="Show the last runs and current failures.")] = False,
    print_cron: Annotated[bool, typer.Option("--print-cron", help="Print a crontab line (installs nothing).")] = False,
    print_systemd: Annotated[bool, typer.Option(
        "--print-systemd", help="Print a systemd user service + timer (installs nothing).")] = False,
    config: Annotated[Path | None, typer.Option("--config", help="Config file (TOML). Default: FORSY_CONFIG, "
                                                "else config.toml in the platform config folder.")] = None,
    settle: Annotated[float | None, typer.Option("--settle", help="Settle window in seconds (default 120).")] = None,
    history: Annotated[list[Path] | None, typer.Option("--history", help="Shell history to merge.")] = None,
    git: Annotated[Path | None, typer.Option("--git", help="Git repository whose commits join the timeline.")] = None,
    no_redact: Annotated[bool, typer.Option("--no-redact", help="Do NOT mask secrets (marked private).")] = False,
    llm: Annotated[str | None, typer.Option("--llm", help="litellm model for cited proposals.")] = None,
    jobs: Annotated[int | None, typer.Option("-j", "--jobs", envvar="FORSY_JOBS", min=1,
        help="Processes retracing session files at once. Default: the number of CPUs when the files to "
             "trace add up to 4 MB or more, else 1. The store ends up the same whatever the number; the "
             "model pass (--llm) runs in one.",
        show_default=False)] = None,
) -> None:
    """Sweep agent log folders into the store of draft traces, incrementally (for cron)."""
    from .cli import STATE, _safe
    from .config import default_log_roots, load_config
    from .pipeline import RetraceOptions
    from .store import open_store
    from .sweep import SweepOptions, sweep
    from .sweep.schedule import cron_line, systemd_units

    cfg = load_config(config).with_flags(store=store, settle_seconds=settle, histories=list(history or []),
                                         git=git, llm_model=llm, redact=False if no_redact else None)
    if print_cron or print_systemd:
        typer.echo(cron_line(cfg.store) if print_cron else systemd_units(cfg.store))
        return
    st = open_store(cfg.store)
    try:
        if status:
            _status(st, as_json)
            return
        roots = list(paths or [])
        if not roots:
            roots = [r for r in [*default_log_roots(), *cfg.roots] if r.exists()]
            if not roots:
                raise InputError("no agent log folder found (~/.claude/projects, ~/.codex/sessions); "
                                 "give a path, or add roots to the config file")
        for r in roots:
            if not r.exists():
                raise InputError("no such file or directory", path=r)
        opts = SweepOptions(roots=roots, settle_seconds=cfg.settle_seconds, ignore_settle=now,
                            retrace=RetraceOptions(redact=cfg.redact, history=cfg.histories, git=cfg.git,
                                                   llm_model=cfg.llm_model, llm_api_base=cfg.llm_api_base,
                                                   debug=STATE["debug"], jobs=jobs or 0))
        report = sweep(st, opts)
    finally:
        st.close()
    if as_json:
        _emit_json(report.to_json())
    elif report.locked_by is not None:
        h = report.locked_by
        typer.echo(f"forsy: another sweep holds the store (pid {h.pid} on {h.host}, since {h.since}); "
                   "nothing done", err=True)
    else:
        c = report.counts
        typer.echo(f"swept {len(report.roots)} root(s) in {report.duration_s:.2f} s: {c.seen} session file(s), "
                   f"{c.unchanged} unchanged, {c.new} new, {c.grown} grown, {c.rewritten} rewritten, {c.gone} gone, "
                   f"{c.waiting} waiting, {c.failed} failed; {c.traces_written} draft(s) written")
        for e in report.failures:
            typer.echo(f"forsy: failed: {_safe(e.path)}: {_safe(e.message)}", err=True)
        for p, why in report.waiting:
            typer.echo(f"forsy: waiting: {_safe(p)}: {why}", err=True)
    for w in report.warnings if not as_json else []:
        typer.echo(f"forsy: warning: {_safe(w)}", err=True)
    if report.exit_code:
        raise typer.Exit(report.exit_code)


def _status(s: Store, as_json: bool) -> None:
    runs = s.runs(10)
    fails = s.failures()
    holder = s.lock_holder()
    if as_json:
        _emit_json({"store": s.url, "locked_by": vars(holder) if holder else None,
                    "runs": [{**{k: v for k, v in vars(r).items() if k != "counts"}, "counts": vars(r.counts)}
                             for r in runs],
                    "failures": [{"path": f.path, "error": f.last_error, "since": f.updated_at} for f in fails]})
        return
    typer.echo(f"store: {s.url}")
    if holder:
        typer.echo(f"sweeping now: pid {holder.pid} on {holder.host}, since {holder.since}")
    for r in runs:
        c = r.counts
        dur = f"{r.duration_s:.2f} s" if r.duration_s is not None else "-"
        typer.echo(f"run {r.id} {r.started_at} {r.status:11} {dur:>9}  seen {c.seen}, unchanged {c.unchanged}, "
                   f"new {c.new}, grown {c.grown}, rewritten {c.rewritten}, gone {c.gone}, failed {c.failed}, "
                   f"drafts {c.traces_written}, {c.bytes_read} bytes read")
    if not runs:
        typer.echo("no sweep has run yet")
    for f in fails:
        typer.echo(f"FAILING {f.path}: {f.last_error}")


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
    from .store import DRAFT_STATUSES, TraceQuery, open_store

    if status is not None and status not in DRAFT_STATUSES:
        raise InputError(f"unknown status {status!r}; known: {', '.join(DRAFT_STATUSES)}")
    st = open_store(_store_url(store), create=False)
    try:
        rows = st.traces(TraceQuery(agent=agent, project=project, status=status, text=search,
                                    min_confidence=min_confidence, latest_only=latest))
    finally:
        st.close()
    for r in rows:
        if as_json:
            sys.stdout.write(orjson.dumps({k: v for k, v in vars(r).items() if k != "sha256"}).decode() + "\n")
        else:
            typer.echo(f"{r.trace_id}  {r.status:13} {r.agent or '-':12} {r.project or '-':20} "
                       f"{(r.started_at or '-')[:19]:19} conf {r.confidence}  {r.steps} steps"
                       + ("  [source gone]" if r.source_gone else ""))


@store_app.command("export")
def store_export(
    trace_id: Annotated[str, typer.Argument(help="The trace id (see `forsy store list`).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="The trace folder to write.")],
    store: StoreOpt = None,
) -> None:
    """Write a stored trace as a trace folder (trace.json, manifest.json, provenance.json, README.md)."""
    from .store import open_store
    from .store.export import export_trace

    st = open_store(_store_url(store), create=False)
    try:
        folder = export_trace(st, trace_id, output)
    finally:
        st.close()
    typer.echo(str(folder))


def register(app: typer.Typer) -> None:
    from .cli import _friendly

    app.command("sweep")(_friendly(sweep_cmd))
    for cmd in store_app.registered_commands:
        if cmd.callback is not None:
            cmd.callback = _friendly(cmd.callback)
    app.add_typer(store_app, name="store")


__all__ = ["register"]
