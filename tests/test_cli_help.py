"""The command line as a whole: every command takes --debug and --quiet wherever they are put,
help speaks of values in words (TEXT, PATH, N), never Python types, and `python -m forsy` runs."""

from __future__ import annotations

import re
import subprocess
import sys

import click
import pytest
import typer.main
import typer.testing

from forsy.cli import app
from forsy.cli._output import plain_metavars


def commands() -> list[list[str]]:
    """Every leaf command, as the words that name it (`["review", "token", "add"]`)."""
    out: list[list[str]] = []

    def walk(c: click.Command, path: list[str]) -> None:
        subs = getattr(c, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
        else:
            out.append(path)

    walk(typer.main.get_command(app), [])
    return out


ALL = commands()
PYTHON_TYPE = re.compile(r"<(?:str|int|float|bool|path|Path|list\[[^\]]*\]|datetime)>")


def test_there_are_commands_to_check() -> None:
    assert len(ALL) >= 25 and ["review", "list"] in ALL and ["retrace"] in ALL


@pytest.mark.parametrize("words", ALL, ids=lambda w: " ".join(w))
def test_help_names_no_python_type(words: list[str], capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    command = typer.main.get_command(app)
    plain_metavars(command)  # as `forsy` runs it (cli.main)
    with pytest.raises(SystemExit) as done:
        command([*words, "--help"], prog_name="forsy", standalone_mode=True)
    assert done.value.code == 0
    shown = capsys.readouterr().out
    assert "Usage: forsy " + " ".join(words) in shown
    assert not PYTHON_TYPE.search(shown), PYTHON_TYPE.findall(shown)


def test_help_as_printed_by_the_forsy_command_names_no_python_type() -> None:
    for words in (["retrace"], ["sweep"], ["review", "list"], ["export"], ["show"], ["jobs", "add"]):
        r = subprocess.run([sys.executable, "-m", "forsy", *words, "--help"], capture_output=True, text=True,
                           env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"}, timeout=60)
        assert r.returncode == 0, r.stderr
        assert not PYTHON_TYPE.search(r.stdout), (words, PYTHON_TYPE.findall(r.stdout))


@pytest.mark.parametrize("words", ALL, ids=lambda w: " ".join(w))
@pytest.mark.parametrize("flag", ["--debug", "--quiet"])
def test_every_command_takes_debug_and_quiet(words: list[str], flag: str) -> None:
    r = typer.testing.CliRunner().invoke(app, [*words, flag, "--help"])
    assert "No such option" not in r.output, r.output
    assert r.exit_code == 0, r.output


def test_python_dash_m_forsy_runs() -> None:
    r = subprocess.run([sys.executable, "-m", "forsy", "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("forsy ")
