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
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath
from typing import Any

from . import sources
from .assemble import Assembled, assemble
from .emit.folder import write_folder
from .errors import ExitCode, ForsyError, InputError, NoWork, OutputError
from .evidence import Ref, Session
from .models import Trace
from .segment import Segmenter
from .sources import ReadContext

Progress = Callable[[str, int, int], None]  # (label, done, total)


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
    llm_client: Any = None  # injected for tests; otherwise litellm on the LLM path
    cache_dir: Path | None = None


@dataclass
class RetraceResult:
    session: Session
    assembled: Assembled
    folder: Path | None


@dataclass
class Skipped:
    """A session that was not written, and why: `failed` ones count against the exit code,
    the others (a log with no work, a Warmup stub) are only reported."""

    path: str
    message: str
    failed: bool
    exit_code: int = ExitCode.OK
    error: ForsyError | None = field(default=None, repr=False)


@dataclass
class RetraceRun:
    """What one run did: every trace written and every session skipped, in input order."""

    results: list[RetraceResult] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def failed(self) -> list[Skipped]:
        return [s for s in self.skipped if s.failed]

    @property
    def exit_code(self) -> int:
        if not self.failed:
            return ExitCode.OK
        return ExitCode.PARTIAL if self.results else self.failed[0].exit_code


def discover(paths: Iterable[Path]) -> list[tuple[sources.Source, Path]]:
    """Every session file named by `paths` (files, session dirs, project dirs), with its source."""
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
        hits: list[tuple[sources.Source, Path]] = []
        for src in sources.available():
            hits.extend((src, f) for f in src.discover(p))
        if not hits:
            raise InputError("no session logs forsy reads were found in this directory", path=p)
        found.extend(hits)
    return found


def read(paths: Iterable[Path], options: RetraceOptions) -> list[Session]:
    sessions: list[Session] = []
    for src, path in discover(paths):
        sessions.extend(src.read(path, ReadContext(root=path.parent, debug=options.debug)))
    return sessions


_NAME_PART = re.compile(r"[^A-Za-z0-9._-]+")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _name_part(text: str, limit: int = 32) -> str:
    return _NAME_PART.sub("-", text).strip("-.")[:limit].strip("-.")


def trace_name(session: Session, started_at: str | None = None) -> str:
    """The trace folder's name, for a person to find it: agent, project, date, short session
    id, and the file's name when it is not the session id (a resumed or forked session's
    files share one id, and each is its own trace)."""
    parts = [session.meta.agent or session.source_kind]
    if session.meta.cwd:
        parts.append(PurePath(session.meta.cwd.replace("\\", "/")).name)
    if started_at and _DATE.match(started_at):
        parts.append(started_at[:10])
    sid = _name_part(session.session_id, 8)
    parts.append(sid)
    if session.files:
        stem = PurePath(session.files[0].path).name.split(".jsonl")[0]
        if session.session_id not in stem and stem not in session.session_id:
            parts.append(stem)
    return "-".join(p for p in (_name_part(x) for x in parts) if p) or "trace"


def slug(session: Session) -> str:
    return trace_name(session)


def _redact_session(session: Session, redactor: Any) -> None:
    """Mask every string a later stage could write or send, in one fixed order (so the
    placeholder numbers, and the output, are the same on every run)."""
    texts = [e for e in session.events if e.text is not None]
    for e, red in zip(texts, redactor.redact_many([e.text for e in texts]), strict=True):
        e.text = red
    rv = redactor.redact_value
    for e in session.events:
        if e.args is not None:
            e.args = rv(e.args)
        if e.meta:
            e.meta = _redact_meta(e.meta, rv)
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


def _redact_names(session: Session, redactor: Any) -> None:
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
        f.abs_path = redactor.redact(f.abs_path)
        f.path = renamed.get(f.path, f.path)
    if renamed:
        session.evidence = {k: (replace(ev, source=renamed[ev.source]) if ev.source in renamed else ev)
                            for k, ev in session.evidence.items()}
    for w in session.warnings:
        if w.file is not None:
            w.file = renamed.get(w.file) or redactor.redact(w.file)


def _redact_meta(meta: dict[str, Any], rv: Callable[[Any], Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in meta.items():
        if isinstance(v, Ref):
            out[k] = v  # evidence pointers are ids, not text
        elif k == "persisted" and isinstance(v, dict):
            out[k] = {**v, "text": rv(v.get("text"))}
        else:
            out[k] = rv(v)
    return out


def _rescan(a: Assembled, redactor: Any) -> None:
    """A last scan of what will be written: anything found (e.g. a secret split across two
    records that a rule joined) is masked in place, and counted."""
    doc = a.trace.model_dump(mode="json")
    text = json.dumps(doc, ensure_ascii=False)
    if not redactor.scan(text):
        return
    fixed = redactor.redact_value(doc)
    a.trace = Trace.model_validate(fixed)
    a.manifest.redaction = {**redactor.report(), "rescan_fixed": True}


def make_redactor(sessions: list[Session]) -> Any:
    from .redact import Redactor, user_names_from_paths

    paths = [s.meta.cwd for s in sessions if s.meta.cwd]
    authors = {str(e.meta.get("author_name")) for s in sessions for e in s.events
               if e.kind == "commit" and e.meta.get("author_name")}
    return Redactor(user_names=user_names_from_paths(paths), extra_person_names=authors)


def process(session: Session, options: RetraceOptions, redactor: Any | None) -> Assembled:
    if redactor is not None:
        _redact_session(session, redactor)
        report: dict[str, Any] = redactor.report()
        tier = "research_preview"
    else:
        report = {"enabled": False, "note": "redaction disabled with --no-redact"}
        tier = "private"
    seg = Segmenter(session)
    drafts = seg.run()
    if not options.llm_model:
        assembled = assemble(session, drafts, release_tier=tier, redaction=report, matches=seg.matches)
        if redactor is not None:
            _rescan(assembled, redactor)
        return assembled
    from .llm import LLMConfig, apply_trace_fields, enrich

    cfg = LLMConfig(model=options.llm_model, api_base=options.llm_api_base, cache_dir=options.cache_dir,
                    client=options.llm_client)
    outcome = enrich(session, drafts, cfg)  # only null fields, only values whose citations pass
    assembled = assemble(session, drafts, release_tier=tier, redaction=report, matches=seg.matches,
                         extra_factors=outcome.factors, validation_level=outcome.validation_level,
                         llm=outcome.report)
    apply_trace_fields(assembled, session, outcome)
    if redactor is not None:
        _rescan(assembled, redactor)
    return assembled


def retrace(paths: Sequence[str | Path], options: RetraceOptions, progress: Progress | None = None) -> RetraceRun:
    """Retrace every session named by `paths`, one session at a time: each is read, redacted,
    segmented, assembled and written before the next is read, so memory is set by the
    largest session. A session that fails is recorded (file and message) and the run goes
    on; when nothing at all could be written, the first failure is raised."""
    given = [Path(p) for p in paths]
    found = discover(given) if given else []
    single = len(given) == 1 and not given[0].is_dir()
    timeline = _timeline_inputs(options) if (options.history or options.git) else None
    run = RetraceRun()
    names: dict[Path, str] = {}
    if not found and timeline is not None:
        _one(run, names, lambda: [_merge(None, timeline, options)], "--history/--git", options, single=True)
    for i, (src, path) in enumerate(found):
        def load(src: sources.Source = src, path: Path = path) -> list[Session]:
            got = src.read(path, ReadContext(root=path.parent, debug=options.debug))
            if timeline is not None:
                got = [_merge(s, timeline, options) for s in got if s.source_kind != "shell"] or got
            return got
        _one(run, names, load, str(path), options, single=single)
        if progress:
            progress(path.name, i + 1, len(found))
    if not run.results:
        first = run.failed[0].error if run.failed else None
        if first is not None:
            raise first
        if run.skipped:
            raise NoWork(run.skipped[0].message, path=run.skipped[0].path)
        raise InputError("no sessions found", path=given[0] if given else None)
    return run


def _one(run: RetraceRun, names: dict[Path, str], load: Callable[[], list[Session]], where: str,
         options: RetraceOptions, *, single: bool) -> None:
    """Read the sessions of one input and write each; every failure is recorded, not raised."""
    try:
        sessions = load()
    except ForsyError as e:
        _fail(run, where, e)
        return
    except Exception as e:  # a bug in one file must not stop the others
        if options.debug:
            raise
        _fail(run, where, ForsyError(f"internal error: {type(e).__name__}: {str(e)[:300]}"), internal=True)
        return
    for s in sessions:
        place = s.files[0].abs_path if s.files else where
        if not _has_work(s):
            run.skipped.append(Skipped(place, _no_work_reason(s), failed=bool(s.quality.unparsable_records
                                                                          and not s.quality.records)))
            continue
        try:
            redactor = make_redactor([s]) if options.redact else None
            a = process(s, options, redactor)
            if not a.trace.steps:
                raise NoWork("the log holds no work (no messages, calls or commands)", path=place)
            dest = _destination(options.out, s, a, single=single and len(sessions) == 1)
            if dest in names and names[dest] != a.trace.trace_id:
                raise OutputError(f"another trace of this run ({names[dest]}) was written to this folder; "
                                  "refusing to replace it", path=dest)
            folder = write_folder(a, dest)
            names[dest] = a.trace.trace_id
            run.results.append(RetraceResult(s, a, folder))
        except ForsyError as e:
            _fail(run, place, e)
        except Exception as e:
            if options.debug:
                raise
            _fail(run, place, ForsyError(f"internal error: {type(e).__name__}: {str(e)[:300]}"), internal=True)


def _fail(run: RetraceRun, where: str, e: ForsyError, *, internal: bool = False) -> None:
    run.skipped.append(Skipped(e.path or where, e.message, failed=True,
                               exit_code=ExitCode.INTERNAL if internal else e.exit_code, error=e))


def _no_work_reason(s: Session) -> str:
    if s.quality.unparsable_records and not s.quality.records:
        return "no record of the file could be read"
    codes = {w.code for w in s.warnings}
    if "warmup-only" in codes:
        return "a Warmup stub (cache priming), not work"
    return "the log holds no work (no messages, calls or commands)"


def _has_work(s: Session) -> bool:
    return any(e.kind in ("user", "tool_call", "agent_text", "shell_command", "commit") for e in s.events)


def _destination(out: Path | None, s: Session, a: Assembled, *, single: bool) -> Path:
    name = trace_name(s, a.trace.started_at)
    if out is None:
        return Path("forsy-traces") / name
    return out if single else out / name


@dataclass
class _Timeline:
    history: list[Session]
    git: list[Session]


def _timeline_inputs(options: RetraceOptions) -> _Timeline:
    from .sources.git import read_git
    from .sources.shell import ShellHistorySource

    shell = ShellHistorySource()
    hist: list[Session] = []
    for h in options.history:
        hist.extend(shell.read(h, ReadContext(root=h.parent)))
    git = [read_git(options.git, since=options.since, until=options.until, ctx=ReadContext(root=options.git))] \
        if options.git else []
    return _Timeline(hist, git)


def _merge(agent: Session | None, tl: _Timeline, options: RetraceOptions) -> Session:
    from . import timeline

    return timeline.merge(agent, tl.history, tl.git, window=(options.since, options.until))
