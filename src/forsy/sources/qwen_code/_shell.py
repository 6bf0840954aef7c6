"""What Qwen Code's shell tool says about how a command ended, in its result's words.

Qwen Code forked Gemini CLI's shell tool (QwenLM/qwen-code packages/core/src/tools/shell.ts,
read at 0103af5 and the 0.x form before it): the call's status is "success" whenever the command
ran, a non-zero exit included (only a spawn failure sets the tool's error), so only the text
tells a failed command. The words Gemini CLI also writes (`Exit Code: N`, a command cancelled by
the user) are read by Gemini's rules (`gemini._shell`); Qwen Code's own are read here:
from 0.15 every run writes `Exit Code: N` (0 on success, `(none)` for a killed command) and
`Signal: N` (or `(none)`), and its timeout opens `Command timed out after Nms`.
"""

from __future__ import annotations

import re

from ...payloads import ResultInfo
from ..gemini import SHELL_TOOLS, shell_outcome

# shell.ts: the signal that ended the command, after its output; `(none)` when it exited
_SIGNAL = re.compile(r"^Signal: (\d+)$", re.M)
# shell.ts: a command that ran past its timeout (the tool's own, or the one the model gave)
_TIMED_OUT = re.compile(r"\s*Command timed out after \d+ms before it could complete\.")


def qwen_shell_outcome(name: str | None, text: str, failed: bool, info: ResultInfo) -> bool:
    """Whether the call failed, reading the shell tool's words for it (its exit code and the
    rule that read a failure go to `info`)."""
    failed = shell_outcome(name, text, failed, info)
    if failed or name not in SHELL_TOOLS or info.exit_code is not None:
        return failed
    if _TIMED_OUT.match(text):
        failed, info.failure_rule = True, "R-call/qwen-shell-stopped"
    elif _SIGNAL.findall(text):  # killed by a signal: no exit code (the CLI's line is the last one)
        failed, info.failure_rule = True, "R-call/qwen-shell-signal"
    return failed
