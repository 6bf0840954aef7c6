"""What a Claude Code message's content blocks become when forsy cannot read them, and the
values it copies as JSON text.

A block that is no object, has a type that is no text, a text/name/tool_use_id of the wrong
kind, or a kind forsy does not read is one `unread-content` warning with the file and line,
saying which block and why; the rest of the message is read. A server-side tool result (web
search) is kept as its exact compact JSON (also past 64-bit integers, non-ASCII kept as is),
never marked an excerpt. A compaction summary given as text blocks is their text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _small_logs import _rec, user, write
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _assistant(tmp_path: Path, blocks: list[Any]) -> Session:
    return _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), _rec(1, "assistant", blocks, "a1", "u1")]))


OK = {"type": "text", "text": "Done."}


@pytest.mark.parametrize(("block", "why"), [
    (7, "message.content[0] is a number, not a content block"),
    ({"type": 3, "text": "x"}, "message.content[0] has a type that is a number"),
    ({"text": "x"}, "message.content[0] has a type that is null"),
    ({"type": "text", "text": ["x"]}, "message.content[0] (text) has a text that is a list, not a string"),
    ({"type": "tool_use", "id": "t1", "name": {"n": 1}, "input": {}},
     "message.content[0] (tool_use) has a name that is an object, not a string"),
    ({"type": "web_search_tool_result", "tool_use_id": None, "content": []},
     "message.content[0] (web_search_tool_result) has a tool_use_id that is null, not a string"),
    ({"type": "container_upload", "file_id": "f1"},
     "message.content[0] is a 'container_upload' block, a kind forsy does not read"),
])
def test_a_block_forsy_cannot_read_is_warned_with_its_place_and_reason(tmp_path: Path, block: Any, why: str) -> None:
    s = _assistant(tmp_path, [block, OK])
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("unread-content", f"{why}; not read", "s.jsonl", 2)]
    assert [(e.kind, e.text) for e in s.events] == [("user", "Go."), ("agent_text", "Done.")]


@pytest.mark.parametrize(("block", "why"), [
    ("Done.", "message.content[0] is a string, not a content block"),
    ({"type": "text", "text": None}, "message.content[0] (text) has a text that is null, not a string"),
    ({"type": "search_result", "source": "x"},
     "message.content[0] is a 'search_result' block, a kind forsy does not read"),
])
def test_a_user_block_forsy_cannot_read_is_warned_too(tmp_path: Path, block: Any, why: str) -> None:
    s = _read(write(tmp_path / "s.jsonl", [_rec(0, "user", [block, {"type": "text", "text": "Go."}], "u1", None)]))
    assert [(w.code, w.message, w.line) for w in s.warnings] == [("unread-content", f"{why}; not read", 1)]


def _web(tmp_path: Path, content: Any) -> tuple[str | None, bool]:
    s = _assistant(tmp_path, [
        {"type": "server_tool_use", "id": "srv1", "name": "web_search", "input": {"query": "retry"}},
        {"type": "web_search_tool_result", "tool_use_id": "srv1", "content": content}])
    [e] = [e for e in s.events if e.kind == "tool_result"]
    assert (e.call_id, e.is_error, [r.pointer for r in e.refs]) == ("srv1", False, ["/message/content/1/content"])
    return e.text, e.excerpt


def test_web_search_results_are_their_exact_compact_json(tmp_path: Path) -> None:
    assert _web(tmp_path, [{"type": "web_search_result", "title": "Café retries", "url": "https://x.test/a"}]) == (
        '[{"type":"web_search_result","title":"Café retries","url":"https://x.test/a"}]', False)


def test_web_search_results_past_64_bit_integers_are_exact_too(tmp_path: Path) -> None:
    assert _web(tmp_path, [{"title": "Café", "n": 2**70}]) == ('[{"title":"Café","n":1180591620717411303424}]', False)


def test_a_web_search_error_given_as_text_is_that_text(tmp_path: Path) -> None:
    assert _web(tmp_path, "too many requests") == ("too many requests", False)


@pytest.mark.parametrize(("content", "pointer"), [
    ("The conversation so far: a fix.", "/message/content"),
    ([{"type": "text", "text": "The conversation so far:"}, {"type": "text", "text": "a fix."}],
     "/message/content/0/text"),
])
def test_a_compaction_summary_is_its_text(tmp_path: Path, content: Any, pointer: str) -> None:
    summary = dict(_rec(1, "user", content, "c1", "u1"), isCompactSummary=True)
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Fix it."), summary]))
    [e] = [e for e in s.events if e.kind == "compaction"]
    assert (e.actor, e.text, [r.pointer for r in e.refs]) == (
        "system", content if isinstance(content, str) else "The conversation so far:\na fix.", [pointer])
