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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import sources
from .assemble import Assembled, assemble
from .emit.folder import write_folder
from .errors import InputError, UnsupportedFormat
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
        root = path.parent
        sessions.extend(src.read(path, ReadContext(root=root, debug=options.debug)))
    return sessions


def slug(session: Session) -> str:
    sid = re.sub(r"[^A-Za-z0-9._-]+", "-", session.session_id)[:40] or "session"
    return f"{session.source_kind.replace('_', '-')}-{sid}"


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


def retrace(paths: list[Path], options: RetraceOptions, progress: Progress | None = None) -> list[RetraceResult]:
    """Read, segment, score and write one trace folder per session."""
    sessions = read(paths, options) if paths else []
    sessions = [s for s in sessions if _has_work(s)] or sessions
    if options.history or options.git:
        sessions = _with_timeline(sessions, options)
    if not sessions:
        raise InputError("no sessions found", path=paths[0] if paths else None)
    results: list[RetraceResult] = []
    total = len(sessions)
    for i, s in enumerate(sessions):
        if not s.events:
            where = s.files[0].path if s.files else None
            raise UnsupportedFormat("the log holds no work (no messages, calls or commands)", path=where)
        redactor = make_redactor([s]) if options.redact else None
        a = process(s, options, redactor)
        if not a.trace.steps:
            where = s.files[0].path if s.files else None
            raise UnsupportedFormat("the log holds no work (no messages, calls or commands)", path=where)
        dest = _destination(options.out, s, total)
        folder = write_folder(a, dest)
        results.append(RetraceResult(s, a, folder))
        if progress:
            progress(slug(s), i + 1, total)
    return results


def _has_work(s: Session) -> bool:
    return any(e.kind in ("user", "tool_call", "agent_text", "shell_command", "commit") for e in s.events)


def _destination(out: Path | None, s: Session, total: int) -> Path:
    if out is None:
        return Path("forsy-traces") / slug(s)
    return out if total == 1 else out / slug(s)


def _with_timeline(sessions: list[Session], options: RetraceOptions) -> list[Session]:
    from . import timeline
    from .sources.git import read_git
    from .sources.shell import ShellHistorySource

    shell = ShellHistorySource()
    hist: list[Session] = []
    for h in options.history:
        hist.extend(shell.read(h, ReadContext(root=h.parent)))
    git = [read_git(options.git, since=options.since, until=options.until, ctx=ReadContext(root=options.git))] \
        if options.git else []
    agents = [s for s in sessions if s.source_kind not in ("shell",)]
    if not agents:
        return [timeline.merge(None, hist, git, window=(options.since, options.until))]
    return [timeline.merge(a, hist, git, window=(options.since, options.until)) for a in agents]
