"""A Claude Code session whose first record is of a type the reader does not know (newer versions
add metadata records that can come first: an agent setting, a worktree state, …) is still a
Claude Code session: the sniff steps past records of an unknown type that carry Claude Code's
`sessionId`, and decides on the next one. It was refused whole as "not a log format". What does
not look like a Claude Code record still decides at once (other agents' JSON Lines). The newer
record types public readers list are accounted for by name; an unknown one is warned about once
and kept in the ledger as unknown. `content-replacement` is written by the Agent SDK
(claude-agent-sdk-python e8bde60, session_mutations.py: `{type, sessionId, replacements, uuid,
timestamp}`); the rest are named by public readers of Claude Code 2.1.145 (`file-history-delta`:
of 2.1.198+)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _small_logs import SESSION, answer, user, write
from forsy.run import retrace_one
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _meta(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "sessionId": SESSION, **fields}


def _head(path: Path) -> bytes:
    return path.read_bytes()[:65536]


@pytest.mark.parametrize("first", [
    _meta("agent-setting", agentSetting="reviewer"),
    _meta("content-replacement", replacements=[], uuid="c1", timestamp="2026-01-01T09:59:00.000Z"),
    _meta("a-kind-from-a-later-version", value=1),
])
def test_a_session_opening_with_a_newer_record_is_read(tmp_path: Path, first: dict[str, Any]) -> None:
    log = write(tmp_path / "s.jsonl", [first, user(0, "u1", None, "Fix it."), answer(1, "a1", "u1", "Done.")])
    assert ClaudeCodeSource().sniff(log, _head(log))
    [o] = retrace_one(log)
    assert o.status == "traced" and o.steps == 2, o.message


def test_json_lines_of_another_kind_still_decide_at_once(tmp_path: Path) -> None:
    other = tmp_path / "events.jsonl"
    # records with a type and a sessionId but never one of Claude Code's kinds
    lines = [json.dumps({"type": f"event-{i}", "sessionId": "x", "data": i}) for i in range(60)]
    other.write_text("\n".join(lines) + "\n")
    assert not ClaudeCodeSource().sniff(other, _head(other))
    gemini_like = tmp_path / "chat.jsonl"  # a header without a type decides: not Claude Code
    gemini_like.write_text(json.dumps({"sessionId": "x", "projectHash": "h"}) + "\n"
                           + json.dumps({"type": "user", "sessionId": "x", "uuid": "u"}) + "\n")
    assert not ClaudeCodeSource().sniff(gemini_like, _head(gemini_like))


@pytest.mark.parametrize(("kind", "heading", "name"), [
    ("content-replacement", "set_aside", "content-replacement"),
    ("agent-setting", "metadata", "agent setting"),
    ("agent-color", "metadata", "agent color"),
    ("worktree-state", "metadata", "worktree state"),
    ("frame-link", "set_aside", "frame-link"),
    ("file-history-delta", "set_aside", "file-history-delta"),
])
def test_newer_record_types_are_accounted_for_by_name(tmp_path: Path, kind: str, heading: str, name: str) -> None:
    log = write(tmp_path / "s.jsonl", [user(0, "u1", None, "Fix it."), _meta(kind, uuid="m1"),
                                       answer(1, "a1", "u1", "Done.")])
    [s] = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))
    assert not [w for w in s.warnings if w.code == "unknown-record-type"]
    [mark] = [m for ev_id, m in s.ledger.items() if s.evidence[ev_id].line == 2]
    assert (mark.heading, mark.name) == (heading, name)


def test_an_unknown_record_type_is_warned_about_once_and_kept_as_unknown(tmp_path: Path) -> None:
    log = write(tmp_path / "s.jsonl", [user(0, "u1", None, "Fix it."), _meta("a-later-kind"),
                                       _meta("a-later-kind"), answer(1, "a1", "u1", "Done.")])
    [s] = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))
    assert [w.line for w in s.warnings if w.code == "unknown-record-type"] == [2]


def test_an_attachment_set_aside_is_named_in_the_ledger_by_its_kind(tmp_path: Path) -> None:
    """Attachments the reader makes no step of are set aside under their own kind (the ledger
    said only `attachment`, so a reviewer could not tell a hook's halt from a file's edit)."""
    att = {"type": "attachment", "sessionId": SESSION, "uuid": "t1", "parentUuid": "u1",
           "timestamp": "2026-01-01T10:00:00.500Z", "attachment": {"type": "edited_text_file", "filename": "a.py"}}
    log = write(tmp_path / "s.jsonl", [user(0, "u1", None, "Fix it."), att, answer(1, "a1", "t1", "Done.")])
    [s] = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))
    [mark] = [m for ev_id, m in s.ledger.items() if s.evidence[ev_id].line == 2]
    assert (mark.heading, mark.name, mark.subtype) == ("set_aside", "attachment", "edited_text_file")


# named by public readers of Claude Code 2.1.2xx (record-type retention tables)
@pytest.mark.parametrize("kind", ["observer-ref", "atis-latch", "history-suppression", "artifact-comment-monitor",
                                  "artifact-autoreact-ledger", "marble-origami-reset"])
def test_later_bookkeeping_records_are_set_aside_by_name(tmp_path: Path, kind: str) -> None:
    log = write(tmp_path / "s.jsonl", [user(0, "u1", None, "Fix it."), _meta(kind, value="x"),
                                       answer(1, "a1", "u1", "Done.")])
    [s] = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))
    assert not [w for w in s.warnings if w.code == "unknown-record-type"]
    [mark] = [m for ev_id, m in s.ledger.items() if s.evidence[ev_id].line == 2]
    assert (mark.heading, mark.name) == ("set_aside", kind)


def test_the_models_ending_and_a_moved_folder_are_read(tmp_path: Path) -> None:
    log = write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Fix it."), answer(1, "a1", "u1", "Done."),
        _meta("relocated", relocatedCwd="/srv/work/api-moved"),
        _meta("ended-by-model", timestamp="2026-01-01T10:05:00.000Z"),
        _meta("relocated", relocatedCwd=7)])  # not text: warned, the earlier one stands
    [s] = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))
    assert not [w for w in s.warnings if w.code == "unknown-record-type"]
    assert s.meta.extra["ended_by_model"] == "2026-01-01T10:05:00.000Z"
    assert s.meta.extra["relocated_cwd"] == "/srv/work/api-moved"
    assert [w.line for w in s.warnings if w.code == "field-type"] == [5]
    marks = {s.evidence[ev_id].line: (m.heading, m.name) for ev_id, m in s.ledger.items()}
    assert marks[3][0] == marks[4][0] == "metadata"
