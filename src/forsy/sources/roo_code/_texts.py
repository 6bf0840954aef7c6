"""Text Roo Code writes into user-role messages and tool results: whose words each is.

Read from Roo Code's code (RooCodeInc/Roo-Code: core/prompts/responses.ts `formatResponse`,
core/task/Task.ts, core/assistant-message/presentAssistantMessage.ts, core/tools/*Tool.ts,
core/condense, core/webview/ClineProvider.ts), at 8de9337e63~1 for the XML protocol's wording
and at cb83656718 (April 2026) for the native one's:

* a tool's failure: `toolError` ("The tool execution failed with the following error:\\n<error>"
  for XML; `{"status":"error",…}` for native calls), `missingToolParameterError`, the
  `.rooignore` block, a command whose status line says "Exit code: N" (N ≠ 0) or "Process
  terminated by signal", a call not run ("Tool [X] was not executed because a tool has already
  been used in this message.", "This tool was not executed because new_task was called in the
  same message turn.", "Context condensation triggered. Tool execution deferred.");
* the person's refusal: "The user denied this operation." (XML), `{"status":"denied",…}`;
* the person's words inside Roo Code's wrappers: `<user_message>\\n…\\n</user_message>` (the
  task and its resumptions, feedback, answers, from January 2026: 0f08867656), before that
  `<task>`, `<feedback>` and `<answer>`; `{"status":"denied"|"approved"|"guidance","feedback":…}`;
* notices: `noToolsUsed`, "[TASK RESUMPTION]", `<environment_details>`, the subtask's return
  ("[new_task completed] Result: …" until November 2025; "Subtask <id> completed.\\n\\nResult:\\n…"
  after 9b5f6392df), a result turned to text after a condense ("Tool result:\\n…").
"""

from __future__ import annotations

import json
import re

DENIED = "The user denied this operation"
INJECTED = ("<environment_details>", "[TASK RESUMPTION]")
# block start -> note subtype: Roo Code's words, never the person's
NOTICES: tuple[tuple[str, str], ...] = (
    ("[ERROR] You did not use a tool in your previous response!", "no_tool_used"),
    ("[new_task completed] Result:", "subtask_completed"),
    ("Tool result:\n", "result_after_condense"),
    ("Invalid tool call: missing tool_use.id.", "xml_call_refused"),
    ("Tool repetition limit reached.", "repetition_limit"),
)
SUBTASK_DONE = re.compile(r"Subtask (\S+) completed\.\n\nResult:\n")
DELEGATED = re.compile(r"Delegated to child task (\S+)")
# the wrappers around the person's words: (tag, wrapper kind)
TAGS: tuple[tuple[str, str], ...] = (
    ("<user_message>", "user_message"), ("<task>", "task"), ("<feedback>", "feedback"), ("<answer>", "answer"),
)
FAILURES: tuple[str, ...] = (
    "The tool execution failed with the following error:",
    "Missing value for required parameter",
    "This tool was not executed because new_task was called",
    "Context condensation triggered. Tool execution deferred.",
    "Command failed to execute in terminal",
    "Invalid JSON argument used with",
    "Working directory '",
)
BLOCKED = re.compile(r"Access to .+ is blocked by the \.rooignore file settings\.")
NOT_RUN = re.compile(r"Tool \[[\w-]+\] was not executed because a tool has already been used in this message\.")
# a call skipped after the person rejected an earlier one of the message (its description after "tool")
SKIPPED = re.compile(r"(?:Skipping tool|Tool|Skipping MCP tool|MCP tool) \[?([A-Za-z_][\w-]*).*?(?:was interrupted and "
                     r"not executed )?due to user rejecting a previous tool\.", re.S)
EXIT = re.compile(r"Command executed in (?:terminal )?.*?\. (?:Command execution was not successful, inspect the cause "
                  r"and adjust as needed\.\n)?(?:Exit code: (-?\d+|<undefined, notify user>)|Process terminated by "
                  r"signal)", re.S)


def status(text: str) -> dict[str, object] | None:
    """The JSON object a native result opens with (`{"status": …}`), else None."""
    body = text.lstrip()
    if not body.startswith('{"status":'):
        return None
    try:
        obj, _ = json.JSONDecoder().raw_decode(body)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) and isinstance(obj.get("status"), str) else None


def denied(text: str) -> bool:
    st = status(text)
    return (st is not None and st.get("status") == "denied") or text.lstrip().startswith(DENIED)


def failed(text: str) -> bool | None:
    """Whether a result is one of Roo Code's failures (True) or not (False); None when it is a
    command's whose end Roo Code could not tell (its exit code unknown, or still running)."""
    body = text.lstrip()
    st = status(body)
    if st is not None:
        return st.get("status") == "error"
    if body.startswith(FAILURES) or BLOCKED.match(body) or NOT_RUN.match(body):
        return True
    if body.startswith("Command is still running in terminal"):
        return None
    m = EXIT.match(body)
    if m is None:
        return False
    code = m.group(1)
    if code is None:  # terminated by a signal
        return True
    return None if not code.lstrip("-").isdigit() else code != "0"


def notice(text: str) -> str | None:
    """The subtype of a block Roo Code wrote whole, None when it may hold the person's words."""
    body = text.lstrip()
    if SUBTASK_DONE.match(body):
        return "subtask_completed"
    return next((kind for start, kind in NOTICES if body.startswith(start)), None)


def wrapped(text: str) -> tuple[str, tuple[int, int]] | None:
    """(wrapper, span) of the person's words inside the first of Roo Code's tags in `text`
    (`<tag>\\n…\\n</tag>`), None when it holds none."""
    best: tuple[int, str, str] | None = None
    for tag, kind in TAGS:
        i = text.find(tag + "\n")
        if i >= 0 and (best is None or i < best[0]):
            best = (i, tag, kind)
    if best is None:
        return None
    i, tag, kind = best
    close = text.rfind("\n</" + tag[1:])
    a = i + len(tag) + 1
    return (kind, (a, close)) if close >= a else None


def feedback(text: str) -> list[tuple[str, tuple[int, int]]]:
    """The person's words inside a result: a native status's `feedback` (its slice of the
    JSON's text, when the JSON escapes nothing in it), or XML wrappers after Roo Code's words."""
    st = status(text)
    if st is not None:
        words = st.get("feedback")
        if isinstance(words, str) and words.strip():
            quoted = json.dumps(words)[1:-1]
            i = text.find(quoted)
            if i >= 0 and quoted == words:
                return [("status_feedback", (i, i + len(words)))]
            return [("status_feedback", (-1, -1))]
        return []
    found = wrapped(text)
    return [found] if found is not None else []
