"""Qwen Code's `system` records (chatRecordingService.ts `ChatRecord.subtype`): which carry
work, and how the ledger names the others.

Read as events elsewhere (`_events`): `slash_command` invocations (the typed command),
`chat_compression` (the summary: a compaction), `at_command`, `background_task_completed` and
`agent_launch_prompt` (notes), `turn_result` of a cancelled turn (an interrupt) or of a failed
one (an error step). The rest are session facts (`metadata`) or bookkeeping that carries no work
(`set_aside`, by a rule named in docs/rules.md); a managed session's records hold their content
by reference in a store forsy does not read (`MANAGED`; the source warns, or refuses the session).
"""

from __future__ import annotations

from typing import Any

from ...evidence import LedgerHeading
from ..gemini import part_texts

BOOKKEEPING = "Qwen Code bookkeeping carries no work"
SNAPSHOTS = "file snapshots carry no work"
FORK_COPY = "a fork's copy of its parent's history"  # the rule Codex and Claude Code name it by
REWIND_WHY = "a rewind: the turns after the point it returns to were taken back (read, flagged abandoned)"
MANAGED = ("a managed session's record: its content is kept by reference in Qwen Code's managed-session store, "
           "which forsy does not read")

SYSTEM: dict[str, tuple[LedgerHeading, str]] = {
    "custom_title": ("metadata", "title"),
    "session_model": ("metadata", "model"),
    "session_approval_mode": ("metadata", "approval mode"),
    "parent_session": ("metadata", "parent session"),
    "session_source": ("metadata", "session source"),
    "session_execution_engine": ("metadata", "execution engine"),
    "ui_telemetry": ("metadata", "usage (ui telemetry)"),
    "turn_result": ("metadata", "turn result"),
    "branch_checkpoint": ("metadata", "branch checkpoint"),
    "agent_retry": ("metadata", "subagent lifecycle"),
    "agent_session_ready": ("metadata", "subagent lifecycle"),
    "rewind": ("metadata", REWIND_WHY),
    "chat_compression": ("metadata", "a compression checkpoint with no summary text"),
    # what the CLI showed for a slash command (`outputHistoryItems`), replayed on resume
    "slash_command": ("set_aside", "a slash command's output (what the CLI showed)"),
    "at_command": ("set_aside", BOOKKEEPING),
    "background_task_completed": ("set_aside", BOOKKEEPING),
    "agent_launch_prompt": ("set_aside", BOOKKEEPING),
    "agent_bootstrap": ("set_aside", FORK_COPY),  # a forked subagent's copy of its parent's history
    "file_history_snapshot": ("set_aside", SNAPSHOTS),
    "attribution_snapshot": ("set_aside", SNAPSHOTS),
    "session_notes": ("set_aside", BOOKKEEPING),
    "goal_state": ("set_aside", BOOKKEEPING),
    "goal_turn_end": ("set_aside", BOOKKEEPING),
    "session_artifact_event": ("set_aside", BOOKKEEPING),
    "session_artifact_snapshot": ("set_aside", BOOKKEEPING),
    "session_sources_snapshot": ("set_aside", BOOKKEEPING),
    "omni_recall": ("set_aside", BOOKKEEPING),
    "user_text_elements": ("set_aside", BOOKKEEPING),
    "managed_session_header_v1": ("set_aside", MANAGED),
    "managed_session_event_v1": ("set_aside", MANAGED),
    "managed_session_commit_v1": ("set_aside", MANAGED),
}


def system_mark(subtype: Any) -> tuple[LedgerHeading, str] | None:
    """How the ledger names a system record no event cites; None for a subtype forsy does not know."""
    return SYSTEM.get(subtype) if isinstance(subtype, str) else None


def compaction_refs(payload: dict[str, Any]) -> list[tuple[str, str]]:
    """(pointer, text) of a compression's summary: the text of the first turn of the history it
    rebuilt (`compressedHistory[0]`, the user turn holding the model's summary: chatCompressionService.ts,
    postCompactAttachments.ts `composePostCompactHistory`); the turns after it are the CLI's
    acknowledgement and what it kept or restored."""
    history = payload.get("compressedHistory")
    first = history[0] if isinstance(history, list) and history else None
    if not isinstance(first, dict) or first.get("role") != "user":
        return []
    return part_texts(first.get("parts"), "/systemPayload/compressedHistory/0/parts", thoughts=False)
