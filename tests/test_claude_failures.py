"""Every way Claude Code records a failed tool call, each read as a failure.

The shapes are the writer's own (copied from real transcripts, paths and texts shortened): a
`tool_result` with `"is_error": true` and its content as a string or as a list of text blocks,
with `toolUseResult` the same text behind `Error: `; a call the user rejects or interrupts (the
rejection's result, then a `[Request interrupted by user for tool use]` line); a PreToolUse hook
that blocks the call (its output is the result); a permission the user has not granted. A
successful call sits beside each, so a reader that read every call alike fails.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _oracle import retrace
from _small_logs import _rec, answer, call, user, write

REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a "
            "file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the "
            "user to tell you how to proceed.")
INTERRUPTED = "[Request interrupted by user for tool use]"
DENIED = "Claude requested permissions to write to /home/dev/proj/CLAUDE.md, but you haven't granted it yet."
HOOK = "Pre-commit validation failed:\n\n[FORMAT] Code is not formatted.\nRun 'mix format' to fix."
ERROR = "Error: "
FAILED = "The tool returned an error."


def _result(n: int, uuid: str, parent: str, tid: str, content: Any, err: bool | None,
            rich: Any = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": content}
    if err is not None:
        block["is_error"] = err
    r = _rec(n, "user", [block], uuid, parent)
    if rich is not None:
        r["toolUseResult"] = rich
    return r


def _ok(n: int, parent: str) -> list[dict[str, Any]]:
    """A successful call after the failed one, and the closing answer."""
    return [call(n, "ok-call", parent, "t-ok", "Bash", {"command": "ls"}),
            _result(n + 1, "ok-result", "ok-call", "t-ok", "README.md", False,
                    {"stdout": "README.md", "stderr": "", "interrupted": False, "isImage": False}),
            answer(n + 2, "end", "ok-result", "Done.")]


def _calls(tmp_path: Path, records: list[dict[str, Any]]) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """The trace, and its tool-call steps as (tool, success, eval, eval_reason, output)."""
    [trace] = retrace(write(tmp_path / "s.jsonl", records), tmp_path / "out")
    return trace, [(st["tool"], st["success"], st["eval"], st["eval_reason"], st["output"])
                   for st in trace["steps"] if st["action"] == "agent_step" and st["tool"]]


def test_an_error_flag_with_text_content_is_a_failure(tmp_path: Path) -> None:
    records = [user(0, "u1", None, "Run it."), call(1, "a1", "u1", "t1", "Bash", {"command": "false"}),
               _result(2, "r1", "a1", "t1", "Exit code 1", True, ERROR + "Exit code 1"), *_ok(3, "r1")]
    _, calls = _calls(tmp_path, records)
    assert calls == [("Bash", False, -1, FAILED, "Exit code 1"), ("Bash", True, 0, None, "README.md")]


def test_an_error_flag_with_a_list_of_text_blocks_is_a_failure(tmp_path: Path) -> None:
    content = [{"type": "text", "text": "<tool_use_error>File does not exist.</tool_use_error>"},
               {"type": "text", "text": "Current working directory: /home/dev/proj"}]
    records = [user(0, "u1", None, "Read it."), call(1, "a1", "u1", "t1", "Read", {"file_path": "/nope"}),
               _result(2, "r1", "a1", "t1", content, True), *_ok(3, "r1")]
    _, calls = _calls(tmp_path, records)
    assert calls == [("Read", False, -1, FAILED, "<tool_use_error>File does not exist.</tool_use_error>\n"
                      "Current working directory: /home/dev/proj"), ("Bash", True, 0, None, "README.md")]


def test_a_call_the_user_rejects_and_interrupts_failed_and_the_interrupt_is_kept(tmp_path: Path) -> None:
    records = [user(0, "u1", None, "Clean up."), call(1, "a1", "u1", "t1", "Bash", {"command": "rm -r build"}),
               _result(2, "r1", "a1", "t1", REJECTED, True, "User rejected tool use"),
               _rec(3, "user", [{"type": "text", "text": INTERRUPTED}], "i1", "r1"),
               user(4, "u2", "i1", "Only the cache."), *_ok(5, "u2")]
    trace, calls = _calls(tmp_path, records)
    assert calls == [("Bash", False, -1, "The user rejected this tool call.", REJECTED),
                     ("Bash", True, 0, None, "README.md")]
    [rejected] = [st for st in trace["steps"] if st["output"] == REJECTED]
    assert rejected["state_change"] == "No change: the tool call was rejected, so it did not run."
    [_, again] = [st for st in trace["steps"] if st["action"] == "user_message"]
    assert again["causal_note"] == "The user interrupted the agent 1 time(s) before this message."


def test_a_session_that_ends_on_the_interrupt_was_abandoned_by_the_user(tmp_path: Path) -> None:
    records = [user(0, "u1", None, "Clean up."), call(1, "a1", "u1", "t1", "Bash", {"command": "rm -r build"}),
               _result(2, "r1", "a1", "t1", REJECTED, True, ERROR + REJECTED),
               _rec(3, "user", [{"type": "text", "text": INTERRUPTED}], "i1", "r1")]
    trace, calls = _calls(tmp_path, records)
    assert calls == [("Bash", False, -1, "The user rejected this tool call.", REJECTED)]
    assert trace["termination_reason"] == "user_abandoned"


def test_a_running_call_the_user_interrupts_is_a_failure(tmp_path: Path) -> None:
    records = [user(0, "u1", None, "Run the tests."), call(1, "a1", "u1", "t1", "Bash", {"command": "pytest"}),
               _result(2, "r1", "a1", "t1", INTERRUPTED, True, ERROR + INTERRUPTED), *_ok(3, "r1")]
    _, calls = _calls(tmp_path, records)
    assert calls == [("Bash", False, -1, FAILED, INTERRUPTED), ("Bash", True, 0, None, "README.md")]


def test_a_call_a_hook_blocks_is_a_failure(tmp_path: Path) -> None:
    records = [user(0, "u1", None, "Commit."), call(1, "a1", "u1", "t1", "Bash", {"command": "git commit -m x"}),
               _result(2, "r1", "a1", "t1", HOOK, True, ERROR + HOOK), *_ok(3, "r1")]
    _, calls = _calls(tmp_path, records)
    assert calls == [("Bash", False, -1, FAILED, HOOK), ("Bash", True, 0, None, "README.md")]


def test_a_call_without_permission_is_a_failure(tmp_path: Path) -> None:
    records = [user(0, "u1", None, "Note it."),
               call(1, "a1", "u1", "t1", "Write", {"file_path": "/home/dev/proj/CLAUDE.md", "content": "x"}),
               _result(2, "r1", "a1", "t1", DENIED, True, ERROR + DENIED), *_ok(3, "r1")]
    _, calls = _calls(tmp_path, records)
    assert calls == [("Write", False, -1, FAILED, DENIED), ("Bash", True, 0, None, "README.md")]


def test_an_error_text_in_tool_use_result_without_the_flag_is_a_failure(tmp_path: Path) -> None:
    # the writer puts `Error: ` before the text of every failed call's toolUseResult; a result
    # that lacks the flag but says so is a failure, and a success's toolUseResult is no text
    records = [user(0, "u1", None, "Run it."), call(1, "a1", "u1", "t1", "Bash", {"command": "false"}),
               _result(2, "r1", "a1", "t1", "Exit code 1", None, ERROR + "Exit code 1"),
               call(3, "a2", "r1", "t2", "Bash", {"command": "echo Error: none"}),
               _result(4, "r2", "a2", "t2", "Error: none", None,
                       {"stdout": "Error: none", "stderr": "", "interrupted": False, "isImage": False}),
               *_ok(5, "r2")]
    _, calls = _calls(tmp_path, records)
    assert calls == [("Bash", False, -1, FAILED, "Exit code 1"), ("Bash", True, 0, None, "Error: none"),
                     ("Bash", True, 0, None, "README.md")]
