"""Shared test setup: the `--update-golden` switch and fixtures every test module may use."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from _paths import system_tool
from _seed import TEST_SEED

if TYPE_CHECKING:
    from forsy.redact import KingfisherEngine
    from forsy.store import Store

# Hypothesis draws the same examples every run (derandomize: its seed comes from each test's
# source); a run never depends on the clock or on an earlier run's example database.
settings.register_profile("forsy", derandomize=True, database=None)
settings.load_profile("forsy")


def pytest_report_header(config: pytest.Config) -> str:
    return f"forsy: random seed {TEST_SEED} (FORSY_TEST_SEED), hypothesis derandomized"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/ from what forsy produces now (review the diff before committing)")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


# --------------------------------------------------------------------------- data folder
# forsy's data folder (the default store, the review fingerprints' key) in a folder of the test
# session's own: no test writes into the data folder of the person running them. A test that
# sets HOME or XDG_DATA_HOME itself (monkeypatch) still decides for itself.
@pytest.fixture(scope="session", autouse=True)
def _own_data_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    before = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("xdg-data"))
    yield
    if before is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = before


# --------------------------------------------------------------------------- PostgreSQL
# A throwaway PostgreSQL cluster for the session: `initdb` in a temp folder, listening only on
# a Unix socket in that folder (no TCP port), fsync off. As root it runs as the `postgres`
# user (the server refuses to run as root). Tests get a fresh database each from
# `pg_database`; without the server binaries or psycopg, those tests are skipped.

def _pg_bin() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return versions[-1].parent if versions else None


@dataclass
class PgServer:
    socket_dir: Path
    port: int
    user: str
    _n: int = 0

    def url(self, db: str) -> str:
        return f"postgresql://{self.user}@/{db}?host={self.socket_dir}&port={self.port}"

    def new_database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        self._n += 1
        name = f"t{os.getpid()}_{self._n}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as c:
            c.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        return self.url(name)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed (pip install -e '.[postgres]')")
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found; apt-get install postgresql")
    root = Path(tempfile.mkdtemp(prefix="forsy-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        import pwd

        pw = pwd.getpwnam("postgres")
        os.chown(root, pw.pw_uid, pw.pw_gid)
        runuser = system_tool("runuser")
        if runuser is None:
            raise RuntimeError("runuser (util-linux) is not found: as root, PostgreSQL is started as the postgres user")
        as_user = [runuser, "-u", "postgres", "--"]
    data, port = root / "data", 5432 + os.getpid() % 1000
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}

    def run(*args: str) -> None:
        subprocess.run([*as_user, *args], check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       timeout=120)

    try:
        run(str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "forsy", "-E", "UTF8", "--no-sync")
        opts = f"-k {root} -p {port} -c listen_addresses='' -c fsync=off -c full_page_writes=off " \
               "-c synchronous_commit=off -c max_connections=60"
        run(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-o", opts, "-w", "start")
    except subprocess.CalledProcessError as e:
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"could not start PostgreSQL: {e.stderr.decode(errors='replace')}") from None
    try:
        yield PgServer(root, port, "forsy")
    finally:
        subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """The URL of a fresh, empty PostgreSQL database."""
    return pg_server.new_database()


# --------------------------------------------------------------------------- secret engine
@pytest.fixture(scope="session")
def kingfisher_engine(tmp_path_factory: pytest.TempPathFactory) -> KingfisherEngine:
    """The real secret engine, built once per session (its rules take seconds to compile, and a
    shuffled run would rebuild a module-scoped one each time a module comes back), in a fresh
    cache folder, with Python sockets blocked: building and scanning work offline."""
    import socket

    from forsy.redact import KingfisherEngine

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access attempted")

    with pytest.MonkeyPatch.context() as mp:
        for name in ("connect", "connect_ex", "sendto"):
            mp.setattr(socket.socket, name, refuse)
        mp.setattr(socket, "getaddrinfo", refuse)
        mp.setattr(socket, "create_connection", refuse)
        eng = KingfisherEngine(tmp_path_factory.mktemp("kingfisher-cache"))
        assert eng.scan(b"token ghp_" + b"a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")  # scanning works offline
    return eng


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A new SQLite store in the test's folder (`s.db`); a module that wants another (both
    backends, another name) defines its own `store`, which takes precedence."""
    from forsy.store import open_store

    s = open_store(f"sqlite:///{tmp_path / 's.db'}")
    yield s
    s.close()
