"""Each failure OpenHands' (V0) event stream records, read as a failure; and what is not one.

Hand-written trajectories in the shapes OpenHands serialises (openhands/events/serialization:
`observation`, `content`, `cause`, `extras`):

* an ErrorObservation (`observation: "error"`) answering an action: a failed result; one that
  answers no action (the controller's or the runtime's error): an error step;
* a CmdOutputObservation (`observation: "run"`) with a non-zero exit code, wherever each version
  wrote it: `extras.metadata.exit_code` (CmdOutputMetadata), `extras.exit_code` (the field of
  older observations), `exit_code` beside the content (the oldest outputs); -1 is "no exit
  status yet" (a server left running, the no-output timeout): unknown, not a failure;
* AgentStateChangedObservation to `error` (`extras.agent_state`, `extras.reason`): the agent
  stopped on an error: an error step, the trace's termination.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _oracle import retrace
from forsy.evidence import Mark
from forsy.payloads import MessageInfo
from forsy.sources import ReadContext
from forsy.sources.openhands import OpenHandsSource

T = "2026-01-01T00:00:0"


def _run(i: int, cmd: str) -> dict[str, Any]:
    return {"id": i, "timestamp": f"{T}{i}", "source": "agent", "action": "run", "args": {"command": cmd}}


def _out(i: int, cause: int, extras: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"id": i, "timestamp": f"{T}{i}", "source": "agent", "observation": "run", "cause": cause,
            "content": f"out {cause}", "extras": extras, **more}


def _read(tmp_path: Path, events: list[Any]) -> Any:
    p = tmp_path / "traj.json"
    p.write_text(json.dumps(events, indent=1))
    [s] = OpenHandsSource().read(p, ReadContext(root=tmp_path))
    return s


def test_exit_codes_where_each_version_wrote_them(tmp_path: Path) -> None:
    events = [
        {"id": 0, "timestamp": f"{T}0", "source": "user", "action": "message", "args": {"content": "go"}},
        _run(1, "a"), _out(2, 1, {"command": "a", "metadata": {"exit_code": 2}}),
        _run(3, "b"), _out(4, 3, {"command_id": -1, "command": "b", "exit_code": 1}),
        _run(5, "c"), _out(6, 5, {}, exit_code=127),
        _run(7, "d"), _out(8, 7, {"command": "d", "metadata": {"exit_code": 0}}),
        _run(9, "e"), _out(10, 9, {"command_id": -1, "command": "e", "exit_code": 0}),
    ]
    s = _read(tmp_path, events)
    assert [(e.call_id, e.is_error) for e in s.events if e.kind == "tool_result"] == [
        ("1", True), ("3", True), ("5", True), ("7", False), ("9", False)]


def test_a_command_still_running_did_not_fail(tmp_path: Path) -> None:
    """CmdOutputMetadata's -1: the command had no exit status when the observation was made."""
    events = [_run(1, "python3 -m http.server 8000"), _out(2, 1, {"metadata": {"exit_code": -1}}),
              _run(3, "sleep 99"), _out(4, 3, {"exit_code": -1}),
              _run(5, "x"), {**_out(6, 5, {"metadata": {"exit_code": -1}}), "observation": "error"}]
    s = _read(tmp_path, events)
    assert [e.is_error for e in s.events if e.kind == "tool_result"] == [None, None, True]


def test_error_observations_and_an_agent_error_state_are_failures(tmp_path: Path) -> None:
    events = [
        {"id": 0, "timestamp": f"{T}0", "source": "user", "action": "message", "args": {"content": "go"}},
        _run(1, "cat nosuch"),
        {"id": 2, "timestamp": f"{T}2", "source": "agent", "observation": "error", "cause": 1,
         "content": "File not found: nosuch", "extras": {"error_id": ""}},
        {"id": 3, "timestamp": f"{T}3", "source": "environment", "observation": "error",
         "content": "Runtime disconnected", "extras": {}},
        {"id": 4, "timestamp": f"{T}4", "source": "environment", "observation": "agent_state_changed",
         "content": "", "extras": {"agent_state": "running"}},
        {"id": 5, "timestamp": f"{T}5", "source": "environment", "observation": "agent_state_changed",
         "content": "", "extras": {"agent_state": "error", "reason": "AgentStuckInLoopError: stuck"}},
        {"id": 6, "timestamp": f"{T}6", "source": "environment", "observation": "agent_state_changed",
         "content": "", "extras": {"agent_state": "error", "reason": "  "}},  # no words: the record is cited
    ]
    p = tmp_path / "traj.json"
    p.write_text(json.dumps(events, indent=1))
    [s] = OpenHandsSource().read(p, ReadContext(root=tmp_path))
    got = [(e.kind, e.text, e.is_error, e.ts) for e in s.events]
    assert got == [("user", "go", None, f"{T}0"), ("tool_call", None, None, f"{T}1"),
                   ("tool_result", "File not found: nosuch", True, f"{T}2"),
                   ("agent_text", "Runtime disconnected", None, f"{T}3"),
                   ("agent_text", "AgentStuckInLoopError: stuck", None, f"{T}5"),
                   ("agent_text", None, None, f"{T}6")]
    errors = s.events[3:]
    assert all(isinstance(e.info, MessageInfo) and e.info.api_error and e.actor == "agent" for e in errors)
    lines = p.read_text("utf-8").split("\n")
    starts = [lines.index(f'  "id": {i},') for i in (3, 5, 6)]  # 0-based: the line after the element's `{`
    assert [(s.evidence[e.refs[0].ev].line, e.refs[0].pointer) for e in errors] == [
        (starts[0], "/content"), (starts[1], "/extras/reason"), (starts[2], "")]  # each event's own record
    assert s.quality.extra["agent_errors"] == 3 and s.quality.extra["state_events"] == 1
    assert "unpaired_observations" not in s.quality.extra and not s.warnings
    [trace] = retrace(p, tmp_path / "out")  # validated and verified
    steps = trace["steps"]
    assert [(st["action"], st.get("tool"), st["success"]) for st in steps[1:]] == [
        ("agent_step", "run", False), ("error", None, False), ("error", None, False), ("error", None, False)]
    assert trace["termination_reason"] == "error_unrecoverable"


# ---------------------------------------------------------------- the SDK's one-file-per-event conversation
def _message(text: str) -> dict[str, Any]:
    return {"kind": "MessageEvent", "id": text, "timestamp": f"{T}1", "source": "user",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": text}]}}


def test_event_files_in_index_order_and_a_damaged_one_said(tmp_path: Path) -> None:
    """Files `event-<index>-<id>.json` are read by their index as a number (99999 before
    100000, which sorts first as text); a file that is not one JSON object is counted and
    warned, never fatal; each file is one record of line 1, typed by the event's kind."""
    events = tmp_path / "convo-1" / "events"
    events.mkdir(parents=True)
    (events / "event-100000-00000000-0000-4000-8000-00000000000b.json").write_text(json.dumps(_message("second")))
    (events / "event-99999-00000000-0000-4000-8000-00000000000a.json").write_text(json.dumps(_message("first")))
    (events / "event-100001-00000000-0000-4000-8000-00000000000c.json").write_text("{not json")
    (events / "event-99998-00000000-0000-4000-8000-000000000009.json").write_text("[1]")  # JSON, no object
    first = events / "event-99998-00000000-0000-4000-8000-000000000009.json"
    [s] = OpenHandsSource().read(first, ReadContext(root=tmp_path))
    assert (s.source_kind, s.meta.agent, s.session_id) == ("openhands", "openhands", "convo-1")
    assert [(e.kind, e.text) for e in s.events] == [("user", "first"), ("user", "second")]
    names = [f"convo-1/events/event-{n}-00000000-0000-4000-8000-00000000000{c}.json"
             for n, c in (("99998", "9"), ("99999", "a"), ("100000", "b"), ("100001", "c"))]
    assert [(f.path, f.kind, f.abs_path) for f in s.files] == [
        (n, "openhands", str((tmp_path / n).resolve())) for n in names]
    assert (s.quality.records, s.quality.unparsable_records) == (4, 2)
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("unparsable", "an event file that is not one JSON object; skipped", names[k], 1) for k in (0, 3)]
    assert sorted((ev.source, ev.line, ev.record_type) for ev in s.evidence.values()) == sorted([
        (names[1], 1, "MessageEvent"), (names[2], 1, "MessageEvent")])


def test_bookkeeping_context_and_pairing_of_the_v0_stream(tmp_path: Path) -> None:
    """State events and `null` placeholders are counted and set aside with why; `recall` is a
    system note; an observation answers the action its `cause` names, whatever waits before it;
    with no `cause` (old outputs) the oldest waiting action of its type, counted."""
    events = [
        {"id": 1, "timestamp": f"{T}1", "source": "environment", "observation": "agent_state_changed",
         "content": "", "extras": {"agent_state": "error", "reason": "LLM budget exceeded"}},
        {"id": 2, "timestamp": f"{T}2", "source": "user", "action": "recall", "args": {"query": "ctx?"}},
        {"id": 3, "timestamp": f"{T}3", "source": "environment", "observation": "recall", "content": "the repo",
         "cause": 2, "extras": {}},
        {"id": 4, "timestamp": f"{T}4", "source": "environment", "action": "change_agent_state",
         "args": {"agent_state": "running"}},
        {"id": 5, "timestamp": f"{T}5", "source": "environment", "observation": "null", "content": "", "cause": 4},
        _run(6, "a"), _run(7, "b"),
        _out(8, 7, {"metadata": {"exit_code": 0}}),  # answers 7 though 6 waits first
        _out(9, 6, {"metadata": {"exit_code": 1}}),
        {"action": "run", "args": {"command": "c"}}, {"action": "read", "args": {"path": "/x"}},
        {"observation": "read", "content": "x", "extras": {}},  # no cause: the waiting read
        {"observation": "run", "content": "c", "extras": {"exit_code": 3}},
    ]
    s = _read(tmp_path, events)
    got = [(e.kind, e.actor, e.call_id, e.text, e.is_error) for e in s.events if e.kind != "tool_call"]
    calls = [e.call_id for e in s.events if e.kind == "tool_call"]
    assert got == [("agent_text", "agent", None, "LLM budget exceeded", None),
                   ("note", "system", None, "ctx?", None), ("note", "system", None, "the repo", None),
                   ("tool_result", "agent", "7", "out 7", False), ("tool_result", "agent", "6", "out 6", True),
                   ("tool_result", "agent", calls[3], "x", False), ("tool_result", "agent", calls[2], "c", True)]
    assert [e.refs[0].pointer for e in s.events if e.kind == "note"] == ["/args/query", "/content"]
    q = s.quality.extra
    assert (q["agent_errors"], q["state_events"], q["paired_by_order"]) == (1, 2, 2)
    lines = json.dumps(events, indent=1).split("\n")
    marks = {s.evidence[k].line: m for k, m in s.ledger.items()}
    notes = "workspace context OpenHands injects (a note, not a step)"
    assert [marks.get(lines.index(f'  "id": {i},')) for i in (2, 3, 4, 5)] == [
        Mark("set_aside", notes, "action:recall"), Mark("set_aside", notes, "observation:recall"),
        Mark("set_aside", "agent state bookkeeping (counted as state_events), not work", "action:change_agent_state"),
        Mark("set_aside", "a 'No observation' placeholder (counted as state_events)", "observation:null")]


def test_odd_observations_are_read_as_written(tmp_path: Path) -> None:
    """`success: false` fails a result whatever its exit code; content that is not text is kept
    as its JSON; an error's words may be in `message`; old outputs pair an observation whose type
    no waiting action has with the oldest one; each observation answering nothing is counted,
    warned at its record and set aside."""
    events = [
        _run(1, "a"), {**_out(2, 1, {"metadata": {"exit_code": -1}}), "success": False},
        _run(3, "b"), {**_out(4, 3, []), "content": {"k": [1]}, "success": True},
        {"id": 5, "timestamp": f"{T}5", "observation": "error", "content": "", "message": "Agent crashed",
         "extras": {}},
        {"id": 6, "timestamp": f"{T}6", "observation": "run", "cause": 99, "content": "stray 1", "extras": {}},
        {"id": 7, "timestamp": f"{T}7", "observation": "run", "cause": 98, "content": "stray 2", "extras": {}},
        _run(8, "d"), _out(9, 8, {}, success=False),  # no exit code: the flag alone says it failed
        {"action": "browse", "args": {"url": "u"}},
        {"observation": "error", "content": "timeout", "extras": {}},  # no cause, no waiting browse observation
    ]
    s = _read(tmp_path, events)
    got = [(e.kind, e.text, e.is_error, e.refs[0].pointer) for e in s.events if e.kind != "tool_call"]
    assert got == [("tool_result", "out 1", True, "/content"), ("tool_result", '{"k":[1]}', False, "/content"),
                   ("agent_text", "Agent crashed", None, "/message"), ("tool_result", "out 8", True, "/content"),
                   ("tool_result", "timeout", True, "/content")]
    assert s.quality.extra["unpaired_observations"] == 2 and s.quality.extra["paired_by_order"] == 1
    lines = json.dumps(events, indent=1).split("\n")
    at = [lines.index(f'  "id": {i},') for i in (6, 7)]
    assert [(w.code, w.line) for w in s.warnings] == [("unpaired-observation", n) for n in at]
    assert s.warnings[0].message == "observation 'run' at / answers no waiting action (cause 99); kept out of the trace"
    marks = {s.evidence[k].line: m for k, m in s.ledger.items()}
    assert [marks[n] for n in at] == [Mark("set_aside", "an observation that answers no waiting action (warned: "
                                           "unpaired-observation)", "observation:run")] * 2
