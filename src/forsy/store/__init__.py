"""The store of draft traces: a small repository API, one implementation per database.

    store = open_store("sqlite:///home/me/forsy.db")     # or open_store(None): the default store
    with store.transaction():
        store.add_trace(new_trace, now)                  # a pending draft (never a duplicate)
    store.traces(TraceQuery(agent="claude-code", status="pending"))

Callers use only the `Store` protocol and the dataclasses of `models`, so another backend
is a new module and one line in `open_store` (both in `repository`), not a change to the
sweep or the CLI: SQLite (`_sqlite`, the default) and PostgreSQL through psycopg 3 (`_postgres`, for a team).
Everything database-specific (SQL dialect, FTS5, WAL, file locking) stays inside the
backend module.
"""

from ..urls import shown_url
from .models import (
    DRAFT_STATUSES,
    TRACE_ORDERS,
    AuditRow,
    DraftState,
    DraftStatus,
    ErrorRow,
    FaultRow,
    FileState,
    FileStatus,
    LockInfo,
    NewProposal,
    NewTrace,
    ProposalRow,
    ReviewAction,
    ReviewChange,
    ReviewConflict,
    RunCounts,
    RunRow,
    StoredFile,
    TraceOrder,
    TraceQuery,
    TraceRow,
)
from .repository import Store, every_audit, every_trace, open_store, swept_on
from .sweeper import sweeper_name

__all__ = [
    "DRAFT_STATUSES", "TRACE_ORDERS", "AuditRow", "DraftState", "DraftStatus", "ErrorRow", "FaultRow", "FileState",
    "FileStatus", "LockInfo", "NewProposal", "NewTrace", "ProposalRow", "ReviewAction", "ReviewChange",
    "ReviewConflict", "RunCounts", "RunRow", "Store", "StoredFile", "TraceOrder", "TraceQuery", "TraceRow",
    "every_audit", "every_trace", "open_store", "shown_url", "swept_on", "sweeper_name",
]
