"""The rows of the store, as plain dataclasses (the same for every backend)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..errors import ExitCode, InputError

DraftStatus = Literal["pending", "approved", "rejected", "needs_changes"]
DRAFT_STATUSES: tuple[DraftStatus, ...] = ("pending", "approved", "rejected", "needs_changes")

# ok: traced (or nothing new in it); skipped: read, but it holds no work; failed: see last_error;
# source_gone: the file disappeared (its traces stay); member: traced as part of another
# file's session (`unit_path`); ignored: under a root but no source reads it.
FileStatus = Literal["ok", "skipped", "failed", "source_gone", "member", "ignored"]


@dataclass(frozen=True)
class FileState:
    """What a sweep remembers of one file, to tell next time whether it changed.

    `head_sha256` hashes the first block; `tail_sha256` the last complete line, which
    starts at `tail_offset` and ends at `read_to` (the byte offset read to). A file that
    grew keeps both hashes; a file rewritten in place does not.
    """

    path: str
    unit_path: str  # the session file this file is traced with ('' for an ignored file)
    source_kind: str | None
    dev: int
    ino: int
    size: int
    mtime_ns: int
    head_sha256: str
    tail_sha256: str | None
    tail_offset: int
    read_to: int
    status: FileStatus
    last_error: str | None = None
    updated_at: str = ""
    run_id: int | None = None


@dataclass(frozen=True)
class StoredFile:
    """One file of a trace folder, as stored: name and bytes (uncompressed)."""

    name: str
    data: bytes


@dataclass(frozen=True)
class NewTrace:
    """A trace to add as a pending draft. `files` are the folder's files (trace.json,
    manifest.json, provenance.json, README.md, artifacts/…), as bytes."""

    trace_id: str
    source_kind: str
    session_id: str
    unit_path: str
    agent: str | None
    project: str | None
    started_at: str | None
    ended_at: str | None
    confidence: int | None
    steps: int
    turns: int
    task: str
    files: list[StoredFile]
    texts: list[tuple[str, str]]  # (what, text) for full-text search: ("prompt", …), ("tool_input", …)
    prior_trace_id: str | None = None
    run_id: int | None = None
    model_values: int = 0  # values a model proposed (provenance origin `model`), awaiting a person


@dataclass(frozen=True)
class TraceRow:
    """A stored trace and its draft, without the files."""

    trace_id: str
    draft_id: int
    status: DraftStatus
    source_kind: str
    session_id: str
    unit_path: str
    agent: str | None
    project: str | None
    started_at: str | None
    ended_at: str | None
    confidence: int | None
    steps: int
    turns: int
    task: str
    prior_trace_id: str | None
    created_at: str
    source_gone: bool
    sha256: dict[str, str] = field(default_factory=dict)  # file name -> sha256 of its bytes


TraceOrder = Literal["started", "confidence", "steps", "agent", "project", "status", "task", "trace"]
TRACE_ORDERS: tuple[TraceOrder, ...] = ("started", "confidence", "steps", "agent", "project", "status", "task",
                                        "trace")


@dataclass(frozen=True)
class TraceQuery:
    """Filters for `Store.traces` (None = any); `text` is a full-text query."""

    agent: str | None = None
    project: str | None = None
    status: DraftStatus | None = None
    since: str | None = None  # started_at >= since (ISO 8601 text)
    until: str | None = None
    min_confidence: int | None = None
    text: str | None = None
    latest_only: bool = False  # hide drafts a later draft of the same session replaced
    reviewed: bool | None = None  # True: only traces a review approved; False: only the sweep's drafts
    limit: int = 1000
    max_confidence: int | None = None
    order: TraceOrder = "started"  # the column rows are sorted by (missing values last), then the id
    descending: bool = True
    offset: int = 0  # rows skipped (a page of the queue)
    hidden: bool | None = None  # False: leave out the drafts a hide rule covers; True: only those
    model_values: bool | None = None  # True: only traces holding values a model proposed; False: none
    open_only: bool = False  # only drafts still open for review (pending, needs_changes): what needs a person
    replaces: str | None = None  # only the traces made to replace this one (their prior_trace_id is it)

    def __post_init__(self) -> None:
        # numbers from a command line or a URL: a database cannot hold any integer (1e30 overflows)
        for name in ("min_confidence", "max_confidence"):
            v = getattr(self, name)
            if v is not None and not 0 <= v <= 100:
                raise InputError(f"a confidence is 0 to 100, not {v}")
        for name in ("limit", "offset"):
            if not 0 <= getattr(self, name) <= 10**9:
                raise InputError(f"a {name} is 0 to 1,000,000,000, not {getattr(self, name)}")
        if self.order not in TRACE_ORDERS:
            raise InputError(f"rows are sorted by one of {', '.join(TRACE_ORDERS)}, not {self.order!r}")


@dataclass
class RunCounts:
    seen: int = 0  # session files present under the roots
    unchanged: int = 0
    new: int = 0
    grown: int = 0
    rewritten: int = 0
    retried: int = 0  # unchanged, but failed before: read again
    gone: int = 0
    failed: int = 0  # files whose current state is failed (this run's and unchanged ones)
    waiting: int = 0  # too fresh, or ending in an incomplete line: left for the next run
    traced: int = 0  # session files traced this run
    skipped: int = 0  # read this run, but they hold no work
    traces_written: int = 0
    bytes_read: int = 0


@dataclass(frozen=True)
class RunRow:
    id: int
    started_at: str
    finished_at: str | None
    pid: int
    # failed: stopped by the environment (the store could not be written: disk full, read-only)
    status: Literal["running", "done", "interrupted", "failed"]
    roots: list[str]
    counts: RunCounts
    duration_s: float | None
    failure: str | None = None  # why a failed run stopped


@dataclass(frozen=True)
class FaultRow:
    """Something under a sweep's roots that could not be looked at (a folder that cannot be
    listed, a file that cannot be opened or that vanished mid-run):
    skipped, named, and tried again on every run until it goes away. `runs` counts the runs
    that met it since `first_at`."""

    path: str
    what: Literal["folder", "file"]
    reason: str
    first_at: str
    first_run: int | None
    last_at: str
    last_run: int | None
    runs: int


@dataclass(frozen=True)
class ErrorRow:
    run_id: int
    path: str
    message: str
    at: str


@dataclass(frozen=True)
class LockInfo:
    """Who holds the sweep lock: its pid and host, since when, its process (`proc`: the
    boot and start time where the system tells them, else ''), and how long ago it last
    renewed the lock by the store's clock (`idle_s`; None when read from a lock that does
    not say, or when describing the process taking it)."""

    pid: int
    host: str
    since: str
    proc: str = ""
    idle_s: float | None = field(default=None, compare=False)  # not who holds it: when it last said so


# --- the review queue (forsy review)

ReviewAction = Literal["edit", "approve", "reject", "needs_changes"]


class ReviewConflict(InputError):
    """The draft changed since the reviewer looked at it (another reviewer acted first): the
    action is refused, nothing is written, and the reviewer looks again. Its own exit code, so a
    script tells it from input it cannot use."""

    exit_code: int = ExitCode.CONFLICT


@dataclass(frozen=True)
class DraftState:
    """The review state of one stored trace. `version` grows by one with every review action:
    an action names the version it was decided on, and a different one is a conflict."""

    draft_id: int
    trace_id: str
    status: DraftStatus
    version: int
    updated_at: str
    reviewed_as: str | None  # on a draft: the trace its approval made
    review_of: str | None  # on a reviewed trace: the draft it was made from
    validation_level: str | None  # on a reviewed trace: the level the reviewer chose


@dataclass(frozen=True)
class ProposalRow:
    """A stored proposal: `path` in `forsy.proposals` syntax (/steps/3/reasoning), values as JSON text."""

    id: int
    trace_id: str
    path: str
    value_json: str
    origin: Literal["model", "human"]
    actor: str
    created_at: str
    replaced_json: str | None  # JSON of the value replaced (None: the field was null or unset)
    citations_json: str = "[]"


@dataclass(frozen=True)
class NewProposal:
    path: str
    value_json: str
    origin: Literal["model", "human"]
    actor: str
    replaced_json: str | None
    citations_json: str = "[]"


@dataclass(frozen=True)
class AuditRow:
    id: int
    at: str
    actor: str
    action: str
    trace_id: str | None
    detail_json: str
    before_sha256: str | None
    after_sha256: str | None


@dataclass(frozen=True)
class ReviewChange:
    """One review action, applied by `Store.record_review` in one transaction: refused with
    `ReviewConflict` unless the draft is still at `expected_version`; then the proposal is
    appended, the reviewed trace stored (as an approved trace pointing back at the draft), the
    status set, the version increased and the audit record written — all or nothing."""

    trace_id: str
    expected_version: int
    action: ReviewAction
    actor: str
    at: str
    status: DraftStatus | None = None  # the draft's new status (None: unchanged)
    proposal: NewProposal | None = None
    reviewed: NewTrace | None = None  # the trace an approval made
    validation_level: str | None = None
    detail_json: str = "{}"
    before_sha256: str | None = None
    after_sha256: str | None = None
