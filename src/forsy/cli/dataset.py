"""`forsy dataset build`: a corpus of logs retraced into a Parquet dataset (docs/dataset.md).
Errors become messages where the group is registered (`cli.commands._friendly_group`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import ExitCode
from ._output import path_arg, safe, say

dataset_app = typer.Typer(name="dataset", no_args_is_help=True,
                          help="Retrace a corpus of logs into a Parquet dataset, one row per session.")


@dataset_app.command("build")
def build_cmd(
    sources: Annotated[list[Path], typer.Argument(help="Log files, folders of logs, or Parquet / JSON Lines "
                                                       "files whose rows hold raw logs.", show_default=False,
                                                       parser=path_arg)],
    out: Annotated[Path, typer.Option("-o", "--out", help="The dataset folder (new, empty, or one forsy built).",
                                      show_default=False, parser=path_arg)],
    engine: Annotated[str, typer.Option("--engine", help="local (processes on this machine) or ray (Ray Data: "
                                                         "the ray extra of forsy).")] = "local",
    address: Annotated[str | None, typer.Option("--address", help="A Ray cluster to run on (ray://host:10001, "
                                                                   "or auto); default: a local Ray.",
                                                show_default=False)] = None,
    num_cpus: Annotated[int | None, typer.Option("--num-cpus", min=1, help="Workers: processes (local) or the "
                                                 "CPUs of a local Ray. Default: 1 (local), all (ray).",
                                                 show_default=False)] = None,
    no_redact: Annotated[bool, typer.Option("--no-redact", help="Keep secrets and personal data as they are "
                                                                "(the dataset is then not fit to share).")] = False,
) -> None:
    """Retrace a corpus into a Parquet dataset (new or changed sessions only).

    Every session under SOURCES not already in the dataset (or changed since) is retraced, and
    its rows (partitioned by agent and month) and the dataset card are written. A session that
    could not be traced is a failed row with its error; this run's are named here, with the
    file (the dataset keeps only a hash of where each session came from): exit 7."""
    from ..dataset import build
    from ..errors import InputError

    if engine not in ("local", "ray"):
        raise InputError(f"--engine must be local or ray, not {engine!r}")
    if address and engine != "ray":
        raise InputError("--address names a Ray cluster: use it with --engine ray")
    r = build(sources, out, engine="ray" if engine == "ray" else "local", num_cpus=num_cpus, address=address,
              redact=not no_redact)
    say(f"{safe(str(r.out))}: {r.found} found, {r.retraced} retraced, {r.rows} row(s) written "
               f"({r.failed} failed), {r.replaced} replaced (changed since), {r.duplicates} duplicate(s) "
               "not written again")
    for where, why in r.failures:  # an error each, printed under --quiet too
        typer.echo(f"forsy: failed: {safe(where)}: {safe(why)}", err=True)
    if r.failures:
        raise typer.Exit(ExitCode.PARTIAL)
