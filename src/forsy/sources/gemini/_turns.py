"""Turns the Gemini CLI writes itself into a chat, in the person's or the model's place: never
typed nor generated. How each one starts (or is marked), read from the CLI's code."""

from __future__ import annotations

import re
from typing import Any

from ...evidence import Session
from ._parts import part_texts

INJECTED = ("session_context", "hook_context")  # sessionUtils.isIgnoredUserContent: not typed words
SHELL_MODE = "I ran the following shell command:\n```sh\n"  # a `!cmd` turn's opening words
# user turns the CLI adds to the history itself (GeminiChat.addHistory → recordSyntheticMessage),
# recorded as type user: never typed; (how the text starts, the note's subtype)
CLI_TURNS = (
    ("Here is the user's editor context as a JSON object.", "ide_context"),  # client.ts getIdeContextParts
    ("Here is a summary of changes in the user's editor context", "ide_context"),
    ("- **Workspace Directories:**\n", "directory_context"),  # environmentContext.getDirectoryContextString
    ("User has manually exited Plan Mode. Switching to ", "plan_mode_exit"),  # approvalModeUtils
    (SHELL_MODE, "shell_mode_command"),  # useExecutionLifecycle (`!cmd`)
    ("System: Potential loop detected. ", "loop_recovery"),  # client.ts _recoverFromLoop
)
# geminiChat.ts: the thought signature the CLI puts on parts it made itself (the binary-injection
# acknowledgement "Binary content received. ..."): never the model's reasoning
SYNTHETIC_SIGNATURE = "skip_thought_signature_validator"
# the command of a `!cmd` turn (useExecutionLifecycle addShellCommandToGeminiHistory), as written
# (newer versions escape its backslashes and backticks: kept so, a copy of what the log holds)
SHELL_TURN = re.compile(re.escape(SHELL_MODE) + r"(?P<cmd>.*?)\n```\n\nThis produced the following result:\n```\n",
                        re.S)
# context/chatCompressionService.ts: chat compression puts the model's summary of the work so far
# (its prompt asks for a `<state_snapshot>` element) in the history as a user turn, then this model
# turn; updateMessagesFromHistory records both as messages, which `/export-session` and a rewritten
# chat (rewriteConversationFile) hold as plain messages. A text that only mentions the tag is not one.
SNAPSHOT = "<state_snapshot>"
SNAPSHOT_REPLY = "Got it. Thanks for the additional context!"


def is_snapshot(text: str) -> bool:
    return text.lstrip().startswith(SNAPSHOT)


def is_snapshot_reply(message: dict[str, Any]) -> bool:
    """The CLI's reply to the summary: that text alone, no calls (read only right after a summary)."""
    said = [t for _, t in part_texts(message.get("content"), "/content")]
    return said == [SNAPSHOT_REPLY] and not message.get("toolCalls")


def note_start_from_summary(s: Session) -> None:
    """A chat whose first work is a compaction starts from a summary of work this file does not
    hold (an export after compression: the loader dropped the earlier messages)."""
    first = next((e for e in s.events if e.kind != "note"), None)
    if first is not None and first.kind == "compaction":
        s.quality.extra["starts_from_summary"] = 1
