"""Claude Code 1.0.x wrote subagents inline: `isSidechain` records in the session's own file. Each
parent chain (by its root) is one subagent, named by the `agentId` any of its records carries,
else by the first eight characters of its root's uuid; a record without a uuid belongs to its
parent's thread, else to a thread of its own. Agent files beside a session that cannot be
opened are passed over, and the rest still read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _small_logs import SESSION, answer, call, result, user, write
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _side(r: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {**r, "isSidechain": True, **extra}


def _by_actor(s: Session) -> list[tuple[str, str | None]]:
    return [(e.actor, e.text) for e in s.events if e.actor.startswith("subagent:")]


def test_each_inline_chain_is_one_subagent_named_by_its_agent_id_or_its_roots_uuid(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Look at both files."),
        call(1, "a1", "u1", "t1", "Task", {"description": "a", "prompt": "Read a.py."}),
        _side(user(2, "11112222-aaaa", None, "Read a.py.")),
        _side(answer(3, "x2", "11112222-aaaa", "a = 1")),
        _side(user(4, "33334444-bbbb", None, "Read b.py.")),
        _side(answer(5, "y2", "33334444-bbbb", "b = 2"), agentId="b-agent"),
        result(6, "r1", "a1", "t1", "a = 1"),
    ]))
    assert _by_actor(s) == [("subagent:11112222", "Read a.py."), ("subagent:11112222", "a = 1"),
                            ("subagent:b-agent", "Read b.py."), ("subagent:b-agent", "b = 2")]


def test_an_inline_record_without_a_uuid_joins_its_parents_thread(tmp_path: Path) -> None:
    orphan = _side(answer(3, "-", "11112222-aaaa", "a = 1"))
    del orphan["uuid"]
    lost = _side(answer(5, "-", "99999999-none", "who am I?"))
    del lost["uuid"]
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Look at a.py."),
        _side(user(2, "11112222-aaaa", None, "Read a.py."), agentId="a-agent"),
        _side(user(4, "33334444-bbbb", None, "Read b.py."), agentId="b-agent"),
        orphan,
        lost,
    ]))
    assert _by_actor(s) == [("subagent:a-agent", "Read a.py."), ("subagent:a-agent", "a = 1"),
                            ("subagent:b-agent", "Read b.py."), ("subagent:None", "who am I?")]


def _agent(folder: Path, agent: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    recs = [user(0, "x1", None, f"Task of {agent}."), answer(1, "x2", "x1", f"Read by {agent}.")]
    return write(folder / f"agent-{agent}.jsonl", [dict(r, isSidechain=True, agentId=agent, sessionId=SESSION)
                                                   for r in recs])


def test_an_agent_file_beside_the_session_that_cannot_be_opened_is_passed_over(tmp_path: Path) -> None:
    log = write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), answer(1, "a1", "u1", "Done.")])
    (tmp_path / "agent-aa.jsonl").symlink_to(tmp_path / "gone.jsonl")
    _agent(tmp_path, "bb")
    s = _read(log)
    assert sorted(e.actor for e in s.events if e.kind == "agent_text") == ["agent", "subagent:bb"]


def test_only_agent_files_are_read_under_subagents(tmp_path: Path) -> None:
    log = write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), answer(1, "a1", "u1", "Done.")])
    sub = tmp_path / "s" / "subagents"
    _agent(sub, "bb")
    (sub / "agent-.jsonl").write_text((sub / "agent-bb.jsonl").read_text("utf-8"), "utf-8")
    (sub / "agent-cc.jsonl").mkdir()
    s = _read(log)
    assert sorted(e.actor for e in s.events if e.kind == "agent_text") == ["agent", "subagent:bb"]
