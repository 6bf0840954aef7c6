"""The whole flow, in the order it runs:

    paths ─ sources.detect ─▶ Source.read() ─▶ Session (evidence + events)
          ─ timeline.merge (history, git) ─ redact ─▶ Session (redacted)
          ─ segment (rules) [─ llm (cited proposals)] ─▶ drafts
          ─ assemble + score ─▶ Trace, Provenance, Manifest ─ emit ─▶ trace folder

Redaction runs right after reading, so nothing later (segmenter, model, writer) ever holds
a raw secret.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from . import sources
from ._gc import gc_paused
from .assemble import Assembled, assemble
from .errors import ExitCode, ForsyError, InputError, NoWork, SameTrace, UnsupportedFormat
from .evidence import Session, Warning_
from .models import Trace
from .payloads import CommitInfo, redact_payload
from .protocols import Completion, NoRedactor, Redactor
from .rules.segment import Segmenter
from .sinks import FolderSink, Sink
from .sources import ReadContext
from .times import check_times

Stage = Literal["reading", "redacting", "segmenting", "writing", "done"]


@dataclass(frozen=True)
class ProgressEvent:
    """Where a run is: emitted by `retrace`/`retrace_one` as each session file enters a stage,
    and once with stage "done" when the file is finished. Byte counts are file sizes (what a
    person can relate to `ls -l`): `bytes_done` counts the files finished before this one,
    `file_bytes` is the size of the file in hand (counted in `bytes_done` from its "done" event
    on); `bytes_total` the sum over the run."""

    stage: Stage
    path: str  # the session file in hand ("--history/--git" for a run without one)
    index: int  # 1-based number of the file in hand
    files: int  # files in the run
    file_bytes: int
    bytes_done: int
    bytes_total: int


Progress = Callable[[ProgressEvent], None]


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


@dataclass
class _Meter:
    """Turns "this file, this stage" into ProgressEvents with the run's byte counts."""

    emit: Progress | None
    path: str = ""
    index: int = 0
    files: int = 1
    file_bytes: int = 0
    bytes_done: int = 0
    bytes_total: int = 0

    def start(self, path: str, size: int) -> None:
        self.path, self.file_bytes = path, size
        self.index += 1

    def stage(self, stage: Stage) -> None:
        if self.emit is not None:
            self.emit(ProgressEvent(stage, self.path, self.index, self.files, self.file_bytes, self.bytes_done,
                                    self.bytes_total))

    def finish(self) -> None:
        self.bytes_done += self.file_bytes
        self.stage("done")


_NO_METER = _Meter(None)
# The stage callback of the session in hand, for `process` (whose signature callers and tests
# rely on) to report "redacting" and "segmenting" without a new parameter.
_STAGE_HOOK: ContextVar[Callable[[Stage], None]] = ContextVar("forsy_stage_hook", default=lambda _: None)


@dataclass
class RetraceOptions:
    out: Path | None = None  # a trace folder (one session) or a parent folder (several)
    redact: bool = True
    history: list[Path] = field(default_factory=list)
    git: Path | None = None
    since: str | None = None
    until: str | None = None
    debug: bool = False
    llm_model: str | None = None
    llm_api_base: str | None = None
    llm_client: Completion | None = None  # injected (tests, a library caller); otherwise litellm on the LLM path
    llm_timeout_s: float = 60.0  # per request; then the connection is closed, not re-sent
    llm_concurrency: int = 4
    llm_chunk_tokens: int = 6000
    cache_dir: Path | None = None
    # Processes retracing session files at once (a directory or several files). Output is
    # byte-identical whatever the number: results reach the sink in input order. The model
    # pass (`llm_model`) runs in one process. 0: auto (`parallel_jobs`).
    jobs: int = 1


@dataclass(frozen=True)
class LLMResult:
    """What the model pass of one session came to (the whole report is `manifest.llm`):
    kept on the Outcome so a caller that does not keep the trace can still report it."""

    model: str
    accepted: int  # model values that passed the checks and are in the trace
    fallbacks: int  # chunks that got no usable answer and kept the deterministic result
    warning: str | None  # the report's warning, when there is one


@dataclass(frozen=True)
class TimelineCounts:
    """What `--history`/`--git` contributed to one trace (`timeline.merge`'s counts), kept on
    the Outcome so a caller can say it without keeping the trace."""

    sources: tuple[tuple[str, int], ...]  # (kind, entries read) per history file / repository, in the order given
    commands: int  # history commands in the timeline (matched to an agent call or on their own)
    commits: int
    outside_window: int  # history commands and commits left out: their time is outside the window
    untimed_left_out: int  # left out: no time, so they cannot be placed in a window
    window_from: str | None
    window_to: str | None
    window_rule: str  # "explicit", "agent-span±300s" or "none"


@dataclass
class Outcome:
    """What became of one session (or of one input that could not be read).

    `status`: `written` (a sink took it), `traced` (kept in memory, no sink), `skipped` (no
    work in it: reported, not an error) or `failed` (`error` says why; counts in the exit
    code). `assembled` is kept only when the run keeps traces (`keep=True`), so a run over a
    large directory holds one session at a time.
    """

    path: str  # the session file (or the input that failed)
    status: Literal["written", "traced", "skipped", "failed"]
    message: str = ""
    session_id: str | None = None
    trace_id: str | None = None
    where: str | None = None  # what the sink returned (a folder path, a store id)
    steps: int = 0
    turns: int = 0
    confidence: int | None = None
    warnings: list[Warning_] = field(default_factory=list)
    assembled: Assembled | None = field(default=None, repr=False)
    session: Session | None = field(default=None, repr=False)
    error: ForsyError | None = field(default=None, repr=False)
    exit_code: int = ExitCode.OK
    llm: LLMResult | None = None  # set when the run had a model pass (`RetraceOptions.llm_model`)
    timeline: TimelineCounts | None = None  # set when history or git was merged in

    @property
    def folder(self) -> Path | None:
        return Path(self.where) if self.where else None


@dataclass
class RetraceRun:
    """Every outcome of a run, in input order."""

    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def results(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status in ("written", "traced")]

    @property
    def skipped(self) -> list[Outcome]:
        """Read but not traced, for a stated reason (no work, outside the window, a copy): never a failure."""
        return [o for o in self.outcomes if o.status == "skipped"]

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def exit_code(self) -> int:
        if not self.failed:
            return ExitCode.OK
        return ExitCode.PARTIAL if self.results else self.failed[0].exit_code


# a file under a named folder that looks like a log (its name) and that no source reads
NOT_READ = "not a log format forsy reads"


def discover(paths: Iterable[Path], unread: list[tuple[Path, str]] | None = None) -> list[tuple[sources.Source, Path]]:
    """Every session file named by `paths` (files, session dirs, project dirs, folders of
    collected logs: `sources._walk`), with its source. `unread`, when given, gets what under a
    named folder was not read, and why: files that look like logs in no format forsy reads,
    folders the walk did not search."""
    from .sources._walk import discover_tree

    found: list[tuple[sources.Source, Path]] = []
    for p in paths:
        if not p.exists() and not p.is_symlink():
            raise InputError("no such file or directory", path=p)
        try:
            is_dir = p.is_dir()
        except OSError as e:
            raise InputError(e.strerror or str(e), path=p) from None
        if not is_dir:
            found.append((sources.detect(p), p))
            continue
        tree = discover_tree(p, sources.available())
        if not tree.found:
            raise InputError("no session logs forsy reads were found in this directory"
                             + (f" ({len(tree.unrecognised)} file(s) that look like logs, in no format forsy reads)"
                                if tree.unrecognised else ""), path=p)
        found.extend(tree.found)
        if unread is not None:
            unread.extend((u, NOT_READ) for u in tree.unrecognised)
            unread.extend(tree.not_searched)
    return found


def read_sessions(paths: Sequence[str | Path], *, debug: bool = False) -> Iterator[Session]:
    """The sessions named by `paths`, read lazily one file at a time (not redacted)."""
    for src, path in discover([Path(p).expanduser() for p in paths]):
        yield from src.read(path, ReadContext(root=path.parent, debug=debug))


def read(paths: Iterable[Path], options: RetraceOptions) -> list[Session]:
    return list(read_sessions(list(paths), debug=options.debug))


def _redact_session(session: Session, redactor: Redactor) -> None:
    """Mask every string a later stage could write or send, in one fixed order (so the
    placeholder numbers, and the output, are the same on every run)."""
    texts = [(e, e.text) for e in session.events if e.text is not None]
    learn = getattr(redactor, "learn", None)
    if learn is not None:  # known once, masked everywhere: a secret given late is masked early too
        learn(_session_texts(session))
    for (e, _), red in zip(texts, redactor.redact_many([t for _, t in texts]), strict=True):
        e.text = red
    rv = redactor.redact_value
    for e in session.events:
        if e.args is not None:
            e.args = rv(e.args)
        if e.info is not None:
            redact_payload(e.info, rv)
        if e.link is not None:
            redact_payload(e.link, rv)
    m = session.meta
    for name in ("system_prompt", "memory", "cwd", "git_branch"):
        v = getattr(m, name)
        if isinstance(v, str):
            setattr(m, name, redactor.redact(v))
    m.extra = rv(m.extra)
    m.skills = [redactor.redact(s) for s in m.skills]
    for w in session.warnings:
        w.message = redactor.redact(w.message)
    _redact_names(session, redactor)


def _session_texts(session: Session) -> list[object]:
    """Every text _redact_session masks, unchanged: what the redactor learns secrets from first."""
    out: list[object] = [e.text for e in session.events if e.text is not None]
    out += [e.args for e in session.events if e.args is not None]

    def keep(value: object) -> object:
        out.append(value)
        return value

    for e in session.events:
        for payload in (e.info, e.link):
            if payload is not None:
                redact_payload(payload, keep)  # reads each text field, writes it back as it was
    m = session.meta
    out += [m.system_prompt, m.memory, m.extra, m.skills]
    return out


def _redact_names(session: Session, redactor: Redactor) -> None:
    """File names, folder names and session ids are text too: a secret or a person's name in
    them must not reach the manifest, provenance, folder names or stdout. Evidence ids stay
    as they were made (hashes of the raw place, which reveal nothing)."""
    session.session_id = redactor.redact(session.session_id)
    renamed: dict[str, str] = {}
    for name in {ev.source for ev in session.evidence.values()} | {f.path for f in session.files}:
        red = redactor.redact(name)
        if red != name:
            renamed[name] = red
    for f in session.files:
        f.path = renamed.get(f.path, f.path)  # abs_path stays: it is only for local bookkeeping, never written
    if renamed:
        session.evidence = {k: (replace(ev, source=renamed[ev.source]) if ev.source in renamed else ev)
                            for k, ev in session.evidence.items()}
    for w in session.warnings:
        if w.file is not None:
            w.file = renamed.get(w.file) or redactor.redact(w.file)


def _rescan(a: Assembled, redactor: Redactor) -> None:
    """A last scan of what will be written: anything found (e.g. a secret split across two
    records that a rule joined) is masked in place, and counted."""
    doc = a.trace.model_dump(mode="json")
    text = json.dumps(doc, ensure_ascii=False)
    if not redactor.scan(text):
        return
    fixed = redactor.redact_value(doc)
    a.trace = Trace.model_validate(fixed)
    a.manifest.redaction = {**redactor.report(), "rescan_fixed": True}


def make_redactor(sessions: list[Session]) -> Redactor:
    from .redact import Redactor as RuleRedactor
    from .redact import user_names_from_paths

    paths = [s.meta.cwd for s in sessions if s.meta.cwd]
    authors = {e.info.author_name for s in sessions for e in s.events
               if isinstance(e.info, CommitInfo) and e.info.author_name}
    return RuleRedactor(user_names=user_names_from_paths(paths), extra_person_names=authors)


def process(session: Session, options: RetraceOptions, redactor: Redactor | None) -> Assembled:
    """One session, read: redacted (unless `redactor` is None or a `NoRedactor`), segmented,
    [given to the model,] assembled."""
    stage = _STAGE_HOOK.get()
    red: Redactor = NoRedactor() if redactor is None else redactor
    redacting = not isinstance(red, NoRedactor)
    if redacting:
        stage("redacting")
        _redact_session(session, red)
    report = red.report()
    tier = "research_preview" if redacting else "private"
    stage("segmenting")
    seg = Segmenter(session)
    drafts = seg.run()
    if not options.llm_model:
        assembled = assemble(session, drafts, release_tier=tier, redaction=report, matches=seg.matches)
    else:
        from .llm import LLMConfig, enrich

        cfg = LLMConfig(model=options.llm_model, api_base=options.llm_api_base, cache_dir=options.cache_dir,
                        client=options.llm_client, timeout_s=options.llm_timeout_s,
                        max_concurrency=options.llm_concurrency, chunk_tokens=options.llm_chunk_tokens)
        outcome = enrich(session, drafts, cfg)  # proposals for null fields, only those whose citations pass
        assembled = assemble(session, drafts, release_tier=tier, redaction=report, matches=seg.matches,
                             proposals=outcome.proposals, extra_factors=outcome.factors, llm=outcome.report)
    if redacting:
        _rescan(assembled, red)
    return assembled


def one_trace_expected(paths: Sequence[Path]) -> bool:
    """One session file (or only --history/--git): `-o` names the trace folder itself. A
    directory or several files: `-o` is always a parent, whatever is found in it today."""
    return not paths or (len(paths) == 1 and not paths[0].is_dir())


def retrace(paths: Sequence[str | Path], options: RetraceOptions | None = None, *, sink: Sink | None = None,
            keep: bool = True, progress: Progress | None = None, raise_if_empty: bool = True,
            select: Callable[[sources.Source, Path], bool] | None = None, model: object | None = None) -> RetraceRun:
    """Retrace every session named by `paths`, one session at a time: each is read, redacted,
    segmented, assembled and handed to `sink` before the next is read. With `options.jobs`
    > 1, files are read to assembled in that many worker processes (at most a few open at
    once) and handed to `sink` here, in input order: the same output as one process gives
    (`_parallel`). A session that fails
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
        from .llm.langchain import LangChainCompletion

        client = LangChainCompletion(model)
        options = replace(options, llm_model=client.name, llm_client=client, jobs=1)
    given = [Path(p).expanduser() for p in paths]
    unread: list[tuple[Path, str]] = []
    found = discover(given, unread) if given else []
    if select is not None:
        found = [(src, p) for src, p in found if select(src, p)]
    if sink is None and options.out is not None:
        sink = FolderSink(options.out, parent=not one_trace_expected(given))
    if isinstance(sink, FolderSink):
        sink = _OncePerRun(sink)
    timeline = _timeline_inputs(options) if (options.history or options.git) else None
    run = RetraceRun()
    meter = _Meter(progress)
    if not found and timeline is not None:
        tl = timeline
        meter.bytes_total = sum(_size(h) for h in options.history)
        meter.start("--history/--git", meter.bytes_total)
        meter.stage("reading")
        run.outcomes += _retrace_loaded(lambda: [_merge(None, tl, options)], "--history/--git", options, sink, keep,
                                        meter)
        meter.finish()
    sizes = [_size(path) for _, path in found]
    meter.files, meter.bytes_total = max(1, len(found)), sum(sizes)
    jobs = parallel_jobs(options, len(found), sum(sizes))
    if jobs > 1:
        from ._parallel import retrace_in_order

        run.outcomes += retrace_in_order(found, sizes, options, sink, keep, timeline, meter, jobs)
    else:
        for (src, path), size in zip(found, sizes, strict=True):
            meter.start(str(path), size)
            run.outcomes += _retrace_file(path, options, sink, keep, src, timeline, meter)
            meter.finish()
    if not run.results and raise_if_empty:
        first = run.failed[0].error if run.failed else None
        if first is not None:
            raise first
        if run.skipped:
            raise NoWork(run.skipped[0].message, path=run.skipped[0].path)
        raise InputError("no sessions found", path=given[0] if given else None)
    run.outcomes += [Outcome(str(u), "skipped", why) for u, why in unread]
    return run


# Below this, auto (`jobs=0`) stays in one process: each worker spends ~1.5 s of CPU starting
# (imports, compiling the secret rules) before its first file, about what 2-3 MB of logs
# take to retrace (bench/README.md, "Both cores").
AUTO_PARALLEL_BYTES = 4_000_000


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def parallel_jobs(options: RetraceOptions, files: int, total_bytes: int) -> int:
    """How many worker processes a run of `files` session files uses (1: in this process):
    `options.jobs`, at most one per file; with `jobs=0` (auto, the CLI's default) the CPUs,
    for a run of AUTO_PARALLEL_BYTES or more. The model pass runs in one process (its
    requests are already concurrent, and an injected client need not survive a trip to
    another process)."""
    if options.llm_model:
        return 1
    jobs = options.jobs
    if jobs == 0:
        jobs = default_jobs() if total_bytes >= AUTO_PARALLEL_BYTES else 1
    return max(1, min(jobs, files))


def retrace_one(path: str | Path, options: RetraceOptions | None = None, *, sink: Sink | None = None,
                keep: bool = True, source: sources.Source | None = None,
                timeline: _Timeline | None = None, progress: Progress | None = None) -> list[Outcome]:
    """Retrace one session file: an outcome per session it holds (usually one), never raising
    for what went wrong with the file (the outcome says so)."""
    options = options or RetraceOptions()
    p = Path(path).expanduser()
    meter = _Meter(progress, files=1)
    meter.bytes_total = _size(p)
    meter.start(str(p), meter.bytes_total)
    out = _retrace_file(p, options, sink, keep, source, timeline, meter)
    meter.finish()
    return out


def _retrace_file(p: Path, options: RetraceOptions, sink: Sink | None, keep: bool, source: sources.Source | None,
                  timeline: _Timeline | None, meter: _Meter) -> list[Outcome]:
    def load() -> list[Session]:
        src = source or sources.detect(p)
        got = src.read(p, ReadContext(root=p.parent, debug=options.debug))
        if timeline is not None:
            got = [_merge(s, timeline, options) for s in got if s.source_kind != "shell"] or got
        return got

    meter.stage("reading")
    return _retrace_loaded(load, str(p), options, sink, keep, meter)


def _retrace_loaded(load: Callable[[], list[Session]], where: str, options: RetraceOptions, sink: Sink | None,
                    keep: bool, meter: _Meter = _NO_METER) -> list[Outcome]:
    with gc_paused():
        try:
            sessions = load()
        except Exception as e:  # one file's failure (or a bug) must not stop the others
            return [_failed(where, e, options)]
        if len(sessions) > 1 and isinstance(sink, (FolderSink, _OncePerRun)):
            sink.several()  # one file holding several sessions (an evaluation output.jsonl): -o is their parent
        return [_retrace_session(s, where, options, sink, keep, meter) for s in sessions]


def _retrace_session(s: Session, where: str, options: RetraceOptions, sink: Sink | None, keep: bool,
                     meter: _Meter = _NO_METER) -> Outcome:
    place = s.files[0].abs_path if s.files else where
    if not _has_work(s):
        unreadable = bool(s.quality.unparsable_records and not s.quality.records)
        return Outcome(place, "failed" if unreadable else "skipped", _no_work_reason(s), session_id=s.session_id,
                       warnings=list(s.warnings), exit_code=ExitCode.INPUT if unreadable else ExitCode.OK,
                       error=NoWork(_no_work_reason(s), path=place) if unreadable else None,
                       timeline=_timeline_counts(s))
    try:
        s.warnings.extend(check_times(s))  # odd times are reported, never used to order anything
        redactor = make_redactor([s]) if options.redact else None
        token = _STAGE_HOOK.set(meter.stage)
        try:
            a = process(s, options, redactor)
        finally:
            _STAGE_HOOK.reset(token)
        if not a.trace.steps:
            raise NoWork("the log holds no work (no messages, calls or commands)", path=place)
        if sink is not None:
            meter.stage("writing")
        where_to = sink.write(a, s) if sink is not None else None
    except Exception as e:
        return _failed(place, e, options)
    t = a.trace
    return Outcome(place, "written" if where_to else "traced", session_id=s.session_id, trace_id=t.trace_id,
                   where=where_to, steps=t.summary.total_steps, turns=t.summary.total_turns,
                   confidence=t.summary.agent_confidence, warnings=list(s.warnings),
                   assembled=a if keep else None, session=s if keep else None,
                   llm=_llm_result(a), timeline=_timeline_counts(s))


def _timeline_counts(s: Session) -> TimelineCounts | None:
    c = s.meta.extra.get("timeline")
    if not isinstance(c, dict):
        return None
    w = c.get("window")
    win: dict[str, Any] = w if isinstance(w, dict) else {}

    def n(key: str) -> int:
        v = c.get(key)
        return v if isinstance(v, int) else 0

    srcs = tuple((str(x.get("kind")), int(x.get("events") or 0)) for x in c.get("sources") or [] if isinstance(x, dict))
    return TimelineCounts(srcs, n("commands"), n("commits"), n("outside_window"), n("untimed_left_out"),
                          win.get("from"), win.get("to"), str(win.get("rule") or "none"))


def _llm_result(a: Assembled) -> LLMResult | None:
    rep = a.manifest.llm
    if rep is None:
        return None
    warning = rep.get("warning")
    return LLMResult(model=str(rep.get("model") or ""), accepted=int(rep.get("accepted") or 0),
                     fallbacks=int(rep.get("fallbacks") or 0), warning=warning if isinstance(warning, str) else None)


SAME_TRACE = "the same trace as "  # how a SameTrace skip's message starts (the CLI counts them by it)


class _OncePerRun:
    """A run's folder sink, taking each trace once. A session given twice (a log and its copy
    in a backup folder) makes the very same trace: the second is a SameTrace skip naming the
    first, where writing it again counted one folder as two written traces (or, under another
    file name, wrote a duplicate folder)."""

    def __init__(self, sink: FolderSink) -> None:
        self.sink = sink
        self.written: dict[str, tuple[str, str]] = {}  # trace id -> (its input, where it went)

    def several(self) -> None:
        self.sink.several()

    def write(self, assembled: Assembled, session: Session) -> str:
        tid = assembled.trace.trace_id
        if tid in self.written:
            first, where = self.written[tid]
            raise SameTrace(f"{SAME_TRACE}{first} (an identical session), written to {where}")
        where = self.sink.write(assembled, session)
        self.written[tid] = (session.files[0].abs_path if session.files else "?", where)
        return where


def _failed(where: str, e: Exception, options: RetraceOptions) -> Outcome:
    if isinstance(e, SameTrace):
        return Outcome(where, "skipped", e.message)
    if isinstance(e, ForsyError):
        return Outcome(e.path or where, "failed", e.message, error=e, exit_code=e.exit_code)
    if options.debug:
        raise e
    err = ForsyError(f"internal error: {type(e).__name__}: {str(e)[:300]} (run with --debug for the traceback)")
    return Outcome(where, "failed", err.message, error=err, exit_code=ExitCode.INTERNAL)


def _no_work_reason(s: Session) -> str:
    if s.quality.unparsable_records and not s.quality.records:
        return "no record of the file could be read"
    if any(w.code == "warmup-only" for w in s.warnings):
        return "a Warmup stub (cache priming), not work"
    return "the log holds no work (no messages, calls or commands)"


def _has_work(s: Session) -> bool:
    return any(e.kind in ("user", "tool_call", "agent_text", "shell_command", "commit") for e in s.events)


@dataclass
class _Timeline:
    history: list[Session]
    git: list[Session]


def _timeline_inputs(options: RetraceOptions) -> _Timeline:
    from .sources.asciinema import AsciinemaSource
    from .sources.git import read_git
    from .sources.shell import ShellHistorySource

    shell, cast = ShellHistorySource(), AsciinemaSource()
    hist: list[Session] = []
    for h in options.history:
        head = sources.read_head(h)
        if cast.sniff(h, head):  # a terminal recording: its commands, as a history's
            hist.extend(cast.read_history(h, ReadContext(root=h.parent)))
            continue
        why = shell.refuses(h, head)
        if why:
            raise UnsupportedFormat(f"--history: {why}", path=h)
        hist.extend(shell.read(h, ReadContext(root=h.parent)))
    git = [read_git(options.git, since=options.since, until=options.until, ctx=ReadContext(root=options.git))] \
        if options.git else []
    return _Timeline(hist, git)


def _merge(agent: Session | None, tl: _Timeline, options: RetraceOptions) -> Session:
    from .rules import timeline

    return timeline.merge(agent, tl.history, tl.git, window=(options.since, options.until))
