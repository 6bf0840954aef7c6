"""chat.py's promises: each chat message becomes the events its module docstring names, each value
cited at its exact JSON pointer (content, one text part, arguments or their `input`, metadata
times), calls of one message in one group, a tool output without `tool_call_id` linked to the last
call with a warning; everything skipped is a warning naming the file, line and element, counted
as unknown. And the document plumbing: what `unreadable` says of a document, `parsed` keeping
integers past 64 bits exact, `load_doc` naming the file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from forsy.evidence import Event, Evidence, ReadingWarning, Ref, Session, SessionMeta
from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.chat import (
    ChatState,
    Doc,
    chat_events,
    chat_message,
    load_doc,
    new_session,
    one_text,
    parsed,
    unreadable,
)
from forsy.sources.lines import Limits

SRC = "chats/c.json"


def _session() -> tuple[Session, str]:
    s = Session("openai_chat", "c", [], {}, [], SessionMeta())
    ev = s.add_evidence(Evidence.make(SRC, 3, 0, b"{}", hashlib.sha256(b"{}").hexdigest(), "conversation"))
    return s, ev


MSGS: list[Any] = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": [{"type": "text", "text": "hi"}], "metadata": {"started_at": "T1"}},
    {"role": "assistant", "content": "ok", "metadata": {"actor": "agent:x", "started_at": "T2"}, "tool_calls": [
        {"id": "c1", "function": {"name": "ls", "arguments": '{"a":1}'}},
        {"function": {"name": "cat", "arguments": '{"a": 1}'}, "metadata": {"started_at": "T3", "actor": "sub"}},
        {"function": {"arguments": "{}"}},
        "junk",
        {"id": "c4", "function": {"name": "w", "arguments": {"input": "raw text"}}, "metadata": {"raw_input": True}},
        {"id": "c5", "function": {"name": "n", "arguments": {"x": 1}}, "metadata": {"no_input": True}},
        {"id": "c6", "function": {"name": "t", "arguments": "not json"}},
        {"id": "c7", "function": {"name": "u", "arguments": "[1]"}},
        {"id": "c8", "function": {"name": "v", "arguments": {"input": "x"}}, "metadata": {"raw_input": "yes"}},
    ]},
    {"role": "tool", "tool_call_id": "c1", "content": "out", "metadata": {"success": False, "ended_at": "T4"}},
    {"role": "tool", "content": "o2", "metadata": {"success": True, "actor": "runner"}},
    {"role": "tool", "tool_call_id": "c6", "content": None, "metadata": {"success": "no"}},
    {"role": "system", "content": "mid", "metadata": {"started_at": "T5"}},
    {"role": "system", "content": "compacted", "metadata": {"actor": "system", "action": "agent_step",
                                                             "started_at": "T6"}},
    {"role": "system", "content": "hook said", "metadata": {"actor": "system:hook", "action": "agent_step",
                                                             "started_at": "T7"}},
    {"role": "user", "content": [{"type": "image"}]},
    {"role": "critic", "content": "x"},
    ["not", "a message"],
    {"role": 5},
    {"role": "assistant", "content": "", "tool_calls": "nope"},
    {"role": "assistant", "content": None, "tool_calls": None, "metadata": "not an object"},
]


def test_each_message_is_its_events_with_every_value_cited() -> None:
    s, ev = _session()
    chat_events(s, MSGS, ev, "/messages", 3)
    assert (s.meta.system_prompt, s.meta.system_prompt_ref) == ("be brief", Ref(ev, "/messages/0/content"))
    m2, tc = "/messages/2", "/messages/2/tool_calls"
    group = f"{ev}/messages/2"

    def call(j: int, cid: str, tool: str, args: Any, aptr: str, actor: str = "agent:x", ts: str = "T2",
             ts_ref: str = f"{m2}/metadata/started_at") -> Event:
        return Event("tool_call", actor, ts, [Ref(ev, f"{tc}/{j}/function/arguments{aptr}")], call_id=cid, tool=tool,
                     args=args, group=group, ts_ref=Ref(ev, ts_ref), name_ref=Ref(ev, f"{tc}/{j}/function/name"))
    assert s.events == [
        Event("user", "user", "T1", [Ref(ev, "/messages/1/content/0/text")], text="hi",
              ts_ref=Ref(ev, "/messages/1/metadata/started_at")),
        Event("agent_text", "agent:x", "T2", [Ref(ev, f"{m2}/content")], text="ok",
              ts_ref=Ref(ev, f"{m2}/metadata/started_at")),
        call(0, "c1", "ls", {"a": 1}, ""),
        call(1, f"{ev}:{tc}/1", "cat", '{"a": 1}', "", actor="sub", ts="T3", ts_ref=f"{tc}/1/metadata/started_at"),
        call(4, "c4", "w", "raw text", "/input"),
        call(5, "c5", "n", None, ""),
        call(6, "c6", "t", "not json", ""),
        call(7, "c7", "u", "[1]", ""),
        call(8, "c8", "v", {"input": "x"}, ""),
        Event("tool_result", "agent", "T4", [Ref(ev, "/messages/3/content")], text="out", call_id="c1", is_error=True,
              ts_ref=Ref(ev, "/messages/3/metadata/ended_at")),
        Event("tool_result", "runner", None, [Ref(ev, "/messages/4/content")], text="o2", call_id="c8",
              is_error=False),
        Event("tool_result", "agent", None, [Ref(ev, "/messages/5/content")], text=None, call_id="c6"),
        Event("note", "system", "T5", [Ref(ev, "/messages/6/content")], text="mid",
              ts_ref=Ref(ev, "/messages/6/metadata/started_at")),
        Event("compaction", "system", "T6", [Ref(ev, "/messages/7/content")], text="compacted",
              ts_ref=Ref(ev, "/messages/7/metadata/started_at")),
        Event("note", "system:hook", "T7", [Ref(ev, "/messages/8/content")], text="hook said",
              ts_ref=Ref(ev, "/messages/8/metadata/started_at"), info=NoteInfo(subtype="hook")),
    ]
    assert s.warnings == [
        ReadingWarning("bad-tool-call", f"tool call {tc}/2 has no function name; skipped", SRC, 3),
        ReadingWarning("bad-tool-call", f"tool call {tc}/3 has no function name; skipped", SRC, 3),
        ReadingWarning("tool-output-unlinked", "tool output /messages/4 names no tool_call_id: linked to the last "
                       "call, as Invariant's reader does", SRC, 3),
        ReadingWarning("system-message", "system message /messages/6 in the middle of the conversation is kept as "
                       "a note, not a step", SRC, 3),
        ReadingWarning("content-parts", "message /messages/9 holds content parts other than one text; skipped",
                       SRC, 3),
        ReadingWarning("unknown-role", "message /messages/10 has role 'critic'; skipped", SRC, 3),
        ReadingWarning("not-a-message", "element /messages/11 is not a chat message; skipped", SRC, 3),
        ReadingWarning("not-a-message", "element /messages/12 is not a chat message; skipped", SRC, 3),
    ]
    assert s.quality.unknown_records == 6


def test_a_first_system_message_without_text_and_a_later_one_are_notes() -> None:
    s, ev = _session()
    chat_events(s, [{"role": "system"}, {"role": "user", "content": "q"}, {"role": "system", "content": "s"}],
                ev, "/m", None)
    assert s.meta.system_prompt is None and s.meta.system_prompt_ref is None
    assert [(e.kind, e.actor, e.text, e.refs) for e in s.events] == [
        ("note", "system", None, [Ref(ev, "/m/0/content")]), ("user", "user", "q", [Ref(ev, "/m/1/content")]),
        ("note", "system", "s", [Ref(ev, "/m/2/content")])]
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("system-message", "system message /m/0 in the middle of the conversation is kept as a note, not a step", None),
        ("system-message", "system message /m/2 in the middle of the conversation is kept as a note, not a step", None)]


def test_a_message_that_is_a_whole_record_is_named_as_the_record() -> None:
    s, ev = _session()
    state = ChatState()
    chat_message(s, {"role": "assistant", "tool_calls": [{"id": "k", "function": {"name": "f", "arguments": {}}}]},
                 ev, "", 4, state)
    chat_message(s, {"role": "tool", "content": "r"}, ev, "", 5, state)
    chat_message(s, 7, ev, "", 6, state)
    chat_message(s, {"role": "bot"}, ev, "", 7, state)
    chat_message(s, {"role": "user", "content": [1]}, ev, "", 8, state)
    assert state == ChatState(seen=5, last_call="k")
    assert [(e.kind, e.actor, e.call_id, e.refs) for e in s.events] == [
        ("tool_call", "agent", "k", [Ref(ev, "/tool_calls/0/function/arguments")]),
        ("tool_result", "agent", "k", [Ref(ev, "/content")])]
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("tool-output-unlinked", "tool output (the record) names no tool_call_id: linked to the last call, as "
         "Invariant's reader does", 5),
        ("not-a-message", "element (the record) is not a chat message; skipped", 6),
        ("unknown-role", "message (the record) has role 'bot'; skipped", 7),
        ("content-parts", "message (the record) holds content parts other than one text; skipped", 8)]


def test_one_text_is_a_text_or_one_text_part() -> None:
    assert one_text("a", "/c") == ("a", "/c") and one_text(None, "/c") == (None, "/c")
    assert one_text([{"type": "text", "text": "t"}], "/c") == ("t", "/c/0/text")
    for content in ([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], [{"type": "image", "text": "t"}],
                    [{"type": "text", "text": 5}], ["t"], [], 5, {"type": "text", "text": "t"}):
        assert one_text(content, "/c") is None


def _doc(data: bytes) -> Doc:
    return Doc(data, SRC, None)  # type: ignore[arg-type]


def test_parsed_keeps_integers_past_64_bits_exact() -> None:
    assert parsed(_doc(b'{"n": 123456789012345678901234, "m": [-99999999999999999999], "s": 1.5}')) == {
        "n": 123456789012345678901234, "m": [-99999999999999999999], "s": 1.5}
    assert parsed(_doc(b'{"a": 1}')) == {"a": 1}
    assert parsed(_doc(b'{"a": NaN}')) is None and parsed(_doc(b"{")) is None and parsed(_doc(b'"\\ud800"')) is None
    # orjson takes this nesting, Python's parser not: no value rather than a wrong one
    assert parsed(_doc(b"[" * 1020 + b"12345678901234567890123" + b"]" * 1020)) is None


@pytest.mark.parametrize(("data", "why", "line"), [
    (b'{"a": 1,}', "not JSON (Expecting property name enclosed in double quotes, column 9)", 1),
    (b'{\n"a": 1\n"b": 2}', "not JSON (Expecting ',' delimiter, column 1)", 3),
    (b"\xff", "not JSON ('utf-8' codec can't decode byte 0xff in position 0: invalid start byte)", None),
    # too deep for the parser: the line where it nests past MAX_DEPTH
    (b"[" * 100_000, "not JSON (maximum recursion depth exceeded while decoding a JSON array from a unicode string)",
     1),
    (b'{"a": NaN}', "JSON holding NaN, Infinity or a lone surrogate, which forsy does not read", None),
    (b'{"a": "\\udc80"}', "JSON holding NaN, Infinity or a lone surrogate, which forsy does not read", None),
    (b"[1]", "a JSON list, not an object", None),
    (b'"x"', "a JSON str, not an object", None),
    (b'{"n": 123456789012345678901234}', "no steps", None),
])
def test_unreadable_says_why_and_where(data: bytes, why: str, line: int | None) -> None:
    assert unreadable(data, "no steps") == (why, line)


def test_unreadable_for_a_reader_that_takes_nan() -> None:
    assert unreadable(b'{"a": NaN}', "no steps", orjson_only=False) == ("no steps", None)
    assert unreadable(b"[NaN]", "no steps", orjson_only=False) == ("a JSON list, not an object", None)


def test_a_document_is_named_by_its_place_under_the_root(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    p = tmp_path / "d" / "c.json"
    p.write_bytes(b'{"a": 1}\n')
    doc = load_doc(p, ReadContext(root=tmp_path, limits=Limits(max_file_bytes=9)), "openai_chat")
    assert (doc.data, doc.source) == (b'{"a": 1}\n', "d/c.json")
    f = doc.file
    assert (f.path, f.abs_path, f.kind, f.bytes, f.sha256) == (
        "d/c.json", str(p.resolve()), "openai_chat", 9, hashlib.sha256(b'{"a": 1}\n').hexdigest())
    assert load_doc(p, ReadContext(limits=Limits(max_file_bytes=9)), "k").source == "c.json"
    with pytest.raises(Exception, match="more than the 8-byte limit"):
        load_doc(p, ReadContext(limits=Limits(max_file_bytes=8)), "k")
    s = new_session("openai_chat", "sid", doc, "openai-chat")
    assert (s.source_kind, s.session_id, s.files, s.evidence, s.events, s.meta) == (
        "openai_chat", "sid", [doc.file], {}, [], SessionMeta(agent="openai-chat"))
    assert json.loads(doc.data) == {"a": 1}


def test_a_compaction_needs_both_the_system_actor_and_the_step_action() -> None:
    s, ev = _session()
    chat_events(s, [{"role": "user", "content": "q", "metadata": {"actor": 5}},
                    {"role": "system", "content": "a", "metadata": {"actor": "system"}},
                    {"role": "system", "content": "b", "metadata": {"actor": "agent", "action": "agent_step"}},
                    {"role": "system", "content": "c", "metadata": {"actor": "system", "action": "agent_step"}}],
                ev, "/m", 1)
    assert [(e.kind, e.actor, e.text) for e in s.events] == [
        ("user", "user", "q"), ("note", "system", "a"), ("note", "system", "b"), ("compaction", "system", "c")]
    assert [w.code for w in s.warnings] == ["system-message", "system-message"]
