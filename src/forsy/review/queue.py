"""The review queue as a person pages through it: filters, a sort on any column, pages (never a
silent cap: the total is always known), and the count of drafts in each status.

    page = queue_page(store, QueueQuery(TraceQuery(status="pending", order="confidence"), page=2))
    page.rows, page.total, page.pages, page.counts
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import InputError
from ..store import TRACE_ORDERS, Store, TraceOrder, TraceQuery, TraceRow
from ..store.models import DraftStatus
from ..store.queue_rules import status_counts

SORTS: tuple[TraceOrder, ...] = TRACE_ORDERS
PER_PAGE = 50
MAX_PER_PAGE = 500


@dataclass(frozen=True)
class QueueQuery:
    filters: TraceQuery = TraceQuery(latest_only=True, reviewed=False)
    page: int = 1
    per_page: int = PER_PAGE

    def __post_init__(self) -> None:
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


def queue_page(store: Store, q: QueueQuery) -> QueuePage:
    """One page of the queue: its rows sorted and cut by the database, the total counted there."""
    total = store.count_traces(q.filters)
    pages = max(1, -(-total // q.per_page))
    if q.page > pages:
        raise InputError(f"there are {pages} page(s) of {total} draft(s); no page {q.page}")
    rows = store.traces(replace(q.filters, limit=q.per_page, offset=(q.page - 1) * q.per_page))
    return QueuePage(rows, total, q.page, pages, status_counts(store))


__all__ = ["MAX_PER_PAGE", "PER_PAGE", "SORTS", "QueuePage", "QueueQuery", "queue_page"]
