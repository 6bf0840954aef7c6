"""One migrations mechanism for forsy's databases (`forsy.schema_migrations`): the store and
the model pass's answer cache record their migrations by name in `schema_migrations`, apply
the missing ones in one transaction, and leave a database made by a newer forsy untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from forsy.errors import InputError, LLMError
from forsy.llm._cache import MIGRATIONS, AnswerCache
from forsy.schema_migrations import migrate_sqlite, missing
from forsy.store import open_store


def _names(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [r[0] for r in db.execute("SELECT name FROM schema_migrations ORDER BY rowid")]


def test_a_new_answer_cache_records_its_migrations_by_name(tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "llm.sqlite3")
    cache.put("m", "p", "sha", "answer", {"prompt_tokens": 3})
    cache.close()
    assert _names(tmp_path / "llm.sqlite3") == ["0001_answers"] == [n for n, _ in MIGRATIONS]
    again = AnswerCache(tmp_path / "llm.sqlite3")  # opened again: nothing applied twice
    assert again.get("m", "p", "sha") == "answer"
    again.close()
    assert _names(tmp_path / "llm.sqlite3") == ["0001_answers"]


def test_a_cache_counted_by_user_version_keeps_its_answers(tmp_path: Path) -> None:
    path = tmp_path / "llm.sqlite3"
    with sqlite3.connect(path) as db:  # as the cache was made when user_version counted its migrations
        db.execute(MIGRATIONS[0][1])
        db.execute("INSERT INTO answers VALUES ('m', 'p', 'sha', 'kept', 1, 2, '2026-01-01T00:00:00+00:00')")
        db.execute("PRAGMA user_version = 1")
    db.close()
    cache = AnswerCache(path)
    assert cache.get("m", "p", "sha") == "kept"
    cache.close()
    assert _names(path) == ["0001_answers"]


def test_a_cache_made_by_a_newer_forsy_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "llm.sqlite3"
    AnswerCache(path).close()
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO schema_migrations VALUES ('0002_from_the_future', 'x')")
    db.close()
    before = path.read_bytes()
    with pytest.raises(LLMError, match=r"newer forsy \(migrations \['0002_from_the_future'\]\)"):
        AnswerCache(path)
    assert path.read_bytes() == before


def test_the_store_refuses_a_newer_forsy_s_database_the_same_way(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    open_store(url).close()
    with sqlite3.connect(tmp_path / "store.db") as db:
        db.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_from_the_future', 'x')")
    db.close()
    with pytest.raises(InputError, match=r"the store was made by a newer forsy \(migrations \['9999_"):
        open_store(url)


def test_missing_ones_are_applied_once_in_order_with_the_dialect(tmp_path: Path) -> None:
    steps = [("0001_a", "CREATE TABLE a (id {pk});"),
             ("0002_b", "CREATE TABLE b (x TEXT);\nINSERT INTO b VALUES ('{{');")]
    db = sqlite3.connect(tmp_path / "x.db")
    assert migrate_sqlite(db, steps[:1], what="x", dialect={"pk": "INTEGER PRIMARY KEY"}) == ["0001_a"]
    assert migrate_sqlite(db, steps, what="x", dialect={"pk": "INTEGER PRIMARY KEY"}) == ["0002_b"]
    assert migrate_sqlite(db, steps, what="x", dialect={"pk": "INTEGER PRIMARY KEY"}) == []
    assert db.execute("SELECT x FROM b").fetchall() == [("{",)]
    db.close()
    assert _names(tmp_path / "x.db") == ["0001_a", "0002_b"]


def test_a_failing_migration_applies_nothing(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "x.db")
    with pytest.raises(sqlite3.OperationalError):
        migrate_sqlite(db, [("0001_a", "CREATE TABLE a (x TEXT);"), ("0002_bad", "CREATE TABLE a (y TEXT);")], what="x")
    assert db.execute("SELECT name FROM sqlite_master WHERE name = 'a'").fetchall() == []
    assert db.execute("SELECT count(*) FROM schema_migrations").fetchone() == (0,)
    db.close()


def test_missing_names_what_it_refuses() -> None:
    assert missing({"0001_a"}, [("0001_a", ""), ("0002_b", "")], what="x") == ["0002_b"]
    with pytest.raises(InputError, match=r"the cache was made by a newer forsy"):
        missing({"0003_c"}, [("0001_a", "")], what="the cache")
