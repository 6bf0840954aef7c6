"""What each Codex rollout record kind is to the reader: read as notes, set aside and why,
kept as session facts (one list each, shared by the thread builder and the ledger)."""

from __future__ import annotations

# `history_base` (paginated history: HistoryPosition {thread_id: a rollout id, end_ordinal_exclusive,
# end_byte_offset}): this file's history begins in that rollout, up to that record, which this file
# does not hold (a reverted thread's new rollout, a fork that references its parent)
META_EXTRA_KEYS = (
    "originator", "model_provider", "source", "timestamp", "forked_from_id", "parent_thread_id",
    "agent_nickname", "agent_role", "agent_path", "memory_mode", "history_mode", "thread_source",
    "history_base",
)  # fmt: skip
TURN_KEYS = (
    "turn_id", "cwd", "model", "effort", "summary", "approval_policy", "sandbox_policy",
    "personality", "current_date", "timezone", "truncation_policy", "realtime_active",
)  # fmt: skip
NOTE_EVENTS = frozenset(
    {"error", "warning", "stream_error", "background_event", "deprecation_notice",
     "entered_review_mode", "exited_review_mode", "model_reroute"}
)  # fmt: skip
SILENT_EVENTS = frozenset(
    {"task_complete", "turn_complete", "exec_command_begin", "exec_command_output_delta",
     "exec_command_end", "patch_apply_begin", "patch_apply_end", "mcp_tool_call_begin",
     "mcp_tool_call_end", "web_search_begin", "web_search_end", "agent_message_delta",
     "agent_reasoning_delta", "agent_reasoning_raw_content_delta", "agent_reasoning_section_break",
     "session_configured", "turn_diff", "get_history_entry_response", "mcp_list_tools_response",
     "list_custom_prompts_response", "plan_update", "shutdown_complete", "view_image_tool_call",
     "image_generation_begin", "image_generation_end", "item_started", "raw_response_item",
     "guardian_assessment",
     "dynamic_tool_call_request", "dynamic_tool_call_response", "sub_agent_activity",
     "collab_agent_spawn_begin", "collab_agent_spawn_end", "collab_agent_interaction_begin",
     "collab_agent_interaction_end", "collab_waiting_begin", "collab_waiting_end",
     "collab_close_begin", "collab_close_end", "collab_resume_begin", "collab_resume_end",
     "undo_started", "undo_completed", "request_user_input", "hook_started", "hook_completed",
     "exec_approval_request", "apply_patch_approval_request", "mcp_startup_update",
     "mcp_startup_complete"}
)  # fmt: skip
SILENT_ITEMS = frozenset({"ghost_snapshot", "other"})
# event_msg types that exist to carry one text field (without it they are not understood)
TEXT_EVENTS = {"user_message": "message", "agent_message": "message", "agent_reasoning": "text",
               "agent_reasoning_raw_content": "text"}  # fmt: skip
# Injected texts that record something a person did (ran `!cmd` in the TUI): always notes.
ACTION_KINDS = frozenset({"user_shell_command"})
SILENT_KINDS = frozenset({"state", "world_state", "inter_agent_communication_metadata"})
# rollout records that hold no step: an action's security risk score, a realtime (voice) session item
SET_ASIDE_KINDS = {"security_risk_score": "a security risk score of an action, not a step",
                   "realtime_item": "a realtime (voice) conversation item: not read",
                   # RetainedContextEvent::VerifiedAnswer: the person's answers, which the
                   # request_user_input call's result holds too
                   "retained_context": "answers to the agent's questions the harness kept again (the call's "
                                       "result holds them)"}
PLAN_ITEMS = frozenset({"Plan", "plan"})
