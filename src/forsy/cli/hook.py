"""`forsy hook install|uninstall|status|run`: drafts the moment an agent's session ends."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from ._output import path_arg, say

hook_app = typer.Typer(name="hook", no_args_is_help=True,
                       help="Make a draft the moment an agent's session ends (its own hooks call forsy).")

AgentOpt = Annotated[str, typer.Option("--agent", help="claude-code, codex or gemini.", show_default=False)]
SettingsOpt = Annotated[Path | None, typer.Option(
    "--settings", help="The agent's settings file. Default: ~/.claude/settings.json, ~/.codex/config.toml "
                       "(CODEX_HOME), ~/.gemini/settings.json.", show_default=False, parser=path_arg)]


def _agent(name: str) -> str:
    from ..errors import InputError
    from ..hooks import AGENTS

    if name not in AGENTS:
        raise InputError(f"--agent is one of {', '.join(AGENTS)}, not {name!r}")
    return name


def _fail(e: Exception) -> typer.Exit:
    from ..errors import ExitCode
    from ..hooks import HookError
    from ._output import safe

    assert isinstance(e, HookError)
    typer.echo(f"forsy: {safe(str(e.path))}: {safe(e.message)}", err=True)
    return typer.Exit(ExitCode.INPUT)


@hook_app.command("install")
def install(agent: AgentOpt, settings: SettingsOpt = None) -> None:
    """Add forsy's hook to the agent's settings, changing nothing else (a backup goes beside it)."""
    from ..hooks import HookError
    from ..hooks import install as do

    try:
        ch = do(_agent(agent), settings)
    except HookError as e:
        raise _fail(e) from None
    say(f"{ch.agent}: {ch.path}: {ch.message}" + (f" (backup: {ch.backup})" if ch.changed and ch.backup
                                                          else ""))


@hook_app.command("uninstall")
def uninstall(agent: AgentOpt, settings: SettingsOpt = None) -> None:
    """Remove forsy's hook; the file comes back as it was when nothing else changed since."""
    from ..hooks import HookError
    from ..hooks import uninstall as do

    try:
        ch = do(_agent(agent), settings)
    except HookError as e:
        raise _fail(e) from None
    say(f"{ch.agent}: {ch.path}: {ch.message}")


@hook_app.command("status")
def status(
    agent: Annotated[str | None, typer.Option("--agent", help="One agent (default: all).")] = None,
    settings: SettingsOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """What is installed where, and the hook's last runs and failures (its log)."""
    from ..hooks import AGENTS, log_path, read_log
    from ..hooks import status as get

    agents = [_agent(agent)] if agent else list(AGENTS)
    states = [get(a, settings if agent else None) for a in agents]
    runs = read_log()
    failures = [r for r in runs if r[3] == "failed"][-10:]
    if as_json:
        out = {"agents": [{"agent": s.agent, "settings": str(s.path), "exists": s.exists, "installed": s.installed,
                           "command": s.command, "chained": s.chained, "backup": str(s.backup) if s.backup else None,
                           "warnings": s.warnings} for s in states],
               "log": str(log_path()), "last_run": _row(runs[-1]) if runs else None,
               "failures": [_row(r) for r in failures]}
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        return
    for s in states:
        where = "installed on " + ", ".join(s.installed) if s.installed else "not installed"
        typer.echo(f"{s.agent}: {s.path}: {where if s.exists else 'no such file'}")
        if s.chained:
            typer.echo(f"  runs your own notify first: {json.dumps(s.chained)}")
        if s.backup:
            typer.echo(f"  backup of the file before install: {s.backup}")
        for w in s.warnings:
            typer.echo(f"  warning: {w}")
    typer.echo(f"log: {log_path()}" + ("" if runs else " (no run yet)"))
    if runs:
        r = runs[-1]
        typer.echo(f"last run: {r[0]} {r[1]} {r[2]}: {r[3]}: {r[4]}: {r[5]}")
    for r in failures:
        typer.echo(f"failed: {r[0]} {r[1]} {r[2]}: {r[4]}: {r[5]}")
    if failures:
        typer.echo("(what the sweep itself recorded: forsy sweep --status)")


def _row(r: list[str]) -> dict[str, str]:
    return dict(zip(("at", "agent", "event", "status", "session", "message"), r, strict=False))


@hook_app.command("run", context_settings={"ignore_unknown_options": True})
def run(
    agent: AgentOpt,
    payload_arg: Annotated[str | None, typer.Argument(metavar="[PAYLOAD]", help="The JSON Codex appends; Claude "
                                                      "Code and Gemini CLI send it on stdin.")] = None,
    chain: Annotated[str | None, typer.Option("--chain", help="The user's own notify argv (JSON), run first.")] = None,
    inline: Annotated[bool, typer.Option("--inline", help="Do the work here and now (exit 1 when no draft could be "
                                         "made), instead of in a background process.")] = False,
    background: Annotated[bool, typer.Option("--background", hidden=True)] = False,
    payload: Annotated[str | None, typer.Option("--payload", hidden=True)] = None,
    payload_file: Annotated[str | None, typer.Option("--payload-file", hidden=True)] = None,
    wait: Annotated[float, typer.Option("--wait", help="Seconds to wait at most for the session file to stop "
                                        "changing.")] = 10.0,
) -> None:
    """What the agents call (as `python -m forsy.hooks run`, which starts faster): hand the session to a background sweep and return. Exit 0 and nothing on stdout, whatever happens."""  # noqa: E501
    from ..hooks import run as do

    code = do(agent, payload_arg, chain=chain, background_=background, inline=inline, payload=payload,
              payload_file=payload_file, wait_s=wait)
    if inline and code:
        raise typer.Exit(code)
