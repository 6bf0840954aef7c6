"""OpenCode's SQLite database (since 1.2) read into traces as its JSON storage is: a session with
text, calls and their results, a subagent's session and a reverted turn; every row accounted
for and read back by `forsy verify`; a database in WAL mode in a folder forsy may not write to;
a database json-migration.ts filled from a JSON storage it left beside it (read once).

The tables are made as anomalyco/opencode's packages/opencode/src/session/session.sql.ts
@ 063e8306d9 declares them (`session`, `message`, `part`; Timestamps are `time_created` and
`time_updated`), in the file storage/db.ts @ 032cb74b09 names (`opencode.db` in the data folder,
WAL mode), filled as storage/json-migration.ts @ 062aa8c024 fills them from the JSON storage:
ids from the files' names, each message's and part's object less its ids in `data`, as JSON."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

import forsy
from _opencode_store import Store
from forsy.config import default_log_roots
from forsy.run import read_sessions
from forsy.sources import _sqlite, load
from forsy.sources.walk import discover_tree
from test_sources_opencode import CHILD, MAIN, _story

SCHEMA = """
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text,
    time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL REFERENCES project(id) ON DELETE cascade,
    workspace_id text, parent_id text, slug text NOT NULL, directory text NOT NULL, path text,
    title text NOT NULL, version text NOT NULL, share_url text, summary_additions integer,
    summary_deletions integer, summary_files integer, summary_diffs text, cost real DEFAULT 0 NOT NULL,
    tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
    tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL,
    tokens_cache_write integer DEFAULT 0 NOT NULL, revert text, permission text, goal text, agent text,
    model text, time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer,
    time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL REFERENCES session(id) ON DELETE cascade,
    time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL REFERENCES message(id) ON DELETE cascade,
    session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
"""
NOW = 1_768_400_000_000


def _js(v: Any) -> str | None:
    return None if v is None else json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def migrate(storage: Path, con: sqlite3.Connection) -> None:
    """The JSON storage's sessions, messages and parts as json-migration.ts inserts them."""
    con.executescript(SCHEMA)
    for f in sorted(storage.glob("session/*/*.json")):
        d = json.loads(f.read_text())
        t = d.get("time") or {}
        con.execute("INSERT OR IGNORE INTO project VALUES (?, '/', 'git', NULL, ?, ?)", (f.parent.name, NOW, NOW))
        con.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, revert, "
                    "time_created, time_updated) VALUES (?, ?, ?, '', ?, ?, ?, ?, ?, ?)",
                    (f.stem, f.parent.name, d.get("parentID"), d.get("directory", ""), d.get("title", ""),
                     d.get("version", ""), _js(d.get("revert")), t.get("created", NOW), t.get("updated", NOW)))
    for f in sorted(storage.glob("message/*/*.json")):
        d = json.loads(f.read_text())
        t = d.get("time") or {}
        rest = {k: v for k, v in d.items() if k not in ("id", "sessionID")}
        con.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                    (f.stem, f.parent.name, t.get("created", NOW), t.get("updated", NOW), _js(rest)))
    for f in sorted(storage.glob("part/*/*.json")):
        d = json.loads(f.read_text())
        t = d.get("time") or {}
        rest = {k: v for k, v in d.items() if k not in ("id", "messageID", "sessionID")}
        con.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                    (f.stem, f.parent.name, d["sessionID"], t.get("start", NOW), t.get("end", NOW), _js(rest)))
    con.commit()


def _made(tmp: Path) -> tuple[Store, Path]:
    """The story of test_sources_opencode written as JSON storage under `tmp/json`, and copied
    into `tmp/data/opencode.db` (a data folder holding the database alone)."""
    st = _story(tmp / "json")
    db = tmp / "data" / "opencode.db"
    db.parent.mkdir()
    con = sqlite3.connect(db)
    try:
        migrate(st.storage, con)
    finally:
        con.close()
    return st, db


def _retrace(path: Path, out: Path) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    run = forsy.retrace([path], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(out, parent=True))
    [o] = run.outcomes
    assert o.status == "written", o.message
    folder = Path(str(o.where))
    assert forsy.validate(folder).ok
    load_ = lambda name: json.loads((folder / name).read_text())  # noqa: E731
    return folder, load_("trace.json"), load_("manifest.json")


STEP_KEYS = ("actor", "action", "tool", "success", "input", "output", "caused_by", "started_at", "eval_reason")


def test_a_database_session_is_read_as_its_json_storage_was(tmp_path: Path) -> None:
    st, db = _made(tmp_path)
    assert load("opencode").sniff(db, db.read_bytes()[:64])
    folder, trace, manifest = _retrace(db, tmp_path / "out-db")
    # each row is a source of its own in provenance (every evidence's source is listed: no P011),
    # and verify finds the database from the folder above the one retrace was given too
    assert [f.rule for f in forsy.validate(folder).findings if f.rule.startswith("P")] == []
    for root in (db, db.parent, tmp_path):
        check = forsy.verify(folder, [root])
        assert check.ok, check.problems[:3]
    _, json_trace, _ = _retrace(st.storage / "session" / st.project / f"{MAIN}.json", tmp_path / "out-json")
    # the same steps, results linked to their calls, the subagent inside its task call, the
    # reverted turn rewound: the database holds the same objects
    steps = [{k: s.get(k) for k in STEP_KEYS} for s in trace["steps"]]
    assert steps == [{k: s.get(k) for k in STEP_KEYS} for s in json_trace["steps"]]
    assert len(steps) == 20 and steps[9]["actor"] == f"subagent:{CHILD}" and steps[9]["caused_by"] == [9]
    assert [i for i, s in enumerate(steps, 1) if "rewound" in (s["eval_reason"] or "")] == [19, 20]
    cfg = trace["agent_config"]
    assert cfg["agent_version"] == "1.1.21" and cfg["subagents"][0]["parent_call_id"] == "call_task"
    # every row read is one record, accounted for: the two sessions, their messages and parts
    con = sqlite3.connect(db)
    rows = sum(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("session", "message", "part"))
    con.close()
    totals = {h: sum(f["totals"][h] for f in manifest["ledger"]) for h in manifest["ledger"][0]["totals"]}
    assert sum(totals.values()) == rows and totals["unknown"] == 0 and totals["unparsable"] == 0
    # each row its own entry, named by the database and its place in it; the file itself listed
    assert [f["path"] for f in manifest["ledger"] if not f["records_read"]] == [db.name]
    assert all(f["path"].startswith(f"opencode-db:{db.name}#") and f["records_read"] == 1
               for f in manifest["ledger"] if f["path"] != db.name)


def test_discover_offers_the_database_of_a_data_or_home_folder(tmp_path: Path) -> None:
    _, db = _made(tmp_path)
    src = load("opencode")
    assert src.discover(db.parent) == [db] and src.discover(db) == [db]
    home = tmp_path / "home"
    (home / ".local" / "share").mkdir(parents=True)
    db.parent.rename(home / ".local" / "share" / "opencode")
    moved = home / ".local" / "share" / "opencode" / "opencode.db"
    assert src.discover(home) == [moved]
    [s] = list(read_sessions([moved]))  # the subagent's session is read with its parent's
    assert s.session_id == MAIN and any(e.actor == f"subagent:{CHILD}" for e in s.events)


def test_a_read_only_folder_in_wal_mode_is_read_with_the_rows_still_in_the_log(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    st = _story(tmp_path / "json")
    live = tmp_path / "live" / "opencode.db"
    live.parent.mkdir()
    con = sqlite3.connect(live)
    try:
        con.execute("PRAGMA journal_mode = WAL")
        con.execute("PRAGMA wal_autocheckpoint = 0")  # every row stays in the -wal file
        migrate(st.storage, con)
        # the folder as OpenCode leaves it while it runs: the database and its log, copied
        ro = tmp_path / "ro"
        ro.mkdir()
        for suffix in ("", "-wal"):
            shutil.copyfile(live.with_name(live.name + suffix), ro / f"opencode.db{suffix}")
    finally:
        con.close()
    db = ro / "opencode.db"
    con = sqlite3.connect(f"{db.as_uri()}?immutable=1", uri=True)
    assert con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0  # the main file alone: no table
    con.close()
    os.chmod(ro, stat.S_IRUSR | stat.S_IXUSR)
    real = _sqlite._query_file  # the reading of every agent's SQLite database (atuin's too)

    def as_sqlite_in_a_read_only_folder(path: Path, sql: str, args: tuple[str, ...]) -> list[dict[str, Any]]:
        # what SQLite says there to a reader that is not root (root may write the -shm file)
        if path.parent == ro:
            raise sqlite3.OperationalError("unable to open database file")
        return real(path, sql, args)

    monkeypatch.setattr(_sqlite, "_query_file", as_sqlite_in_a_read_only_folder)
    try:
        [s] = list(read_sessions([db]))
        assert s.session_id == MAIN and len([e for e in s.events if e.kind == "tool_call"]) == 14
        assert sorted(p.name for p in ro.iterdir()) == ["opencode.db", "opencode.db-wal"]  # nothing written beside
        assert any("#part/" in ev.source for ev in s.evidence.values())
    finally:
        os.chmod(ro, stat.S_IRWXU)


def test_a_migrated_storage_is_read_once_from_the_database(tmp_path: Path) -> None:
    st = _story(tmp_path / "opencode")  # the data folder: storage/ and, beside it, the database
    con = sqlite3.connect(tmp_path / "opencode" / "opencode.db")
    try:
        migrate(st.storage, con)
    finally:
        con.close()
    db = tmp_path / "opencode" / "opencode.db"
    src = load("opencode")
    for given in (tmp_path / "opencode", st.storage, st.storage / "session" / st.project):
        assert src.discover(given) == [db], given  # the JSON copies are left out
    found = discover_tree(tmp_path / "opencode", forsy.sources.available())
    assert [(s.name, p) for s, p in found.found] == [("opencode", db)] and found.unrecognised == []
    main_file = st.storage / "session" / st.project / f"{MAIN}.json"
    assert src.session_of(main_file) == db  # the walk takes the JSON copy as the database's
    [s] = list(read_sessions([db]))
    [w] = [w for w in s.warnings if w.code == "json-copy"]
    assert MAIN in w.message and "read from the database only" in w.message
    # named alone, a JSON copy is read as asked, and says the database holds it too
    [j] = list(read_sessions([main_file]))
    assert any(w.code == "migrated" for w in j.warnings)


def test_sweep_looks_at_the_database_where_opencode_writes_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert home / ".local" / "share" / "opencode" / "opencode.db" in default_log_roots(home, {})
    assert Path("/data/x/opencode/opencode.db") in default_log_roots(home, {"XDG_DATA_HOME": "/data/x"})


def test_a_damaged_row_and_a_part_without_its_message_are_accounted_for(tmp_path: Path) -> None:
    _, db = _made(tmp_path)
    con = sqlite3.connect(db)  # foreign keys are off unless asked: a message row can go alone
    [(mid,)] = con.execute("SELECT message_id FROM part WHERE data LIKE '%call_fetch%'").fetchall()
    con.execute("DELETE FROM message WHERE id = ?", (mid,))
    con.execute("UPDATE part SET data = '{\"type\": \"text\", \"text\": ' WHERE data LIKE '%Only cart.py.%' "
                "AND data LIKE '%\"type\":\"text\"%'")
    rows = sum(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("session", "message", "part"))
    con.commit()
    con.close()
    [s] = list(read_sessions([db]))
    codes = {w.code for w in s.warnings}
    assert {"no-message", "unparsable"} <= codes
    assert s.quality.records == rows and s.quality.unparsable_records == 1
    # every row read is cited by a step or marked in the ledger, but the one that is not JSON
    cited = {r.ev for e in s.events for r in e.refs}
    assert len([i for i in s.evidence if i not in cited and i not in s.ledger]) == 0
    assert len(s.evidence) == rows - 1
