"""Gemini CLI chats of lines (ChatRecordingService's JSONL) read whole: every line in the
ledger, the last write of a message at the place of its first, checkpoints, rewinds; the
user messages and the other message types, each event with every field compared.

Hand-written lines in the shapes chatRecordingService.ts writes (header, message records
written again as they change, `$set`, `$rewindTo`); expectations computed by hand."""

from __future__ import annotations

from pathlib import Path

from _gemini_view import ev, events, ledger, read, warnings, write_lines
from forsy.payloads import MessageInfo, NoteInfo
from forsy.sources.gemini._jsonl import CHECKPOINT_WHY, HEADER_WHY, REWIND_WHY, REWRITE_WHY, SET_WHY

T = "2026-01-01T00:00:0{}Z".format
HEAD = {"sessionId": "s-a", "projectHash": "h", "startTime": T(0), "lastUpdated": T(0)}


def test_lines_last_write_first_place_checkpoint_rewind_and_ledger(tmp_path: Path) -> None:
    p = write_lines(tmp_path / "session-a.jsonl", [
        {**HEAD, "mood": "x"},
        {"id": "u1", "timestamp": T(1), "type": "user", "content": [{"text": "first"}]},
        {"id": "g1", "timestamp": T(2), "type": "gemini", "content": "thinking out loud", "model": "m1"},
        {"$set": {"lastUpdated": T(2)}},
        {"id": "g1", "timestamp": T(2), "type": "gemini", "content": "done", "model": "m1", "tokens": {"total": 5}},
        {"$set": {"summary": "sum", "directories": ["/p"], "shade": 1, "mood": "y", "$x": 2, "messages": [
            {"id": "u1", "timestamp": T(1), "type": "user", "content": [{"text": "MASKED"}]},
            {"id": "c1", "timestamp": T(3), "type": "user", "content": [{"text": "compressed summary"}]},
            "not a message", {"type": "user", "content": "no id"},
            {"id": "c2", "timestamp": T(3), "type": "gemini", "content": "summary reply"}]}},
        {"id": "u2", "timestamp": T(4), "type": "user", "content": "second"},
        {"$rewindTo": "c1"},
        {"id": "u3", "timestamp": T(5), "type": "user", "content": "third"},
        {"what": "ever"},
        "7",
    ])
    s = read(p)
    assert s.session_id == "s-a"
    assert events(s) == [
        ev("user", "user", T(1), [(2, "/content/0/text")], text="first", ts_ref=(2, "/timestamp")),
        ev("agent_text", "agent", T(2), [(5, "/content")], text="done", ts_ref=(5, "/timestamp")),
        # turns only a checkpoint holds are the CLI's (chatRecordingService.updateMessagesFromHistory)
        ev("compaction", "system", T(3), [(6, "/$set/messages/1/content/0/text")], text="compressed summary",
           ts_ref=(6, "/$set/messages/1/timestamp"), abandoned=True, info=NoteInfo(subtype="checkpoint_turn")),
        ev("note", "system", T(3), [(6, "/$set/messages/4/content")], text="summary reply",
           ts_ref=(6, "/$set/messages/4/timestamp"), abandoned=True, info=NoteInfo(subtype="checkpoint_model_turn")),
        ev("user", "user", T(4), [(7, "/content")], text="second", ts_ref=(7, "/timestamp"), abandoned=True),
        ev("user", "user", T(5), [(9, "/content")], text="third", ts_ref=(9, "/timestamp")),
    ]
    assert ledger(s) == {
        1: ("metadata", HEADER_WHY, "header"),
        3: ("duplicate", REWRITE_WHY, "message"),
        4: ("metadata", SET_WHY, "$set"),
        6: ("metadata", CHECKPOINT_WHY, "$set"),
        8: ("metadata", REWIND_WHY, "$rewindTo"),
    }
    assert len(s.evidence) == 10  # every line but the one that is no object
    q = s.quality
    assert (q.records, q.unparsable_records, q.unknown_records, q.abandoned_events) == (11, 1, 1, 3)
    assert q.extra == {"checkpoint_messages": 2, "unknown_header_fields": 3}
    assert s.meta.extra == {"summary": "sum", "directories": ["/p"]}
    assert s.meta.models == ["m1"] and s.meta.token_usage == {"total": 5}
    assert warnings(s) == [
        ("unknown-record", "a line that is no message, header, $set or $rewindTo; skipped", "session-a.jsonl", 10),
        ("not-an-object", "line is JSON but not an object; skipped", "session-a.jsonl", 11),
        ("unknown-fields", "header or $set fields forsy does not know: mood, shade", "session-a.jsonl", None),
    ]


def _texts_abandoned(s: object) -> list[tuple[str, bool]]:
    return [(e.text, e.abandoned) for e in s.events]  # type: ignore[attr-defined]


def test_a_second_rewind_takes_back_only_what_is_still_live(tmp_path: Path) -> None:
    msgs = [{"id": i, "timestamp": T(1), "type": "user", "content": i} for i in "abcdef"]
    p = write_lines(tmp_path / "s.jsonl", [HEAD, *msgs[:3], {"$rewindTo": "b"}, msgs[3], msgs[4],
                                           {"$rewindTo": "e"}, msgs[5]])
    s = read(p)
    assert _texts_abandoned(s) == [("a", False), ("b", True), ("c", True), ("d", False), ("e", True),
                                   ("f", False)]
    assert s.quality.abandoned_events == 3 and s.quality.extra == {}
    assert s.warnings == []


def test_a_rewind_to_an_id_not_live_takes_back_every_live_message(tmp_path: Path) -> None:
    msgs = [{"id": i, "timestamp": T(1), "type": "user", "content": i} for i in "abc"]
    p = write_lines(tmp_path / "s.jsonl", [HEAD, msgs[0], msgs[1], {"$rewindTo": "a"}, {"$rewindTo": "zzz"},
                                           msgs[2]])
    s = read(p)
    assert _texts_abandoned(s) == [("a", True), ("b", True), ("c", False)]
    p = write_lines(tmp_path / "t.jsonl", [HEAD, msgs[0], msgs[1], {"$rewindTo": "zzz"}, msgs[2]])
    assert _texts_abandoned(read(p)) == [("a", True), ("b", True), ("c", False)]


def test_a_whole_record_on_one_line_and_a_later_write_of_one_of_its_messages(tmp_path: Path) -> None:
    """A legacy record written on one line (header with `messages`): its messages are read
    from inside it; one written again on its own line is read there, the record staying metadata."""
    first = {"sessionId": "s-l", "projectHash": "h", "summary": "old", "messages": [
        {"id": "m1", "timestamp": T(1), "type": "user", "content": "hi"},
        {"id": "m2", "timestamp": T(2), "type": "user", "content": "there"},
        {"id": "m1", "timestamp": T(1), "type": "user", "content": "copy"}, 3]}
    p = write_lines(tmp_path / "s.jsonl", [first, {"id": "m1", "timestamp": T(3), "type": "user", "content": "again"}])
    s = read(p)
    assert s.session_id == "s-l"
    assert events(s) == [
        ev("user", "user", T(3), [(2, "/content")], text="again", ts_ref=(2, "/timestamp")),
        ev("user", "user", T(2), [(1, "/messages/1/content")], text="there", ts_ref=(1, "/messages/1/timestamp")),
    ]
    assert ledger(s) == {1: ("metadata", HEADER_WHY, "header")}
    assert s.meta.extra == {"summary": "old"} and s.quality.extra == {} and s.warnings == []


def test_a_checkpoint_message_written_again_on_its_own_line(tmp_path: Path) -> None:
    p = write_lines(tmp_path / "s.jsonl", [
        HEAD,
        {"$set": {"messages": [{"id": "k", "timestamp": T(1), "type": "user", "content": "summary"}]}},
        {"id": "k", "timestamp": T(2), "type": "user", "content": "later"},
        {"id": "k", "timestamp": T(3), "type": "user", "content": "latest"},
    ])
    s = read(p)
    assert events(s) == [ev("user", "user", T(3), [(4, "/content")], text="latest", ts_ref=(4, "/timestamp"))]
    assert ledger(s) == {1: ("metadata", HEADER_WHY, "header"), 2: ("metadata", CHECKPOINT_WHY, "$set"),
                         3: ("duplicate", REWRITE_WHY, "message")}
    assert s.quality.extra == {"checkpoint_messages": 1}


def test_a_header_with_an_empty_session_id_names_the_session_by_its_file(tmp_path: Path) -> None:
    p = write_lines(tmp_path / "session-x9.jsonl", [{"sessionId": "", "projectHash": "h"},
                                                    {"id": "u", "type": "user", "content": "hi"}])
    s = read(p)
    assert s.session_id == "session-x9"
    assert events(s) == [ev("user", "user", None, [(2, "/content")], text="hi")]


def test_a_subagents_task_is_a_note_of_the_agent(tmp_path: Path) -> None:
    p = write_lines(tmp_path / "sub.jsonl", [
        {**HEAD, "kind": "subagent"},
        {"id": "s1", "timestamp": T(1), "type": "user", "content": [{"text": "find callers"}]},
    ])
    s = read(p)
    assert events(s) == [ev("note", "agent", T(1), [(2, "/content/0/text")], text="find callers",
                            ts_ref=(2, "/timestamp"), info=NoteInfo(subtype="subagent_input"))]
    assert ledger(s)[2] == ("set_aside", "the task the parent agent gave this subagent", "user")
    assert s.meta.extra == {"subagent": True}
    p = write_lines(tmp_path / "main.jsonl", [{**HEAD, "kind": "main"},
                                              {"id": "s1", "timestamp": T(1), "type": "user", "content": "hi"}])
    s = read(p)
    assert [e.kind for e in s.events] == ["user"] and s.meta.extra == {}


FR = {"functionResponse": {"id": "c", "name": "n", "response": {"output": "o"}}}


def test_user_messages_what_was_typed_what_the_cli_put_there(tmp_path: Path) -> None:
    p = write_lines(tmp_path / "u.jsonl", [
        HEAD,
        {"id": "u1", "timestamp": T(1), "type": "user", "content": [{"text": "raw @a.py"}, {"text": "--- a.py ---"}],
         "displayContent": [{"inlineData": {}}, {"text": "typed @a.py"}]},
        {"id": "u2", "timestamp": T(2), "type": "user", "content": "from content", "displayContent": " "},
        {"id": "u3", "timestamp": T(3), "type": "user", "content": ["plain part", {"text": "  "}, {"text": "second"}]},
        {"id": "u4", "timestamp": T(4), "type": "user", "content": [
            {"text": "<hook_context>h"}, {"text": "  <session_context>\ncwd: /p"}, {"text": "<other>y"}]},
        {"id": "u5", "timestamp": T(5), "type": "user", "content": ["lead", FR, {"text": "extra text"}]},
        {"id": "u6", "timestamp": T(6), "type": "user", "content": [FR]},
        {"id": "u7", "timestamp": T(7), "type": "user", "content": [{"inlineData": {"mimeType": "image/png"}}]},
        {"id": "u8", "timestamp": T(8), "type": "user", "content": 5},
        {"id": "u9", "timestamp": 7, "type": "user", "content": "untimed", "displayContent": None},
        {"id": "u10", "type": "user", "content": "no time"},
    ])
    s = read(p)
    assert events(s) == [
        ev("user", "user", T(1), [(2, "/displayContent/1/text")], text="typed @a.py", ts_ref=(2, "/timestamp")),
        ev("user", "user", T(2), [(3, "/content")], text="from content", ts_ref=(3, "/timestamp")),
        ev("user", "user", T(3), [(4, "/content/0")], text="plain part", ts_ref=(4, "/timestamp")),
        ev("user", "user", T(3), [(4, "/content/2/text")], text="second", ts_ref=(4, "/timestamp")),
        ev("note", "system", T(4), [(5, "/content/0/text")], text="<hook_context>h", ts_ref=(5, "/timestamp"),
           info=NoteInfo(subtype="hook_context")),
        ev("note", "system", T(4), [(5, "/content/1/text")], text="  <session_context>\ncwd: /p",
           ts_ref=(5, "/timestamp"), info=NoteInfo(subtype="session_context")),
        ev("user", "user", T(4), [(5, "/content/2/text")], text="<other>y", ts_ref=(5, "/timestamp")),
        ev("note", "system", T(5), [(6, "/content/0")], text="lead", ts_ref=(6, "/timestamp"),
           info=NoteInfo(subtype="tool_response_text")),
        ev("note", "system", T(5), [(6, "/content/2/text")], text="extra text", ts_ref=(6, "/timestamp"),
           info=NoteInfo(subtype="tool_response_text")),
        ev("user", "user", None, [(10, "/content")], text="untimed"),
        ev("user", "user", None, [(11, "/content")], text="no time"),
    ]
    assert ledger(s) == {
        1: ("metadata", HEADER_WHY, "header"),
        5: ("set_aside", "<session_context> injected by the CLI, not typed", "user"),
        6: ("set_aside", "tool responses sent to the model (the calls' results hold them); the text with them is "
            "a note", "user:functionResponse"),
        7: ("duplicate", "tool responses sent to the model (the calls' results hold them)", "user:functionResponse"),
        8: ("set_aside", "a user message with no text (an image or file)", "user"),
    }
    assert warnings(s) == [
        ("field-type", "a user message has no text content; skipped", "u.jsonl", 9),
        ("field-type", "timestamp is int, not text; read as absent", "u.jsonl", 10),
    ]
    assert s.quality.unknown_records == 0 and s.quality.extra == {} and s.meta.extra == {}


def test_other_message_types_interrupt_api_error_notes_unknown(tmp_path: Path) -> None:
    cancelled = "Request cancelled."
    p = write_lines(tmp_path / "o.jsonl", [
        HEAD,
        {"id": "i1", "timestamp": T(1), "type": "info", "content": cancelled},
        {"id": "e1", "timestamp": T(2), "type": "error", "content": "[API Error: quota]"},
        {"id": "i2", "timestamp": T(3), "type": "info", "content": "Switched model"},
        {"id": "w1", "timestamp": T(4), "type": "warning", "content": [{"text": "a"}, {"text": "b"}]},
        {"id": "e2", "timestamp": T(5), "type": "error", "content": "Boom"},
        {"id": "e3", "timestamp": T(6), "type": "error", "content": ["[API Error: x"]},
        {"id": "x1", "timestamp": T(7), "type": "telepathy"},
        {"id": "x2", "type": 5},
        {"id": "i3", "timestamp": T(8), "type": "warning", "content": cancelled},
        {"id": "e4", "timestamp": T(9), "type": "error", "content": "see [API Error: later"},
    ])
    s = read(p)
    note = "a notice the CLI showed ({}), a note".format
    assert events(s) == [
        ev("interrupt", "user", T(1), [(2, "/content")], text=cancelled, ts_ref=(2, "/timestamp"),
           info=NoteInfo(subtype="request_cancelled", reason=cancelled)),
        ev("agent_text", "agent", T(2), [(3, "/content")], text="[API Error: quota]", ts_ref=(3, "/timestamp"),
           info=MessageInfo(api_error=True)),
        ev("note", "system", T(3), [(4, "/content")], text="Switched model", ts_ref=(4, "/timestamp"),
           info=NoteInfo(subtype="cli_info")),
        ev("note", "system", T(4), [(5, "/content/0/text")], text="a", ts_ref=(5, "/timestamp"),
           info=NoteInfo(subtype="cli_warning")),
        ev("note", "system", T(4), [(5, "/content/1/text")], text="b", ts_ref=(5, "/timestamp"),
           info=NoteInfo(subtype="cli_warning")),
        ev("note", "system", T(5), [(6, "/content")], text="Boom", ts_ref=(6, "/timestamp"),
           info=NoteInfo(subtype="cli_error")),
        ev("note", "system", T(6), [(7, "/content/0")], text="[API Error: x", ts_ref=(7, "/timestamp"),
           info=NoteInfo(subtype="cli_error")),
        ev("note", "system", T(8), [(10, "/content")], text=cancelled, ts_ref=(10, "/timestamp"),
           info=NoteInfo(subtype="cli_warning")),
        ev("note", "system", T(9), [(11, "/content")], text="see [API Error: later", ts_ref=(11, "/timestamp"),
           info=NoteInfo(subtype="cli_error")),
    ]
    assert ledger(s) == {
        1: ("metadata", HEADER_WHY, "header"),
        2: ("set_aside", "the user cancelled the request (an interrupt: the next request's causal note, or the "
            "trace's termination)", "info"),
        4: ("set_aside", note("info"), "info"),
        5: ("set_aside", note("warning"), "warning"),
        6: ("set_aside", note("error"), "error"),
        7: ("set_aside", note("error"), "error"),
        10: ("set_aside", note("warning"), "warning"),
        11: ("set_aside", note("error"), "error"),
    }
    assert warnings(s) == [
        ("unknown-record", "message type 'telepathy' is not one forsy knows; skipped", "o.jsonl", 8),
        ("field-type", "type is int, not text; read as absent", "o.jsonl", 9),
        ("unknown-record", "message type None is not one forsy knows; skipped", "o.jsonl", 9),
    ]
    assert s.quality.unknown_records == 2
