"""Several paths named on one command line: each is an item. One that gives nothing (missing, of
no format forsy reads, a folder without sessions) fails alone, named, and the others are done
(exit 7); it stopped the whole run with nothing done. Named alone, it is the run's error, as
before."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from _paths import SAMPLES
from forsy.cli import app
from forsy.errors import ExitCode

runner = CliRunner()


def tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    good = tmp_path / "a"
    good.mkdir()
    shutil.copy(SAMPLES / "claude" / "demo-session.jsonl", good / "s.jsonl")
    empty = tmp_path / "b"
    empty.mkdir()
    (empty / "notes.txt").write_text("no session here\n")
    return good, empty, tmp_path / "typo"


def test_retrace_does_the_paths_that_give_sessions_and_names_the_others(tmp_path: Path) -> None:
    good, empty, missing = tree(tmp_path)
    out = tmp_path / "out"
    r = runner.invoke(app, ["retrace", str(good), str(empty), str(missing), "-o", str(out), "--no-redact"])
    assert r.exit_code == ExitCode.PARTIAL, r.output
    assert f"forsy: failed: {empty}: no session logs forsy reads were found in this directory" in r.stderr
    assert f"forsy: failed: {missing}: no such file or directory" in r.stderr
    assert "1 written" in r.stderr and "2 failed" in r.stderr
    assert [p.name for p in out.iterdir() if p.is_dir()] != []


def test_ls_lists_the_paths_that_give_sessions_and_names_the_others(tmp_path: Path) -> None:
    good, empty, missing = tree(tmp_path)
    r = runner.invoke(app, ["ls", str(good), str(missing)])
    assert r.exit_code == ExitCode.PARTIAL, r.output
    assert "s.jsonl" in r.stdout and f"forsy: failed: {missing}: no such file or directory" in r.stderr


def test_one_path_that_gives_nothing_is_the_runs_error(tmp_path: Path) -> None:
    _, empty, missing = tree(tmp_path)
    for args in ([str(missing)], [str(empty)], [str(empty), str(missing)]):
        r = runner.invoke(app, ["retrace", *args, "-o", str(tmp_path / "o"), "--no-redact"])
        assert r.exit_code == ExitCode.INPUT, (args, r.output)
        assert not (tmp_path / "o").exists()
