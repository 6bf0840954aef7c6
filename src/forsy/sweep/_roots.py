"""The roots of a sweep that are not there at all (a disk not mounted, a folder moved or
deleted, a link to nothing)."""

from __future__ import annotations

import os

from ._files import session_like

MISSING = "no such file or directory: a root of this sweep (a disk not mounted, a folder moved or deleted?)"


def missing_roots(roots: list[str]) -> dict[str, tuple[str, str]]:
    """Each root that does not exist: (what it was, as its name says: "file" or "folder"; why).

    Such a root is a fault of the run, as a folder that cannot be listed is: named, the other
    roots swept, the run recorded with it (exit 7, `--status` names it until it is back), and
    the files the store remembers under it are out of sight, not gone — a disk mounted again
    brings them back unchanged, not re-traced. A run whose every root is missing is no
    different (exit 7, not 2): it is recorded with its faults, as a run whose only root cannot
    be listed is, and the cron log's exit code then says what `--status` says of the same store
    (which has no "input error" to give); nothing the user typed was wrong in itself, and the
    next run, once the disk is back, sweeps it."""
    out: dict[str, tuple[str, str]] = {}
    for r in roots:
        try:
            os.stat(r)
        except FileNotFoundError:
            out[r] = ("file" if session_like(os.path.basename(r)) else "folder", MISSING)
        except OSError:
            pass  # there, but not to be looked at (permission, a loop): the walk names it
    return out
