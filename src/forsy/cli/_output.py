"""What every command shares: the one place errors become messages, terminal-safe text, JSON out.

Errors become one-line messages here and only here (`friendly`); a Python traceback is shown
only with `--debug`. The exit codes are `errors.ExitCode`.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import orjson
import typer
from rich.console import Console

from ..errors import ExitCode, ForsyError

if TYPE_CHECKING:
    from ..validation import Finding, Report

err = Console(stderr=True, highlight=False)
F = TypeVar("F", bound=Callable[..., Any])
STATE = {"debug": False, "quiet": False}


def quiet() -> bool:
    """`--quiet` (or FORSY_QUIET) was given: print errors only."""
    return bool(STATE["quiet"])


def say(text: str, *, err: bool = False) -> None:
    """A summary, confirmation or note line: not printed under --quiet (errors always are;
    what a command was asked to show, its data or its --json, is printed with typer.echo)."""
    if not STATE["quiet"]:
        typer.echo(text, err=err)

# `--debug` is accepted before the command (`forsy --debug retrace …`) and after it
# (`forsy retrace … --debug`), as the error messages say "run with --debug".
DebugOpt = Annotated[bool, typer.Option("--debug", envvar="FORSY_DEBUG",
                                        help="Show Python tracebacks on errors.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object per line (JSON Lines), one per item "
                                                    "listed (a trace, a session, a draft).")]
StoreOpt = Annotated[str | None, typer.Option("--store", help="Store URL (sqlite:///path/to.db). "
                                              "Default: FORSY_STORE, the config file, else the data folder.")]


def path_arg(value: str) -> Path:
    """A path given on the command line; an empty one is refused, not read as the current
    folder (`forsy retrace "$LOG"` with LOG unset would retrace the folder it runs in)."""
    if value == "":
        raise typer.BadParameter("an empty path (an unset shell variable?)")
    return Path(value)


def store_url(flag: str | None, config: Path | None = None) -> str:
    """The store a command works on: `--store`, else FORSY_STORE or the config file's, else the
    default one in the data folder."""
    from ..config import default_store_url, load_config

    return flag or load_config(config).store or default_store_url()


def now_iso() -> str:
    """The time an action is recorded at (review, store copy, jobs): UTC, to the second."""
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds")


_SURROGATE = re.compile("[\udc80-\udcff]")


def emit_json_line(data: object) -> None:
    """One JSON object on one line (a cron log is read line by line). A file name that is not
    UTF-8 keeps its bytes as `\\udcXX` escapes, which `json.loads` and `os.fsencode` turn back
    into the name."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    sys.stdout.write(_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


@contextmanager
def json_outcome(on: bool) -> Iterator[None]:
    """With `--json`, a command that ends on an error still ends stdout with one JSON object
    saying so, as its own output would have: `{"ok": false, "exit_code": N, "error": {"code":
    N, "message": …, "path": …}}` (`path` null when the error has no place). A script reading
    the last line then always reads the outcome, not nothing. The error goes on to `friendly`,
    which says it on stderr and exits with the same code as without `--json`."""
    if not on:
        yield
        return
    try:
        yield
    except ForsyError as e:
        emit_json_line(json_error(e.exit_code, e.message, e.path))
        raise
    except KeyboardInterrupt:
        emit_json_line(json_error(ExitCode.INTERRUPTED, "interrupted (Ctrl-C or SIGTERM)"))
        raise
    except (typer.Exit, typer.Abort, BrokenPipeError):  # an exit the command chose; a reader gone
        raise
    except Exception as e:
        emit_json_line(json_error(ExitCode.INTERNAL, internal_error_text(e)))
        raise


def json_error(code: int, message: str, path: str | None = None) -> dict[str, object]:
    return {"ok": False, "exit_code": int(code), "error": {"code": int(code), "message": message, "path": path}}


def internal_error_text(e: Exception) -> str:
    return f"internal error: {type(e).__name__}: {safe(str(e))[:300]} (run with --debug for the traceback)"


def set_debug(debug: bool) -> bool:
    STATE["debug"] = STATE["debug"] or debug
    return STATE["debug"]


QuietOpt = Annotated[bool, typer.Option("-q", "--quiet", envvar="FORSY_QUIET",
                                        help="Print only errors (no progress, no summary).")]


def friendly(fn: F) -> F:
    """A command whose errors become one-line messages with their exit code, and which takes
    `--debug` and `--quiet` wherever it is (added here when the command does not declare them:
    every command takes both, in one place)."""
    sig = inspect.signature(fn, eval_str=True)
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=False, annotation=opt)
             for name, opt in (("debug", DebugOpt), ("quiet", QuietOpt)) if name not in sig.parameters]

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for p in added:
            on = bool(kwargs.pop(p.name, False))
            if p.name == "debug":
                set_debug(on)
            else:
                STATE["quiet"] = STATE["quiet"] or on
        try:
            return fn(*args, **kwargs)
        except ForsyError as e:
            if STATE["debug"]:
                raise
            typer.echo(error_line(e), err=True)
            raise typer.Exit(e.exit_code) from None
        except (typer.Exit, typer.Abort):
            raise
        except BrokenPipeError:
            quiet_stdout()
            raise typer.Exit(ExitCode.BROKEN_PIPE) from None
        except KeyboardInterrupt:
            typer.echo("forsy: interrupted", err=True)
            raise typer.Exit(ExitCode.INTERRUPTED) from None
        except Exception as e:  # the last line of defence: never a bare traceback
            if STATE["debug"]:
                raise
            typer.echo(f"forsy: {internal_error_text(e)}", err=True)
            raise typer.Exit(ExitCode.INTERNAL) from None

    wrapper.__signature__ = sig.replace(parameters=[*sig.parameters.values(), *added])  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def flowing_help(command: Any) -> None:
    """Each paragraph of the help of `command` (a click command or group, recursively) as one
    line, for the terminal to wrap: help shows a docstring's own line breaks, so a paragraph
    wrapped for the source came out ragged on a narrower terminal. A paragraph led by click's
    `\\b` (keep as written) is left as it is."""
    import inspect

    for sub in getattr(command, "commands", {}).values():
        flowing_help(sub)
    if command.help:
        paragraphs = inspect.cleandoc(command.help).split("\n\n")
        command.help = "\n\n".join(p if p.startswith("\b") else " ".join(p.split("\n")) for p in paragraphs)


# what help shows for a value of each Python type: a word a person reads, never `<list[Path]>`
_METAVARS = {"str": "TEXT", "int": "N", "float": "NUMBER", "Path": "PATH", "path": "PATH", "datetime": "TIME"}


def plain_metavars(command: Any) -> None:
    """Give every option and argument of `command` (a click command or group, recursively) that
    has no metavar of its own a plain one: TEXT, N, PATH, PATH... for several."""
    import click

    for sub in getattr(command, "commands", {}).values():
        plain_metavars(sub)
    made = command.get_help_option  # made anew for each run: its flag shows no type either

    def help_option(ctx: click.Context) -> Any:
        opt = made(ctx)
        if opt is not None:
            opt.metavar = ""
        return opt

    command.get_help_option = help_option
    for p in getattr(command, "params", []):
        if getattr(p, "param_type_name", "") == "argument" and hasattr(p, "display_type"):
            p.display_type_rich = lambda ctx: None  # its name says what it is: TRACE, PATHS...
            if p.metavar is None:
                p.metavar = str(p.name).upper() + ("..." if p.nargs != 1 else "")
            # the usage line as click writes it (`SOURCES...`, `[PATHS...]`), not typer's
            # `{SOURCES...}...` (braces for required, and a second ellipsis after the metavar's)
            p._usage_display_name = (lambda m=p.metavar, req=p.required: m if req else f"[{m}]")
        if p.metavar is not None or not hasattr(p, "display_type"):
            continue
        if getattr(p, "is_flag", False):
            p.metavar = ""  # a flag takes no value: nothing to show
            continue
        shown = str(p.display_type(click.Context(command))).strip("<>")
        several = shown.startswith("list[") or p.nargs != 1
        base = shown.removeprefix("list[").removesuffix("]")
        word = _METAVARS.get(base, "true|false" if base == "bool" else base.upper() if "|" in base else "TEXT")
        p.metavar = word + ("..." if several else "")


def error_line(e: ForsyError) -> str:
    return f"forsy: error: {safe(str(e))}"


def safe(text: str) -> str:
    """Log text made safe for a terminal: control characters shown, not interpreted."""
    return "".join(c if c.isprintable() or c in "\t" else f"\\x{ord(c):02x}" for c in text)


def emit_json(data: object, *, indent: bool = True) -> None:
    opt = orjson.OPT_INDENT_2 if indent else 0
    sys.stdout.write(orjson.dumps(data, option=opt).decode() + "\n")


def quiet_stdout() -> None:
    """The reader of stdout went away (`forsy validate … | head`): not an error of ours. Stop
    quietly, and keep Python from failing again when it flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


# --- one vocabulary for what retrace and validate report about a trace -----------------------
#
# "error(s)" and "warning(s)" are the findings of `forsy validate` (rule ids in
# docs/validation.md); "reading warning(s)" are problems met while reading the log, listed in
# manifest.json. `retrace` validates each folder it writes, so both commands print the same
# three counts for the same trace.


@dataclass(frozen=True)
class TraceCheck:
    errors: list[str]
    warnings: list[str]
    reading_warnings: list[str]

    def counts(self) -> str:
        return (f"{len(self.errors)} error(s), {len(self.warnings)} warning(s), "
                f"{len(self.reading_warnings)} reading warning(s)")


def check_folder(path: Path, checked: Report | None = None) -> tuple[TraceCheck, Report]:
    """Validate a trace folder (or trace.json) and read its manifest's reading warnings.
    `checked`: the folder's files were validated already, as they were written (a pool worker
    validates what it rendered): that report is used."""
    from ..validation import validate_path

    report = checked if checked is not None else validate_path(path)
    return TraceCheck([_finding(f) for f in report.errors], [_finding(f) for f in report.warnings],
                      reading_warnings(path)), report


def _finding(f: Finding) -> str:
    return f"{f.rule} " + (f"step {f.step}: " if f.step is not None else "") + safe(f.message)


def reading_warnings(path: Path) -> list[str]:
    """The reading warnings a trace folder's manifest.json lists ([] when there is none)."""
    folder = path if path.is_dir() else path.parent
    try:
        m = orjson.loads((folder / "manifest.json").read_bytes())
    except (OSError, ValueError):
        return []
    ws = m.get("warnings") if isinstance(m, dict) else None
    return [warning_text(w.get("file"), w.get("line"), str(w.get("message")))
            for w in ws or [] if isinstance(w, dict)]


def warning_text(file: object, line: object, message: str) -> str:
    where = f"{file}:{line}: " if file and line else (f"{file}: " if file else "")
    return safe(where + message)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")
