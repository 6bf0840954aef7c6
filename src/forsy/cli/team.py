"""The team commands: `forsy worker` and `forsy jobs …` (the shared store's job queue)."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path
from typing import Annotated

import orjson
import typer

from ..errors import InputError
from ._output import StoreOpt, now_iso, path_arg, say, store_url

jobs_app = typer.Typer(name="jobs", help="The shared store's job queue: add jobs, list them.", no_args_is_help=True)


def worker_cmd(
    store: StoreOpt = None,
    lease: Annotated[float, typer.Option("--lease", help="Seconds a claimed job stays this worker's without a "
                                         "renewal (renewed every third of it while the job runs).")] = 60.0,
    poll: Annotated[float, typer.Option("--poll", help="Seconds between looks when the queue is empty.")] = 1.0,
    kind: Annotated[list[str] | None, typer.Option("--kind", help="Only these job kinds (retrace, export, "
                                                   "enrich); default all.")] = None,
    until_idle: Annotated[bool, typer.Option("--until-idle", help="Stop when no job is left.")] = False,
    max_jobs: Annotated[int | None, typer.Option("--max-jobs", help="Stop after this many jobs.")] = None,
    no_redact: Annotated[bool, typer.Option("--no-redact", help="Re-traces do NOT mask secrets.")] = False,
) -> None:
    """Run the store's jobs until stopped (Ctrl-C / SIGTERM: the job in hand is finished first)."""
    from ..run import RetraceOptions
    from ..run.store_worker import WorkerOptions, run_worker
    from ..store.jobs import JOB_KINDS, JobKind

    kinds: list[JobKind] = []
    for k in kind or list(JOB_KINDS):
        if k not in JOB_KINDS:
            raise InputError(f"unknown job kind {k!r}; known: {', '.join(JOB_KINDS)}")
        kinds.append(k)
    stop = threading.Event()

    def on_signal(signum: int, _frame: object) -> None:
        if stop.is_set():  # a second signal: stop now (the job's lease will pass; another takes it)
            raise KeyboardInterrupt
        stop.set()
        typer.echo("forsy worker: stopping after the job in hand", err=True)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        report = run_worker(WorkerOptions(store_url(store), lease_s=lease, poll_s=poll, kinds=tuple(kinds),
                                          max_jobs=max_jobs, exit_when_idle=until_idle,
                                          retrace=RetraceOptions(redact=not no_redact)), stop)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    say(f"worker {report.worker}: {len(report.done)} job(s) done, {len(report.failed)} failed, "
               f"{len(report.lost)} taken over by another worker")
    for job_id, why in report.failed:
        typer.echo(f"forsy: job {job_id} failed: {why}", err=True)


@jobs_app.command("list")
def jobs_list(
    store: StoreOpt = None,
    status: Annotated[str | None, typer.Option(help="queued, running, done or failed.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """List the jobs (and the counts per status)."""
    from ..store import open_store
    from ..store.jobs import JobQueue

    if status not in (None, "queued", "running", "done", "failed"):
        raise InputError(f"unknown job status {status!r}")
    st = open_store(store_url(store), create=False)
    try:
        q = JobQueue(st)
        jobs, counts = q.jobs(status), q.counts()  # type: ignore[arg-type]
    finally:
        st.close()
    for j in jobs:
        if as_json:
            sys.stdout.write(orjson.dumps(vars(j)).decode() + "\n")
        else:
            typer.echo(f"{j.id:6} {j.kind:8} {j.status:8} attempts {j.attempts}  {j.worker or '-'}  "
                       f"{orjson.dumps(j.args).decode()}" + (f"  error: {j.error}" if j.error else ""))
    if not as_json:
        typer.echo(", ".join(f"{n} {s}" for s, n in counts.items()) or "no jobs")


@jobs_app.command("add")
def jobs_add(
    kind: Annotated[str, typer.Argument(help="export (approved or chosen traces → folders), retrace or "
                                        "enrich (session files of this machine)")],
    paths: Annotated[list[Path] | None, typer.Argument(help="retrace/enrich: the session files.",
                                                       parser=path_arg)] = None,
    store: StoreOpt = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="export: the parent folder, on this "
                                                "machine (a worker of this machine runs these jobs).",
                                                parser=path_arg)] = None,
    status: Annotated[str, typer.Option(help="export: traces of this draft status.")] = "approved",
    model: Annotated[str | None, typer.Option(help="enrich: the litellm model.")] = None,
) -> None:
    """Queue jobs (each at most once: adding the same work again adds nothing)."""
    from ..run.store_worker import worker_name
    from ..store import DRAFT_STATUSES, TraceQuery, every_trace, open_store
    from ..store.jobs import JobQueue

    st = open_store(store_url(store))
    added = total = 0
    try:
        q = JobQueue(st)
        if kind == "export":
            if output is None or status not in DRAFT_STATUSES:
                raise InputError("export jobs need -o FOLDER and a known --status")
            # "approved" is what a person confirmed: the traces reviews made, never the drafts
            # they were made from (whose status reads approved too)
            reviewed = True if status == "approved" else None
            for r in every_trace(st, TraceQuery(status=status, reviewed=reviewed)):
                total += 1
                # the folder is this machine's: a worker here writes it (one elsewhere would write its own disk)
                added += q.enqueue("export", {"trace_id": r.trace_id, "dest": str(output.resolve())}, now_iso(),
                                   host=worker_name())
        elif kind in ("retrace", "enrich"):
            if kind == "enrich" and not model:
                raise InputError("enrich jobs need --model")
            for p in paths or []:
                if not p.is_file():
                    raise InputError("no such file", path=p)
                args = {"path": str(p.resolve())} | ({"model": model} if kind == "enrich" and model else {})
                total += 1
                added += q.enqueue(kind, args, now_iso(), host=worker_name())  # type: ignore[arg-type]
        else:
            raise InputError(f"unknown job kind {kind!r}; known: export, retrace, enrich")
    finally:
        st.close()
    say(f"{added} job(s) added, {total - added} already queued")


__all__ = ["jobs_app", "worker_cmd"]
