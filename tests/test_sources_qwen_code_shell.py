"""Qwen Code's shell tool says how a command ended only in its result's words
(QwenLM/qwen-code packages/core/src/tools/shell.ts): the call's status is "success" whenever the
command ran, a non-zero exit included; only a spawn failure sets the tool's error. The 0.x tool
writes `Exit Code: N` after the output when N is not 0 (Gemini CLI's text, forked); from 0.15
every run writes `Exit Code: N` (0 on success, `(none)` when killed) and `Signal: N|(none)`.
A command the CLI stopped opens with `Command timed out after Nms before it could complete.` or
`Command was cancelled by user before it could complete.`. Before, the status alone decided, so
a failed test run was a successful step."""

from __future__ import annotations

from pathlib import Path

from forsy.payloads import ResultInfo
from forsy.sources import ReadContext
from test_sources_qwen_code import SRC, Log, call

SHELL = "run_shell_command"


def _results(tmp_path: Path, outputs: list[str]) -> list[tuple[bool | None, int | None, str | None]]:
    log = Log()
    log.user("run the suite", shown="run the suite")
    for i, out in enumerate(outputs):
        log.model(call(f"c{i}", SHELL, command="python -m pytest -q"))
        log.result(f"c{i}", SHELL, "success", output=out)
    p = log.write(tmp_path / "chats" / "s.jsonl")
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    return [(e.is_error, e.info.exit_code if isinstance(e.info, ResultInfo) else None,
             e.info.failure_rule if isinstance(e.info, ResultInfo) else None)
            for e in s.events if e.kind == "tool_result"]


def test_a_non_zero_exit_is_a_failed_step_whatever_the_status(tmp_path: Path) -> None:
    old = "Output: 1 failed, 4 passed\nExit Code: 1\nProcess Group PGID: 4242"  # 0.x: the line only when N != 0
    new = ("Command: python -m pytest -q\nDirectory: (root)\nOutput: 1 failed\nError: (none)\nExit Code: 2\n"
           "Signal: (none)\nProcess Group PGID: 4242")
    ok = ("Command: python -m pytest -q\nDirectory: (root)\nOutput: 5 passed\nError: (none)\nExit Code: 0\n"
          "Signal: (none)\nProcess Group PGID: 4242")
    assert _results(tmp_path, [old, new, ok]) == [
        (True, 1, "R-call/gemini-exit-code"), (True, 2, "R-call/gemini-exit-code"), (False, 0, None)]


def test_a_command_killed_or_stopped_failed(tmp_path: Path) -> None:
    killed = ("Command: sleep 99\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: (none)\n"
              "Signal: 9\nProcess Group PGID: 4242")
    timeout = "Command timed out after 120000ms before it could complete. There was no output before it timed out."
    user = "Command was cancelled by user before it could complete. Below is the output before it was cancelled:\nx"
    assert _results(tmp_path, [killed, timeout, user]) == [
        (True, None, "R-call/qwen-shell-signal"), (True, None, "R-call/qwen-shell-stopped"),
        (True, None, "R-call/gemini-stopped")]
