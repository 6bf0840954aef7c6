"""Claude Code deletes session logs older than `cleanupPeriodDays` (30 unless its settings
say otherwise): a session not traced before then is lost for good. Warn in time."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..store import FileState

DEFAULT_CLEANUP_DAYS = 30


def cleanup_days(claude_home: Path) -> int:
    """`cleanupPeriodDays` from ~/.claude/settings.json; the default when absent or odd."""
    try:
        settings = json.loads((claude_home / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return DEFAULT_CLEANUP_DAYS
    v = settings.get("cleanupPeriodDays") if isinstance(settings, dict) else None
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else DEFAULT_CLEANUP_DAYS


def cleanup_warnings(claude_home: Path, sessions: list[tuple[str, int, FileState | None]], now: float,
                     warn_days: int) -> list[str]:
    """One line per Claude Code session within `warn_days` of deletion that has no trace yet,
    and one line counting those that have one (their log goes, their trace stays)."""
    projects = str(claude_home / "projects") + os.sep
    days = cleanup_days(claude_home)
    at_risk: list[str] = []
    traced = 0
    for path, mtime_ns, state in sessions:
        if not path.startswith(projects):
            continue
        left = days - (now - mtime_ns / 1e9) / 86400
        if left > warn_days:
            continue
        if state is not None and state.status in ("ok", "skipped"):
            traced += 1
            continue
        why = state.last_error if state is not None and state.last_error else "not traced yet"
        at_risk.append(f"{path}: Claude Code deletes it in {max(left, 0):.1f} day(s) (cleanupPeriodDays={days}); "
                       f"{why}")
    if traced:
        at_risk.append(f"{traced} traced session log(s) will be deleted by Claude Code within {warn_days} days "
                       f"(cleanupPeriodDays={days}); their traces stay in the store")
    return at_risk
