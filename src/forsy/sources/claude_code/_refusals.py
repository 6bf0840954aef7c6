"""Failed model calls: API errors, and a model's refusal as Claude Code records it.

A `system` record of subtype `api_error` is one failed model call (429, 401, overloaded…),
retried or final. A refusal: the API ends the model's answer with `stop_reason: "refusal"`
(the words it had streamed are in the message), and Claude Code then writes a `system` record
(the transcript's camelCase; the print-mode stream's snake_case, mapped by `_stream`):

* `model_refusal_fallback` {originalModel, fallbackModel, retractedMessageUuids,
  refusedUserMessageUuid, apiRefusalCategory, content}: the turn is retried once on the
  fallback model, which the session keeps, and the records `retractedMessageUuids` names (the
  refused partial answer, already shown) are withdrawn from the conversation;
* `model_refusal_no_fallback` {originalModel, apiRefusalCategory, content}: no model to retry
  on; the turn ends as an error.

Each of these records is the agent's failed model call: an error step, its text the record's
error message (`content` for a refusal). The words of a refused answer are that call's, never
an answer; withdrawn records are kept (not flagged abandoned: that says the person rewound
them away) and warned `refusal-withdrawn`; the models are noted (`SessionMeta.models`,
`agent_config.model_fallbacks`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...evidence import Event, Ref, SessionMeta, pointer
from ...payloads import MessageInfo
from .._records import Record
from ._senders import forked_copy

# session.warn: (code, message, file, line)
Warn = Callable[[str, str, str | None, int | None], None]

FALLBACK, NO_FALLBACK = "model_refusal_fallback", "model_refusal_no_fallback"
# system subtypes that are a failed model call
FAILED_CALLS = frozenset({"api_error", FALLBACK, NO_FALLBACK})
# Where such a record says what failed: an API error's message, else its `content`.
_ERROR_TEXT = (("error", "message"), ("error", "error", "message"), ("content",))


def api_error_event(rec: Record, actor: str, ts: str | None, ab: bool) -> Event:
    """A failed model call: an error step of the agent, with its time; its text is the record's
    error message when it has one (else the step's output is null)."""
    for path in _ERROR_TEXT:
        v: Any = rec.data
        for k in path:
            v = v.get(k) if isinstance(v, dict) else None
        if isinstance(v, str) and v:
            return Event("agent_text", actor, ts, [Ref(rec.ev.id, pointer(*path))], text=v, abandoned=ab,
                         info=MessageInfo(api_error=True))
    return Event("agent_text", actor, ts, [Ref(rec.ev.id, "")], abandoned=ab, info=MessageInfo(api_error=True))


def withdrawn(recs: list[Record], warn: Warn) -> set[str]:
    """uuids of the records a `model_refusal_fallback` among `recs` withdrew (those `recs` hold),
    each such record warned with how many it withdrew. A fork's copy of its parent's records is
    that session's work (set aside), so a fallback among them withdraws nothing here."""
    fallbacks = [r for r in recs if r.data.get("type") == "system" and r.data.get("subtype") == FALLBACK
                 and forked_copy(r.data) is None]
    if not fallbacks:
        return set()
    have = {r.data["uuid"] for r in recs if isinstance(r.data.get("uuid"), str)}
    out: set[str] = set()
    for r in fallbacks:
        d = r.data
        named = d.get("retractedMessageUuids")
        if named is not None and not (isinstance(named, list) and all(isinstance(u, str) for u in named)):
            warn("field-type", "model_refusal_fallback's retractedMessageUuids is not a list of texts; the refused "
                 "answer it withdrew is not known", r.ev.source, r.ev.line)
            continue
        found = [u for u in named or [] if u in have]
        out.update(found)
        elsewhere = len(named or []) - len(found)  # written elsewhere, or never: nothing here to flag
        if found or elsewhere:
            warn("refusal-withdrawn", f"{_model(d, 'originalModel')} refused; Claude Code withdrew the {len(found)} "
                 f"record(s) of its answer and retried on {_model(d, 'fallbackModel')}: kept, the refused words an "
                 "error step, not an answer" + (f" ({elsewhere} more named that this file does not hold)"
                                                       if elsewhere else ""), r.ev.source, r.ev.line)
    return out


def _model(d: dict[str, Any], key: str) -> str:
    v = d.get(key)
    return v if isinstance(v, str) and v else "the model"


def note_fallback(d: dict[str, Any], line: int | None, meta: SessionMeta) -> None:
    """A `model_refusal_fallback` record's models: both are models the session used, and the
    switch is listed (`model_fallbacks`: from, to, the refusal's category, its scope: `local` when
    only a subagent's answer came from the fallback, and the record's line)."""
    if d.get("type") != "system" or d.get("subtype") != FALLBACK:
        return
    said = {k: d[k] for k in ("originalModel", "fallbackModel", "apiRefusalCategory", "scope")
            if isinstance(d.get(k), str)}
    for k in ("originalModel", "fallbackModel"):
        if k in said and said[k] not in meta.models:
            meta.models.append(said[k])
    if said:
        meta.extra.setdefault("model_fallbacks", []).append({**said, "line": line})
