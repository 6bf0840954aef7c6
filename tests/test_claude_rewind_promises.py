"""A Claude Code rewind (the user steps back and types something else) leaves the old branch in
the log: the work is the parentUuid chain from the last message back to its root. What the user
typed off that chain (words, a slash command, a `!` command), and everything below it, is kept
and marked abandoned; what merely hangs off the chain (a notice, a compaction summary, the other
lines of a split model message, the results of its parallel calls) is the work, not abandoned; a
conversation of another tree in the same file (a continued session) is not a rewind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _small_logs import _rec, answer, call, result, user, write
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _marks(s: Session) -> list[tuple[str, str | None, bool]]:
    return [(e.kind, e.text, e.abandoned) for e in s.events]


def _abandoned_warnings(s: Session) -> list[str]:
    return [w.message for w in s.warnings if w.code == "abandoned-branch"]


def _blocks(*texts: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": t} for t in texts]


# what the user typed on the rewound branch (as the record holds it) -> the user event made of it
REWOUND = [
    ("The login bug.", "The login bug."),
    (_blocks("The login bug."), "The login bug."),
    # a picture pasted before the words: the words still make it a typed message
    ([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
      *_blocks("The login bug.")], "The login bug."),
    ("<command-name>/review</command-name><command-args>login</command-args>", "/review login"),
    (_blocks("<command-name>/review</command-name><command-args>login</command-args>"), "/review login"),
    ("<bash-input>git log -1</bash-input>", "!git log -1"),
    (_blocks("<bash-input>git log -1</bash-input>"), "!git log -1"),
]


@pytest.mark.parametrize(("typed", "shown"), REWOUND)
def test_what_the_user_typed_before_a_rewind_and_all_below_it_is_abandoned(
        tmp_path: Path, typed: Any, shown: str) -> None:
    # u2 (and the answer to it) was typed, then the user rewound to a1 and typed u3 instead
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Fix the bug."),
        answer(1, "a1", "u1", "Which bug?"),
        _rec(2, "user", typed, "u2", "a1"),
        answer(3, "a2", "u2", "Fixed login."),
        user(4, "u3", "a1", "The signup bug."),
        answer(5, "a3", "u3", "Fixed signup."),
    ]))
    assert _marks(s) == [("user", "Fix the bug.", False), ("agent_text", "Which bug?", False),
                         ("user", shown, True), ("agent_text", "Fixed login.", True),
                         ("user", "The signup bug.", False), ("agent_text", "Fixed signup.", False)]
    assert s.quality.abandoned_events == 2
    assert _abandoned_warnings(s) == ["2 records are on branches the user rewound away from; they are kept and "
                                      "marked abandoned"]


def test_a_rewound_branch_is_abandoned_to_its_last_result(tmp_path: Path) -> None:
    # the abandoned model turn called a tool: the call and its result go with the branch
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Fix the bug."),
        call(1, "a1", "u1", "t1", "Bash", {"command": "pytest"}),
        result(2, "r1", "a1", "t1", "1 failed"),
        call(3, "a2", "r1", "t2", "Bash", {"command": "git stash"}),
        result(4, "r2", "a2", "t2", "Saved working directory"),
        user(5, "u3", "r1", "Do not stash; fix the test."),
        answer(6, "a3", "u3", "Fixed."),
    ]))
    assert [(e.kind, e.abandoned) for e in s.events] == [
        ("user", False), ("tool_call", False), ("tool_result", False),
        ("tool_call", True), ("tool_result", True), ("user", False), ("agent_text", False)]
    assert _abandoned_warnings(s) == ["2 records are on branches the user rewound away from; they are kept and "
                                      "marked abandoned"]


def _meta(n: int, uuid: str, parent: str, content: Any, **flags: bool) -> dict[str, Any]:
    return dict(_rec(n, "user", content, uuid, parent), **flags)


@pytest.mark.parametrize("hanging", [
    # words Claude Code put in (a skill's expansion is an isMeta line of plain words)
    _meta(2, "m1", "a1", "Base directory for this skill: /home/dev/.claude/skills/tdd", isMeta=True),
    _meta(2, "m1", "a1", _blocks("Base directory for this skill: /home/dev/.claude/skills/tdd"), isMeta=True),
    # a compaction summary written beside the chain
    _meta(2, "m1", "a1", _blocks("The conversation so far: the user asked for a fix."), isCompactSummary=True),
    # no words at all: an empty list, a content block of no known kind (a picture alone is the
    # person's turn, a branch like typed words: tests/test_attachment_only_prompts.py)
    _rec(2, "user", [], "m1", "a1"),
    _rec(2, "user", ["Fix it."], "m1", "a1"),
    _rec(2, "user", [{"type": "text", "text": 7}], "m1", "a1"),
    _rec(2, "user", 7, "m1", "a1"),  # content of no kind (warned, read as absent)
    # injected text, an interrupt, an empty message: nobody typed them
    _rec(2, "user", "<system-reminder>The file changed.</system-reminder>", "m1", "a1"),
    _rec(2, "user", "[Request interrupted by user]", "m1", "a1"),
    _rec(2, "user", _blocks("   "), "m1", "a1"),
    {"type": "system", "subtype": "local_command", "uuid": "m1", "parentUuid": "a1", "sessionId": "s-small",
     "timestamp": "2026-01-01T10:00:02.000Z", "content": "<local-command-stdout>ok</local-command-stdout>"},
])
def test_a_record_nobody_typed_hanging_off_the_chain_is_part_of_the_work(
        tmp_path: Path, hanging: dict[str, Any]) -> None:
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Fix the bug."),
        answer(1, "a1", "u1", "Which bug?"),
        hanging,
        user(3, "u3", "a1", "The signup bug."),
        answer(4, "a3", "u3", "Fixed signup."),
    ]))
    assert [e.abandoned for e in s.events] == [False] * len(s.events)
    assert s.quality.abandoned_events == 0 and _abandoned_warnings(s) == []


def test_the_lines_of_a_parallel_call_beside_the_chain_are_part_of_the_work(tmp_path: Path) -> None:
    # one model message with two calls, written as two lines; each result hangs off its call's line,
    # the chain goes on from the second: the first line and its result are off the chain, not a branch
    first = call(1, "a1", "u1", "t1", "Read", {"file_path": "a.py"})
    second = call(2, "a1b", "a1", "t2", "Read", {"file_path": "b.py"})
    second["message"]["id"] = first["message"]["id"]
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Compare a.py and b.py."),
        first, second,
        result(3, "r1", "a1", "t1", "a = 1"),
        result(4, "r2", "a1b", "t2", "b = 2"),
        answer(5, "a2", "r2", "They differ."),
    ]))
    assert [(e.kind, e.abandoned) for e in s.events] == [
        ("user", False), ("tool_call", False), ("tool_call", False), ("tool_result", False), ("tool_result", False),
        ("agent_text", False)]
    assert _abandoned_warnings(s) == []


def test_a_result_beside_the_chain_for_a_call_that_is_not_on_it_is_abandoned(tmp_path: Path) -> None:
    # r9 hangs off the chain but answers the rewound turn's call (t2), not one of the chain's
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Fix the bug."),
        call(1, "a1", "u1", "t1", "Bash", {"command": "pytest"}),
        result(2, "r1", "a1", "t1", "1 failed"),
        result(3, "r9", "r1", "t2", "Saved working directory"),
        answer(4, "a3", "r1", "Fixed."),
    ]))
    assert [(e.kind, e.text, e.abandoned) for e in s.events if e.kind == "tool_result"] == [
        ("tool_result", "1 failed", False), ("tool_result", "Saved working directory", True)]


def test_an_earlier_conversation_of_another_tree_in_the_file_is_not_a_rewind(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "o1", None, "Old question."),
        answer(1, "o2", "o1", "Old answer."),
        user(2, "u1", None, "New question."),
        answer(3, "a1", "u1", "New answer."),
    ]))
    assert [e.abandoned for e in s.events] == [False] * 4
    assert _abandoned_warnings(s) == []


def test_a_branch_below_a_compaction_follows_the_logical_parent(tmp_path: Path) -> None:
    # the chain crosses the compaction by logicalParentUuid: the branch before it is the same tree
    boundary = {"type": "system", "subtype": "compact_boundary", "uuid": "b1", "parentUuid": None,
                "logicalParentUuid": "a1", "sessionId": "s-small", "timestamp": "2026-01-01T10:00:03.000Z",
                "content": "Conversation compacted"}
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Fix the bug."),
        answer(1, "a1", "u1", "Which bug?"),
        user(2, "u2", "a1", "The login bug."),
        boundary,
        user(4, "u3", "b1", "The signup bug."),
        answer(5, "a3", "u3", "Fixed signup."),
    ]))
    assert [(e.text, e.abandoned) for e in s.events if e.kind == "user"] == [
        ("Fix the bug.", False), ("The login bug.", True), ("The signup bug.", False)]


def test_a_log_of_system_notices_alone_has_nothing_abandoned(tmp_path: Path) -> None:
    notice = {"type": "system", "subtype": "api_error", "uuid": "e1", "parentUuid": None, "sessionId": "s-small",
              "timestamp": "2026-01-01T10:00:00.000Z", "error": {"message": "Overloaded"}}
    s = _read(write(tmp_path / "s.jsonl", [notice, dict(notice, uuid="e2", parentUuid="e1")]))
    assert [(e.text, e.abandoned) for e in s.events] == [("Overloaded", False), ("Overloaded", False)]
    assert _abandoned_warnings(s) == []


def test_parent_links_that_loop_end_the_walk(tmp_path: Path) -> None:
    # u1 and a1 name each other as parent; the last message's chain still ends
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", "a1", "Fix the bug."),
        answer(1, "a1", "u1", "Which bug?"),
        user(2, "u2", "a1", "The login bug."),
    ]))
    assert [(e.text, e.abandoned) for e in s.events] == [
        ("Fix the bug.", False), ("Which bug?", False), ("The login bug.", False)]


@pytest.mark.parametrize(("error", "text"), [({"message": "Overloaded"}, "Overloaded"), ({}, None)])
def test_a_failed_model_call_on_a_rewound_branch_is_abandoned_with_it(tmp_path: Path, error: dict[str, Any],
                                                                      text: str | None) -> None:
    failed = {"type": "system", "subtype": "api_error", "uuid": "e1", "parentUuid": "u2", "sessionId": "s-small",
              "timestamp": "2026-01-01T10:00:03.000Z", "error": error, "level": "error"}
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Fix the bug."),
        answer(1, "a1", "u1", "Which bug?"),
        user(2, "u2", "a1", "The login bug."),
        failed,
        user(4, "u3", "a1", "The signup bug."),
        answer(5, "a3", "u3", "Fixed signup."),
    ]))
    assert _marks(s)[2:4] == [("user", "The login bug.", True), ("agent_text", text, True)]


def test_a_rewind_after_an_earlier_conversation_in_the_file_is_still_a_rewind(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "o1", None, "Old question."),
        user(1, "u1", None, "Fix the bug."),
        answer(2, "a1", "u1", "Which bug?"),
        user(3, "u2", "a1", "The login bug."),
        user(4, "u3", "a1", "The signup bug."),
        answer(5, "a3", "u3", "Fixed signup."),
    ]))
    assert [(e.text, e.abandoned) for e in s.events if e.kind == "user"] == [
        ("Old question.", False), ("Fix the bug.", False), ("The login bug.", True), ("The signup bug.", False)]


def test_a_split_line_of_a_message_on_the_chain_written_beside_it_is_part_of_the_work(tmp_path: Path) -> None:
    # one model message as two sibling lines: its text (off the chain) and its call (on it)
    said = answer(1, "m1", "u1", "Running the tests.")
    ran = call(2, "m2", "u1", "t1", "Bash", {"command": "pytest"})
    said["message"]["id"] = ran["message"]["id"]
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Run the tests."), said, ran,
        result(3, "r1", "m2", "t1", "3 passed"),
        answer(4, "a2", "r1", "All pass."),
    ]))
    assert [(e.kind, e.abandoned) for e in s.events] == [
        ("user", False), ("agent_text", False), ("tool_call", False), ("tool_result", False), ("agent_text", False)]


def test_the_result_of_the_chains_only_call_written_beside_it_is_part_of_the_work(tmp_path: Path) -> None:
    # the chain goes on from a notice after the call; the call's result hangs off the call
    notice = {"type": "system", "subtype": "informational", "uuid": "n1", "parentUuid": "a1",
              "sessionId": "s-small", "timestamp": "2026-01-01T10:00:02.000Z", "content": "Hook ran."}
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Run the tests."),
        call(1, "a1", "u1", "t1", "Bash", {"command": "pytest"}),
        notice,
        result(3, "r1", "a1", "t1", "3 passed"),
        answer(4, "a2", "n1", "All pass."),
    ]))
    assert [(e.kind, e.abandoned) for e in s.events] == [
        ("user", False), ("tool_call", False), ("tool_result", False), ("agent_text", False)]


def test_a_call_on_a_split_line_beside_the_chain_and_its_result_are_part_of_the_work(tmp_path: Path) -> None:
    # one model message calling two tools, its lines siblings; the chain goes on from the second's result
    first = call(1, "m1", "u1", "t1", "Read", {"file_path": "a.py"})
    second = call(2, "m2", "u1", "t2", "Read", {"file_path": "b.py"})
    second["message"]["id"] = first["message"]["id"]
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Compare a.py and b.py."), first, second,
        result(3, "r1", "m1", "t1", "a = 1"),
        result(4, "r2", "m2", "t2", "b = 2"),
        answer(5, "a2", "r2", "They differ."),
    ]))
    assert [(e.kind, e.abandoned) for e in s.events] == [
        ("user", False), ("tool_call", False), ("tool_call", False), ("tool_result", False), ("tool_result", False),
        ("agent_text", False)]


def test_a_result_beside_the_chain_for_a_rewound_call_is_abandoned(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Fix the bug."),
        call(1, "a1", "u1", "t1", "Bash", {"command": "pytest"}),
        result(2, "r1", "a1", "t1", "1 failed"),
        call(3, "a2", "r1", "t2", "Bash", {"command": "git stash"}),
        result(4, "r9", "r1", "t2", "Saved working directory"),
        user(5, "u3", "r1", "Do not stash."),
        answer(6, "a3", "u3", "Fixed."),
    ]))
    assert [(e.text, e.abandoned) for e in s.events if e.kind == "tool_result"] == [
        ("1 failed", False), ("Saved working directory", True)]


def test_a_last_notice_outside_the_chain_does_not_move_the_leaf(tmp_path: Path) -> None:
    notice = {"type": "system", "subtype": "informational", "uuid": "n9", "parentUuid": None,
              "sessionId": "s-small", "timestamp": "2026-01-01T10:00:09.000Z", "content": "Session resumed."}
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Fix the bug."),
        answer(1, "a1", "u1", "Which bug?"),
        user(2, "u2", "a1", "The login bug."),
        user(3, "u3", "a1", "The signup bug."),
        answer(4, "a3", "u3", "Fixed signup."),
        notice,
    ]))
    assert [(e.text, e.abandoned) for e in s.events if e.kind == "user"] == [
        ("Fix the bug.", False), ("The login bug.", True), ("The signup bug.", False)]
