"""What the newer recorder writes beside the model's items: completed turn items
(`item_completed`), sub-agent activity, the thread's applied settings and a /review's exit.

Read from the writer's own code (openai/codex):
* codex-rs/rollout/src/policy.rs: a paginated thread keeps every `item_completed` turn item
  in place of the *_end events; a legacy one keeps only items with no other record (a plan,
  a sleep, a function call output, a completed sub-agent) and the `sub_agent_activity` events
  of the other kinds. `thread_settings_applied` is kept in both.
* codex-rs/protocol/src/items.rs: `TurnItem` is tagged by its variant's name ("CommandExecution");
  the call items' `id` is the call's id. Their `status` was written snake_case by some versions
  ("in_progress") and camelCase by others ("inProgress"); "declined" came later.
* codex-rs/core/src/tasks/review.rs (`exit_review_mode`): the review's findings go back to the
  thread as a user message `<user_action>…<results>…</results></user_action>`; later versions
  also write them as an assistant message after the `exited_review_mode` event.
"""

from __future__ import annotations

from typing import Any

from ._read import Rec

# TurnItem variants that are a tool call's outcome (their id is the call's id)
OUTCOME_ITEMS = frozenset({"CommandExecution", "FileChange", "McpToolCall", "DynamicToolCall"})
# every outcome value the versions of CommandExecutionStatus, PatchApplyStatus,
# McpToolCallStatus and DynamicToolCallStatus write; a call still running says nothing
_SUCCESS = {"completed": True, "failed": False, "declined": False, "in_progress": None, "inProgress": None}
SUBAGENT_ITEMS = frozenset({"SubAgentActivity"})
# collaboration_mode.settings.developer_instructions is left out, as the turn contexts' copy is
_SETTINGS_SKIP = frozenset({"collaboration_mode"})


def completed_item(rec: Rec) -> dict[str, Any] | None:
    """The turn item an `item_completed` event holds, else None."""
    item = rec.payload.get("item") if rec.kind == "event_msg" and rec.sub == "item_completed" else None
    return item if isinstance(item, dict) and isinstance(item.get("type"), str) else None


def outcome_id(rec: Rec) -> str | None:
    """The call id whose outcome this `item_completed` record holds, else None."""
    item = completed_item(rec)
    if item is None or item["type"] not in OUTCOME_ITEMS:
        return None
    return item["id"] if isinstance(item.get("id"), str) and item["id"] else None


def item_success(item: dict[str, Any]) -> tuple[bool | None, str | None]:
    """(success, the field it was read from) for a call item: its `status`, or a dynamic tool's
    `success` flag when the status says nothing. Unknown status values are not guessed."""
    status = item.get("status")
    ok = _SUCCESS.get(status) if isinstance(status, str) else None
    if ok is not None:
        return ok, "status"
    if isinstance(item.get("success"), bool):
        return item["success"], "success"
    return None, None


def item_exit_code(item: dict[str, Any]) -> tuple[int | None, str | None]:
    """A command item's exit code: `exitCode` (CommandExecutionItem is camelCase), `exit_code`."""
    for key in ("exitCode", "exit_code"):
        if type(item.get(key)) is int:
            return item[key], key
    return None, None


def started_subagent(rec: Rec) -> tuple[str, str] | None:
    """(child thread id, spawning call id) from a sub-agent's `started` activity: the event
    (SubAgentActivityEvent: event_id, agent_thread_id) or the turn item (SubAgentActivityItem,
    camelCase: id, agentThreadId). The spawn tool writes its call id there."""
    if rec.kind != "event_msg":
        return None
    if rec.sub == "sub_agent_activity":
        p, call_key, thread_key = rec.payload, "event_id", "agent_thread_id"
    else:
        item = completed_item(rec)
        if item is None or item["type"] not in SUBAGENT_ITEMS:
            return None
        p, call_key, thread_key = item, "id", "agentThreadId"
    child, call = p.get(thread_key), p.get(call_key)
    if p.get("kind") == "started" and isinstance(child, str) and isinstance(call, str) and child and call:
        return child, call
    return None


def settings(p: dict[str, Any]) -> dict[str, Any] | None:
    """ThreadSettingsAppliedEvent {thread_id, thread_settings: {model, approval_policy,
    permission_profile, cwd, reasoning_effort, collaboration_mode, …}}: the settings the thread
    runs under from now on (a /model, /permissions or /approvals choice), as written."""
    snap = p.get("thread_settings")
    if not isinstance(snap, dict):
        return None
    out = {k: v for k, v in snap.items() if k not in _SETTINGS_SKIP and v is not None}
    mode = snap.get("collaboration_mode")
    if isinstance(mode, dict):
        st = mode.get("settings")
        effort = st.get("reasoning_effort") if isinstance(st, dict) else None
        out["collaboration_mode"] = {"mode": mode.get("mode"), "reasoning_effort": effort}
    return out


def review_results(text: str) -> tuple[int, int] | None:
    """Where the findings are in the `<user_action>` message a /review's exit writes: the
    `<results>` element's content, trimmed (the interrupted template has none)."""
    if "<action>review</action>" not in text:
        return None
    start, end = text.find("<results>"), text.rfind("</results>")
    if start < 0 or end < start:
        return None
    a, b = start + len("<results>"), end
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return (a, b) if a < b else None


def review_rendered(recs: list[Rec], idx: int, window: int) -> bool:
    """Whether Codex also wrote a /review's findings as an assistant message: after the
    `<user_action>` message at idx, an `exited_review_mode` event (or its turn item), then an
    assistant message, before any other user message."""
    exited = False
    for rec in recs[idx + 1 : idx + 1 + 2 * window]:
        item = completed_item(rec)
        if rec.sub == "exited_review_mode" or (item is not None and item["type"] == "ExitedReviewMode"):
            exited = True
        elif rec.kind == "response_item" and rec.sub == "message":
            role = rec.payload.get("role")
            if role == "assistant":
                return exited
            if role == "user":
                return False
    return False
