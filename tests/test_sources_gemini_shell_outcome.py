"""Gemini CLI's shell tool result as tools/shell.ts writes it: the command's output first, then
the CLI's own lines (`Error:`, `Exit Code: N` when N is not 0, `Signal:`, `Process Group
PGID:`), so the last `Exit Code` line is the CLI's, whatever the output holds; and a command the
CLI stopped (its timeout, or the person) opens with the CLI's words and has no exit status.
Before, the first `Exit Code` line decided, and a stopped command was a success."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _gemini_view import read, write_lines
from forsy.payloads import ResultInfo

HEAD = {"sessionId": "s-g", "projectHash": "h"}
SHELL = "run_shell_command"


def _results(tmp_path: Path, outputs: list[str]) -> list[tuple[Any, Any, Any]]:
    calls = [{"id": f"c{i}", "name": SHELL, "status": "success", "args": {"command": "x"},
              "result": [{"functionResponse": {"id": f"c{i}", "name": SHELL, "response": {"output": out}}}]}
             for i, out in enumerate(outputs)]
    p = write_lines(tmp_path / "g.jsonl", [HEAD, {"id": "u", "timestamp": "2026-01-01T00:00:00Z", "type": "user",
                                                   "content": "run it"},
                                            {"id": "g1", "timestamp": "2026-01-01T00:00:01Z", "type": "gemini",
                                             "content": "", "toolCalls": calls}])
    s = read(p)
    return [(e.is_error, e.info.exit_code if isinstance(e.info, ResultInfo) else None,
             e.info.failure_rule if isinstance(e.info, ResultInfo) else None)
            for e in s.events if e.kind == "tool_result"]


def test_the_last_exit_code_line_is_the_clis(tmp_path: Path) -> None:
    inner_zero = "Output: running suite\nExit Code: 0\nok\nError: boom\nExit Code: 1\nProcess Group PGID: 5"
    assert _results(tmp_path, [inner_zero, "Output: fine\nExit Code: 3"]) == [
        (True, 1, "R-call/gemini-exit-code"), (True, 3, "R-call/gemini-exit-code")]
    assert _results(tmp_path, ["Output: hello\nProcess Group PGID: 7"]) == [(False, None, None)]


def test_a_command_the_cli_stopped_failed(tmp_path: Path) -> None:
    timeout = ("Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output. "
               "There was no output before it was cancelled.")
    user = "Command was cancelled by user before it could complete. Below is the output before it was cancelled:\nx"
    assert _results(tmp_path, [timeout, "<untrusted_context>\n" + user]) == [
        (True, None, "R-call/gemini-stopped"), (True, None, "R-call/gemini-stopped")]
