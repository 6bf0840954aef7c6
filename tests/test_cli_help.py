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
from forsy.cli._output import flowing_help, plain_metavars


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


def _help(words: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    command = typer.main.get_command(app)
    plain_metavars(command)  # as `forsy` runs it (cli.main)
    flowing_help(command)
    with pytest.raises(SystemExit) as done:
        command([*words, "--help"], prog_name="forsy", standalone_mode=True)
    assert done.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("words", ALL, ids=lambda w: " ".join(w))
def test_the_usage_line_writes_arguments_as_click_does(words: list[str], capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`SOURCES...` for a required argument, `[PATHS...]` for an optional one: never typer's
    `{SOURCES...}...` (braces, and a second ellipsis after the metavar's own)."""
    monkeypatch.setenv("COLUMNS", "200")
    [usage] = [line for line in _help(words, capsys).splitlines() if "Usage: forsy" in line]
    assert "{" not in usage and "...." not in usage and "...]..." not in usage, usage


def test_a_paragraph_of_help_is_wrapped_by_the_terminal_not_where_the_source_was(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A docstring paragraph wrapped at the source's width came out with its line breaks kept:
    ragged at 80 columns, cut mid-sentence at 200."""
    monkeypatch.setenv("COLUMNS", "200")
    wide = _help(["dataset", "build"], capsys)
    assert "is retraced, and its rows (partitioned by agent and month) and the dataset card are written" in wide
    monkeypatch.setenv("COLUMNS", "80")
    for line in _help(["validate"], capsys).splitlines():
        if line.strip().startswith("Counts use the words"):
            assert len(line.rstrip()) > 70, line  # filled to the width, not cut where the source was


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


def _path_parameters() -> list[tuple[str, int, bool]]:
    """Every `Annotated[Path ..., typer.Argument/Option(...)]` of the CLI: (file, line, whether
    it goes through path_arg)."""
    import ast
    from pathlib import Path

    import forsy.cli

    out = []
    for f in sorted(Path(forsy.cli.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(f.read_text("utf-8"))):
            if not (isinstance(node, ast.Subscript) and ast.unparse(node.value) == "Annotated"):
                continue
            kind, *extra = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if "Path" not in ast.unparse(kind):
                continue
            for call in (e for e in extra if isinstance(e, ast.Call)):
                if ast.unparse(call.func) in ("typer.Argument", "typer.Option"):
                    uses = any(k.arg == "parser" and ast.unparse(k.value) == "path_arg" for k in call.keywords)
                    out.append((f.name, node.lineno, uses))
    return out


def test_every_path_a_command_takes_goes_through_path_arg() -> None:
    """`forsy retrace "$LOG"` with LOG unset must not read the folder it runs in: no path
    parameter is left to click, which turns "" into the current folder."""
    found = _path_parameters()
    assert len(found) >= 24
    assert [(f, line) for f, line, uses in found if not uses] == []


@pytest.mark.parametrize("args", [["retrace", ""], ["retrace", "x.jsonl", "-o", ""], ["sweep", "", "--now"],
                                  ["validate", ""], ["ls", ""]])
def test_an_empty_path_is_a_usage_error_naming_it(args: list[str]) -> None:
    r = typer.testing.CliRunner().invoke(app, args)
    said = " ".join(re.sub(r"[│╭╮╰╯─]", " ", r.output).split())  # the error box, its lines joined
    assert r.exit_code == 2 and "an empty path (an unset shell variable?)" in said, r.output


def test_help_and_readme_name_every_registered_source(capsys: pytest.CaptureFixture[str]) -> None:
    from _paths import ROOT
    from forsy.sources import BUILTIN
    from forsy.sources.titles import TITLES, names

    missing = sorted(set(BUILTIN) - set(TITLES))
    assert not missing, f"sources with no title in forsy.sources.titles: {missing}"
    assert not set(TITLES) - set(BUILTIN), "titles of sources that are not registered"
    command = typer.main.get_command(app)
    with pytest.raises(SystemExit):
        command(["--help"], prog_name="forsy", standalone_mode=True)
    shown = " ".join(capsys.readouterr().out.replace("│", " ").split())  # as wrapped on any width
    readme = " ".join((ROOT / "README.md").read_text("utf-8").split("\n\n")[1].split())  # its first paragraph
    for key, (titles, _kind) in TITLES.items():
        for title in titles:
            assert title in shown, (key, title)
            assert title in readme, (key, title)
    assert names("agent")[:3] == ["Claude Code", "Codex CLI", "Gemini CLI"]
    assert {"Qwen Code", "OpenCode", "Roo Code", "Kilo Code", "GitHub Copilot CLI"} <= set(names("agent"))


def test_a_registered_source_with_no_title_is_still_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    from forsy.sources import titles

    monkeypatch.setitem(titles.BUILTIN, "new_agent", "somewhere:NewAgentSource")
    assert titles.names("agent")[-1] == "new_agent" and "new_agent" in titles.supported()
    monkeypatch.delitem(titles.BUILTIN, "goose")
    assert "Goose" not in titles.supported()  # only what is registered
