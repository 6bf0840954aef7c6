"""Which subagent files belong to a Claude Code session, and which are not its work.

`<session>/subagents/agent-<id>.jsonl` (at any depth) are its subagents; before 2.1 they lay
beside the session as `agent-<id>.jsonl`, tied to it by the `sessionId` in their first lines.
Compaction agents (`agent-acompact-*`) and Claude Code's own helpers (`agent-aprompt_suggestion-*`)
are not the session's work: counted, not read. A `.meta.json` beside an agent file that cannot
be read, or holds no object, is warned about by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _small_logs import SESSION, answer, call, result, user, write
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _main(tmp_path: Path) -> Path:
    return write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Where is the retry limit set?"),
        call(1, "a1", "u1", "t1", "Task", {"description": "look", "prompt": "Find the retry limit."}),
        result(2, "r1", "a1", "t1", "conf.py line 3"),
        answer(3, "a2", "r1", "In conf.py."),
    ])


def _agent(folder: Path, agent: str, session: str = SESSION, words: str = "Find the retry limit.") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    recs: list[dict[str, Any]] = [user(0, "x1", None, words), answer(1, "x2", "x1", f"Read by {agent}.")]
    return write(folder / f"agent-{agent}.jsonl", [dict(r, isSidechain=True, agentId=agent, sessionId=session)
                                                   for r in recs])


def _subagents(s: Session) -> list[tuple[str, str | None]]:
    return [(e.actor, e.text) for e in s.events if e.actor.startswith("subagent:") and e.kind == "agent_text"]


def test_agent_files_beside_the_session_are_its_own_when_they_name_it(tmp_path: Path) -> None:
    log = _main(tmp_path)
    _agent(tmp_path, "ab12")
    _agent(tmp_path, "cd34", session="another-session")
    s = _read(log)
    assert _subagents(s) == [("subagent:ab12", "Read by ab12.")]
    assert [f.path for f in s.files] == ["s.jsonl", "agent-ab12.jsonl"]


def test_compaction_agents_and_claude_codes_helpers_are_counted_not_read(tmp_path: Path) -> None:
    log = _main(tmp_path)
    sub = tmp_path / "s" / "subagents"
    _agent(sub, "acompact-1a2b")
    _agent(sub, "acompact-3c4d")
    _agent(sub, "aprompt_suggestion-9f8e")
    _agent(sub, "ab12")
    s = _read(log)
    assert _subagents(s) == [("subagent:ab12", "Read by ab12.")]
    assert (s.quality.extra["compaction_agents"], s.quality.extra["helper_agents"]) == (2, 1)
    assert [f.path for f in s.files] == ["s.jsonl", "s/subagents/agent-ab12.jsonl"]


def test_an_agent_whose_id_only_contains_compact_is_read(tmp_path: Path) -> None:
    log = _main(tmp_path)
    _agent(tmp_path / "s" / "subagents", "b-acompact")
    s = _read(log)
    assert _subagents(s) == [("subagent:b-acompact", "Read by b-acompact.")]
    assert "compaction_agents" not in s.quality.extra


def test_a_meta_file_that_is_no_object_or_unreadable_is_warned_about_by_name(tmp_path: Path) -> None:
    log = _main(tmp_path)
    sub = tmp_path / "s" / "subagents"
    _agent(sub, "ab12")
    _agent(sub, "cd34", words="Count the tests.")
    _agent(sub, "ef56", words="List the docs.")
    (sub / "agent-ab12.meta.json").write_text('["Explore"]', "utf-8")
    (sub / "agent-cd34.meta.json").write_text('{"agentType": ', "utf-8")
    (sub / "agent-ef56.meta.json").write_text('{"agentType": "Explore"}', "utf-8")
    s = _read(log)
    assert [(w.code, w.message, w.file) for w in s.warnings if w.code == "bad-meta"] == [
        ("bad-meta", "subagent .meta.json holds a list, not an object", "agent-ab12.meta.json"),
        ("bad-meta", "unreadable subagent .meta.json", "agent-cd34.meta.json")]
    assert len(_subagents(s)) == 3  # each agent is read all the same


def test_what_an_agent_file_warns_and_sets_aside_reaches_the_session(tmp_path: Path) -> None:
    log = _main(tmp_path)
    agent = _agent(tmp_path / "s" / "subagents", "ab12")
    snapshot = {"type": "file-history-snapshot", "messageId": "x2", "snapshot": {"trackedFileBackups": {}},
                "isSnapshotUpdate": False}
    with agent.open("a", encoding="utf-8") as f:
        f.write('{"type": "user", "uuid": "x3", "parentUu\n' + json.dumps(snapshot) + "\n")
    s = _read(log)
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("unparsable-line", "s/subagents/agent-ab12.jsonl", 3)]
    [snap] = [ev for ev in s.evidence.values() if ev.source.endswith("agent-ab12.jsonl") and ev.line == 4]
    assert (s.ledger[snap.id].heading, s.ledger[snap.id].name) == ("set_aside", "file-history-snapshot")
    assert s.quality.unparsable_records == 1


def test_helpers_are_each_counted_and_the_agents_after_them_read(tmp_path: Path) -> None:
    log = _main(tmp_path)
    sub = tmp_path / "s" / "subagents"
    _agent(sub, "aprompt_suggestion-1a")
    _agent(sub, "aprompt_suggestion-2b")
    _agent(sub, "zz")
    s = _read(log)
    assert _subagents(s) == [("subagent:zz", "Read by zz.")]
    assert s.quality.extra["helper_agents"] == 2
