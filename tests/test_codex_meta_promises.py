"""The facts a Codex thread gives its session (`sources/codex/_build.py`: session_meta,
turn_context, token_count, the subagent source), field by field on hand-built rollouts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource

ID = "019e7c30-0000-7000-8000-00000000ffff"
PARENT = "019e7c30-0000-7000-8000-000000001111"
NAME = f"rollout-2026-08-02T10-00-00-{ID}.jsonl"
EXTRA = {"originator": "codex_vscode", "model_provider": "openai", "source": "vscode",
         "timestamp": "2026-08-02T10:00:00.000Z", "agent_nickname": "Ada", "agent_role": "explorer",
         "agent_path": "/root/ada", "memory_mode": "on", "history_mode": "full", "thread_source": "user"}  # fmt: skip


def read(tmp_path: Path, records: list[dict[str, Any]], name: str = NAME) -> Session:
    lines = [json.dumps(r) for r in records]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", "utf-8")
    [s] = CodexSource().read(path, ReadContext(root=tmp_path))
    return s


def meta(**p: Any) -> dict[str, Any]:
    return {"timestamp": "2026-08-02T10:00:00.000Z", "type": "session_meta", "payload": {"id": ID, **p}}


def turn(**p: Any) -> dict[str, Any]:
    return {"timestamp": "2026-08-02T10:00:01.000Z", "type": "turn_context", "payload": p}


def ev(**p: Any) -> dict[str, Any]:
    return {"timestamp": "2026-08-02T10:00:02.000Z", "type": "event_msg", "payload": p}


def test_session_meta_field_by_field(tmp_path: Path) -> None:
    s = read(tmp_path, [meta(
        cli_version="0.62.0", cwd="/w", git={"branch": "main", "commit_hash": "abc", "repository_url": "u"},
        base_instructions={"text": "You are Codex."}, instructions="Use tabs.",
        dynamic_tools=[{"name": "grep"}, {"name": 3}, "x", {"name": "read"}], forked_from_id=None,
        **EXTRA)])  # fmt: skip
    m = s.meta
    assert (s.session_id, m.agent, m.agent_version, m.cwd, m.git_branch) == (ID, "codex-cli", "0.62.0", "/w", "main")
    assert m.extra["git"] == {"commit_hash": "abc", "repository_url": "u"}
    assert m.system_prompt == "You are Codex."
    assert m.system_prompt_ref is not None and m.system_prompt_ref.pointer == "/payload/base_instructions/text"
    assert m.memory == "Use tabs." and m.extra["memory_ref"]["pointer"] == "/payload/instructions"
    assert m.tools == ["grep", "read"]
    assert {k: m.extra[k] for k in EXTRA} == EXTRA
    assert "forked_from_id" not in m.extra  # null fields are not copied
    assert m.started_at is None  # an envelope's session_meta: the time comes from the records


def test_a_bare_header_gives_the_start_time_and_its_place(tmp_path: Path) -> None:
    s = read(tmp_path, [{"id": ID, "timestamp": "2025-08-12T09:30:00Z", "instructions": ""},
                        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}])
    assert s.meta.started_at == "2025-08-12T09:30:00Z"
    assert s.meta.started_at_ref is not None and s.meta.started_at_ref.pointer == "/timestamp"
    assert s.meta.memory is None  # empty instructions are no memory
    assert [e.text for e in s.events] == ["hi"]


def test_turn_contexts_are_kept_when_they_change(tmp_path: Path) -> None:
    keys = {"turn_id": "t1", "cwd": "/w/sub", "model": "gpt-5", "effort": "high", "summary": "auto",
            "approval_policy": "never", "sandbox_policy": {"mode": "read-only"}, "personality": "terse",
            "current_date": "2026-08-02", "timezone": "UTC", "truncation_policy": {"mode": "bytes"},
            "realtime_active": False}  # fmt: skip
    mode = {"mode": "plan", "settings": {"reasoning_effort": "low", "model": "x"}}
    s = read(tmp_path, [
        meta(),
        turn(**keys, other="not kept"),  # line 2
        turn(**{**keys, "turn_id": "t1"}),  # the same settings: not repeated
        turn(**{**keys, "model": "gpt-5-mini", "cwd": "/elsewhere", "turn_id": "t2"}, collaboration_mode=mode),
        turn(**{**keys, "model": "gpt-5"}, collaboration_mode={"mode": "code"}),
        {"timestamp": "2026-08-02T10:00:03.000Z", "type": "response_item",
         "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}},
    ])  # fmt: skip
    m = s.meta
    assert m.models == ["gpt-5", "gpt-5-mini"]
    assert m.cwd == "/w/sub"  # the first turn's, as the session_meta had none
    assert m.extra["turns"] == [
        {**keys, "line": 2},
        {**keys, "model": "gpt-5-mini", "cwd": "/elsewhere", "turn_id": "t2",
         "collaboration_mode": {"mode": "plan", "reasoning_effort": "low"}, "line": 4},
        {**keys, "model": "gpt-5", "collaboration_mode": {"mode": "code", "reasoning_effort": None}, "line": 5},
    ]  # fmt: skip
    [e] = s.events
    assert e.info is not None and e.info.turn_id == "t1"  # the last turn_context's id


def test_token_usage_is_the_last_total_and_the_window_is_kept(tmp_path: Path) -> None:
    first = {"input_tokens": 10, "output_tokens": 2}
    last = {"input_tokens": 30, "cached_input_tokens": 8, "output_tokens": 5, "note": "x"}
    s = read(tmp_path, [
        meta(),
        ev(type="token_count", info={"total_token_usage": first, "model_context_window": 1000}),
        ev(type="token_count", info=None),  # a rate-limit-only count: nothing to read
        ev(type="token_count", info={"total_token_usage": last}),
    ])  # fmt: skip
    assert s.meta.token_usage == {"input_tokens": 30, "cached_input_tokens": 8, "output_tokens": 5}
    assert s.meta.extra["model_context_window"] == 1000


def test_turn_ids_come_from_turn_starts(tmp_path: Path) -> None:
    say = {"timestamp": "2026-08-02T10:00:03.000Z", "type": "event_msg",
           "payload": {"type": "agent_message", "message": "m"}}  # fmt: skip
    s = read(tmp_path, [meta(), ev(type="task_started", turn_id="a"), say, ev(type="turn_started", turn_id="b"), say,
                        ev(type="turn_started"), say])  # fmt: skip
    assert [e.info.turn_id for e in s.events if e.info is not None] == ["a", "b", "b"]


def test_the_subagent_source_in_each_form(tmp_path: Path) -> None:
    forms: list[tuple[dict[str, Any], str, str | None]] = [
        ({"source": {"subagent": {"thread_spawn": {"parent_thread_id": PARENT}}}}, "thread_spawn", PARENT),
        ({"source": {"subagent": {"thread_spawn": {}}}, "parent_thread_id": PARENT}, "thread_spawn", PARENT),
        ({"source": {"subagent": {"memory_consolidation": {}}}}, "memory_consolidation", None),
        ({"source": {"subagent": "review"}}, "review", None),
        ({"parent_thread_id": PARENT}, "thread_spawn", PARENT),
    ]
    for i, (p, kind, parent) in enumerate(forms):
        folder = tmp_path / str(i)
        folder.mkdir()
        s = read(folder, [meta(**p), ev(type="agent_message", message="m")])
        [e] = s.events
        assert (e.actor, s.meta.extra["subagent"], s.meta.extra.get("parent_thread_id")) == (
            f"subagent:{ID}", kind, parent), p  # fmt: skip
    s = read(tmp_path, [meta(source="cli"), ev(type="agent_message", message="m")])
    assert [e.actor for e in s.events] == ["agent"] and "subagent" not in s.meta.extra


def test_records_before_the_session_meta_are_warned_and_read(tmp_path: Path) -> None:
    say = {"timestamp": "2026-08-02T10:00:03.000Z", "type": "event_msg",
           "payload": {"type": "agent_message", "message": "early"}}  # fmt: skip
    s = read(tmp_path, [say, meta(cwd="/w"), meta(cwd="/other")])
    assert [(w.code, w.file, w.line) for w in s.warnings] == [
        ("records_before_meta", NAME, None), ("extra_session_meta", NAME, 3)]  # fmt: skip
    assert [e.text for e in s.events] == ["early"] and s.meta.cwd == "/w"
    assert [w.message for w in s.warnings] == ["records precede session_meta",
                                              "another session_meta inside the thread; skipped (reported once)"]


def test_the_thread_id_is_the_file_names_last_uuid_without_a_meta_id(tmp_path: Path) -> None:
    name = "rollout-2026-08-02T10-00-00-019e7c30-0000-7000-8000-000000002222-019e7c30-0000-7000-8000-000000003333.jsonl"
    say = {"type": "event_msg", "payload": {"type": "agent_message", "message": "m"}}
    s = read(tmp_path, [{"type": "session_meta", "payload": {"cwd": "/w"}}, say], name)
    assert s.session_id == "019e7c30-0000-7000-8000-000000003333"


def test_a_later_meta_forked_from_the_first_makes_the_lines_before_it_the_parents(tmp_path: Path) -> None:
    say = {"type": "event_msg", "payload": {"type": "agent_message", "message": "old"}}
    s = read(tmp_path, [{"type": "session_meta", "payload": {"id": PARENT, "cwd": "/p"}}, say,
                        meta(forked_from_id=PARENT, cwd="/w"),
                        {"type": "event_msg", "payload": {"type": "agent_message", "message": "new"}}])  # fmt: skip
    assert s.session_id == ID and s.meta.cwd == "/w"
    assert s.meta.extra["fork"] == {"parent_id": PARENT, "rule": "history_before_meta", "copied": 2}
    assert [e.text for e in s.events] == ["new"]


def test_a_file_without_meta_is_read_from_its_first_line(tmp_path: Path) -> None:
    s = read(tmp_path, [{"type": "event_msg", "payload": {"type": "agent_message", "message": "m"}}])
    assert [e.text for e in s.events] == ["m"] and s.session_id == ID and "fork" not in s.meta.extra


def test_the_metas_id_names_the_thread_and_its_cwd_stands(tmp_path: Path) -> None:
    s = read(tmp_path, [meta(cwd="/w"), turn(cwd="/other", model=5)])
    assert s.session_id == ID and s.meta.cwd == "/w"
    s = read(tmp_path, [{"type": "session_meta", "payload": {"id": PARENT}}, turn(model=5)])
    assert s.session_id == PARENT  # not the file name's uuid
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("bad_field_type", "field 'model' is an integer, not a string; ignored", NAME, 2)]  # fmt: skip


def test_a_parent_id_that_is_not_a_string_is_no_parent(tmp_path: Path) -> None:
    s = read(tmp_path, [meta(source={"subagent": {"thread_spawn": {"parent_thread_id": 5}}}),
                        ev(type="agent_message", message="m")])  # fmt: skip
    assert s.meta.extra["subagent"] == "thread_spawn" and "parent_thread_id" not in s.meta.extra
