"""`forsy retrace`: agent logs (and shell history, git) into Forsy trace folders.

What a run prints, and where (README, "Use"):
* stdout: one line per written trace (folder, steps, turns, confidence, and the counts
  `forsy validate` gives for it), or with `--json` one JSON object per line per session;
* stderr: reading warnings (the first 5 of a trace; all with `--verbose`), model fallbacks,
  every failure with its file and message, skipped sessions with `--verbose`, and last one
  summary line: written, skipped (reasons counted), failed. `--quiet`: failures and errors only.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import ExitCode, ForsyError, InputError, NoWork
from ..times import aware, parse_iso
from ._output import (
    DebugOpt,
    JsonOpt,
    TraceCheck,
    check_folder,
    emit_json,
    err,
    error_line,
    friendly,
    path_arg,
    plural,
    safe,
    set_debug,
    warning_text,
)
from ._progress import ProgressLine

if TYPE_CHECKING:  # forsy.run is imported when a command runs, not for `forsy --help`
    from ..run import Outcome, RetraceRun, TimelineCounts
    from ..sources import Source

SHOWN_WARNINGS = 5  # reading warnings printed per trace without --verbose (all are in manifest.json)
OUTSIDE = "outside the --since/--until window"
NO_TIME = "no time in the log: cannot be placed in the --since/--until window"


def _warm_secret_engine() -> None:
    """Start loading the secret engine's rules (~0.3 s, native, without the GIL) now, beside
    the imports and the reading: on a session of a few MB it was most of the run."""
    def start() -> None:
        from ..redact import warm_engine

        warm_engine()

    threading.Thread(target=start, name="forsy-engine-start", daemon=True).start()


def _say_the_rules_compile() -> None:
    """A first run waits 10-20 s for the secret rules to compile, with nothing to show for it."""
    from ..redact import rules_state

    state = rules_state()
    if state == "to_compile":
        err.print("forsy: compiling the secret-detection rules (10-20 s, once: later runs load them)")
    elif state == "every_run":
        err.print("forsy: compiling the secret-detection rules (10-20 s): there is no folder only you can write "
                  "to for keeping them (XDG_CACHE_HOME, ~/.cache, the temporary folder), so every run compiles "
                  "them")


@friendly
def retrace(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Session logs: a file, a session directory, a project directory, any folder of collected "
             "logs (searched below; files it does not read are counted as skipped, --verbose lists them) "
             "— each session → one trace — or - for one session on standard input.", show_default=False,
             parser=path_arg)] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output",
        help="Trace folder (one session file) or parent folder (a directory or several files). "
             "Default: ./forsy-traces/<agent>-<project>-<date>-<session>/.", parser=path_arg)] = None,
    history: Annotated[list[Path] | None, typer.Option("--history",
        help="Shell history file to merge into the timeline (bash, zsh, fish, atuin).", parser=path_arg)] = None,
    git: Annotated[Path | None, typer.Option("--git", help="Git repository whose commits join the timeline.",
                                             parser=path_arg)] = None,
    since: Annotated[str | None, typer.Option(
        help="Start of the time window (ISO 8601, e.g. 2026-05-01 or 2026-05-01T10:00:00Z): history and "
             "commits before it are left out, sessions that ended before it are skipped.")] = None,
    until: Annotated[str | None, typer.Option(
        help="End of the time window (ISO 8601): history and commits after it are left out, sessions "
             "that started after it are skipped.")] = None,
    no_redact: Annotated[bool, typer.Option("--no-redact",
        help="Do NOT mask secrets and personal data (the trace is marked private).")] = False,
    llm: Annotated[str | None, typer.Option("--llm", envvar="FORSY_LLM_MODEL",
        help="litellm model for cited proposals: null fields filled, and for shell-only work (histories, "
             "terminal recordings) a grouping of commands into steps and turns with goals; every value "
             "checked against quoted evidence (needs the extra: pip install 'forsy\\[llm]').")] = None,
    llm_api_base: Annotated[str | None, typer.Option("--llm-api-base", envvar="FORSY_LLM_API_BASE",
        help="Base URL of an OpenAI-compatible server (vLLM, llama.cpp, Ollama).")] = None,
    llm_cache_dir: Annotated[Path | None, typer.Option("--llm-cache-dir", envvar="FORSY_LLM_CACHE_DIR",
        help="Folder of the model answer cache (llm.sqlite3). Default: $XDG_CACHE_HOME/forsy.",
        parser=path_arg)] = None,
    llm_timeout: Annotated[float, typer.Option("--llm-timeout", envvar="FORSY_LLM_TIMEOUT", min=1.0,
        help="Seconds one model request may take; then the connection is closed and that part keeps the "
             "deterministic result (not re-sent). A CPU-served local model needs 300-900.")] = 60.0,
    llm_concurrency: Annotated[int, typer.Option("--llm-concurrency", envvar="FORSY_LLM_CONCURRENCY", min=1,
        help="Model requests in flight at once. 1 for a local CPU server (it answers one at a time).")] = 4,
    llm_chunk_tokens: Annotated[int, typer.Option("--llm-chunk-tokens", envvar="FORSY_LLM_CHUNK_TOKENS", min=500,
        help="Tokens per model request (prompt and answer). At most the server's context size "
             "(llama.cpp: its n_ctx); a smaller chunk answers sooner. A chunk the server refuses as too "
             "long is split and asked again.")] = 6000,
    llm_required: Annotated[bool, typer.Option("--llm-required",
        help="Exit 5 when the model path fell back to the deterministic result for any part of a trace.")] = False,
    jobs: Annotated[int | None, typer.Option("-j", "--jobs", envvar="FORSY_JOBS", min=1,
        help="Processes retracing session files at once. Default: the number of CPUs when the logs beside the "
             "largest add up to 4 MB or more, else 1. The output is the same whatever the number; the model "
             "pass (--llm) runs in one.", show_default=False)] = None,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", envvar="FORSY_QUIET",
        help="Print only errors (no progress, no per-trace lines, no summary).")] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose",
        help="List every skipped session and every reading warning.")] = False,
    as_json: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Retrace agent logs into Forsy trace folders (trace.json, manifest.json, provenance.json, README.md)."""
    if not no_redact:
        _warm_secret_engine()
    from ..run import RetraceOptions, one_trace_expected
    from ..run import retrace as run
    from ..sinks import FolderSink

    set_debug(debug)
    lo, hi = _time("--since", since), _time("--until", until)
    if lo is not None and hi is not None and hi < lo:
        raise InputError(f"--until {until} is before --since {since}")
    if not paths and not history and not git:
        raise InputError("nothing to retrace: give a session log (a file, a directory, or - for standard input), "
                         "or --history/--git for a trace without an agent log (see forsy retrace --help)")
    if no_redact:
        err.print("[bold red]forsy: WARNING: redaction is OFF (--no-redact). The trace may contain secrets "
                  "and personal data; it is marked release tier 'private'.[/]")
    elif not quiet:
        _say_the_rules_compile()
    opts = RetraceOptions(redact=not no_redact, history=list(history or []), git=git, since=since, until=until,
                          debug=set_debug(debug), llm_model=llm, llm_api_base=llm_api_base, cache_dir=llm_cache_dir,
                          llm_timeout_s=llm_timeout, llm_concurrency=llm_concurrency,
                          llm_chunk_tokens=llm_chunk_tokens, jobs=jobs or 0)
    window = _Window(lo, hi)
    with _stdin_spooled(list(paths or [])) as given:
        sink = FolderSink(output or Path("forsy-traces"), parent=output is None or not one_trace_expected(given))
        spooled = [str(g) for g, p in zip(given, paths or [], strict=True) if p == Path("-")]
        try:
            with ProgressLine(enabled=not quiet) as bar:
                done = run(given, opts, sink=sink, keep=False, progress=bar, raise_if_empty=False,
                           select=window.select if window.active else None)
        except ForsyError as e:
            _name_stdin(e, spooled)
            raise
        for o in done.outcomes:
            if o.path in spooled:
                o.path = STDIN
            if o.error is not None:
                _name_stdin(o.error, spooled)
    done.outcomes[:0] = window.left_out
    if window.active:
        _say_what_the_window_left(done)
    code = _report(done, quiet=quiet, verbose=verbose, as_json=as_json, llm_required=llm_required)
    problem = None if done.results else _nothing_written(done, since, until)
    if problem is not None:
        typer.echo(error_line(problem), err=True)
        code = problem.exit_code
    if not quiet:
        typer.echo(summary_line(done), err=True)
    if code:
        raise typer.Exit(code)


def _time(flag: str, value: str | None) -> datetime | None:
    if value is None:
        return None
    dt = parse_iso(value)
    if dt is None:
        raise InputError(f"{flag} {value!r} is not a time forsy reads (ISO 8601: 2026-05-01, "
                         "2026-05-01T10:00, 2026-05-01T10:00:00Z, 2026-05-01T12:00:00+02:00)")
    return aware(dt)


def _window_text(since: str | None, until: str | None) -> str:
    return f"--since {since or '(open)'} --until {until or '(open)'}"


@contextmanager
def _stdin_spooled(paths: list[Path]) -> Iterator[list[Path]]:
    """`-` is a session read from standard input: spooled to a private temporary file (forsy
    reads a log more than once), retraced like any file, and removed whatever happens."""
    if Path("-") not in paths:
        yield paths
        return
    if paths.count(Path("-")) > 1:
        raise InputError("- (standard input) can be given only once")
    tmp = Path(tempfile.mkdtemp(prefix="forsy-stdin-"))
    try:
        spool = tmp / "stdin.jsonl"
        with open(spool, "wb") as f:
            shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
        yield [spool if p == Path("-") else p for p in paths]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


STDIN = "<stdin>"  # how `-` is named in what a run prints (its spool file is gone by then)


def _name_stdin(e: ForsyError, spooled: list[str]) -> None:
    if e.path is not None and str(e.path) in spooled:
        e.path = STDIN


class _Window:
    """--since/--until applied to agent sessions, as to history and commits (timeline.merge):
    a session that ended before --since or started after --until is skipped, and so is one
    with no readable time (it cannot be placed, as history entries without a time are left
    out); a session that overlaps the window is traced whole. Each skip is an outcome."""

    def __init__(self, lo: datetime | None, hi: datetime | None) -> None:
        self.lo, self.hi = lo, hi
        self.left_out: list[Outcome] = []

    @property
    def active(self) -> bool:
        return self.lo is not None or self.hi is not None

    def select(self, src: Source, path: Path) -> bool:
        from ._ls import look, outside

        if src.name == "shell":
            return True  # a history file given as a session: timeline.merge applies the window to each entry
        try:
            info = look(src.name, path)
        except ForsyError:
            return True  # unreadable: let the run report it as it would without a window
        if info.start is None or info.end is None:
            from ..run import Outcome

            self.left_out.append(Outcome(str(path), "skipped", f"{NO_TIME}"))
            return False
        if outside(info, self.lo, self.hi):
            from ..run import Outcome

            self.left_out.append(Outcome(str(path), "skipped", f"{OUTSIDE} (session {info.start} .. {info.end})"))
            return False
        return True


def _say_what_the_window_left(done: RetraceRun) -> None:
    """A history/git trace that is empty because of the window says so, not "no work"."""
    for o in done.outcomes:
        t = o.timeline
        if o.status == "skipped" and t is not None and not (t.commands or t.commits) and t.outside_window:
            o.message = f"{OUTSIDE}: all {t.outside_window} history entries and commits are outside it"


def _report(done: RetraceRun, *, quiet: bool, verbose: bool, as_json: bool, llm_required: bool) -> int:
    """Print what became of every session; the exit code."""
    code = done.exit_code
    per_file = Counter(o.path for o in done.outcomes)  # a file of several sessions: each named by its id
    for o in done.outcomes:
        check = check_folder(Path(o.where), o.checked)[0] if o.status == "written" and o.where else None
        if check is not None and check.errors and not code:
            code = ExitCode.INVALID  # forsy wrote a trace that breaks the format: a bug, never hidden
        if as_json:
            emit_json(_json(o, check), indent=False)
        elif o.status == "written" and not quiet:
            typer.echo(f"{o.where}: {plural(o.steps, 'step')}, {plural(o.turns, 'turn')}, "
                       f"confidence {o.confidence}; {check.counts() if check else ''}")
        if o.status == "failed" and not (len(done.outcomes) == 1 and not as_json):
            # a run of one session that failed: the error line below says it once
            typer.echo(f"forsy: failed: {safe(o.path)}: {safe(o.message)}", err=True)
        elif o.status == "skipped" and verbose and not quiet:
            which = f" (session {safe(o.session_id)})" if per_file[o.path] > 1 and o.session_id else ""
            typer.echo(f"forsy: skipped: {safe(o.path)}{which}: {safe(o.message)}", err=True)
        if not quiet:
            shown = o.warnings if verbose else o.warnings[:SHOWN_WARNINGS]
            for w in shown:
                typer.echo(f"  warning: {warning_text(w.file, w.line, w.message)}", err=True)
            if len(o.warnings) > len(shown):
                kept = f" in {o.where}/manifest.json" if o.status == "written" and o.where else ""  # none else has one
                typer.echo(f"  … {len(o.warnings) - len(shown)} more{kept} (--verbose lists them)", err=True)
        if o.llm is not None and o.llm.fallbacks and (not quiet or llm_required):
            typer.echo(f"forsy: warning: {safe(o.where or o.path)}: model {o.llm.model}: "
                       f"{o.llm.warning or 'fell back to the deterministic result'}", err=True)
    if llm_required and _fell_back(done) and code in (ExitCode.OK, ExitCode.PARTIAL):
        code = ExitCode.LLM
    return int(code)


def _fell_back(done: RetraceRun) -> list[Outcome]:
    return [o for o in done.outcomes if o.llm is not None and o.llm.fallbacks]


def summary_line(done: RetraceRun) -> str:
    """The one line that ends every run (stderr): written, skipped with reasons, failed, and
    what the model path and history/git came to."""
    from ..run import SAME_TRACE

    fell_back = _fell_back(done)
    written = [o for o in done.outcomes if o.status in ("written", "traced")]
    skipped = [o for o in done.outcomes if o.status == "skipped"]
    reasons = Counter(OUTSIDE if o.message.startswith(OUTSIDE) else
                      "the same trace as another input" if o.message.startswith(SAME_TRACE) else o.message
                      for o in skipped)
    why = "; ".join(f"{n} {r}" for r, n in reasons.most_common())
    line = (f"forsy: {len(written)} written, {len(skipped)} skipped" + (f" ({why})" if why else "")
            + f", {len(done.failed)} failed")
    if fell_back:
        line += f"; model fell back in {plural(len(fell_back), 'trace')} (see manifest.json llm)"
    timeline = [o.timeline for o in done.outcomes if o.timeline is not None]
    if timeline:
        line += "; " + _timeline_text(timeline)
    return line


def _timeline_text(counts: list[TimelineCounts]) -> str:
    """What history and git gave: entries read per source (the first trace's sources are every
    trace's), then what the traces took and left out, summed over the traces."""
    srcs = ", ".join(f"{kind} {plural(n, 'commit' if kind == 'git' else 'entry').replace('entrys', 'entries')}"
                     for kind, n in counts[0].sources)
    c = counts[0]
    win = (f"{c.window_from or '(open)'} .. {c.window_to or '(open)'}" if len(counts) == 1
           else "each trace's window")
    took = sum(x.commands for x in counts)
    commits = sum(x.commits for x in counts)
    out = sum(x.outside_window for x in counts)
    untimed = sum(x.untimed_left_out for x in counts)
    return (f"history/git read: {srcs or 'nothing'}; in the timeline: {plural(took, 'command')}, "
            f"{plural(commits, 'commit')}; left out: {out} outside the window ({win}), {untimed} without a time")


def _json(o: Outcome, check: TraceCheck | None) -> dict[str, object]:
    return {
        "path": o.where, "input": o.path, "status": o.status, "session_id": o.session_id, "trace_id": o.trace_id,
        "steps": o.steps, "turns": o.turns, "confidence": o.confidence,
        "errors": (check.errors if check else []) + ([o.message] if o.status == "failed" else []),
        "warnings": check.warnings if check else [],
        "reading_warnings": [warning_text(w.file, w.line, w.message) for w in o.warnings],
        "message": o.message or None,
        "llm": None if o.llm is None else {"model": o.llm.model, "accepted": o.llm.accepted,
                                           "fallbacks": o.llm.fallbacks, "warning": o.llm.warning},
    }


def _nothing_written(done: RetraceRun, since: str | None, until: str | None) -> ForsyError:
    """Nothing was traced: the error that says why (each failure was listed already)."""
    if done.failed:
        first = done.failed[0]
        return first.error or ForsyError(first.message, path=first.path)
    if done.outcomes and all(o.message.startswith((OUTSIDE, NO_TIME)) and o.timeline is None for o in done.outcomes):
        return InputError(f"no session in the window {_window_text(since, until)}")
    if since is not None or until is not None:
        return InputError(f"nothing in the window {_window_text(since, until)}: no session, history entry or "
                          "commit with work in it")
    if done.outcomes:
        first = done.outcomes[0]
        return NoWork(first.message, path=first.path)
    return InputError("no sessions found")
