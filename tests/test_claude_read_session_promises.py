"""`read_session` of Claude Code: what the session is (its kind, agent, counters), where its
evidence is said to lie when no root is given (beside the session file, its subagents' files
under it), a subagent file read on its own (its events' thread is the file; Claude Code's own
helper is read whole, its prompt Claude Code's), a Warmup subagent file (set aside, said once,
no events), and an `agent_progress` copy marked sidechain (said unread at its line).
Worked out by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _small_logs import SESSION, answer, user, write
from forsy.evidence import Mark, Session
from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource

SRC = ClaudeCodeSource()


def _one(path: Path, ctx: ReadContext) -> Session:
    [s] = SRC.read(path, ctx)
    return s


def _main(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write(folder / "s.jsonl", [user(0, "u1", None, "Where is the retry limit?"),
                                      answer(1, "a1", "u1", "In conf.py.")])


def _agent_recs(agent: str, words: str, sidechain: bool = True) -> list[dict[str, Any]]:
    recs = [user(0, "x1", None, words), answer(1, "x2", "x1", f"Read by {agent}.")]
    return [dict(r, isSidechain=sidechain, agentId=agent) for r in recs]


def test_the_session_is_claude_codes_with_its_counters(tmp_path: Path) -> None:
    s = _one(_main(tmp_path), ReadContext(root=tmp_path))
    assert (s.source_kind, s.session_id, s.meta.agent) == ("claude_code", SESSION, "claude-code")
    assert (s.quality.records, s.quality.unparsable_records, s.quality.abandoned_events) == (2, 0, 0)
    assert [(e.kind, e.actor, e.text) for e in s.events] == [
        ("user", "user", "Where is the retry limit?"), ("agent_text", "agent", "In conf.py.")]


def test_with_no_root_evidence_is_named_from_the_session_files_folder(tmp_path: Path) -> None:
    log = _main(tmp_path / "proj")
    (tmp_path / "proj" / "s" / "subagents").mkdir(parents=True)
    write(tmp_path / "proj" / "s" / "subagents" / "agent-ab12.jsonl",
          [dict(r, sessionId=SESSION) for r in _agent_recs("ab12", "Find it.")])
    s = _one(log, ReadContext())
    assert [f.path for f in s.files] == ["s.jsonl", "s/subagents/agent-ab12.jsonl"]
    assert sorted({ev.source for ev in s.evidence.values()}) == ["s.jsonl", "s/subagents/agent-ab12.jsonl"]
    # a root given is kept
    s = _one(log, ReadContext(root=tmp_path))
    assert [f.path for f in s.files] == ["proj/s.jsonl", "proj/s/subagents/agent-ab12.jsonl"]


def test_a_subagent_file_alone_is_its_own_thread_from_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "agent-ab12.jsonl", _agent_recs("ab12", "Find the retry limit."))
    s = _one(path, ReadContext(root=tmp_path))
    assert (s.source_kind, s.meta.agent) == ("claude_code", "claude-code")
    assert [(e.kind, e.actor, e.text, e.info.subtype if isinstance(e.info, NoteInfo) else None)
            for e in s.events] == [("note", "agent", "Find the retry limit.", "subagent_input"),
                                   ("agent_text", "subagent:ab12", "Read by ab12.", None)]
    # the delegation's input is the parent's note (no link); the subagent's events are the file's thread
    assert [(e.link.subagent, e.link.thread_source) if e.link else None for e in s.events] == [
        None, ("ab12", "file")]
    assert s.warnings == []


def test_claude_codes_helper_is_read_whole_its_prompt_claude_codes(tmp_path: Path) -> None:
    # the helper's records are not marked sidechain: all of them are its thread
    name = "aprompt_suggestion-0f1e"
    path = write(tmp_path / f"agent-{name}.jsonl", _agent_recs(name, "Suggest the next prompt.", sidechain=False))
    s = _one(path, ReadContext(root=tmp_path))
    assert [(e.kind, e.actor, e.text, e.info.subtype if isinstance(e.info, NoteInfo) else None)
            for e in s.events] == [("note", "system", "Suggest the next prompt.", "subagent_input"),
                                   ("agent_text", f"subagent:{name}", f"Read by {name}.", None)]
    assert [(e.link.subagent, e.link.thread_source) if e.link else None for e in s.events] == [
        None, (name, "file")]


def test_a_helper_marked_sidechain_takes_its_prompt_from_all_its_records(tmp_path: Path) -> None:
    # the prompt line is not marked sidechain, the answer is: the helper's thread is every record
    name = "aprompt_suggestion-0f1e"
    recs = _agent_recs(name, "Suggest the next prompt.")
    recs[0]["isSidechain"] = False
    s = _one(write(tmp_path / f"agent-{name}.jsonl", recs), ReadContext(root=tmp_path))
    assert [(e.kind, e.actor) for e in s.events] == [("note", "system"), ("agent_text", f"subagent:{name}")]


def test_a_warmup_subagent_file_is_set_aside_and_said_once(tmp_path: Path) -> None:
    path = write(tmp_path / "agent-ab12.jsonl", _agent_recs("ab12", " Warmup\n"))
    s = _one(path, ReadContext(root=tmp_path))
    assert s.events == []
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("warmup-only", "a Warmup sidechain (cache priming), not work", "agent-ab12.jsonl", None)]
    # both records are read, and set aside
    assert len(s.evidence) == 2
    assert s.ledger == {ev: Mark("set_aside", "Warmup sidechains are not work") for ev in s.evidence}


def test_a_subagent_file_with_no_prompt_is_not_warmup(tmp_path: Path) -> None:
    recs = [dict(answer(1, "x2", None, "Done."), isSidechain=True, agentId="ab12")]
    s = _one(write(tmp_path / "agent-ab12.jsonl", recs), ReadContext(root=tmp_path))
    assert [(e.kind, e.actor, e.text) for e in s.events] == [("agent_text", "subagent:ab12", "Done.")]
    assert s.warnings == []


def test_lowercase_warmup_is_work(tmp_path: Path) -> None:
    s = _one(write(tmp_path / "agent-ab12.jsonl", _agent_recs("ab12", "warmup")), ReadContext(root=tmp_path))
    assert [e.kind for e in s.events] == ["note", "agent_text"]
    assert s.warnings == []


def test_a_progress_copy_marked_sidechain_is_said_unread_at_its_file_and_line(tmp_path: Path) -> None:
    copy = {"type": "agent_progress", "agentId": "ab12", "prompt": "Count the tests.",
            "message": {"type": "user", "message": {"role": "user", "content": "Count the tests."}}}
    progress = {"type": "progress", "uuid": "p1", "parentUuid": "u1", "sessionId": SESSION, "isSidechain": True,
                "timestamp": "2026-01-01T10:00:01.000Z", "toolUseID": "g1", "parentToolUseID": "g1", "data": copy}
    (tmp_path / "logs").mkdir()
    log = write(tmp_path / "logs" / "s.jsonl", [user(0, "u1", None, "Count the tests."), progress,
                                                 answer(2, "a1", "u1", "Twelve.")])
    s = _one(log, ReadContext(root=tmp_path))
    # said once, and only that: a sidechain record with no message is no subagent thread (it was
    # one of its own, said unlinked though it had no step to place)
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("unread-content", "agent_progress record marked isSidechain; its copy of a subagent message was not read",
         "logs/s.jsonl", 2)]
    assert [e.kind for e in s.events] == ["user", "agent_text"] and "subagents" not in s.meta.extra
