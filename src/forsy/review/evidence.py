"""The evidence of a trace's steps, read back from the logs and shown masked.

The raw logs stay on the machine that swept them: a step's evidence is read back from the
log (the store remembers the session file's path; a folder needs `--logs`), and when the log
is not there, or changed since, the view says so instead of failing. What is shown passes
through the trace's own redactor (`review.redacted`): the same placeholders as the trace.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..protocols import Redactor
from ..sources import has_scheme
from ..store import sweeper_name
from ..verification import Sources, VerifyReport, check_field  # the per-field check verify runs
from .overlay import Json
from .redacted import cached_redactor
from .source import LoadedTrace, from_home

RECORD_CAP = 20_000  # characters of a log record shown before "show all"


@dataclass(frozen=True)
class Span:
    field: str
    start: int  # character offsets in the record's text
    end: int


@dataclass(frozen=True)
class EvidenceView:
    id: str
    source: str
    line: int | None
    byte_offset: int
    byte_length: int
    sha256: str
    record_type: str | None
    text: str | None  # the record's bytes as text (None: not available)
    note: str  # why it is not available, or "" when it is
    spans: tuple[Span, ...] = ()  # where copied values sit in `text`
    fields: tuple[str, ...] = ()  # the step's fields that cite this record


@dataclass(frozen=True)
class StepEvidence:
    records: list[EvidenceView]
    verdicts: dict[str, str]  # field -> "matches the log" / the problem / why it was not checked
    log_note: str  # "" when the logs were found and unchanged


class EvidenceReader:
    """Reads evidence records back from the logs under `roots`, each source once.

    What it shows is masked by the trace's own redactor (`review.redacted`): the same
    placeholders as the trace. `raw=True` shows the log's bytes as they are; only an explicit,
    local request asks for that (`forsy show --raw-evidence`), never a page that can be shared."""

    def __init__(self, loaded: LoadedTrace, *, raw: bool = False, redactor: Redactor | None = None) -> None:
        self.loaded = loaded
        self.sources: dict[str, str] = dict(loaded.provenance.get("sources") or {})
        self.src = Sources(loaded.roots, self.sources)
        self._checked: dict[str, str] = {}
        self.raw = raw
        self._redactor = redactor
        self._unmasked = ""  # why records cannot be masked (then they are not shown)

    def _mask(self, text: str) -> str | None:
        """`text` as it may be shown: masked (None when it cannot be), or as it is when raw."""
        if self.raw:
            return text
        if self._redactor is None and not self._unmasked:
            try:
                self._redactor = cached_redactor(self.loaded)
            except InputError as e:
                self._unmasked = f"not shown: it could not be redacted ({e.message})"
        return None if self._redactor is None else self._redactor.redact(text)

    def source_note(self, name: str) -> str:
        """"" when the source is here and unchanged, else why its bytes cannot be shown."""
        if name not in self._checked:
            if not self.loaded.roots:
                note = f"the log {name} is not on this machine (give --logs to read it)"
            else:
                try:
                    data = self.src.bytes_of(name)
                except OSError as e:
                    data, note = None, f"the log {name} cannot be read: {e.strerror or e}"
                else:
                    note = self._elsewhere(name)
                if data is not None:
                    digest = self.sources.get(name)
                    note = "" if digest is None or hashlib.sha256(data).hexdigest() == digest else \
                        f"the log {name} changed since the trace was made (sha256 differs)"
            self._checked[name] = note
        return self._checked[name]

    def _elsewhere(self, name: str) -> str:
        """Where a log not found here is: on the machine that swept it, named when the store
        says which (a shared store's drafts come from many), at its path there."""
        host = self.loaded.swept_on
        if not host or host == sweeper_name():  # swept here (and gone since), or by an unnamed machine
            return f"the log {name} is not on this machine (it stays where it was swept)"
        row = self.loaded.row
        where = name if row is None or has_scheme(name) else from_home(str(Path(row.unit_path).parent / name))
        return f"the log {name} is on {host} ({where}), not on this machine"

    def step(self, n: int) -> StepEvidence:
        sp = self.loaded.step_provenance(n)
        evidence: dict[str, Any] = self.loaded.provenance.get("evidence") or {}
        cited: dict[str, list[tuple[str, str]]] = {}
        for fname, fp in (sp.get("fields") or {}).items():
            for ref in fp.get("evidence") or []:
                cited.setdefault(ref.get("id"), []).append((fname, ref.get("pointer") or ""))
        records = []
        for ev_id in dict.fromkeys([*sp.get("evidence", []), *cited]):
            info = evidence.get(ev_id)
            if not isinstance(info, dict):
                continue
            records.append(self._record(ev_id, info, cited.get(ev_id, [])))
        notes = [n for n in dict.fromkeys(self.source_note(r.source) for r in records) if n]
        return StepEvidence(records, self._verdicts(n, sp, evidence), "; ".join(notes))

    def _record(self, ev_id: str, info: Json, fields: list[tuple[str, str]]) -> EvidenceView:
        source, offset, length = str(info.get("source")), int(info.get("byte_offset") or 0), \
            int(info.get("byte_length") or 0)
        digest = str(info.get("sha256"))

        def view(text: str | None, note: str, spans: tuple[Span, ...] = ()) -> EvidenceView:
            return EvidenceView(ev_id, source, info.get("line"), offset, length, digest, info.get("record_type"),
                                text, note, spans, tuple(dict.fromkeys(f for f, _ in fields)))

        note = self.source_note(source)
        data = self.src.bytes_of(source) if not note else None
        if data is None:
            return view(None, note)
        raw = data[offset: offset + length]
        if hashlib.sha256(raw).hexdigest() != digest:
            return view(None, "the bytes at this place no longer match their sha256")
        text = self._mask(raw.decode("utf-8", "replace"))
        if text is None:
            return view(None, self._unmasked)
        return view(text, "", tuple(_spans(text, fields)))

    def _verdicts(self, n: int, sp: Json, evidence: Json) -> dict[str, str]:
        out: dict[str, str] = {}
        steps = self.loaded.steps
        step = steps[n - 1] if 1 <= n <= len(steps) else {}
        for fname, fp in (sp.get("fields") or {}).items():
            if fp.get("origin") != "copied":
                continue  # only copied values can be checked against the log; the others say how they were made
            srcs = {str((evidence.get(r.get("id")) or {}).get("source")) for r in fp.get("evidence") or []}
            notes = [self.source_note(s) for s in srcs if self.source_note(s)]
            if notes:
                out[fname] = "not checked: " + notes[0]
                continue
            rep = VerifyReport()
            check_field(rep, self.src, evidence, n, fname, step.get(fname), fp)
            problem = self._mask(rep.problems[0]) if rep.problems else None  # it may quote the log
            out[fname] = ("differs: " + (problem or "(not shown: it could not be redacted)")) if rep.problems \
                else ("matches the log" if rep.checked else "not checked (nothing to compare)")
        return out


def _spans(text: str, fields: list[tuple[str, str]]) -> list[Span]:
    """Where each cited value sits in the record's text: the value resolved by its pointer,
    found as JSON text in the record (both escapings JSON writers use). The same text elsewhere in
    the record (another field's value, a key, part of a longer value) is not it: a place is taken
    only when putting a marker there changes the value at the pointer, and nothing is marked when
    that is not found among the first `_PLACES_TRIED` places."""
    try:
        record = json.loads(text)
    except ValueError:
        return []
    from ..evidence import resolve_pointer

    out = []
    for fname, pointer in fields:
        try:
            v = resolve_pointer(record, pointer)
        except (KeyError, IndexError, ValueError):
            continue
        if pointer == "" or not isinstance(v, str | int | float | bool) or v == "":
            continue
        for cand in dict.fromkeys((json.dumps(v, ensure_ascii=False), json.dumps(v))):
            at = _place(text, cand, pointer)
            if at is not None:
                inside = 1 if isinstance(v, str) else 0  # a string's span is between its quotes
                out.append(Span(fname, at + inside, at + len(cand) - inside))
                break
    return sorted(out, key=lambda s: s.start)


_PLACES_TRIED = 32
_MARKER = "\x00forsy\x00"  # a string no log value is expected to be


def _place(text: str, token: str, pointer: str) -> int | None:
    """The offset of the `token` (a value's JSON text) that is the value at `pointer`, or None."""
    from ..evidence import resolve_pointer

    i = text.find(token)
    for _ in range(_PLACES_TRIED):
        if i < 0:
            return None
        try:
            marked = json.loads(text[:i] + json.dumps(_MARKER) + text[i + len(token):])
            if resolve_pointer(marked, pointer) == _MARKER:
                return i
        except (ValueError, KeyError, IndexError):
            pass  # the marker broke the JSON or moved the pointer's path: not this place
        i = text.find(token, i + 1)
    return None
