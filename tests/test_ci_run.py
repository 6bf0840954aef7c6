"""`.ci/run` runs exactly README's test command, and fails when any part of it fails.

The command is one && list, and `set -e` ignores a failure inside an && list (only its last
command counts): a failing pytest in its middle let the run go on to ruff and mypy and end 0.
Here every program the script calls is a stand-in that records its call, in a copy of the
script's folder, and one of them fails.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from _paths import ROOT

README_COMMAND = re.search(r"## Run the tests\n\n```sh\n(.+?)\n```", (ROOT / "README.md").read_text("utf-8"),
                           re.S)


def test_ci_runs_the_readme_test_command() -> None:
    assert README_COMMAND is not None
    assert README_COMMAND.group(1) in (ROOT / ".ci" / "run").read_text("utf-8")


def _stand_ins(tmp: Path, failing: str) -> dict[str, str]:
    """A copy of .ci/run in `tmp`, with stand-ins for python3 (its venvs), pip, pytest, ruff and
    mypy that log their calls; the one whose call matches `failing` (a regex) exits 1."""
    (tmp / ".ci").mkdir()
    (tmp / ".ci" / "run").write_text((ROOT / ".ci" / "run").read_text("utf-8"), "utf-8")
    log = tmp / "calls.log"
    stub = f"""#!/usr/bin/env bash
echo "$0 $*" >> {log}
if printf '%s' "$0 $*" | grep -Eq -e '{failing}'; then exit 1; fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then mkdir -p "$3/bin"; for t in python pip ruff mypy; do
  cp "$0" "$3/bin/$t"; done; fi
exit 0
"""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for name in ("python3", "chromium", "capsh"):
        path = bin_dir / name
        path.write_text(stub, "utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def _run(tmp: Path, failing: str) -> tuple[int, str]:
    env = _stand_ins(tmp, failing)
    r = subprocess.run(["bash", str(tmp / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=60)
    log = tmp / "calls.log"
    return r.returncode, log.read_text("utf-8") if log.exists() else ""


@pytest.mark.parametrize("failing", [r"\.venv/bin/python -m pytest$", "-k invariant", "bin/ruff check", "bin/mypy",
                                     "pip install"])
def test_a_failing_step_fails_the_run(tmp_path: Path, failing: str) -> None:
    code, calls = _run(tmp_path, failing)
    assert code != 0, calls
    assert re.search(failing, calls, re.M), calls  # the step was reached, and failed


def test_a_failing_first_pytest_stops_the_run_before_lint(tmp_path: Path) -> None:
    code, calls = _run(tmp_path, r"\.venv/bin/python -m pytest$")  # the first venv's (not .venv-invariant's)
    assert code != 0
    assert "ruff" not in calls and "mypy" not in calls, calls


def test_the_run_passes_when_every_step_passes(tmp_path: Path) -> None:
    code, calls = _run(tmp_path, "no step has this in its call")
    assert calls.count("-m venv") == 2
    assert code == 0, calls
    assert [c for c in ("-m pytest", "-k invariant", "ruff check", "mypy") if c not in calls] == []
