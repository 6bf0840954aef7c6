"""`forsy validate`, `forsy verify` and `forsy schema`: commands that read traces, not logs."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import orjson
import typer

from ..errors import ExitCode, InputError
from ._output import DebugOpt, JsonOpt, check_folder, emit_json, friendly, path_arg, plural, quiet, safe, say, set_debug


@friendly
def validate(
    paths: Annotated[list[Path], typer.Argument(
        help="Traces: trace.json files, trace folders, or folders of trace folders (walked).", show_default=False,
        parser=path_arg)],
    as_json: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Check traces against every rule of forsy-trace-v0.1 a program can check. Exit 1 on any error.

    Counts use the words of `forsy retrace`: error(s) and warning(s) are rule findings
    (docs/validation.md); reading warning(s) are the problems met reading the log (manifest.json).
    """
    set_debug(debug)
    targets = [t for p in paths for t in trace_targets(p)]
    bad = 0
    for t in targets:
        check, report = check_folder(t)
        bad += bool(check.errors)
        if as_json:
            emit_json({"path": report.path, "status": "invalid" if check.errors else "valid",
                       "legacy": report.legacy, "steps": report.stats.get("steps"),
                       "confidence": report.stats.get("confidence"), "errors": check.errors,
                       "warnings": check.warnings, "reading_warnings": check.reading_warnings,
                       "stats": report.stats, "findings": [f.__dict__ for f in report.findings]}, indent=False)
            continue
        for f in report.findings:
            if f.severity == "error" or not quiet():
                where = f"step {f.step}: " if f.step is not None else ""
                typer.echo(f"{f.severity.upper():7} {f.rule} {where}{safe(f.message)}")
        say(f"{report.path}: {check.counts()}" + (" (legacy trace)" if report.legacy else ""))
    if len(targets) > 1 and not as_json:
        say(f"forsy: {plural(len(targets), 'trace')} checked, {bad} with errors", err=True)
    if bad:
        raise typer.Exit(ExitCode.INVALID)


def trace_targets(path: Path) -> list[Path]:
    """What to validate for one argument: a file as given; a trace folder; else every trace
    folder (a folder holding trace.json) below it, in name order."""
    if not path.exists():
        raise InputError("no such file or directory", path=path)
    if not path.is_dir() or (path / "trace.json").exists():
        return [path]
    found = sorted(Path(root) for root, _, names in os.walk(path) if "trace.json" in names)
    if not found:
        raise InputError("no trace folder (a folder holding trace.json) found here", path=path)
    return found


@friendly
def verify(
    folder: Annotated[Path, typer.Argument(help="A trace folder written by forsy retrace.", parser=path_arg)],
    logs: Annotated[list[Path], typer.Argument(help="Directories holding the source logs.", parser=path_arg)],
    as_json: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Re-read the source logs and check every copied value of a trace against their exact bytes."""
    from ..verification import verify_folder

    set_debug(debug)
    rep = verify_folder(folder, logs)
    if as_json:
        emit_json({"path": str(folder), "status": "mismatch" if rep.problems else "ok", "checked": rep.checked,
                   "errors": rep.problems}, indent=False)
    else:
        for p in rep.problems[:50]:
            typer.echo(f"MISMATCH {safe(p)}")
        if len(rep.problems) > 50:
            typer.echo(f"MISMATCH … and {len(rep.problems) - 50} more (--json lists them all)")
        say(f"{folder}: {rep.checked} copied values checked, {len(rep.problems)} problem(s)")
    if rep.problems:
        raise typer.Exit(ExitCode.INVALID)


@friendly
def schema(debug: DebugOpt = False) -> None:
    """Print the JSON Schema of trace.json, generated from forsy's models."""
    from ..models import trace_json_schema

    set_debug(debug)
    sys.stdout.write(orjson.dumps(trace_json_schema(), option=orjson.OPT_INDENT_2).decode() + "\n")
