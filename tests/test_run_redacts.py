"""Redaction is on unless switched off, through every entry point (with the
pipeline's redactor never created, only the ../shared leak test noticed). A small log with
fresh fake secrets (tests/secretgen.py, fixed seed) and a home folder name in a path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _small_logs import answer, call, result, user, write
from forsy.cli import app
from forsy.run import RetraceOptions, retrace, retrace_one
from forsy.sinks.folder import render
from secretgen import SecretGen

SEED = 2111  # fixed: the same secrets every run
GEN = SecretGen(seed=SEED)
TOKEN, AWS = GEN.github(), GEN.aws_secret()
HOME_NAME = "margaretsmith"


@pytest.fixture
def log(tmp_path: Path) -> Path:
    recs = [user(0, "u1", None, f"Push with token {TOKEN} please."),
            call(1, "a1", "u1", "t1", "Bash", {"command": f"cat /home/{HOME_NAME}/proj/.env"}),
            result(2, "r1", "a1", "t1", f"AWS_SECRET_ACCESS_KEY={AWS}\n"),
            answer(3, "a2", "r1", "Pushed.")]
    logs = tmp_path / "logs"
    logs.mkdir()
    return write(logs / "s.jsonl", recs)


def _assert_masked(files: dict[str, bytes]) -> None:
    blob = b"\n".join(files.values()).decode("utf-8")
    for secret in (TOKEN, AWS, HOME_NAME):
        assert secret not in blob, (SEED, secret[:8])
    manifest = json.loads(files["manifest.json"])
    assert manifest["redaction"]["enabled"] is True and manifest["release_tier"] == "research_preview"
    assert sum(manifest["redaction"]["by_kind"].values()) >= 3, manifest["redaction"]


def test_retrace_redacts_by_default(log: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    retrace([log], RetraceOptions(out=out))
    _assert_masked({p.name: p.read_bytes() for p in out.iterdir() if p.is_file()})


def test_retrace_one_redacts_by_default(log: Path) -> None:
    [outcome] = retrace_one(log)
    assert outcome.assembled is not None
    _assert_masked(render(outcome.assembled))


def test_the_retrace_command_redacts_by_default(log: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli"
    r = CliRunner().invoke(app, ["retrace", str(log), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert TOKEN not in r.output
    _assert_masked({p.name: p.read_bytes() for p in out.iterdir() if p.is_file()})


def test_no_redact_is_the_only_way_to_keep_them(log: Path) -> None:
    # the control: the secrets are in the log, so the tests above can fail
    [outcome] = retrace_one(log, RetraceOptions(redact=False))
    assert outcome.assembled is not None
    blob = b"".join(render(outcome.assembled).values()).decode("utf-8")
    assert TOKEN in blob and AWS in blob and HOME_NAME in blob
