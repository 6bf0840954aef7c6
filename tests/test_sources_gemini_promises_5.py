"""Gemini CLI reading, the rest: fields a newer CLI writes counted across messages, a `.json`
chat's events whole, the project's logs.json named from the input root, too big or damaged,
a chat of lines none of whose lines parses. Hand-written files; expectations by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _gemini_view import ev, events, read, warnings, write_lines
from forsy.errors import InputError
from forsy.sources import ReadContext
from forsy.sources.gemini import GeminiSource
from forsy.sources.lines import Limits

T = "2026-01-01T00:00:0{}Z".format


def test_fields_a_newer_cli_writes_are_counted_across_messages(tmp_path: Path) -> None:
    p = write_lines(tmp_path / "d.jsonl", [
        {"sessionId": "s", "projectHash": "h"},
        {"id": "a", "type": "user", "content": "x", "grounding": 1},
        {"id": "b", "type": "gemini", "content": "y", "grounding": 2, "toolCalls": [
            {"id": "c", "name": "ls", "args": {}, "durationMs": 3, "status": "success",
             "result": [{"functionResponse": {"response": {"output": "o"}}}]}, "not a call"]},
    ])
    s = read(p)
    assert s.meta.extra["unknown_fields"] == {"grounding": 2, "toolCalls.durationMs": 1}
    assert s.quality.extra["unknown_fields"] == 3


def test_a_json_chats_events_whole(tmp_path: Path) -> None:
    p = tmp_path / "session-j.json"
    p.write_text('{\n"sessionId": "s-j", "projectHash": "h", "messages": [\n'
                 + json.dumps({"id": "u", "timestamp": T(1), "type": "user", "content": "hi"}) + "\n]}\n")
    s = read(p)
    assert events(s) == [ev("user", "user", T(1), [(3, "/content")], text="hi", ts_ref=(3, "/timestamp"))]
    assert s.events[0].abandoned is False and s.quality.abandoned_events == 0


CHAT = [{"sessionId": "s-1", "projectHash": "h"},
        {"id": "u1", "timestamp": T(1), "type": "user", "content": "first"}]


def test_the_projects_logs_are_named_from_the_input_root(tmp_path: Path) -> None:
    chat = write_lines(tmp_path / "p" / "chats" / "session-1.jsonl", CHAT)
    (tmp_path / "p" / "logs.json").write_text(json.dumps([
        {"sessionId": "s-1", "type": "user", "message": "/x", "timestamp": T(2)}]))
    [s] = GeminiSource().read(chat, ReadContext(root=tmp_path))
    assert [f.path for f in s.files] == ["p/chats/session-1.jsonl", "p/logs.json"]
    assert [(e.text, s.evidence[e.refs[0].ev].source) for e in s.events] == [
        ("first", "p/chats/session-1.jsonl"), ("/x", "p/logs.json")]


def test_logs_json_too_big_to_read_is_said_so(tmp_path: Path) -> None:
    chat = write_lines(tmp_path / "chats" / "session-1.jsonl", CHAT)
    logs = tmp_path / "logs.json"
    logs.write_text(json.dumps([{"sessionId": "s-1", "type": "user", "message": "x" * 500}]))
    cap = chat.stat().st_size + 10
    [s] = GeminiSource().read(chat, ReadContext(root=tmp_path, limits=Limits(max_file_bytes=cap)))
    [(code, message, file, line)] = warnings(s)
    assert (code, file, line) == ("logs-json-unreadable", "logs.json", None)
    assert message.startswith(f"logs.json could not be read (is {logs.stat().st_size} bytes, more than the {cap}-byte "
                              "limit")  # named, never by a path of this machine
    assert [e.text for e in s.events] == ["first"] and len(s.files) == 1


def test_damaged_logs_json_beside_a_chat_is_reported(tmp_path: Path) -> None:
    chat = write_lines(tmp_path / "chats" / "session-1.jsonl", CHAT)
    (tmp_path / "logs.json").write_text(
        '[\n{"sessionId": "s-1", "type": "user", "message": "/x", "timestamp": "2026-01-01T00:00:02Z"},\n{bad\n]')
    [s] = GeminiSource().read(chat, ReadContext(root=tmp_path))
    assert [e.text for e in s.events] == ["first", "/x"]
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("unparsable-element", "logs.json", 3)]


def test_a_chat_of_lines_none_of_which_parses(tmp_path: Path) -> None:
    p = tmp_path / "session-q.jsonl"
    p.write_text('{"sessionId": }\n')
    s = read(p)
    assert (s.session_id, s.events, s.quality.records, s.quality.unparsable_records) == ("session-q", [], 0, 1)


def test_what_a_reading_names_its_kind_its_file_its_limits(tmp_path: Path) -> None:
    chat = write_lines(tmp_path / "session-1.jsonl", CHAT)
    s = read(chat)
    assert (s.source_kind, s.meta.agent) == ("gemini", "gemini-cli")
    assert [(f.path, f.abs_path, f.kind, f.bytes) for f in s.files] == [
        ("session-1.jsonl", str(chat.resolve()), "gemini", chat.stat().st_size)]
    with pytest.raises(InputError):
        GeminiSource().read(chat, ReadContext(root=tmp_path, limits=Limits(max_file_bytes=10)))
    logs = tmp_path / "x" / "logs.json"
    logs.parent.mkdir()
    logs.write_bytes(b'\xef\xbb\xbf\n [{"sessionId": "a", "type": "user", "message": "hi"}]')
    [s] = GeminiSource().read(logs, ReadContext(root=logs.parent))
    assert (s.session_id, [e.text for e in s.events], s.source_kind) == ("a", ["hi"], "gemini")


def test_a_json_chat_whose_messages_is_no_list_says_so(tmp_path: Path) -> None:
    """`messages` that is an object or a string: nothing is read, and a warning says why
    (it was read as a chat with no warning at all)."""
    p = tmp_path / "session-m.json"
    p.write_text('{\n"sessionId": "s-m", "projectHash": "h", "messages": {"id": "u", "type": "user"}}')
    s = read(p)
    assert s.events == [] and warnings(s) == [
        ("no-messages", "the chat's messages is dict, not a list; nothing read", "session-m.json", None)]


def test_a_chat_of_lines_after_a_bom_and_its_unknown_lines_counted(tmp_path: Path) -> None:
    p = tmp_path / "session-b.jsonl"
    p.write_bytes(b'\xef\xbb\xbf{"sessionId": "s-b", "projectHash": "h"}\n'
                  b'{"id": "u", "type": "user", "content": "hi"}\n{"what": 1}\n{"what": 2}\n')
    s = read(p)
    assert (s.session_id, [e.text for e in s.events], s.quality.unknown_records) == ("s-b", ["hi"], 2)


def test_logs_json_fields_that_are_no_text_are_read_as_absent(tmp_path: Path) -> None:
    """A sessionId, message or timestamp that is a list or an object in logs.json was an
    internal error (compared as a key, it cannot be one): each is read as absent."""
    odd = [["s-1"], {"id": "s-1"}]
    logs = tmp_path / "alone" / "logs.json"
    logs.parent.mkdir()
    logs.write_text(json.dumps([{"sessionId": odd[0], "type": "user", "message": "a", "timestamp": T(1)},
                                {"sessionId": "s-2", "type": "user", "message": odd[1], "timestamp": T(2)},
                                {"sessionId": "s-2", "type": "user", "message": "b", "timestamp": odd[0]}]))
    got = GeminiSource().read(logs, ReadContext(root=logs.parent))
    assert [(s.session_id, [(e.text, e.ts) for e in s.events]) for s in got] == [
        ("unknown", [("a", T(1))]), ("s-2", [("b", None)])]
    chat = write_lines(tmp_path / "p" / "chats" / "session-1.jsonl", CHAT)
    (tmp_path / "p" / "logs.json").write_text(json.dumps([
        {"sessionId": odd[1], "type": "user", "message": "/x", "timestamp": T(2)},
        {"sessionId": "s-1", "type": "user", "message": odd[0], "timestamp": T(3)},
        {"sessionId": "s-1", "type": "user", "message": "first", "timestamp": odd[1]}]))
    [s] = GeminiSource().read(chat, ReadContext(root=tmp_path))
    assert [e.text for e in s.events] == ["first"]  # the third confirms the chat's; the second has no text
    assert [w.code for w in s.warnings] == ["unknown-record"]
