"""A session's redaction: every string a later stage could write or send masked in one fixed
order (`redact_session`), and a last scan of what will be written (`rescan`). Redaction runs
right after reading, so nothing later (segmenter, model, writer) ever holds a raw secret."""

from __future__ import annotations

import json
from dataclasses import replace

from ..assemble import Assembled
from ..evidence import Session
from ..models import Trace
from ..payloads import CommitInfo, redact_payload
from ..protocols import Redactor


def redact_session(session: Session, redactor: Redactor) -> None:
    """Mask every string a later stage could write or send, in one fixed order (so the
    placeholder numbers, and the output, are the same on every run)."""
    texts = [(e, e.text) for e in session.events if e.text is not None]
    learn = getattr(redactor, "learn", None)
    if learn is not None:  # known once, masked everywhere: a secret given late is masked early too
        learn(session_texts(session))
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
    redact_names(session, redactor)


def session_texts(session: Session) -> list[object]:
    """Every text redact_session masks, unchanged: what the redactor learns secrets from first."""
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


def redact_names(session: Session, redactor: Redactor) -> None:
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


def rescan(a: Assembled, redactor: Redactor) -> None:
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
    from ..redact import Redactor as RuleRedactor
    from ..redact import user_names_from_paths

    paths = [s.meta.cwd for s in sessions if s.meta.cwd]
    authors = {e.info.author_name for s in sessions for e in s.events
               if isinstance(e.info, CommitInfo) and e.info.author_name}
    return RuleRedactor(user_names=user_names_from_paths(paths), extra_person_names=authors)
