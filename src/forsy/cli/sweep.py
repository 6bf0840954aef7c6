"""`forsy sweep`: the agents' log folders into the store of drafts, for cron (and `--status`)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import InputError
from ._output import StoreOpt, emit_json_line, json_outcome, path_arg, quiet, say

if TYPE_CHECKING:
    from ..store import FaultRow, LockInfo, RunRow, Store
    from ..sweep import SweepProgress, SweepReport

def _shown(path: str) -> str:
    from ..store.names import shown
    from ._output import safe as _safe

    return _safe(shown(path))


def sweep_cmd(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Log roots to sweep (one that is not there is a fault of the run, exit 7). Default: every "
             "agent's log folder on this machine that exists "
             "(~/.claude/projects, ~/.codex/sessions and archived_sessions, under CLAUDE_CONFIG_DIR and CODEX_HOME "
             "too when set; ~/.gemini/tmp, OpenHands', Cline's in VS Code and its forks and in ~/.cline, and "
             "mini-swe-agent's, and where GEMINI_CLI_HOME, CLINE_DIR, CLINE_DATA_DIR, CLINE_SESSION_DATA_DIR, "
             "MSWEA_GLOBAL_CONFIG_DIR and OH_PERSISTENCE_DIR say when set) and the roots of the config file.",
        show_default=False, readable=False,
        parser=path_arg)] = None,  # a root that cannot be listed is the sweep's to name (exit 7), not a usage error
    store: StoreOpt = None,
    now: Annotated[bool, typer.Option("--now", help="Do not wait for the settle window (files modified "
                                      "within the last N seconds are traced too). A session whose last line "
                                      "is incomplete still waits (the agent may be writing it), for a day at "
                                      "most.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on one line (counts, failures, "
                                          "faults), an error that stops the sweep too (ok: false, "
                                          "exit_code, error).")] = False,
    status: Annotated[bool, typer.Option("--status", help="Is the sweep healthy? The last runs, failing files and "
                                         "folders, since when; exit 7 while something fails, 8 when the last "
                                         "run failed.")] = False,
    print_cron: Annotated[bool, typer.Option("--print-cron", help="Print a crontab line running this same sweep: "
                                             "the roots and options given here (installs nothing).")] = False,
    print_systemd: Annotated[bool, typer.Option(
        "--print-systemd", help="Print a systemd user service + timer running this same sweep (installs "
                                "nothing).")] = False,
    config: Annotated[Path | None, typer.Option("--config", help="Config file (TOML); one named here must exist. "
                                                "Default: FORSY_CONFIG, else config.toml in the platform config "
                                                "folder, when there.",
                                                parser=path_arg)] = None,
    settle: Annotated[float | None, typer.Option("--settle", help="Settle window in seconds, 0 or more "
                                                 "(default 120).")] = None,
    history: Annotated[list[Path] | None, typer.Option("--history", help="Shell history to merge.",
                                                       parser=path_arg)] = None,
    git: Annotated[Path | None, typer.Option("--git", help="Git repository whose commits join the timeline.",
                                             parser=path_arg)] = None,
    no_redact: Annotated[bool, typer.Option("--no-redact", help="Do NOT mask secrets (marked private).")] = False,
    llm: Annotated[str | None, typer.Option("--llm", help="litellm model for cited proposals.")] = None,
    jobs: Annotated[int | None, typer.Option("-j", "--jobs", envvar="FORSY_JOBS", min=1,
        help="Processes retracing session files at once. Default: the number of CPUs when the files to "
             "trace beside the largest add up to 4 MB or more, else 1. The store ends up the same whatever "
             "the number; the model pass (--llm) runs in one.",
        show_default=False)] = None,
) -> None:
    """Sweep agent log folders into the store of draft traces, incrementally (for cron)."""
    with json_outcome(as_json):
        _sweep(paths, store, now, as_json, status, print_cron, print_systemd, config, settle, history, git,
               no_redact, llm, jobs)


def _sweep(paths: list[Path] | None, store: str | None, now: bool, as_json: bool, status: bool, print_cron: bool,
           print_systemd: bool, config: Path | None, settle: float | None, history: list[Path] | None,
           git: Path | None, no_redact: bool, llm: str | None, jobs: int | None) -> None:
    from ..config import default_log_roots, load_config, settle_seconds
    from ..run import RetraceOptions
    from ..store import open_store
    from ..sweep import SweepOptions, sweep
    from ._output import STATE

    if settle is not None:
        settle = settle_seconds(settle, "--settle")
    # a --config the user named must be there (a typo would sweep with no config at all)
    cfg = load_config(config, required=config is not None).with_flags(
        store=store, settle_seconds=settle, histories=list(history or []), git=git, llm_model=llm,
        redact=False if no_redact else None)
    if print_cron or print_systemd:
        _print_schedule(print_cron, cfg.store, cfg.source, paths=list(paths or []),
                        settle=settle, history=list(history or []), git=git, now=now, no_redact=no_redact,
                        llm=llm, jobs=jobs)
        return
    if status:
        st = open_store(cfg.store, readonly=True)
        try:
            code = _status(st, as_json)
        finally:
            st.close()
        if code:
            raise typer.Exit(code)
        return
    st = open_store(cfg.store)
    try:
        roots = list(paths or [])
        if not roots:
            # an agent's folder that is not there is an agent not used on this machine; a root
            # the config (or FORSY_ROOTS) names is the user's, and kept: the sweep names it if missing
            roots = list(dict.fromkeys([*(r for r in default_log_roots() if r.exists()), *cfg.roots]))
            if not roots:
                raise InputError("no agent log folder found (~/.claude/projects, ~/.codex/sessions); "
                                 "give a path, or add roots to the config file")
        # a root that is not there (a disk not mounted, a folder moved) is not refused here: it is a
        # fault of the run (sweep._roots), the other roots are swept, and the run records it
        with _SweepProgressLine() as progress, _terminated_as_interrupt():
            opts = SweepOptions(roots=roots, settle_seconds=cfg.settle_seconds, ignore_settle=now,
                                retrace=RetraceOptions(redact=cfg.redact, history=cfg.histories, git=cfg.git,
                                                       llm_model=cfg.llm_model, llm_api_base=cfg.llm_api_base,
                                                       debug=STATE["debug"], jobs=jobs or 0),
                                progress=progress if progress.enabled else None)
            report = sweep(st, opts)
    finally:
        st.close()
    if as_json:
        emit_json_line(report.to_json())
        _notes(report)  # each item on stderr too, as without --json: a cron log keeps both
    elif report.locked_by is not None:
        h = report.locked_by
        typer.echo(f"forsy: another sweep holds the store (pid {h.pid} on {h.host}, since {h.since}"
                   f"{_renewed(h)}); nothing done{_expiry(h)}", err=True)
    else:
        _summary(report)
    for w in report.warnings if not as_json else []:
        typer.echo(f"forsy: warning: {_shown(w)}", err=True)
    if report.exit_code:
        raise typer.Exit(report.exit_code)


def _print_schedule(cron: bool, store: str | None, config: Path | None, *, paths: list[Path], settle: float | None,
                    history: list[Path], git: Path | None, now: bool, no_redact: bool, llm: str | None,
                    jobs: int | None) -> None:
    """The crontab line or the systemd units of the sweep this command would run: its store and
    config file as resolved here (the job sees neither FORSY_STORE nor FORSY_CONFIG), and every
    option given. Not --debug: it would let one file's internal error stop an unattended run."""
    from ..config import config_dir
    from ..sweep.schedule import cron_line, sweep_options, systemd_units

    default = config_dir() / "config.toml"  # read by the job as well: left for it to find
    options = sweep_options(roots=paths, config=None if config == default else config, settle=settle,
                            histories=history, git=git, now=now, no_redact=no_redact, llm=llm, jobs=jobs,
                            quiet=quiet())
    text = cron_line(store, options=options) if cron else systemd_units(store, options=options)
    # a crontab is bytes: a name that is not UTF-8 is printed as its own bytes
    typer.echo(text.encode("utf-8", "surrogateescape"))


def _summary(report: SweepReport) -> None:
    c = report.counts
    # a fault is counted among the failed (the exit code says so too); named here so that
    # "N failed" is not read as N files that will never be traced
    faults = f" ({len(report.faults)} of them skipped for a fault, tried again next run)" if report.faults else ""
    left = f", {len(report.left_out)} left out" if report.left_out else ""
    idle = f", {c.skipped} with no work" if c.skipped else ""
    known = f", {len(report.already_stored)} already in the store" if report.already_stored else ""
    known += f", {len(report.behind)} behind a fuller draft" if report.behind else ""
    # a run the store stopped counts what it did before: said so, not as a sweep of everything
    head = (f"swept {len(report.roots)} root(s) in {report.duration_s:.2f} s" if report.failure is None
            else f"stopped after {report.duration_s:.2f} s, {len(report.roots)} root(s) not swept to the end")
    say(f"{head}: {c.seen} session file(s), "
        f"{c.unchanged} unchanged, {c.new} new, {c.grown} grown, {c.rewritten} rewritten, "
        f"{f'{c.retried} retried, ' if c.retried else ''}{c.gone} gone, "
        f"{c.waiting} waiting, {c.failed} failed{faults}{left}{idle}{known}; {c.traces_written} draft(s) written")
    _notes(report)


def _notes(report: SweepReport) -> None:
    """Each file the run could not trace, or traced to no new draft, named on stderr."""
    for e in report.failures:
        typer.echo(f"forsy: failed: {_shown(e.path)}: {_shown(e.message)}", err=True)
    for f in report.faults:
        typer.echo(f"forsy: skipped: {_shown(f.path)}: {_shown(f.reason)}"
                   + (f" (since {f.first_at}, {f.runs} runs)" if f.runs > 1 else "")
                   + ("" if f.reason.startswith("vanished") else "; tried again next run"), err=True)
    for p, why in report.left_out:  # (named in the store too: forsy sweep --status)
        say(f"forsy: left out: {_shown(p)}: {_shown(why)}", err=True)
    for p, why in report.waiting:
        say(f"forsy: waiting: {_shown(p)}: {why}", err=True)
    for p, why in report.no_work:  # read once: not again until it changes
        say(f"forsy: no work: {_shown(p)}: {_shown(why)}", err=True)
    for p, _tid, fuller, first in report.behind:
        say(f"forsy: an older or partial copy: {_shown(p)}: each of its steps is in draft {fuller} (stored from "
            f"{_shown(first)}), which holds more; no new draft", err=True)
    for p, tid, first in report.already_stored:
        said = "stored before from the same file" if first == p else f"stored from {_shown(first)}"
        say(f"forsy: already in the store: {_shown(p)}: the same trace as {tid} ({said}); no new draft", err=True)
    if report.failure is not None:
        marked = f", run {report.run_id} is marked failed" if report.marked_failed else \
            f"; the store could not mark run {report.run_id} failed either (--status shows it stopped)" \
            if report.run_id is not None else ""
        typer.echo(f"forsy: error: the sweep stopped: {_shown(report.failure)}; what it was writing was rolled back"
                   f"{marked}", err=True)


@contextmanager
def _terminated_as_interrupt() -> Iterator[None]:
    """SIGTERM (systemd stopping the service, a timeout, `kill`) stops the sweep as Ctrl-C does:
    what it was writing is rolled back, its run marked interrupted, its lock released. By
    default the signal ends the process at once and leaves the run to look as if still going."""
    import signal

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        old = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread (a library caller's): leave the signal as it is
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


class _SweepProgressLine:
    """On a terminal, one line on stderr: session files and bytes traced of those to trace, and
    the session in hand, cut to the terminal's width; under cron (not a terminal) nothing."""

    def __init__(self) -> None:
        import shutil

        self.enabled = sys.stderr.isatty() and not quiet()
        self.width = shutil.get_terminal_size((80, 24)).columns
        self.drawn = False

    def __enter__(self) -> _SweepProgressLine:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.drawn:
            sys.stderr.write("\r" + " " * (self.width - 1) + "\r")
            sys.stderr.flush()

    def __call__(self, p: SweepProgress) -> None:
        line = progress_text(p, self.width - 1)
        sys.stderr.write("\r" + line.ljust(self.width - 1))
        sys.stderr.flush()
        self.drawn = True


def progress_text(p: SweepProgress, width: int) -> str:
    """`sweep 12/113  41.5/120.3 MB  …/a-project/3f2c….jsonl` (`sweep: looking under ROOT` before
    that), never wider than `width`."""
    head = (f"sweep {p.files_done + 1}/{p.files}  {p.bytes_done / 1e6:.1f}/{p.bytes_total / 1e6:.1f} MB  "
            if p.files else "sweep: looking under ")
    name = _shown(p.path)
    room = width - len(head)
    if room < 8:
        return head[:width]
    return head + (name if len(name) <= room else "…" + name[-(room - 1):])


def _status(s: Store, as_json: bool) -> int:
    """Is the cron job healthy? The last runs, the last success, what fails (files and folders
    with why, since when, in how many runs), what was left out, how many logs are gone. The
    exit code: 8 when the last run failed or stopped, 7 while something fails, else 0."""
    from ..errors import ExitCode
    from ..sweep.lock import holder_alive

    runs = s.runs(10)
    fails = s.failures()
    faults = s.faults()
    left = s.left_out()
    counts = s.file_counts()
    gone = s.gone(20)
    holder = s.lock_holder()
    live = holder is not None and holder_alive(holder)
    # a run left `running` while no live sweep holds the lock stopped without saying so (a kill,
    # a disk too full to record its end); the next sweep marks it interrupted
    shown_runs = [(r, "stopped" if r.status == "running" and (not live or holder is None or holder.pid != r.pid)
                   else r.status)
                  for r in runs]
    last_ok = next((r for r in runs if r.status == "done"), None)
    last = shown_runs[0][1] if shown_runs else None
    code = (ExitCode.STORE if last in ("failed", "stopped")
            else ExitCode.PARTIAL if fails or faults else ExitCode.OK)
    if as_json:
        emit_json_line({"store": s.url, "locked_by": {**vars(holder), "live": live} if holder else None,
                        "exit_code": int(code),
                    "last_success": last_ok.finished_at if last_ok else None,
                    "last_success_age_s": _age_s(last_ok.finished_at if last_ok else None),
                    "runs": [{**{k: v for k, v in vars(r).items() if k not in ("counts", "status")}, "status": st,
                              "counts": vars(r.counts), "counts_recorded": r.finished_at is not None}
                             for r, st in shown_runs],
                    # `since` is the last try (kept for scripts that read it); the store keeps no first failure
                    "failures": [{"path": f.path, "error": f.last_error, "since": f.updated_at,
                                  "last_tried": f.updated_at} for f in fails],
                    "faults": [{"path": f.path, "what": f.what, "reason": f.reason, "since": f.first_at,
                                "last": f.last_at, "runs": f.runs} for f in faults],
                    "left_out": [{"path": f.path, "reason": f.last_error} for f in left],
                    "waiting": runs[0].counts.waiting if runs else 0, "gone": counts.get("source_gone", 0),
                    "gone_files": [{"path": f.path, "since": f.updated_at} for f in gone]})
        return code
    typer.echo(f"store: {s.url}")
    if holder and live:
        typer.echo(f"sweeping now: pid {holder.pid} on {holder.host}, since {holder.since}{_renewed(holder)}")
    elif holder:
        typer.echo(f"lock left by a sweep no longer running: pid {holder.pid} on {holder.host}, since "
                   f"{holder.since}{_renewed(holder)}; the next sweep takes the store over")
    age = _age(last_ok.finished_at if last_ok else None)
    typer.echo("last success: " + (f"{last_ok.finished_at} (run {last_ok.id}, {age} ago)" if last_ok and age
                                   else "none in the last runs"))
    for r, st in shown_runs:
        c = r.counts
        dur = f"{r.duration_s:.2f} s" if r.duration_s is not None else "-"
        if r.finished_at is None:  # killed or still going: only its drafts are known (counted in the store)
            typer.echo(f"run {r.id} {r.started_at} {st:11} {dur:>9}  drafts {c.traces_written}"
                       f"{' so far' if st == 'running' else ''}; its other counts are said when a run ends")
            continue
        typer.echo(f"run {r.id} {r.started_at} {st:11} {dur:>9}  seen {c.seen}, unchanged {c.unchanged}, "
                   f"new {c.new}, grown {c.grown}, rewritten {c.rewritten}, "
                   f"{f'retried {c.retried}, ' if c.retried else ''}gone {c.gone}, waiting {c.waiting}, "
                   f"failed {c.failed}, drafts {c.traces_written}, {c.bytes_read} bytes read")
        if r.failure:
            typer.echo(f"    stopped: {_shown(r.failure)}")
    if not runs:
        typer.echo("no sweep has run yet")
    for f in fails:
        typer.echo(f"FAILING {_shown(f.path)}: {_shown(f.last_error or '')} (last tried {f.updated_at})")
    for g in faults:
        typer.echo(f"SKIPPED {g.what} {_shown(g.path)}: {_shown(g.reason)} (since {g.first_at}, {g.runs} run(s); "
                   f"{_tried(g, runs)})")
    for f in left:
        typer.echo(f"LEFT OUT {_shown(f.path)}: {_shown(f.last_error or '')}")
    for f in gone[:5]:
        typer.echo(f"GONE {_shown(f.path)} (since {f.updated_at}; its traces stay)")
    typer.echo(f"{counts.get('source_gone', 0)} log file(s) gone from disk (their traces stay); "
               f"{runs[0].counts.waiting if runs else 0} waiting at the last run")
    typer.echo({ExitCode.OK: "healthy", ExitCode.PARTIAL: "partly failing (exit 7)"}.get(
        code, "the last run did not finish (exit 8)"))
    return code


def _age_s(when: str | None) -> int | None:
    """Seconds since an ISO time of the store (None: no time, or one that cannot be read)."""
    from datetime import UTC, datetime

    if not when:
        return None
    try:
        t = datetime.fromisoformat(when)
    except ValueError:
        return None
    return max(0, int((datetime.now(UTC) - (t if t.tzinfo else t.replace(tzinfo=UTC))).total_seconds()))


def _tried(fault: FaultRow, runs: list[RunRow]) -> str:
    """When a fault was last tried. Each run over its root tries it again (and forgets it once it
    is gone), but a run over other roots does not (a root no longer swept, another cron line's):
    a fault the newest finished run did not meet says when it was last tried."""
    newest = next((r for r in runs if r.status == "done"), None)
    if newest is None or fault.last_run is None or fault.last_run >= newest.id:
        return "tried again each run"
    from ..store.names import below

    under = any(below(fault.path, root) for root in newest.roots)
    return (f"last tried {fault.last_at} by run {fault.last_run}"
            f"{'' if under else f'; run {newest.id} swept other roots'}")


def _age(when: str | None) -> str | None:
    s = _age_s(when)
    return None if s is None else _span(s)


def _span(s: int) -> str:
    return f"{s // 86400} d {s % 86400 // 3600} h" if s >= 86400 else \
        f"{s // 3600} h {s % 3600 // 60} min" if s >= 3600 else f"{s // 60} min"


def _expiry(holder: LockInfo) -> str:
    """When a lock that cannot be checked here (another host's) is taken over, if not renewed."""
    import socket

    from ..sweep.lock import LEASE_S

    if holder.idle_s is None or holder.host == socket.gethostname():
        return ""
    minutes = max(1, -int((holder.idle_s - LEASE_S) // 60))  # what is left, rounded up
    return f"; it cannot be checked from this host, and is taken over if not renewed within {_span(minutes * 60)}"


def _renewed(holder: LockInfo) -> str:
    """When the lock's holder last said it was at work, when the lock says."""
    return f", last renewed {_span(max(0, int(holder.idle_s)))} ago" if holder.idle_s is not None else ""


__all__ = ["progress_text", "sweep_cmd"]
