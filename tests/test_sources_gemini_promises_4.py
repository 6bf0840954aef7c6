"""Gemini CLI files found and told apart: what the sniffer takes (a chat of lines by its
header, a `.json` chat by its first 4 KiB, logs.json by name and keys), what a folder
gives, and a `.json` chat (before 2026) read: its session id, its damage reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _gemini_view import read, warnings, write_lines
from forsy.errors import InputError
from forsy.sources import ReadContext
from forsy.sources.gemini import GeminiSource

SNIFF = GeminiSource().sniff
P = Path("session-1.json")


def at_offset(key: bytes, offset: int, rest: bytes, first: bytes = b"{\n") -> bytes:
    """JSON whose `key` (quoted) starts at byte `offset`, `rest` after it (no chat of lines:
    its first line is `first`)."""
    pad = offset - len(first + b'"pad": "') - len(b'", ')
    return first + b'"pad": "' + b"x" * pad + b'", ' + key + b": 1, " + rest + b"}"


def test_sniff_a_chat_of_lines_by_its_header() -> None:
    assert SNIFF(P, b'\xef\xbb\xbf \t\r\n{"sessionId": "s", "projectHash": "h"}\n{"id": "u"}\n')
    assert SNIFF(P, b'{"sessionId": "s", "projectHash": "h"}\n{bad\n')
    assert not SNIFF(P, b'{"sessionId": "s", "projectHash": "h", "type": "user"}\n')  # Claude Code's lines
    assert not SNIFF(P, b'{"sessionId": "s", "projectHash": 5}\n')
    assert not SNIFF(P, b'{"sessionId": "s"}\n')
    assert not SNIFF(P, b'{"sessionId": }\n')


def test_sniff_a_json_chat_by_its_first_4_kib() -> None:
    assert SNIFF(P, b'{\n "sessionId": "s",\n "projectHash": "h",\n "messages": []}')
    assert SNIFF(P, b'{\n "sessionId": "s",\n "startTime": "t",\n "messages": []}')
    assert not SNIFF(P, b'{\n "sessionId": "s",\n "messages": []}')
    assert not SNIFF(P, b'{\n "sessionId": "s",\n "projectHash": "h"}')
    def json_at(key: bytes, offset: int, other: bytes) -> bytes:
        return at_offset(key, offset, b'"messages": []', first=b"{\n" + other + b', ')

    assert SNIFF(P, json_at(b'"sessionId"', 4085, b'"projectHash": "h"'))  # its last byte is the 4096th
    assert not SNIFF(P, json_at(b'"sessionId"', 4086, b'"projectHash": "h"'))
    assert SNIFF(P, json_at(b'"projectHash"', 4083, b'"sessionId": "s"'))
    assert not SNIFF(P, json_at(b'"projectHash"', 4084, b'"sessionId": "s"'))
    assert SNIFF(P, json_at(b'"startTime"', 4085, b'"sessionId": "s"'))
    assert not SNIFF(P, json_at(b'"startTime"', 4086, b'"sessionId": "s"'))


def test_sniff_logs_json_by_its_name_and_keys() -> None:
    logs = Path("logs.json")
    assert SNIFF(logs, b'[\n {"sessionId": "s", "messageId": 0}]')
    assert not SNIFF(Path("other.json"), b'[\n {"sessionId": "s", "messageId": 0}]')
    assert not SNIFF(logs, b'[\n {"sessionId": "s"}]') and not SNIFF(logs, b'[\n {"messageId": 0}]')
    def logs_at(key: bytes, offset: int, other: bytes) -> bytes:
        return at_offset(key, offset, b'"x": 0', first=b"[\n{" + other + b": 0, ") + b"]"

    assert logs_at(b'"sessionId"', 4085, b'"messageId"').index(b'"sessionId"') == 4085
    assert SNIFF(logs, logs_at(b'"sessionId"', 4085, b'"messageId"'))
    assert not SNIFF(logs, logs_at(b'"sessionId"', 4086, b'"messageId"'))
    assert SNIFF(logs, logs_at(b'"messageId"', 4085, b'"sessionId"'))
    assert not SNIFF(logs, logs_at(b'"messageId"', 4086, b'"sessionId"'))


def test_discover_a_file_and_a_folder_whose_logs_add_nothing(tmp_path: Path) -> None:
    chat = write_lines(tmp_path / "chats" / "session-1.jsonl", [{"sessionId": "s-1", "projectHash": "h"}])
    other = write_lines(tmp_path / "notes.jsonl", [{"hello": 1}])
    src = GeminiSource()
    assert src.discover(chat) == [chat] and src.discover(other) == [] and src.discover(tmp_path / "nope") == []
    logs = tmp_path / "logs.json"
    logs.write_text(json.dumps([{"sessionId": "s-1", "messageId": 0, "type": "user", "message": "hi"}]))
    assert src.discover(tmp_path) == [chat]
    logs.write_text(json.dumps([{"sessionId": "s-1", "messageId": 0}, {"sessionId": "s-2", "messageId": 0}]))
    assert src.discover(tmp_path) == [chat, logs]


def test_a_json_chat_its_id_its_file_its_damage(tmp_path: Path) -> None:
    p = tmp_path / "session-7.json"
    p.write_text('{"sessionId": 5, "projectHash": "h", "messages": [\n'
                 '{"id": "u1", "type": "user", "content": "hi"},\n'
                 '3,\n'
                 '{"id": "u2", "type": "user", "content": "cut"}\n')
    s = read(p)
    assert s.session_id == "session-7"
    assert [(f.path, f.kind) for f in s.files] == [("session-7.json", "gemini")]
    assert [(e.text, s.evidence[e.refs[0].ev].line) for e in s.events] == [("hi", 2), ("cut", 4)]
    assert [(w.code, w.file, w.line) for w in s.warnings] == [
        ("not-an-object", "session-7.json", 3), ("truncated", "session-7.json", 5)]  # where the file ends
    assert warnings(s)[0][1] == "element is int, not an object; skipped"
    assert (s.quality.records, s.quality.unparsable_records) == (3, 1)
    p.write_text('{\n"sessionId": "", "messages": []}')
    assert read(p).session_id == "session-7"


def test_a_json_chat_without_messages_is_said_so(tmp_path: Path) -> None:
    p = tmp_path / "session-8.json"
    p.write_text('{\n"sessionId": "s-8", "projectHash": "h"}')
    s = read(p)
    assert s.session_id == "s-8" and s.events == []
    assert warnings(s) == [("no-messages", "the chat has no messages list", "session-8.json", None)]
    p.write_text('{\n"sessionId": "s-8", "messages": [\n{"id": "u", "type": "user", "content": "x"}]}')
    assert read(p).warnings == []
    p.write_text('{\n"sessionId": "s-8", "messages": [\n7]}')
    assert [w.code for w in read(p).warnings] == ["not-an-object"]
    p.write_text('{\n"sessionId": "s-8", "messages": []}')  # how the writer starts every chat
    assert warnings(read(p)) == [("no-messages", "the chat's messages list is empty", "session-8.json", None)]
    p.write_text('{\n"sessionId": "s-8", "messages": [\n')  # cut inside the list: said once, as cut
    assert [w.code for w in read(p).warnings] == ["truncated"]


def test_what_is_no_chat_is_refused_with_its_path(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_text('"a string"')
    with pytest.raises(InputError) as e:
        GeminiSource().read(p, ReadContext(root=tmp_path))
    assert (e.value.message, e.value.path) == ("not a Gemini CLI chat: not a JSON object with a messages list", str(p))


def test_a_chats_session_id_is_the_first_named_in_its_head(tmp_path: Path) -> None:
    """discover and logs.json read alone ask which session a chat holds: the first
    `sessionId` of its first 4 KiB (a later `$set` may name another)."""
    from forsy.sources.gemini.source import _chat_id

    def chat_id(text: bytes) -> str | None:
        p = tmp_path / "c.jsonl"
        p.write_bytes(text)
        return _chat_id(p)

    assert chat_id(b'{"sessionId" : "a", "projectHash": "h"}\n{"$set": {"sessionId": "b"}}\n') == "a"
    assert chat_id(b'{"sessionId": 5}\n') is None
    assert chat_id(b'{"projectHash": "h"}\n') is None
    assert chat_id(b'{"sessionId": "a\xff"}\n') == "a\ufffd"
    assert chat_id(b'{"pad": "' + b"x" * 4096 + b'", "sessionId": "late"}\n') is None
    assert _chat_id(tmp_path / "missing.jsonl") is None
    chat = write_lines(tmp_path / "p" / "chats" / "session-1.jsonl",
                       [{"sessionId": "a", "projectHash": "h"}, {"$set": {"sessionId": "b"}}])
    logs = tmp_path / "p" / "logs.json"
    logs.write_text('[\n{"sessionId": "a", "messageId": 0},\n{bad\n]')
    assert GeminiSource().discover(tmp_path / "p") == [chat]


def test_logs_alone_skip_a_session_whose_chat_is_beside_them(tmp_path: Path) -> None:
    write_lines(tmp_path / "session-c.jsonl", [{"sessionId": "c", "projectHash": "h"}])
    logs = tmp_path / "logs.json"
    logs.write_text(json.dumps([{"sessionId": "a", "messageId": 0, "type": "user", "message": "x"},
                                {"sessionId": "c", "messageId": 0, "type": "user", "message": "y"}]))
    [s] = GeminiSource().read(logs, ReadContext(root=tmp_path))
    assert s.session_id == "a" and [e.text for e in s.events] == ["x"]
    assert [w.code for w in s.warnings] == ["logs-json-with-chat"]
