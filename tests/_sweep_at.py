"""A sweep run in process at a fixed clock over one root, and files aged on that clock: for the
readers' tests of what a sweep takes for a part of a session."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from forsy.store import Store
from forsy.sweep import SweepOptions, SweepReport, sweep

NOW = 2_000_000_000.0  # the clock of these runs (2033-05-18T03:33:20+00:00)


def sweep_at(store: Store, root: Path) -> SweepReport:
    """One sweep of `root` at `NOW`, not waiting for recent files to settle."""
    return sweep(store, SweepOptions(roots=[root], now=lambda: NOW, ignore_settle=True,
                                     claude_home=root / "no-claude"))


def age(paths: Iterable[Path], seconds: float) -> None:
    """Set the files' times to `seconds` before `NOW`."""
    for p in paths:
        os.utime(p, (NOW - seconds, NOW - seconds))
