"""What a Claude Code session counts, and how its saved outputs and notes are accounted for.

Quality: abandoned events, compactions, encrypted reasoning blocks, outputs whose saved file is
missing; a session whose first event (notes aside) is a compaction starts from a summary.
Ledger: an interrupt's record is metadata (it gives the termination reason), a note's record is
set aside as a note of its kind, a compaction boundary keeps its own mark. A saved output found
is read whole (invalid UTF-8 replaced), cited as its own evidence and listed as a file."""

from __future__ import annotations

import hashlib
from pathlib import Path

from _small_logs import _rec, answer, call, result, user, write
from forsy.evidence import Session
from forsy.payloads import ResultInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _mark(s: Session, line: int) -> tuple[str, str, str | None]:
    [ev] = [ev for ev in s.evidence.values() if ev.line == line and ev.source == "s.jsonl"]
    m = s.ledger[ev.id]
    return m.heading, m.name, m.subtype


def test_encrypted_reasoning_compactions_and_summary_start_are_counted(tmp_path: Path) -> None:
    summary = dict(_rec(0, "user", "This session is being continued from a previous conversation. Summary: x",
                        "c0", None), isCompactSummary=True)
    s = _read(write(tmp_path / "s.jsonl", [
        dict(_rec(0, "user", "<local-command-caveat>Caveat: ok</local-command-caveat>", "m0", None), isMeta=True),
        dict(summary, parentUuid="m0"),
        user(1, "u1", "c0", "Go on."),
        _rec(2, "assistant", [{"type": "redacted_thinking", "data": "Eq"}, {"type": "thinking", "thinking": ""},
                              {"type": "text", "text": "Done."}], "a1", "u1"),
    ]))
    q = s.quality
    assert (q.compactions, q.encrypted_reasoning, q.extra.get("starts_from_summary")) == (1, 2, 1)


def test_a_session_that_starts_with_a_prompt_does_not_start_from_a_summary(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), answer(1, "a1", "u1", "Done.")]))
    assert "starts_from_summary" not in s.quality.extra
    assert (s.quality.compactions, s.quality.encrypted_reasoning, s.quality.abandoned_events) == (0, 0, 0)


def test_an_interrupt_is_metadata_and_notes_are_set_aside_by_kind(tmp_path: Path) -> None:
    boundary = {"type": "system", "subtype": "compact_boundary", "uuid": "b1", "parentUuid": None,
                "logicalParentUuid": "a1", "sessionId": "s-small", "timestamp": "2026-01-01T10:00:03.000Z",
                "content": "Conversation compacted", "compactMetadata": {"trigger": "manual"}}
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Go."),
        call(1, "a1", "u1", "t1", "Bash", {"command": "make"}),
        user(2, "i1", "a1", "[Request interrupted by user]"),
        boundary,
        dict(user(4, "m1", "b1", "Base directory for this skill: /x"), isMeta=True),
        user(5, "n1", "m1", "<system-reminder>The file changed.</system-reminder>"),
    ]))
    assert _mark(s, 3) == ("metadata", "interrupt (termination_reason)", None)
    assert _mark(s, 4) == ("metadata", "compaction trigger", "compact_boundary")
    assert _mark(s, 5) == ("set_aside", "notes are not steps", "meta")
    assert _mark(s, 6) == ("set_aside", "notes are not steps", "injected")


def _saved(tmp_path: Path, out: str, saved: bytes | None, said: str = "Done.") -> Session:
    if saved is not None:
        (tmp_path / "s" / "tool-results").mkdir(parents=True)
        (tmp_path / "s" / "tool-results" / "toolu_1.txt").write_bytes(saved)
    return _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Run it."), call(1, "a1", "u1", "t1", "Bash", {"command": "make"}),
        result(2, "r1", "a1", "t1", out), answer(3, "a2", "r1", said),
    ]))


WRITTEN = "/home/dev/.claude/projects/-app/s/tool-results/toolu_1.txt"


def _result_info(s: Session) -> ResultInfo:
    [e] = [e for e in s.events if e.kind == "tool_result"]
    assert isinstance(e.info, ResultInfo)
    return e.info


def test_a_saved_output_found_is_read_whole_cited_and_listed(tmp_path: Path) -> None:
    data = b"line 1\nbad \xff byte\n"
    s = _saved(tmp_path, f"<persisted-output>\nOutput too large (2KB). Full output saved to: {WRITTEN}\n", data)
    info = _result_info(s)
    assert info.persisted is not None and info.persisted_missing is False
    assert (info.persisted.text, info.persisted.source) == ("line 1\nbad \ufffd byte\n", "s/tool-results/toolu_1.txt")
    ev = s.evidence[info.persisted.ref.ev]
    assert (ev.source, ev.line, ev.byte_offset, ev.byte_length, ev.sha256, ev.record_type) == (
        "s/tool-results/toolu_1.txt", None, 0, len(data), hashlib.sha256(data).hexdigest(), "tool-result-file")
    assert info.persisted.ref.pointer == ""
    assert [(f.path, f.bytes) for f in s.files] == [("s.jsonl", (tmp_path / "s.jsonl").stat().st_size),
                                                     ("s/tool-results/toolu_1.txt", len(data))]
    assert s.quality.truncated_outputs == 0
    # accounted for in the ledger (it was `unknown`, warned, and lowered the confidence)
    mark = s.ledger[info.persisted.ref.ev]
    assert (mark.heading, mark.name) == ("metadata", "a call's whole output the agent saved beside its log (copied "
                                                     "into the trace's artifacts)")


def test_a_saved_output_whose_file_is_missing_is_a_truncated_output(tmp_path: Path) -> None:
    s = _saved(tmp_path, f"Output too large (2KB). Full output saved to: {WRITTEN}\n\nPreview:\nline 1", None)
    info = _result_info(s)
    assert (info.persisted_path, info.persisted, info.persisted_missing) == (WRITTEN, None, True)
    assert s.quality.truncated_outputs == 1


def test_only_a_tool_result_naming_a_saved_output_is_looked_up(tmp_path: Path) -> None:
    # the same words in a model's answer, or a result without the marker, are not a saved output
    s = _saved(tmp_path, f"Full output saved to: {WRITTEN}", None,
               said=f"<persisted-output>\nOutput too large (2KB). Full output saved to: {WRITTEN}\n")
    assert _result_info(s).persisted_path is None and s.quality.truncated_outputs == 0
    assert [e.info for e in s.events if e.kind == "agent_text"] == [None]
    assert [f.path for f in s.files] == ["s.jsonl"]

