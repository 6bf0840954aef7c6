"""Records later Claude Code versions write about the session as a whole, not its work.

Their shapes as public readers of such transcripts describe them (no official schema):

* `continued-in` `{continuedInSessionId}`: the conversation was moved into a new session (`/bg`,
  `--bg`, the agents view's background move) and goes on in that session's file; it is the old
  file's last word but for bookkeeping (a `cost-state`). A user or assistant record after it means
  the old session was resumed and is live again.
* `cost-state` `{totalCostUSD, totalDuration, modelUsage, …}`: the cost Claude Code counted for the
  session so far, written when it closes and restored on resume (the latest stands).
* `task-summary` `{summary, timestamp}`: a one-line status of what the session was doing, which
  Claude Code generates for its session lists; no one's words in the work.
* `ended-by-model` `{timestamp, sessionId}`: the model ended the conversation (its EndConversation
  tool, called twice in a row, appends it and ends the turn); the latest stands.
* `relocated` `{sessionId, relocatedCwd}`: the session's working folder moved to `relocatedCwd`
  (the latest stands); the records before it keep the folder they name.
* bookkeeping of Claude Code's own, with nothing of the work: `observer-ref`, `atis-latch` (the
  feature-flag snapshot the conversation is pinned to, sent back to the API),
  `history-suppression`, `artifact-comment-monitor` (published artifacts the session watches for
  comments), `artifact-autoreact-ledger`, `marble-origami-reset` (the context-collapse state
  cleared, as its commit and snapshot records are set aside).
"""

from __future__ import annotations

from typing import Any

from ...evidence import LedgerHeading, Ref, Session
from .._records import Record
from ._events import kind_of

CONTINUED_IN = "continued-in"
# the ledger's words for each (`_load._BY_TYPE`)
LATER_TYPES: dict[str, tuple[LedgerHeading, str]] = {
    CONTINUED_IN: ("metadata", "the session the conversation continued in (termination_reason)"),
    "cost-state": ("metadata", "the cost Claude Code counted for the session"),
    "task-summary": ("set_aside", "a status line Claude Code generated of what the session was doing"),
    "ended-by-model": ("metadata", "the model ended the conversation (meta.extra.ended_by_model)"),
    "relocated": ("metadata", "the folder the session moved to (meta.extra.relocated_cwd)"),
    **{t: ("set_aside", t) for t in ("observer-ref", "atis-latch", "history-suppression", "artifact-comment-monitor",
                                     "artifact-autoreact-ledger", "marble-origami-reset")},
}
# what of a cost-state is copied, as written
_COST_KEYS = ("totalCostUSD", "totalDuration")
# a record after which the moved session is live again
_TURNS = ("user", "assistant")


def read_later_records(recs: list[Record], session: Session) -> None:
    """The session a conversation continued in (`meta.extra.continued_in`), and the ending it
    declares: when the move is the last turn's word, the work goes on in another file, so this one
    holds only part of it (`partial_then_stopped`, T-termination/declared) and never ends as if its
    last answer completed the task. The latest cost Claude Code counted (`meta.extra.cost_state`),
    the model's ending of the conversation (`ended_by_model`: when) and the folder the session moved
    to (`relocated_cwd`)."""
    moved: Record | None = None
    for r in recs:
        d = r.data
        t = d.get("type")
        if t == CONTINUED_IN:
            target = d.get("continuedInSessionId")
            if isinstance(target, str) and target:
                session.meta.extra["continued_in"] = target
                moved = r
            else:
                session.warn("field-type", f"continued-in record whose continuedInSessionId is {kind_of(target)}, "
                             "not a session id; not read", r.ev.source, r.ev.line)
        elif t in _TURNS and not d.get("isSidechain"):
            moved = None
        elif t == "cost-state":
            _cost(r, session)
        elif t == "ended-by-model":
            when = d.get("timestamp")
            session.meta.extra["ended_by_model"] = when if isinstance(when, str) else True
        elif t == "relocated":
            _latest_text(r, "relocatedCwd", "relocated_cwd", session)
    if moved is None:
        return
    target = session.meta.extra["continued_in"]
    session.meta.ending, session.meta.ending_ref = "partial_then_stopped", Ref(moved.ev.id, "/continuedInSessionId")
    session.warn("continued-elsewhere", f"the conversation continued in session {target} (its file holds the rest "
                 "of the work): this session's ending is partial_then_stopped", moved.ev.source, moved.ev.line)


def _latest_text(r: Record, key: str, extra: str, session: Session) -> None:
    v = r.data.get(key)
    if isinstance(v, str) and v:
        session.meta.extra[extra] = v
    else:
        session.warn("field-type", f"{r.data.get('type')} record whose {key} is {kind_of(v)}, not text; not read",
                     r.ev.source, r.ev.line)


def _cost(r: Record, session: Session) -> None:
    d = r.data
    cost: dict[str, Any] = {}
    for k in _COST_KEYS:
        v = d.get(k)
        if isinstance(v, int | float) and not isinstance(v, bool):
            cost[k] = v
        elif v is not None:
            session.warn("field-type", f"cost-state {k} is {kind_of(v)}, not a number; not read", r.ev.source,
                         r.ev.line)
    if cost:
        session.meta.extra["cost_state"] = cost  # a running total: the latest stands
