"""Forks, tested in a fresh interpreter: a test process may hold a thread another test left
running, and then `forsy._aside` (rightly) forks no child. A script given to `run_fresh` may
start with COUNT_FORKS, which counts the children forked (`forks`, their pids)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from forsy import _aside

NEEDS_FORK = pytest.mark.skipif(sys.platform != "linux" or len(os.sched_getaffinity(0)) < 2,
                                reason="forks only on Linux with two CPUs")

COUNT_FORKS = """
import os
forks = []
_fork = os.fork
def _counted():
    pid = _fork()
    if pid:
        forks.append(pid)
    return pid
os.fork = _counted
"""


def src_first() -> str:
    """PYTHONPATH for a child interpreter: this forsy first, then what the caller had."""
    return os.pathsep.join(p for p in (str(Path(_aside.__file__).parents[1]), os.environ.get("PYTHONPATH")) if p)


def run_fresh(script: str, *args: str, timeout: float = 300) -> Any:
    """Run `script` in a fresh interpreter (this forsy first on its path) and return the JSON
    value its last line of output prints."""
    r = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONPATH": src_first()}, timeout=timeout)
    return json.loads(r.stdout.strip().splitlines()[-1])
