"""The Invariant reader on hand-written traces in its three shapes (the event list, the Explorer's
upload JSON, the Explorer's JSONL dataset), and the failures the format can record: a tool
output whose metadata says `success: false` is an error, `success: true` is not, and one with no
flag stays unknown (never guessed from the text). Expectations worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.invariant import InvariantSource

SRC = InvariantSource()

EVENTS: list[Any] = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "run it"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": {"cmd": "false"}}},
        {"id": "c2", "type": "function", "function": {"name": "bash", "arguments": {"cmd": "true"}}},
        {"id": "c3", "type": "function", "function": {"name": "bash", "arguments": {"cmd": "x"}}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "exit 1", "metadata": {"success": False}},
    {"role": "tool", "tool_call_id": "c2", "content": "Error: nothing wrong", "metadata": {"success": True}},
    {"role": "tool", "tool_call_id": "c3", "content": "Traceback: boom"},
    {"role": "tool", "content": "no id", "metadata": {"success": "no"}},
]


def read(p: Path) -> list[Session]:
    return SRC.read(p, ReadContext(root=p.parent))


def errors(s: Session) -> list[tuple[str | None, bool | None]]:
    return [(e.call_id, e.is_error) for e in s.events if e.kind == "tool_result"]


FLAGS = [("c1", True), ("c2", False), ("c3", None), ("c3", None)]


def test_a_failure_is_an_error_only_when_the_metadata_says_so(tmp_path: Path) -> None:
    p = tmp_path / "t.json"
    p.write_text(json.dumps(EVENTS, indent=1))
    (s,) = read(p)
    assert s.session_id == "t" and s.meta.system_prompt == "be brief"
    assert errors(s) == FLAGS  # the last output names no call: the last call's, as Invariant reads it
    last = max(s.evidence.values(), key=lambda ev: ev.byte_offset)  # the last element's record
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("tool-output-unlinked", "t.json", last.line)]
    text = json.dumps(EVENTS, indent=1).split("\n")
    assert last.line == len(text) - 1 - text[::-1].index(" {") + 1  # where the last element opens
    assert s.quality.records == len(EVENTS) and len(s.evidence) == len(EVENTS)


def test_the_upload_json_and_the_jsonl_dataset_keep_the_flags(tmp_path: Path) -> None:
    up = tmp_path / "up.json"
    up.write_text(json.dumps({"messages": [EVENTS, "oops", EVENTS[1:2]], "metadata": [{}, {}, {}]}))
    a, b, c = read(up)
    assert (a.session_id, b.session_id, c.session_id) == ("up#0", "up#1", "up#2")
    assert errors(a) == FLAGS and [e.refs[0].pointer for e in a.events if e.kind == "tool_result"] == [
        "/messages/0/3/content", "/messages/0/4/content", "/messages/0/5/content", "/messages/0/6/content"]
    assert [(w.code, w.message, w.line) for w in b.warnings] == [
        ("not-an-event-list", "messages[1] is not a list of events; skipped", 1)]
    assert b.quality.unknown_records == 1 and [e.text for e in c.events] == ["run it"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"messages": 3}')
    (s,) = read(bad)
    assert [(w.code, w.message) for w in s.warnings] == [
        ("unparsable", "not an Invariant upload JSON (no messages list); skipped")]
    assert s.quality.unparsable_records == 1
    jl = tmp_path / "set.jsonl"
    jl.write_text("\n".join([json.dumps({"metadata": {"name": "x"}}), json.dumps(EVENTS),
                             json.dumps({"messages": EVENTS}), "{oops", json.dumps(7)]) + "\n")
    one, two = read(jl)
    assert (one.session_id, two.session_id) == ("set#2", "set#3")
    assert errors(one) == errors(two) == FLAGS
    assert [e.refs[0].pointer for e in two.events][:1] == ["/messages/1/content"]
    assert [e.refs[0].pointer for e in one.events][:1] == ["/1/content"]
    assert [(w.code, w.message, w.line) for w in one.warnings if w.code == "unparsable-line"] == [
        ("unparsable-line", "line is not JSON; skipped", 4),
        ("unparsable-line", "line is neither an event list nor an object with messages; skipped", 5)]
    assert one.quality.unparsable_records == 2


def test_an_invariant_trace_is_known_by_its_head(tmp_path: Path) -> None:
    ev = json.dumps(EVENTS).encode()
    assert SRC.sniff(Path("t.json"), b"\xef\xbb\xbf\n" + ev)
    assert not SRC.sniff(Path("api_conversation_history.json"), ev)  # Cline's, of the same shape
    assert not SRC.sniff(Path("t.json"), b'[{"type": "user"}]')
    assert SRC.sniff(Path("t.json"), b'[{"role": "user", "content": "' + b"x" * 5000)  # cut in the head
    assert SRC.sniff(Path("u.json"), b'{"messages" : [ [{"role": "user"}]]}')
    assert not SRC.sniff(Path("u.json"), b'{"messages": [{"role": "user"}]}')  # OpenAI's line, not an upload
    meta = b'{"metadata": {}}\n'
    assert SRC.sniff(Path("d.jsonl"), meta + ev) and SRC.sniff(Path("d.jsonl"), meta + b'{"messages": []}')
    assert not SRC.sniff(Path("d.jsonl"), b'{"metadata": {}, "x": 1}\n' + ev)
    assert not SRC.sniff(Path("d.jsonl"), b"{oops\n" + ev)


def test_each_session_and_record_of_the_upload_and_the_dataset(tmp_path: Path) -> None:
    up = tmp_path / "sub" / "up.json"
    up.parent.mkdir()
    data = json.dumps({"messages": [EVENTS[1:2]]}).encode()
    up.write_bytes(data)
    (s,) = SRC.read(up, ReadContext(root=tmp_path))
    (ev,) = s.evidence.values()
    assert (s.source_kind, s.meta.agent, s.quality.records) == ("invariant", "invariant", 1)
    assert (ev.source, ev.line, ev.byte_offset, ev.byte_length, ev.record_type) == (
        "sub/up.json", 1, 0, len(data), "dataset")
    bad = tmp_path / "sub" / "bad.json"
    bad.write_text("{oops")
    (b,) = SRC.read(bad, ReadContext(root=tmp_path))
    assert [(w.code, w.file, w.line) for w in b.warnings] == [("unparsable", "sub/bad.json", None)]
    assert (b.source_kind, b.meta.agent, b.session_id) == ("invariant", "invariant", "bad")
    jl = tmp_path / "sub" / "set.jsonl"
    line2 = json.dumps(EVENTS[1:2]).encode()
    jl.write_bytes(b'{"metadata": {}}\n' + line2 + b"\n")
    (j,) = SRC.read(jl, ReadContext(root=tmp_path))
    (jev,) = j.evidence.values()
    assert (j.source_kind, j.meta.agent, j.quality.records) == ("invariant", "invariant", 1)
    assert (jev.source, jev.line, jev.byte_offset, jev.byte_length) == ("sub/set.jsonl", 2, 17, len(line2))
    nothing = tmp_path / "sub" / "meta.jsonl"
    nothing.write_bytes(b'{"metadata": {}}\n{oops\n')
    (n,) = SRC.read(nothing, ReadContext(root=tmp_path))
    assert (n.session_id, n.events, [(w.code, w.file, w.line) for w in n.warnings]) == (
        "meta", [], [("unparsable-line", "sub/meta.jsonl", 2)])
    # named on the command line: a .json is read (and warned about if it is no trace)
    assert SRC.discover(bad) == [bad] and SRC.discover(jl) == [] and SRC.discover(tmp_path / "none.json") == []
    (tmp_path / "sub" / "t.json").write_text(json.dumps(EVENTS))
    assert sorted(SRC.discover(tmp_path / "sub")) == [tmp_path / "sub" / "t.json", up]  # not bad.json


def test_a_warning_about_a_whole_record_names_it_as_such(tmp_path: Path) -> None:
    """A message that is a whole element of an event list has no pointer inside its record:
    the warning said "tool output  names no tool_call_id" (two spaces, no place)."""
    p = tmp_path / "t.json"
    p.write_text(json.dumps(EVENTS, indent=1))
    (s,) = read(p)
    assert [w.message for w in s.warnings] == [
        "tool output (the record) names no tool_call_id: linked to the last call, as Invariant's reader does"]
