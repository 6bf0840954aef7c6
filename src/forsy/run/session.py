"""The per-session stage, the same in one process or in a worker: a file's sessions read
(and merged with the run's timeline), each one checked for work, redacted, segmented, [given
to the model,] assembled and handed to the sink, and what became of it an `Outcome`. A
session that fails is an outcome, never the end of the run."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from .. import sources, times
from .._gc import gc_paused, give_back
from ..assemble import Assembled, assemble
from ..errors import ExitCode, ForsyError, InputError, InternalError, NoWork, SameTrace
from ..evidence import UNPARSABLE_WARNINGS, Session
from ..protocols import NoRedactor, Redactor
from ..rules.segment import Segmenter
from ..sinks import FolderSink, Sink
from ..sinks.folder import Rendered
from ..sources import ReadContext
from ..times import check_times
from .options import NO_METER, Meter, RetraceOptions, Stage
from .outcome import LLMResult, Outcome, TimelineCounts
from .redaction import make_redactor, mark_redacted, names_as_text, redact_session, rescan, warm_redactor
from .timeline import Timeline, merge

# The stage callback of the session in hand, for `process` (whose signature callers and tests
# rely on) to report "redacting" and "segmenting" without a new parameter.
STAGE_HOOK: ContextVar[Callable[[Stage], None]] = ContextVar("forsy_stage_hook", default=lambda _: None)


def process(session: Session, options: RetraceOptions, redactor: Redactor | None) -> Assembled:
    """One session, read: redacted (unless `redactor` is None or a `NoRedactor`), segmented,
    [given to the model,] assembled."""
    stage = STAGE_HOOK.get()
    red: Redactor = NoRedactor() if redactor is None else redactor
    redacting = not isinstance(red, NoRedactor)
    if redacting:
        stage("redacting")
        redact_session(session, red)
    else:
        names_as_text(session)
    report = red.report()
    tier = "research_preview" if redacting else "private"
    stage("segmenting")
    seg = Segmenter(session)
    drafts = seg.run()
    if not options.llm_model:
        assembled = assemble(session, drafts, release_tier=tier, redaction=report, matches=seg.matches)
    else:
        from ..llm import LLMConfig, enrich

        cfg = LLMConfig(model=options.llm_model, api_base=options.llm_api_base, cache_dir=options.cache_dir,
                        client=options.llm_client, timeout_s=options.llm_timeout_s,
                        max_concurrency=options.llm_concurrency, chunk_tokens=options.llm_chunk_tokens)
        outcome = enrich(session, drafts, cfg)  # proposals for null fields, only those whose citations pass
        assembled = assemble(session, drafts, release_tier=tier, redaction=report, matches=seg.matches,
                             proposals=outcome.proposals, extra_factors=outcome.factors, llm=outcome.report)
    if redacting:
        rescan(assembled, red)
        mark_redacted(assembled, red)
    return assembled


def retrace_file(p: Path, options: RetraceOptions, sink: Sink | None, keep: bool, source: sources.Source | None,
                 timeline: Timeline | None, meter: Meter) -> list[Outcome]:
    """Every session of the file `p`, each handed to `sink`: an outcome per session, or one
    failed outcome for a file that could not be read."""
    def load() -> list[Session]:
        src = source or sources.detect(p)
        got = src.read(p, ReadContext(root=p.parent, debug=options.debug))
        give_back()  # the records the reader dropped (most of the file's size): see `give_back`
        if timeline is not None:
            got = [merge(s, timeline, options) for s in got if s.source_kind != "shell"] or got
        return got

    if options.redact:
        warm_redactor()
    meter.stage("reading")
    return retrace_loaded(load, str(p), options, sink, keep, meter)


def retrace_loaded(load: Callable[[], list[Session]], where: str, options: RetraceOptions, sink: Sink | None,
                   keep: bool, meter: Meter = NO_METER) -> list[Outcome]:
    with gc_paused():
        try:
            sessions = load()
        except Exception as e:  # one file's failure (or a bug) must not stop the others
            return [failed_outcome(where, e, options)]
        if len(sessions) > 1 and isinstance(sink, (FolderSink, OncePerRun)):
            sink.several()  # one file holding several sessions (an evaluation output.jsonl): -o is their parent
        done = [_retrace_session(s, where, options, sink, keep, meter) for s in sessions]
    del sessions
    times.forget()
    give_back()  # what the file's session and trace took, unless kept: the next file starts low
    return done


def _retrace_session(s: Session, where: str, options: RetraceOptions, sink: Sink | None, keep: bool,
                     meter: Meter = NO_METER) -> Outcome:
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
        token = STAGE_HOOK.set(meter.stage)
        try:
            a = process(s, options, redactor)
        finally:
            STAGE_HOOK.reset(token)
        if not a.trace.steps:
            raise NoWork("the log holds no work (no messages, calls or commands)", path=place)
        if sink is not None:
            meter.stage("writing")
        where_to = sink.write(a, s) if sink is not None else None
    except Exception as e:
        return failed_outcome(place, e, options)
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


class OncePerRun:
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
        return self._once(assembled.trace.trace_id, session, lambda: self.sink.write(assembled, session))

    def write_rendered(self, r: Rendered, session: Session) -> str:
        return self._once(r.trace_id, session, lambda: self.sink.write_rendered(r, session))

    def _once(self, tid: str, session: Session, write: Callable[[], str]) -> str:
        if tid in self.written:
            first, where = self.written[tid]
            raise SameTrace(f"{SAME_TRACE}{first} (an identical session), written to {where}")
        where = write()
        self.written[tid] = (session.files[0].abs_path if session.files else "?", where)
        return where


def failed_outcome(where: str, e: Exception, options: RetraceOptions) -> Outcome:
    """What an exception met while retracing `where` comes to: a SameTrace is a skip, a
    ForsyError a failure saying so, anything else an internal error (raised with --debug)."""
    if isinstance(e, SameTrace):
        return Outcome(where, "skipped", e.message)
    if isinstance(e, ForsyError):
        return Outcome(e.path or where, "failed", e.message, error=e, exit_code=e.exit_code)
    if isinstance(e, OSError) and e.filename is not None and not options.debug:
        # the machine, not a bug: a file or folder the reader met beside this one (a companion
        # file, a folder of subagents) that may not be read, or one gone mid-read
        err: ForsyError = InputError(f"could not read {e.filename}: {e.strerror or e}", path=where)
        return Outcome(where, "failed", err.message, error=err, exit_code=err.exit_code)
    if options.debug:
        raise e
    err = InternalError(f"internal error: {type(e).__name__}: {str(e)[:300]} (run with --debug for the traceback)",
                        path=where)
    return Outcome(where, "failed", err.message, error=err, exit_code=err.exit_code)


def _no_work_reason(s: Session) -> str:
    if s.quality.unparsable_records and not s.quality.records:
        # the first record's trouble, with its line: "binary junk" and "cut at line 3" differ
        first = next((w for w in s.warnings if w.code in UNPARSABLE_WARNINGS), None)
        why = "" if first is None else f"; first at line {first.line}: {first.message}" if first.line \
            else f"; {first.message}"
        return f"no record of the file could be read ({s.quality.unparsable_records} unreadable{why})"
    if any(w.code == "warmup-only" for w in s.warnings):
        return "a Warmup stub (cache priming), not work"
    elsewhere = next((w for w in s.warnings if w.code == "work-elsewhere"), None)
    if elsewhere is not None:  # a reader's word: the work is kept where it does not read (its message says)
        return elsewhere.message
    return "the log holds no work (no messages, calls or commands)"


def _has_work(s: Session) -> bool:
    return any(e.kind in ("user", "tool_call", "agent_text", "shell_command", "commit") for e in s.events)
