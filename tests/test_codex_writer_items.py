"""Codex rollout shapes read from the writer's own code (openai/codex): `TurnItem` is tagged
by its variant's name (`#[serde(tag = "type")]` without renaming: `"Plan"`, `"Sleep"`,
codex-rs/protocol/src/items.rs), which the recorder keeps in `item_completed` for items with
no response item (rollout/src/policy.rs); the recorder's newer rollout records
`security_risk_score` (always kept), `realtime_item` (kept in paginated history), `token_usage_record`
and `retained_context` (codex-rs/history/src/rollout_payload.rs); and the
`injected_message` event (a prompt Codex sends for a timer or a tool, kept in Limited mode).
Hand-built rollouts in the recorder's envelope."""

from __future__ import annotations

from pathlib import Path

from forsy.payloads import NoteInfo
from test_codex_build_promises import msg, notes, read, say, user


def test_a_plan_item_as_the_writer_tags_it_is_a_note_and_a_sleep_none(tmp_path: Path) -> None:
    s = read(tmp_path, [
        *user("go"),
        msg(type="item_completed", turn_id="t1", item={"type": "Plan", "id": "p1", "text": "1. read\n2. fix"}),
        msg(type="item_completed", turn_id="t1", item={"type": "Sleep", "id": "s1", "duration_ms": 500}),
        msg(type="item_completed", turn_id="t1", item={"type": "plan", "id": "p2", "text": "old tag"}),
        say("done"),
    ])  # fmt: skip
    assert notes(s) == [("plan", "system", "1. read\n2. fix", "/payload/item/text", 4),
                        ("plan", "system", "old tag", "/payload/item/text", 6)]
    assert s.quality.unknown_records == 0 and s.warnings == []


def test_risk_scores_and_realtime_items_are_set_aside_by_name_not_unknown(tmp_path: Path) -> None:
    s = read(tmp_path, [
        *user("go"),
        {"type": "security_risk_score", "payload": {"scores": {"action_risk": 0.2}, "call_id": "c1"}},
        {"type": "realtime_item", "payload": {"type": "audio", "id": "r1"}},
        say("done"),
    ])  # fmt: skip
    assert s.quality.unknown_records == 0 and s.warnings == []
    by_line = {s.evidence[k].line: m for k, m in s.ledger.items()}
    assert (by_line[4].heading, by_line[4].name) == ("set_aside", "a security risk score of an action, not a step")
    assert (by_line[5].heading, by_line[5].name) == ("set_aside", "a realtime (voice) conversation item: not read")
    assert [e.kind for e in s.events] == ["user", "agent_text"]


def test_an_injected_message_is_codexs_note_never_the_persons_prompt(tmp_path: Path) -> None:
    s = read(tmp_path, [
        *user("remind me every minute"),
        say("ok"),
        msg(type="injected_message", content="Give me a random animal name.", source="timer timer-1"),
        say("Otter."),
        msg(type="injected_message"),  # no content: the note points at the record
    ])  # fmt: skip
    assert notes(s) == [("injected_message", "system", "Give me a random animal name.", "/payload/content", 5),
                        ("injected_message", "system", None, "/payload", 7)]
    raws = [e.info.raw for e in s.events if isinstance(e.info, NoteInfo)]
    assert raws == [{"source": "timer timer-1"}, None]
    assert [e.text for e in s.events if e.kind == "user"] == ["remind me every minute"]
    assert s.quality.unknown_records == 0 and s.warnings == []


def _redelivered(text: str, marker: str) -> dict[str, object]:
    """RetainedContext::DeliveredAssistantMessage as history/src/rollout_payload.rs persists it: an
    assistant message with the turn id, and `metadata` beside the payload naming the delivery."""
    return {"type": "response_item", "metadata": {"delivered_assistant_message": marker, "user_input_order": 1},
            "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}],
                        "internal_chat_message_metadata_passthrough": {"turn_id": "t1"}}}


def test_an_assistant_message_written_again_as_retained_context_is_no_new_agent_text(tmp_path: Path) -> None:
    unavailable = ("The content of a confirmed assistant message is unavailable. Do not infer what was asked "
                   "or authorized.")
    s = read(tmp_path, [
        *user("go"),
        say("Deployed to staging."),
        _redelivered("Deployed to staging.", "codex:code-mode-delivery:v1:complete"),
        _redelivered(unavailable, "codex:code-mode-delivery:v1:incomplete:Deployed to"),
        *user("thanks"),
        say("You're welcome."),
    ])  # fmt: skip
    assert [(e.kind, e.text) for e in s.events] == [("user", "go"), ("agent_text", "Deployed to staging."),
                                                    ("user", "thanks"), ("agent_text", "You're welcome.")]
    by_line = {s.evidence[k].line: m for k, m in s.ledger.items()}
    for line in (5, 6):
        assert (by_line[line].heading, by_line[line].name) == (
            "duplicate", "an assistant message Codex wrote again as retained context")
    assert s.quality.unknown_records == 0 and s.warnings == []


def test_harness_metadata_this_reader_does_not_name_is_counted_and_the_item_read(tmp_path: Path) -> None:
    s = read(tmp_path, [
        *user("go"),
        {"type": "response_item", "metadata": {"client_authored": False, "compaction_output": True},
         "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Sum"}]}},
    ])  # fmt: skip
    assert [(e.kind, e.text) for e in s.events] == [("user", "go"), ("agent_text", "Sum")]
    assert s.meta.extra["unknown_fields"] == {"metadata.compaction_output": 1}
    assert [w.code for w in s.warnings] == ["unknown_fields"]


def test_a_paginated_thread_says_its_history_mode(tmp_path: Path) -> None:
    """policy.rs: in paginated history the recorder keeps item_completed turn items in place of
    the user, agent and *_end events; the outcomes they carry are read (test_codex_writer_activity),
    so the thread no longer warns that they are not."""
    meta = {"type": "session_meta", "payload": {"id": "019e7c30-0000-7000-8000-00000000dddd", "cwd": "/w",
                                                "cli_version": "0.130.0", "history_mode": "paginated"}}
    s = read(tmp_path, [*user("go"), say("done")], meta=meta)
    assert s.meta.extra["history_mode"] == "paginated" and s.warnings == []
    plain = read(tmp_path, [*user("go"), say("done")])
    assert "history_mode" not in plain.meta.extra and plain.warnings == []


def test_an_output_that_names_no_call_is_said_as_such(tmp_path: Path) -> None:
    """models.rs: a function_call_output's call_id became optional; one without it matches no
    call, and the warning says that rather than naming a call `None`."""
    from forsy.rules.segment import Segmenter

    s = read(tmp_path, [*user("go"), {"type": "response_item",
                                      "payload": {"type": "function_call_output", "output": "ok"}}])
    Segmenter(s).run()
    assert [(w.code, w.message, w.line) for w in s.warnings if w.code == "orphan-result"] == [
        ("orphan-result", "a result that names no call kept out of the trace", 4)]


def _usage(total: int) -> dict[str, object]:
    return {"input_tokens": total - 10, "cached_input_tokens": 0, "cache_write_input_tokens": 0, "output_tokens": 10,
            "reasoning_output_tokens": 2, "total_tokens": total, "codex_rollout_budget_units": None}


def _usage_record(turn_usage: int, thread_usage: int) -> dict[str, object]:
    """`token_usage_record` as the newer recorder writes it (codex-rs/history rollout_payload.rs:
    TokenUsageRecordWire, every field required)."""
    return {"type": "token_usage_record", "payload": {
        "thread_id": "t", "turn_id": "t1", "session_id": "s", "root_turn_id": "t1", "response_id": "resp_1",
        "usage": _usage(turn_usage), "turn_token_usage": _usage(turn_usage),
        "thread_token_usage": _usage(thread_usage)}}


def test_usage_and_retained_answers_are_read_by_name_not_unknown(tmp_path: Path) -> None:
    retained = {"type": "retained_context", "payload": {
        "type": "verified_answer", "turn_id": "t1", "call_id": "c1",
        "questions": [{"question": "Deploy to prod?", "answer": "staging only"}], "acceptance_order": 1}}
    s = read(tmp_path, [*user("go"), _usage_record(120, 120), retained, say("done"), _usage_record(80, 200)])
    assert s.quality.unknown_records == 0 and s.warnings == []
    assert s.meta.token_usage is not None and s.meta.token_usage["total_tokens"] == 200  # the last running total
    assert "codex_rollout_budget_units" not in s.meta.token_usage
    by_line = {s.evidence[k].line: m for k, m in s.ledger.items()}
    assert {by_line[n].heading for n in (4, 7)} == {"metadata"}
    assert by_line[5].heading == "set_aside" and "answers" in by_line[5].name


def test_a_token_count_event_s_total_is_not_replaced_by_a_usage_record(tmp_path: Path) -> None:
    count = msg(type="token_count", info={"total_token_usage": {"input_tokens": 900, "output_tokens": 100,
                                                                "total_tokens": 1000}})
    s = read(tmp_path, [*user("go"), count, say("done"), _usage_record(80, 200)])
    assert s.meta.token_usage == {"input_tokens": 900, "output_tokens": 100, "total_tokens": 1000}


def test_a_v2_subagents_task_is_the_message_its_parent_sent_it(tmp_path: Path) -> None:
    """Multi-agent v2 gives a spawned agent its task as an `inter_agent_communication` record
    (InterAgentCommunication {author, recipient, other_recipients, content, trigger_turn},
    codex-rs/protocol; persisted by record_inter_agent_communication): addressed to the path the
    thread runs as, it is the thread's input, the parent agent's words; another agent's message
    to someone else is a note naming both."""
    meta = {"type": "session_meta", "payload": {"id": "019e7c30-0000-7000-8000-00000000aaaa", "cwd": "/w",
            "agent_path": "/root/worker", "source": {"subagent": {"thread_spawn": {
                "parent_thread_id": "019e7c30-0000-7000-8000-00000000eeee", "agent_path": "/root/worker"}}}}}

    def iac(author: str, recipient: str, content: str) -> dict[str, object]:
        return {"type": "inter_agent_communication", "payload": {
            "author": author, "recipient": recipient, "other_recipients": [], "content": content, "trigger_turn": True}}

    s = read(tmp_path, [iac("/root", "/root/worker", "Find why test_pager fails"), say("It is an off-by-one."),
                        iac("/root/other", "/root", "unrelated")], meta)
    assert [(n[0], n[2], n[3]) for n in notes(s)] == [
        ("subagent_input", "Find why test_pager fails", "/payload/content"),
        ("inter_agent_communication", "unrelated", "/payload/content")]
    raws = [e.info.raw for e in s.events if isinstance(e.info, NoteInfo)]
    assert raws[1] == {"author": "/root/other", "recipient": "/root"}
    assert s.quality.unknown_records == 0
    # the path named only by the thread's source (SubAgentSource::ThreadSpawn)
    meta["payload"].pop("agent_path")
    s = read(tmp_path, [iac("/root", "/root/worker", "Find why test_pager fails")], meta)
    assert [n[0] for n in notes(s)] == ["subagent_input"]


def test_the_threads_goal_and_each_status_it_took_are_kept(tmp_path: Path) -> None:
    """ThreadGoalUpdatedEvent (camelCase: {threadId, turnId, goal: {objective, status, tokenBudget,
    tokensUsed, timeUsedSeconds, …}}) is sent at each change and each use of the budget: the goal
    and each status it took are kept with their line, the budget's accounting is not repeated."""
    def goal(status: str, used: int) -> dict[str, object]:
        return msg(type="thread_goal_updated", threadId="t", turnId="t1", goal={
            "threadId": "t", "objective": "Migrate to pydantic v2 with all tests passing", "status": status,
            "tokenBudget": 500000, "tokensUsed": used, "timeUsedSeconds": used // 100, "createdAt": 1, "updatedAt": 2})

    s = read(tmp_path, [*user("/goal migrate"), goal("active", 0), say("working"), goal("active", 9000),
                        goal("complete", 12000)])
    assert s.meta.extra["goals"] == [
        {"objective": "Migrate to pydantic v2 with all tests passing", "status": "active", "tokenBudget": 500000,
         "line": 4},
        {"objective": "Migrate to pydantic v2 with all tests passing", "status": "complete", "tokenBudget": 500000,
         "line": 7}]
    by_line = {s.evidence[k].line: m for k, m in s.ledger.items()}
    assert {by_line[n].heading for n in (4, 6, 7)} == {"metadata"}
    assert s.quality.unknown_records == 0 and s.warnings == []
