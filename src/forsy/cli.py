"""The `forsy` command line: parses arguments, calls one library function, prints.

Errors become one-line messages here and only here (`_friendly`); a Python traceback is
shown only with `--debug`. Exit codes: 0 ok; 1 validation errors; 2 unusable input;
3 unsupported format; 4 redaction failure; 5 LLM failure; 6 cannot write output;
70 internal error.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import orjson
import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from . import __version__
from .errors import ExitCode, ForsyError, InputError

app = typer.Typer(
    name="forsy",
    help="Retrace AI agent logs (Claude Code, Codex, shell history, git) into honest Forsy work traces.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = Console(stderr=True, highlight=False)
F = TypeVar("F", bound=Callable[..., Any])
STATE = {"debug": False}


def _friendly(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ForsyError as e:
            if STATE["debug"]:
                raise
            typer.echo(f"forsy: error: {_safe(str(e))}", err=True)
            raise typer.Exit(e.exit_code) from None
        except (typer.Exit, typer.Abort):
            raise
        except BrokenPipeError:
            _quiet_stdout()
            raise typer.Exit(ExitCode.BROKEN_PIPE) from None
        except KeyboardInterrupt:
            typer.echo("forsy: interrupted", err=True)
            raise typer.Exit(ExitCode.INTERRUPTED) from None
        except Exception as e:  # the last line of defence: never a bare traceback
            if STATE["debug"]:
                raise
            typer.echo(f"forsy: internal error: {type(e).__name__}: {_safe(str(e))[:300]} "
                      "(run with --debug for the traceback)", err=True)
            raise typer.Exit(ExitCode.INTERNAL) from None

    return wrapper  # type: ignore[return-value]


def _safe(text: str) -> str:
    """Log text made safe for a terminal: control characters shown, not interpreted."""
    return "".join(c if c.isprintable() or c in "\t" else f"\\x{ord(c):02x}" for c in text)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"forsy {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: Annotated[bool, typer.Option("--debug", help="Show Python tracebacks on errors.")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    STATE["debug"] = debug


@app.command()
@_friendly
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
    from .pipeline import RetraceOptions, one_trace_expected
    from .pipeline import retrace as run
    from .sinks import FolderSink

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
            typer.echo(f"  warning: {_safe(where + w.message)}", err=True)
        if len(r.warnings) > 5:
            typer.echo(f"  … {len(r.warnings) - 5} more in {r.where}/manifest.json", err=True)
    for sk in run_.skipped:
        typer.echo(f"forsy: {sk.status}: {_safe(sk.path)}: {_safe(sk.message)}", err=True)
    if run_.skipped:
        typer.echo(f"forsy: {len(run_.results)} written, {len(run_.skipped) - len(run_.failed)} skipped, "
                   f"{len(run_.failed)} failed", err=True)
    if run_.exit_code:
        raise typer.Exit(run_.exit_code)


@app.command()
@_friendly
def validate(
    path: Annotated[Path, typer.Argument(help="A trace.json, or a trace folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print findings as JSON.")] = False,
) -> None:
    """Check a trace against every rule of forsy-trace-v0.1 a program can check. Exit 1 on any error."""
    from .validate import validate_path

    if not path.exists():
        raise InputError("no such file or directory", path=path)
    report = validate_path(path)
    if as_json:
        data = {"path": report.path, "legacy": report.legacy, "stats": report.stats,
                "findings": [f.__dict__ for f in report.findings]}
        sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        for f in report.findings:
            where = f"step {f.step}: " if f.step is not None else ""
            typer.echo(f"{f.severity.upper():7} {f.rule} {where}{_safe(f.message)}")
        typer.echo(f"{report.path}: {len(report.errors)} error(s), {len(report.warnings)} warning(s)"
                   + (" (legacy trace)" if report.legacy else ""))
    if report.errors:
        raise typer.Exit(ExitCode.INVALID)


@app.command()
@_friendly
def verify(
    folder: Annotated[Path, typer.Argument(help="A trace folder written by forsy retrace.")],
    logs: Annotated[list[Path], typer.Argument(help="Directories holding the source logs.")],
) -> None:
    """Re-read the source logs and check every copied value of a trace against their exact bytes."""
    from .verify import verify_folder

    rep = verify_folder(folder, logs)
    for p in rep.problems[:50]:
        typer.echo(f"MISMATCH {_safe(p)}")
    typer.echo(f"{folder}: {rep.checked} copied values checked, {len(rep.problems)} problem(s)")
    if rep.problems:
        raise typer.Exit(ExitCode.INVALID)


@app.command()
@_friendly
def schema() -> None:
    """Print the JSON Schema of trace.json, generated from forsy's models."""
    from .models import trace_json_schema

    sys.stdout.write(orjson.dumps(trace_json_schema(), option=orjson.OPT_INDENT_2).decode() + "\n")


from .cli_sweep import register as _register_sweep  # noqa: E402  (needs app and _friendly above)

_register_sweep(app)


def main() -> None:
    try:
        app()
    except BrokenPipeError:
        _quiet_stdout()
        sys.exit(ExitCode.BROKEN_PIPE)


def _quiet_stdout() -> None:
    """The reader of stdout went away (`forsy validate … | head`): not an error of ours. Stop
    quietly, and keep Python from failing again when it flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    main()
