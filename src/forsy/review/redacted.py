"""Evidence shown to a person passes through the redactor that made the trace.

A step's evidence is read back from the raw log, which holds every secret and personal datum
the trace masks. Before a record is shown (terminal, web page, rendered page) it is masked by
the same redactor, rebuilt: the session is read again from its log and taken through the
pipeline as a retrace does (redaction numbers placeholders in order of first appearance), so a
value masked as `[CREDENTIAL_2]` in the trace is `[CREDENTIAL_2]` in its evidence too.

Fail closed: when the session cannot be read again, records are not shown (the view says why).
Rebuilding costs one retrace of the session; `cached_redactor` keeps the last few.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterable
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ..errors import InputError, RedactionError
from ..protocols import Redactor
from ..sources.lines import inside
from .source import LoadedTrace

if TYPE_CHECKING:
    from ..store import Store

_CACHE: OrderedDict[tuple[str, str], tuple[Redactor, frozenset[str]]] = OrderedDict()
_CACHE_SIZE = 8
_LOCK = threading.Lock()
# redactors being rebuilt now, by key: a second asker waits for the first build, not a second one
_BUILDING: dict[tuple[str, str], threading.Event] = {}


def log_of(d: LoadedTrace) -> Path | None:
    """The session file a trace was made from, when it is on this machine: the store's
    `unit_path`, else the manifest's first source under the `--logs` roots."""
    if d.row is not None and d.row.unit_path and Path(d.row.unit_path).is_file():
        return Path(d.row.unit_path)
    srcs = d.manifest.get("sources") or []
    name = srcs[0].get("path") if srcs and isinstance(srcs[0], dict) else None
    if not isinstance(name, str):
        return None
    for root in d.roots:
        p = inside(root, name)
        if p is not None and p.is_file():
            return p
    return None


def session_redactor(d: LoadedTrace) -> Redactor:
    """The redactor of `d`'s retrace, rebuilt from its log (an InputError when the log is not
    here or cannot be read again)."""
    from ..run import RetraceOptions, make_redactor, process, read_sessions

    log = log_of(d)
    if log is None:
        raise InputError("the log is not on this machine")
    wanted = d.manifest.get("session_id")
    first: Redactor | None = None
    try:
        for s in read_sessions([log]):
            red = make_redactor([s])
            a = process(s, RetraceOptions(), red)
            if a.manifest.session_id == wanted:
                return red
            first = first or red
    except Exception as e:  # any failure to read the log again: nothing raw is shown
        raise InputError(f"the log cannot be read again to redact its records ({type(e).__name__}: {e})",
                         path=log) from None
    if first is None:
        raise InputError("the log holds no session", path=log)
    return first  # a session whose id was masked differently: the file's (usually only) session


def cached_redactor(d: LoadedTrace) -> Redactor:
    """`session_redactor`, kept for the last few traces (keyed by trace id and the log's
    recorded sha256s, so a log that changed is read again)."""
    return _cached(d)[0]


def _cached(d: LoadedTrace) -> tuple[Redactor, frozenset[str]]:
    """The cached redactor of `d` and the placeholders it had issued when it was rebuilt: the
    draft's own (what it issues later stands for values the draft does not hold)."""
    key = _cache_key(d)
    while True:
        with _LOCK:
            got = _CACHE.get(key)
            if got is not None:
                _CACHE.move_to_end(key)
                return got
            building = _BUILDING.get(key)
            if building is None:
                _BUILDING[key] = threading.Event()
                break
        building.wait()  # then the cache holds it, or that build failed and this one tries
    try:
        red = session_redactor(d)
        got = (red, red.issued() if _unchanged(d) else frozenset())
        with _LOCK:
            _CACHE[key] = got
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
        return got
    finally:
        with _LOCK:
            _BUILDING.pop(key).set()


def _cache_key(d: LoadedTrace) -> tuple[str, str]:
    return d.trace_id, repr(sorted((d.provenance.get("sources") or {}).items()))


def warm(d: LoadedTrace) -> threading.Thread | None:
    """Rebuild `d`'s redactor in the background when its log is here and it is not kept yet
    (nor being rebuilt): a review server starts it when a draft's page is shown, so the first
    step a person opens does not wait for a retrace of the session (seconds for a large one).
    One at a time: a person leafing through the queue does not start a retrace a page. The
    thread (None when none is started) ends on its own; a log it cannot read is left for the
    step page to say so."""
    global _WARMING
    if log_of(d) is None:
        return None

    def build() -> None:
        try:
            _cached(d)
        except InputError:
            pass  # the step page rebuilds it and says why it cannot

    with _LOCK:
        if _cache_key(d) in _CACHE or _cache_key(d) in _BUILDING or (_WARMING is not None and _WARMING.is_alive()):
            return None
        _WARMING = threading.Thread(target=build, name="forsy-warm-redactor", daemon=True)
        _WARMING.start()
        return _WARMING


_WARMING: threading.Thread | None = None


def _unchanged(d: LoadedTrace) -> bool:
    """Whether `d`'s log is the one its trace was made from (its sha256 is the one provenance
    recorded): only then are the rebuilt redactor's numbers the trace's own. A log that grew or
    was rewritten numbers its values anew; its redactor still finds what it learnt."""
    log = log_of(d)
    recorded = {str(v) for v in (d.provenance.get("sources") or {}).values()}
    try:
        return log is not None and hashlib.sha256(log.read_bytes()).hexdigest() in recorded
    except OSError:
        return False


# the typed placeholders are set aside as a number between two private-use characters (no rule
# takes them for a secret) that the typed text does not hold itself: text holding them is kept as typed
def _markers(text: str) -> tuple[str, str]:
    free = (c for c in map(chr, chain(range(0xE000, 0xF900), range(0xF0000, 0xFFFFE))) if c not in text)
    return next(free), next(free)


def mask_typed(text: str, trace: object) -> str:
    """Text a reviewer typed, masked before it is stored: a token pasted into an edit is never
    published. New placeholders are numbered after the highest of their kind in `trace` (the
    draft with its edits), so `[CREDENTIAL_1]` typed back keeps meaning the trace's value and a
    new secret never takes the name of another one. (`TypedMasker.of` masks for a stored draft,
    with its log's and its earlier edits' placeholders.)"""
    return TypedMasker("", [_json_text(trace)]).mask(text)


def _json_text(doc: object) -> str:
    return orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS).decode()


class TypedMasker:
    """Masks what reviewers type into one draft as the draft's redactor numbers placeholders:
    one value, one placeholder, throughout the trace.

    - a value the draft's log holds gets the draft's own placeholder (its redactor is rebuilt
      from the log when the log is on this machine: `[CREDENTIAL_1]` stays the log's token,
      and what the log taught it, a password said once, is masked when typed again);
    - a value typed into an earlier edit or note of the draft gets the placeholder it got then:
      each action records a keyed fingerprint of each value it masked (`fingerprints`, in its
      audit record), never the value;
    - a new value gets the next number of its kind after every placeholder the draft, its files
      and its review history hold (never the name of another value).

    Typed placeholders are kept as typed."""

    def __init__(self, trace_id: str, texts: Iterable[str], known: dict[str, str] | None = None,
                 draft: tuple[Redactor, frozenset[str]] | None = None) -> None:
        from ..redact import NUMBERED_PLACEHOLDER_RE as numbered

        self.trace_id = trace_id
        self.highest: dict[str, int] = {}
        for text in texts:
            for kind, n in numbered.findall(text):
                self.highest[kind] = max(self.highest.get(kind, 0), int(n))
        for p in draft[1] if draft else ():
            for kind, n in numbered.findall(p):
                self.highest[kind] = max(self.highest.get(kind, 0), int(n))
        self.known = dict(known or {})  # fingerprint -> placeholder
        self.draft = draft
        self.new: dict[str, str] = {}  # what this masker named: to record with the action

    @classmethod
    def of(cls, store: Store, d: LoadedTrace, *, with_log: bool = True) -> TypedMasker:
        """The masker of stored draft `d`, with the placeholders of its files and its history;
        `with_log`: with its redactor, rebuilt from its log when the log is here."""
        from ..store import every_audit

        known: dict[str, str] = {}
        texts = [_json_text(d.trace), *(b.decode("utf-8", "replace") for n, b in sorted(d.files.items())
                                         if n == "trace.json" or n.startswith("artifacts/"))]
        for a in every_audit(store, d.trace_id):
            texts.append(a.detail_json)
            if a.trace_id == d.trace_id:
                known.update(fingerprints_of(a.detail_json))
        try:
            draft: tuple[Redactor, frozenset[str]] | None = _cached(d) if with_log else None
        except InputError:  # the log is not here: the draft's own values are known by their numbers only
            draft = None
        return cls(d.trace_id, texts, known, draft)

    def mask(self, text: str) -> str:
        from ..jsontext import valid_text
        from ..redact import NUMBERED_PLACEHOLDER_RE as numbered
        from ..redact import Hit
        from ..redact import Redactor as Fresh

        text = valid_text(text)
        kept: list[str] = []
        start, end = _markers(text)

        def keep(m: re.Match[str]) -> str:
            kept.append(m.group(0))
            return f"{start}{len(kept) - 1}{end}"

        aside = numbered.sub(keep, text)
        try:
            hits = [h for h in (self.draft[0] if self.draft else Fresh()).scan(aside) if isinstance(h, Hit)]
        except Exception as e:  # fail closed: what cannot be scanned is not stored, nor shown
            raise RedactionError(f"what was typed could not be scanned for secrets ({type(e).__name__}); "
                                 "nothing was saved") from None
        out: list[str] = []
        pos = 0
        for h in sorted(hits, key=lambda h: h.start):
            if h.start < pos:  # (resolved hits never overlap; a defensive skip)
                continue
            out += [aside[pos:h.start], self._name(h.kind, aside[h.start:h.end])]
            pos = h.end
        out.append(aside[pos:])
        return re.sub(f"{start}(\\d+){end}", lambda m: kept[int(m.group(1))], "".join(out))

    def _name(self, kind: str, value: str) -> str:
        from ..redact import NUMBERED_PLACEHOLDER_RE as numbered

        if self.draft is not None:
            red, own = self.draft
            said = red.redact(value)
            if said in own and numbered.fullmatch(said):  # the log's value: the draft's placeholder
                return said
        # a masker of no stored draft (`mask_typed`) keeps nothing: its values are known within it only
        fp = _fingerprint(self.trace_id, kind, value) if self.trace_id else f"{kind}\0{value}"
        name = self.known.get(fp)
        if name is None:
            self.highest[kind] = self.highest.get(kind, 0) + 1
            name = self.known[fp] = self.new[fp] = f"[{kind}_{self.highest[kind]}]"
        return name


def fingerprints_of(detail_json: str) -> dict[str, str]:
    """The fingerprints an audit record's detail holds (fingerprint -> placeholder)."""
    try:
        detail = orjson.loads(detail_json or "{}")
    except orjson.JSONDecodeError:
        return {}
    got = detail.get("fingerprints") if isinstance(detail, dict) else None
    if not isinstance(got, dict):
        return {}
    return {k: v for k, v in got.items() if isinstance(k, str) and isinstance(v, str)}


_KEY: list[bytes] = []


def _fingerprint(trace_id: str, kind: str, value: str) -> str:
    """A value's fingerprint within one trace: an HMAC under this machine's key, so the store
    holds nothing a guess of the value can be tested against, and one trace's fingerprints say
    nothing of another's."""
    msg = f"{trace_id}\0{kind}\0{value}".encode("utf-8", "surrogatepass")
    return hmac.new(_key(), msg, hashlib.sha256).hexdigest()[:32]


def _key() -> bytes:
    """This machine's key of the fingerprints: 32 random bytes in forsy's data folder, made
    once, readable by this user only, never in a store. A fingerprint under a key the store held
    could be tested against guesses of a short value (a password, a phone number) by whoever
    holds a copy of the store. Where the folder cannot be written, a key of this process's own:
    its fingerprints are matched within it only (a value typed again later is then numbered as
    a new one, never as another value)."""
    with _LOCK:
        if _KEY:
            return _KEY[0]
        from ..config import data_dir

        path = data_dir() / "review-fingerprint.key"
        key = secrets.token_bytes(32)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(key)
        except FileExistsError:
            try:
                on_disk = path.read_bytes()
            except OSError:
                on_disk = b""
            key = on_disk if len(on_disk) == 32 else key  # (another process writing it: its own, at worst)
        except OSError:
            pass
        _KEY.append(key)
        return key


__all__ = ["TypedMasker", "cached_redactor", "fingerprints_of", "log_of", "mask_typed", "session_redactor", "warm"]
