"""Subagents that spawn subagents (Claude Code lets them nest, up to 5 levels from 2.1.x on).

Every subagent's transcript lies flat in `<session>/subagents/agent-<id>.jsonl`, whichever agent
spawned it. A nested one is tied to its spawning call the way a first-level one is: that call's
result names its `agentId` (`toolUseResult.agentId`), or its `.meta.json` names the call
(`toolUseId`); only the call is in its parent subagent's transcript, not the session's. Its steps
follow that call, inside the parent subagent's steps, and its first step is caused by it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import forsy
from _small_logs import SESSION, answer, call, result, user, write
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _spawned(rec: dict[str, Any], agent: str) -> dict[str, Any]:
    return dict(rec, toolUseResult={"status": "completed", "agentId": agent, "content": []})


def _agent(sub: Path, agent: str, recs: list[dict[str, Any]]) -> Path:
    sub.mkdir(parents=True, exist_ok=True)
    return write(sub / f"agent-{agent}.jsonl", [dict(r, isSidechain=True, agentId=agent, sessionId=SESSION)
                                                for r in recs])


def _session(tmp_path: Path, link: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    log = write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Audit the retry settings."),
        call(1, "a1", "u1", "t1", "Agent", {"description": "audit", "prompt": "Audit retries."}),
        _spawned(result(2, "r1", "a1", "t1", "Done: two settings."), "aa01"),
        answer(3, "a2", "r1", "Two settings found."),
    ])
    sub = tmp_path / "s" / "subagents"
    inner = result(2, "x3", "x2", "t2", "conf.py line 3")
    _agent(sub, "aa01", [
        user(0, "x1", None, "Audit retries."),
        call(1, "x2", "x1", "t2", "Agent", {"description": "find", "prompt": "Find the retry limit."}),
        _spawned(inner, "bb02") if link == "agentId" else inner,
        answer(3, "x4", "x3", "The limit is in conf.py."),
    ])
    _agent(sub, "bb02", [
        user(0, "y1", None, "Find the retry limit."),
        call(1, "y2", "y1", "t3", "Grep", {"pattern": "retry"}),
        result(2, "y3", "y2", "t3", "conf.py:3: retries = 5"),
        answer(3, "y4", "y3", "conf.py line 3"),
    ])
    if link == "meta":
        (sub / "agent-bb02.meta.json").write_text(json.dumps({"agentType": "general-purpose", "toolUseId": "t2"}))
    return log


def _order(s: Session) -> list[tuple[str, str, str | None]]:
    return [(e.actor, e.kind, e.call_id) for e in s.events if e.kind in ("tool_call", "agent_text")]


def test_a_subagent_spawned_by_a_subagent_follows_its_spawning_call(tmp_path: Path) -> None:
    for link, rule in (("agentId", "toolUseResult.agentId"), ("meta", "meta.toolUseId")):
        s = _read(_session(tmp_path / link, link))
        assert not [w for w in s.warnings if w.code == "unlinked-subagent"], link
        assert _order(s) == [
            ("agent", "tool_call", "t1"),
            ("subagent:aa01", "tool_call", "t2"),
            ("subagent:bb02", "tool_call", "t3"),
            ("subagent:bb02", "agent_text", None),
            ("subagent:aa01", "agent_text", None),
            ("agent", "agent_text", None),
        ], link
        nested = [e for e in s.events if e.actor == "subagent:bb02"]
        assert {(e.link.parent_call_id, e.link.link_rule) for e in nested if e.link} == {("t2", rule)}, link


def test_the_nested_subagents_first_step_is_caused_by_the_call_in_its_parent_subagent(tmp_path: Path) -> None:
    run = forsy.retrace([_session(tmp_path, "agentId")], forsy.RetraceOptions(redact=False))
    [o] = run.outcomes
    assert o.assembled is not None
    steps = o.assembled.trace.steps
    spawn = next(st for st in steps if st.actor == "subagent:aa01" and st.tool == "Agent")
    grep = next(st for st in steps if st.actor == "subagent:bb02" and st.tool == "Grep")
    assert spawn.step < grep.step and spawn.step in (grep.caused_by or []), (grep.caused_by, grep.causal_note)
