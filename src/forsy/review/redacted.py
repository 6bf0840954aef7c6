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

import re
import threading
from collections import OrderedDict
from itertools import chain
from pathlib import Path

import orjson

from ..errors import InputError
from ..protocols import Redactor
from ..sources.lines import inside
from .source import LoadedTrace

_CACHE: OrderedDict[tuple[str, str], Redactor] = OrderedDict()
_CACHE_SIZE = 8
_LOCK = threading.Lock()


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
    key = (d.trace_id, repr(sorted((d.provenance.get("sources") or {}).items())))
    with _LOCK:
        red = _CACHE.get(key)
        if red is not None:
            _CACHE.move_to_end(key)
            return red
    red = session_redactor(d)
    with _LOCK:
        _CACHE[key] = red
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return red


# the typed placeholders are set aside as a number between two private-use characters (no rule
# takes them for a secret) that the typed text does not hold itself: text holding them is kept as typed
def _markers(text: str) -> tuple[str, str]:
    free = (c for c in map(chr, chain(range(0xE000, 0xF900), range(0xF0000, 0xFFFFE))) if c not in text)
    return next(free), next(free)


def mask_typed(text: str, trace: object) -> str:
    """Text a reviewer typed, masked before it is stored: a token pasted into an edit is never
    published. New placeholders are numbered after the highest of their kind in `trace` (the
    draft with its edits), so `[CREDENTIAL_1]` typed back keeps meaning the trace's value and a
    new secret never takes the name of another one."""
    from ..redact import NUMBERED_PLACEHOLDER_RE as numbered
    from ..redact import Redactor

    highest: dict[str, int] = {}
    for kind, n in numbered.findall(orjson.dumps(trace, option=orjson.OPT_NON_STR_KEYS).decode()):
        highest[kind] = max(highest.get(kind, 0), int(n))
    kept: list[str] = []
    start, end = _markers(text)

    def keep(m: re.Match[str]) -> str:
        kept.append(m.group(0))
        return f"{start}{len(kept) - 1}{end}"

    masked = Redactor().redact(numbered.sub(keep, text))
    renumbered = numbered.sub(lambda m: f"[{m.group(1)}_{highest.get(m.group(1), 0) + int(m.group(2))}]", masked)
    return re.sub(f"{start}(\\d+){end}", lambda m: kept[int(m.group(1))], renumbered)


__all__ = ["cached_redactor", "log_of", "mask_typed", "session_redactor"]
