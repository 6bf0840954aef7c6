"""The runners a caller calls: `retrace` (every session named by some paths, one at a time,
or on `options.jobs` processes through `parallel`) and `retrace_one` (one session file)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from .. import sources
from ..errors import InputError, NoWork
from ..sinks import FolderSink, Sink
from .discovery import discover, one_trace_expected
from .options import Meter, Progress, RetraceOptions, file_size, parallel_jobs
from .outcome import Outcome, RetraceRun
from .session import OncePerRun, retrace_file, retrace_loaded
from .timeline import Timeline, merge, timeline_inputs


def retrace(paths: Sequence[str | Path], options: RetraceOptions | None = None, *, sink: Sink | None = None,
            keep: bool = True, progress: Progress | None = None, raise_if_empty: bool = True,
            select: Callable[[sources.Source, Path], bool] | None = None, model: object | None = None) -> RetraceRun:
    """Retrace every session named by `paths`, one session at a time: each is read, redacted,
    segmented, assembled and handed to `sink` before the next is read. With `options.jobs`
    > 1, files are read to assembled in that many worker processes (at most a few open at
    once) and handed to `sink` here, in input order: the same output as one process gives
    (`parallel`). A session that fails
    is recorded (file and message) and the run goes on; when nothing at all could be traced,
    the first failure is raised (unless `raise_if_empty=False`: then the run, with every
    outcome, is returned, for a caller that lists them all). With no sink (and no
    `options.out`) traces stay in memory. `progress` gets a `ProgressEvent` at each stage.
    `select`, when given, decides which discovered session files are read at all (the caller
    reports the others; the CLI uses it for a --since/--until window). `model`: a LangChain chat
    model object to run the model pass with (its proposals are checked as litellm's are).
    """
    options = options or RetraceOptions()
    if model is not None:  # a LangChain chat model: the model pass goes through it (forsy[langchain])
        from ..llm.langchain import LangChainCompletion

        client = LangChainCompletion(model)
        options = replace(options, llm_model=client.name, llm_client=client, jobs=1)
    given = [Path(p).expanduser() for p in paths]
    unread: list[tuple[Path, str]] = []
    named_wrong: list[InputError] = []  # paths named that gave nothing while others gave sessions
    found = discover(given, unread, named_wrong) if given else []
    if select is not None:
        found = [(src, p) for src, p in found if select(src, p)]
    if sink is None and options.out is not None:
        sink = FolderSink(options.out, parent=not one_trace_expected(given))
    if isinstance(sink, FolderSink):
        sink = OncePerRun(sink)
    timeline = timeline_inputs(options) if (options.history or options.git) else None
    run = RetraceRun()
    meter = Meter(progress)
    if not found and timeline is not None:
        tl = timeline
        meter.bytes_total = sum(file_size(h) for h in options.history)
        meter.start("--history/--git", meter.bytes_total)
        meter.stage("reading")
        run.outcomes += retrace_loaded(lambda: [merge(None, tl, options)], "--history/--git", options, sink, keep,
                                       meter)
        meter.finish()
    sizes = [file_size(path) for _, path in found]
    meter.files, meter.bytes_total = max(1, len(found)), sum(sizes)
    jobs = parallel_jobs(options, len(found), sum(sizes), max(sizes, default=0))
    if jobs > 1:
        from .parallel import retrace_in_order

        run.outcomes += retrace_in_order(found, sizes, options, sink, keep, timeline, meter, jobs)
    else:
        for (src, path), size in zip(found, sizes, strict=True):
            meter.start(str(path), size)
            run.outcomes += retrace_file(path, options, sink, keep, src, timeline, meter)
            meter.finish()
    if not run.results and raise_if_empty:
        first = run.failed[0].error if run.failed else None
        if first is not None:
            raise first
        if run.skipped:
            raise NoWork(run.skipped[0].message, path=run.skipped[0].path)
        raise InputError("no sessions found", path=given[0] if given else None)
    run.outcomes += [Outcome(str(u), "skipped", why) for u, why in unread]
    run.outcomes += [Outcome(str(e.path), "failed", e.message, error=e, exit_code=e.exit_code) for e in named_wrong]
    return run


def retrace_one(path: str | Path, options: RetraceOptions | None = None, *, sink: Sink | None = None,
                keep: bool = True, source: sources.Source | None = None,
                timeline: Timeline | None = None, progress: Progress | None = None) -> list[Outcome]:
    """Retrace one session file: an outcome per session it holds (usually one), never raising
    for what went wrong with the file (the outcome says so)."""
    options = options or RetraceOptions()
    p = Path(path).expanduser()
    meter = Meter(progress, files=1)
    meter.bytes_total = file_size(p)
    meter.start(str(p), meter.bytes_total)
    out = retrace_file(p, options, sink, keep, source, timeline, meter)
    meter.finish()
    return out
