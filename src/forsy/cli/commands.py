"""The `forsy` app: the root options (--debug, --version), every command group registered on
it (`app.add_typer`) with errors turned into messages in one place (`friendly`), and `main`,
which runs it with help in words."""


from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import ExitCode
from ..sources.titles import supported
from ..version import __version__
from ._check import schema, validate, verify
from ._ls import ls
from ._output import STATE, DebugOpt, emit_json_line, flowing_help, friendly, json_error, plain_metavars, quiet_stdout
from ._retrace import retrace
from .dataset import dataset_app
from .export import export_cmd
from .hook import hook_app
from .review import render_cmd, review_app, show_cmd
from .store import store_app
from .sweep import sweep_cmd
from .team import jobs_app, worker_cmd

app = typer.Typer(
    name="forsy",
    # the list comes from the source registry (sources.titles), so a new reader cannot be left out
    help=f"Retrace AI agents' logs ({supported()}) into honest Forsy work traces.",
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
    STATE["quiet"] = False  # only a command's own --quiet (or FORSY_QUIET) sets it


def _friendly_group(group: typer.Typer) -> typer.Typer:
    """Every command of `group` and of its sub-groups turns errors into messages and takes
    --debug and --quiet (`friendly`): done here, for every group, in one place."""
    for cmd in group.registered_commands:
        if cmd.callback is not None:
            cmd.callback = friendly(cmd.callback)
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            _friendly_group(sub.typer_instance)
    return group


# the commands, one module per group, registered here and nowhere else
app.command("retrace")(retrace)
app.command("validate")(validate)
app.command("verify")(verify)
app.command("schema")(schema)
app.command("ls")(ls)
app.command("sweep")(friendly(sweep_cmd))
app.command("show")(friendly(show_cmd))
app.command("render")(friendly(render_cmd))
app.command("export")(friendly(export_cmd))
app.command("worker")(friendly(worker_cmd))
for _group in (review_app, store_app, jobs_app, hook_app, dataset_app):
    app.add_typer(_friendly_group(_group))


def main() -> None:
    import typer.main

    command = typer.main.get_command(app)
    plain_metavars(command)  # help in words, not Python types
    flowing_help(command)  # paragraphs the terminal wraps
    try:
        # not standalone: a usage error comes back here, so that under --json it is said as JSON too
        code = command.main(prog_name="forsy", standalone_mode=False)
    except _CLICK_ERROR as e:  # a usage error: said as typer says it (rich), with its exit code
        if e.__class__.__name__ != "NoArgsIsHelpError" and wants_json(sys.argv[1:]):
            emit_json_line(json_error(e.exit_code, f"usage: {e.format_message()}"))
        from typer import rich_utils

        rich_utils.rich_format_error(e)
        sys.exit(e.exit_code)
    except typer.Abort:
        typer.echo("Aborted!", err=True)
        sys.exit(1)
    except BrokenPipeError:
        quiet_stdout()
        sys.exit(ExitCode.BROKEN_PIPE)
    sys.exit(code if isinstance(code, int) else 0)


# a bad option or argument: click's ClickException, of typer's own copy of click in newer typers
if TYPE_CHECKING:
    from typer._click.exceptions import ClickException as _CLICK_ERROR
else:
    _CLICK_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


def wants_json(args: list[str]) -> bool:
    """Whether a command line asks for JSON output (`--json` before any `--`)."""
    return "--json" in (args[:args.index("--")] if "--" in args else args)
