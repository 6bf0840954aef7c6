"""json_doc.read_object_array's promises, byte offsets counted by hand: each element of the array
member is a record with its line, exact byte range, sha256 and type (after a BOM, CRLF, two-byte
characters, bytes that are no UTF-8); the other members are the header with their own line, byte
and bytes; what is no object, nests too deep, breaks or ends early is a problem with its line; a
document that is no object whose members can be walked is None."""

from __future__ import annotations

import hashlib

import pytest

from forsy.sources.json_doc import read_object_array

SRC = "chats/c.json"


def _h(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


E1 = b'{"type":"user","text":"h\xc3\xa9"}'  # 28 bytes
DOC = (b'\xef\xbb\xbf{\r\n'  # BOM 0-2, { at 3
       + b' "sessionId": "s1",\n'  # line 2: "s1" at 20
       + b' "messages": [\n'  # line 3: [ at 39
       + b"  " + E1 + b",\n"  # line 4: at 43
       + b"  [1],\n"  # line 5: at 75
       + b'  {"type":5}\n'  # line 6: at 82
       + b" ],\n"  # line 7
       + b' "n": 1.5\n'  # line 8: 1.5 at 103
       + b"}\n")


def test_each_element_and_member_has_its_line_and_exact_bytes() -> None:
    assert len(DOC) == 109
    doc = read_object_array(DOC, SRC, "messages")
    assert doc is not None
    assert [(r.ev.source, r.ev.line, r.ev.byte_offset, r.ev.byte_length, r.ev.sha256, r.ev.record_type)
            for r in doc.records] == [(SRC, 4, 43, 28, _h(E1), "user"), (SRC, 6, 82, 10, _h(b'{"type":5}'), None)]
    assert [r.data for r in doc.records] == [{"type": "user", "text": "hé"}, {"type": 5}]
    assert doc.header == {"sessionId": "s1", "n": 1.5}
    assert doc.spans == {"sessionId": (2, 20, b'"s1"'), "n": (8, 103, b"1.5")}
    assert doc.problems == [("not-an-object", "element is list, not an object; skipped", 5)]
    assert (doc.elements, doc.has_array) == (3, True)


def test_bytes_that_are_no_utf8_and_lone_surrogates_keep_their_exact_bytes() -> None:
    el = b'{"a":"\xff\\ud800"}'  # 15 bytes at 14
    doc = read_object_array(b'{"messages": [' + el + b'], "k\xff": "\\udfff"}', SRC, "messages")
    assert doc is not None
    assert [(r.ev.line, r.ev.byte_offset, r.ev.byte_length, r.ev.sha256) for r in doc.records] == [(1, 14, 15, _h(el))]
    assert doc.records[0].data == {"a": "\ufffd\ufffd"}
    assert doc.header == {"k\udcff": "\ufffd"}
    assert doc.spans == {"k\udcff": (1, 38, b'"\\udfff"')}


def test_a_document_without_the_array_is_its_members() -> None:
    doc = read_object_array(b'{"a": {"x": [1]},\t"messages": null}', SRC, "messages")
    assert doc is not None
    assert (doc.header, doc.records, doc.problems, doc.elements, doc.has_array) == (
        {"a": {"x": [1]}, "messages": None}, [], [], 0, False)
    assert doc.spans == {"a": (1, 6, b'{"x": [1]}'), "messages": (1, 30, b"null")}
    empty = read_object_array(b' {"messages": []}', SRC, "messages")
    assert empty is not None and (empty.has_array, empty.elements, empty.records, empty.header) == (True, 0, [], {})
    other = read_object_array(b'{"items": [{"a": 1}]}', SRC, "messages")
    assert other is not None and (other.has_array, other.records, other.header) == (False, [], {"items": [{"a": 1}]})


@pytest.mark.parametrize("data", [b"", b"  \n", b"[1]", b'"x"', b"{1: 2}", b'{"a" 1}', b'{"a\\q": 1}', b"{",
                                  b'{"a": 1', b'\xef\xbb\xbf[]', b"X{}", b'{"a": 1, X"b": 2}'])
def test_what_is_no_object_with_members_is_none(data: bytes) -> None:
    assert read_object_array(data, SRC, "messages") is None


def test_an_array_cut_short_keeps_what_came_before_and_says_where_it_broke() -> None:
    cut = read_object_array(b'{"messages": [{"a":1},\n {"b":', SRC, "messages")
    assert cut is not None
    assert [(r.ev.line, r.ev.byte_offset, r.ev.byte_length) for r in cut.records] == [(1, 14, 7)]
    assert cut.problems == [("unparsable-element", "element is not JSON; stopped reading (bytes 24- of the file lost)",
                             2)]
    assert cut.elements == 1
    ended = read_object_array(b'{"messages": [{"a":1},\n ', SRC, "messages")
    assert ended is not None and ended.problems == [
        ("truncated", "the file ends inside the array (still being written?)", 2)]
    bad = read_object_array(b'{"messages": [],\n "x": tru, "y": 1}', SRC, "messages")
    assert bad is not None
    assert (bad.has_array, bad.header, bad.problems) == (
        True, {}, [("unparsable-member", "member 'x' is not JSON; stopped reading", 2)])


def test_an_element_nesting_past_the_limit_is_skipped_and_the_next_one_read() -> None:
    past = b'{"a":' + b"[" * 200 + b"]" * 200 + b"}"  # 201 levels
    at = b'{"s":"[[","a":' + b"[" * 199 + b"]" * 199 + b"}"  # 200 levels, 202 brackets
    data = b'{"messages": [' + past + b",\n" + at + b"]}"
    doc = read_object_array(data, SRC, "messages")
    assert doc is not None
    assert doc.problems == [("too-deep", "element nests values more than 200 levels deep; skipped", 1)]
    assert [(r.ev.line, r.ev.byte_offset, r.ev.byte_length) for r in doc.records] == [(2, 14 + len(past) + 2, len(at))]
    assert doc.elements == 2


def test_deep_nesting_the_parser_cannot_take_is_a_problem_not_a_crash() -> None:
    deep = b"[" * 100_000
    doc = read_object_array(b'{"messages": [' + deep + b"]}", SRC, "messages")
    assert doc is not None and doc.records == []
    assert doc.problems == [("unparsable-element", "element is not JSON; stopped reading (bytes 14- of the file lost)",
                             1)]
    doc = read_object_array(b'{"x": ' + deep + b"}", SRC, "messages")
    assert doc is not None and doc.problems == [("unparsable-member", "member 'x' is not JSON; stopped reading", 1)]


BROKEN = "the file is cut or broken after the 'messages' list; stopped reading"


@pytest.mark.parametrize(("tail", "problem"), [
    (b"", ("truncated", "the file ends inside the object (still being written?)", 2)),
    (b",\n  ", ("truncated", "the file ends inside the object (still being written?)", 3)),
    (b',\n  "trajectory_for', ("truncated", "the file ends inside the object (still being written?)", 3)),
    (b',\n  "trajectory_format" ', ("truncated", "the file ends inside the object (still being written?)", 3)),
    (b',\n  "trajectory_format" "x"', ("unparsable-member", BROKEN, 3)),
    (b',\n  "a\\q": 1', ("unparsable-member", BROKEN, 3)),
    (b",\n  junk", ("unparsable-member", BROKEN, 3)),
])
def test_an_object_cut_after_its_array_keeps_the_records_and_says_where(tail: bytes,
                                                                        problem: tuple[str, str, int]) -> None:
    # mini-swe-agent writes "trajectory_format" after "messages"; a file read while written ends anywhere
    data = b'{"info": {"a": 1},\n "messages": [{"role": "user"}]' + tail
    doc = read_object_array(data, SRC, "messages")
    assert doc is not None
    assert [(r.ev.line, r.ev.byte_offset, r.ev.byte_length) for r in doc.records] == [(2, 33, 16)]
    assert (doc.header, doc.has_array, doc.problems) == ({"info": {"a": 1}}, True, [problem])
    # before the array nothing is known of the document: no such object
    assert read_object_array(b'{"info": {"a": 1},\n  "x', SRC, "messages") is None


def test_members_written_compactly_and_junk_where_a_value_or_element_should_be() -> None:
    # compact: {"a":12,"k":"\xff","messages":[{"b":1}]}: 12 at 5, "\xff" at 12, the element at 28
    doc = read_object_array(b'{"a":12,"k":"\xff","messages":[{"b":1}]}', SRC, "messages")
    assert doc is not None
    assert doc.header == {"a": 12, "k": "\ufffd"}
    assert doc.spans == {"a": (1, 5, b"12"), "k": (1, 12, b'"\xff"')}
    assert [(r.ev.byte_offset, r.ev.byte_length, r.data) for r in doc.records] == [(28, 7, {"b": 1})]
    junk = read_object_array(b'{"a": X1}', SRC, "messages")
    assert junk is not None and (junk.header, junk.problems) == (
        {}, [("unparsable-member", "member 'a' is not JSON; stopped reading", 1)])
    after = read_object_array(b'{"messages": [], "a" X: 1}', SRC, "messages")
    assert after is not None and (after.header, after.problems) == ({}, [("unparsable-member", BROKEN, 1)])
    between = read_object_array(b'{"messages": [{"a":1} X {"b":2}]}', SRC, "messages")
    assert between is not None and [r.data for r in between.records] == [{"a": 1}]
    assert between.problems == [("unparsable-element", "element is not JSON; stopped reading (bytes 22- of the file "
                                 "lost)", 1)]
