"""Text Cline writes into user-role messages: whose words each block is.

Cline sends the model a user-role message after each step, and only some of its blocks are
words the person typed. The rest Cline wrote (read from Cline's own code: the strings of
`core/prompts/responses.ts` `formatResponse`, the attempt_completion and feedback handlers
of `core/task/tools`, `integrations/terminal` and `integrations/misc/extract-text.ts`):

* notices and reminders: `noToolsUsed` ("[ERROR] You did not use a tool in your previous
  response!..."), the plan-mode resumption filler "(The user did not provide a new
  message...)", the context-truncation notices, the condense acknowledgement, a hook's
  `<hook_context>`, the file-state alert;
* wrappers around the person's words: "The user has provided feedback on the results..."
  (its own block, then `<feedback>\n<words>\n</feedback>` in the next),
  "The user provided the following feedback:\n<feedback>...", the "trouble proceeding"
  wrapper, "New instructions for task continuation:\n<user_message>...";
* attachments: "Files attached by the user:\n\n<file_content path=...>";
* a command's output, when Cline spreads a call's result as plain blocks (no tool_use id to
  answer): "Command executed successfully (exit code 0).", "Command failed with exit code
  N.", "Command terminated by signal ...", "Command executed.", "Command is still running in
  the user's terminal."
* a call Cline did not run, written in place of its result (`not_run`): skipped after the
  person rejected an earlier call, or refused because one had already run.

`harness_kind` names the kind of a block Cline wrote whole (a `note` of actor `system`, or
for a command's output, the result of the call it answers); `wrapped_words` finds the
person's words inside a wrapper (a `user` event citing that slice).
"""

from __future__ import annotations

import re

# block start -> kind: text Cline wrote whole, never the person's words
NOTICES: tuple[tuple[str, str], ...] = (
    ("[ERROR] You did not use a tool in your previous response!", "no_tool_used"),
    ("The user has provided feedback on the results.", "completion_feedback_wrapper"),
    ("(The user did not provide a new message.", "no_new_message"),
    ("Files attached by the user:", "files_attached"),
    ("The user provided additional content:", "additional_content"),
    ("[NOTE] Some previous conversation history with the user has been removed", "context_truncated"),
    ("[[NOTE] This file read has been removed", "duplicate_read_removed"),
    ("[Continue assisting the user!]", "truncation_filler"),
    ("The user has accepted the condensed conversation summary", "condense_accepted"),
    ("<hook_context", "hook_context"),
    ("<explicit_instructions>\nCRITICAL FILE STATE ALERT", "file_state_alert"),
)
# a notice with the tool's name in it (ToolExecutor.ts `repeatedToolCall`, loop detection, at
# cline/cline 864419d8b0): kind -> how it starts
NAMED_NOTICES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Tool \[[\w-]+\] has been called \d+ times consecutively with identical arguments\."),
     "repeated_tool_call"),
)
COMMAND_STATUS = re.compile(
    r"Command (?:executed successfully \(exit code (?P<ok>0)\)\.|failed with exit code (?P<code>-?\d+)\."
    r"|terminated by signal (?P<signal>[^\n]*?)\.|executed\.|is still running in the user's terminal\.)")
# wrappers around the person's words: (start of the block, the tags around the words)
WRAPPERS: tuple[tuple[str, str, str], ...] = (
    ("<feedback>", "feedback", "<feedback>"),
    ("The user provided the following feedback:", "tool_feedback", "<feedback>"),
    ("You seem to be having trouble proceeding.", "mistake_limit_feedback", "<feedback>"),
    ("New instructions for task continuation:", "task_resumption_message", "<user_message>"),
    ("New message to respond to with plan_mode_respond tool", "task_resumption_message", "<user_message>"),
    # attempt_completion's answer until November 2025 (d6ebd2438a split it in two blocks): the
    # wrapper and the words in one block, which `harness_kind` names first; read for the words
    ("The user has provided feedback on the results.", "completion_feedback", "<feedback>"),
)


# the text a result of the old API history opens with (`[<tool> for '...'] Result:`), and the
# context Cline injected into a user turn (responses.ts, the environment details, the reminders)
RESULT = re.compile(r"\[([A-Za-z_][\w-]*)(?: for [^\n]*?)?\] Result:")
INJECTED = ("<environment_details>", "# task_progress", "# TODO LIST UPDATE REQUIRED", "[TASK RESUMPTION]")


# a command's result that states no exit status: Cline could not read one from the terminal
# ("Command executed.", its wording until February 2026), or the command had not ended yet
STATUS_UNKNOWN = ("Command executed.", "Command is still running in the user's terminal.")


def no_status(text: str) -> bool:
    """Whether a command's result (its `[execute_command for '…'] Result:` header, if any, first)
    says it ran without saying whether it worked."""
    body = text.lstrip()
    head = RESULT.match(body)
    m = COMMAND_STATUS.match(body[head.end():].lstrip() if head else body)
    return m is not None and m.group(0) in STATUS_UNKNOWN


def harness_kind(text: str) -> str | None:
    """The kind of a block Cline wrote whole, None when it may hold the person's words."""
    body = text.lstrip()
    for start, kind in NOTICES:
        if body.startswith(start):
            return kind
    if COMMAND_STATUS.match(body):
        return "command_output"
    return next((kind for pattern, kind in NAMED_NOTICES if pattern.match(body)), None)


# a call Cline did not run, written as a plain text block in place of its result (so a native
# tool_use is left with no tool_result; ToolExecutor.ts at cline/cline 864419d8b0): skipped after
# the person rejected an earlier call of the message (`createToolRejectionMessage`: the reason, then
# the call's description `[<tool> for '…']`), or refused because one call had already run
# (`toolAlreadyUsed`, when parallel calls are off)
SKIPPED = re.compile(r"(?:Skipping tool|Tool was interrupted and not executed) due to user rejecting a previous "
                     r"tool\. \[([A-Za-z_][\w-]*)[\] ]")
NOT_RUN = re.compile(r"Tool \[([A-Za-z_][\w-]*)\] was not executed because a tool has already been used in this "
                     r"message\.")
# the same skip before August 2025 (Cline.ts from 99f4e06024, ToolExecutor.ts to 971ac0fdeb): the
# call's description first, `Skipping tool [<tool> for '…'] due to…` (`…` may span lines), and `Tool
# [<tool> …] was interrupted and not executed due to…` for a call still streaming
SKIPPED_BEFORE = re.compile(r"(?:Skipping tool|Tool) \[([A-Za-z_][\w-]*)(?: for .*?)?\] (?:was interrupted and not "
                            r"executed )?due to user rejecting a previous tool\.", re.S)


def not_run(text: str) -> tuple[str, bool] | None:
    """(the tool it names, whether the person's rejection skipped it) for a call Cline did not run."""
    body = text.lstrip()
    m = SKIPPED.match(body) or SKIPPED_BEFORE.match(body)
    if m:
        return m.group(1), True
    m = NOT_RUN.match(body)
    return (m.group(1), False) if m else None


def command_failed(text: str) -> bool | None:
    """Whether a command output Cline wrote says the command failed (None: it does not say)."""
    m = COMMAND_STATUS.match(text.lstrip())
    if m is None:
        return None
    if m.group("ok") is not None:
        return False
    if m.group("code") is not None or m.group("signal") is not None:
        return True
    return None


def wrapped_words(text: str) -> tuple[str, tuple[int, int]] | None:
    """(wrapper kind, the span of the person's words) when the block is one of Cline's wrappers."""
    body = text.lstrip()
    for start, kind, tag in WRAPPERS:
        if not body.startswith(start):
            continue
        close = "</" + tag[1:]
        i = text.find(tag + "\n")
        j = text.rfind("\n" + close)
        if i < 0 or j < i + len(tag) + 1:
            return None
        return kind, (i + len(tag) + 1, j)
    return None


# Cline's failure messages inside a call's result (responses.ts `formatResponse`: toolError,
# missingToolParameterError, clineIgnoreError, permissionDeniedError, diffError's reasons, the
# write/replace "parameter was empty" errors; CommandOrchestrator's status line)
FAILURES: tuple[str, ...] = (
    "The tool execution failed with the following error:",
    "Missing value for required parameter",
    "Command execution blocked by CLINE_COMMAND_PERMISSIONS",
    "This is likely because the SEARCH block content doesn't match",
)
BLOCKED = re.compile(r"Access to .+ is blocked by the \.clineignore file settings\.")
EMPTY_PARAMETER = re.compile(r"Failed to (?:write to|edit) '[^']*': The '(?:content|diff)' parameter was empty\.")


def result_failed(text: str) -> bool:
    """Whether a call's result (after its `[tool for '...'] Result:` line) is a failure Cline wrote."""
    body = text.lstrip()
    if body.startswith("[") and "] Result:" in body.split("\n", 1)[0]:
        body = body.split("\n", 1)[1].lstrip() if "\n" in body else ""
    if command_failed(body) is True:
        return True
    return body.startswith(FAILURES) or any(f in body for f in FAILURES[3:]) or bool(
        BLOCKED.match(body) or EMPTY_PARAMETER.match(body) or NOT_RUN.match(body))
