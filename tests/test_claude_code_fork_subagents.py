"""A fork subagent's transcript (`subagent_type: "fork"`, on by default from Claude Code 2.1.232:
it inherits the whole conversation), built by hand in the shape public readers describe (made-up
words): `subagents/agent-<id>.jsonl` opens with a `fork-context-ref` record naming the session it
was forked in (`agentId`, `parentSessionId`, `parentLastUuid`, `contextLength`; no `sessionId`, not
marked sidechain), then the fork's own sidechain records.

* given on its own, the file is Claude Code's (sniffed by the reference's `parentSessionId`) and
  a subagent's transcript: its first prompt is the delegated task (a note of the parent agent's),
  not a person's words, and no thread of it is left unlinked;
* one reader's fixtures have the fork's file hold the session's own records copied (the same
  uuids): read with the session, those are the session's work, read once there — set aside
  (`a copy of its session's record …`), counted (`subagent_context_copies`), warned once per
  transcript with its file and line; never the fork's steps.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _claude_events_view import marks, read
from _oracle import retrace
from _small_logs import SESSION, _rec, answer, user, write
from forsy.payloads import NoteInfo
from forsy.sources.base import read_head
from forsy.sources.claude_code import ClaudeCodeSource

FORK = "a1b2c3d4e5f607182"
CONTEXT_COPY = "a copy of its session's record (the context a fork subagent was given)"
REF = {"type": "fork-context-ref", "agentId": FORK, "parentSessionId": SESSION, "parentLastUuid": "a1",
       "contextLength": 2}


def _side(r: dict[str, Any]) -> dict[str, Any]:
    r.update(isSidechain=True, agentId=FORK)
    return r


def _main() -> list[dict[str, Any]]:
    spawn = _rec(1, "assistant", [{"type": "tool_use", "id": "t1", "name": "Agent", "input": {
        "description": "approach B", "subagent_type": "fork", "prompt": "Try approach B."}}], "a1", "u1")
    launched = _rec(2, "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "Async agent launched."}],
                    "r1", "a1")
    launched["toolUseResult"] = {"isAsync": True, "status": "async_launched", "agentId": FORK}
    return [user(0, "u1", None, "Try two approaches."), spawn, launched, answer(3, "a2", "r1", "Forked.")]


def _fork_records(copies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [REF, *copies, _side(user(4, "f1", None, "Try approach B.")),
            _side(answer(5, "f2", "f1", "Approach B works."))]


def _session(tmp_path: Path, copies: list[dict[str, Any]]) -> Path:
    log = write(tmp_path / f"{SESSION}.jsonl", _main())
    sub = tmp_path / SESSION / "subagents"
    sub.mkdir(parents=True)
    write(sub / f"agent-{FORK}.jsonl", _fork_records(copies))
    (sub / f"agent-{FORK}.meta.json").write_text(json.dumps({"agentType": "fork", "toolUseId": "t1"}))
    return log


def test_a_fork_transcript_given_alone_is_claude_codes_and_a_subagents(tmp_path: Path) -> None:
    path = write(tmp_path / f"agent-{FORK}.jsonl", _fork_records([]))
    assert ClaudeCodeSource().sniff(path, read_head(path))
    s = read(path)
    prompt, words = s.events
    assert (prompt.kind, prompt.actor, prompt.text, prompt.info) == ("note", "agent", "Try approach B.",
                                                                      NoteInfo(subtype="subagent_input"))
    assert (words.kind, words.actor, words.text) == ("agent_text", f"subagent:{FORK}", "Approach B works.")
    assert "unlinked-subagent" not in [w.code for w in s.warnings]
    assert marks(s)[1] == ("set_aside", "fork-context-ref", None)
    [trace] = retrace(path, tmp_path / "out")
    assert trace["task"] == "Try approach B."
    assert not [st for st in trace["steps"] if st["action"] == "user_message"]


def test_the_sessions_records_copied_into_a_fork_transcript_are_read_once_in_the_session(tmp_path: Path) -> None:
    main = _main()
    log = _session(tmp_path, [main[0], main[1]])
    s = read(log)
    fork = [e for e in s.events if e.actor == f"subagent:{FORK}"]
    assert [(e.kind, e.text) for e in fork] == [("note", "Try approach B."), ("agent_text", "Approach B works.")]
    assert [e.kind for e in s.events if e.actor == "agent"] == ["tool_call", "tool_result", "agent_text"]
    rel = f"{SESSION}/subagents/agent-{FORK}.jsonl"
    copied = [ev.line for k, ev in s.evidence.items() if ev.source == rel and s.ledger.get(k) is not None
              and s.ledger[k].name == CONTEXT_COPY]
    assert sorted(copied) == [2, 3]
    [w] = [w for w in s.warnings if w.code == "subagent-context-copy"]
    assert (w.file, w.line) == (rel, 2) and "2 records" in w.message
    assert s.quality.extra["subagent_context_copies"] == 2
    [trace] = retrace(log, tmp_path / "out")
    assert [(st["actor"], st["action"], st["tool"]) for st in trace["steps"]] == [
        ("user", "user_message", None), ("agent", "agent_step", "Agent"), (f"subagent:{FORK}", "output", None),
        ("agent", "output", None)]


def test_a_fork_transcript_without_copies_reads_as_before(tmp_path: Path) -> None:
    s = read(_session(tmp_path, []))
    assert "subagent-context-copy" not in [w.code for w in s.warnings]
    assert "subagent_context_copies" not in s.quality.extra
    assert [(e.kind, e.text) for e in s.events if e.actor == f"subagent:{FORK}"] == [
        ("note", "Try approach B."), ("agent_text", "Approach B works.")]
