"""Shapes twenty more real logs showed, each on a small fixture of the same shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.models import Manifest, Trace, is_known_actor
from forsy.run import RetraceOptions, retrace
from forsy.validation import validate_path
from forsy.verification import verify_folder


def rec(i: int, kind: str, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"type": kind, "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i > 1 else None,
                            "sessionId": "sess-9", "timestamp": f"2026-01-01T10:00:{i:02d}.000Z",
                            "version": "2.1.170"}
    base.update(extra)
    return base


def _write(tmp_path: Path, name: str, records: list[dict[str, Any]]) -> Path:
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return p


def _trace(folder: Path) -> tuple[Trace, Manifest]:
    return (Trace.model_validate_json((folder / "trace.json").read_bytes()),
            Manifest.model_validate_json((folder / "manifest.json").read_bytes()))


# ---------------------------------------------------------------- 5. newer record types


def test_permission_mode_and_ai_title_are_read_not_unknown(tmp_path: Path) -> None:
    log = _write(tmp_path, "sess-9.jsonl", [
        {"type": "permission-mode", "permissionMode": "plan", "sessionId": "sess-9"},
        rec(1, "user", message={"role": "user", "content": "plan the refactor"}),
        {"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": "sess-9"},
        rec(2, "assistant", message={"id": "m2", "role": "assistant", "model": "claude-x",
                                     "content": [{"type": "text", "text": "Here is the plan."}]}),
        {"type": "ai-title", "aiTitle": "Refactor planning", "sessionId": "sess-9"},
    ])
    out = tmp_path / "t"
    retrace([log], RetraceOptions(out=out, redact=False))
    trace, m = _trace(out)
    assert not [w for w in m.warnings if w.code in ("unknown-record-type", "ledger-unknown")]
    assert m.counts["unknown_records"] == 0
    factor = next(f for f in m.confidence_factors if f["name"] == "unknown_records") \
        if any(f["name"] == "unknown_records" for f in m.confidence_factors) else None
    assert factor is None or factor["penalty"] == 0
    assert trace.agent_config is not None and trace.agent_config["permission_modes"] == ["plan", "acceptEdits"]
    assert "Refactor planning" in trace.dataset_summary.description
    assert m.ledger is not None and m.ledger[0].totals["unknown"] == 0


# ---------------------------------------------------------------- 8. validator and writer agree on actors


def test_validator_accepts_the_actors_forsy_writes(tmp_path: Path) -> None:
    hist = tmp_path / ".zsh_history"
    hist.write_text(": 1767261600:0;ls -la\n: 1767261610:2;make test\n", encoding="utf-8")
    out = tmp_path / "t"
    retrace([hist], RetraceOptions(out=out, redact=False))
    trace, _ = _trace(out)
    assert {s.actor for s in trace.steps} == {"human:shell"}
    assert all(is_known_actor(s.actor) for s in trace.steps)
    assert [f for f in validate_path(out).findings if f.rule == "S018"] == []


def test_one_definition_of_legal_actors() -> None:
    for actor in ("user", "agent", "system", "subagent:a1b2", "human:shell", "agent:shell", "human:git"):
        assert is_known_actor(actor), actor
    for actor in ("robot", "human", "user:", "agent:x y"):
        assert not is_known_actor(actor), actor


# ---------------------------------------------------------------- 1. subagents at any depth


def _call(i: int, cid: str, name: str, inp: dict[str, Any]) -> dict[str, Any]:
    return rec(i, "assistant", message={"id": f"m{i}", "role": "assistant", "model": "claude-x",
                                        "content": [{"type": "tool_use", "id": cid, "name": name, "input": inp}]})


def _result(i: int, cid: str, text: str, **extra: Any) -> dict[str, Any]:
    return rec(i, "user", message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": cid, "content": text}]}, **extra)


def test_workflow_agents_deep_under_subagents_are_read(tmp_path: Path) -> None:
    log = _write(tmp_path, "sess-9.jsonl", [
        rec(1, "user", message={"role": "user", "content": "run the review workflow"}),
        _call(2, "toolu_wf", "Workflow", {"name": "review"}),
        _result(3, "toolu_wf", "workflow finished", toolUseResult={"agentId": "w1"}),
        rec(4, "assistant", message={"id": "m4", "role": "assistant", "model": "claude-x",
                                     "content": [{"type": "text", "text": "Reviewed."}]}),
    ])
    deep = tmp_path / "sess-9" / "subagents" / "workflows" / "wf_1"
    deep.mkdir(parents=True)
    side = {"isSidechain": True, "agentId": "w1"}
    _write(deep, "agent-w1.jsonl", [  # uuids of its own, as Claude Code writes them (random)
        rec(11, "user", message={"role": "user", "content": "review src/"}, parentUuid=None, **side),
        {**_call(12, "toolu_ls", "Bash", {"command": "ls src"}), **side},
        {**_result(13, "toolu_ls", "a.py"), **side},
    ])
    out = tmp_path / "t"
    retrace([log], RetraceOptions(out=out, redact=False))
    trace, m = _trace(out)
    sub = [s for s in trace.steps if s.actor == "subagent:w1"]
    assert [s.tool for s in sub] == ["Bash"]
    assert "sess-9/subagents/workflows/wf_1/agent-w1.jsonl" in {f.path for f in m.sources}
    assert m.ledger is not None
    deep_ledger = next(f for f in m.ledger if f.path.endswith("agent-w1.jsonl"))
    assert deep_ledger.records_read == 3 and deep_ledger.totals["unknown"] == 0


# ---------------------------------------------------------------- 3. a subagent file on its own


def test_a_subagent_file_retraced_alone_keeps_its_prompt_as_the_task(tmp_path: Path) -> None:
    side = {"isSidechain": True, "agentId": "s1"}
    log = _write(tmp_path, "agent-s1.jsonl", [
        rec(1, "user", message={"role": "user", "content": "Find every TODO in src/ and list them"}, **side),
        {**_call(2, "toolu_g", "Grep", {"pattern": "TODO"}), **side},
        {**_result(3, "toolu_g", "src/a.py:3: TODO"), **side},
    ])
    out = tmp_path / "t"
    retrace([log], RetraceOptions(out=out, redact=False))
    trace, m = _trace(out)
    assert trace.task == "Find every TODO in src/ and list them"
    # the parent agent wrote that prompt: the task, never a person's message (T-task/delegated)
    assert "user" not in {s.actor for s in trace.steps}
    assert trace.steps[0].tool == "Grep"
    assert validate_path(out).errors == []
    assert m.ledger is not None and m.ledger[0].totals["cited"] == 3


# ---------------------------------------------------------------- 7. the old Codex format


def test_old_codex_header_gives_started_at(tmp_path: Path) -> None:
    log = tmp_path / "rollout-2025-05-01T10-00-00-0a0b0c0d-1111-2222-3333-444455556666.jsonl"
    lines = [
        {"id": "0a0b0c0d-1111-2222-3333-444455556666", "timestamp": "2025-05-01T10:00:00.000Z",
         "instructions": "Prefer small commits.", "git": {"branch": "main"}},
        {"record_type": "state"},
        {"type": "message", "id": None, "role": "user", "content": [{"type": "input_text", "text": "fix the lint"}]},
        {"type": "message", "id": None, "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
        {"record_type": "state"},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    out = tmp_path / "t"
    retrace([log], RetraceOptions(out=out, redact=False))
    trace, m = _trace(out)
    assert trace.started_at == "2025-05-01T10:00:00.000Z"
    assert trace.memory == "Prefer small commits."  # the old header's instructions are the user's (AGENTS.md)
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["trace_fields"]["started_at"]["origin"] == "copied"
    assert prov["trace_fields"]["started_at"]["evidence"][0]["pointer"] == "/timestamp"
    assert validate_path(out).errors == []
    assert m.ledger is not None and m.ledger[0].totals["unknown"] == 0


# ---------------------------------------------------------------- 4. API errors and retries


def test_api_errors_are_error_steps_and_end_the_session(tmp_path: Path) -> None:
    def api_error(i: int, status: int, message: str, attempt: int) -> dict[str, Any]:
        return rec(i, "system", subtype="api_error", level="error", retryAttempt=attempt, maxRetries=10,
                   retryInMs=500, error={"status": status, "message": message})

    log = _write(tmp_path, "sess-9.jsonl", [
        rec(1, "user", message={"role": "user", "content": "summarise the README"}),
        api_error(2, 429, "rate_limit_error: too many requests", 1),
        api_error(3, 401, "Invalid API key", 2),
    ])
    out = tmp_path / "t"
    retrace([log], RetraceOptions(out=out, redact=False))
    trace, m = _trace(out)
    errors = [s for s in trace.steps if s.action == "error"]
    assert [s.output for s in errors] == ["rate_limit_error: too many requests", "Invalid API key"]
    assert [s.started_at for s in errors] == ["2026-01-01T10:00:02.000Z", "2026-01-01T10:00:03.000Z"]
    assert all(s.success is False and s.eval == -1 for s in errors)
    assert trace.termination_reason == "error_unrecoverable"
    assert m.ledger is not None and m.ledger[0].totals["cited"] == 3
    assert validate_path(out).errors == []
    assert verify_folder(out, [tmp_path]).ok  # the outputs are the records' exact error messages


# ---------------------------------------------------------------- 2. hook feedback is work


def _assistant(i: int, *blocks: dict[str, Any]) -> dict[str, Any]:
    return rec(i, "assistant", message={"id": f"m{i}", "role": "assistant", "model": "claude-x",
                                        "content": list(blocks)})


def _steps_by(trace: Trace) -> list[tuple[str, str, str | None]]:
    return [(s.actor, s.action, s.output) for s in trace.steps]


def test_a_stop_hook_feedback_is_a_hook_step_between_two_answers(tmp_path: Path) -> None:
    feedback = "Stop hook feedback:\n[./check.sh]: the tests were not run; run them before stopping"
    log = _write(tmp_path, "sess-9.jsonl", [
        rec(1, "user", message={"role": "user", "content": "fix the failing test"}),
        _assistant(2, {"type": "text", "text": "Done: the assertion is fixed."}),
        rec(3, "user", isMeta=True, message={"role": "user", "content": feedback}),
        _assistant(4, {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}}),
        rec(5, "user", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "3 passed"}]}),
        _assistant(6, {"type": "text", "text": "The tests pass."}),
    ])
    out = tmp_path / "t"
    retrace([log], RetraceOptions(out=out, redact=False))
    trace, m = _trace(out)
    assert _steps_by(trace) == [
        ("user", "user_message", None),
        ("agent", "output", "Done: the assertion is fixed."),  # not merged with the answer after the hook
        ("system:hook", "agent_step", feedback),
        ("agent", "agent_step", "3 passed"),
        ("agent", "output", "The tests pass."),
    ]
    hook, call = trace.steps[2], trace.steps[3]
    assert hook.caused_by == [2]  # the answer the agent tried to stop on
    assert call.caused_by == [3]  # the agent went on because of the hook's feedback
    assert hook.success is True and "Stop" in (hook.causal_note or "")
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["steps"][2]["fields"]["output"]["origin"] == "copied"
    assert m.ledger is not None and m.ledger[0].totals["unknown"] == 0
    assert all(is_known_actor(s.actor) for s in trace.steps)
    report = validate_path(out)
    assert report.errors == [] and not [f for f in report.findings if f.rule == "S018"]
    assert verify_folder(out, [tmp_path]).ok  # the hook step's output is the record's exact text


def test_answers_are_not_merged_across_a_stop_hook(tmp_path: Path) -> None:
    log = _write(tmp_path, "sess-9.jsonl", [
        rec(1, "user", message={"role": "user", "content": "summarise the change"}),
        _assistant(2, {"type": "text", "text": "It renames calc."}),
        rec(3, "user", isMeta=True, message={"role": "user", "content": [
            {"type": "text", "text": "Stop hook feedback:\nmention the tests too"}]}),
        _assistant(4, {"type": "text", "text": "It renames calc and updates its tests."}),
    ])
    out = tmp_path / "t"
    retrace([log], RetraceOptions(out=out, redact=False))
    trace, _ = _trace(out)
    outputs = [s for s in trace.steps if s.action == "output"]
    assert [s.output for s in outputs] == ["It renames calc.", "It renames calc and updates its tests."]
    assert outputs[1].caused_by == [3] and trace.steps[2].actor == "system:hook"
    assert trace.final_output == "It renames calc and updates its tests."


def test_a_user_prompt_submit_hook_addition_is_a_hook_step(tmp_path: Path) -> None:
    added = "<user-prompt-submit-hook>Current branch: feature/cart</user-prompt-submit-hook>"
    log = _write(tmp_path, "sess-9.jsonl", [
        rec(1, "user", message={"role": "user", "content": "which branch am I on?"}),
        rec(2, "user", message={"role": "user", "content": added}),
        _assistant(3, {"type": "text", "text": "feature/cart."}),
    ])
    out = tmp_path / "t"
    retrace([log], RetraceOptions(out=out, redact=False))
    trace, _ = _trace(out)
    assert _steps_by(trace) == [("user", "user_message", None), ("system:hook", "agent_step", added),
                                ("agent", "output", "feature/cart.")]
    assert trace.steps[1].caused_by == [1]
    assert trace.steps[2].caused_by == [1, 2]  # the request, and what the hook added to it
    assert trace.task == "which branch am I on?"
    assert validate_path(out).errors == []
    assert verify_folder(out, [tmp_path]).ok


# ---------------------------------------------------------------- 6. context around the user's words


def _codex(tmp_path: Path, prompt: str, typed: str) -> Path:
    sid = "019e2a10-9999-7000-8000-000000000009"
    log = tmp_path / f"rollout-2026-05-12T09-00-00-{sid}.jsonl"
    lines: list[dict[str, Any]] = [
        {"timestamp": "2026-05-12T09:00:00.000Z", "type": "session_meta",
         "payload": {"id": sid, "timestamp": "2026-05-12T09:00:00.000Z", "cwd": "/home/dev/shop",
                     "originator": "codex_vscode", "cli_version": "0.40.0"}},
        {"timestamp": "2026-05-12T09:00:01.000Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}},
        {"timestamp": "2026-05-12T09:00:01.001Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": typed, "images": []}},
        {"timestamp": "2026-05-12T09:00:02.000Z", "type": "response_item",
         "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return log


def test_the_ide_context_around_a_codex_prompt_is_kept(tmp_path: Path) -> None:
    context = ("# Context from my IDE setup:\n\n## Active file: shop/cart.py\n\n## Open tabs:\n"
               "- cart.py: shop/cart.py\n- test_cart.py: tests/test_cart.py\n\n## My request for Codex:\n")
    typed = "Rename `calc` to `compute_total`."
    log = _codex(tmp_path, context + typed, typed)
    out = tmp_path / "t"
    retrace([log], RetraceOptions(out=out, redact=False))
    trace, m = _trace(out)
    assert trace.task == typed
    user = next(s for s in trace.steps if s.action == "user_message")
    assert user.input == typed and user.observation is None  # the request exactly, as before
    ctx = [s for s in trace.steps if s.actor == "system:ide"]
    assert len(ctx) == 1 and ctx[0].output == context  # what the agent was shown with it
    assert ctx[0].turn == user.turn and ctx[0].caused_by == [user.step]
    assert trace.steps[0].action == "user_message"  # the first step stays the request (S021)
    prov = json.loads((out / "provenance.json").read_text())
    p_user = prov["steps"][user.step - 1]["fields"]["input"]
    p_ctx = prov["steps"][ctx[0].step - 1]["fields"]["output"]
    assert p_ctx["origin"] == "copied" and p_ctx["rule"] == "C-span"
    assert p_ctx["evidence"] == p_user["evidence"]  # the same record, the other slice of its text
    answer = next(s for s in trace.steps if s.action == "output")
    assert answer.caused_by == [user.step]
    report = validate_path(out)
    assert report.errors == [] and not [f for f in report.findings if f.rule in ("S018", "S021")]
    assert verify_folder(out, [tmp_path]).ok
    assert m.ledger is not None and m.ledger[0].totals["unknown"] == 0


def test_the_files_a_desktop_prompt_mentions_are_kept(tmp_path: Path) -> None:
    context = "# Files mentioned by the user:\n\n## cart.py: /home/dev/shop/cart.py\n\n## My request for Codex:\n"
    typed = "why does this round down?"
    log = _codex(tmp_path, context + typed, typed)
    out = tmp_path / "t"
    retrace([log], RetraceOptions(out=out, redact=False))
    trace, _ = _trace(out)
    assert [(s.actor, s.input, s.output) for s in trace.steps] == [
        ("user", typed, None), ("system:ide", None, context), ("agent", None, "Done.")]
    assert verify_folder(out, [tmp_path]).ok
