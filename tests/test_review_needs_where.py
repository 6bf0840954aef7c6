"""A reading warning on the draft page says where it was met as far as the manifest says it: the
file and line, the file alone for a warning about the whole file (it read `file:None`)."""

from __future__ import annotations

from forsy.review.needs import needs
from forsy.review.source import LoadedTrace


def test_a_reading_warning_names_its_file_and_its_line_only_when_it_has_one() -> None:
    warnings = [{"code": "abandoned-branch", "message": "13 records are on branches", "file": "s.jsonl", "line": None},
                {"code": "W-gap", "message": "a line is missing", "file": "s.jsonl", "line": 12},
                {"code": "W-first", "message": "at the top", "file": "s.jsonl", "line": 0},
                {"code": "W-time", "message": "no clock"}]
    d = LoadedTrace("forsy_c", {}, {"steps": []}, {"steps": []}, {"warnings": warnings}, [])
    assert needs(d).reading_warnings == ["abandoned-branch: 13 records are on branches (s.jsonl)",
                                         "W-gap: a line is missing (s.jsonl:12)", "W-first: at the top (s.jsonl:0)",
                                         "W-time: no clock"]
