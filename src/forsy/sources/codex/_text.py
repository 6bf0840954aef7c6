"""Reading the texts of a Codex rollout: injected context, tool outputs, failure signs.

Every rule here only recognises what Codex itself writes; nothing is guessed from wording
a person might type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from .._records import too_deep

# Context Codex injects as user/developer messages. Tags in KNOWN_TAGS count even when the
# text was cut before its closing tag; any other `<tag>` block counts only when the text is
# exactly one `<tag>…</tag>` element (a person rarely types that).
KNOWN_TAGS = frozenset(
    {
        "environment_context",
        "user_instructions",
        "INSTRUCTIONS",
        "turn_aborted",
        "user_shell_command",
        "skill",
        "permissions instructions",
        "collaboration_mode",
        "skills_instructions",
        "plugins_instructions",
        "apps_instructions",
        "multi_agent_mode",
        "subagent_notification",
        "model_switch",
        "personality_spec",
        "realtime_conversation",
    }
)
_OPEN_TAG = re.compile(r"<([A-Za-z_][\w\-]*(?: [\w\-]+)*)>")
AGENTS_MD = "# AGENTS.md instructions"
IDE_CONTEXT = "# Context from my IDE setup"
# Codex Desktop / the IDE extension put the files a person points at above their words,
# then this line, then what they typed.
REQUEST_MARKER = "## My request for Codex:"


# Codex's compaction texts sent in the user's place (core/templates/compact/prompt.md, its
# 2025 wording, and summary_prefix.md, which opens the summary the next turns get)
COMPACTION_TEXTS = {
    "compaction_prompt": ("You are performing a CONTEXT CHECKPOINT COMPACTION.",
                          "You have exceeded the maximum number of tokens, please stop coding and instead write a "
                          "short memento message for the next agent."),
    "compaction_summary": ("Another language model started to solve this problem and produced a summary",),
}


def context_kind(text: str) -> str | None:
    """The kind of injected context a message text is, or None for words a person typed."""
    s = text.lstrip()
    if s.startswith(AGENTS_MD):
        return "agents_md"
    for kind, starts in COMPACTION_TEXTS.items():
        if s.startswith(starts):
            return kind
    if s.startswith(IDE_CONTEXT) and REQUEST_MARKER not in s:
        return "ide_context"
    m = _OPEN_TAG.match(s)
    if m is None:
        return None
    tag = m.group(1)
    if tag in KNOWN_TAGS or s.rstrip().endswith(f"</{tag}>"):
        return tag.replace(" ", "_")
    return None


def request_span(text: str) -> tuple[int, int] | None:
    """Where the typed words are in an IDE-wrapped message: after the marker line."""
    at = text.find(REQUEST_MARKER)
    if at < 0:
        return None
    start = at + len(REQUEST_MARKER)
    if text.startswith("\n", start):
        start += 1
    return start, len(text)


_ENV_CWD = re.compile(r"<cwd>([^<\n]+)</cwd>")


def env_cwd(text: str) -> str | None:
    m = _ENV_CWD.search(text)
    return m.group(1) if m else None


# ---------------------------------------------------------------- tool outputs

# Prefixes of the messages Codex itself returns to the model when a call failed before or
# instead of running (FunctionCallError::RespondToModel and the approval paths).
FAILURE_PREFIXES = (
    "failed to parse function arguments",
    "unsupported call",
    "execution error:",
    "exec command rejected by user",
    "patch rejected by user",
    "apply_patch verification failed",
)
# what Codex answers the model when the person declines an approval (exec and apply_patch)
REJECTIONS = ("exec command rejected by user", "patch rejected by user")
# Codex's failure messages that reach the rollout with no success flag and no exit header
# (older versions wrote FunctionCallOutputPayload as its text alone): the sandbox's and the
# unified exec's error forms (`failed in sandbox {type:?} with execution error: {err}`,
# SandboxErr::Denied `sandbox denied exec error, exit code: N, ...`, `exec_command failed for
# `cmd`: CreateProcess { message: "Codex(Sandbox(Denied { output: ExecToolCallOutput {
# exit_code: N ...`), the unified exec handler's own (`exec_command failed: {err:?}`,
# `write_stdin failed: {err}` when the process is gone or its stdin closed, and the two
# `failed to parse exec_command|write_stdin arguments: {err:?}`), and the apply_patch crate's
# parse and match errors. Rule R-call/codex-failure-text; the exit code such a message states
# is read from it.
FAILURE_TEXTS = (
    *FAILURE_PREFIXES,
    "failed in sandbox ",
    "sandbox denied exec error",
    "exec_command failed for ",
    "exec_command failed: ",
    "write_stdin failed: ",
    "failed to parse exec_command arguments",
    "failed to parse write_stdin arguments",
    "error: invalid hunk",
    "error: invalid patch",
    "invalid hunk at line ",
    "invalid patch: ",
    "Failed to find expected lines",
    "error: Failed to find expected lines",
)
_STATED_CODE = re.compile(r"exit[_ ]code: (-?\d+)")
# Codex cuts long outputs before the model sees them and says so in the text: in the middle
# under its token or its byte policy (codex-rs utils/string truncate.rs: `…N tokens truncated…`,
# `…N chars truncated…`), the text items past the budget of a list (`[omitted N text items ...]`),
# and the older line cut.
_TRUNCATED = re.compile(r"…\d+ (?:tokens|chars) truncated…|\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]"
                        r"|\[omitted \d+ text items \.\.\.\]")
_EXIT = re.compile(r"(?:Exit code: |Process exited with code )(-?\d+)")
_WALL = re.compile(r"Wall time: ([0-9]+(?:\.[0-9]+)?) seconds")
_RUNNING = re.compile(r"Process running with session ID (\d+)")


@dataclass(slots=True)
class Output:
    text: str | None
    inner: str | None = None  # pointer inside the JSON held by the string, when text came from it
    exit_code: int | None = None
    duration_s: float | None = None
    success: bool | None = None
    exec_session: int | None = None  # unified exec: the process still runs under this id
    extra: bool = False  # the JSON form held more than output + exit code + duration


def parse_output(s: str) -> Output:
    """A tool output string in one of the shapes Codex writes.

    * JSON `{"output": "...", "metadata": {"exit_code": N, "duration_seconds": X}}`
      (shell and apply_patch in 2025–2026): text is the `output` string;
    * a text header ending with an `Output:` line (`Exit code: N`, `Wall time: X seconds`,
      `Process exited with code N`, `Process running with session ID N`): text is the
      whole string, the header gives exit code and duration;
    * anything else: the string as it is.
    """
    if s.startswith("{") and s.rstrip().endswith("}"):
        out = _json_output(s)
        if out is not None:
            return out
    return _header_output(s)


def _json_output(s: str) -> Output | None:
    try:
        obj = orjson.loads(s)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("output"), str):
        return None
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    code = meta.get("exit_code")
    dur = meta.get("duration_seconds")
    extra = bool(set(obj) - {"output", "metadata"} or set(meta) - {"exit_code", "duration_seconds"})
    return Output(
        obj["output"],
        "/output",
        code if isinstance(code, int) and not isinstance(code, bool) else None,
        float(dur) if isinstance(dur, int | float) and not isinstance(dur, bool) else None,
        extra=extra,
    )


def _header_output(s: str) -> Output:
    out = Output(s)
    end = s.find("\nOutput:")
    if end < 0 or end > 2000:
        return out
    header = s[:end]
    if m := _EXIT.search(header):
        out.exit_code = int(m.group(1))
    if m := _WALL.search(header):
        out.duration_s = float(m.group(1))
    if out.exit_code is None and (m := _RUNNING.search(header)):
        out.exec_session = int(m.group(1))
    return out


def failed_by_text(text: str | None) -> bool:
    return bool(text) and text is not None and text.lstrip().startswith(FAILURE_TEXTS)


def stated_exit_code(text: str | None) -> int | None:
    """The exit code one of Codex's failure messages states (FAILURE_TEXTS), else None."""
    if not failed_by_text(text) or text is None:
        return None
    m = _STATED_CODE.search(text[:4000])
    return int(m.group(1)) if m else None


def is_error(exit_code: int | None, success: bool | None, text: str | None) -> bool | None:
    """The error flag of a tool result.

    True when the exit code is known and not 0, when Codex marked the call unsuccessful
    (`success: false` in the output, patch_apply_end or mcp_tool_call_end), or when the
    output is one of Codex's own failure messages; False when the exit code is 0 or
    Codex marked it successful; None when the log does not say.
    """
    if (exit_code is not None and exit_code != 0) or success is False or failed_by_text(text):
        return True
    if exit_code == 0 or success is True:
        return False
    return None


def json_args(raw: Any) -> tuple[Any, bool]:
    """Function-call arguments: parsed from their JSON string; (raw, False) when unparsable."""
    if not isinstance(raw, str):
        return raw, True
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw, False
    # nested past what the later stages walk (the redactor, the writer): kept as the text it is
    return (raw, False) if too_deep(raw.encode("utf-8", "surrogatepass"), value) else (value, True)


def truncated_by_codex(text: str | None) -> bool:
    return text is not None and _TRUNCATED.search(text) is not None
