"""The SQL and row handling both backends share, built for a placeholder `mark` (`?` for
SQLite, `%s` for psycopg). What differs by dialect stays in the backend that needs it:
full-text search, NULL ordering, collations, the PostgreSQL sweeper (host) columns."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import zstandard

from ..errors import InputError
from .models import (
    DRAFT_STATUSES,
    AuditRow,
    DraftState,
    ProposalRow,
    ReviewChange,
    ReviewConflict,
    RunCounts,
    RunRow,
    StoredFile,
    TraceQuery,
    TraceRow,
)

COUNTS = ("seen", "unchanged", "new", "grown", "rewritten", "retried", "gone", "failed", "waiting", "traced",
          "skipped", "traces_written", "bytes_read")
FILE_COLS = ("path", "unit_path", "source_kind", "dev", "ino", "size", "mtime_ns", "head_sha256", "tail_sha256",
             "tail_offset", "read_to", "status", "last_error", "updated_at", "run_id")
DRAFT_COLS = "id, trace_id, status, version, updated_at, reviewed_as, review_of, validation_level"
PROPOSAL_COLS = "id, trace_id, path, value_json, origin, actor, created_at, replaced_json, citations_json"
# a run that never finished (killed, or still going) recorded no counts: its drafts are counted
# where they are, so `--status` does not say a killed run wrote none
_RUN_COUNTS = ", ".join(c if c != "traces_written" else "CASE WHEN finished_at IS NULL THEN (SELECT count(*) FROM "
                        "traces t WHERE t.run_id = runs.id) ELSE traces_written END" for c in COUNTS)
RUN_SELECT = f"SELECT id, started_at, finished_at, pid, status, roots, duration_s, {_RUN_COUNTS} FROM runs"
# the stored drafts of one session (its source, id and first step time) read from another file
# (`{other}`: another path; on PostgreSQL, or another machine) holding more steps than a new draft
# (`{cmp}` >) or fewer (<): copies of the session lagging behind one another. (The same file
# holding fewer steps than before was rewritten: what it says now is its newest draft.)
COPIES = ("SELECT t.trace_id FROM traces t JOIN drafts d ON d.trace_id = t.trace_id JOIN sessions s "
          "ON s.id = t.session_ref WHERE d.review_of IS NULL AND s.source_kind = {m} AND s.session_id = {m} "
          "AND t.started_at = {m} AND t.steps {cmp} {m} AND {other} ORDER BY t.steps DESC, d.id DESC LIMIT 3")
AUDIT_SELECT = ("SELECT a.id, a.at, a.actor, a.action, COALESCE(a.trace_id, d.trace_id), a.detail_json, "
                "a.before_sha256, a.after_sha256 FROM audit a LEFT JOIN drafts d ON d.id = a.draft_id")


def audit_of(mark: str) -> str:
    """The WHERE condition of one trace's audit records: those naming it and its draft's. Not
    `d.trace_id = …` on the joined draft: that scans the whole audit table for each trace (a
    copy or export of n traces took n² row reads), where this finds both through indexes."""
    return f" WHERE a.trace_id = {mark} OR a.draft_id = (SELECT id FROM drafts WHERE trace_id = {mark})"


TRACE_COLS = ("trace_id, session_ref, prior_trace_id, agent, project, started_at, ended_at, confidence, steps, "
              "turns, task, created_at, run_id, model_values")


def trace_select(false: str, file_join: str) -> str:
    """The SELECT of `TraceRow`s: `false` is the dialect's false, `file_join` the condition
    that finds a session's source file."""
    return (
        "SELECT t.trace_id, d.id, d.status, s.source_kind, s.session_id, s.unit_path, t.agent, t.project, "
        "t.started_at, t.ended_at, t.confidence, t.steps, t.turns, t.task, t.prior_trace_id, t.created_at, "
        f"COALESCE(f.status = 'source_gone', {false}) "
        "FROM traces t JOIN drafts d ON d.trace_id = t.trace_id JOIN sessions s ON s.id = t.session_ref "
        f"LEFT JOIN source_files f ON {file_join}")


def trace_row(r: tuple[Any, ...], sha: dict[str, str] | None = None) -> TraceRow:
    return TraceRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13],
                    r[14], r[15], bool(r[16]), sha or {})


def run_row(r: tuple[Any, ...]) -> RunRow:
    return RunRow(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), RunCounts(*r[7:]), r[6])


def trace_filters(query: TraceQuery, mark: str) -> tuple[list[str], list[Any]]:
    """The WHERE conditions and their arguments of every filter but the text search (whose
    SQL is the backend's own)."""
    where: list[str] = []
    args: list[Any] = []
    if query.agent is not None:
        where.append(agent_sql(mark, mark))
        args += [query.agent, query.agent]
    if query.status is not None:
        where.append(f"d.status = {mark}")
        args.append(query.status)
    if query.project is not None:  # `~/work/api`, or its last folders: `api`, `work/api`
        where.append(f"(t.project = {mark} OR substr(t.project, length(t.project) - length({mark})) = {mark})")
        args += [query.project, query.project, "/" + query.project]
    bounds: tuple[tuple[str, object], ...] = (
        ("t.started_at >=", query.since), ("t.started_at <", query.until), ("t.confidence >=", query.min_confidence),
        ("t.confidence <=", query.max_confidence))
    for cond, bound in bounds:
        if bound is not None:
            where.append(f"{cond} {mark}")
            args.append(bound)
    if query.latest_only:
        # a later draft of the same session (a sweep's) replaces a draft; the trace a review made
        # points back at its draft too, but replaces nothing: the draft stays, as approved; and
        # an approved draft is a person's decision, listed even when its session grew since
        where.append("(d.status = 'approved' OR NOT EXISTS (SELECT 1 FROM traces n JOIN drafts nd "
                     "ON nd.trace_id = n.trace_id WHERE n.prior_trace_id = t.trace_id AND nd.review_of IS NULL))")
    if query.reviewed is not None:
        where.append("d.review_of IS NOT NULL" if query.reviewed else "d.review_of IS NULL")
    if query.replaces is not None:
        where.append(f"t.prior_trace_id = {mark}")
        args.append(query.replaces)
    if query.open_only:
        where.append("d.status IN ('pending', 'needs_changes')")
    if query.model_values is not None:
        where.append("t.model_values > 0" if query.model_values else "t.model_values = 0")
    if query.hidden is not None:
        where.append(HIDDEN_SQL if query.hidden else f"NOT {HIDDEN_SQL}")
    return where, args


_ORDER_COLUMNS = {"started": "t.started_at", "confidence": "t.confidence", "steps": "t.steps", "agent": "t.agent",
                  "project": "t.project", "status": "d.status", "task": "lower(t.task)", "trace": "t.trace_id"}


def order_sql(query: TraceQuery, collate: str = "") -> str:
    """ORDER BY, LIMIT and OFFSET of `Store.traces` (missing values last whichever the direction,
    then the trace id, so that pages never overlap); `collate`: the dialect's byte-order collation."""
    way = "DESC" if query.descending else "ASC"
    col = _ORDER_COLUMNS[query.order]
    text = collate if query.order in ("agent", "project", "status", "task", "trace") else ""
    tie = "" if query.order == "trace" else f", t.trace_id{collate}"
    return f" ORDER BY {col}{text} {way} NULLS LAST{tie}"


def agent_sql(name: str, kind: str) -> str:
    """The condition that a query's `t` row is of the agent an expression names (`name` and
    `kind`: the same one, twice): by the agent's name as its trace says it (`claude-code`: the
    queue, review list, trace.json) or by the source that read it (`claude_code`: a manifest's
    `source_kind`, the JSON lists), so a filter takes either spelling forsy shows."""
    return (f"(t.agent = {name} OR EXISTS (SELECT 1 FROM sessions ks WHERE ks.id = t.session_ref "
            f"AND ks.source_kind = {kind}))")


# the drafts a hide rule of the queue covers (`queue_rules`), as a condition on a query's `t` row
HIDDEN_SQL = ("EXISTS (SELECT 1 FROM queue_rules r WHERE r.action = 'hide' AND lower(t.task) LIKE r.task_like "
              f"ESCAPE '\\' AND (r.agent IS NULL OR {agent_sql('r.agent', 'r.agent')}))")


def path_range(root: str) -> tuple[str, str, str]:
    """`root` without a trailing separator, and the range [lo, hi) every path below it sorts in
    (byte order)."""
    root = root.rstrip(os.sep) or os.sep
    lo = root if root.endswith(os.sep) else root + os.sep
    hi = lo[:-1] + chr(ord(os.sep) + 1)
    return root, lo, hi


def stored_files(rows: list[tuple[Any, ...]], zd: zstandard.ZstdDecompressor, trace_id: str,
                 path: Path | None = None) -> list[StoredFile]:
    """(name, compressed data, sha256) rows as files, each checked against its sha256 (a blob
    that does not decompress is damaged the same way: an InputError naming it, not a crash)."""
    out = []
    for name, blob, sha in rows:
        try:
            data = zd.decompress(bytes(blob))
        except zstandard.ZstdError:
            raise InputError(f"stored file {name} of trace {trace_id} is damaged (not the compressed data "
                             "forsy wrote)", path=path) from None
        if hashlib.sha256(data).hexdigest() != sha:
            raise InputError(f"stored file {name} of trace {trace_id} does not match its sha256", path=path)
        out.append(StoredFile(name, data))
    return out


def check_status(status: str) -> None:
    if status not in DRAFT_STATUSES:
        raise InputError(f"unknown draft status {status!r}; known: {', '.join(DRAFT_STATUSES)}")


def check_version(change: ReviewChange, version: int) -> None:
    """A review acts on the version it read: another action since is a conflict."""
    if version != change.expected_version:
        raise ReviewConflict(
            f"trace {change.trace_id} changed since it was read (version {change.expected_version}, "
            f"now {version}): another review action came first; nothing was written, look again")


# --- carrying a review history from another store (`Store.import_review`, `forsy store copy`)

COPY_ACTOR = "forsy store copy"
COPY_ACTION = "review_copied"  # the audit record saying a history was copied in, and from where


# What the forsy before `import_review` wrote when it copied a draft: its status alone, as an
# audit record of this actor and action. It is no review made in the destination, so a draft
# whose only history it is may still be given the history it stood for.
_OLD_COPY = f"a.actor = '{COPY_ACTOR}' AND a.action = 'status'"


def history_sql(mark: str) -> str:
    """A draft's id and state, how many proposals it has, how many audit records besides its
    `draft_created` and an older copy's status records, and how many of those (`history_row`)."""
    audit = "SELECT COUNT(*) FROM audit a WHERE (a.draft_id = d.id OR a.trace_id = d.trace_id) AND "
    return ("SELECT d.id, d.status, d.version, d.reviewed_as, d.review_of, d.validation_level, "
            "(SELECT COUNT(*) FROM proposals p WHERE p.draft_id = d.id), "
            f"({audit}a.action <> 'draft_created' AND NOT ({_OLD_COPY})), ({audit}{_OLD_COPY}) "
            f"FROM drafts d WHERE d.trace_id = {mark}")


def has_history(state: DraftState, proposals: int, audit: int) -> bool:
    """Anything a review (or a status change) left on a draft: a fresh draft has none."""
    return bool(state.status != "pending" or state.version or state.reviewed_as or state.review_of
                or state.validation_level or proposals or audit)


def history_row(r: tuple[Any, ...], trace_id: str) -> tuple[int, bool]:
    """The draft's id and whether it has a review history of its own, from a `history_sql` row: a
    status other than pending counts unless an older copy set it (a status change is always audited)."""
    draft_id, status, version, reviewed_as, review_of, level, proposals, audit, old_copy = r
    state = DraftState(draft_id, trace_id, "pending" if int(old_copy) else status, version, "", reviewed_as,
                       review_of, level)
    return draft_id, has_history(state, int(proposals), int(audit))


def old_copy_record(a: AuditRow) -> bool:
    """An audit record of the forsy before `import_review`, which copied a draft's status alone."""
    return a.actor == COPY_ACTOR and a.action == "status"


def import_writes(mark: str, draft_id: int, tid: str, state: DraftState, proposals: list[ProposalRow],
                  audit: list[AuditRow], note: str, now: str) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """The statements (each with its argument rows) that give a fresh draft the review history
    of `state`: its state, its proposals in order, its audit records with their own times, actors
    and hashes, then one record saying where it came from."""
    check_status(state.status)
    m = mark
    detail = json.dumps({"note": note, "version": state.version, "proposals": len(proposals), "audit": len(audit)})
    return [
        (f"UPDATE drafts SET status = {m}, version = {m}, updated_at = {m}, reviewed_as = {m}, review_of = {m}, "
         f"validation_level = {m} WHERE id = {m}",
         [(state.status, state.version, state.updated_at, state.reviewed_as, state.review_of,
           state.validation_level, draft_id)]),
        ("INSERT INTO proposals (draft_id, trace_id, path, value_json, origin, actor, created_at, citations_json, "
         f"replaced_json) VALUES ({m}, {m}, {m}, {m}, {m}, {m}, {m}, {m}, {m})",
         [(draft_id, tid, p.path, p.value_json, p.origin, p.actor, p.created_at, p.citations_json, p.replaced_json)
          for p in proposals]),
        ("INSERT INTO audit (at, actor, action, draft_id, detail_json, trace_id, before_sha256, after_sha256) "
         f"VALUES ({m}, {m}, {m}, {m}, {m}, {m}, {m}, {m})",
         [*((a.at, a.actor, a.action, draft_id, a.detail_json, a.trace_id or tid, a.before_sha256, a.after_sha256)
            for a in audit),
          (now, COPY_ACTOR, COPY_ACTION, draft_id, detail, tid, None, None)]),
    ]
