"""What each rollout record no step cites was read for (the manifest's ledger).

Marked after a thread is built, from its records' kinds, so the reading code stays as it
is; a record cited by the trace is `cited` whatever its mark. docs/rules.md names each rule.
"""

from __future__ import annotations

from ...evidence import LedgerHeading, Session
from ...payloads import NoteInfo, ResultInfo
from ._activity import OUTCOME_ITEMS, SUBAGENT_ITEMS, completed_item
from ._build import Thread, redelivered
from ._index import COMPACTION_ITEMS, build_index
from ._kinds import SET_ASIDE_KINDS, SILENT_EVENTS, SILENT_ITEMS, SILENT_KINDS
from ._read import Rec

_BY_KIND: dict[str, tuple[LedgerHeading, str]] = {
    "session_meta": ("metadata", "session meta (id, version, cwd, git, instructions)"),
    "bare_header": ("metadata", "session meta (id, version, cwd, git, instructions)"),
    "turn_context": ("metadata", "turn context (model, cwd, policies)"),
    "response_item:message": ("metadata", "context shown to the model (agent_config.context, memory, cwd)"),
    "event_msg:token_count": ("metadata", "usage"),
    "token_usage_record": ("metadata", "usage (one model response's, and the thread's running total)"),
    "event_msg:task_started": ("metadata", "turn id"),
    "event_msg:turn_started": ("metadata", "turn id"),
    "event_msg:thread_name_updated": ("metadata", "title"),
    "event_msg:thread_goal_updated": ("metadata", "the thread's goal (objective, status)"),
    "response_item:additional_tools": ("metadata", "tools offered to the model later in the thread"),
    "response_item:configuration_update": ("metadata", "a configuration update sent to the model "
                                                       "(agent_config.configuration_updates)"),
    "event_msg:thread_settings_applied": ("metadata", "settings applied to the thread (agent_config.thread_settings)"),
    # SubAgentActivityEvent: a v2 subagent started, was messaged or interrupted by a call of this
    # thread (its event_id) or completed; the subagent's work is in its own rollout
    "event_msg:sub_agent_activity": ("set_aside", "a subagent's start, message, interrupt or completion: the "
                                                  "call that caused it is a step, its work is in its own thread"),
    # when not cited, the compaction was read from the record these repeat (compaction_mirror)
    "event_msg:context_compacted": ("duplicate", "compaction written twice"),
    "event_msg:task_complete": ("set_aside", "turn boundaries carry no work"),
    "event_msg:turn_complete": ("set_aside", "turn boundaries carry no work"),
}
_LIFECYCLE = "lifecycle events repeat the items they announce"
# the checkpoint after a fork's reference (`_fork`): the inherited history, baselines and usage
FORK_CHECKPOINT = "a fork's checkpoint restates what it inherited"
_SILENT = "state records carry no work"
_GHOST = "ghost_snapshot (undo snapshot)"
_ENCRYPTED = "encrypted reasoning is not readable"
_ENCRYPTED_MESSAGE = "an encrypted message: only the words the thread shows elsewhere are readable"
# a *_end event whose exit code, duration or success the result took (ResultInfo.*_from)
_END_READ = "exit code, duration or success of the call it ends"


def mark_thread(session: Session, t: Thread) -> None:
    recs = t.lf.recs
    mirrored = build_index(recs, t.fork.start).mirrored
    for rec in recs:
        key = f"{rec.kind}:{rec.sub}" if rec.kind in ("response_item", "event_msg") else rec.kind
        if rec.idx < t.fork.start and rec.idx != t.meta_idx:
            session.mark(rec.ev, "set_aside", "a fork's copy of its parent's history")
        elif rec.idx in t.fork.restated:
            session.mark(rec.ev, "set_aside", FORK_CHECKPOINT)
        elif rec.idx in mirrored:
            session.mark(rec.ev, "duplicate", "event_msg repeats a response item")
        elif key == "response_item:message" and redelivered(rec):
            session.mark(rec.ev, "duplicate", "an assistant message Codex wrote again as retained context")
        elif key == "response_item:message" and rec.payload.get("encrypted_content"):
            session.mark(rec.ev, "set_aside", _ENCRYPTED_MESSAGE)
        elif key == "event_msg:item_completed":
            session.mark(rec.ev, "set_aside", _item_reason(rec))
        elif key in _BY_KIND:
            session.mark(rec.ev, *_BY_KIND[key])
        elif rec.kind == "response_item" and rec.sub in COMPACTION_ITEMS:
            session.mark(rec.ev, "duplicate", "compaction written twice")
        elif rec.kind == "event_msg" and rec.sub in SILENT_EVENTS:
            session.mark(rec.ev, "set_aside", _LIFECYCLE)
        elif rec.kind in SILENT_KINDS:
            session.mark(rec.ev, "set_aside", _SILENT)
        elif rec.kind in SET_ASIDE_KINDS:
            session.mark(rec.ev, "set_aside", SET_ASIDE_KINDS[rec.kind])
        elif rec.kind == "response_item" and rec.sub in SILENT_ITEMS:
            session.mark(rec.ev, "set_aside", _GHOST if rec.sub == "ghost_snapshot" else _SILENT)
        elif key == "response_item:reasoning" and rec.payload.get("encrypted_content"):
            session.mark(rec.ev, "set_aside", _ENCRYPTED)
    for e in t.events:
        if isinstance(e.info, ResultInfo):
            for end in (e.info.exit_code_from, e.info.duration_from, e.info.success_from):
                if end is not None:  # read for the step's success, not a mere repeat of the call
                    session.mark(end.ev, "metadata", _END_READ)
        if e.kind == "interrupt":  # cited by the next request's causal note, or the trace's termination
            for ref in e.refs:
                session.mark(ref.ev, "set_aside", "the user interrupted the turn (an interrupt, not a step)",
                             "turn_aborted")
        if e.kind == "note":
            sub = e.info.subtype if isinstance(e.info, NoteInfo) else None
            for ref in e.refs:
                session.mark(ref.ev, "set_aside", "notes are not steps", sub)


def _item_reason(rec: Rec) -> str:
    """Why an item_completed record no step cites is set aside, by the turn item it holds."""
    item = completed_item(rec)
    kind = item["type"] if item is not None else None
    if kind in OUTCOME_ITEMS:
        return "a completed call item whose outcome the call's result took, or that has none to give"
    if kind in SUBAGENT_ITEMS:
        return "a subagent's start, message, interrupt or completion: the call that caused it is a step"
    if kind in _REPEATS:
        return "a completed turn item that repeats a response item read elsewhere"
    if kind is None or kind in ("Plan", "plan", "Sleep", "sleep"):
        return "a completed plan or sleep item (a plan is a note)"
    return f"a completed {kind} turn item: not read"


# paginated history's turn items whose response item is in the file too (policy.rs keeps both)
_REPEATS = frozenset({"UserMessage", "AgentMessage", "Reasoning", "ContextCompaction", "WebSearch",
                      "ExitedReviewMode", "HookPrompt", "ImageGeneration"})
