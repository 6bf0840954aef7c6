"""Shared test setup: the `--update-golden` switch and fixtures every test module may use."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/ from what forsy produces now (review the diff before committing)")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


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
        as_user = ["runuser", "-u", "postgres", "--"]
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
