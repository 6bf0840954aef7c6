"""OpenHands event streams as the newest stored V0 writer writes them: events built by hand from
All-Hands-AI/OpenHands at commit 156d0686c46aafb0fa9d291da6421fb6f64dddc0 (2025-11-28):
openhands/events/serialization/event.py (`event_to_dict`: `action` + `args`, `observation` +
`content` + `extras`), openhands/events/action/agent.py (CondensationAction,
CondensationRequestAction, AgentRejectAction, LoopRecoveryAction),
openhands/events/observation/reject.py (UserRejectObservation, returned by runtime/base.py for an
action the person rejected) and observation/loop_recovery.py (LoopDetectionObservation, posted by
agent_controller.py). Expectations by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.openhands import OpenHandsSource

T = "2025-11-20T10:00:0{}".format


def _read(tmp_path: Path, events: list[dict[str, Any]]) -> Any:
    p = tmp_path / "trajectory.json"
    p.write_text(json.dumps(events, indent=1), "utf-8")
    [s] = OpenHandsSource().read(p, ReadContext(root=tmp_path))
    return s


def _why(s: Any) -> dict[int, tuple[str, str | None]]:
    order = {ev_id: i for i, ev_id in enumerate(s.evidence)}
    return {order[k]: (m.heading, m.subtype) for k, m in s.ledger.items()}


def test_a_condensation_is_a_compaction_and_controls_are_notes_not_calls(tmp_path: Path) -> None:
    s = _read(tmp_path, [
        {"id": 0, "timestamp": T(0), "source": "user", "action": "message", "args": {"content": "go"}},
        {"id": 1, "timestamp": T(1), "source": "agent", "action": "condensation",
         "args": {"forgotten_event_ids": None, "forgotten_events_start_id": 0, "forgotten_events_end_id": 0,
                  "summary": "the user said go", "summary_offset": 1}},
        {"id": 2, "timestamp": T(2), "source": "user", "action": "condensation_request", "args": {}},
        {"id": 3, "timestamp": T(3), "source": "environment", "observation": "loop_detection",
         "content": "Agent detected in a loop!", "extras": {}},
        {"id": 4, "timestamp": T(4), "source": "user", "action": "loop_recovery", "args": {"option": 1}},
        {"id": 5, "timestamp": T(5), "source": "agent", "action": "condensation",
         "args": {"forgotten_event_ids": [3], "summary": None, "summary_offset": None}},
    ])
    got = [(e.kind, e.actor, e.text, e.refs[0].pointer, e.info) for e in s.events]
    assert got == [
        ("user", "user", "go", "/args/content", None),
        ("compaction", "system", "the user said go", "/args/summary", None),
        ("note", "user", None, "", NoteInfo(subtype="condensation_request")),
        ("note", "system", "Agent detected in a loop!", "/content", NoteInfo(subtype="loop_detection")),
        ("note", "user", None, "", NoteInfo(subtype="loop_recovery")),
        ("compaction", "system", None, "", None),
    ]
    assert s.quality.compactions == 2 and s.quality.missing_results == 0
    assert [w.code for w in s.warnings] == []
    assert _why(s) == {2: ("set_aside", "action:condensation_request"), 3: ("set_aside", "observation:loop_detection"),
                       4: ("set_aside", "action:loop_recovery")}


def test_a_rejected_action_fails_as_the_persons_rejection_and_an_agent_reject_is_its_words(tmp_path: Path) -> None:
    s = _read(tmp_path, [
        {"id": 0, "timestamp": T(0), "source": "user", "action": "message", "args": {"content": "clean up"}},
        {"id": 1, "timestamp": T(1), "source": "agent", "action": "run", "args": {"command": "rm -rf /tmp/x"}},
        {"id": 2, "timestamp": T(2), "source": "environment", "cause": 1, "observation": "user_rejected",
         "content": "Action has been rejected by the user! Waiting for further user input.", "extras": {}},
        {"id": 3, "timestamp": T(3), "source": "agent", "action": "reject",
         "args": {"outputs": {"reason": "cannot do this safely"}, "thought": ""}},
    ])
    call, result, words = s.events[1], s.events[2], s.events[3]
    assert (call.kind, call.tool) == ("tool_call", "run")
    assert (result.kind, result.call_id, result.is_error) == ("tool_result", call.call_id, True)
    assert result.info is not None and result.info.rejected is True
    assert s.quality.extra["rejected_calls"] == 1
    assert (words.kind, words.text, words.refs[0].pointer) == ("agent_text", "cannot do this safely",
                                                               "/args/outputs/reason")
    assert len(s.events) == 4 and s.quality.missing_results == 0 and s.warnings == []


def test_a_conversation_error_of_the_sdk_is_the_agents_error_step(tmp_path: Path) -> None:
    """OpenHands/software-agent-sdk at commit 611629e6999ad398dc49c761721eefe18d5e6bd9 (2026-08-22):
    openhands-sdk/openhands/sdk/event/conversation_error.py (ConversationErrorEvent `code`, `detail`,
    emitted by local_conversation.py when the run loop stops) and openhands-agent-server's
    ServerErrorEvent: both were unknown kinds, the failure lost."""
    s = _read(tmp_path, [
        {"kind": "MessageEvent", "id": "a", "timestamp": T(0), "source": "user",
         "llm_message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}},
        {"kind": "ConversationErrorEvent", "id": "b", "timestamp": T(1), "source": "environment",
         "code": "LLMBadRequestError", "detail": "context window exceeded"},
        {"kind": "ServerErrorEvent", "id": "c", "timestamp": T(2), "source": "environment", "code": "MCPError",
         "detail": ""},
    ])
    got = [(e.kind, e.actor, e.text, e.refs[0].pointer, e.ts) for e in s.events]
    assert got == [("user", "user", "hi", "/llm_message/content/0/text", T(0)),
                   ("agent_text", "agent", "context window exceeded", "/detail", T(1)),
                   ("agent_text", "agent", None, "", T(2))]
    assert all(e.info is not None and e.info.api_error for e in s.events[1:])
    assert s.quality.extra.get("agent_errors") == 2 and "v1_unknown_kinds" not in s.quality.extra
    assert s.quality.unknown_records == 0 and s.warnings == []
