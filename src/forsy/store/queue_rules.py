"""The review queue in the store: its counts per status, and the rules a person writes about it:
hide, or dismiss, the drafts of automated sessions (a memory plugin's observer sessions, a CI
bot's) so that people review the work.

    add_rule(store, QueueRule("observer", "Observer session*", "dismiss"), actor=who, now=now)
    dismiss_matching(store, now=now)          # the pending drafts a dismiss rule matches, rejected

A rule matches a draft whose task (its first prompt) fits `pattern`, a glob (`*` any text,
`?` one character; ASCII letters in either case), and whose agent is `agent` when one is given. `hide` keeps the
draft out of the queue (`TraceQuery(hidden=False)`; shown again on request); `dismiss` rejects
it, as a reviewer would, with the rule named as the actor and in the audit log: the store does
so for every draft it receives (a sweep, a hook), so the rule is remembered. A draft a person
has acted on (edited, sent back) is left to them. Nothing is deleted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from ..errors import InputError
from . import Store
from ._query import HIDDEN_SQL, agent_sql, trace_filters
from .jobs import Sql
from .models import DRAFT_STATUSES, DraftStatus, ReviewChange, ReviewConflict, TraceQuery

RuleAction = Literal["hide", "dismiss"]
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class QueueRule:
    name: str
    pattern: str  # a glob over the task, case-folded
    action: RuleAction = "hide"
    agent: str | None = None


def like(pattern: str) -> str:
    """A glob as a lower-cased SQL LIKE pattern (escape `\\`): `*` any text, `?` one character.
    Only ASCII letters are folded, as SQLite's lower() folds them (PostgreSQL's folds more)."""
    out = []
    for c in "".join(ch.lower() if ch.isascii() else ch for ch in pattern):
        out.append("%" if c == "*" else "_" if c == "?" else "\\" + c if c in "%_\\" else c)
    return "".join(out)


def add_rule(store: Store, rule: QueueRule, *, actor: str, now: str) -> None:
    if not _NAME.match(rule.name):
        raise InputError("a rule's name is a word of letters, digits, '.', '_' or '-' (64 at most)")
    if rule.action not in ("hide", "dismiss"):
        raise InputError(f"a rule hides or dismisses, not {rule.action!r}")
    if not rule.pattern.strip() or rule.pattern.strip("*? ") == "":
        raise InputError("a rule's pattern must name some text (a pattern of only * and ? matches every draft)")
    sql = Sql(store)
    if sql.q("SELECT 1 FROM queue_rules WHERE name = ?", (rule.name,)):
        raise InputError(f"a rule named {rule.name!r} exists; remove it first")
    sql.x("INSERT INTO queue_rules (name, pattern, task_like, agent, action, created_at, actor) "
          "VALUES (?, ?, ?, ?, ?, ?, ?)", (rule.name, rule.pattern, like(rule.pattern), rule.agent, rule.action,
                                           now, actor))


def rules(store: Store) -> list[QueueRule]:
    return [QueueRule(r[0], r[1], r[2], r[3]) for r in Sql(store).q(
        "SELECT name, pattern, action, agent FROM queue_rules ORDER BY name")]


def remove_rule(store: Store, name: str) -> None:
    """Remove a rule: drafts it hid show again; drafts it dismissed stay rejected (their audit
    log says by which rule), as any review decision does."""
    if not Sql(store).x("DELETE FROM queue_rules WHERE name = ?", (name,)):
        raise InputError(f"no rule named {name!r}")


def matching(store: Store, rule: QueueRule, trace_ids: list[str] | None = None) -> list[tuple[str, int, str]]:
    """The drafts `rule` would dismiss now, (trace id, version, task): pending sweep drafts no
    person has acted on (version 0: a draft someone edited is theirs to decide), whose task
    and agent match. `trace_ids`: only these."""
    args: list[object] = [like(rule.pattern)]
    extra = ""
    if rule.agent is not None:  # as the queue's filter takes it: the agent's name or its source's
        extra += f" AND {agent_sql('?', '?')}"
        args += [rule.agent, rule.agent]
    if trace_ids is not None:  # the drafts just stored: found by id, not by scanning the queue
        if not trace_ids:
            return []
        extra += f" AND t.trace_id IN ({', '.join('?' * len(trace_ids))})"
        args += trace_ids
    rows = Sql(store).q(
        "SELECT t.trace_id, d.version, t.task FROM traces t JOIN drafts d ON d.trace_id = t.trace_id "
        "WHERE d.status = 'pending' AND d.review_of IS NULL AND d.version = 0 "
        f"AND lower(t.task) LIKE ? ESCAPE '\\'{extra} ORDER BY t.trace_id", args)
    return [(str(t), int(v), str(task or "")) for t, v, task in rows]


def dismiss_matching(store: Store, *, now: str, trace_ids: list[str] | None = None) -> list[str]:
    """Reject the drafts each dismiss rule matches (`matching`), each as its own review action
    by `forsy rule NAME`; the ids dismissed. `trace_ids`: only these."""
    out: list[str] = []
    for rule in (r for r in rules(store) if r.action == "dismiss"):
        for tid, version, _ in matching(store, rule, trace_ids):
            detail = json.dumps({"note": f"dismissed by the queue rule {rule.name!r} ({rule.pattern})",
                                 "rule": rule.name})
            try:
                store.record_review(ReviewChange(tid, int(version), "reject", f"forsy rule {rule.name}", now,
                                                 status="rejected", detail_json=detail))
            except ReviewConflict:
                continue  # a reviewer acted on it meanwhile: theirs is the decision
            out.append(tid)
    return out


def status_counts(store: Store) -> list[tuple[DraftStatus, int]]:
    """How many of the queue's drafts (the newest of each session, the sweep's) are in each
    status: one GROUP BY, never the rows themselves."""
    where, args = trace_filters(TraceQuery(latest_only=True, reviewed=False), "?")
    got = dict(Sql(store).q("SELECT d.status, COUNT(*) FROM traces t JOIN drafts d ON d.trace_id = t.trace_id "
                            f"WHERE {' AND '.join(where)} GROUP BY d.status", args))
    return [(s, int(got.get(s, 0))) for s in DRAFT_STATUSES]


def hidden_count(store: Store) -> int:
    """How many of the queue's drafts a hide rule keeps out of it."""
    return store.count_traces(TraceQuery(latest_only=True, reviewed=False, hidden=True))


__all__ = ["HIDDEN_SQL", "QueueRule", "RuleAction", "add_rule", "dismiss_matching", "hidden_count", "like", "matching",
           "remove_rule", "rules", "status_counts"]
