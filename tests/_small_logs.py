"""Small hand-written Claude Code logs for tests whose expected values are worked out by hand.

Every record is one JSON line written with `json.dumps` defaults (`", "` and `": "`
separators), so a test can change one byte of a line without changing its length or what it
means (a space after a colon becomes a tab: same JSON, other bytes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION = "s-small"


def _rec(n: int, kind: str, content: Any, uuid: str, parent: str | None) -> dict[str, Any]:
    r: dict[str, Any] = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SESSION,
                         "version": "2.1.38", "cwd": "/home/dev/proj",
                         "timestamp": f"2026-01-01T10:00:{n:02d}.000Z", "message": {"role": kind, "content": content}}
    if kind == "assistant":
        r["message"].update({"id": f"msg_{uuid}", "model": "claude-test"})
    return r


def user(n: int, uuid: str, parent: str | None, text: str) -> dict[str, Any]:
    return _rec(n, "user", text, uuid, parent)


def call(n: int, uuid: str, parent: str, tid: str, name: str, inp: Any, text: str | None = None) -> dict[str, Any]:
    content = ([{"type": "text", "text": text}] if text else []) + [
        {"type": "tool_use", "id": tid, "name": name, "input": inp}]
    return _rec(n, "assistant", content, uuid, parent)


def calls(n: int, uuid: str, parent: str, *uses: tuple[str, str, Any]) -> dict[str, Any]:
    """One model message issuing several calls (tid, tool, input): a parallel group."""
    return _rec(n, "assistant", [{"type": "tool_use", "id": t, "name": name, "input": inp} for t, name, inp in uses],
                uuid, parent)


def result(n: int, uuid: str, parent: str, tid: str, out: str, err: bool = False) -> dict[str, Any]:
    return _rec(n, "user", [{"type": "tool_result", "tool_use_id": tid, "content": out, "is_error": err}],
                uuid, parent)


def answer(n: int, uuid: str, parent: str, text: str) -> dict[str, Any]:
    return _rec(n, "assistant", [{"type": "text", "text": text}], uuid, parent)


def write(path: Path, records: list[dict[str, Any]], extra_lines: dict[int, str] | None = None) -> Path:
    """The records as JSON lines; `extra_lines` puts raw lines (damaged ones) before record i."""
    lines = [json.dumps(r) for r in records]
    for i, raw in sorted((extra_lines or {}).items(), reverse=True):
        lines.insert(i, raw)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# The test-fix session of tests/test_confidence.py and tests/test_verify.py, step by step:
#   1 user      "Run the tests and fix what fails."
#   2 Bash      pytest -q           -> error "1 failed"          (reasoning: "Running the tests first.")
#   3 Bash      pytest -q           -> "3 passed"                (repeats the failed step 2)
#   4 Bash      git status          -> "nothing to commit"
#   5 Bash      git status          -> no result in the log      (repeats a call that succeeded)
#   6 answer    "All 3 tests pass now."
RETRY_SESSION = [
    user(0, "u1", None, "Run the tests and fix what fails."),
    call(1, "a1", "u1", "t1", "Bash", {"command": "pytest -q"}, "Running the tests first."),
    result(2, "r1", "a1", "t1", "F..\n1 failed, 2 passed", err=True),
    call(3, "a2", "r1", "t2", "Bash", {"command": "pytest -q"}),
    result(4, "r2", "a2", "t2", "...\n3 passed"),
    call(5, "a3", "r2", "t3", "Bash", {"command": "git status"}),
    result(6, "r3", "a3", "t3", "nothing to commit, working tree clean"),
    call(7, "a4", "r3", "t4", "Bash", {"command": "git status"}),
    answer(8, "a5", "a4", "All 3 tests pass now."),
]
