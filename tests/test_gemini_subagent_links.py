"""Gemini CLI subagents whose spawning call records no `agentId` (sources/gemini/_subagents.py),
built by hand from the writer at google-gemini/gemini-cli commit
5411f113cafae26161b4969b0237b8e1e024e2c2. The AgentSession path
(agents/local-session-invocation.ts) and the browser agent (agents/browser/
browserAgentInvocation.ts) return no `data.agentId`, so geminiChat.ts `recordCompletedToolCalls`
writes none; the call's `resultDisplay` is the agent's progress, whose `recentActivity` items of
type `tool_call` carry the ids of the agent's own calls, as its chat (`chats/<main session
id>/<agent id>.jsonl`) records them: `<agent id>#<turn>-<index>` (local-executor.ts), or the
model's ids. That exact key ties the chat to its call; time alone never does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _gemini_view import read, warnings, write_lines
from _oracle import checked_traces
from forsy.payloads import Link

SID = "7c1e2f40-9a3b-4d2e-8f11-0b5c6d7e8f90"
A1 = "3f6d2a10-1b2c-4d3e-9f40-5a6b7c8d9e01"
A2 = "9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4"
T = "2026-08-20T10:01:{:02d}.000Z".format
RULE = "toolCalls.resultDisplay.recentActivity.id"
CHATS = f"{SID}/{{}}.jsonl".format


def _head(sid: str, kind: str) -> dict[str, Any]:
    h: dict[str, Any] = {"sessionId": sid, "projectHash": "a" * 64, "startTime": T(0), "lastUpdated": T(0),
                         "kind": kind}
    return {**h, "directories": ["/home/u/proj"]} if kind == "subagent" else h


def _call(cid: str, name: str, args: dict[str, Any], out: str, sec: int, shown: Any = None,
          agent: str | None = None) -> dict[str, Any]:
    # recordCompletedToolCalls, then recordToolCalls' display fields
    tc: dict[str, Any] = {"id": cid, "name": name, "args": args,
                          "result": [{"functionResponse": {"id": cid, "name": name, "response": {"output": out}}}],
                          "status": "success", "timestamp": T(sec)}
    if agent is not None:
        tc["agentId"] = agent
    if shown is not None:
        tc["resultDisplay"] = shown
    return {**tc, "description": "", "displayName": name, "renderOutputAsMarkdown": True}


def _progress(name: str, *items: tuple[str, str, str], result: str = "done") -> dict[str, Any]:
    """A SubagentProgress as the invocation returns it (types.ts): items (id, type, content)."""
    return {"isSubagentProgress": True, "agentName": name,
            "recentActivity": [{"id": i, "type": typ, "content": c, "status": "completed"} for i, typ, c in items],
            "state": "completed", "result": result, "terminateReason": "GOAL"}


def _invoke(cid: str, agent_name: str, prompt: str, sec: int, shown: Any, agent: str | None = None
            ) -> dict[str, Any]:
    out = f"Subagent '{agent_name}' finished.\nTermination Reason: GOAL\nResult:\ndone"
    return _call(cid, "invoke_agent", {"agent_name": agent_name, "prompt": prompt}, out, sec, shown, agent)


def _gemini(mid: str, sec: int, *calls: dict[str, Any], text: str = "") -> dict[str, Any]:
    return {"id": mid, "timestamp": T(sec), "type": "gemini", "content": text, "thoughts": [],
            "model": "gemini-3-pro", "toolCalls": list(calls)}


def _user(mid: str, sec: int, text: str) -> dict[str, Any]:
    return {"id": mid, "timestamp": T(sec), "type": "user", "content": [{"text": text}]}


def _main(chats: Path, *calls: dict[str, Any]) -> Path:
    return write_lines(chats / f"session-2026-08-20T10-00-{SID[:8]}.jsonl", [
        _head(SID, "main"), _user("m1", 1, "Who calls parse_args, and where is the config loaded?"),
        _gemini("m2", 2, *calls), _gemini("m3", 40, text="cli.py calls it; config.py loads it.")])


def _sub(chats: Path, agent: str, task: str, start: int, ids: tuple[str, str] | None = None) -> Path:
    """A subagent's chat: its task, a grep, then complete_task; call ids as the executor makes
    them (`<agent id>#<turn>-<index>`) unless the model gave its own (`ids`)."""
    grep, done = ids or (f"{agent}#0-0", f"{agent}#1-0")
    return write_lines(chats / SID / f"{agent}.jsonl", [
        _head(agent, "subagent"), _user(f"u-{agent[:4]}", start, task),
        _gemini(f"g1-{agent[:4]}", start + 1, _call(grep, "grep_search", {"pattern": "x"}, "cli.py:3", start + 2)),
        _gemini(f"g2-{agent[:4]}", start + 3, _call(done, "complete_task", {"result": "done"}, "Output submitted.",
                                                    start + 4))])


def _listing(agent: str, name: str) -> dict[str, Any]:
    # the AgentSession path keeps the last 3 items: a thought (an id of its own) and the two calls
    return _progress(name, ("b7a1c2d3-0000-4000-8000-000000000001", "thought", "Searching"),
                     (f"{agent}#0-0", "tool_call", "grep_search"), (f"{agent}#1-0", "tool_call", "complete_task"))


def _two_agents(chats: Path) -> Path:
    # the second call's agent ran first: by time, its work would follow the first call
    main = _main(chats, _invoke("inv-1", "generalist", "Find every caller of parse_args.", 30,
                                _listing(A1, "generalist")),
                 _invoke("inv-2", "codebase_investigator", "Find where the config is loaded.", 31,
                         _listing(A2, "codebase_investigator")))
    _sub(chats, A1, "Find every caller of parse_args.", 10)
    _sub(chats, A2, "Your task is to investigate: Find where the config is loaded.", 3)
    return main


def _calls(s: Any) -> list[tuple[str, str, str | None]]:
    return [(e.kind, e.actor, e.call_id) for e in s.events if e.kind in ("tool_call", "tool_result")]


def test_each_agent_follows_the_call_whose_progress_lists_its_calls(tmp_path: Path) -> None:
    s = read(_two_agents(tmp_path / "chats"))
    s1, s2 = f"subagent:{A1}", f"subagent:{A2}"
    assert _calls(s) == [
        ("tool_call", "agent", "inv-1"),
        ("tool_call", s1, f"{A1}#0-0"), ("tool_result", s1, f"{A1}#0-0"),
        ("tool_call", s1, f"{A1}#1-0"), ("tool_result", s1, f"{A1}#1-0"),
        ("tool_result", "agent", "inv-1"),
        ("tool_call", "agent", "inv-2"),
        ("tool_call", s2, f"{A2}#0-0"), ("tool_result", s2, f"{A2}#0-0"),
        ("tool_call", s2, f"{A2}#1-0"), ("tool_result", s2, f"{A2}#1-0"),
        ("tool_result", "agent", "inv-2"),
    ]
    assert [(e.actor, e.link) for e in s.events if e.link] == [
        ("agent", Link(subagent=A1, parent_thread_id=SID, parent_call_id="inv-1", link_rule=RULE)),  # its task
        (s1, Link(subagent=A1, parent_thread_id=SID, parent_call_id="inv-1", link_rule=RULE)),
        ("agent", Link(subagent=A2, parent_thread_id=SID, parent_call_id="inv-2", link_rule=RULE)),
        (s2, Link(subagent=A2, parent_thread_id=SID, parent_call_id="inv-2", link_rule=RULE))]
    assert [(a["id"], a["parent_call_id"], a["link_rule"]) for a in s.meta.extra["subagents"]] == [
        (A1, "inv-1", RULE), (A2, "inv-2", RULE)]
    assert warnings(s) == []


def test_the_model_s_own_call_ids_tie_the_browser_agent_to_its_call(tmp_path: Path) -> None:
    """The browser agent keeps its last 20 items; a model that names its calls gives ids with
    no agent id in them: the ids are still the chat's, exactly."""
    chats = tmp_path / "chats"
    shown = _progress("browser_agent", ("fc-7", "tool_call", "navigate_page"), ("fc-8", "tool_call", "complete_task"))
    main = _main(chats, _call("inv-1", "invoke_agent", {"agent_name": "browser_agent", "prompt": "Open the docs."},
                              "Browser agent finished.\nTermination Reason: GOAL\nResult:\ndone", 30, shown))
    _sub(chats, A1, "Your task is:\nOpen the docs.", 5, ids=("fc-7", "fc-8"))
    s = read(main)
    assert _calls(s)[:2] == [("tool_call", "agent", "inv-1"), ("tool_call", f"subagent:{A1}", "fc-7")]
    assert s.meta.extra["subagents"][0]["link_rule"] == RULE and warnings(s) == []


def test_a_call_naming_its_agent_keeps_the_agent_id_rule(tmp_path: Path) -> None:
    chats = tmp_path / "chats"
    main = _main(chats, _invoke("inv-1", "generalist", "Find it.", 30, _listing(A1, "generalist"), agent=A1))
    _sub(chats, A1, "Find it.", 5)
    s = read(main)
    assert s.meta.extra["subagents"][0]["link_rule"] == "toolCalls.agentId" and warnings(s) == []


@pytest.mark.parametrize("trouble", ["two calls list one agent", "one call lists two agents",
                                     "no call of the agent listed", "ids before May 2026"])
def test_a_listing_that_ties_no_one_agent_to_one_call_is_placed_by_time_and_said(
        tmp_path: Path, trouble: str) -> None:
    chats = tmp_path / "chats"
    if trouble == "two calls list one agent":
        calls = [_invoke("inv-1", "generalist", "a", 30, _listing(A1, "generalist")),
                 _invoke("inv-2", "generalist", "b", 31, _listing(A1, "generalist"))]
        why = {A1: "2 calls list its calls"}
    elif trouble == "one call lists two agents":  # the model's ids, the same in both chats
        calls = [_invoke("inv-1", "generalist", "a", 30, _progress("generalist", ("fc-1", "tool_call", "grep")))]
        why = {A1: "call inv-1 lists calls of 2 agents' chats", A2: "call inv-1 lists calls of 2 agents' chats"}
        _sub(chats, A2, "b", 3, ids=("fc-1", "fc-2"))
    elif trouble == "no call of the agent listed":  # the last 3 items were thoughts
        calls = [_invoke("inv-1", "generalist", "a", 30, _progress("generalist", ("t-1", "thought", "Error: x")))]
        why = {A1: "no call read names it or lists its calls"}
    else:  # items had ids of their own (randomUUID) until 2026-05-18
        calls = [_invoke("inv-1", "generalist", "a", 30, _progress(
            "generalist", ("0d1e2f3a-0000-4000-8000-00000000000a", "tool_call", "grep_search")))]
        why = {A1: "no call read names it or lists its calls"}
    main = _main(chats, *calls)
    _sub(chats, A1, "a", 5, ids=("fc-1", "fc-3") if trouble == "one call lists two agents" else None)
    s = read(main)
    assert all(e.link is None for e in s.events)
    assert [(w.code, w.file, w.message) for w in s.warnings] == [
        ("unlinked-subagent", CHATS(agent), f"subagent {agent}: {reason} (toolCalls.agentId, "
         "resultDisplay.recentActivity); its steps are placed by time without a causal link")
        for agent, reason in sorted(why.items())]


def test_the_trace_says_which_call_each_agent_worked_for(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from forsy.cli import app

    main = _two_agents(tmp_path / "chats")
    r = CliRunner().invoke(app, ["retrace", str(main), "-o", str(tmp_path / "out"), "--no-redact"])
    assert r.exit_code == 0, r.output
    [trace] = checked_traces(tmp_path / "out", main)  # validated, and every citation verified
    steps = trace["steps"]
    inv = {json.loads(st["input"])["agent_name"]: st["step"] for st in steps if st.get("tool") == "invoke_agent"}
    greps = [(st["actor"], st["causal_type"], st["caused_by"]) for st in steps if st.get("tool") == "grep_search"]
    assert greps == [(f"subagent:{A1}", "delegation_to_subagent", [inv["generalist"]]),
                     (f"subagent:{A2}", "delegation_to_subagent", [inv["codebase_investigator"]])]
    assert [(a["id"], a["parent_call_id"], a["link_rule"]) for a in trace["agent_config"]["subagents"]] == [
        (A1, "inv-1", RULE), (A2, "inv-2", RULE)]
