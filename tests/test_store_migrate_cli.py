"""`forsy store migrate` names the migrations it applied this run, not every migration the
store holds: a new store gets all of them, an older store the ones it lacked, an up-to-date
store none. `--json` says the same for a script."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from _review import cli
from forsy.store._sqlite import MIGRATIONS


def _names() -> list[str]:
    return [name for name, _ in MIGRATIONS]


def test_a_new_store_gets_every_migration_and_a_second_run_none(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    names = _names()
    code, err, _ = cli("store", "migrate", "--store", url)
    assert code == 0
    assert f"applied {len(names)} of {len(names)} migrations ({', '.join(names)}); schema up to date" in err
    code, err, _ = cli("store", "migrate", "--store", url)
    assert code == 0 and f"schema up to date ({len(names)} migrations, none to apply)" in err
    assert "applied" not in err


def test_an_older_store_is_told_only_what_it_lacked(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    url = f"sqlite:///{db}"
    assert cli("store", "migrate", "--store", url)[0] == 0
    with sqlite3.connect(db) as c:  # the store as a forsy before the last migration left it
        c.execute("DROP INDEX sessions_session")
        c.execute("DELETE FROM schema_migrations WHERE name = '0011_sessions_by_id'")
    code, out, _ = cli("store", "migrate", "--store", url, "--json")
    assert code == 0
    assert json.loads(out) == {"ok": True, "store": url, "applied": ["0011_sessions_by_id"],
                               "migrations": len(_names())}
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM sqlite_master WHERE name = 'sessions_session'").fetchone() == (1,)
    code, out, _ = cli("store", "migrate", "--store", url, "--json")
    assert json.loads(out)["applied"] == []


def test_an_older_postgresql_store_is_told_only_what_it_lacked(pg_url: str) -> None:
    import psycopg

    from forsy.store._postgres import MIGRATIONS as PG_MIGRATIONS

    assert cli("store", "migrate", "--store", pg_url)[0] == 0
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("DROP INDEX sessions_session")
        c.execute("DELETE FROM schema_migrations WHERE name = '0011_sessions_by_id'")
    code, out, _ = cli("store", "migrate", "--store", pg_url, "--json")
    assert code == 0
    got = json.loads(out)
    assert got["applied"] == ["0011_sessions_by_id"] and got["migrations"] == len(PG_MIGRATIONS)
    assert json.loads(cli("store", "migrate", "--store", pg_url, "--json")[1])["applied"] == []
