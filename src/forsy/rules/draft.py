"""A step under construction (`Draft`) and the provenance its values carry (`copied`, `derived`):
what the segmenter builds and every later stage (the model pass, the assembler, the score) reads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ..evidence import Event, Ref
from ..jsontext import json_text as json_text  # where the rules' callers have always found it
from ..models import EvidenceRef, FieldProvenance, trusted
from ..payloads import CallInfo, HistoryMatch, MessageInfo, ResultInfo, ShellInfo
from .catalogue import check as check_rule


def source_rule(e: Event, default: str | None = None) -> tuple[str | None, dict[str, str | int | float] | None]:
    """How a copied value sits in its record, for `forsy verify`: a JSON string to parse
    first (`C-json-string` with its inner pointer) or a slice of the text (`C-span`)."""
    if e.info is not None and e.info.inner_pointer is not None:
        return "C-json-string", {"pointer": e.info.inner_pointer}
    if e.info is not None and e.info.span is not None:
        return "C-span", None
    return default, None


# Provenance is built without validation (`trusted`): tens of thousands of values per large
# log, each built here from typed values; the sets of fields given are shared (see `trusted`).
_REF_SET = {"id", "pointer"}
_PROV_SET = {"origin", "rule", "params", "evidence", "redacted", "excerpt", "model"}  # not reviewer


# One EvidenceRef per place cited while a session is segmented (`sharing_refs`): a large log's
# values cite the same (record, pointer) about twice each, and every copy costs ~250 bytes held
# until the trace is written. Nothing changes an EvidenceRef once built (provenance is replaced,
# never edited), so sharing one is safe.
_SHARED_REFS: ContextVar[dict[Ref, EvidenceRef] | None] = ContextVar("forsy_shared_refs", default=None)


@contextmanager
def sharing_refs() -> Iterator[None]:
    """Within this block, values citing the same place share one EvidenceRef."""
    token = _SHARED_REFS.set({})
    try:
        yield
    finally:
        _SHARED_REFS.reset(token)


def _ref(r: Ref) -> EvidenceRef:
    return trusted(EvidenceRef, {"id": r.ev, "pointer": r.pointer}, _REF_SET)


def _refs(refs: list[Ref]) -> list[EvidenceRef]:
    shared = _SHARED_REFS.get()
    if shared is None:
        return [_ref(r) for r in refs]
    out = []
    for r in refs:
        ref = shared.get(r)
        if ref is None:
            ref = shared[r] = _ref(r)
        out.append(ref)
    return out


def _prov(origin: str, rule: str | None, params: dict[str, str | int | float] | None, refs: list[Ref],
          excerpt: bool) -> FieldProvenance:
    values = {"origin": origin, "rule": rule, "params": params, "evidence": _refs(refs), "redacted": False,
              "excerpt": excerpt, "model": None, "reviewer": None}
    return trusted(FieldProvenance, values, _PROV_SET)


def copied(refs: list[Ref], *, rule: str | None = None, excerpt: bool = False,
           params: dict[str, str | int | float] | None = None) -> FieldProvenance:
    if rule is not None:
        check_rule(rule, params)
    return _prov("copied", rule, params, refs, excerpt)


def derived(rule: str, refs: list[Ref], **params: str | int | float) -> FieldProvenance:
    """A value derived by `rule` (an id of forsy.rules.catalogue) with its parameters."""
    check_rule(rule, params)
    return _prov("derived", rule, params or None, refs, False)


@dataclass
class Draft:
    """A step under construction: its values, the origin of each, and its evidence."""

    values: dict[str, Any]
    prov: dict[str, FieldProvenance] = field(default_factory=dict)
    evidence: list[str] = field(default_factory=list)
    call_id: str | None = None
    tool_args: Any = None
    rich: Any = None
    actor_key: str = ""
    abandoned: bool = False  # on a branch the user rewound away from
    group: str | None = None  # the call's parallel group as the source wrote it
    no_result_expected: bool = False  # the log never holds this call's result (Codex web search)
    result: ResultInfo | None = None  # the tool result's payload (persisted output, exit code...)
    commits: list[Event] = field(default_factory=list)  # commits that record this step's change
    shell: ShellInfo | None = None  # a shell history command's record
    shell_history: HistoryMatch | None = None  # a call matched to the shell history
    writes_to: tuple[str | None, str | None] | None = None  # a running process's (starting call, id as named)

    def copy(self) -> Draft:
        """A draft whose values, provenance and evidence lists can change without touching this one."""
        return dataclasses.replace(self, values=dict(self.values), prov=dict(self.prov), evidence=list(self.evidence),
                                   commits=list(self.commits))

    def set(self, name: str, value: Any, prov: FieldProvenance) -> None:
        if value is None:
            return
        self.values[name] = value
        self.prov[name] = prov
        for e in prov.evidence:
            if e.id not in self.evidence:
                self.evidence.append(e.id)


__all__ = ["Draft", "copied", "derived", "json_text", "parsed_call", "sharing_refs", "sliced_rule", "source_rule"]


def sliced_rule(rule: str, texts: list[Event]) -> str:
    """The rule of texts copied together: with C-span when some are slices of their strings (one alone is C-span),
    else with the rule that joined an agent text from its streamed pieces (`MessageInfo.rule`: R-text/deltas)."""
    joins = sorted({t.info.rule for t in texts if isinstance(t.info, MessageInfo) and t.info.rule})
    if not any(t.info is not None and t.info.span is not None for t in texts):
        return "+".join([rule, *joins])
    return "C-span" if len(texts) == 1 else rule + "+C-span"


def parsed_call(e: Event) -> FieldProvenance | None:
    """How a call read out of the model's text was read (`CallInfo.parsed_by`, the span of its
    text as the rule's parameters), None for a call the log records as one."""
    info = e.info if isinstance(e.info, CallInfo) else None
    if info is None or info.parsed_by is None:
        return None
    span = {"span_start": info.span[0], "span_end": info.span[1]} if info.span is not None else {}
    return derived(info.parsed_by, e.refs[:1], **span)
