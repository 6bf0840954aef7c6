"""`forsy retrace`: agent logs (and shell history, git) into Forsy trace folders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from ..errors import ForsyError
from ._output import STATE, err, friendly, safe


@friendly
def retrace(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Session logs: a file, a session directory, or a project directory (each session → one trace).",
        show_default=False)] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output",
        help="Trace folder (one session) or parent folder (several). Default: ./forsy-traces/<session>.")] = None,
    history: Annotated[list[Path] | None, typer.Option("--history",
        help="Shell history file to merge into the timeline (bash, zsh, fish, atuin).")] = None,
    git: Annotated[Path | None, typer.Option("--git", help="Git repository whose commits join the timeline.")] = None,
    since: Annotated[str | None, typer.Option(help="Start of the time window (ISO 8601) for history/git.")] = None,
    until: Annotated[str | None, typer.Option(help="End of the time window (ISO 8601) for history/git.")] = None,
    no_redact: Annotated[bool, typer.Option("--no-redact",
        help="Do NOT mask secrets and personal data (the trace is marked private).")] = False,
    llm: Annotated[str | None, typer.Option(
        "--llm", help="litellm model for cited proposals (needs forsy[llm]).")] = None,
    llm_api_base: Annotated[str | None, typer.Option("--llm-api-base",
        help="Base URL of an OpenAI-compatible server (vLLM, llama.cpp, Ollama).")] = None,
) -> None:
    """Retrace agent logs into Forsy trace folders (trace.json, manifest.json, provenance.json, README.md)."""
    from ..pipeline import RetraceOptions, one_trace_expected
    from ..pipeline import retrace as run
    from ..sinks import FolderSink

    if not paths and not history and not git:
        raise ForsyError("give a session log, or --history/--git for a trace without an agent log")
    if no_redact:
        err.print("[bold red]forsy: WARNING: redaction is OFF (--no-redact). The trace may contain secrets "
                  "and personal data; it is marked release tier 'private'.[/]")
    opts = RetraceOptions(redact=not no_redact, history=list(history or []), git=git, since=since,
                          until=until, debug=STATE["debug"], llm_model=llm, llm_api_base=llm_api_base)
    given = list(paths or [])
    sink = FolderSink(output or Path("forsy-traces"), parent=output is None or not one_trace_expected(given))
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task("retracing", total=None)

        def tick(label: str, done: int, total: int) -> None:
            bar.update(task, description=f"retraced {label}", completed=done, total=total)

        run_ = run(given, opts, sink=sink, keep=False, progress=tick)
    for r in run_.results:
        typer.echo(f"{r.where}: {r.steps} steps, {r.turns} turns, confidence {r.confidence}, "
                   f"{len(r.warnings)} warning(s)")
        for w in r.warnings[:5]:
            where = f"{w.file}:{w.line}: " if w.file and w.line else (f"{w.file}: " if w.file else "")
            typer.echo(f"  warning: {safe(where + w.message)}", err=True)
        if len(r.warnings) > 5:
            typer.echo(f"  … {len(r.warnings) - 5} more in {r.where}/manifest.json", err=True)
    for sk in run_.skipped:
        typer.echo(f"forsy: {sk.status}: {safe(sk.path)}: {safe(sk.message)}", err=True)
    if run_.skipped:
        typer.echo(f"forsy: {len(run_.results)} written, {len(run_.skipped) - len(run_.failed)} skipped, "
                   f"{len(run_.failed)} failed", err=True)
    if run_.exit_code:
        raise typer.Exit(run_.exit_code)
