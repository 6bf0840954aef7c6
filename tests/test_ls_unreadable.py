"""`forsy ls` over a folder where the user may not read everything (mode 000, as a user who is not
root meets it): the files that can be read are listed and each that cannot is named, exit 7 (it
listed nothing, exit 2, for one such file); a folder with nothing found says what was in the way.
The tests run as root in CI, where mode 000 stops nothing: the denial is made where forsy meets it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _denied import deny
from _paths import SAMPLES
from forsy.cli import app
from forsy.errors import ExitCode

runner = CliRunner()


def test_one_file_that_may_not_be_read_is_named_and_the_others_listed(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", tmp_path / "one.jsonl")
    shutil.copy(SAMPLES / "claude" / "print-mode-run.jsonl", tmp_path / "two.jsonl")
    deny(monkeypatch, "open", tmp_path / "two.jsonl")
    r = runner.invoke(app, ["ls", str(tmp_path)])
    assert r.exit_code == ExitCode.PARTIAL, r.output
    assert "one.jsonl" in r.stdout and "two.jsonl" not in r.stdout
    assert f"forsy: failed: {tmp_path / 'two.jsonl'}: permission denied" in r.stderr
    assert "1 session, " in r.stderr and "1 could not be read" in r.stderr
    r = runner.invoke(app, ["ls", str(tmp_path), "--json"])
    assert r.exit_code == ExitCode.PARTIAL
    assert [Path(json.loads(x)["path"]).name for x in r.stdout.splitlines()] == ["one.jsonl"]


def test_a_folder_not_searched_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", tmp_path / "a" / "one.jsonl")
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", tmp_path / "b" / "x.jsonl")
    deny(monkeypatch, "scandir", tmp_path / "b")
    deny(monkeypatch, "listdir", tmp_path / "b")
    r = runner.invoke(app, ["ls", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert f"forsy: not read: {tmp_path / 'b'}: not searched: Permission denied" in r.stderr
    assert "1 session, " in r.stderr and "1 not read (above)" in r.stderr


def test_nothing_found_says_what_was_in_the_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "inner").mkdir()
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", tmp_path / "inner" / "x.jsonl")
    deny(monkeypatch, "scandir", tmp_path / "inner")
    deny(monkeypatch, "listdir", tmp_path / "inner")
    r = runner.invoke(app, ["ls", str(tmp_path)])
    assert r.exit_code == ExitCode.INPUT
    assert "no session logs forsy reads were found in this directory (1 folder(s) or file(s) not searched: " \
           "Permission denied)" in r.stderr
