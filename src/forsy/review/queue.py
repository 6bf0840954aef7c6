"""The review queue as a person pages through it: filters, a sort on any column, pages (never a
silent cap: the total is always known), and the count of drafts in each status.

    page = queue_page(store, QueueQuery(status="pending", sort="confidence", page=2))
    page.rows, page.total, page.pages, page.counts
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from ..errors import InputError
from ..store import DRAFT_STATUSES, Store, TraceQuery, TraceRow
from ..store.jobs import Sql
from ..store.models import DraftStatus

SortKey = Literal["started", "confidence", "steps", "agent", "project", "status", "task", "trace"]
SORTS: tuple[SortKey, ...] = ("started", "confidence", "steps", "agent", "project", "status", "task", "trace")
PER_PAGE = 50
MAX_PER_PAGE = 500


@dataclass(frozen=True)
class QueueQuery:
    filters: TraceQuery = TraceQuery(latest_only=True, reviewed=False)
    max_confidence: int | None = None
    sort: SortKey = "started"
    descending: bool = True
    page: int = 1
    per_page: int = PER_PAGE

    def __post_init__(self) -> None:
        if self.sort not in SORTS:
            raise InputError(f"unknown sort {self.sort!r}; one of {', '.join(SORTS)}")
        if not 1 <= self.per_page <= MAX_PER_PAGE:
            raise InputError(f"a page holds 1 to {MAX_PER_PAGE} drafts, not {self.per_page}")
        if self.page < 1:
            raise InputError("pages are numbered from 1")


@dataclass(frozen=True)
class QueuePage:
    rows: list[TraceRow]
    total: int  # drafts matching the filters, on every page
    page: int
    pages: int
    counts: list[tuple[DraftStatus, int]]  # the queue's drafts in each status (filters aside)


def _key(sort: SortKey, r: TraceRow) -> tuple[bool, object]:
    """Sort key; a missing value sorts last whichever the direction (see `queue_page`)."""
    value: object = {"started": r.started_at, "confidence": r.confidence, "steps": r.steps, "agent": r.agent,
                     "project": r.project, "status": r.status, "task": (r.task or "").lower(),
                     "trace": r.trace_id}[sort]
    return (value is None, value if value is not None else 0)


def status_counts(store: Store) -> list[tuple[DraftStatus, int]]:
    """How many of the queue's drafts (the newest of each session, the sweep's) are in each
    status: one GROUP BY, never the rows themselves."""
    from ..store._query import trace_filters

    where, args = trace_filters(TraceQuery(latest_only=True, reviewed=False), "?")
    got = dict(Sql(store).q("SELECT d.status, COUNT(*) FROM traces t JOIN drafts d ON d.trace_id = t.trace_id "
                            f"WHERE {' AND '.join(where)} GROUP BY d.status", args))
    return [(s, int(got.get(s, 0))) for s in DRAFT_STATUSES]


def queue_page(store: Store, q: QueueQuery) -> QueuePage:
    rows = store.traces(replace(q.filters, limit=10**9))
    if q.max_confidence is not None:
        rows = [r for r in rows if r.confidence is not None and r.confidence <= q.max_confidence]
    present = [r for r in rows if _key(q.sort, r)[0] is False]
    missing = [r for r in rows if _key(q.sort, r)[0] is True]
    present.sort(key=lambda r: (_key(q.sort, r)[1], r.trace_id), reverse=q.descending)
    ordered = present + missing
    pages = max(1, -(-len(ordered) // q.per_page))
    if q.page > pages:
        raise InputError(f"there are {pages} page(s) of {len(ordered)} draft(s); no page {q.page}")
    start = (q.page - 1) * q.per_page
    return QueuePage(ordered[start:start + q.per_page], len(ordered), q.page, pages, status_counts(store))


__all__ = ["MAX_PER_PAGE", "PER_PAGE", "SORTS", "QueuePage", "QueueQuery", "queue_page", "status_counts"]
