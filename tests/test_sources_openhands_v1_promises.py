"""The OpenHands SDK's events (`kind` naming each class), read from a conversation saved as a
JSON array, one evidence record per event: every kind the reader knows gives its events with
their exact pointers, or a ledger mark saying why it gives none; a kind it does not know is
counted and warned. The SDK's models (openhands-sdk/openhands/sdk/event/) are the shapes;
every expectation below was worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forsy.evidence import Session
from forsy.payloads import ResultInfo
from forsy.sources import ReadContext
from forsy.sources.openhands import OpenHandsSource

SRC = OpenHandsSource()
T = "2026-01-01T10:00:0{}"


def read(tmp_path: Path, events: list[Any]) -> Session:
    p = tmp_path / "conv.json"
    p.write_text(json.dumps(events, indent=1))
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    return s


def ev(kind: str, n: int, **more: Any) -> dict[str, Any]:
    return {"kind": kind, "id": f"e{n}", "timestamp": T.format(n), "source": "agent", **more}


def index(s: Session) -> dict[str, int]:
    """evidence id → the event's place in the array."""
    return {k: i for i, k in enumerate(s.evidence)}


def show(s: Session) -> list[tuple[Any, ...]]:
    ix = index(s)
    return [(e.kind, e.actor, e.text, [(ix[r.ev], r.pointer) for r in e.refs], e.ts) for e in s.events]


def marks(s: Session) -> dict[int, tuple[str, str]]:
    ix = index(s)
    return {ix[k]: (m.heading, m.name) for k, m in s.ledger.items()}


def test_system_prompts_messages_and_their_words(tmp_path: Path) -> None:
    s = read(tmp_path, [
        ev("SystemPromptEvent", 0, system_prompt={"type": "text", "text": "be brief"},
           tools=[{"name": "terminal"}, {"title": "file_editor"}, {"name": 7}, "x"]),
        ev("SystemPromptEvent", 1, system_prompt={"text": "second"}, tools=[{"name": "other"}]),
        ev("SystemPromptEvent", 2, system_prompt="no object", tools="none"),
        ev("MessageEvent", 3, source="user", llm_message={"role": "user", "content": [
            {"type": "text", "text": "fix it"}, {"type": "image"}, {"type": "text", "text": "  "},
            {"type": "text", "text": "please"}]}),
        ev("MessageEvent", 4, llm_message={"role": "assistant", "content": [{"type": "text", "text": "on it"}],
                                           "reasoning_content": "plan"}),
        ev("MessageEvent", 5, source="environment", llm_message={"role": "user", "content": [
            {"type": "text", "text": "resumed"}], "reasoning_content": "not the agent's"}),
        ev("MessageEvent", 6, source=None, llm_message={"role": "user", "content": [{"type": "text", "text": "hi"}],
                                                       "reasoning_content": "the user's?"}),
        ev("MessageEvent", 7, llm_message={"role": "assistant", "content": []}),
        ev("MessageEvent", 8, llm_message="text"),
    ])
    m = s.meta
    assert (m.system_prompt, m.tools) == ("be brief", ["terminal", "file_editor"])
    assert m.system_prompt_ref is not None and (index(s)[m.system_prompt_ref.ev], m.system_prompt_ref.pointer) == (
        0, "/system_prompt/text")
    assert show(s) == [
        ("user", "user", "fix it", [(3, "/llm_message/content/0/text")], T.format(3)),
        ("user", "user", "please", [(3, "/llm_message/content/3/text")], T.format(3)),
        ("agent_text", "agent", "on it", [(4, "/llm_message/content/0/text")], T.format(4)),
        ("reasoning", "agent", "plan", [(4, "/llm_message/reasoning_content")], T.format(4)),
        ("note", "system", "resumed", [(5, "/llm_message/content/0/text")], T.format(5)),
        ("reasoning", "agent", "not the agent's", [(5, "/llm_message/reasoning_content")], T.format(5)),
        ("user", "user", "hi", [(6, "/llm_message/content/0/text")], T.format(6)),
    ]
    assert s.events[0].ts_ref is not None and s.events[0].ts_ref.pointer == "/timestamp"
    assert marks(s) == {2: ("set_aside", "a system prompt event with no text"),
                        7: ("set_aside", "a message with no words"), 8: ("set_aside", "a message with no words")}
    assert s.warnings == []


def test_actions_their_calls_and_words(tmp_path: Path) -> None:
    bash = {"kind": "ExecuteBashAction", "command": "ls"}
    s = read(tmp_path, [
        ev("ActionEvent", 0, thought=[{"type": "text", "text": "look"}, {"type": "text", "text": ""}],
           reasoning_content="deep", tool_name="terminal", tool_call_id="c0", action=bash),
        ev("ActionEvent", 1, tool_name="terminal", tool_call_id="c1", action=None,
           tool_call={"arguments": '{"command": "l'}),
        ev("ActionEvent", 2, tool_name=5, action=None),  # no tool_call: nothing to cite but the event
        ev("ActionEvent", 3, tool_call_id="c3", action={"kind": "FinishAction", "message": "done"}),
        ev("ActionEvent", 4, tool_call_id="c4", action={"kind": "ThinkAction", "thought": "hmm"}),
        ev("ActionEvent", 5, tool_name="finish", tool_call_id="c5", action={"kind": "FinishAction"}),
        ev("ObservationEvent", 6, tool_call_id="c3", observation={"content": [{"type": "text", "text": "ok"}]}),
        ev("ObservationEvent", 7, tool_call_id="c4", observation={}),
    ])
    got = [(e.kind, e.text, [(index(s)[r.ev], r.pointer) for r in e.refs], e.call_id, e.tool, e.args)
           for e in s.events]
    assert got == [
        ("reasoning", "look", [(0, "/thought/0/text")], None, None, None),
        ("reasoning", "deep", [(0, "/reasoning_content")], None, None, None),
        ("tool_call", None, [(0, "/action")], "c0", "terminal", bash),
        ("tool_call", None, [(1, "/tool_call/arguments")], "c1", "terminal", '{"command": "l'),
        ("tool_call", None, [(2, "")], "e2", None, None),
        ("agent_text", "done", [(3, "/action/message")], None, None, None),
        ("reasoning", "hmm", [(4, "/action/thought")], None, None, None),
        # a FinishAction with no message is a call like any other
        ("tool_call", None, [(5, "/action")], "c5", "finish", {"kind": "FinishAction"}),
    ]
    c0 = s.events[2]
    assert c0.name_ref is not None and (index(s)[c0.name_ref.ev], c0.name_ref.pointer) == (0, "/tool_name")
    assert s.events[4].name_ref is None
    # the SDK acknowledges a finish and a think: not a result of its own
    assert marks(s) == {6: ("duplicate", "the SDK's acknowledgement of a finish or think action (its words are the "
                                         "step)"),
                        7: ("duplicate", "the SDK's acknowledgement of a finish or think action (its words are the "
                                         "step)")}
    # the calls never answered are missing results, each warned
    assert s.quality.missing_results == 4
    assert [w.code for w in s.warnings] == ["no-result"] * 4


def obs(n: int, call: str, **o: Any) -> dict[str, Any]:
    return ev("ObservationEvent", n, source="environment", tool_call_id=call, observation=o)


def test_each_observation_s_result_and_failure(tmp_path: Path) -> None:
    calls = [ev("ActionEvent", i, tool_name="terminal", tool_call_id=f"c{i}", action={"kind": "TerminalAction"})
             for i in range(9)]
    text = {"content": [{"type": "text", "text": "out"}, {"type": "text", "text": "more"}]}
    s = read(tmp_path, [*calls,
                        obs(9, "c0", **text, exit_code=0),
                        obs(10, "c1", exit_code=2),
                        obs(11, "c2", exit_code=-1),  # still running after the soft timeout: not a failure
                        obs(12, "c3", metadata={"exit_code": 1}),
                        obs(13, "c4", exit_code=True, metadata={"exit_code": 0}),  # a flag is no exit code
                        obs(14, "c5", is_error=True, exit_code=0),
                        obs(15, "c6", is_error=False),
                        ev("UserRejectObservation", 16, tool_call_id="c7", rejection_reason="no"),
                        ev("AgentErrorEvent", 17, tool_call_id="c8", error="bad args"),
                        obs(18, "c0", exit_code=0),  # answered already
                        obs(19, None),
                        ])
    results = [(e.call_id, e.text, e.is_error, [(index(s)[r.ev], r.pointer) for r in e.refs], e.ts)
               for e in s.events if e.kind == "tool_result"]
    assert results == [
        # exit 0 alone says no more than "not failed by its code": is_error (always written by the SDK) says the rest
        ("c0", "out\nmore", None, [(9, "/observation/content/0/text"), (9, "/observation/content/1/text")],
         T.format(9)),
        ("c1", "", True, [(10, "/observation")], T.format(10)),
        ("c2", "", None, [(11, "/observation")], T.format(11)),
        ("c3", "", True, [(12, "/observation")], T.format(12)),
        ("c4", "", None, [(13, "/observation")], T.format(13)),
        ("c5", "", True, [(14, "/observation")], T.format(14)),
        ("c6", "", False, [(15, "/observation")], T.format(15)),
        ("c7", "no", True, [(16, "/rejection_reason")], T.format(16)),
        ("c8", "bad args", True, [(17, "/error")], T.format(17)),
    ]
    r0 = next(e for e in s.events if e.kind == "tool_result")
    assert r0.ts_ref is not None and r0.ts_ref.pointer == "/timestamp" and r0.actor == "agent"
    rej = next(e for e in s.events if e.call_id == "c7" and e.kind == "tool_result")
    assert isinstance(rej.info, ResultInfo) and rej.info.rejected is True
    assert s.quality.extra["rejected_calls"] == 1
    assert s.quality.extra["unpaired_observations"] == 2
    assert [(w.code, w.message) for w in s.warnings] == [
        ("unpaired-observation", "ObservationEvent at / answers no waiting action (tool_call_id 'c0'); kept out of the "
                                 "trace"),
        ("unpaired-observation", "ObservationEvent at / answers no waiting action (tool_call_id None); kept out of the "
                                 "trace")]
    assert marks(s) == {i: ("set_aside", "an observation that answers no waiting action (warned: unpaired-observation)")
                        for i in (18, 19)}


def test_a_rejection_by_a_hook_is_not_the_person_s(tmp_path: Path) -> None:
    s = read(tmp_path, [ev("ActionEvent", 0, tool_name="t", tool_call_id="c", action={"kind": "A"}),
                        ev("UserRejectObservation", 1, tool_call_id="c", rejection_source="hook", rejection_reason=3)])
    (res,) = [e for e in s.events if e.kind == "tool_result"]
    assert isinstance(res.info, ResultInfo) and (res.text, res.is_error, res.info.rejected) == ("", True, False)
    assert "rejected_calls" not in s.quality.extra


def test_compactions_bookkeeping_and_unknown_kinds(tmp_path: Path) -> None:
    s = read(tmp_path, [
        ev("Condensation", 0, summary="so far"),
        ev("CondensationSummaryEvent", 1, summary="  "),
        ev("ConversationStateUpdateEvent", 2),
        ev("PauseEvent", 3),
        ev("BrandNewEvent", 4),
        {"kind": 7, "id": "e5", "action": {"kind": "X"}, "source": "agent"},
    ])
    assert show(s) == [("compaction", "system", "so far", [(0, "/summary")], T.format(0)),
                       ("compaction", "system", None, [(1, "")], T.format(1)),
                       ("interrupt", "user", None, [(3, "")], T.format(3))]  # the person paused the run
    assert s.quality.compactions == 2
    assert marks(s) == {0: ("set_aside", "a condensation of the history (a compaction, not a step)"),
                        1: ("set_aside", "a condensation of the history (a compaction, not a step)"),
                        2: ("set_aside", "ConversationStateUpdateEvent: SDK bookkeeping (counted as state_events), "
                                         "not work")}
    q = s.quality
    assert (q.extra["state_events"], q.extra["v1_unknown_kinds"], q.unknown_records) == (1, 2, 2)
    assert [(w.code, w.message, w.file) for w in s.warnings] == [
        ("unknown-record", "event kind 'BrandNewEvent' at / is not one forsy knows; skipped", "conv.json"),
        ("unknown-record", "event kind None at / is not one forsy knows; skipped", "conv.json")]
    assert [w.line for w in s.warnings] == [list(s.evidence.values())[i].line for i in (4, 5)]


def test_a_pause_or_an_interrupt_is_the_persons_and_ends_the_run_as_theirs(tmp_path: Path) -> None:
    """event/user_action.py: PauseEvent, InterruptEvent (an interrupt mid-step first gives each
    call in flight a synthetic AgentErrorEvent: local_conversation.py). The person's stop, not
    bookkeeping: the run left last this way ended with the user (T-termination/interrupt)."""
    from forsy.run import RetraceOptions, retrace_one

    for kind in ("PauseEvent", "InterruptEvent"):
        p = tmp_path / kind / "conv.json"
        p.parent.mkdir()
        p.write_text(json.dumps([
            ev("MessageEvent", 0, source="user", llm_message={"role": "user", "content": [
                {"type": "text", "text": "run it"}]}),
            ev("ActionEvent", 1, tool_name="terminal", tool_call_id="c1", action={"kind": "TerminalAction",
                                                                                  "command": "make"}),
            ev("AgentErrorEvent", 2, tool_call_id="c1", tool_name="terminal",
               error="Tool call interrupted before completion. The conversation was paused."),
            {**ev(kind, 3), "source": "user"}]))
        [out] = retrace_one(p, RetraceOptions(redact=False))
        assert out.assembled is not None and out.assembled.trace.termination_reason == "user_abandoned", kind


def test_what_the_sdk_sends_from_the_users_side_is_its_note_not_the_persons(tmp_path: Path) -> None:
    """The SDK writes some of its own texts as MessageEvents of source "user": the critic's
    follow-up (critic/base.py), the content-filter nudge and a malformed call's validation error
    (agent/agent.py, fn_call_converter.py), the /goal runner's follow-up (goal/prompts.py). They
    are the SDK's notes; the person's words stay theirs, a sentence like them in the middle too."""
    sdk = ["The task appears incomplete (iteration 1, predicted success likelihood: 40.0%).\n\nPlease review.",
           "Your previous response was blocked by the provider's content filter. Rephrase.",
           "Missing required parameters for function 'terminal': {'command'}",
           "Parameter 'timeout' is expected to be an integer.",
           "Function 'bash' not found in available tools: ['terminal']",
           "The goal is NOT yet complete (audit iteration 2).\nOutstanding: tests"]
    typed = ["Make all tests pass", "Why does it say Missing required parameters for function 'x'?"]
    s = read(tmp_path, [_said(i, "user", t) for i, t in enumerate([typed[0], *sdk, typed[1]])])
    assert [e.text for e in s.events if e.kind == "user"] == typed
    assert [(e.actor, e.text) for e in s.events if e.kind == "note"] == [("system", t) for t in sdk]


def test_a_condensation_request_is_no_second_compaction(tmp_path: Path) -> None:
    """agent.py writes a CondensationRequest, then the condenser's Condensation with its summary:
    one compaction, the request set aside."""
    s = read(tmp_path, [ev("CondensationRequest", 0), ev("Condensation", 1, summary="so far")])
    assert show(s) == [("compaction", "system", "so far", [(1, "/summary")], T.format(1))]
    assert s.quality.compactions == 1
    assert marks(s)[0] == ("set_aside", "a request to condense the history (the Condensation after it is the "
                                        "compaction)")
    assert s.warnings == []


def test_discover_finds_trajectories_and_outputs_in_every_folder_below(tmp_path: Path) -> None:
    traj = [ev("MessageEvent", 0, source="user", llm_message={"role": "user", "content": [
        {"type": "text", "text": "hi"}]})]
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "conv.json").write_text(json.dumps(traj))
    (tmp_path / "a" / "b" / "output.jsonl").write_text(json.dumps({"instance_id": "i1", "instruction": "x",
                                                                  "history": traj}) + "\n")
    (tmp_path / "a" / "b" / "notes.json").write_text('{"a": 1}')
    assert sorted(p.relative_to(tmp_path).as_posix() for p in SRC.discover(tmp_path)) == [
        "a/b/output.jsonl", "a/conv.json"]


def test_odd_values_and_the_warnings_place(tmp_path: Path) -> None:
    s = read(tmp_path, [
        ev("SystemPromptEvent", 0, system_prompt={"text": "p"}),  # no tools at all
        ev("ActionEvent", 1, tool_name="terminal", tool_call_id="c1",
           action={"kind": "TerminalAction", "thought": "t"}),
        ev("ObservationEvent", 2, tool_call_id="c1", timestamp=5, observation=[{"text": "x"}]),
        ev("ActionEvent", 3, tool_name="t", tool_call_id="c3", action={"kind": "A"}),
        ev("UserRejectObservation", 4, tool_call_id="c3", rejection_reason="no"),
        ev("ActionEvent", 5, tool_name="t", tool_call_id="c5", action={"kind": "A"}),
        ev("UserRejectObservation", 6, tool_call_id="c5", rejection_source="user", rejection_reason="never"),
        ev("ActionEvent", 7, tool_name="t", tool_call_id="c7", action={"kind": "A"}),
        ev("AgentErrorEvent", 8, tool_call_id="c7", error={"code": 1}),
        ev("ObservationEvent", 9, tool_call_id="zz", observation={}),
        ev("ActionEvent", 10, tool_call_id="c10", action={"kind": "A"}),
    ])
    assert (s.meta.system_prompt, s.meta.tools) == ("p", [])
    # a thought inside another action's object is that action's argument, not reasoning
    c1 = next(e for e in s.events if e.call_id == "c1" and e.kind == "tool_call")
    assert c1.args == {"kind": "TerminalAction", "thought": "t"}
    r1, r3, r5, r7 = [e for e in s.events if e.kind == "tool_result"]
    # an observation that is no object: no text, no verdict; a time that is no text: none
    assert (r1.text, r1.is_error, r1.ts, r1.ts_ref) == ("", None, None, None)
    assert (r7.text, r7.is_error) == ("", True)
    assert s.quality.extra["rejected_calls"] == 2
    line = list(s.evidence.values())[9].line  # the unpaired observation's first line in the file
    assert line is not None and line > 1
    assert [(w.code, w.file, w.line) for w in s.warnings[:1]] == [("unpaired-observation", "conv.json", line)]
    assert [w.message for w in s.warnings[1:]] == ["action 'None' (c10) has no observation"]


def test_an_output_line_is_one_record_its_steps_cite(tmp_path: Path) -> None:
    history = [
        ev("SystemPromptEvent", 0, system_prompt={}),
        ev("MessageEvent", 1, llm_message={"role": "assistant", "content": []}),
        ev("ActionEvent", 2, tool_call_id="f", action={"kind": "FinishAction", "message": "bye"}),
        ev("ObservationEvent", 3, tool_call_id="f", observation={}),
        ev("ObservationEvent", 4, tool_call_id="nobody", observation={}),
        ev("Condensation", 5), ev("PauseEvent", 6),
        ev("ActionEvent", 7, tool_name="terminal", tool_call_id="c7", action={"kind": "TerminalAction"}),
    ]
    p = tmp_path / "output.jsonl"
    p.write_text(json.dumps({"instance_id": "i1", "instruction": "x", "history": history}) + "\n")
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    # nothing is marked: the line is one record, which the answer cites
    assert (s.ledger, [(e.kind, e.text) for e in s.events]) == (
        {}, [("agent_text", "bye"), ("compaction", None), ("interrupt", None), ("tool_call", None)])
    assert [(e.refs[0].pointer) for e in s.events] == ["/history/2/action/message", "/history/5", "/history/6",
                                                       "/history/7/action"]
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("unpaired-observation", "output.jsonl", 1),
                                                              ("no-result", "output.jsonl", 1)]
    assert s.warnings[1].message == "action 'terminal' (c7) has no observation"


def test_the_models_reasoning_is_read_from_one_place_and_encrypted_parts_counted(tmp_path: Path) -> None:
    """llm/message.py keeps reasoning three ways: litellm's `reasoning_content`, Anthropic's
    `thinking_blocks`, OpenAI Responses' `responses_reasoning_item`. The first present is read
    (litellm fills reasoning_content from the thinking blocks too: never twice); encrypted
    reasoning (a redacted block, `encrypted_content`) is counted."""
    bash = {"kind": "ExecuteBashAction", "command": "ls"}
    thinking = [{"type": "thinking", "thinking": "plan A", "signature": "s"},
                {"type": "redacted_thinking", "data": "x"}]
    responses = {"id": "rs_1", "summary": ["checked the tests"], "content": ["ran them"], "encrypted_content": "gAAA"}
    s = read(tmp_path, [
        ev("ActionEvent", 0, tool_name="terminal", tool_call_id="c0", action=bash, responses_reasoning_item=responses),
        ev("ActionEvent", 1, tool_name="terminal", tool_call_id="c1", action=bash, thinking_blocks=thinking),
        ev("ActionEvent", 2, tool_name="terminal", tool_call_id="c2", action=bash, thinking_blocks=thinking,
           reasoning_content="plan A"),
        ev("MessageEvent", 3, llm_message={"role": "assistant", "content": [{"type": "text", "text": "done"}],
                                           "responses_reasoning_item": {"summary": ["wrap up"]}}),
    ])
    got = [(e.text, [(index(s)[r.ev], r.pointer) for r in e.refs]) for e in s.events if e.kind == "reasoning"]
    assert got == [("checked the tests", [(0, "/responses_reasoning_item/summary/0")]),
                   ("ran them", [(0, "/responses_reasoning_item/content/0")]),
                   ("plan A", [(1, "/thinking_blocks/0/thinking")]),
                   ("plan A", [(2, "/reasoning_content")]),
                   ("wrap up", [(3, "/llm_message/responses_reasoning_item/summary/0")])]
    assert s.quality.encrypted_reasoning == 3  # the encrypted item, two redacted blocks


def test_an_acp_servers_calls_are_calls_paired_by_id_the_final_status_deciding(tmp_path: Path) -> None:
    """event/acp_tool_call.py: each call written whole when it starts, again as it runs and as
    it ends, under one tool_call_id (before, all were set aside as bookkeeping: 0 calls)."""
    def acp(n: int, tcid: str, status: str, **more: Any) -> dict[str, Any]:
        return ev("ACPToolCallEvent", n, tool_call_id=tcid, title=f"call {tcid}", status=status, **more)

    s = read(tmp_path, [
        acp(0, "c1", "pending", tool_kind="read", raw_input={"path": "a.py"}),
        acp(1, "c1", "in_progress", tool_kind="read", raw_input={"path": "a.py"}),
        acp(2, "c1", "completed", tool_kind="read", raw_input={"path": "a.py"}, raw_output="x = 1"),
        acp(3, "c2", "failed", tool_kind="execute", raw_input={"command": "pytest"},
            content=[{"type": "text", "text": "1 failed"}]),
        acp(4, "c3", "completed", tool_kind="edit", raw_output={"ok": True}, is_error=True),
        acp(5, "c4", "in_progress"),  # never ended: a call with no result
        {"kind": "ACPToolCallEvent", "id": "e6", "source": "agent", "title": "no id"},
    ])
    got = [(e.kind, e.call_id, e.tool, e.text, e.is_error, [(index(s)[r.ev], r.pointer) for r in e.refs])
           for e in s.events]
    assert got == [
        ("tool_call", "c1", "read", None, None, [(0, "/raw_input")]),
        ("tool_result", "c1", None, "x = 1", False, [(2, "/raw_output")]),
        ("tool_call", "c2", "execute", None, None, [(3, "/raw_input")]),
        ("tool_result", "c2", None, "1 failed", True, [(3, "/content/0/text")]),
        ("tool_call", "c3", "edit", None, None, [(4, "")]),
        ("tool_result", "c3", None, '{"ok":true}', True, [(4, "/raw_output")]),
        ("tool_call", "c4", None, None, None, [(5, "")]),
    ]
    assert [e.args for e in s.events if e.kind == "tool_call"] == [{"path": "a.py"}, {"command": "pytest"}, None, None]
    assert marks(s)[1] == ("duplicate", "an ACP tool call written again as it runs (its first write is the call)")
    assert marks(s)[6] == ("set_aside", "an ACP tool call with no tool_call_id (nothing to pair)")
    assert "state_events" not in s.quality.extra


def _acp(n: int, tcid: str, status: str, **more: Any) -> dict[str, Any]:
    return ev("ACPToolCallEvent", n, tool_call_id=tcid, title=f"call {tcid}", status=status, **more)


def _said(n: int, source: str, text: str) -> dict[str, Any]:
    return ev("MessageEvent", n, source=source, llm_message={"role": source, "content": [{"type": "text",
                                                                                           "text": text}]})


def test_an_acp_call_id_met_again_after_a_message_is_a_new_call(tmp_path: Path) -> None:
    """ACP servers count their tool call ids afresh each session (resume_transcript.py: a
    message between two writes of one id parts them into two calls); within a run the writes
    repeat the call. Before, the second `exec_1` was marked a repeat and lost, without a word."""
    s = read(tmp_path, [
        _said(0, "user", "Run the tests"),
        _acp(1, "exec_1", "pending", tool_kind="execute", raw_input={"command": "pytest"}),
        _acp(2, "exec_1", "completed", tool_kind="execute", raw_input={"command": "pytest"}, raw_output="3 failed"),
        _acp(3, "exec_1", "completed", tool_kind="execute", raw_input={"command": "pytest"}, raw_output="3 failed"),
        _said(4, "user", "Fix them"),
        _acp(5, "exec_1", "pending", tool_kind="execute", raw_input={"command": "sed -i s/a/b/ x.py"}),
        _acp(6, "exec_1", "completed", tool_kind="execute", raw_input={"command": "sed -i s/a/b/ x.py"},
             raw_output=""),
    ])
    calls = [(e.kind, e.call_id, e.args or e.text) for e in s.events if e.kind in ("tool_call", "tool_result")]
    assert calls == [("tool_call", "exec_1", {"command": "pytest"}), ("tool_result", "exec_1", "3 failed"),
                     ("tool_call", "exec_1", {"command": "sed -i s/a/b/ x.py"}), ("tool_result", "exec_1", "")]
    assert marks(s)[3][0] == "duplicate" and 5 not in marks(s)


def test_an_acp_calls_late_arguments_and_wrapped_content_are_read(tmp_path: Path) -> None:
    """acp_agent.py merges the arguments in as they stream (the first write may hold `{}`), and
    keeps ACP's ToolCallContent as written: `content` blocks wrapping a text block, `diff`
    blocks with the new text. The arguments are cited where they were read."""
    s = read(tmp_path, [
        _acp(0, "e1", "pending", tool_kind="edit", raw_input={}),
        _acp(1, "e1", "completed", tool_kind="edit", raw_input={"file_path": "x.py", "new_string": "a = 2"},
             content=[{"type": "diff", "path": "x.py", "old_text": "a = 1", "new_text": "a = 2"}]),
        _acp(2, "r1", "completed", tool_kind="read", raw_input={"file_path": "x.py"},
             content=[{"type": "content", "content": {"type": "text", "text": "a = 2\n"}},
                      {"type": "terminal", "terminal_id": "t1"}]),
    ])
    [edit, edit_out, read_call, read_out] = s.events
    assert edit.args == {"file_path": "x.py", "new_string": "a = 2"}
    assert [(index(s)[r.ev], r.pointer) for r in edit.refs] == [(1, "/raw_input")]
    assert (edit_out.text, [r.pointer for r in edit_out.refs]) == ("a = 2", ["/content/0/new_text"])
    assert (read_out.text, [r.pointer for r in read_out.refs]) == ("a = 2\n", ["/content/0/content/text"])


OK = {"type": "text", "text": "ok"}


def _tree(n: int, parent: str | None, kind: str = "ActionEvent", **more: Any) -> dict[str, Any]:
    e = ev(kind, n, **more)
    return {**e, "parent_id": parent} if parent is not None else e


def _branched(then: str) -> list[dict[str, Any]]:
    """A request, a failed `rm -rf /` on a branch the conversation left (navigate_to the request),
    and `then` on the branch it went on with."""
    bash = {"kind": "ExecuteBashAction", "command": "rm -rf /"}
    user = {"role": "user", "content": [{"type": "text", "text": "delete build"}]}
    return [
        _tree(0, None, "MessageEvent", source="user", llm_message=user),
        _tree(1, "e0", tool_name="terminal", tool_call_id="c1", action=bash),
        _tree(2, "e1", "ObservationEvent", tool_call_id="c1", observation={"content": [], "is_error": True}),
        _tree(3, "e0", tool_name="terminal", tool_call_id="c3", action={**bash, "command": then}),
        _tree(4, "e3", "ObservationEvent", tool_call_id="c3", observation={"content": [OK]}),
    ]


def test_events_on_a_branch_the_conversation_left_are_kept_and_marked_abandoned(tmp_path: Path) -> None:
    """conversation/event_store.py: each event names its parent (`parent_id`; none before the tree:
    the event before it); the active branch runs from the last event that is a tree node (no
    ConversationStateUpdateEvent) to the root. navigate_to leaves the rest on disk."""
    s = read(tmp_path, [*_branched("rm -rf build"),
                        _tree(5, "e4", "ConversationStateUpdateEvent", key="execution_status", value="finished")])
    assert [(index(s)[e.refs[0].ev], e.abandoned) for e in s.events] == [
        (0, False), (1, True), (2, True), (3, False), (4, False)]
    assert s.quality.abandoned_events == 2
    assert [w.code for w in s.warnings if w.code == "abandoned-branch"] == ["abandoned-branch"]


@pytest.mark.parametrize("parents", [
    [None, None, None],  # written before the tree: one line, nothing left
    [None, "e0", "gone"],  # a parent not in the log: the branch cannot be told, nothing guessed
])
def test_no_branch_is_guessed(tmp_path: Path, parents: list[str | None]) -> None:
    s = read(tmp_path, [_tree(i, p, "MessageEvent", source="agent",
                              llm_message={"role": "assistant", "content": [{"type": "text", "text": f"t{i}"}]})
                        for i, p in enumerate(parents)])
    assert [e.abandoned for e in s.events] == [False, False, False] and s.quality.abandoned_events == 0


def test_the_step_after_an_abandoned_run_follows_the_request_not_the_abandoned_result(tmp_path: Path) -> None:
    from forsy.rules.segment import Segmenter

    s = read(tmp_path, _branched("rm -rf /x"))
    drafts = Segmenter(s).run()
    third = drafts[2].values
    assert (third["caused_by"], third["causal_type"], third.get("retry_of")) == ([1], "user_request", None)
    assert third["causal_note"] == "The conversation went back before step 2: step 2 is on an abandoned branch."
    assert drafts[1].abandoned and not drafts[2].abandoned


def test_the_sdk_tools_grep_and_task_have_their_operation(tmp_path: Path) -> None:
    """sdk/tool/tool.py names a tool after its class (GrepTool: `grep`, TaskTool: `task`, which
    runs a subagent); before, both were `other` tools of no kind."""
    from forsy.rules.segment import Segmenter
    from forsy.tools import ToolKind, kind_of

    s = read(tmp_path, [
        ev("ActionEvent", 0, tool_name="grep", tool_call_id="g", action={"kind": "GrepAction", "pattern": "x"}),
        ev("ActionEvent", 1, tool_name="task", tool_call_id="t", action={"kind": "TaskAction", "prompt": "look"}),
    ])
    drafts = Segmenter(s).run()
    assert [d.values["operation"] for d in drafts] == ["search", "other"]
    assert (kind_of("grep"), kind_of("task")) == (ToolKind.SEARCH, ToolKind.DELEGATE)


def test_what_the_sdk_adds_for_the_model_is_its_note_and_a_parents_task_is_no_persons(tmp_path: Path) -> None:
    """system.py's `dynamic_context`, message.py's `extended_content` and `activated_skills`,
    observation.py's `extended_content`: the model got them; the person and the tool did not
    say them. A message with a `sender` (tools/task/manager.py: the parent agent's
    send_message) is the task a subagent was given (before: the person's prompt)."""
    text = {"type": "text", "text": ""}
    s = read(tmp_path, [
        ev("SystemPromptEvent", 0, system_prompt={**text, "text": "You are OpenHands."},
           dynamic_context={**text, "text": "<RUNTIME>host h</RUNTIME>"}, tools=[]),
        {**ev("MessageEvent", 1, llm_message={"role": "user", "content": [{**text, "text": "Find the flake"}]},
              extended_content=[{**text, "text": "<skill>pytest tips</skill>"}], activated_skills=["pytest"]),
         "source": "user", "sender": "main-agent"},
        ev("ActionEvent", 2, tool_name="terminal", tool_call_id="c",
           action={"kind": "TerminalAction", "command": "ls"}),
        ev("ObservationEvent", 3, tool_call_id="c", observation={"content": [{**text, "text": "a"}]},
           extended_content=[{**text, "text": "rules for src/"}]),
    ])
    got = [(e.kind, e.actor, e.text, e.info.subtype if e.kind == "note" else None) for e in s.events]
    assert got == [("note", "system", "<RUNTIME>host h</RUNTIME>", "dynamic_context"),
                   ("note", "agent", "Find the flake", "subagent_input"),
                   ("note", "system", "<skill>pytest tips</skill>", "extended_content"),
                   ("tool_call", "agent", None, None),
                   ("tool_result", "agent", "a", None),
                   ("note", "system", "rules for src/", "extended_content")]
    assert s.meta.skills == ["pytest"] and s.meta.system_prompt == "You are OpenHands."
