"""What Claude Code's sniff takes as its format, from the head of a file.

JSON lines: the first record (blank and damaged lines skipped, up to the 40th line) must be an
object of a known record type carrying one of the keys Claude Code's records carry; a first
record that is no object is not Claude Code's. A JSON array: the head names `sessionId` and a
`parentUuid` or `leafUuid`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forsy.sources.claude_code import ClaudeCodeSource

KEYS = ("sessionId", "parentUuid", "leafUuid", "messageId", "isSidechain", "remoteSessionId")


def _sniff(head: bytes) -> bool:
    return ClaudeCodeSource().sniff(Path("x.jsonl"), head)


def _line(d: dict[str, object]) -> bytes:
    return json.dumps(d).encode() + b"\n"


@pytest.mark.parametrize("key", KEYS)
def test_a_known_record_with_any_one_of_the_record_keys_is_claude_codes(key: str) -> None:
    assert _sniff(_line({"type": "user", key: "v"}))


def test_a_record_with_all_the_record_keys_is_claude_codes() -> None:
    assert _sniff(_line({"type": "summary", **{k: "v" for k in KEYS}}))


@pytest.mark.parametrize("record", [
    {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}},  # no record key
    {"type": "message", "sessionId": "s1"},  # a type Claude Code does not write
    {"sessionId": "s1", "parentUuid": None},  # no type
])
def test_a_record_without_a_known_type_and_a_record_key_is_not(record: dict[str, object]) -> None:
    assert not _sniff(_line(record))


@pytest.mark.parametrize("before", [b"\n", b"   \n", b'{"type": "user", "sessionId": "s1", \n', b"not json\n",
                                    _line({"type": 7, "sessionId": "s1"})])
def test_blank_damaged_and_typeless_lines_before_the_first_record_are_passed_over(before: bytes) -> None:
    assert _sniff(before * 3 + _line({"type": "user", "sessionId": "s1"}))


def test_the_first_record_is_looked_for_in_the_first_forty_lines_only() -> None:
    record = _line({"type": "user", "sessionId": "s1"})
    assert _sniff(b"\n" * 39 + record)
    assert not _sniff(b"\n" * 40 + record)


@pytest.mark.parametrize("first", [b"[1, 2]\n", b'"a string"\n', b"7\n"])
def test_a_first_value_that_is_no_object_is_not_claude_codes(first: bytes) -> None:
    assert not _sniff(first + _line({"type": "user", "sessionId": "s1"}))


@pytest.mark.parametrize("lead", [b"", b"\n  \t"])
@pytest.mark.parametrize("key", ["parentUuid", "leafUuid"])
def test_a_json_array_naming_a_session_and_a_parent_or_leaf_is_claude_codes(lead: bytes, key: str) -> None:
    assert _sniff(lead + json.dumps([{"type": "summary", "sessionId": "s1", key: "u1"}]).encode())


def test_a_json_array_naming_a_session_alone_is_not() -> None:
    assert not _sniff(json.dumps([{"type": "user", "sessionId": "s1", "uuid": "u1"}]).encode())
