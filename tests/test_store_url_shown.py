"""A PostgreSQL store's password never reaches what forsy prints: the sweep's summary and its
`--json` line (kept by cron), `forsy sweep --status`, `forsy store migrate`, the banner of
`forsy review serve`, and errors. Run against the session's throwaway cluster, which trusts its
socket, so a URL carrying any password opens it; the password is planted in the user part and
as a query parameter."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _paths import SAMPLES
from forsy.cli import app

SECRET = "S3cret-Pw_9f2c"
runner = CliRunner()


@pytest.fixture(params=["user part", "query"])
def url(request: pytest.FixtureRequest, pg_url: str) -> str:
    return pg_url.replace("forsy@", f"forsy:{SECRET}@") if request.param == "user part" \
        else pg_url + f"&password={SECRET}"


def _run(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args))
    return r.exit_code, r.stdout + r.stderr


def test_the_sweep_status_and_migrate_never_print_the_password(url: str, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "s.jsonl").write_bytes((SAMPLES / "claude" / "demo-session.jsonl").read_bytes())
    printed = [_run("sweep", str(logs), "--store", url, "--now", "--json"),
               _run("sweep", str(logs), "--store", url, "--now"),
               _run("sweep", "--status", "--store", url),
               _run("sweep", "--status", "--store", url, "--json"),
               _run("store", "migrate", "--store", url)]
    assert [code for code, _ in printed] == [0] * 5, printed
    for _, out in printed:
        assert SECRET not in out
    assert '"store":"postgresql://forsy' in printed[0][1] and "***" in printed[0][1]
    assert "store: postgresql://forsy" in printed[2][1]


def test_a_store_that_cannot_be_reached_is_named_without_the_password(url: str) -> None:
    code, out = _run("sweep", "--status", "--store", url.replace("port=", "port=1"))
    assert code != 0 and "cannot connect to the PostgreSQL store" in out and SECRET not in out


def test_the_review_servers_banner_names_the_store_without_the_password(
        url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn

    from forsy.web.serve import serve

    ran = threading.Event()

    def run(self: Any, sockets: Any = None) -> None:  # the server is not started: its banner is the point
        ran.set()
        for s in sockets or []:
            s.close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    serve(url, "Ada <ada@example.org>", port=0)
    err = capsys.readouterr().err
    assert ran.is_set() and "store postgresql://forsy" in err and "***" in err and SECRET not in err
