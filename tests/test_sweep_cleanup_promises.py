"""The warning before Claude Code deletes a session log (`cleanupPeriodDays`): the period read
from its settings (the default when absent or odd), and the exact lines for sessions at the
edge of the warning window, with and without a trace, on hand-built ages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forsy.store import FileState
from forsy.sweep._cleanup import DEFAULT_CLEANUP_DAYS, cleanup_days, cleanup_warnings

DAY = 86400
NOW = 2_000_000_000.0


def _home(tmp_path: Path, settings: object = None, raw: bytes | None = None) -> Path:
    home = tmp_path / ".claude"
    home.mkdir()
    if raw == b"a folder":
        (home / "settings.json").mkdir()
    elif raw is not None:
        (home / "settings.json").write_bytes(raw)
    elif settings is not None:
        (home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return home


@pytest.mark.parametrize(("settings", "raw", "days"), [
    (None, None, 30),  # no settings file
    (None, b"a folder", 30),  # settings.json that cannot be read
    (None, b"{not json", 30),
    (None, b'{"cleanupPeriodDays": 10, "x": "\xff"}', 30),  # not UTF-8
    ([10], None, 30),  # not an object
    ({"other": 1}, None, 30),
    ({"cleanupPeriodDays": True}, None, 30),  # a bool is no number of days
    ({"cleanupPeriodDays": -1}, None, 30),
    ({"cleanupPeriodDays": "10"}, None, 30),
    ({"cleanupPeriodDays": 10.0}, None, 30),
    ({"cleanupPeriodDays": 0}, None, 0),
    ({"cleanupPeriodDays": 1}, None, 1),
    ({"cleanupPeriodDays": 99}, None, 99),
])
def test_the_period_is_the_settings_whole_number_of_days_or_thirty(tmp_path: Path, settings: object, raw: bytes | None,
                                                                     days: int) -> None:
    assert DEFAULT_CLEANUP_DAYS == 30
    assert cleanup_days(_home(tmp_path, settings, raw)) == days


def _state(path: str, status: str, error: str | None = None) -> FileState:
    return FileState(path, path, "claude", 1, 1, 1, 1, "", None, 0, 1, status, error)  # type: ignore[arg-type]


def _aged(days_old: float) -> int:
    return int((NOW - days_old * DAY) * 1e9)


def test_sessions_within_the_window_are_named_with_days_left_and_why(tmp_path: Path) -> None:
    home = _home(tmp_path, {"cleanupPeriodDays": 10})
    p = str(home / "projects")
    sessions = [
        (f"{p}-old/b.jsonl", _aged(9), None),  # beside projects/, not in it (the others are still looked at)
        (f"{p}/a/new.jsonl", _aged(5 - 1 / DAY), None),  # a second more than 5 days left: outside a 5-day window
        (f"{p}/a/edge.jsonl", _aged(5), None),  # 5.0 left: inside
        (f"{p}/a/failed.jsonl", _aged(7.5), _state(f"{p}/a/failed.jsonl", "failed", "no records")),
        (f"{p}/a/failed-quiet.jsonl", _aged(8), _state(f"{p}/a/failed-quiet.jsonl", "failed")),
        (f"{p}/a/overdue.jsonl", _aged(12), _state(f"{p}/a/overdue.jsonl", "source_gone")),
        (f"{p}/a/ok.jsonl", _aged(9), _state(f"{p}/a/ok.jsonl", "ok")),
        (f"{p}/a/skipped.jsonl", _aged(9), _state(f"{p}/a/skipped.jsonl", "skipped")),
        (f"{p}/a/ok-young.jsonl", _aged(1), _state(f"{p}/a/ok-young.jsonl", "ok")),  # not within: not counted
        (str(tmp_path / "codex" / "c.jsonl"), _aged(9), None),  # not Claude Code's
    ]
    assert cleanup_warnings(home, sessions, NOW, 5) == [
        f"{p}/a/edge.jsonl: Claude Code deletes it in 5.0 day(s) (cleanupPeriodDays=10); not traced yet",
        f"{p}/a/failed.jsonl: Claude Code deletes it in 2.5 day(s) (cleanupPeriodDays=10); no records",
        f"{p}/a/failed-quiet.jsonl: Claude Code deletes it in 2.0 day(s) (cleanupPeriodDays=10); not traced yet",
        f"{p}/a/overdue.jsonl: Claude Code deletes it in 0.0 day(s) (cleanupPeriodDays=10); not traced yet",
        "2 traced session log(s) will be deleted by Claude Code within 5 days (cleanupPeriodDays=10); "
        "their traces stay in the store",
    ]


def test_nothing_to_say_when_nothing_is_near_its_deletion(tmp_path: Path) -> None:
    home = _home(tmp_path)  # 30 days
    p = str(home / "projects")
    young = [(f"{p}/a/x.jsonl", _aged(24.9), None), (f"{p}/a/y.jsonl", _aged(20), _state(f"{p}/a/y.jsonl", "ok"))]
    assert cleanup_warnings(home, young, NOW, 5) == []
    assert cleanup_warnings(home, [(f"{p}/a/x.jsonl", _aged(25.5), None)], NOW, 5) == [
        f"{p}/a/x.jsonl: Claude Code deletes it in 4.5 day(s) (cleanupPeriodDays=30); not traced yet"]
