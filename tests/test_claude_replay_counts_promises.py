"""Counts and places of what a Claude Code log repeats or cannot say: every replayed line is
counted (one warning names how many, on the file), the records after a replay are read, a
reused uuid is warned about with the file and line of the second record, and every record whose
type is no text is counted unknown."""

from __future__ import annotations

import json
from pathlib import Path

from _small_logs import answer, user, write
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def test_every_replayed_line_is_counted_and_what_follows_is_read(tmp_path: Path) -> None:
    first, reply = user(0, "u1", None, "Fix the bug."), answer(1, "a1", "u1", "On it.")
    s = _read(write(tmp_path / "s.jsonl", [first, reply, first, reply, user(2, "u2", "a1", "Thanks.")]))
    assert [e.text for e in s.events] == ["Fix the bug.", "On it.", "Thanks."]
    assert s.quality.duplicate_records == 2
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("duplicate-records", "2 records repeated by uuid (resumed session?) were read once", "s.jsonl", None)]


def test_a_reused_uuid_is_warned_with_the_second_records_place(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Fix the bug."), answer(1, "a1", "u1", "On it."),
                                           user(2, "u1", "a1", "And the test.")]))
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("uuid-reused", "uuid 'u1' was already used at line 1 by a record with other content; both are kept",
         "s.jsonl", 3)]


def test_every_record_whose_type_is_no_text_is_counted_unknown(tmp_path: Path) -> None:
    odd = json.dumps({"type": 7, "uuid": "z", "sessionId": "s-small"})
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go.")], {1: odd}))
    assert s.quality.unknown_records == 1
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go.")], {0: odd, 1: odd.replace("7", "[7]")}))
    assert s.quality.unknown_records == 2
    assert [(w.code, w.line) for w in s.warnings] == [("field-type", 1), ("field-type", 3)]


def test_a_file_of_damaged_lines_only_has_no_records(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"type": "user", "mess\n', "utf-8")
    s = _read(path)
    assert (s.quality.records, s.quality.unparsable_records) == (0, 1)


def test_damaged_lines_of_the_session_and_its_agent_files_add_up(tmp_path: Path) -> None:
    log = write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), answer(1, "a1", "u1", "Done.")], {1: "cut {"})
    sub = tmp_path / "s" / "subagents"
    sub.mkdir(parents=True)
    write(sub / "agent-ab12.jsonl", [dict(user(0, "x1", None, "Look."), isSidechain=True)], {0: "cut {"})
    s = _read(log)
    assert (s.quality.records, s.quality.unparsable_records) == (3, 2)
