"""A session's redaction: every string a later stage could write or send masked in one fixed
order (`redact_session`), and a last scan of what will be written (`rescan`). Redaction runs
right after reading, so nothing later (segmenter, model, writer) ever holds a raw secret."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from pydantic import BaseModel

from ..assemble import Assembled
from ..evidence import Session
from ..jsontext import valid_text
from ..models import FieldProvenance, Trace
from ..payloads import CommitInfo, redact_payload
from ..protocols import NoRedactor, Redactor
from ..rules.timeline import shell_command_of


def redact_session(session: Session, redactor: Redactor) -> None:
    """Mask every string a later stage could write or send, in one fixed order (so the
    placeholder numbers, and the output, are the same on every run). The texts are masked
    together: a secret found anywhere in the session is masked everywhere in it (known once,
    masked everywhere), and each text is scanned once."""
    m = session.meta
    texts = [e for e in session.events if e.text is not None]
    values: list[object] = [e.text for e in texts]
    for e in session.events:
        if e.args is not None:
            values.append(e.args)
        for payload in (e.info, e.link):
            if payload is not None:
                redact_payload(payload, _keep(values))  # reads each text field, writes it back as it was
    meta_strings = [name for name in ("system_prompt", "memory", "cwd", "git_branch")
                    if isinstance(getattr(m, name), str)]
    values += [getattr(m, name) for name in meta_strings]
    values.append(m.extra)
    values += m.skills
    redactor.know_printed(command_outputs(session))
    redacted = iter(redactor.redact_values(values))
    for e in texts:
        e.text = next(redacted)
    for e in session.events:
        if e.args is not None:
            e.args = next(redacted)
        for payload in (e.info, e.link):
            if payload is not None:
                redact_payload(payload, lambda _: next(redacted))
    for name in meta_strings:
        setattr(m, name, next(redacted))
    m.extra = next(redacted)
    m.skills = [next(redacted) for _ in m.skills]
    for w in session.warnings:
        w.message = redactor.redact(w.message)
    redact_names(session, redactor)


def command_outputs(session: Session) -> list[tuple[str, str]]:
    """Each shell call's command and its result's text, in the session's order: what the
    redactor reads together to find a secret a command printed by name."""
    results: dict[str, str] = {}
    for e in session.events:
        if e.kind == "tool_result" and e.call_id and e.text and e.call_id not in results:
            results[e.call_id] = e.text
    pairs = [(command, results[e.call_id]) for e in session.events
             if e.call_id in results and (command := shell_command_of(e))]
    # a command the person ran themselves (`!cmd`, Claude Code's bash mode) and the output the
    # log keeps after it as `<bash-stdout>…</bash-stdout>`
    events = session.events
    for n, e in enumerate(events):
        if e.kind == "user" and e.text and e.text.startswith("!"):
            out = next((o.text for o in events[n + 1:n + 4] if o.text and "<bash-stdout>" in o.text), None)
            if out is not None:
                start = out.index("<bash-stdout>") + len("<bash-stdout>")
                end = out.find("</bash-stdout>", start)
                pairs.append((e.text[1:], out[start:end if end >= 0 else len(out)]))
    return pairs


def _keep(out: list[object]) -> Callable[[object], object]:
    def keep(value: object) -> object:
        out.append(value)
        return value
    return keep


def redact_names(session: Session, redactor: Redactor) -> None:
    """File names, folder names and session ids are text too: a secret or a person's name in
    them must not reach the manifest, provenance, folder names or stdout. Evidence ids stay
    as they were made (hashes of the raw place, which reveal nothing)."""
    session.session_id = redactor.redact(session.session_id)
    # scanned together (a conversation kept as one file per event has thousands), in name
    # order: a placeholder's number never depends on the order of a set
    names = sorted({ev.source for ev in session.evidence.values()} | {f.path for f in session.files})
    renamed = {name: red for name, red in zip(names, redactor.redact_many(names), strict=True) if red != name}
    for f in session.files:
        f.path = renamed.get(f.path, f.path)  # abs_path stays: it is only for local bookkeeping, never written
    if renamed:
        session.evidence = {k: (replace(ev, source=renamed[ev.source]) if ev.source in renamed else ev)
                            for k, ev in session.evidence.items()}
    for w in session.warnings:
        if w.file is not None:
            w.file = renamed.get(w.file) or redactor.redact(w.file)


def names_as_text(session: Session) -> None:
    """Without redaction the names are still written: a file or folder name's bytes that are
    not UTF-8 (and a session id taken from such a name) become U+FFFD, as redaction makes them."""
    redact_names(session, _AsText())


class _AsText(NoRedactor):
    def redact(self, text: str) -> str:
        return valid_text(text)

    def redact_many(self, texts: Sequence[str]) -> list[str]:
        return [valid_text(t) for t in texts]


def rescan(a: Assembled, redactor: Redactor) -> None:
    """A last check of what will be written: anything unmasked (e.g. a secret split across
    two records that a rule joined) is masked in place, and counted."""
    fixed = redactor.rescan(a.trace.model_dump(mode="json"))
    if fixed is None:
        return
    a.trace = Trace.model_validate(fixed)
    a.manifest.redaction = {**redactor.report(), "rescan_fixed": True}


def mark_redacted(a: Assembled, redactor: Redactor) -> None:
    """Provenance says of each value whether placeholders replace parts of it (`redacted`): a
    value holding one this run's redactor issued is no longer the evidence's exact text. Run
    after `rescan`, on what will be written."""
    issued = redactor.issued()
    if not issued:
        return
    from ..redact import PLACEHOLDER_RE

    def holds(value: object) -> bool:
        if value is None or type(value) in _SCALARS:
            return False
        if isinstance(value, str):
            return "[" in value and any(m.group() in issued for m in PLACEHOLDER_RE.finditer(value))
        if isinstance(value, BaseModel):
            return any(holds(v) for v in value.__dict__.values())
        if isinstance(value, dict):
            return any(holds(k) or holds(v) for k, v in value.items())
        if isinstance(value, list | tuple):
            return any(holds(v) for v in value)
        return False

    def mark(fields: dict[str, FieldProvenance], value_of: Callable[[str], object]) -> None:
        for name, fp in fields.items():
            if not fp.redacted and holds(value_of(name)):
                fields[name] = fp.model_copy(update={"redacted": True})  # replaced: drafts may share it

    steps = a.trace.steps
    for sp in a.provenance.steps:
        step = steps[sp.step - 1]
        mark(sp.fields, lambda name, step=step: getattr(step, name, None))  # type: ignore[misc]
    mark(a.provenance.trace_fields, lambda path: _at(a.trace, path))


_SCALARS = frozenset({bool, int, float})


def _at(value: object, dotted: str) -> object:
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
    return value


def warm_redactor() -> None:
    """Start loading the secret engine's rules now, beside the reading that comes first."""
    from ..redact import warm_engine

    warm_engine()


def make_redactor(sessions: list[Session]) -> Redactor:
    from ..redact import Redactor as RuleRedactor
    from ..redact import user_names_from_paths

    paths = [s.meta.cwd for s in sessions if s.meta.cwd]
    authors = {e.info.author_name for s in sessions for e in s.events
               if isinstance(e.info, CommitInfo) and e.info.author_name}
    return RuleRedactor(user_names=user_names_from_paths(paths), extra_person_names=authors)
