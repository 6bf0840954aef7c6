"""A Claude Code tool result and a system record read field by field.

A tool result's text is its content exactly when it is text; blocks are joined by newlines,
with a stated marker for each image or other block (then an excerpt); content of another kind is
said and kept as its JSON text. `is_error` is copied; of another kind it is said and read as not
known; absent, a `toolUseResult` text behind "Error:" makes it an error. What later rules read of
`toolUseResult` is kept (slimmed) and cited; a rejection is read from it or from the result's
words. A system record is a local command (the person's slash command, else a note), a compact
boundary (a note carrying its metadata) or a failed model call; other subtypes make nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _claude_events_view import marks, session_of, views, warnings
from _small_logs import _rec, call, user
from forsy.evidence import Session
from forsy.payloads import MessageInfo, NoteInfo, ResultInfo

TS2 = "2026-01-01T10:00:02.000Z"


def _result(tmp_path: Path, block: dict[str, Any], **fields: Any) -> tuple[Session, dict[str, Any]]:
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), call(1, "a1", "u1", "t1", "Bash", {"command": "ls"}),
                              {**_rec(2, "user", [{"type": "tool_result", "tool_use_id": "t1", **block}], "r1", "a1"),
                               **fields}])
    [e] = views(s)[2:]
    return s, e


def _ev(text: str, is_error: bool | None = False, info: ResultInfo | None = None, **more: Any) -> dict[str, Any]:
    out = {"kind": "tool_result", "actor": "agent", "ts": TS2, "refs": [(3, "/message/content/0/content")],
           "text": text, "call_id": "t1", "is_error": is_error, "info": info or ResultInfo(),
           "ts_ref": (3, "/timestamp"), **more}
    if is_error is None:
        del out["is_error"]
    return out


@pytest.mark.parametrize(("content", "text", "excerpt"), [
    ("a.py\n", "a.py\n", False),
    (..., "", False),
    (None, "", False),
    ([], "", False),
    ([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "a\nb", False),
    ([{"type": "text", "text": "a"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png"}}],
     "a\n[image omitted by forsy: image/png]", True),
    ([{"type": "image", "source": {"data": "x"}}], "[image omitted by forsy: unknown type]", True),
    ([{"type": "image", "source": "x"}], "[image omitted by forsy: unknown type]", True),
    ([{"type": "image"}], "[image omitted by forsy: unknown type]", True),
    ([{"type": "document", "source": {}}, {"type": "text", "text": 3}, "s"],
     "[non-text block omitted by forsy]\n[non-text block omitted by forsy]\n[non-text block omitted by forsy]",
     True),
    # the tools a tool search found: their names, whole; a reference with no name is omitted
    ([{"type": "tool_reference", "tool_name": "x"}, {"type": "tool_reference", "tool_name": "y"}], "x\ny", False),
    ([{"type": "tool_reference", "tool_name": 3}], "[non-text block omitted by forsy]", True),
])
def test_a_results_content_is_its_text(tmp_path: Path, content: Any, text: str, excerpt: bool) -> None:
    block = {} if content is ... else {"content": content}
    s, e = _result(tmp_path, block)
    assert e == ({**_ev(text), "excerpt": True} if excerpt else _ev(text))
    assert warnings(s) == []


@pytest.mark.parametrize(("content", "kind", "text"), [
    (5, "a number", "5"), ({"stdout": "é"}, "an object", '{"stdout":"é"}'), (True, "a boolean", "true")])
def test_content_of_another_kind_is_said_and_kept_as_json(tmp_path: Path, content: Any, kind: str, text: str) -> None:
    s, e = _result(tmp_path, {"content": content})
    assert warnings(s) == [("field-type", f"message.content[0].content is {kind}, not text or a list of blocks; "
                            "kept as its JSON text", "s.jsonl", 3)]
    assert e == _ev(text)


@pytest.mark.parametrize(("flag", "is_error"), [(True, True), (False, False), (..., False)])
def test_is_error_is_copied(tmp_path: Path, flag: Any, is_error: bool) -> None:
    s, e = _result(tmp_path, {"content": "x"} if flag is ... else {"content": "x", "is_error": flag})
    assert e == _ev("x", is_error)


@pytest.mark.parametrize(("flag", "kind"), [("yes", "a string"), (1, "a number"), ([], "a list")])
def test_is_error_of_another_kind_is_said_and_not_known(tmp_path: Path, flag: Any, kind: str) -> None:
    s, e = _result(tmp_path, {"content": "x", "is_error": flag}, toolUseResult="Error: no")
    assert warnings(s) == [("field-type", f"message.content[0].is_error is {kind}, not true/false; read as not "
                            "known", "s.jsonl", 3)]
    assert e == _ev("x", None, ResultInfo(rich="Error: no", rich_ref=e["info"].rich_ref))
    assert e["info"].rich_ref.pointer == "/toolUseResult"


@pytest.mark.parametrize(("flag", "rich", "is_error"), [
    (..., "Error: exit code 1", True),
    (False, "Error: exit code 1", False),
    (..., " Error: x", False),
    (..., "error: x", False),
    (..., {"stderr": "Error: x"}, False),
])
def test_a_failed_calls_tool_use_result_makes_it_an_error_when_the_flag_is_absent(
        tmp_path: Path, flag: Any, rich: Any, is_error: bool) -> None:
    block = {"content": "x"} if flag is ... else {"content": "x", "is_error": flag}
    s, e = _result(tmp_path, block, toolUseResult=rich)
    assert e["is_error"] is is_error


def _rich(tmp_path: Path, rich: Any, content: str = "x") -> ResultInfo:
    s, e = _result(tmp_path, {"content": content}, toolUseResult=rich)
    info = e["info"]
    assert isinstance(info, ResultInfo)
    assert info.rich_ref is not None
    assert s.evidence[info.rich_ref.ev].line == 3 and info.rich_ref.pointer == "/toolUseResult"
    return info


def test_tool_use_result_keeps_what_rules_read(tmp_path: Path) -> None:
    rich = {"type": "update", "filePath": "a.py", "structuredPatch": [{"lines": ["+x"]}], "agentId": "ag",
            "status": "completed", "interrupted": False, "exitCode": 0, "returnCodeInterpretation": "ok",
            "isImage": False, "backgroundTaskId": "b1", "userModified": True, "replaceAll": False,
            "content": "big file", "stdout": "out", "originalFile": "old"}
    info = _rich(tmp_path, rich)
    assert info.rich == {"type": "update", "filePath": "a.py", "structuredPatch": [{"lines": ["+x"]}],
                         "agentId": "ag", "status": "completed", "interrupted": False, "exitCode": 0,
                         "returnCodeInterpretation": "ok", "isImage": False, "backgroundTaskId": "b1",
                         "userModified": True, "replaceAll": False, "had_original": True}
    assert info.rejected is False


def test_tool_use_result_without_an_original_file_says_so(tmp_path: Path) -> None:
    assert _rich(tmp_path, {"type": "create", "originalFile": None}).rich == {"type": "create",
                                                                               "had_original": False}
    assert _rich(tmp_path, {"stdout": "x"}).rich == {}


def test_tool_use_result_text_is_kept_to_2000_characters_and_other_kinds_are_not_kept(tmp_path: Path) -> None:
    assert _rich(tmp_path, "é" * 2001).rich == "é" * 2000
    assert _rich(tmp_path, ["a"]).rich is None
    assert _rich(tmp_path, 0).rich is None


def test_no_tool_use_result_no_rich(tmp_path: Path) -> None:
    s, e = _result(tmp_path, {"content": "x"})
    assert e["info"] == ResultInfo()


@pytest.mark.parametrize(("rich", "content", "rejected"), [
    ("User rejected tool use", "x", True),
    ("Error: User rejected", "x", False),
    (None, "The user doesn't want to proceed with this tool use. The tool use was rejected.", True),
    (None, " The user doesn't want to proceed with this tool use.", False),
    ({"a": 1}, "The user doesn't want to proceed with this tool use.", True),
])
def test_a_rejection_is_read_from_the_tool_use_result_or_the_words(tmp_path: Path, rich: Any, content: str,
                                                                   rejected: bool) -> None:
    s, e = _result(tmp_path, {"content": content}, **({"toolUseResult": rich} if rich is not None else {}))
    assert e["info"].rejected is rejected


def test_a_result_id_that_is_no_text_is_said_and_kept_unlinked(tmp_path: Path) -> None:
    s = session_of(tmp_path, [user(0, "u1", None, "Go."),
                              _rec(1, "user", [{"type": "tool_result", "content": "x"}], "r1", "u1")])
    assert warnings(s) == [("field-type", "message.content[0].tool_use_id is null, not a string; the result is "
                            "kept unlinked", "s.jsonl", 2)]
    [e] = views(s)[1:]
    assert e == {"kind": "tool_result", "actor": "agent", "ts": "2026-01-01T10:00:01.000Z",
                 "refs": [(2, "/message/content/0/content")], "text": "x", "is_error": False, "info": ResultInfo(),
                 "ts_ref": (2, "/timestamp")}


def _system(n: int, subtype: Any, content: Any = ..., **more: Any) -> dict[str, Any]:
    r = {"type": "system", "uuid": f"y{n}", "parentUuid": "u1", "sessionId": "s-small",
         "timestamp": f"2026-01-01T10:00:{n:02d}.000Z", "level": "info", **more}
    if subtype is not ...:
        r["subtype"] = subtype
    if content is not ...:
        r["content"] = content
    return r


def _sys(tmp_path: Path, *recs: dict[str, Any]) -> tuple[Session, list[dict[str, Any]]]:
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), *recs])
    return s, views(s)[1:]


def _sev(kind: str, actor: str, text: str | None, info: Any, ptr: str = "/content", n: int = 1) -> dict[str, Any]:
    out = {"kind": kind, "actor": actor, "ts": f"2026-01-01T10:00:{n:02d}.000Z", "refs": [(n + 1, ptr)],
           "info": info, "ts_ref": (n + 1, "/timestamp")}
    if text is not None:
        out["text"] = text
    return out


def test_a_local_slash_command_is_the_line_the_person_typed(tmp_path: Path) -> None:
    s, evs = _sys(tmp_path, _system(1, "local_command", "<command-name>/model</command-name>\n"
                                    "<command-message>model</command-message>\n<command-args>opus</command-args>"))
    assert evs == [_sev("user", "user", "/model opus", MessageInfo(rule="slash-command"))]


def test_a_local_commands_output_is_a_note(tmp_path: Path) -> None:
    out = "<local-command-stdout>Set model to opus</local-command-stdout>"
    s, evs = _sys(tmp_path, _system(1, "local_command", out), _system(2, "local_command"),
                  _system(3, "local_command", "<bash-input>ls</bash-input>"))
    local = NoteInfo(subtype="local_command")
    assert evs == [_sev("note", "system", out, local), _sev("note", "system", "", local, n=2),
                   _sev("note", "system", "<bash-input>ls</bash-input>", local, n=3)]
    assert warnings(s) == []
    assert marks(s)[2] == ("set_aside", "notes are not steps", "local_command")


def test_system_content_that_is_no_text_is_said_and_read_as_empty(tmp_path: Path) -> None:
    s, evs = _sys(tmp_path, _system(1, "local_command", ["x"]))
    assert warnings(s) == [("unread-content", "system content is a list, not text; not read", "s.jsonl", 2)]
    assert evs == [_sev("note", "system", "", NoteInfo(subtype="local_command"))]


def test_a_compact_boundary_is_a_note_with_its_metadata(tmp_path: Path) -> None:
    meta: dict[str, Any] = {"trigger": "auto", "preTokens": 155000}
    s, evs = _sys(tmp_path, _system(1, "compact_boundary", "Conversation compacted", compactMetadata=meta),
                  _system(2, "compact_boundary"))
    assert evs == [_sev("note", "system", None, NoteInfo(subtype="compact_boundary", compact=meta), ""),
                   _sev("note", "system", None, NoteInfo(subtype="compact_boundary"), "", n=2)]
    assert marks(s)[2] == ("metadata", "compaction trigger", "compact_boundary")


def test_a_failed_model_call_is_an_agent_error(tmp_path: Path) -> None:
    s, evs = _sys(tmp_path, _system(1, "api_error", error={"message": "Overloaded"}))
    assert evs == [_sev("agent_text", "agent", "Overloaded", MessageInfo(api_error=True), "/error/message")]


@pytest.mark.parametrize("subtype", ["informational", "turn_duration", "init", "stop_hook_summary", ..., "other"])
def test_other_system_records_make_no_event(tmp_path: Path, subtype: Any) -> None:
    s, evs = _sys(tmp_path, _system(1, subtype, "<command-name>/x</command-name>"))
    assert evs == []
    assert warnings(s) == []


def test_a_subagents_local_command_makes_no_event_but_its_boundary_and_error_do(tmp_path: Path) -> None:
    side = {"isSidechain": True, "agentId": "ag1"}
    s = session_of(tmp_path, [
        user(0, "u1", None, "Go."),
        {**user(1, "s1", None, "Read."), **side},
        {**_system(2, "local_command", "<command-name>/x</command-name>"), "parentUuid": "s1", **side},
        {**_system(3, "compact_boundary"), "parentUuid": "y2", **side},
        {**_system(4, "api_error", content="Rate limited"), "parentUuid": "y3", **side},
    ])
    assert [(e.kind, e.actor, e.text, e.refs[0].pointer, e.info) for e in s.events[2:]] == [
        ("note", "system", None, "", NoteInfo(subtype="compact_boundary")),
        ("agent_text", "subagent:ag1", "Rate limited", "/content", MessageInfo(api_error=True))]


def test_a_system_record_without_a_time_has_none(tmp_path: Path) -> None:
    rec = _system(1, "local_command", "<command-name>/cost</command-name>")
    del rec["timestamp"]
    s, evs = _sys(tmp_path, rec)
    assert evs == [{"kind": "user", "actor": "user", "ts": None, "refs": [(2, "/content")], "text": "/cost",
                    "info": MessageInfo(rule="slash-command")}]


def test_system_records_on_a_rewound_branch_are_abandoned(tmp_path: Path) -> None:
    s = session_of(tmp_path, [
        user(0, "u0", None, "Start."),
        {**_rec(1, "assistant", [{"type": "text", "text": "Ready."}], "a0", "u0")},
        user(2, "u1", "a0", "Go."),
        {**_system(3, "local_command", "<command-name>/model</command-name>"), "parentUuid": "u1"},
        {**_system(4, "local_command", "<local-command-stdout>ok</local-command-stdout>"), "parentUuid": "y3"},
        {**_system(5, "compact_boundary"), "parentUuid": "y4"},
        {**_system(6, "api_error", content="Overloaded"), "parentUuid": "y5"},
        user(7, "u2", "a0", "Again."),
    ])
    assert [(e.kind, e.text, e.abandoned) for e in s.events] == [
        ("user", "Start.", False), ("agent_text", "Ready.", False), ("user", "Go.", True),
        ("user", "/model", True), ("note", "<local-command-stdout>ok</local-command-stdout>", True),
        ("note", None, True), ("agent_text", "Overloaded", True), ("user", "Again.", False)]
