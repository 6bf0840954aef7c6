"""`store.open_store`: each way of naming a store (`sqlite:///abs`, `sqlite:rel`, a plain path, a
`postgres:`/`postgresql:` URL) opens the file it names and keeps the URL it was given; what names
no database file is refused in its own words; `readonly` opens a store read-only (a write is a
StoreError) and an older store is brought up to date once; with `create=False`, a store this user
cannot write is opened read-only, and when even that fails, the first failure is the one reported."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from forsy.errors import InputError, StoreError, StoreUnreachable
from forsy.store import _sqlite, open_store
from forsy.store.models import RunCounts

NOW = "2026-03-01T12:00:00+00:00"


def made(db: Path) -> None:
    open_store(str(db)).close()


def writes(st: Any) -> None:
    """One write: a sweep run started and finished."""
    run = st.start_run(NOW, 1, [])
    st.finish_run(run, NOW, RunCounts(), 0.0)


def test_each_way_of_naming_a_sqlite_store_opens_that_file_and_keeps_the_url(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for url, file in ((f"sqlite://{tmp_path}/abs.db", tmp_path / "abs.db"),  # sqlite:///tmp/…/abs.db
                      ("sqlite:rel.db", Path("rel.db")), (str(tmp_path / "plain.db"), tmp_path / "plain.db"),
                      ("plain-rel.db", Path("plain-rel.db"))):
        st = open_store(url)
        try:
            assert (st.url, st.path, st.readonly) == (url, file, False), url  # type: ignore[attr-defined]
        finally:
            st.close()
        assert (tmp_path / file).is_file(), url
    assert sorted(p.name for p in tmp_path.glob("*.db")) == ["abs.db", "plain-rel.db", "plain.db", "rel.db"]


def test_four_slashes_name_the_same_absolute_file_as_three(tmp_path: Path) -> None:
    """`sqlite:////abs` (SQLAlchemy's spelling, and the default store's URL, made from an absolute
    folder) is /abs, named with one leading slash, never `//abs`."""
    url = f"sqlite:///{tmp_path}/four.db"  # tmp_path is absolute: four slashes
    assert url.startswith("sqlite:////")
    with pytest.raises(InputError) as e:
        open_store(url, create=False)
    assert e.value.message == f"no store at {tmp_path}/four.db: `forsy sweep` (or `forsy store migrate`) makes one"
    st = open_store(url)
    try:
        assert (st.url, str(st.path)) == (url, f"{tmp_path}/four.db")  # type: ignore[attr-defined]
    finally:
        st.close()


def test_a_store_that_is_not_there_is_named_as_given_when_not_made(tmp_path: Path) -> None:
    for url, shown in ((f"sqlite://{tmp_path}/typo.db", f"{tmp_path}/typo.db"), ("sqlite:typo.db", "typo.db")):
        for how in ({"create": False}, {"readonly": True}):
            with pytest.raises(InputError) as e:
                open_store(url, **how)
            assert e.value.message == f"no store at {shown}: `forsy sweep` (or `forsy store migrate`) makes one"
    assert list(tmp_path.iterdir()) == []


def test_what_names_no_database_file_is_refused_in_its_words(tmp_path: Path) -> None:
    with pytest.raises(InputError) as e:
        open_store("sqlite:")
    assert e.value.message == "no database path in the store URL 'sqlite:'"
    for given, shown in ((f"{tmp_path}/data/", f"{tmp_path}/data"), (f"{tmp_path}/DX/", f"{tmp_path}/DX"),
                         (f"{tmp_path}/data\\", f"{tmp_path}/data\\"),
                         (str(tmp_path), str(tmp_path))):
        with pytest.raises(InputError) as e:
            open_store(given)
        assert e.value.message == f"{given!r} names a folder; give the database file (e.g. {shown}/forsy.db)"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("scheme", ["postgres", "postgresql"], ids=["short", "long"])  # kept by -k "not postgresql"
def test_both_server_schemes_are_libpq_urls(scheme: str) -> None:
    url = f"{scheme}://nobody@/nodb?host=/nonexistent-forsy-socket-dir&port=1"
    with pytest.raises(StoreUnreachable) as e:
        open_store(url)
    assert e.value.message.startswith(f"cannot connect to the PostgreSQL store {url}: ")
    assert "\n" not in e.value.message  # libpq's hint on its own line: one line for a terminal and a cron log


def test_a_store_opened_read_only_refuses_writes_and_keeps_its_url(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    made(db)
    url = f"sqlite://{db}"
    st = open_store(url, readonly=True)
    try:
        assert (st.url, st.readonly) == (url, True)  # type: ignore[attr-defined]
        with pytest.raises(StoreError):
            writes(st)
        assert st.runs() == []
    finally:
        st.close()


def test_an_older_store_opened_to_read_is_brought_up_to_date_with_its_url(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    made(db)
    conn = sqlite3.connect(db)  # as a forsy from before the sweep faults table left it
    conn.executescript("DELETE FROM schema_migrations WHERE name = '0006_sweep_faults'; DROP TABLE sweep_faults; "
                       "ALTER TABLE runs DROP COLUMN failure;")
    conn.close()
    st = open_store(str(db), readonly=True)
    try:
        assert (st.url, st.readonly) == (str(db), False)  # type: ignore[attr-defined]
        assert st.faults() == []
    finally:
        st.close()


class Unwritable:
    """SqliteStore for a file this user may read but not write (root may write any file, so the
    refusal is the stand-in's): a writable open is a StoreError; `unreadable` refuses both."""

    def __init__(self, unreadable: bool = False) -> None:
        self.real, self.unreadable = _sqlite.SqliteStore, unreadable

    def __call__(self, path: Path, *, url: str | None = None, readonly: bool = False) -> Any:
        if not readonly:
            raise StoreError("cannot open the store: attempt to write a readonly database", path=path)
        if self.unreadable:
            raise StoreError("cannot open the store: unable to open database file", path=path)
        return self.real(path, url=url, readonly=True)


def test_a_store_this_user_cannot_write_is_opened_read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "s.db"
    made(db)
    monkeypatch.setattr(_sqlite, "SqliteStore", Unwritable())
    url = f"sqlite://{db}"
    st = open_store(url, create=False)
    try:
        assert (st.url, st.readonly, st.path) == (url, True, db)  # type: ignore[attr-defined]
        with pytest.raises(StoreError):
            writes(st)
    finally:
        st.close()
    with pytest.raises(StoreError) as e:  # a command that makes a store: the failure itself
        open_store(url)
    assert e.value.message == "cannot open the store: attempt to write a readonly database"
    monkeypatch.setattr(_sqlite, "SqliteStore", Unwritable(unreadable=True))
    with pytest.raises(StoreError) as e:  # neither way: the first failure, the one about writing
        open_store(url, create=False)
    assert e.value.message == "cannot open the store: attempt to write a readonly database"
