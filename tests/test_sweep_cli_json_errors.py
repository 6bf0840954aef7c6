"""`forsy sweep --json` and `--status --json` end stdout with one JSON object saying the outcome
whatever stops them: a store that cannot be opened (8), an input error (2), SIGTERM (130), a
bug (70). The error is still said on stderr, and the exit code is the one without `--json`."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import forsy.config
import forsy.sweep
from _paths import SAMPLES
from forsy.cli import app
from forsy.errors import ExitCode

runner = CliRunner()
DAMAGED = "cannot open the store: file is not a database (this file is not a forsy store)"


def last_json(stdout: str) -> dict[str, Any]:
    lines = [x for x in stdout.splitlines() if x.strip()]
    assert len(lines) == 1, stdout
    out: dict[str, Any] = json.loads(lines[0])
    return out


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "logs" / "-p").mkdir(parents=True)
    for name in ("demo-session.jsonl", "compaction-and-branches.jsonl"):
        shutil.copy(SAMPLES / "claude" / name, tmp_path / "logs" / "-p" / name)
    return tmp_path / "logs"


@pytest.fixture
def junk(tmp_path: Path) -> Path:
    db = tmp_path / "junk.db"
    db.write_text("my precious notes, not a database\n" * 200)
    return db


@pytest.mark.parametrize("extra", [[], ["--status"]], ids=["sweep", "status"])
def test_a_store_that_cannot_be_opened(root: Path, junk: Path, extra: list[str]) -> None:
    res = runner.invoke(app, ["sweep", "--json", "--now", "--store", f"sqlite:///{junk}", *extra, str(root)])
    assert res.exit_code == ExitCode.STORE
    assert last_json(res.stdout) == {"ok": False, "exit_code": 8,
                                     "error": {"code": 8, "message": DAMAGED, "path": str(junk)}}
    assert res.stderr == f"forsy: error: {junk}: {DAMAGED}\n"


def test_without_json_stdout_stays_empty(root: Path, junk: Path) -> None:
    res = runner.invoke(app, ["sweep", "--now", "--store", f"sqlite:///{junk}", str(root)])
    assert (res.exit_code, res.stdout) == (ExitCode.STORE, "")
    assert res.stderr == f"forsy: error: {junk}: {DAMAGED}\n"


def test_no_folder_to_sweep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forsy.config, "default_log_roots", lambda *a, **k: [tmp_path / "none"])
    monkeypatch.setenv("FORSY_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.delenv("FORSY_ROOTS", raising=False)
    res = runner.invoke(app, ["sweep", "--json", "--store", f"sqlite:///{tmp_path / 's.db'}"])
    assert res.exit_code == ExitCode.INPUT
    out = last_json(res.stdout)
    assert (out["ok"], out["exit_code"], out["error"]["code"], out["error"]["path"]) == (False, 2, 2, None)
    assert out["error"]["message"].startswith("no agent log folder found")


def test_a_bad_option_value(root: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["sweep", "--json", "--settle", "nan", "--store", f"sqlite:///{tmp_path / 's.db'}",
                              str(root)])
    assert res.exit_code == ExitCode.INPUT
    assert last_json(res.stdout)["error"]["message"] == "--settle must be a number of seconds >= 0, not nan"


def test_a_bug_is_an_internal_error_in_json_too(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*a: object, **k: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(forsy.sweep, "sweep", broken)
    res = runner.invoke(app, ["sweep", "--json", "--now", "--store", f"sqlite:///{tmp_path / 's.db'}", str(root)])
    assert res.exit_code == ExitCode.INTERNAL
    text = "internal error: RuntimeError: boom (run with --debug for the traceback)"
    assert last_json(res.stdout)["error"] == {"code": 70, "message": text, "path": None}
    assert res.stderr == f"forsy: {text}\n"


def test_sigterm_mid_sweep(root: Path, tmp_path: Path) -> None:
    """systemd stopping the service: the run is marked interrupted, and the cron log's last
    line says so."""
    mark = tmp_path / "held"
    env = {**os.environ, "FORSY_SWEEP_TEST_HOLD": "1:traced", "FORSY_SWEEP_TEST_MARK": str(mark),
           "FORSY_CONFIG": str(tmp_path / "none.toml")}
    child = subprocess.Popen([sys.executable, "-m", "forsy.cli", "sweep", "--json", "--now", "--store",
                              f"sqlite:///{tmp_path / 's.db'}", str(root)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not mark.exists():
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the sweep never reached its hold point"
        time.sleep(0.05)
    child.send_signal(signal.SIGTERM)
    stdout, stderr = child.communicate(timeout=60)
    assert child.returncode == ExitCode.INTERRUPTED, stderr
    assert last_json(stdout) == {"ok": False, "exit_code": 130,
                                 "error": {"code": 130, "message": "interrupted (Ctrl-C or SIGTERM)", "path": None}}
    assert stderr.endswith("forsy: interrupted\n")
    status = runner.invoke(app, ["sweep", "--status", "--json", "--store", f"sqlite:///{tmp_path / 's.db'}"])
    assert [(r["status"], r["failure"]) for r in json.loads(status.stdout)["runs"]] == [
        ("failed", "interrupted (Ctrl-C or SIGTERM); the next run goes on")]
