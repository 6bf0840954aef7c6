"""A Claude Code assistant message read block by block, every field of every event it makes.

Each block is one event in block order, all sharing the message's id as their group, the
record's time (cited at /timestamp) and its abandoned flag: text is `agent_text`, thinking with
words is `reasoning`, thinking without words (or redacted) is an `encrypted_reasoning` note,
tool_use is a `tool_call` (MCP names as mcp:server.tool with the name as written kept), a
server-side tool result is a `tool_result`. A call or result id that is no text is said and the
event kept unlinked; a call id used twice is said with both lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _claude_events_view import marks, session_of, views, warnings
from _small_logs import _rec, answer, user
from forsy.payloads import CallInfo, MessageInfo, NoteInfo

TS0, TS1, TS2 = "2026-01-01T10:00:00.000Z", "2026-01-01T10:00:01.000Z", "2026-01-01T10:00:02.000Z"
GO = {"kind": "user", "actor": "user", "ts": TS0, "refs": [(1, "/message/content")], "text": "Go.",
      "ts_ref": (1, "/timestamp")}


def _one(tmp_path: Path, content: Any, **fields: Any) -> tuple[Any, list[dict[str, Any]]]:
    rec = {**_rec(1, "assistant", content, "a1", "u1"), **fields}
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), rec])
    v = views(s)
    assert v[0] == GO
    return s, v[1:]


def _ev(kind: str, ptr: str, **more: Any) -> dict[str, Any]:
    return {"kind": kind, "actor": "agent", "ts": TS1, "refs": [(2, ptr)], **more, "ts_ref": (2, "/timestamp")}


def test_every_kind_of_block_is_one_event_in_order(tmp_path: Path) -> None:
    s, evs = _one(tmp_path, [
        {"type": "thinking", "thinking": "Plan it.", "signature": "sig"},
        {"type": "thinking", "thinking": " \n", "signature": "sig"},
        {"type": "thinking", "signature": "sig"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
        {"type": "tool_use", "id": "t2", "name": "mcp__git__status", "input": {"short": True}},
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "s1", "content": "no results"},
    ])
    enc = NoteInfo(subtype="encrypted_reasoning")
    assert evs == [
        _ev("reasoning", "/message/content/0/thinking", text="Plan it.", group="msg_a1"),
        _ev("note", "/message/content/1", group="msg_a1", info=enc),
        _ev("note", "/message/content/2", group="msg_a1", info=enc),
        _ev("note", "/message/content/3", group="msg_a1", info=enc),
        _ev("agent_text", "/message/content/4/text", text="Looking.", group="msg_a1"),
        {**_ev("tool_call", "/message/content/5/input", call_id="t1", tool="Bash", args={"command": "ls"},
               group="msg_a1"), "name_ref": (2, "/message/content/5/name")},
        _ev("tool_call", "/message/content/6/input", call_id="t2", tool="mcp:git.status", args={"short": True},
            group="msg_a1", info=CallInfo(raw_name="mcp__git__status")),
        {**_ev("tool_call", "/message/content/7/input", call_id="s1", tool="web_search", args={"query": "q"},
               group="msg_a1", info=CallInfo(server_side=True)), "name_ref": (2, "/message/content/7/name")},
        _ev("tool_result", "/message/content/8/content", text="no results", call_id="s1", is_error=False),
    ]
    assert warnings(s) == []
    assert s.quality.encrypted_reasoning == 3
    assert marks(s)[2] == ("set_aside", "notes are not steps", "encrypted_reasoning")


def test_thinking_that_is_no_text_is_said_and_kept_as_an_encrypted_note(tmp_path: Path) -> None:
    s, evs = _one(tmp_path, [{"type": "thinking", "thinking": ["x"]}, {"type": "text", "text": "Done."}])
    assert warnings(s) == [("unread-content", "message.content[0].thinking is a list, not text; not read",
                            "s.jsonl", 2)]
    assert evs == [_ev("note", "/message/content/0", group="msg_a1", info=NoteInfo(subtype="encrypted_reasoning")),
                   _ev("agent_text", "/message/content/1/text", text="Done.", group="msg_a1")]


def test_a_text_message_given_as_a_string_cites_the_content(tmp_path: Path) -> None:
    s, evs = _one(tmp_path, "All done.")
    assert evs == [_ev("agent_text", "/message/content", text="All done.", group="msg_a1")]
    assert warnings(s) == []


def test_an_api_error_message_is_synthetic_and_an_api_error(tmp_path: Path) -> None:
    s, evs = _one(tmp_path, [{"type": "text", "text": "API Error: 529 overloaded"}], isApiErrorMessage=True)
    assert evs == [_ev("agent_text", "/message/content/0/text", text="API Error: 529 overloaded", group="msg_a1",
                       info=MessageInfo(synthetic=True, api_error=True))]


def test_a_synthetic_model_message_is_synthetic_not_an_api_error(tmp_path: Path) -> None:
    rec = _rec(1, "assistant", [{"type": "text", "text": "No response requested."}], "a1", "u1")
    rec["message"]["model"] = "<synthetic>"
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), rec])
    assert views(s)[1:] == [_ev("agent_text", "/message/content/0/text", text="No response requested.",
                                group="msg_a1", info=MessageInfo(synthetic=True))]
    assert s.meta.models == []


def test_a_plain_message_carries_no_info(tmp_path: Path) -> None:
    s, evs = _one(tmp_path, [{"type": "text", "text": "Done."}], isApiErrorMessage=False)
    assert evs == [_ev("agent_text", "/message/content/0/text", text="Done.", group="msg_a1")]


def test_a_message_with_no_id_groups_by_its_uuid_and_one_with_no_time_has_none(tmp_path: Path) -> None:
    rec = _rec(1, "assistant", [{"type": "text", "text": "A."}, {"type": "tool_use", "id": "t1", "name": "Read",
                                                                  "input": {"file_path": "a"}}], "a1", "u1")
    del rec["message"]["id"], rec["timestamp"]
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), rec])
    assert views(s)[1:] == [
        {"kind": "agent_text", "actor": "agent", "ts": None, "refs": [(2, "/message/content/0/text")], "text": "A.",
         "group": "a1"},
        {"kind": "tool_call", "actor": "agent", "ts": None, "refs": [(2, "/message/content/1/input")],
         "call_id": "t1", "tool": "Read", "args": {"file_path": "a"}, "group": "a1",
         "name_ref": (2, "/message/content/1/name")}]


@pytest.mark.parametrize(("name", "tool"), [
    ("mcp__srv__a__b", "mcp:srv.a__b"),
    ("mcp__srv", "mcp__srv"),
    ("mcp____x", "mcp____x"),
    ("xmcp__a__b", "xmcp__a__b"),
])
def test_mcp_names(tmp_path: Path, name: str, tool: str) -> None:
    s, [e] = _one(tmp_path, [{"type": "tool_use", "id": "t1", "name": name, "input": {}}])
    renamed = {"info": CallInfo(raw_name=name)} if tool != name else {"name_ref": (2, "/message/content/0/name")}
    assert e == {**_ev("tool_call", "/message/content/0/input", call_id="t1", tool=tool, args={}, group="msg_a1"),
                 **renamed}


def test_a_server_call_with_an_mcp_name_keeps_both_facts(tmp_path: Path) -> None:
    s, [e] = _one(tmp_path, [{"type": "server_tool_use", "id": "s1", "name": "mcp__w__find", "input": None}])
    assert e == _ev("tool_call", "/message/content/0/input", call_id="s1", tool="mcp:w.find", group="msg_a1",
                    info=CallInfo(raw_name="mcp__w__find", server_side=True))


@pytest.mark.parametrize(("cid", "kind"), [(None, "null"), (7, "a number"), (["t"], "a list")])
def test_a_call_id_that_is_no_text_is_said_and_the_call_kept_unlinked(tmp_path: Path, cid: Any, kind: str) -> None:
    block: dict[str, Any] = {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}
    if cid is not None:
        block["id"] = cid
    s, [e] = _one(tmp_path, [block])
    assert warnings(s) == [("field-type", f"message.content[0].id is {kind}, not a string; the call is kept "
                            "unlinked", "s.jsonl", 2)]
    assert e == {**_ev("tool_call", "/message/content/0/input", tool="Bash", args={"command": "ls"},
                       group="msg_a1"), "name_ref": (2, "/message/content/0/name")}


def test_a_server_result_id_that_is_no_text_is_said_and_the_result_kept_unlinked(tmp_path: Path) -> None:
    s, [e] = _one(tmp_path, [{"type": "web_search_tool_result", "tool_use_id": 5, "content": "x"}])
    assert warnings(s) == [("field-type", "message.content[0].tool_use_id is a number, not a string; the result "
                            "is kept unlinked", "s.jsonl", 2)]
    assert e == _ev("tool_result", "/message/content/0/content", text="x", is_error=False)


def test_a_server_result_without_an_id_is_an_unread_block(tmp_path: Path) -> None:
    s, evs = _one(tmp_path, [{"type": "web_search_tool_result", "content": "x"}])
    assert evs == []
    assert warnings(s) == [("unread-content", "message.content[0] is a 'web_search_tool_result' block, a kind "
                            "forsy does not read; not read", "s.jsonl", 2)]


def test_a_call_id_used_twice_is_said_with_both_lines(tmp_path: Path) -> None:
    s = session_of(tmp_path, [
        user(0, "u1", None, "Go."),
        _rec(1, "assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}], "a1", "u1"),
        _rec(2, "assistant", [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {}},
                              {"type": "tool_use", "id": "t1", "name": "Read", "input": {}}], "a2", "a1"),
        _rec(3, "assistant", [{"type": "tool_use", "id": "t1", "name": "Grep", "input": {}}], "a3", "a2"),
    ])
    assert warnings(s) == [
        ("duplicate-call-id", "tool_use id 't1' was already used at line 2; both calls are kept, a result can be "
         "linked to only one of them", "s.jsonl", 3),
        ("duplicate-call-id", "tool_use id 't1' was already used at line 2; both calls are kept, a result can be "
         "linked to only one of them", "s.jsonl", 4)]
    assert [(e.tool, e.call_id) for e in s.events if e.kind == "tool_call"] == [
        ("Bash", "t1"), ("Bash", "t2"), ("Read", "t1"), ("Grep", "t1")]


def test_calls_without_ids_are_no_duplicates(tmp_path: Path) -> None:
    s = session_of(tmp_path, [
        user(0, "u1", None, "Go."),
        _rec(1, "assistant", [{"type": "tool_use", "name": "Bash", "input": {}},
                              {"type": "tool_use", "name": "Bash", "input": {}}], "a1", "u1")])
    assert [w.code for w in s.warnings] == ["field-type", "field-type"]


def test_a_rewound_message_marks_every_event_abandoned(tmp_path: Path) -> None:
    s = session_of(tmp_path, [
        user(0, "u0", None, "Start."),
        answer(1, "a0", "u0", "Ready."),
        user(2, "u1", "a0", "Go."),
        _rec(3, "assistant", [{"type": "thinking", "thinking": "Hm."}, {"type": "redacted_thinking"},
                              {"type": "thinking", "thinking": ""},
                              {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}},
                              {"type": "web_search_tool_result", "tool_use_id": "t1", "content": []},
                              {"type": "text", "text": "Old."}], "a1", "u1"),
        user(4, "u2", "a0", "Again."),
        answer(5, "a2", "u2", "New."),
    ])
    assert [(e.kind, e.abandoned) for e in s.events] == [
        ("user", False), ("agent_text", False), ("user", True), ("reasoning", True), ("note", True), ("note", True),
        ("tool_call", True), ("tool_result", True), ("agent_text", True), ("user", False), ("agent_text", False)]
    assert s.quality.abandoned_events == 7
    assert s.events[7].text == "[]"
