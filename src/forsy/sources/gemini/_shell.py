"""What Gemini CLI's shell tool says about how a command ended, in its result's words.

The tool's status is "success" whenever the command ran, whatever its exit status; only its
text tells a failed command (tools/shell.ts). Read from a chat's result (the output the model
got) and from a headless stream's result (the display the CLI showed, `_stream_json`).
"""

from __future__ import annotations

import re

from ...payloads import ResultInfo

SHELL_TOOLS = frozenset({"run_shell_command"})
# tools/shell.ts: its output has an `Exit Code: N` line when N is not 0; from July 2025 to January
# 2026 it wrote the line for every command, `Exit Code: 0` on success (R-call/gemini-exit-code: N ≠ 0)
_SHELL_EXIT = re.compile(r"^Exit Code: (-?\d+)$", re.M)
# tools/shell.ts returnDisplay: what the CLI shows for a command that printed nothing and exited
# with N ≠ 0 (the display the headless stream carries); the same rule reads it
_DISPLAY_EXIT = re.compile(r"Command exited with code: (-?\d+)")
# tools/shell.ts: a command the CLI stopped (its timeout, or the person) opens its result with these
_SHELL_STOPPED = re.compile(r"\s*Command was (?:automatically cancelled because it exceeded the timeout|cancelled by "
                            r"user before it could complete)")
UNTRUSTED = "<untrusted_context>\n"  # the wrapper newer versions put around a tool's output for the model


def shell_outcome(name: str | None, text: str, failed: bool, info: ResultInfo, *, display: bool = False) -> bool:
    """Whether the call failed, reading the shell tool's words for it (its exit code and the
    rule that read a failure go to `info`); `display`: the text is what the CLI showed."""
    if name not in SHELL_TOOLS:
        return failed
    # the CLI writes its own lines after the command's output, which may hold the same words:
    # the last `Exit Code` line is the CLI's
    codes = _SHELL_EXIT.findall(text)
    shown = _DISPLAY_EXIT.fullmatch(text) if display else None
    if shown is not None:
        codes = [shown[1]]
    if codes:
        info.exit_code = int(codes[-1])
        if not failed and info.exit_code != 0:  # the command failed though the tool ran: its output says so
            failed, info.failure_rule = True, "R-call/gemini-exit-code"
    elif not failed and _SHELL_STOPPED.match(text.removeprefix(UNTRUSTED)):
        failed, info.failure_rule = True, "R-call/gemini-stopped"  # the CLI stopped it: no exit status
    return failed
