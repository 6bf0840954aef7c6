"""The OpenAI chat reader (the fine-tuning format): one session per conversation, each line (or
the whole file) one evidence record located to the byte, every value cited by its pointer in
it; a line that is no conversation, or no JSON, is counted and named, never dropped silently.
Inputs are hand-built; every offset and length below was counted by hand.
"""

from __future__ import annotations

from pathlib import Path

from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.openai_chat import OpenAIChatSource

SRC = OpenAIChatSource()


def read(tmp_path: Path, name: str, data: bytes) -> list[Session]:
    p = tmp_path / name
    p.write_bytes(data)
    return SRC.read(p, ReadContext(root=tmp_path))


def events(s: Session) -> list[tuple[str, str, str | None, list[tuple[str, str]]]]:
    return [(e.kind, e.actor, e.text, [(r.ev, r.pointer) for r in e.refs]) for e in s.events]


def where(s: Session) -> list[tuple[int | None, int, int, str | None]]:
    return [(v.line, v.byte_offset, v.byte_length, v.record_type) for v in s.evidence.values()]


L1 = b'{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}'  # 84 bytes
L2 = b'{"messages":[{"role":"user","content":"a"}]}'  # 44 bytes
BAD = b"not json"  # 8 bytes
OTHER = b'{"x":1}'  # 7 bytes
NOROLE = b'{"messages":[{"content":"no role"}]}'  # 36 bytes


def test_each_line_is_one_conversation_located_to_the_byte(tmp_path: Path) -> None:
    data = b"\n".join([L1, L2, BAD, OTHER, NOROLE]) + b"\n"
    s1, s2, s4, s5 = read(tmp_path, "chats.jsonl", data)
    assert [s.session_id for s in (s1, s2, s4, s5)] == ["chats#1", "chats#2", "chats#4", "chats#5"]
    assert {(s.source_kind, s.meta.agent) for s in (s1, s2, s4, s5)} == {("openai_chat", "openai-chat")}
    assert [where(s) for s in (s1, s2, s4, s5)] == [[(1, 0, 84, None)], [(2, 85, 44, None)], [(4, 139, 7, None)],
                                                    [(5, 147, 36, None)]]
    (e1,), (e2,) = s1.evidence, s2.evidence
    assert events(s1) == [("user", "user", "hi", [(e1, "/messages/0/content")]),
                          ("agent_text", "agent", "hello", [(e1, "/messages/1/content")])]
    assert events(s2) == [("user", "user", "a", [(e2, "/messages/0/content")])]
    # every line read is one record of its session; the line that is no JSON is the first session's
    assert [s.quality.records for s in (s1, s2, s4, s5)] == [1, 1, 1, 1]
    assert [s.quality.unparsable_records for s in (s1, s2, s4, s5)] == [1, 0, 0, 0]
    assert [(w.code, w.file, w.line) for w in s1.warnings] == [("unparsable-line", "chats.jsonl", 3)]
    assert s2.warnings == []
    # a line with no messages list, or whose first message has no role, is no conversation: named
    for s, line in ((s4, 4), (s5, 5)):
        assert (s.events, s.quality.unknown_records) == ([], 1)
        assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
            ("not-a-conversation", "line has no messages list; skipped", "chats.jsonl", line)]
    assert [s.quality.unknown_records for s in (s1, s2)] == [0, 0]


def test_a_whole_file_conversation_is_one_record(tmp_path: Path) -> None:
    data = (b'{\n  "messages": [\n    {"role": "user", "content": "fix it"},\n'
            b'    {"role": "assistant", "content": "done"}\n  ]\n}\n')
    (s,) = read(tmp_path, "one.json", data)
    assert (s.session_id, s.source_kind, s.meta.agent) == ("one", "openai_chat", "openai-chat")
    assert where(s) == [(1, 0, len(data), "conversation")]
    (ev,) = s.evidence
    assert events(s) == [("user", "user", "fix it", [(ev, "/messages/0/content")]),
                         ("agent_text", "agent", "done", [(ev, "/messages/1/content")])]
    assert (s.quality.records, s.quality.unparsable_records, s.quality.unknown_records) == (1, 0, 0)
    assert s.warnings == []
    (f,) = s.files
    assert (f.path, f.kind, f.bytes) == ("one.json", "openai_chat", len(data))


def test_an_empty_conversation_is_one_and_an_empty_file_one_empty_session(tmp_path: Path) -> None:
    (s,) = read(tmp_path, "none.json", b'{"messages": []}')
    assert (s.session_id, s.events, s.warnings, s.quality.records) == ("none", [], [], 1)
    assert where(s) == [(1, 0, 16, "conversation")]
    # nothing at all, or only lines that are no JSON: one session holding the warnings and counts
    (s,) = read(tmp_path, "empty.jsonl", b"")
    assert (s.session_id, s.events, s.evidence, s.warnings, s.quality.records) == ("empty", [], {}, [], 0)
    (s,) = read(tmp_path, "junk.jsonl", b"junk\n[1, 2]\n")
    assert (s.session_id, s.events, s.evidence) == ("junk", [], {})
    assert [(w.code, w.line) for w in s.warnings] == [("unparsable-line", 1), ("not-an-object", 2)]
    assert s.quality.unparsable_records == 2


def test_sniff_takes_a_conversation_first_line_or_an_opening_it_cannot_parse(tmp_path: Path) -> None:
    p = tmp_path / "x.jsonl"
    yes = [L1 + b"\n" + L2, b"\xef\xbb\xbf \n\t" + L1, b'{"messages": []}',
           b'{\n  "messages" : [\n  {"role": "user"', b'\xef\xbb\xbf{"messages":[{"role":"user","content":"cut']
    no = [OTHER, NOROLE, b'{"messages": "x"}', b'[{"role": "user", "content": "hi"}]', b'{\n  "data": [\n  {',
          b'{"messages": [1]}', b"[1]", b'{\n  "messages": "x"', b"", b'x{"messages":[{']
    assert [SRC.sniff(p, h) for h in yes] == [True] * len(yes)
    assert [SRC.sniff(p, h) for h in no] == [False] * len(no)
    # an empty conversation only its first line's JSON shows (the opening needs a first message)
    empty = b'{"messages": []}'
    assert SRC.sniff(p, b"\xef\xbb\xbf\n " + empty + b"\n" + empty + b"\n" + empty[:9]) is True
    assert SRC.sniff(p, b'X{"messages":[{"role":"user"') is False


def test_discover_takes_the_folder_s_own_chat_files_and_a_named_json_file(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(L1)
    (tmp_path / "b.jsonl").write_bytes(L2 + b"\n")
    (tmp_path / "c.txt").write_bytes(L1)  # not a .json* name
    (tmp_path / "d.json").write_bytes(OTHER)  # not a conversation
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "e.jsonl").write_bytes(L1)  # below the folder: a chat export is named
    assert sorted(p.name for p in SRC.discover(tmp_path)) == ["a.json", "b.jsonl"]
    # a file named is taken by its suffix alone (its reading then says what it holds)
    assert SRC.discover(tmp_path / "d.json") == [tmp_path / "d.json"]
    assert SRC.discover(tmp_path / "sub" / "e.jsonl") == [tmp_path / "sub" / "e.jsonl"]
    assert SRC.discover(tmp_path / "c.txt") == []
    assert SRC.discover(tmp_path / "absent.json") == []


TOOL = b'{"messages":[{"role":"tool","content":"x"}]}'  # a tool output naming no call: warned at its line


def test_warnings_name_the_line_of_their_conversation(tmp_path: Path) -> None:
    data = b"\n".join([OTHER, BAD, TOOL]) + b"\n"
    s1, s3 = read(tmp_path, "c.jsonl", data)
    # the file's own warnings come first, before the first session's
    assert [(w.code, w.file, w.line) for w in s1.warnings] == [("unparsable-line", "c.jsonl", 2),
                                                               ("not-a-conversation", "c.jsonl", 1)]
    assert [(w.code, w.file, w.line) for w in s3.warnings] == [("tool-output-unlinked", "c.jsonl", 3)]
    (s,) = read(tmp_path, "whole.json", b"\n" + TOOL)
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("tool-output-unlinked", "whole.json", 1)]
    (ev,) = s.evidence.values()
    assert (ev.source, ev.sha256, ev.byte_length) == ("whole.json", s.files[0].sha256, len(TOOL) + 1)
    (s,) = read(tmp_path, "clean.jsonl", L2 + b"\n")
    assert (s.quality.unparsable_records, s.warnings) == (0, [])
    (s,) = read(tmp_path, "empty.jsonl", b"")
    assert (s.source_kind, s.meta.agent, s.quality.unparsable_records) == ("openai_chat", "openai-chat", 0)


def test_call_arguments_nested_past_the_writer_stay_text(tmp_path: Path) -> None:
    """Arguments that parse but nest deeper than forsy writes a value back (990 levels: orjson
    reads them, then writing them back broke with RecursionError, an internal error for the
    file) are kept as the text they are (found fuzzing)."""
    import json

    args = '{"a": ' + "[" * 990 + "]" * 990 + "}"
    msgs = [{"role": "user", "content": "hi"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                                                  "function": {"name": "f", "arguments": args}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"}]
    (s,) = read(tmp_path, "deep.jsonl", json.dumps({"messages": msgs}).encode() + b"\n")
    (call,) = [e for e in s.events if e.kind == "tool_call"]
    assert call.args == args
