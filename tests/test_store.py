"""The store of draft traces: schema and migrations, the repository API, search, export."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from _paths import SAMPLES
from forsy.config import Config, load_config
from forsy.errors import InputError, StoreUnreachable
from forsy.run import RetraceOptions, retrace_one
from forsy.store import FileState, LockInfo, Store, TraceQuery, open_store
from forsy.store._sqlite import MIGRATIONS
from forsy.store.export import export_trace
from forsy.store.sink import StoreSink
from forsy.validation import validate_path

NOW = "2026-03-01T12:00:00+00:00"


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Every test of a store runs against both backends (PostgreSQL: a fresh database of the
    session's throwaway server, see conftest.pg_server)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def store(store_url: str) -> Store:
    s = open_store(store_url)
    yield s  # type: ignore[misc]
    s.close()


def is_pg(store: Store) -> bool:
    return store.url.startswith("postgresql:")


def sql(store: Store, query: str) -> list[tuple[object, ...]]:
    """A raw query on the store's own connection (either backend)."""
    return list(store.conn.execute(query).fetchall())  # type: ignore[attr-defined]


def put(store: Store, name: str) -> str:
    sink = StoreSink(store, now=NOW)
    [o] = retrace_one(SAMPLES / "claude" / name, RetraceOptions(), sink=sink, keep=False)
    assert o.status == "written" and o.trace_id
    return o.trace_id


def test_postgresql_schema_migrations_recorded_in_order(pg_url: str) -> None:
    from forsy.store._postgres import MIGRATIONS as PG_MIGRATIONS

    s = open_store(pg_url)
    s.close()
    s = open_store(pg_url)  # reopened: nothing applied twice
    assert [r[0] for r in sql(s, "SELECT name FROM schema_migrations ORDER BY seq")] == \
        [name for name, _ in PG_MIGRATIONS]
    names = {r[0] for r in sql(s, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    names |= {r[0] for r in sql(s, "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")}
    s.close()
    assert {"sessions", "source_files", "traces", "trace_files", "drafts", "proposals", "audit", "runs", "errors",
            "trace_text", "jobs", "reviewer_tokens"} <= names
    assert {"traces_agent", "traces_project", "traces_started", "traces_confidence", "drafts_status",
            "trace_text_tsv"} <= names
    # the same named list on both backends: the shared migrations, each backend's own apart
    shared = sorted(n for n, _ in MIGRATIONS if "sqlite" not in n)
    assert shared == [n for n, _ in PG_MIGRATIONS if "postgresql" not in n]


def test_a_postgresql_store_from_a_newer_forsy_is_refused(pg_url: str) -> None:
    s = open_store(pg_url)
    s.conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_future', 'x')")  # type: ignore[attr-defined]
    s.close()
    with pytest.raises(InputError, match="newer forsy"):
        open_store(pg_url)


def test_schema_migrations_recorded_in_order_and_pragmas(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    s = open_store(str(db))
    s.close()
    s = open_store(f"sqlite:///{db}")  # reopened: nothing applied twice
    s.close()
    with sqlite3.connect(db) as c:
        assert [r[0] for r in c.execute("SELECT name FROM schema_migrations ORDER BY rowid")] == \
            [name for name, _ in MIGRATIONS]
        assert c.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        names = {r[0] for r in c.execute("SELECT name FROM sqlite_master")}
    assert {"sessions", "source_files", "traces", "trace_files", "drafts", "proposals", "audit", "runs", "errors",
            "trace_text"} <= names
    assert {"traces_agent", "traces_project", "traces_started", "traces_confidence", "drafts_status"} <= names


def test_a_store_from_a_newer_forsy_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    open_store(str(db)).close()
    with sqlite3.connect(db) as c:
        c.execute("INSERT INTO schema_migrations VALUES ('9999_future', 'x')")
    with pytest.raises(InputError, match="newer forsy"):
        open_store(str(db))


def test_store_urls(tmp_path: Path) -> None:
    # no psycopg: an input error saying what to install; no server there: one that cannot be reached
    with pytest.raises((InputError, StoreUnreachable), match="PostgreSQL"):
        open_store("postgresql://localhost/forsy")
    with pytest.raises(InputError, match="unknown store URL"):
        open_store("mysql://x")
    os.chdir(tmp_path)
    open_store("sqlite:rel.db").close()
    assert (tmp_path / "rel.db").is_file()


def test_a_trace_is_stored_once_as_a_pending_draft(store: Store) -> None:
    tid = put(store, "demo-session.jsonl")
    assert put(store, "demo-session.jsonl") == tid  # the same trace again: not a second draft
    rows = store.traces(TraceQuery())
    assert [(r.trace_id, r.status, r.agent, r.project) for r in rows] == [
        (tid, "pending", "claude-code", "~/projects/textkit")]
    files = {f.name: f.data for f in store.trace_files(tid)}
    assert {"trace.json", "manifest.json", "provenance.json", "README.md"} <= set(files)
    row = store.trace(tid)
    assert row is not None
    assert row.sha256["trace.json"] == hashlib.sha256(files["trace.json"]).hexdigest()


def test_draft_status_changes_are_checked_and_audited(store: Store, tmp_path: Path) -> None:
    tid = put(store, "demo-session.jsonl")
    store.set_draft_status(tid, "approved", "alice", NOW, "looks right")
    assert store.traces(TraceQuery(status="approved"))[0].trace_id == tid
    assert store.traces(TraceQuery(status="pending")) == []
    with pytest.raises(InputError):
        store.set_draft_status(tid, "shipped", "alice", NOW)  # type: ignore[arg-type]
    with pytest.raises(InputError):
        store.set_draft_status("forsy_nope", "approved", "alice", NOW)
    if is_pg(store):
        import psycopg

        assert [r[0] for r in sql(store, "SELECT action FROM audit ORDER BY id")] == ["draft_created", "status"]
        with pytest.raises(psycopg.errors.CheckViolation):  # the database itself refuses an unknown status
            sql(store, "UPDATE drafts SET status = 'shipped'")
        return
    with sqlite3.connect(tmp_path / "store.db") as c:
        actions = [r[0] for r in c.execute("SELECT action FROM audit ORDER BY id")]
        assert actions == ["draft_created", "status"]
        with pytest.raises(sqlite3.IntegrityError):  # the database itself refuses an unknown status
            c.execute("UPDATE drafts SET status = 'shipped'")


def test_queries_by_agent_project_confidence_and_full_text(store: Store) -> None:
    a = put(store, "demo-session.jsonl")
    b = put(store, "compaction-and-branches.jsonl")
    assert {r.trace_id for r in store.traces(TraceQuery(agent="claude-code"))} == {a, b}
    assert [r.trace_id for r in store.traces(TraceQuery(project="widgets"))] == [b]
    assert store.traces(TraceQuery(agent="codex-cli")) == []
    conf = {r.trace_id: r.confidence or 0 for r in store.traces(TraceQuery())}
    top = max(conf.values())
    assert {r.trace_id for r in store.traces(TraceQuery(min_confidence=top))} == {t for t, c in conf.items()
                                                                                  if c >= top}
    # a prompt word, a tool input word; FTS syntax in the query is taken literally
    assert [r.trace_id for r in store.traces(TraceQuery(text="header row"))] == [b]
    assert [r.trace_id for r in store.traces(TraceQuery(text="test_export.py"))] == [b]
    assert store.traces(TraceQuery(text='slugify" OR "header')) == []
    assert [r.trace_id for r in store.traces(TraceQuery(since="2026-02-17"))] == [b]


def test_export_writes_the_stored_trace_byte_for_byte(store: Store, tmp_path: Path) -> None:
    tid = put(store, "compaction-and-branches.jsonl")
    folder = export_trace(store, tid, tmp_path / "out")
    stored = {f.name: f.data for f in store.trace_files(tid)}
    for name in ("trace.json", "provenance.json", "manifest.json", "README.md"):
        assert (folder / name).read_bytes() == stored[name], name
    assert not validate_path(folder).errors
    with pytest.raises(InputError, match="no trace"):
        export_trace(store, "forsy_nope", tmp_path / "x")


def test_file_states_under_a_root_do_not_leak_into_a_sibling(store: Store) -> None:
    def fs(path: str) -> FileState:
        return FileState(path, path, "claude_code", 1, 2, 3, 4, "h", None, 0, 3, "ok", None, NOW, None)

    store.put_file_states([fs("/a/b/x.jsonl"), fs("/a/bc/y.jsonl"), fs("/a/b")])
    assert set(store.file_states(["/a/b"])) == {"/a/b", "/a/b/x.jsonl"}
    assert set(store.file_states(["/a/b/"])) == {"/a/b", "/a/b/x.jsonl"}
    assert set(store.file_states(["/"])) == {"/a/b", "/a/b/x.jsonl", "/a/bc/y.jsonl"}


def test_lock_held_by_a_live_process_is_not_taken(store: Store) -> None:
    mine = LockInfo(os.getpid(), "h", NOW)
    other = LockInfo(os.getpid() + 1, "h", NOW)
    assert store.acquire_lock(mine, lambda _: True) is None
    assert store.acquire_lock(other, lambda _: True) == mine
    assert store.acquire_lock(other, lambda _: False) is None  # the holder is dead: taken over
    assert store.lock_holder() == other
    store.release_lock(mine.pid)  # not ours to release any more
    assert store.lock_holder() == other
    store.release_lock(other.pid)
    assert store.lock_holder() is None


def test_a_failed_transaction_leaves_nothing(store: Store) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        put(store, "demo-session.jsonl")
        raise RuntimeError("killed")
    assert store.traces(TraceQuery()) == []


def test_config_file_env_and_flags(tmp_path: Path) -> None:
    cfg_file = tmp_path / "config.toml"
    cfg_file.write_text('roots = ["~/logs"]\nsettle_seconds = 30\nstore = "sqlite:///x.db"\nredact = true\n')
    cfg = load_config(cfg_file, env={})
    assert cfg.roots == [Path("~/logs").expanduser()] and cfg.settle_seconds == 30 and cfg.store == "sqlite:///x.db"
    cfg = load_config(cfg_file, env={"FORSY_STORE": "sqlite:///env.db", "FORSY_SETTLE_SECONDS": "5"})
    assert (cfg.store, cfg.settle_seconds) == ("sqlite:///env.db", 5.0)
    assert cfg.with_flags(store="sqlite:///flag.db", settle_seconds=None).store == "sqlite:///flag.db"
    assert load_config(tmp_path / "absent.toml", env={}) == Config()
    cfg_file.write_text("root = 1\n")
    with pytest.raises(InputError, match="unknown config key"):
        load_config(cfg_file, env={})
    cfg_file.write_text("settle_seconds = [\n")
    with pytest.raises(InputError, match="cannot read the config file"):
        load_config(cfg_file, env={})


@pytest.mark.parametrize("url", ["newdir/", "sqlite:newdir/", "{tmp}/existing"])
def test_a_store_url_naming_a_folder_is_refused_not_made_a_file(tmp_path: Path, url: str) -> None:
    """`--store ./newdir/` made a database file named `newdir`; a folder is never a store."""
    (tmp_path / "existing").mkdir()
    os.chdir(tmp_path)
    with pytest.raises(InputError, match="names a folder; give the database file"):
        open_store(url.format(tmp=tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["existing"]


def test_reading_a_store_that_is_not_there_never_creates_it(tmp_path: Path) -> None:
    """`--store typo.db` on a command that only reads (list, review, show, export, copy --from)
    created an empty database at the typo and reported nothing found."""
    from typer.testing import CliRunner

    from forsy.cli import app

    typo = tmp_path / "typo.db"
    with pytest.raises(InputError, match="no store at .*typo.db"):
        open_store(str(typo), create=False)
    runner = CliRunner()
    for args in (["review", "list"], ["store", "list"], ["show", "forsy_0123"], ["review", "show", "forsy_0123"],
                 ["export", "--from-store", "*", "--to", "atif", "-o", str(tmp_path / "x.json")]):
        r = runner.invoke(app, [*args, "--store", str(typo)])
        assert r.exit_code == 2 and "no store at" in r.stderr, (args, r.stderr)
    r = runner.invoke(app, ["store", "copy", "--from", str(typo), "--to", str(tmp_path / "b.db")])
    assert r.exit_code == 2 and "no store at" in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # neither end of the copy was made
    open_store(str(typo)).close()  # a command that writes (sweep, migrate, copy --to) makes it
    assert typo.is_file()



def test_a_postgresql_store_missing_its_later_migrations_is_brought_up_to_date(pg_url: str) -> None:
    """A store made by an older forsy has the first migrations only: migrate applies the others,
    in order, each once, and says which (a migrate that stopped at the first one already applied
    would leave such a store as it was). SQLite's stores migrate through schema_migrations'
    own function, tested with it."""
    store = open_store(pg_url)
    try:
        put(store, "demo-session.jsonl")
        names = store.migrations()
        later = ["0007_queue_rules", "0008_model_values", "0009_retried_count", "0010_sweep_lock_lease",
                 "0011_sessions_by_id"]
        assert names[-5:] == later
        with store.transaction():  # type: ignore[attr-defined]  # the store before those five
            for q in ("DROP TABLE queue_rules", "ALTER TABLE traces DROP COLUMN model_values",
                      "ALTER TABLE runs DROP COLUMN retried", "ALTER TABLE sweep_lock DROP COLUMN proc",
                      "ALTER TABLE sweep_lock DROP COLUMN renewed", "DROP INDEX sessions_session",
                      "DELETE FROM schema_migrations WHERE name IN ('0007_queue_rules', '0008_model_values', "
                      "'0009_retried_count', '0010_sweep_lock_lease', '0011_sessions_by_id')"):
                store.conn.execute(q)  # type: ignore[attr-defined]
        assert store.migrations() == names[:-5]
        assert store.migrate() == later  # type: ignore[attr-defined]
        assert store.migrations() == names
        assert sql(store, "SELECT count(*) FROM queue_rules") == [(0,)]
        assert sql(store, "SELECT model_values FROM traces") == [(0,)]  # the trace kept, its column back
        assert sql(store, "SELECT count(proc), count(renewed) FROM sweep_lock") == [(0, 0)]
        assert sql(store, "SELECT count(*) FROM pg_indexes WHERE indexname = 'sessions_session'") == [(1,)]
        assert store.migrate() == []  # type: ignore[attr-defined]
    finally:
        store.close()
