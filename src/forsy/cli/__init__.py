"""The `forsy` command line: parses arguments, calls one library function, prints.

One private module per command group (`_retrace`, `_check`, `_ls`); what they share (the one
place errors become messages, terminal-safe text, JSON, the run summary) is in `_output`.
Exit codes are `errors.ExitCode` (the README's table is tested against it).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ..errors import ExitCode
from ..version import __version__
from ._check import schema, validate, verify
from ._ls import ls
from ._output import STATE, DebugOpt, friendly, plain_metavars, quiet_stdout, safe
from ._retrace import retrace

# the names other command modules (cli_sweep) import from here
_friendly = friendly
_safe = safe

app = typer.Typer(
    name="forsy",
    help="Retrace AI agent logs (Claude Code, Codex, shell history, git) into honest Forsy work traces.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"forsy {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: DebugOpt = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    STATE["debug"] = debug  # set anew on every invocation; a command's own --debug can only add to it


app.command("retrace")(retrace)
app.command("validate")(validate)
app.command("verify")(verify)
app.command("schema")(schema)
app.command("ls")(ls)

from ..cli_sweep import register as _register_sweep  # noqa: E402  (needs app and _friendly above)

_register_sweep(app)
from ..cli_review import register as _register_review  # noqa: E402

_register_review(app)
from ..cli_team import register as _register_team  # noqa: E402

_register_team(app)
from ..cli_export import register as _register_export  # noqa: E402

_register_export(app)
app.add_typer(__import__("forsy.cli.hook", fromlist=["hook_app"]).hook_app)  # forsy hook …
app.add_typer(__import__("forsy.cli.dataset", fromlist=["dataset_app"]).dataset_app)  # forsy dataset build


def main() -> None:
    import typer.main

    command = typer.main.get_command(app)
    plain_metavars(command)  # help in words, not Python types
    try:
        command(prog_name="forsy")
    except BrokenPipeError:
        quiet_stdout()
        sys.exit(ExitCode.BROKEN_PIPE)


__all__ = ["STATE", "app", "main"]
