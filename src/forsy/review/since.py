"""What happened to a draft since a version of it: the review actions between the version a
page was loaded at and the draft's version now, read from the audit log.

Every review action moves a draft's version on by one (`Store.record_review`) and writes one
audit record of the draft: an edit (`detail.path` names the field), an approval, a rejection, a
request for changes. So the draft's version is the count of those records, and the records
after the first V are what moved it on from version V. A copied history (`forsy store copy`)
carries its records with it, so it counts the same. When the count and the version disagree
(a history forsy cannot account for) nothing is told: the caller treats the draft as changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from ..proposals import StepPath, parse_path
from ..store import AuditRow, Store, every_audit

# the audit actions of `Store.record_review`: each moved the draft's version on by one
VERSIONED = ("edit", "approve", "reject", "needs_changes")


@dataclass(frozen=True)
class Change:
    """One review action on a draft: the version it made, what it was, the field an edit set."""

    version: int
    action: str
    path: str | None  # an edit's field (a proposal path); None for a decision
    actor: str
    at: str


def changes_since(store: Store, trace_id: str, since: int, now: int) -> list[Change] | None:
    """The review actions that moved draft `trace_id` from version `since` to `now`, oldest
    first; None when its audit log does not account for its version."""
    if since > now:  # a version the draft never had (a form made up, or a store copied back over it)
        return None
    done = [a for a in every_audit(store, trace_id) if a.trace_id == trace_id and a.action in VERSIONED]
    if len(done) != now:
        return None
    return [_change(v, a) for v, a in enumerate(done[since:now], start=since + 1)]


def _change(version: int, a: AuditRow) -> Change:
    try:
        detail = orjson.loads(a.detail_json or "{}")
    except orjson.JSONDecodeError:
        detail = {}
    path = detail.get("path") if isinstance(detail, dict) else None
    return Change(version, a.action, path if isinstance(path, str) else None, a.actor, a.at)


def same_field(a: str, b: str) -> bool:
    """Whether two proposal paths name one field (`/learning` and `learning` do)."""
    try:
        return _key(a) == _key(b)
    except ValueError:
        return a == b


def _key(path: str) -> StepPath | str:
    return parse_path("/" + path.lstrip("/"))


__all__ = ["VERSIONED", "Change", "changes_since", "same_field"]
