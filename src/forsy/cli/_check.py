"""`forsy validate`, `forsy verify` and `forsy schema`: commands that read traces, not logs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import orjson
import typer

from ..errors import ExitCode, InputError
from ._output import friendly, safe


@friendly
def validate(
    path: Annotated[Path, typer.Argument(help="A trace.json, or a trace folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print findings as JSON.")] = False,
) -> None:
    """Check a trace against every rule of forsy-trace-v0.1 a program can check. Exit 1 on any error."""
    from ..validate import validate_path

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
            typer.echo(f"{f.severity.upper():7} {f.rule} {where}{safe(f.message)}")
        typer.echo(f"{report.path}: {len(report.errors)} error(s), {len(report.warnings)} warning(s)"
                   + (" (legacy trace)" if report.legacy else ""))
    if report.errors:
        raise typer.Exit(ExitCode.INVALID)


@friendly
def verify(
    folder: Annotated[Path, typer.Argument(help="A trace folder written by forsy retrace.")],
    logs: Annotated[list[Path], typer.Argument(help="Directories holding the source logs.")],
) -> None:
    """Re-read the source logs and check every copied value of a trace against their exact bytes."""
    from ..verify import verify_folder

    rep = verify_folder(folder, logs)
    for p in rep.problems[:50]:
        typer.echo(f"MISMATCH {safe(p)}")
    typer.echo(f"{folder}: {rep.checked} copied values checked, {len(rep.problems)} problem(s)")
    if rep.problems:
        raise typer.Exit(ExitCode.INVALID)


@friendly
def schema() -> None:
    """Print the JSON Schema of trace.json, generated from forsy's models."""
    from ..models import trace_json_schema

    sys.stdout.write(orjson.dumps(trace_json_schema(), option=orjson.OPT_INDENT_2).decode() + "\n")
