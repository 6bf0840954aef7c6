"""The segmentation rules' promises for the steps that are not tool calls (rules/segment.py): user
messages and what came with them (interrupts, rewinds, client context), answers and reasoning,
API errors, compactions, hooks, shell history commands, commits, times, parallel groups and the
amend link. Each step's values and the provenance of each value (origin, rule, parameters,
evidence) are written out by hand; the events are built directly, so no reader is involved."""

from __future__ import annotations

from typing import Any

import pytest

from forsy.evidence import Event, Quality, Ref, Session, SessionMeta
from forsy.payloads import CommitInfo, Link, Match, MessageInfo, NoteInfo, ShellInfo
from forsy.rules.segment import Draft, Segmenter, copied, derived, json_text
from test_promise_segment import _ev, call, result, text, user


def T(n: int) -> str:
    return f"2026-01-01T10:00:{n:02d}Z"


def _seg(*events: Event, meta: SessionMeta | None = None) -> tuple[list[Draft], Segmenter]:
    s = Session("claude-code", "s", [], {}, list(events), meta or SessionMeta(), Quality())
    seg = Segmenter(s)
    return seg.run(), seg


def _drafts(*events: Event) -> list[Draft]:
    return _seg(*events)[0]


def _prov(d: Draft) -> dict[str, str]:
    """Each value's origin, rule, parameters and evidence ("id/pointer"), as one line; flags when
    set. Only values that are set (the assembler writes provenance for those alone)."""
    out = {}
    for name, p in d.prov.items():
        if d.values.get(name) is None:
            continue
        parts = [p.origin, p.rule or "-"]
        if p.params is not None:
            parts.append("{" + ",".join(f"{k}={v}" for k, v in p.params.items()) + "}")
        parts.append(" ".join(r.id + r.pointer for r in p.evidence))
        parts += [flag for flag, on in (("excerpt", p.excerpt), ("redacted", p.redacted), ("model", p.model)) if on]
        out[name] = " ".join(parts)
    return out


def _step(actor: str, action: str, turn: int = 1, **values: Any) -> dict[str, Any]:
    """A step's values: the ones every step has, then the rest."""
    base: dict[str, Any] = {"actor": actor, "action": action, "turn": turn, "eval": 0}
    if action != "user_message":
        base["execution_mode"] = "serial"
    return base | values


SERIAL = "derived R-parallel/serial"


# ------------------------------------------------------------------ user messages (R-user)
def test_the_first_user_message_is_the_direct_request_with_its_words_and_time() -> None:
    e = Event("user", "user", T(0), [Ref("e0", "/message/content"), Ref("e0b", "")], text="fix the bug",
              ts_ref=Ref("e0", "/timestamp"))
    (d,) = _drafts(e)
    assert d.values == _step("user", "user_message", input="fix the bug", message_role="direct_request",
                             started_at=T(0), ended_at=T(0))
    assert _prov(d) == {"input": "copied R-user e0/message/content e0b", "message_role":
                        "derived R-first-request e0/message/content e0b", "started_at": "copied - e0/timestamp",
                        "ended_at": "copied - e0/timestamp"}
    assert d.evidence == ["e0", "e0b"] and not d.abandoned


def test_a_later_user_message_opens_the_next_turn_and_is_no_direct_request() -> None:
    drafts = _drafts(user("go", 0), text("done", 1), user("more", 2), user("and more", 3))
    assert [d.values["turn"] for d in drafts] == [1, 1, 2, 3]
    assert [d.values.get("message_role") for d in drafts] == ["direct_request", None, None, None]
    assert drafts[2].values == _step("user", "user_message", 2, input="more", started_at=T(2), ended_at=T(2))
    assert _prov(drafts[2]) == {"input": "copied R-user e2", "started_at": "derived R-time e2",
                                "ended_at": "derived R-time e2"}


def test_work_before_any_user_message_is_turn_one_and_the_message_after_it_turn_two() -> None:
    drafts = _drafts(call("c1", "Bash", "ls", 0), user("now this", 1), call("c2", "Bash", "pwd", 2))
    assert [d.values["turn"] for d in drafts] == [1, 2, 2]
    assert drafts[1].values["message_role"] == "direct_request"  # the first user message, even if not the first step
    assert "caused_by" not in drafts[0].values  # no request to follow
    assert drafts[2].values["caused_by"] == [2] and drafts[2].values["causal_type"] == "follow_up_user_request"


@pytest.mark.parametrize(("info", "prov"), [
    (MessageInfo(rule="slash-command"), "derived R-user/slash-command e0"),
    (MessageInfo(rule="bash-input", span=(1, 3)), "derived R-user/bash-input e0"),  # a rule wins over the slice
    (MessageInfo(inner_pointer="/text"), "copied C-json-string {pointer=/text} e0"),
    (MessageInfo(inner_pointer="/text", span=(0, 2)), "copied C-json-string {pointer=/text} e0"),
    (MessageInfo(span=(0, 2)), "copied C-span e0"),
    (MessageInfo(), "copied R-user e0"),
    (MessageInfo(rule=""), "copied R-user e0"),
])
def test_the_words_of_a_user_message_cite_how_they_sit_in_the_record(info: MessageInfo, prov: str) -> None:
    (d,) = _drafts(_ev("user", "user", 0, text="/go", info=info))
    assert _v1(d, "input") == "/go"
    assert _prov(d)["input"] == prov


def _v1(d: Draft, name: str) -> Any:
    return d.values.get(name)


def test_a_user_message_says_how_often_the_agent_was_interrupted_before_it() -> None:
    drafts, seg = _seg(user("go", 0), call("c1", "Bash", "make", 1), _ev("interrupt", "user", 2),
                       _ev("interrupt", "user", 3), user("stop that", 4), user("thanks", 5))
    assert seg.counts == {"interrupts": 2, "rejected_calls": 0, "api_errors": 0}
    note = "The user interrupted the agent 2 time(s) before this message."
    assert _v1(drafts[2], "causal_note") == note
    assert _prov(drafts[2])["causal_note"] == "derived R-interrupt/R-rewind e2 e3"  # the interrupts, not the message
    assert "causal_note" not in drafts[3].values  # counted once: the next message starts afresh


def test_an_interrupt_without_evidence_cites_the_message_after_it() -> None:
    bare = Event("interrupt", "user", T(2), [])
    drafts = _drafts(user("go", 0), bare, user("stop", 3))
    assert _v1(drafts[1], "causal_note") == "The user interrupted the agent 1 time(s) before this message."
    assert _prov(drafts[1])["causal_note"] == "derived R-interrupt/R-rewind e3"


def test_an_interrupt_ends_the_pending_answer_so_text_after_it_is_another_answer() -> None:
    drafts = _drafts(user("go", 0), text("first", 1), _ev("interrupt", "user", 2), text("second", 3), user("ok", 4))
    assert [_v1(d, "output") for d in drafts] == [None, "first", "second", None]
    assert [d.values["action"] for d in drafts] == ["user_message", "output", "output", "user_message"]


def test_a_new_user_message_ends_every_pending_answer() -> None:
    drafts = _drafts(user("go", 0), text("mine", 1), text("theirs", 2, actor="subagent:a"), user("next", 3))
    assert [(d.values["actor"], _v1(d, "output")) for d in drafts] == [
        ("user", None), ("agent", "mine"), ("subagent:a", "theirs"), ("user", None)]


# ------------------------------------------------------------------ rewinds (R-abandoned)
def test_steps_on_a_rewound_branch_are_flagged_and_the_next_message_names_them() -> None:
    drafts = _drafts(user("go", 0), call("c1", "Bash", "rm -rf x", 1, abandoned=True),
                     result("c1", "gone", 2, abandoned=True), text("Removed.", 3, abandoned=True),
                     user("no, keep x", 4), user("thanks", 5))
    reason = ("On a branch the user rewound away from: kept because it happened, but not part of the final "
              "conversation path.")
    assert [(d.abandoned, _v1(d, "eval_reason")) for d in drafts] == [
        (False, None), (True, reason), (True, reason), (False, None), (False, None)]
    assert _prov(drafts[1])["eval_reason"] == "derived R-abandoned e1"
    assert _prov(drafts[2])["eval_reason"] == "derived R-abandoned e3"  # the answer's first text
    assert _v1(drafts[3], "causal_note") == ("The conversation was rewound before this message: steps 2-3 are on an "
                                             "abandoned branch.")
    assert _prov(drafts[3])["causal_note"] == "derived R-interrupt/R-rewind e4"
    assert "causal_note" not in drafts[4].values  # said once


def test_a_rewound_user_message_says_so_and_carries_no_eval_reason() -> None:
    drafts = _drafts(user("go", 0), _ev("interrupt", "user", 1), _ev("user", "user", 2, text="old", abandoned=True),
                     user("new", 3))
    old = drafts[1]
    assert old.abandoned and "eval_reason" not in old.values
    assert _v1(old, "causal_note") == ("The user interrupted the agent 1 time(s) before this message. This message "
                                       "is on a branch the user later rewound away from.")
    assert _prov(old)["causal_note"] == "derived R-abandoned e2"
    assert _v1(drafts[2], "causal_note") == ("The conversation was rewound before this message: steps 2-2 are on an "
                                             "abandoned branch.")


def test_a_rewound_first_message_says_only_that() -> None:
    drafts = _drafts(_ev("user", "user", 0, text="old", abandoned=True))
    assert _v1(drafts[0], "causal_note") == "This message is on a branch the user later rewound away from."


def test_a_rewound_message_after_a_rewound_branch_leaves_the_note_to_the_message_that_stays() -> None:
    drafts = _drafts(user("go", 0), call("c1", "Bash", "a", 1, abandoned=True),
                     _ev("user", "user", 2, text="old", abandoned=True), call("c2", "Bash", "b", 3, abandoned=True),
                     user("new", 4))
    assert _v1(drafts[2], "causal_note") == "This message is on a branch the user later rewound away from."
    assert _v1(drafts[4], "causal_note") == ("The conversation was rewound before this message: steps 2-4 are on an "
                                             "abandoned branch.")


# ------------------------------------------------------------------ client context (R-user/context)
def test_the_context_a_client_sent_is_a_step_after_the_user_message() -> None:
    ctx = "<ide_opened_file>a.py</ide_opened_file>"
    e = Event("user", "user", T(0), [Ref("e0", "/message/content/0/text"), Ref("e0b", "")], text="fix it",
              info=MessageInfo(span=(len(ctx), len(ctx) + 6), context=ctx, context_span=(0, len(ctx))))
    drafts = _drafts(e, call("c1", "Read", "a.py", 1))
    user_step, ide, act = drafts
    assert _prov(user_step)["input"] == "copied C-span e0/message/content/0/text e0b"
    assert ide.values == _step("system:ide", "agent_step", output=ctx, operation="other", success=True,
                               caused_by=[1], causal_type="user_request",
                               causal_note="The client sent this context with the user's message of step 1; the "
                                           "agent was shown both.", started_at=T(0), ended_at=T(0))
    ctx_rule = "derived R-user/context e0/message/content/0/text e0b"
    assert _prov(ide) == {"execution_mode": f"{SERIAL} e0/message/content/0/text",
                          "output": "copied C-span e0/message/content/0/text e0b",
                          "operation": ctx_rule, "success": ctx_rule, "caused_by": ctx_rule, "causal_type": ctx_rule,
                          "causal_note": ctx_rule, "started_at": "derived R-time e0/message/content/0/text",
                          "ended_at": "derived R-time e0/message/content/0/text"}
    assert ide.actor_key == "system:ide"
    # the agent's first action follows the user's message, not the context step
    assert (_v1(act, "caused_by"), _v1(act, "causal_type"), act.values["turn"]) == ([1], "user_request", 1)


def test_the_context_of_a_later_message_points_at_that_message() -> None:
    drafts = _drafts(user("go", 0), text("ok", 1), _ev("user", "user", 2, text="more", info=MessageInfo(context="x")))
    ide = drafts[3]
    assert (ide.values["turn"], _v1(ide, "caused_by"), _v1(ide, "causal_note")) == (
        2, [3], "The client sent this context with the user's message of step 3; the agent was shown both.")


def test_the_context_of_a_rewound_message_is_on_the_rewound_branch_too() -> None:
    drafts = _drafts(user("go", 0), _ev("user", "user", 1, text="old", abandoned=True, info=MessageInfo(context="x")),
                     user("new", 2))
    assert [d.abandoned for d in drafts] == [False, True, True, False]
    assert _v1(drafts[3], "causal_note") == ("The conversation was rewound before this message: steps 2-3 are on an "
                                             "abandoned branch.")


# ------------------------------------------------------------------ answers and reasoning (R-answer, R-reasoning)
def test_texts_that_end_a_turn_are_one_answer_with_the_reasoning_among_them() -> None:
    two = [Ref("e4", "/a"), Ref("e4b", "/b")]
    drafts = _drafts(user("go", 0), _ev("reasoning", "agent", 1, text="think"), text("Part one", 2), text("  ", 3),
                     Event("agent_text", "agent", T(4), two, text="Part two"), _ev("reasoning", "agent", 5, text=None))
    d = drafts[1]
    assert d.values == _step("agent", "output", operation="answer", output="Part one\n\nPart two", reasoning="think",
                             success=True, caused_by=[1], causal_type="user_request", started_at=T(1), ended_at=T(4))
    assert _prov(d) == {
        "execution_mode": f"{SERIAL} e1", "operation": "derived R-answer e2",
        "output": "copied R-answer/joined e2 e4/a e4b/b", "reasoning": "copied R-reasoning e1",
        "success": "derived R-answer e2 e4/a e4b/b", "caused_by": "derived R-cause/user e1",
        "causal_type": "derived R-cause/user e1", "started_at": "derived R-time e1", "ended_at": "derived R-time e4/a"}
    assert d.evidence == ["e2", "e4", "e4b", "e1"]  # in the order the values were set
    assert len(drafts) == 2


def test_one_answer_text_is_copied_by_r_answer() -> None:
    d = _drafts(user("go", 0), text("Done.", 1))[1]
    assert _prov(d)["output"] == "copied R-answer e1"
    assert "reasoning" not in d.values


def test_text_before_a_call_is_its_reasoning_blank_and_empty_texts_left_out() -> None:
    two = [Ref("e3", "/a"), Ref("e3b", "")]
    drafts = _drafts(user("go", 0), _ev("reasoning", "agent", 1, text=" \n"), text("plan", 2),
                     Event("reasoning", "agent", T(3), two, text="deep"), _ev("reasoning", "agent", 4, text=None),
                     call("c1", "Bash", "ls", 5), text("one", 6), call("c2", "Bash", "pwd", 7),
                     text("  ", 8), call("c3", "Bash", "id", 9))
    assert [_v1(d, "reasoning") for d in drafts] == [None, "plan\n\ndeep", "one", None]
    assert _prov(drafts[1])["reasoning"] == "copied R-reasoning/joined e2 e3/a e3b"
    assert _prov(drafts[2])["reasoning"] == "copied R-reasoning e6"
    assert drafts[1].evidence[:3] == ["e5", "e2", "e3"]  # the call's record first, then the texts'


def test_a_turn_that_ends_in_thinking_only_is_an_analyze_step_from_first_to_last_thought() -> None:
    two = [Ref("e2", "/a"), Ref("e2b", "")]
    drafts = _drafts(user("go", 0), _ev("reasoning", "agent", 1, text=None), _ev("reasoning", "agent", 2, text="hm"),
                     text("  ", 3), Event("reasoning", "agent", T(4), two, text="so"))
    d = drafts[1]
    assert d.values == _step("agent", "agent_step", operation="analyze", reasoning="hm\n\nso", caused_by=[1],
                             causal_type="user_request", started_at=T(2), ended_at=T(4))
    assert _prov(d) == {"execution_mode": f"{SERIAL} e2", "operation": "derived R-answer/thinking-only e2",
                        "reasoning": "copied R-reasoning/joined e2 e2/a e2b", "caused_by": "derived R-cause/user e2",
                        "causal_type": "derived R-cause/user e2", "started_at": "derived R-time e2",
                        "ended_at": "derived R-time e2/a"}
    assert len(drafts) == 2


def test_thinking_without_any_text_makes_no_step() -> None:
    drafts = _drafts(user("go", 0), _ev("reasoning", "agent", 1, text=None), _ev("reasoning", "agent", 2, text=""))
    assert len(drafts) == 1


def test_a_rewound_answer_and_analysis_are_on_the_rewound_branch() -> None:
    drafts = _drafts(user("go", 0), text("a", 1, abandoned=True), user("b", 2),
                     _ev("reasoning", "agent", 3, text="hm", abandoned=True), user("c", 4))
    # the analysis is made at the end: the message before it cannot name it
    assert [(d.values["action"], d.abandoned) for d in drafts] == [
        ("user_message", False), ("output", True), ("user_message", False), ("user_message", False),
        ("agent_step", True)]
    assert _v1(drafts[2], "causal_note") == ("The conversation was rewound before this message: steps 2-2 are on an "
                                             "abandoned branch.")


def test_a_rewound_analysis_is_named_by_the_next_message() -> None:
    link = Link(subagent="a1", parent_call_id="c1", link_rule="R-link/agent-id")
    drafts = _drafts(user("go", 0), call("c1", "Task", "look", 1),
                     _ev("reasoning", "subagent:a1", 2, text="hm", abandoned=True, link=link),
                     result("c1", "x", 3), user("next", 4))
    assert [(d.values["actor"], d.abandoned) for d in drafts] == [
        ("user", False), ("agent", False), ("subagent:a1", True), ("user", False)]
    assert _v1(drafts[3], "causal_note") == ("The conversation was rewound before this message: steps 3-3 are on an "
                                             "abandoned branch.")


def test_a_harness_filler_is_not_work() -> None:
    drafts = _drafts(user("go", 0), text("No response requested.", 1, info=MessageInfo(synthetic=True)))
    assert len(drafts) == 1


# ------------------------------------------------------------------ API errors (R-error)
def test_an_api_error_ends_the_pending_answer_and_is_an_error_step() -> None:
    drafts, seg = _seg(user("go", 0), text("working", 1), text("mine", 2, actor="subagent:a"),
                       text("overloaded", 3, info=MessageInfo(api_error=True)))
    assert [(d.values["actor"], d.values["action"], _v1(d, "output")) for d in drafts] == [
        ("user", "user_message", None), ("agent", "output", "working"), ("agent", "error", "overloaded"),
        ("subagent:a", "output", "mine")]  # the subagent's answer stays pending: the error was not its own
    err = drafts[2]
    assert err.values == _step("agent", "error", eval=-1, output="overloaded", success=False,
                               eval_reason="The model call failed with an API error.", started_at=T(3), ended_at=T(3))
    assert _prov(err) == {"execution_mode": f"{SERIAL} e3", "output": "copied R-error e3",
                          "success": "derived R-error e3", "eval_reason": "derived R-error e3",
                          "started_at": "derived R-time e3", "ended_at": "derived R-time e3"}
    assert seg.counts == {"interrupts": 0, "rejected_calls": 0, "api_errors": 1}


def test_a_rewound_api_error_is_named_by_the_next_message() -> None:
    drafts = _drafts(user("go", 0), text("overloaded", 1, info=MessageInfo(api_error=True), abandoned=True),
                     user("again", 2))
    assert drafts[1].abandoned
    assert _v1(drafts[2], "causal_note") == ("The conversation was rewound before this message: steps 2-2 are on an "
                                             "abandoned branch.")
