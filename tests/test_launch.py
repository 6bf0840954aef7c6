"""The `forsy` command's first moments: a command that will redact starts loading the secret
engine before the command line's modules are imported; any other starts nothing."""

from __future__ import annotations

import sys
import threading

import pytest

import forsy.cli
import forsy.redact
from forsy import _launch


@pytest.mark.parametrize(("argv", "expected"), [
    (["retrace", "s.jsonl"], True),
    (["retrace", "s.jsonl", "-o", "out", "--json"], True),
    (["sweep", "--now"], False),  # a cron job's run that finds nothing new does not build it
    (["retrace", "--no-redact", "s.jsonl"], False),
    (["sweep", "--help"], False),
    (["retrace", "-h"], False),
    (["review", "serve"], False),
    (["ls"], False),
    (["--version"], False),
    ([], False),
])
def test_which_words_start_the_engine(argv: list[str], expected: bool) -> None:
    assert _launch.will_redact(argv) is expected


def _run(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> list[str]:
    """main() with these words: what ran (the warm-up runs in its own thread, so in any order)."""
    happened: list[str] = []

    def warm() -> None:
        happened.append("warm")

    def cli() -> None:
        happened.append("cli")

    monkeypatch.setattr(forsy.redact, "warm_engine", warm)
    monkeypatch.setattr(forsy.cli, "main", cli)
    monkeypatch.setattr(sys, "argv", ["forsy", *argv])
    _launch.main()
    for t in threading.enumerate():
        if t.name == "forsy-engine-start":
            t.join(timeout=10)
    return happened


def test_a_redacting_command_starts_the_engine_and_then_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    assert sorted(_run(monkeypatch, ["retrace", "s.jsonl"])) == ["cli", "warm"]


@pytest.mark.parametrize("argv", [["retrace", "--no-redact", "s.jsonl"], ["ls"]])
def test_other_commands_only_run(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    assert _run(monkeypatch, argv) == ["cli"]
