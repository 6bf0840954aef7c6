"""A resumed Claude Code session repeats earlier lines under their uuid: a line whose content
is the same (even written at another time) is read once and counted as a duplicate; a line that
reuses a uuid with other content is kept, with a warning, never dropped. A line two records were
spliced into keeps the whole records that start it, and no fragment."""

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


def _users(s: Session) -> list[str | None]:
    return [e.text for e in s.events if e.kind == "user"]


def test_a_replayed_line_is_read_once_even_when_written_at_another_time(tmp_path: Path) -> None:
    first = user(0, "u1", None, "Fix the bug.")
    again = dict(first, timestamp="2026-01-01T11:00:00.000Z")  # other bytes, same content
    s = _read(write(tmp_path / "s.jsonl", [first, answer(1, "a1", "u1", "On it."), again]))
    assert _users(s) == ["Fix the bug."]
    assert s.quality.duplicate_records == 1
    assert [w.code for w in s.warnings] == ["duplicate-records"]


def test_a_line_repeated_byte_for_byte_is_read_once(tmp_path: Path) -> None:
    first = user(0, "u1", None, "Fix the bug.")
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [first, answer(1, "a1", "u1", "On it."), first]), "utf-8")
    s = _read(path)
    assert _users(s) == ["Fix the bug."] and s.quality.duplicate_records == 1


def test_a_uuid_reused_with_other_content_keeps_both_and_says_so(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Fix the bug."), answer(1, "a1", "u1", "On it."),
                                           user(2, "u1", "a1", "And the test.")]))
    assert _users(s) == ["Fix the bug.", "And the test."]
    assert s.quality.duplicate_records == 0
    [w] = s.warnings
    assert w.code == "uuid-reused" and w.line == 3 and "line 1" in w.message


def test_a_spliced_line_keeps_the_whole_records_that_start_it_and_no_fragment(tmp_path: Path) -> None:
    # a fragment is no record: a content block (a type, no record key), a bare key, a type that is no text
    head = json.dumps(user(0, "u1", None, "Go.")) + json.dumps(answer(1, "a1", "u1", "On it."))
    for tail, kept, lost in [('{"type": "text", "text": "half"}', 2, "bytes 497-529 lost"),
                             ('{"uuid": "z"}', 2, "bytes 497-510 lost"),
                             ('{"type": 3, "uuid": "z"}', 2, "bytes 497-521 lost"),
                             ('{"type": "system", "sessionId": "s"}', 3, "nothing lost")]:
        path = tmp_path / "s.jsonl"
        path.write_text(head + tail + "\n", "utf-8")
        s = _read(path)
        assert [(e.kind, e.text) for e in s.events] == [("user", "Go."), ("agent_text", "On it.")]
        assert [(w.code, w.message) for w in s.warnings][:1] == [
            ("damaged-line", f"line is damaged (spliced, cut or with junk); kept the {kept} whole record(s) that "
                             f"start it; {lost}")]
