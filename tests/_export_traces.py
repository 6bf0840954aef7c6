"""Hand-built Forsy traces for the export promise tests (tests/test_export_*promises.py): every
value is written out here, so each test can say by hand what a format makes of it."""

from __future__ import annotations

from typing import Any

from forsy.export import Bundle
from forsy.models import Manifest, Provenance, Trace


def step(n: int, **kw: Any) -> dict[str, Any]:
    """A step as trace.json holds it: `n`, turn 1, actor agent, an output action, unless `kw` says."""
    return {"step": n, "turn": 1, "actor": "agent", "action": "output", **kw}


def trace(trace_id: str = "forsy_t1", steps: list[dict[str, Any]] | None = None, *, tier: str = "private",
          **kw: Any) -> Trace:
    """A minimal valid trace: `kw` sets top-level fields, `tier` the dataset summary's release tier."""
    doc: dict[str, Any] = {
        "trace_id": trace_id, "trace_mode": "retraced", "validation_level": "retraced_from_logs",
        "task": "fix the bug", "agent_tools": [], "termination_reason": "task_complete",
        "steps": steps if steps is not None else [step(1, output="done")],
        "summary": {"total_steps": 1, "total_turns": 1, "positive_steps": 0, "negative_steps": 0,
                    "neutral_steps": 1, "directive_signals": 0, "human_feedback": {}, "agent_confidence": 50},
        "dataset_summary": {"title": "t", "description": "d", "tags": [], "release_tier": tier,
                            "validation_level": "retraced_from_logs"},
        **kw,
    }
    return Trace.model_validate(doc)


def manifest(trace_id: str = "forsy_t1", session_id: str | None = "sess-1") -> Manifest:
    return Manifest.model_validate({
        "trace_id": trace_id, "generator": {"name": "forsy"}, "source_kind": "claude_code",
        "session_id": session_id, "sources": [], "trace_mode": "retraced",
        "validation_level": "retraced_from_logs", "release_tier": "private", "total_steps": 1,
        "total_turns": 1, "agent_confidence": 50})


def provenance(trace_id: str = "forsy_t1") -> Provenance:
    return Provenance.model_validate({"trace_id": trace_id, "sources": {"a.jsonl": "ab"}, "evidence": {},
                                      "trace_fields": {}, "steps": []})


def bundle(t: Trace | None = None, *, man: bool = False, prov: bool = False, where: str = "f",
           status: str | None = None, reviewed: bool = False) -> Bundle:
    t = t if t is not None else trace()
    return Bundle(t, manifest(t.trace_id) if man else None, provenance(t.trace_id) if prov else None, where,
                  status, reviewed)


T0 = "2026-01-01T00:00:00Z"  # 1767225600 s after the epoch


def rich() -> Trace:
    """One trace with a step of every shape the formats tell apart (tests/test_export_formats_promises.py
    spells out, by hand, what each format makes of it)."""
    return trace("forsy_x", [
        step(1, actor="user", action="user_message", input="fix it", started_at=T0, message_role="direct_request",
             input_source={"actor": "user"}),
        step(2, action="agent_step", tool="Read", operation="read", input='{"file_path":"a.py"}', output="print(1)",
             reasoning="look first", success=True, started_at="2026-01-01T00:00:01.5Z",
             ended_at="2026-01-01T00:00:02Z"),
        step(3, action="agent_step", tool="Bash", input="ls -la", output="a.py", reasoning="list", success=False,
             parallel_group="g1", execution_mode="parallel"),
        step(4, action="agent_step", tool="Grep", parallel_group="g1", execution_mode="parallel"),
        step(5, action="agent_step", tool="Task", input='{"prompt":"go"}', output="sub done", caused_by=[1]),
        step(6, actor="subagent:a1", action="agent_step", tool="Read", input='{"file_path": "b.py"}', output="b",
             causal_type="delegation_to_subagent", caused_by=[5]),
        step(7, output="all fixed", reasoning="thinking", eval=1),
        step(8, actor="system", output="compacted"),
        step(9, reasoning="hmm"),
        step(10, action="error", output="boom", success=False, retry_of=3),
        step(11, actor="system:hook", output="hook said"),
        step(12, turn=2, actor="user", action="user_message", input="thanks"),
    ], system_prompt="be brief", agent_tools=["Read", "Bash"], started_at=T0, ended_at="2026-01-01T00:01:00Z",
        agent_config={"agent": "claude-code", "agent_version": "1.2", "model": "opus",
                      "token_usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 2,
                                      "cached_input_tokens": 1, "cache_creation_input_tokens": 3, "note": "x"}},
        summary={"total_steps": 12, "total_turns": 2, "positive_steps": 1, "negative_steps": 0, "neutral_steps": 11,
                 "directive_signals": 0, "human_feedback": {}, "agent_confidence": 70, "goal_achieved": True,
                 "goal_notes": "fixed"},
        memory="mem")
