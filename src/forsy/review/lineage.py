"""A draft among the drafts of its session: the later draft that replaced it, and the review
work done on the earlier ones.

A sweep that finds a session grown (or rewritten) stores a new draft pointing back at the one
it replaces (`prior_trace_id`), and the queue shows the new one. What a person did on the old
draft (edits, a rejection, a note) is not carried over: the steps were traced again, and a
value set on the old draft may not fit the new one. So the old draft is closed to review
actions (they would be lost, or publish what the log no longer says), and the new draft says
what was done on the earlier ones, so the person can do it again.
"""

from __future__ import annotations

from collections import Counter

import orjson

from ..store import AuditRow, Store, TraceQuery, TraceRow, every_audit, every_trace

# how far back the earlier drafts of a session are looked at (a session traced again every day)
_BACK = 50


def replacement(store: Store, trace_id: str) -> TraceRow | None:
    """The later draft of the same session that replaced draft `trace_id` (a sweep's, not the
    trace a review made); None when it is still its session's latest."""
    rows = store.traces(TraceQuery(replaces=trace_id, reviewed=False, order="trace", limit=1))
    return rows[0] if rows else None


def earlier_work(store: Store, trace_id: str) -> list[tuple[str, str]]:
    """What people did on the earlier drafts of `trace_id`'s session, nearest first: (draft,
    `rejected by jane: "wrong task"; 2 edit(s) by jane`). Empty when nothing was done."""
    out: list[tuple[str, str]] = []
    seen = {trace_id}
    row = store.trace(trace_id)
    prior = row.prior_trace_id if row is not None else None
    while prior and prior not in seen and len(seen) < _BACK:
        seen.add(prior)
        state = store.draft_state(prior)
        if state is None:
            break
        draft = state.review_of or prior  # a grown session may point at the trace a review made
        if draft != prior:
            seen.add(draft)
        line = _work(store, draft)
        if line:
            out.append((draft, line))
        earlier = store.trace(draft)
        prior = earlier.prior_trace_id if earlier is not None else None
    return out


def _work(store: Store, draft: str) -> str:
    """The review actions on `draft`, said in a few words ('' when there were none)."""
    said: list[str] = []
    edits: Counter[str] = Counter()
    for a in store.audit(draft):
        if a.trace_id != draft:
            continue
        if a.action == "edit":
            edits[a.actor] += 1
            continue
        if a.action in _DECIDED:
            said.append(_decided(a))
    if edits:
        said.append(f"{sum(edits.values())} edit(s) by {', '.join(sorted(edits))}")
    return "; ".join(said)


_DECIDED = {"approve": "approved", "reject": "rejected", "needs_changes": "sent back for changes"}


def _decided(a: AuditRow) -> str:
    """A decision in a few words, with its reason or note (stored masked)."""
    detail = _detail(a.detail_json)
    why = detail.get("reason") or detail.get("note")
    return f"{_DECIDED[a.action]} by {a.actor}" + (f": {orjson.dumps(why).decode()}" if why else "")


def decision(store: Store, trace_id: str) -> str | None:
    """The last decision on draft `trace_id` in a few words, with the reason or the note that says
    what to change (what whoever picks the draft up must read), or None when none was made."""
    last = last_decision(store, trace_id)
    return _decided(last) if last is not None else None


def last_decision(store: Store, trace_id: str) -> AuditRow | None:
    """The audit record of the last decision on draft `trace_id` (approve, reject, needs changes)."""
    last = None
    for a in every_audit(store, trace_id):
        if a.trace_id == trace_id and a.action in _DECIDED and (last is None or a.at >= last.at):
            last = a
    return last


def decided_in_full(a: AuditRow) -> str:
    """A decision said whole: what, by whom, when, the level it was published at, and its reason or
    note (stored masked)."""
    detail = _detail(a.detail_json)
    why, level = detail.get("reason") or detail.get("note"), detail.get("level")
    return (f"{_DECIDED[a.action]} by {a.actor} at {a.at}" + (f" as {level}" if level else "")
            + (f": “{why}”" if why else ""))


def _detail(text: str) -> dict[str, object]:
    try:
        d = orjson.loads(text or "{}")
    except orjson.JSONDecodeError:
        return {}
    return d if isinstance(d, dict) else {}


def superseded_approvals(store: Store) -> set[str]:
    """The traces reviews made (approvals) of drafts a later draft of the same session replaced,
    when that later draft, or one after it, was approved too: an older approved version of a
    session that grew. Exported beside the newer, one session would be in a dataset twice."""
    drafts = every_trace(store, TraceQuery(reviewed=False, limit=10_000))
    later: dict[str, list[str]] = {}
    for d in drafts:
        if d.prior_trace_id is not None:
            later.setdefault(d.prior_trace_id, []).append(d.trace_id)
    reviews = every_trace(store, TraceQuery(reviewed=True, limit=10_000))
    approved = {r.prior_trace_id for r in reviews if r.prior_trace_id is not None}  # a review's prior: its draft
    out = set()
    for r in reviews:
        seen, todo = set(), list(later.get(r.prior_trace_id or "", []))
        while todo:
            t = todo.pop()
            if t in approved:
                out.add(r.trace_id)
                break
            if t not in seen:
                seen.add(t)
                todo.extend(later.get(t, []))
    return out


__all__ = ["decided_in_full", "decision", "earlier_work", "last_decision", "replacement", "superseded_approvals"]
