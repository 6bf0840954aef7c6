"""Gemini CLI subagents (sources/gemini/_subagents.py), built by hand from the writer at
google-gemini/gemini-cli commit 5411f113cafae26161b4969b0237b8e1e024e2c2: a subagent's chat, kept
under `chats/<main session id>/<agent id>.jsonl` (chatRecordingService.ts), is read with its main
chat; its work follows the call that ran it (`toolCalls[].agentId`, geminiChat.ts), linked to
it; what cannot be linked or read is said, never dropped in silence; the sweep and the
folder walk take it for a part of the main chat's session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _gemini_view import read, warnings, write_lines
from _oracle import checked_traces
from _sweep_at import age, sweep_at
from forsy.payloads import Link, NoteInfo
from forsy.sources import ReadContext, available
from forsy.sources.gemini import GeminiSource
from forsy.sources.lines import Limits
from forsy.sources.walk import discover_tree
from forsy.store import Store

SID = "5b959dae-0c4f-4d39-9c55-2f0e6a1d7e10"
T = "2026-05-04T10:{:02d}:00.000Z".format


def _head(sid: str, kind: str | None = None) -> dict[str, Any]:
    h = {"sessionId": sid, "projectHash": "h", "startTime": T(0), "lastUpdated": T(0)}
    return {**h, "kind": kind} if kind else h


def _call(cid: str, name: str, args: dict[str, Any], out: str, minute: int, agent: str | None = None
          ) -> dict[str, Any]:
    tc = {"id": cid, "name": name, "args": args, "status": "success", "timestamp": T(minute),
          "result": [{"functionResponse": {"id": cid, "name": name, "response": {"output": out}}}]}
    return {**tc, "agentId": agent} if agent else tc


def _turn(mid: str, minute: int, *calls: dict[str, Any], text: str = "") -> dict[str, Any]:
    return {"id": mid, "timestamp": T(minute), "type": "gemini", "content": text, "model": "gemini-2.5-pro",
            "toolCalls": list(calls)}


def _user(mid: str, minute: int, text: str) -> dict[str, Any]:
    return {"id": mid, "timestamp": T(minute), "type": "user", "content": [{"text": text}]}


def _main(chats: Path, *turns: dict[str, Any]) -> Path:
    return write_lines(chats / f"session-2026-05-04T10-00-{SID[:8]}.jsonl",
                       [_head(SID), _user("m1", 1, "Find the callers of parse_args."), *turns])


def _sub(chats: Path, agent: str, *turns: dict[str, Any], task: str = "List the callers of parse_args.") -> Path:
    return write_lines(chats / SID / f"{agent}.jsonl", [_head(agent, "subagent"), _user("s1", 3, task), *turns])


def _investigate(minute: int, agent: str | None) -> dict[str, Any]:
    # the parent's call is recorded when it completes: after the subagent's work (its timestamp)
    return _turn("m2", 2, _call("inv-1", "codebase_investigator", {"objective": "callers"}, "cli.py, main.py",
                                minute, agent))


def _grep(minute: int) -> dict[str, Any]:
    return _turn("s2", 4, _call("grep-1", "grep_search", {"pattern": "parse_args"}, "cli.py:3", minute))


def _kinds(s: Any) -> list[tuple[str, str, str | None]]:
    return [(e.kind, e.actor, e.call_id or e.text) for e in s.events]


def test_a_subagents_work_follows_the_call_that_ran_it_and_is_linked_to_it(tmp_path: Path) -> None:
    chats = tmp_path / "chats"
    main = _main(chats, _investigate(9, "ag-1"), _turn("m3", 10, text="Two callers."))
    _sub(chats, "ag-1", _grep(5))
    s = read(main)
    sub = "subagent:ag-1"
    assert _kinds(s) == [
        ("user", "user", "Find the callers of parse_args."),
        ("tool_call", "agent", "inv-1"),
        ("note", "agent", "List the callers of parse_args."),  # the task: the spawning agent's words
        ("tool_call", sub, "grep-1"), ("tool_result", sub, "grep-1"),
        ("tool_result", "agent", "inv-1"),
        ("agent_text", "agent", "Two callers."),
    ]
    link = Link(subagent="ag-1", parent_thread_id=SID, parent_call_id="inv-1", link_rule="toolCalls.agentId")
    assert [e.link for e in s.events] == [None, None, link, link, None, None, None]
    assert isinstance(s.events[2].info, NoteInfo) and s.events[2].info.subtype == "subagent_input"
    assert [f.path for f in s.files] == [main.name, f"{SID}/ag-1.jsonl"]
    assert s.meta.extra["subagents"] == [{
        "id": "ag-1", "actor": sub, "file": f"{SID}/ag-1.jsonl", "parent_thread_id": SID, "parent_call_id": "inv-1",
        "link_rule": "toolCalls.agentId", "models": ["gemini-2.5-pro"], "token_usage": {}}]
    assert s.quality.records == 4 + 3 and warnings(s) == []  # the lines of both chats
    assert "subagent" not in s.meta.extra  # the main chat is no subagent's


def test_a_call_a_subagent_was_refused_is_read_from_its_error_alone(tmp_path: Path) -> None:
    """local-executor.ts records only the calls it scheduled: one the subagent may not use, or
    whose arguments do not parse, is only an error in the responses it sends back (with the
    scheduled calls' own). Read as a call of that name (no arguments: the log holds none) that
    failed; the scheduled call's response stays its record's."""
    chats = tmp_path / "chats"
    main = _main(chats, _investigate(9, "ag-1"), _turn("m3", 10, text="Two callers."))
    refused = {"id": "s3", "timestamp": T(6), "type": "user", "content": [
        {"functionResponse": {"id": "ag-1#1-1", "name": "run_shell_command",
                              "response": {"error": "Unauthorized tool call: 'run_shell_command' is not available."}}},
        {"functionResponse": {"id": "grep-1", "name": "grep_search", "response": {"output": "cli.py:3"}}}]}
    _sub(chats, "ag-1", _grep(5), refused)
    s = read(main)
    sub = "subagent:ag-1"
    assert _kinds(s)[3:7] == [("tool_call", sub, "grep-1"), ("tool_result", sub, "grep-1"),
                              ("tool_call", sub, "ag-1#1-1"), ("tool_result", sub, "ag-1#1-1")]
    call, result = s.events[5], s.events[6]
    assert (call.tool, call.args, result.is_error) == ("run_shell_command", None, True)
    assert result.text == "Unauthorized tool call: 'run_shell_command' is not available."
    # the same response in the main chat (whose scheduler records every call) is no new call
    main2 = _main(tmp_path / "main2" / "chats", _turn("m2", 2), {**refused, "id": "m4"})
    assert [e.kind for e in read(main2).events] == ["user"]


def test_the_trace_says_the_work_was_delegated_and_cites_both_chats(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from forsy.cli import app

    chats = tmp_path / "chats"
    main = _main(chats, _investigate(9, "ag-1"), _turn("m3", 10, text="Two callers."))
    _sub(chats, "ag-1", _grep(5))
    r = CliRunner().invoke(app, ["retrace", str(main), "-o", str(tmp_path / "out"), "--no-redact"])
    assert r.exit_code == 0, r.output
    [trace] = checked_traces(tmp_path / "out", main)  # validated, and every citation verified
    steps = trace["steps"]
    grep = next(st for st in steps if st.get("tool") == "grep_search")
    inv = next(st for st in steps if st.get("tool") == "codebase_investigator")
    assert grep["actor"] == "subagent:ag-1" and grep["causal_type"] == "delegation_to_subagent"
    assert grep["caused_by"] == [inv["step"]]
    # the answer after it used what the subagent found, whatever the tool that ran it is called
    assert (steps[-1]["causal_type"], steps[-1]["caused_by"]) == ("used_subagent_result", [inv["step"]])
    [folder] = [t.parent for t in (tmp_path / "out").rglob("trace.json")]
    ledger = json.loads((folder / "manifest.json").read_text("utf-8"))["ledger"]
    # every line of both chats accounted for
    assert [(f["path"], f["records_read"], f["totals"]["unknown"]) for f in ledger] == [
        (main.name, 4, 0), (f"{SID}/ag-1.jsonl", 3, 0)]


def test_a_subagents_own_subagent_follows_the_call_in_the_subagents_chat(tmp_path: Path) -> None:
    chats = tmp_path / "chats"
    main = _main(chats, _investigate(9, "ag-1"))
    _sub(chats, "ag-1", _turn("s2", 4, _call("deep-1", "generalist", {"task": "read cli.py"}, "read", 7, "ag-2")))
    _sub(chats, "ag-2", _turn("t2", 5, _call("read-1", "read_file", {"path": "cli.py"}, "text", 6)),
         task="Read cli.py.")
    s = read(main)
    assert _kinds(s)[1:] == [
        ("tool_call", "agent", "inv-1"),
        ("note", "agent", "List the callers of parse_args."),
        ("tool_call", "subagent:ag-1", "deep-1"),
        ("note", "subagent:ag-1", "Read cli.py."),  # given by the subagent that ran it
        ("tool_call", "subagent:ag-2", "read-1"), ("tool_result", "subagent:ag-2", "read-1"),
        ("tool_result", "subagent:ag-1", "deep-1"),
        ("tool_result", "agent", "inv-1"),
    ]
    deep = next(e for e in s.events if e.actor == "subagent:ag-2")
    assert deep.link == Link(subagent="ag-2", parent_thread_id="ag-1", parent_call_id="deep-1",
                             link_rule="toolCalls.agentId")


def test_the_subagent_of_one_no_call_names_still_follows_its_call(tmp_path: Path) -> None:
    chats = tmp_path / "chats"
    main = _main(chats, _investigate(9, None))
    _sub(chats, "ag-1", _turn("s2", 4, _call("deep-1", "generalist", {"task": "read cli.py"}, "read", 7, "ag-2")))
    _sub(chats, "ag-2", _turn("t2", 5, _call("read-1", "read_file", {"path": "cli.py"}, "text", 6)),
         task="Read cli.py.")
    s = read(main)
    assert [(w.code, w.file) for w in s.warnings] == [("unlinked-subagent", f"{SID}/ag-1.jsonl")]
    calls = [(e.actor, e.call_id) for e in s.events if e.kind in ("tool_call", "tool_result")]
    i = calls.index(("subagent:ag-1", "deep-1"))
    assert calls[i + 1:i + 4] == [("subagent:ag-2", "read-1"), ("subagent:ag-2", "read-1"),
                                  ("subagent:ag-1", "deep-1")]
    assert next(e for e in s.events if e.actor == "subagent:ag-2").link == Link(
        subagent="ag-2", parent_thread_id="ag-1", parent_call_id="deep-1", link_rule="toolCalls.agentId")


def test_a_subagent_no_call_names_is_placed_by_time_and_said(tmp_path: Path) -> None:
    # before April 2026 the call recorded no agentId
    chats = tmp_path / "chats"
    main = _main(chats, _investigate(9, None))
    _sub(chats, "ag-1", _grep(5))
    s = read(main)
    # the call began when its message asked for it (T2); its result came when it completed (T9)
    assert [(e.kind, e.actor, e.ts) for e in s.events] == [
        ("user", "user", T(1)), ("tool_call", "agent", T(2)), ("note", "agent", T(3)),
        ("tool_call", "subagent:ag-1", T(4)), ("tool_result", "subagent:ag-1", T(5)),
        ("tool_result", "agent", T(9))]
    assert all(e.link is None for e in s.events)
    assert [(w.code, w.file) for w in s.warnings] == [("unlinked-subagent", f"{SID}/ag-1.jsonl")]
    assert s.meta.extra["subagents"][0]["parent_call_id"] is None


@pytest.mark.parametrize("trouble", ["too big", "cycle", "self", "same id"])
def test_an_odd_folder_loses_nothing_in_silence_and_ends(tmp_path: Path, trouble: str) -> None:
    chats = tmp_path / "chats"
    main = _main(chats, _investigate(9, "ag-1"))
    limits = Limits()
    if trouble == "too big":  # a chat that cannot be read: its main chat is read all the same
        _sub(chats, "ag-1", _grep(5), task="x" * 5000)
        limits = Limits(max_file_bytes=main.stat().st_size + 100)
    elif trouble == "cycle":  # two chats naming each other, neither named by the main chat
        main = _main(chats, _investigate(9, None))
        _sub(chats, "ag-1", _turn("s2", 4, _call("c1", "generalist", {}, "x", 5, "ag-2")))
        _sub(chats, "ag-2", _turn("t2", 4, _call("c2", "generalist", {}, "x", 5, "ag-1")))
    elif trouble == "self":  # a subagent naming itself
        _sub(chats, "ag-1", _turn("s2", 4, _call("c1", "generalist", {}, "x", 5, "ag-1")))
    else:  # two chats under one agent id
        _sub(chats, "ag-1", _grep(5))
        write_lines(chats / SID / "zz-copy.jsonl", [_head("ag-1", "subagent"), _user("s1", 3, "again")])
    [s] = GeminiSource().read(main, ReadContext(root=chats, limits=limits))
    codes = [w.code for w in s.warnings]
    events = {e.kind for e in s.events}
    if trouble == "too big":
        assert codes == ["subagent_unreadable"], codes
        assert s.warnings[0].message.startswith("a subagent's chat could not be read, its events are not here: ")
        assert s.warnings[0].file == f"{SID}/ag-1.jsonl"
        assert len(s.files) == 1 and all(not e.actor.startswith("subagent") for e in s.events)
    elif trouble == "cycle":  # the first is placed by time, the other follows its call
        assert codes == ["unlinked-subagent"]
        assert "ag-1: the call naming it is in a chat not reached" in s.warnings[0].message
        assert next(e for e in s.events if e.actor == "subagent:ag-2").link == Link(
            subagent="ag-2", parent_thread_id="ag-1", parent_call_id="c1", link_rule="toolCalls.agentId")
    elif trouble == "self":
        assert codes == [] and [e.call_id for e in s.events if e.kind == "tool_call"] == ["inv-1", "c1"]
    else:
        assert codes == ["subagent_id_reused"] and len(s.files) == 3
        assert "again" not in [e.text for e in s.events]
    assert "tool_call" in events


def test_the_folder_walk_and_discover_take_a_subagents_chat_for_a_part_of_its_session(tmp_path: Path) -> None:
    chats = tmp_path / "proj" / "chats"
    main = _main(chats, _investigate(9, "ag-1"))
    sub = _sub(chats, "ag-1", _grep(5))
    alone = write_lines(chats / "0d5c0f3e-0000-4000-8000-000000000000" / "ag-9.jsonl",
                        [_head("ag-9", "subagent"), _user("s1", 3, "Orphaned task.")])
    src = GeminiSource()
    assert src.discover(tmp_path) == [alone, main]  # one whose main chat is gone is read on its own
    assert (src.session_of(sub), src.session_of(alone), src.session_of(main)) == (main, None, None)
    tree = discover_tree(tmp_path, available())
    assert sorted(p for _, p in tree.found) == [alone, main] and tree.unrecognised == []


def test_a_new_subagent_chat_makes_the_sweep_retrace_its_session(tmp_path: Path, store: Store) -> None:
    chats = tmp_path / "logs" / "chats"
    main = _main(chats, _investigate(9, "ag-1"))
    age([main], 86400)
    first = sweep_at(store, tmp_path / "logs")
    assert (first.counts.new, first.counts.traced) == (1, 1)
    sub = _sub(chats, "ag-1", _grep(5))
    age([sub], 3600)
    again = sweep_at(store, tmp_path / "logs")
    assert again.counts.traced == 1 and again.counts.new == 0
    states = store.file_states([str(tmp_path / "logs")])
    assert states[str(sub)].unit_path == str(main)

