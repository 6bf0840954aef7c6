"""The store's schema, as numbered migrations applied in order and recorded by name.

A migration is never edited once released: a change is a new entry at the end. The SQL is
kept portable (SQLite and PostgreSQL): the only differences are spelled as placeholders
the backend fills in — `{pk}` an auto-numbered primary key, `{blob}` a byte string — and
backend-only parts (SQLite's FTS5 index) live in the backend's own list.
"""

from __future__ import annotations

Migration = tuple[str, str]  # (name, SQL script)

CORE: list[Migration] = [
    ("0001_core", """
CREATE TABLE runs (
    id {pk},
    started_at TEXT NOT NULL,
    finished_at TEXT,
    pid INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'done', 'interrupted')),
    roots TEXT NOT NULL,  -- JSON array of the roots swept
    seen INTEGER NOT NULL DEFAULT 0,
    unchanged INTEGER NOT NULL DEFAULT 0,
    new INTEGER NOT NULL DEFAULT 0,
    grown INTEGER NOT NULL DEFAULT 0,
    rewritten INTEGER NOT NULL DEFAULT 0,
    gone INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    waiting INTEGER NOT NULL DEFAULT 0,
    traced INTEGER NOT NULL DEFAULT 0,
    skipped INTEGER NOT NULL DEFAULT 0,
    traces_written INTEGER NOT NULL DEFAULT 0,
    bytes_read INTEGER NOT NULL DEFAULT 0,
    duration_s REAL
);
CREATE TABLE errors (
    id {pk},
    run_id INTEGER NOT NULL REFERENCES runs(id),
    path TEXT NOT NULL,
    message TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX errors_run ON errors(run_id);
CREATE TABLE sweep_lock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    since TEXT NOT NULL
);
CREATE TABLE source_files (
    path TEXT PRIMARY KEY,
    unit_path TEXT NOT NULL,
    source_kind TEXT,
    dev BIGINT NOT NULL,
    ino BIGINT NOT NULL,
    size BIGINT NOT NULL,
    mtime_ns BIGINT NOT NULL,
    head_sha256 TEXT NOT NULL,
    tail_sha256 TEXT,
    tail_offset BIGINT NOT NULL,
    read_to BIGINT NOT NULL,
    status TEXT NOT NULL
        CHECK (status IN ('ok', 'skipped', 'failed', 'source_gone', 'member', 'ignored')),
    last_error TEXT,
    updated_at TEXT NOT NULL,
    run_id INTEGER REFERENCES runs(id)
);
CREATE INDEX source_files_unit ON source_files(unit_path);
CREATE INDEX source_files_status ON source_files(status);
CREATE TABLE sessions (
    id {pk},
    source_kind TEXT NOT NULL,
    session_id TEXT NOT NULL,
    unit_path TEXT NOT NULL,
    agent TEXT,
    project TEXT,
    first_seen TEXT NOT NULL,
    UNIQUE (unit_path, session_id)
);
CREATE INDEX sessions_agent ON sessions(agent);
CREATE INDEX sessions_project ON sessions(project);
CREATE TABLE traces (
    trace_id TEXT PRIMARY KEY,
    session_ref INTEGER NOT NULL REFERENCES sessions(id),
    prior_trace_id TEXT REFERENCES traces(trace_id),
    agent TEXT,
    project TEXT,
    started_at TEXT,
    ended_at TEXT,
    confidence INTEGER,
    steps INTEGER NOT NULL,
    turns INTEGER NOT NULL,
    task TEXT NOT NULL,
    created_at TEXT NOT NULL,
    run_id INTEGER REFERENCES runs(id)
);
CREATE INDEX traces_session ON traces(session_ref);
CREATE INDEX traces_agent ON traces(agent);
CREATE INDEX traces_project ON traces(project);
CREATE INDEX traces_started ON traces(started_at);
CREATE INDEX traces_confidence ON traces(confidence);
CREATE INDEX traces_prior ON traces(prior_trace_id);
-- trace.json, manifest.json, provenance.json, README.md, artifacts/…: zstd-compressed
CREATE TABLE trace_files (
    trace_id TEXT NOT NULL REFERENCES traces(trace_id),
    name TEXT NOT NULL,
    data {blob} NOT NULL,
    size BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    PRIMARY KEY (trace_id, name)
);
CREATE TABLE drafts (
    id {pk},
    trace_id TEXT NOT NULL UNIQUE REFERENCES traces(trace_id),
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'approved', 'rejected', 'needs_changes')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX drafts_status ON drafts(status);
-- edits to a draft: append-only proposals, never in-place changes (the review queue builds on it)
CREATE TABLE proposals (
    id {pk},
    draft_id INTEGER NOT NULL REFERENCES drafts(id),
    trace_id TEXT NOT NULL REFERENCES traces(trace_id),
    path TEXT NOT NULL,  -- dotted path in trace.json, e.g. steps.3.reasoning
    value_json TEXT NOT NULL,
    origin TEXT NOT NULL CHECK (origin IN ('model', 'human')),
    actor TEXT NOT NULL,
    created_at TEXT NOT NULL,
    citations_json TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX proposals_draft ON proposals(draft_id);
CREATE TABLE audit (
    id {pk},
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    draft_id INTEGER REFERENCES drafts(id),
    detail_json TEXT NOT NULL DEFAULT '{{}}'
);
CREATE INDEX audit_draft ON audit(draft_id);
"""),
]
