"""Under `--json`, a command line forsy cannot take (an unknown option, a value of the wrong
kind) still ends stdout with the JSON outcome a script reads, as any other error does; stderr
and the exit code are as without `--json`. Run as a user runs it: the installed entry point."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def _forsy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "forsy", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args,names", [
    (["sweep", "--json", "--bogus"], "--bogus"),
    (["ls", "--json", "--jobs", "x", "."], "--jobs"),
    (["review", "list", "--json", "--min-confidence", "many"], "--min-confidence"),
])
def test_a_usage_error_is_said_as_json_too(args: list[str], names: str) -> None:
    r = _forsy(*args)
    assert r.returncode == 2, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["ok"] is False and out["exit_code"] == 2 and names in out["error"]["message"]
    assert names in r.stderr and "Traceback" not in r.stderr


def test_without_json_stdout_stays_empty_and_help_is_unchanged() -> None:
    r = _forsy("sweep", "--bogus")
    assert r.returncode == 2 and r.stdout == "" and "--bogus" in r.stderr
    r = _forsy("sweep", "--help", "--json")  # help is asked for: no error to report
    assert r.returncode == 0 and "Usage" in r.stdout and '"ok"' not in r.stdout
    r = _forsy("review", "--", "--json")  # after `--` it is an argument, not the option
    assert '"ok"' not in r.stdout
