"""What every command shares: the one place errors become messages, terminal-safe text, JSON out.

Errors become one-line messages here and only here (`friendly`); a Python traceback is shown
only with `--debug`. The exit codes are `errors.ExitCode`.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import orjson
import typer
from rich.console import Console

from ..errors import ExitCode, ForsyError

if TYPE_CHECKING:
    from ..validate import Finding, Report

err = Console(stderr=True, highlight=False)
F = TypeVar("F", bound=Callable[..., Any])
STATE = {"debug": False}

# `--debug` is accepted before the command (`forsy --debug retrace …`) and after it
# (`forsy retrace … --debug`), as the error messages say "run with --debug".
DebugOpt = Annotated[bool, typer.Option("--debug", envvar="FORSY_DEBUG",
                                        help="Show Python tracebacks on errors.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object per line (JSON Lines), one per trace.")]


def set_debug(debug: bool) -> bool:
    STATE["debug"] = STATE["debug"] or debug
    return STATE["debug"]


def friendly(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
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
            typer.echo(f"forsy: internal error: {type(e).__name__}: {safe(str(e))[:300]} "
                       "(run with --debug for the traceback)", err=True)
            raise typer.Exit(ExitCode.INTERNAL) from None

    return wrapper  # type: ignore[return-value]


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


def check_folder(path: Path) -> tuple[TraceCheck, Report]:
    """Validate a trace folder (or trace.json) and read its manifest's reading warnings."""
    from ..validate import validate_path

    report = validate_path(path)
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
