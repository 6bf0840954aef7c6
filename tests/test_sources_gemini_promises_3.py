"""Gemini CLI's logs.json (logger.ts: `{sessionId, messageId, type, message, timestamp}` per
entry): read alone, one session of prompts per sessionId whose chat is not beside it; read
with a chat, its prompts confirm the chat's, the ones the chat lacks are added at their time.
Hand-written files; expectations computed by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _gemini_view import at, ev, events, warnings, write_lines
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.gemini import GeminiSource

T = "2026-01-01T00:00:0{}Z".format
UNKNOWN = "a logs.json entry that is not a user message with text; skipped"


def write_array(path: Path, elements: list[Any], tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[\n" + ",\n".join(json.dumps(e) for e in elements) + tail + "\n]\n", "utf-8")
    return path


def marks(s: Session) -> dict[tuple[str, int | None], tuple[str, str, str | None]]:
    return {(s.evidence[k].source, s.evidence[k].line): (m.heading, m.name, m.subtype) for k, m in s.ledger.items()}


def test_logs_alone_one_session_per_id_without_its_chat(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write_lines(proj / "chats" / "session-c.jsonl", [{"sessionId": "c", "projectHash": "h"}])
    logs = write_array(proj / "logs.json", [
        {"sessionId": "a", "messageId": 0, "type": "user", "message": "one", "timestamp": T(1)},
        {"sessionId": "b", "messageId": 0, "type": "user", "message": "two", "timestamp": 7},
        {"sessionId": "a", "messageId": 1, "type": "model", "message": "x", "timestamp": T(2)},
        {"messageId": 2, "type": "user", "message": "anon"},
        {"sessionId": "", "type": "user", "message": 5},
        {"sessionId": "c", "type": "user", "message": "has chat", "timestamp": T(3)},
    ], tail=",\n{bad")
    a, b, unknown = GeminiSource().read(logs, ReadContext(root=proj))
    assert [x.session_id for x in (a, b, unknown)] == ["a", "b", "unknown"]
    assert events(a) == [ev("user", "user", T(1), [(2, "/message")], text="one", ts_ref=(2, "/timestamp"))]
    assert events(b) == [ev("user", "user", None, [(3, "/message")], text="two")]
    assert events(unknown) == [ev("user", "user", None, [(5, "/message")], text="anon")]
    assert [(x.quality.records, x.quality.unknown_records, x.quality.unparsable_records) for x in (a, b, unknown)] \
        == [(2, 1, 1), (1, 0, 0), (2, 1, 0)]
    assert [sorted(e.line for e in x.evidence.values()) for x in (a, b, unknown)] == [[2, 4], [3], [5, 6]]
    assert [(w.code, w.line) for w in a.warnings] == [("unknown-record", 4), ("logs-json-with-chat", None),
                                                      ("unparsable-element", 8)]
    assert warnings(a)[:2] == [
        ("unknown-record", UNKNOWN, "logs.json", 4),
        ("logs-json-with-chat", "1 session(s) of this logs.json have their chat beside it and are read with it "
         "(retrace the chat or the project folder)", "logs.json", None)]
    assert warnings(b) == [] and warnings(unknown) == [("unknown-record", UNKNOWN, "logs.json", 6)]
    assert all(x.meta.agent == "gemini-cli" and [f.path for f in x.files] == ["logs.json"] for x in (a, b, unknown))


def test_logs_alone_whose_every_session_has_its_chat_are_still_read(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write_lines(proj / "session-c.jsonl", [{"sessionId": "c", "projectHash": "h"}])
    logs = write_array(proj / "logs.json", [{"sessionId": "c", "type": "user", "message": "hi", "timestamp": T(1)}])
    [s] = GeminiSource().read(logs, ReadContext(root=proj))
    assert s.session_id == "c" and [e.text for e in s.events] == ["hi"] and s.warnings == []
    assert (s.quality.unparsable_records, s.quality.unknown_records) == (0, 0)
    empty = write_array(tmp_path / "e" / "logs.json", [])
    [s] = GeminiSource().read(empty, ReadContext(root=empty.parent))
    assert (s.session_id, s.events, s.quality.records, s.warnings) == ("logs", [], 0, [])
    assert [f.path for f in s.files] == ["logs.json"] and s.quality.unparsable_records == 0


def _chat(path: Path) -> Path:
    return write_lines(path, [
        {"sessionId": "s-1", "projectHash": "h"},
        {"id": "u1", "timestamp": T(1), "type": "user", "content": "first"},
        {"id": "g1", "timestamp": T(2), "type": "gemini", "content": "ok"},
        {"id": "u2", "timestamp": T(9), "type": "user", "content": "third"},
    ])


PROJECT_LOGS = [
    {"sessionId": "s-1", "messageId": 0, "type": "user", "message": "first", "timestamp": T(1)},
    {"sessionId": "s-1", "messageId": 1, "type": "user", "message": "third", "timestamp": T(8)},
    {"sessionId": "s-1", "messageId": 2, "type": "user", "message": "/stats", "timestamp": T(5)},
    {"sessionId": "s-1", "messageId": 3, "type": "user", "message": "/quit"},
    {"sessionId": "s-1", "messageId": 4, "type": "model", "message": "m", "timestamp": T(6)},
    {"sessionId": "s-2", "messageId": 0, "type": "user", "message": "other", "timestamp": T(3)},
]


def test_a_chat_in_chats_reads_the_projects_logs_beside_that_folder(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    chat = _chat(proj / "chats" / "session-1.jsonl")
    logs = write_array(proj / "logs.json", PROJECT_LOGS)
    [s] = GeminiSource().read(chat, ReadContext(root=chat.parent))
    name = "gemini-project:logs.json"
    assert [(e.kind, e.text, e.ts, [(s.evidence[r.ev].source, s.evidence[r.ev].line) for r in e.refs])
            for e in s.events] == [
        ("user", "first", T(1), [("session-1.jsonl", 2)]),
        ("agent_text", "ok", T(2), [("session-1.jsonl", 3)]),
        ("user", "/stats", T(5), [(name, 4)]),
        ("user", "third", T(9), [("session-1.jsonl", 4)]),
        ("user", "/quit", None, [(name, 5)]),
    ]
    added = [e for e in s.events if e.text in ("/stats", "/quit")]
    assert [(at(s, e.ts_ref), e.actor, e.refs[0].pointer) for e in added] == [
        ((4, "/timestamp"), "user", "/message"), (None, "user", "/message")]
    assert s.quality.extra == {"logs_json_confirmed": 2, "logs_json_added": 2}
    assert marks(s) == {("session-1.jsonl", 1): marks(s)[("session-1.jsonl", 1)],
                        (name, 2): ("duplicate", "a prompt the chat holds (logs.json confirms it)", "logs.json"),
                        (name, 3): ("duplicate", "a prompt the chat holds (logs.json confirms it)", "logs.json")}
    assert sorted((e.source, e.line) for e in s.evidence.values() if e.source == name) == [
        (name, 2), (name, 3), (name, 4), (name, 5)]
    assert warnings(s) == [("unknown-record", UNKNOWN, name, 6)]
    data = logs.read_bytes()
    assert [(f.path, f.abs_path, f.kind, f.bytes) for f in s.files[1:]] == [
        (name, str(logs.resolve()), "gemini", len(data))]
    assert GeminiSource().read_back(name, [chat.parent]) == data
    assert GeminiSource().read_back(name, [proj]) == data  # the project folder holding chats/, given as the logs
    assert GeminiSource().read_back(name, [proj / "other"]) is None  # a logs.json beside a folder not chats/
    assert GeminiSource().read_back("logs.json", [chat.parent]) is None


def test_a_chat_given_with_its_project_names_logs_json_by_its_path(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    chat = _chat(proj / "chats" / "session-1.jsonl")
    write_array(proj / "logs.json", PROJECT_LOGS)
    [s] = GeminiSource().read(chat, ReadContext(root=proj))
    assert [f.path for f in s.files] == ["chats/session-1.jsonl", "logs.json"]
    assert [e.text for e in s.events] == ["first", "ok", "/stats", "third", "/quit"]


def test_logs_json_outside_the_root_and_not_gemini_s_place_are_not_read(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    chat = _chat(proj / "other" / "session-1.jsonl")
    logs = write_array(proj / "logs.json", PROJECT_LOGS)
    [s] = GeminiSource().read(chat, ReadContext(root=chat.parent))
    assert [e.text for e in s.events] == ["first", "ok", "third"] and len(s.files) == 1
    assert warnings(s) == [("logs-json-outside-root", f"{logs} is outside the input root; its prompts were not read "
                            "(give the project folder to read them)", "logs.json", None)]
    assert s.quality.extra == {}


def test_logs_json_beside_the_chat_and_one_without_its_session(tmp_path: Path) -> None:
    chat = _chat(tmp_path / "a" / "session-1.jsonl")
    write_array(tmp_path / "a" / "logs.json", [{"sessionId": "s-9", "type": "user", "message": "x"}])
    write_array(tmp_path / "logs.json", PROJECT_LOGS)  # the first one found is the one read
    [s] = GeminiSource().read(chat, ReadContext(root=chat.parent))
    assert [e.text for e in s.events] == ["first", "ok", "third"] and len(s.files) == 1 and s.quality.extra == {}
    write_array(tmp_path / "a" / "logs.json", PROJECT_LOGS[:1])
    [s] = GeminiSource().read(chat, ReadContext(root=chat.parent))
    assert [f.path for f in s.files] == ["session-1.jsonl", "logs.json"] and s.quality.extra == {
        "logs_json_confirmed": 1}


def test_logs_alone_count_each_skipped_session_and_each_unknown_entry(tmp_path: Path) -> None:
    write_lines(tmp_path / "session-c.jsonl", [{"sessionId": "c", "projectHash": "h"}])
    write_lines(tmp_path / "chats" / "session-d.jsonl", [{"sessionId": "d", "projectHash": "h"}])
    logs = write_array(tmp_path / "logs.json", [
        {"sessionId": "a", "type": "model", "message": "x"}, {"sessionId": "a", "type": "user", "message": None},
        {"sessionId": "c", "type": "user", "message": "y"}, {"sessionId": "d", "type": "user", "message": "z"}])
    [s] = GeminiSource().read(logs, ReadContext(root=tmp_path))
    assert (s.session_id, s.events, s.quality.unknown_records) == ("a", [], 2)
    assert warnings(s)[-1] == ("logs-json-with-chat", "2 session(s) of this logs.json have their chat beside it and "
                               "are read with it (retrace the chat or the project folder)", "logs.json", None)


def test_an_added_prompt_goes_after_the_events_of_its_own_time(tmp_path: Path) -> None:
    chat = _chat(tmp_path / "session-1.jsonl")
    # the person typed what the model had just said, in the same second: a prompt of its own
    write_array(tmp_path / "logs.json", [{"sessionId": "s-1", "type": "user", "message": "ok", "timestamp": T(2)}])
    [s] = GeminiSource().read(chat, ReadContext(root=tmp_path))
    assert [(e.kind, e.text) for e in s.events] == [("user", "first"), ("agent_text", "ok"), ("user", "ok"),
                                                    ("user", "third")]
