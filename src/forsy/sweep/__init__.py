"""`forsy sweep`: keep a store of draft traces up to date with the agents' log folders, from cron.

    report = sweep(store, SweepOptions(roots=[Path("~/.claude/projects").expanduser()]))
    report.counts, report.failures, report.faults, report.exit_code

What a run does, in order, is said in `run` (the sweep itself); `_files` (what a file is and
how it changed), `_units` (which sessions to trace), `_cleanup` (sessions about to be deleted),
`lock` (one sweep at a time, and a lock left by a dead sweep taken over) and `schedule` (the
cron line, systemd units) are its parts.
"""

from __future__ import annotations

from .run import SweepOptions, SweepProgress, SweepReport, sweep

__all__ = ["SweepOptions", "SweepProgress", "SweepReport", "sweep"]
