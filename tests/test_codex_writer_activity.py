"""Codex records written beside the model's items, read against the writer's own code
(openai/codex): the settings applied to a thread (`thread_settings_applied`, ThreadSettingsAppliedEvent
in codex-rs/protocol/src/protocol.rs, kept in both history modes by codex-rs/rollout/src/policy.rs),
a multi-agent v2 subagent's activity (`sub_agent_activity`, SubAgentActivityEvent; the spawn tool
writes its call id as `event_id`, codex-rs/core/src/tools/handlers/multi_agents_v2), a /review's exit
(`exit_review_mode` in codex-rs/core/src/tasks/review.rs) and a paginated thread's completed call
items (`item_completed` with a TurnItem, codex-rs/protocol/src/items.rs). Hand-built rollouts in
the recorder's envelope."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forsy.evidence import Session
from forsy.payloads import MessageInfo, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource
from test_codex_build_promises import item, msg, notes, read, say, user
from test_codex_source_promises import CID, PID, at, call, line, meta, output, said, sub_of, write


def _by_line(s: Session) -> dict[int | None, tuple[str, str]]:
    return {s.evidence[k].line: (m.heading, m.name) for k, m in s.ledger.items()}


# ------------------------------------------------------------------ thread_settings_applied


def _settings(model: str, effort: str, approval: str) -> dict[str, Any]:
    """ThreadSettingsAppliedEvent as the newest writer serialises it (snake_case, a full snapshot)."""
    return msg(type="thread_settings_applied", thread_id="019e7c30-0000-7000-8000-00000000dddd", thread_settings={
        "model": model, "model_provider_id": "openai", "approval_policy": approval, "approvals_reviewer": "user",
        "permission_profile": {"type": "workspace-write"}, "cwd": "/w", "reasoning_effort": effort,
        "collaboration_mode": {"mode": "default", "settings": {"model": model, "reasoning_effort": effort,
                                                              "developer_instructions": None}}})


def test_settings_applied_to_the_thread_are_kept_with_their_line(tmp_path: Path) -> None:
    """It was set aside as a lifecycle event: a /model or /permissions choice the person made
    between turns was nowhere in the trace."""
    s = read(tmp_path, [*user("go"), say("done"), _settings("gpt-5.5", "high", "on-request"),
                        _settings("gpt-5.5", "high", "on-request"), _settings("gpt-5.5", "low", "never"),
                        *user("again")])  # fmt: skip
    common = {"model": "gpt-5.5", "model_provider_id": "openai", "approvals_reviewer": "user",
              "permission_profile": {"type": "workspace-write"}, "cwd": "/w"}
    assert s.meta.extra["thread_settings"] == [
        {**common, "approval_policy": "on-request", "reasoning_effort": "high",
         "collaboration_mode": {"mode": "default", "reasoning_effort": "high"}, "line": 5},
        {**common, "approval_policy": "never", "reasoning_effort": "low",
         "collaboration_mode": {"mode": "default", "reasoning_effort": "low"}, "line": 7}]
    by_line = _by_line(s)
    assert {by_line[n] for n in (5, 6, 7)} == {("metadata", "settings applied to the thread "
                                                            "(agent_config.thread_settings)")}
    assert s.quality.unknown_records == 0 and s.warnings == []


# ------------------------------------------------------------------ sub_agent_activity


def _activity(kind: str, call_id: str) -> bytes:
    return line("event_msg", {"type": "sub_agent_activity", "event_id": call_id, "occurred_at_ms": 1,
                              "agent_thread_id": CID, "agent_path": "/root/worker", "kind": kind}, at(3))


def _v2_family(tmp_path: Path, started: bytes) -> Session:
    """A v2 spawn: spawn_agent's output names the task, not the thread (SpawnAgentResult
    {task_name, nickname}); the child is a thread_spawn subagent of the parent."""
    write(tmp_path / f"rollout-a-{PID}.jsonl", b"".join([
        meta(PID), said("user", "go", 1), line("event_msg", {"type": "user_message", "message": "go"}, at(1)),
        call("spawn_agent", "call_v2", '{"task_name":"worker","message":"look"}', 2), started,
        output("call_v2", '{"task_name":"/root/worker","nickname":"Ada"}', 3),
        call("interrupt_agent", "call_int", '{"target":"/root/worker"}', 4), _activity("interrupted", "call_int"),
        output("call_int", '{"previous_status":"running"}', 4)]))
    write(tmp_path / f"rollout-b-{CID}.jsonl", b"".join([
        meta(CID, source=sub_of(PID)), said("user", "look", 2), said("assistant", "seen", 3)]))
    [s] = CodexSource().read(tmp_path / f"rollout-a-{PID}.jsonl", ReadContext(root=tmp_path))
    return s


def test_a_v2_subagent_is_linked_to_the_call_that_started_it(tmp_path: Path) -> None:
    """The activity events were set aside unread, so a v2 subagent was linked to no call."""
    s = _v2_family(tmp_path, _activity("started", "call_v2"))
    [info] = s.meta.extra["subagents"]
    assert (info["parent_call_id"], info["link_rule"]) == ("call_v2", "sub_agent_activity")
    reason = ("set_aside", "a subagent's start, message, interrupt or completion: the call that caused it is a "
                           "step, its work is in its own thread")
    parent = {s.evidence[k].line: (m.heading, m.name) for k, m in s.ledger.items()
              if s.evidence[k].source.endswith(f"{PID}.jsonl")}  # fmt: skip
    assert parent[5] == parent[8] == reason
    assert s.quality.unknown_records == 0


def test_a_paginated_v2_subagent_is_linked_by_its_completed_activity_item(tmp_path: Path) -> None:
    """Paginated history keeps the activity as a turn item (SubAgentActivityItem, camelCase)."""
    started = line("event_msg", {"type": "item_completed", "turn_id": "t1", "item": {
        "type": "SubAgentActivity", "id": "call_v2", "kind": "started", "agentThreadId": CID,
        "agentPath": "/root/worker"}}, at(3))
    s = _v2_family(tmp_path, started)
    [info] = s.meta.extra["subagents"]
    assert (info["parent_call_id"], info["link_rule"]) == ("call_v2", "sub_agent_activity")


# ------------------------------------------------------------------ a /review's exit

_OUT = {"findings": [{"title": "[P1] Off-by-one in pager", "body": "The last page is skipped.",
                      "confidence_score": 0.8, "priority": 1,
                      "code_location": {"absolute_file_path": "/w/pager.py", "line_range": {"start": 10, "end": 12}}}],
        "overall_correctness": "patch is incorrect", "overall_explanation": "One bug.", "overall_confidence_score": 0.8}
_FINDINGS = "One bug.\n\nReview comment:\n\n- [P1] Off-by-one in pager — /w/pager.py:10-12\n  The last page is skipped."
# REVIEW_EXIT_SUCCESS_TMPL with the findings in place of {results}
_USER_ACTION = ("<user_action>\n  <context>User initiated a review task. Here's the full review output from reviewer "
                "model. User may select one or more comments to resolve.</context>\n  <action>review</action>\n"
                f"  <results>\n  {_FINDINGS}\n  </results>\n</user_action>\n")
_INTERRUPTED = ("<user_action>\n  <context>User initiated a review task, but was interrupted. If user asks about "
                "this, tell them to re-run it.</context>\n  <action>review</action>\n</user_action>\n")


def _review(exit_records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [*user("fix the pager"), say("done"),
            msg(type="entered_review_mode", target={"type": "uncommittedChanges"}, user_facing_hint="current changes"),
            *exit_records]  # fmt: skip


def _texts(s: Session) -> list[str | None]:
    return [e.text for e in s.events if e.kind == "agent_text"]


def test_review_findings_written_as_an_assistant_message_are_that_message_once(tmp_path: Path) -> None:
    """Newer writers: the user message, the event, then the assistant message (and its event mirror)."""
    s = read(tmp_path, _review([item(type="message", role="user", content=[{"type": "input_text",
                                                                              "text": _USER_ACTION}]),
                                msg(type="exited_review_mode", review_output=_OUT), say(_FINDINGS),
                                msg(type="agent_message", message=_FINDINGS)]))
    assert _texts(s) == ["done", _FINDINGS]
    assert [n[0] for n in notes(s)] == ["entered_review_mode", "user_action", "exited_review_mode"]


def test_review_findings_written_only_in_the_user_action_are_read_once(tmp_path: Path) -> None:
    """Earlier writers wrote the findings back only inside `<user_action>`: a note, so the
    trace had no findings at all. Now the `<results>` slice is the review's answer."""
    s = read(tmp_path, _review([item(type="message", role="user", content=[{"type": "input_text",
                                                                              "text": _USER_ACTION}]),
                                msg(type="exited_review_mode", review_output=_OUT)]))
    assert _texts(s) == ["done", _FINDINGS]
    [answer] = [e for e in s.events if e.text == _FINDINGS]
    assert isinstance(answer.info, MessageInfo) and answer.info.span is not None
    assert _USER_ACTION[answer.info.span[0] : answer.info.span[1]] == _FINDINGS
    assert (answer.actor, answer.refs[0].pointer, s.evidence[answer.refs[0].ev].line) == (
        "agent", "/payload/content/0/text", 6)
    assert [n[0] for n in notes(s)] == ["entered_review_mode", "exited_review_mode"]


def test_an_interrupted_review_has_no_findings_to_read(tmp_path: Path) -> None:
    s = read(tmp_path, _review([item(type="message", role="user", content=[{"type": "input_text",
                                                                              "text": _INTERRUPTED}]),
                                msg(type="exited_review_mode")]))
    assert _texts(s) == ["done"]
    assert [n[0] for n in notes(s)] == ["entered_review_mode", "user_action", "exited_review_mode"]


# ------------------------------------------------------------------ paginated item_completed outcomes


def _done(item_: dict[str, Any]) -> dict[str, Any]:
    return msg(type="item_completed", thread_id="x", turn_id="t1", item=item_, started_at_ms=1, completed_at_ms=2)


def _fc(name: str, cid: str) -> dict[str, Any]:
    return item(type="function_call", name=name, arguments="{}", call_id=cid)


def _fco(cid: str, out: str) -> dict[str, Any]:
    return item(type="function_call_output", call_id=cid, output=out)


def test_a_paginated_threads_call_outcomes_come_from_its_completed_items(tmp_path: Path) -> None:
    """policy.rs: a paginated thread keeps each call's completed TurnItem in place of its *_end
    event. Each status value the writer's versions use is read (snake_case "in_progress" and
    camelCase "inProgress" say nothing; "declined" is a failure); a command's exit code too.
    The outcomes were not read: the thread only warned that they were not."""
    meta_ = {"type": "session_meta", "payload": {"id": "019e7c30-0000-7000-8000-00000000dddd", "cwd": "/w",
                                                 "cli_version": "0.130.0", "history_mode": "paginated"}}
    s = read(tmp_path, [
        *user("go"),
        _fc("exec_command", "c1"), _fco("c1", "boom"),
        _done({"type": "CommandExecution", "id": "c1", "command": ["make"], "cwd": "/w", "parsedCmd": [],
               "source": "agent", "status": "failed", "exitCode": 2, "aggregatedOutput": "boom"}),
        _fc("apply_patch", "c2"), _fco("c2", "patched"),
        _done({"type": "FileChange", "id": "c2", "changes": {}, "status": "completed"}),
        _fc("apply_patch", "c3"), _fco("c3", "no"),
        _done({"type": "FileChange", "id": "c3", "changes": {}, "status": "declined"}),
        _fc("lookup", "c4"), _fco("c4", "later"),
        _done({"type": "McpToolCall", "id": "c4", "server": "s", "tool": "t", "arguments": {},
               "status": "in_progress"}),
        _fc("dyn", "c5"), _fco("c5", "ok"),
        _done({"type": "DynamicToolCall", "id": "c5", "tool": "dyn", "arguments": {}, "status": "inProgress",
               "success": True}),
    ], meta=meta_)  # fmt: skip
    results = [e for e in s.events if e.kind == "tool_result"]
    got = []
    for e in results:
        assert isinstance(e.info, ResultInfo)
        frm = e.info.success_from
        got.append((e.call_id, e.info.exit_code, e.is_error, frm.pointer if frm else None))
    assert got == [("c1", 2, True, "/payload/item/status"), ("c2", None, False, "/payload/item/status"),
                   ("c3", None, True, "/payload/item/status"), ("c4", None, None, None),
                   ("c5", None, False, "/payload/item/success")]
    assert results[0].info.exit_code_from is not None and results[0].info.exit_code_from.pointer == (
        "/payload/item/exitCode")
    assert s.meta.extra["history_mode"] == "paginated" and s.warnings == []
    by_line = _by_line(s)
    assert by_line[6][0] == by_line[9][0] == "metadata"  # read for the step's outcome
    assert by_line[15] == ("set_aside", "a completed call item whose outcome the call's result took, or that has "
                                        "none to give")
    assert s.quality.unknown_records == 0
