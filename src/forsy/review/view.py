"""What a reader sees of a trace, as plain values: the same for the terminal (`forsy show`),
the web app and the static page (`forsy render`), so the three never disagree.

Values are the trace's own text, unescaped: each renderer escapes for its medium (rich
markup and control characters, HTML, Markdown). Long text is cut here only for the step
table; whole values are shown by the step views.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .evidence import EvidenceReader, StepEvidence
from .overlay import STEP_EDITABLE
from .source import LoadedTrace, from_home

SHORT = 80  # characters of a step's input in the step table
FIELD_CAP = 4_000  # characters of a field shown before "show all"


def short(text: object, n: int = SHORT) -> str:
    s = "" if text is None else str(text)
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


@dataclass(frozen=True)
class Header:
    trace_id: str
    task: str
    agent: str
    model: str
    started_at: str
    ended_at: str
    tokens: str
    confidence: str
    factors: list[str]
    validation_level: str
    prior_trace_id: str | None
    steps: int
    turns: int
    status: str | None  # review status when read from the store
    version: int | None
    reviewed_as: str | None
    review_of: str | None
    replaced_by: str | None = None  # a draft a later draft of its session replaced: that one
    earlier_work: tuple[tuple[str, str], ...] = ()  # what people did on the session's earlier drafts
    decided: str | None = None  # rejected, or sent back for changes: by whom, and why or what to change
    # the session file the draft was read from (from the home folder: `~/…`) and the session's id,
    # which tell two copies of one session apart (a backup, another machine's older copy)
    log: str | None = None
    session_id: str | None = None


@dataclass(frozen=True)
class StepRow:
    step: int
    time: str
    actor: str
    what: str  # tool, else operation, else action
    input: str
    success: str
    eval: str
    failed: bool


@dataclass(frozen=True)
class FieldView:
    name: str
    value: str  # as text (JSON for non-strings); "" for null
    full_length: int
    origin: str  # copied / derived by rule X / proposed by model Y / edited by Z
    verdict: str  # verify's verdict for a copied value ("" when not checked)
    editable: bool


@dataclass(frozen=True)
class StepView:
    step: int
    row: StepRow
    fields: list[FieldView]
    evidence: StepEvidence | None


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    import orjson

    return orjson.dumps(v, option=orjson.OPT_NON_STR_KEYS).decode()


def value_text(v: Any) -> str | None:
    """A field's value as a page or the terminal shows it (an edit's old and new value, a
    field's value now): text as it is, other values as JSON (`true`, `3`, never Python's
    `True`); None for null (a page says "null" its own way)."""
    return None if v is None else _text(v)


def _obj(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def header(d: LoadedTrace) -> Header:
    t = d.trace
    cfg = _obj(t.get("agent_config"))
    usage = _obj(cfg.get("token_usage"))
    tokens = ", ".join(f"{k.replace('_tokens', '').replace('_', ' ')} {v}" for k, v in usage.items()) or "-"
    summ = _obj(t.get("summary"))
    factors = [f"{f.get('name')}: {f.get('value')} (-{f.get('penalty')}) {f.get('note') or ''}".strip()
               for f in d.manifest.get("confidence_factors") or [] if isinstance(f, dict)]
    st = d.state
    return Header(
        trace_id=str(t.get("trace_id")), task=str(t.get("task") or ""), agent=str(cfg.get("agent") or "-"),
        model=str(cfg.get("model") or "-"), started_at=str(t.get("started_at") or "-"),
        ended_at=str(t.get("ended_at") or "-"), tokens=tokens, confidence=str(summ.get("agent_confidence", "-")),
        factors=factors, validation_level=str(t.get("validation_level")), prior_trace_id=t.get("prior_trace_id"),
        steps=len(d.steps), turns=int(summ.get("total_turns") or 0),
        status=st.status if st else None, version=st.version if st else None,
        reviewed_as=st.reviewed_as if st else None, review_of=st.review_of if st else None,
        replaced_by=d.replaced_by, earlier_work=tuple(d.earlier_work), decided=d.decided,
        log=from_home(d.row.unit_path) if d.row else None, session_id=d.row.session_id if d.row else None)


def step_row(s: dict[str, Any]) -> StepRow:
    what = s.get("tool") or s.get("operation") or s.get("action") or ""
    success = "" if s.get("success") is None else ("yes" if s.get("success") else "no")
    ev = s.get("eval")
    if isinstance(ev, bool):
        ev = None  # a boolean is no score (the schema refuses it): True is not +1
    return StepRow(step=int(s.get("step") or 0), time=str(s.get("started_at") or "")[11:19],
                   actor=str(s.get("actor") or ""), what=str(what), input=short(s.get("input")),
                   success=success, eval={1: "+1", -1: "-1", 0: "0"}.get(ev, "") if isinstance(ev, int) else "",
                   failed=s.get("success") is False or s.get("action") == "error")


def rows(d: LoadedTrace) -> list[StepRow]:
    return [step_row(s) for s in d.steps if isinstance(s, dict)]


def origin_text(fp: dict[str, Any] | None) -> str:
    if not fp:
        return "no provenance recorded"
    # a value with placeholders in it says so: the reviewer reads a masked copy, not the log's text
    return _origin(fp) + ("; parts masked by redaction" if fp.get("redacted") is True else "")


def _origin(fp: dict[str, Any]) -> str:
    who = fp.get("reviewer") or fp.get("model") or {}
    origin = fp.get("origin")
    if origin == "copied":
        refs = ", ".join(str(r.get("id")) for r in fp.get("evidence") or [])
        return f"copied from {refs}" + (f" ({fp.get('rule')})" if fp.get("rule") else "")
    if origin == "derived":
        return f"derived by rule {fp.get('rule')}"
    if origin == "model":
        return f"proposed by model {who.get('model')}"
    if origin == "human":
        when = f" at {who.get('time')}" if who.get("time") else ""
        return f"edited by {who.get('reviewer')}{when}"
    return str(origin)


def step_view(d: LoadedTrace, n: int, reader: EvidenceReader | None, cap: int | None = FIELD_CAP) -> StepView:
    s = d.steps[n - 1]
    sp = d.step_provenance(n)
    fps = sp.get("fields") or {}
    ev = reader.step(n) if reader is not None else None
    fields = []
    for name, v in s.items():
        if name == "step":
            continue
        text = _text(v)
        shown = text if cap is None or len(text) <= cap else text[:cap]
        fields.append(FieldView(name, shown, len(text), origin_text(fps.get(name)) if v is not None else "",
                                ev.verdicts.get(name, "") if ev else "", name in STEP_EDITABLE))
    return StepView(n, step_row(s), fields, ev)


@dataclass(frozen=True)
class Extras:
    failed: list[StepRow]
    files: list[tuple[str, str, str]]  # path, type, related steps
    subagents: list[str]
    masked: list[tuple[str, int]] = field(default_factory=list)  # kinds of values redaction masked, how many


def extras(d: LoadedTrace) -> Extras:
    rs = rows(d)
    arts = (d.trace.get("static_output") or {}).get("artifacts") or []
    files = [(str(a.get("path")), str(a.get("type")), ", ".join(map(str, a.get("related_steps") or [])))
             for a in arts if isinstance(a, dict)]
    subs = sorted({str(s.get("actor")) for s in d.steps if str(s.get("actor", "")).startswith("subagent")})
    kinds = _obj(_obj(d.manifest.get("redaction")).get("by_kind"))
    masked = [(str(k), int(n)) for k, n in kinds.items() if isinstance(n, int) and n > 0]
    return Extras([r for r in rs if r.failed], files, subs, masked)
