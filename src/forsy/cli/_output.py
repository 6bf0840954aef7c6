"""What every command shares: the one place errors become messages, terminal-safe text, JSON out.

Errors become one-line messages here and only here (`friendly`); a Python traceback is shown
only with `--debug`. The exit codes are `errors.ExitCode`.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import orjson
import typer
from rich.console import Console

from ..errors import ExitCode, ForsyError

err = Console(stderr=True, highlight=False)
F = TypeVar("F", bound=Callable[..., Any])
STATE = {"debug": False}


def friendly(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ForsyError as e:
            if STATE["debug"]:
                raise
            typer.echo(f"forsy: error: {safe(str(e))}", err=True)
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
