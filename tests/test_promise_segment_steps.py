"""The segmentation rules' promises for the steps that are not tool calls (rules/segment.py): user
messages and what came with them (interrupts, rewinds, client context), answers and reasoning,
API errors, compactions, hooks, shell history commands, commits, times, parallel groups and the
amend link. Each step's values and the provenance of each value (origin, rule, parameters,
evidence) are written out by hand; the events are built directly, so no reader is involved."""

from __future__ import annotations

from typing import Any

import pytest

from forsy.evidence import Event, Quality, Ref, Session, SessionMeta
from forsy.payloads import CommitInfo, FileChange, Link, Match, MessageInfo, NoteInfo, ShellInfo
from forsy.rules.segment import Draft, Segmenter
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


def _v1(d: Draft, name: str) -> Any:
    return d.values.get(name)


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


def test_a_user_message_says_how_often_the_agent_was_interrupted_before_it() -> None:
    drafts, seg = _seg(user("go", 0), call("c1", "Bash", "make", 1), _ev("interrupt", "user", 2),
                       _ev("interrupt", "user", 3), user("stop that", 4), user("thanks", 5))
    assert seg.counts == {"interrupts": 2, "rejected_calls": 0, "api_errors": 0}
    note = "The user interrupted the agent 2 time(s) before this message."
    assert _v1(drafts[2], "causal_note") == note
    assert _prov(drafts[2])["causal_note"] == "derived R-interrupt/R-rewind e2 e3"  # the interrupts, not the message
    assert "causal_note" not in drafts[3].values  # counted once: the next message starts afresh


def test_an_interrupt_before_any_message_and_without_evidence_cites_the_message_after_it() -> None:
    bare = Event("interrupt", "user", T(2), [])
    drafts = _drafts(bare, user("stop", 3))
    assert _v1(drafts[0], "causal_note") == "The user interrupted the agent 1 time(s) before this message."
    assert _prov(drafts[0])["causal_note"] == "derived R-interrupt/R-rewind e3"


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
    rm = Event("tool_call", "agent", T(1), [Ref("e1", ""), Ref("e1b", "/x")], call_id="c1", tool="Bash",
               args="rm -rf x", abandoned=True)
    drafts = _drafts(user("go", 0), rm, result("c1", "gone", 2, abandoned=True), text("Removed.", 3, abandoned=True),
                     user("no, keep x", 4), user("thanks", 5))
    reason = ("On a branch the user rewound away from: kept because it happened, but not part of the final "
              "conversation path.")
    assert [(d.abandoned, _v1(d, "eval_reason")) for d in drafts] == [
        (False, None), (True, reason), (True, reason), (False, None), (False, None)]
    assert _prov(drafts[1])["eval_reason"] == "derived R-abandoned e1"  # the record's first reference only
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


def test_a_message_after_an_interrupt_and_a_rewind_says_both() -> None:
    drafts = _drafts(user("go", 0), call("c1", "Bash", "a", 1, abandoned=True), _ev("interrupt", "user", 2),
                     user("no", 3))
    assert _v1(drafts[2], "causal_note") == ("The user interrupted the agent 1 time(s) before this message. The "
                                             "conversation was rewound before this message: steps 2-2 are on an "
                                             "abandoned branch.")


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
    assert [(d.values["action"], d.abandoned) for d in drafts] == [
        ("user_message", False), ("output", True), ("user_message", False), ("agent_step", True),
        ("user_message", False)]
    assert [_v1(d, "causal_note") for d in drafts[2::2]] == [
        f"The conversation was rewound before this message: steps {n}-{n} are on an abandoned branch." for n in (2, 4)]


def test_a_rewound_analysis_is_named_by_the_next_message() -> None:
    link = Link(subagent="a1", parent_call_id="c1", link_rule="R-link/agent-id")
    drafts = _drafts(user("go", 0), call("c1", "Task", "look", 1),
                     _ev("reasoning", "subagent:a1", 2, text="hm", abandoned=True, link=link),
                     result("c1", "x", 3), user("next", 4))
    assert [(d.values["actor"], d.abandoned) for d in drafts] == [
        ("user", False), ("agent", False), ("subagent:a1", True), ("user", False)]
    assert _v1(drafts[3], "causal_note") == ("The conversation was rewound before this message: steps 3-3 are on an "
                                             "abandoned branch.")


def test_a_harness_filler_is_not_work_and_a_text_with_a_foreign_payload_still_is() -> None:
    drafts = _drafts(user("go", 0), text("No response requested.", 1, info=MessageInfo(synthetic=True)))
    assert len(drafts) == 1
    drafts = _drafts(user("go", 0), text("Done.", 1, info=NoteInfo()))
    assert _v1(drafts[1], "output") == "Done."


# ------------------------------------------------------------------ API errors (R-error)
def test_an_api_error_ends_the_pending_answer_and_is_an_error_step() -> None:
    drafts, seg = _seg(user("go", 0), text("working", 1), text("mine", 2, actor="subagent:a"),
                       text("overloaded", 3, info=MessageInfo(api_error=True)),
                       text("overloaded", 4, info=MessageInfo(api_error=True)))
    assert [(d.values["actor"], d.values["action"], _v1(d, "output")) for d in drafts] == [
        ("user", "user_message", None), ("agent", "output", "working"), ("agent", "error", "overloaded"),
        ("agent", "error", "overloaded"), ("subagent:a", "output", "mine")]  # not the subagent's error: it waits
    err = drafts[2]
    assert err.values == _step("agent", "error", eval=-1, output="overloaded", success=False,
                               eval_reason="The model call failed with an API error.", started_at=T(3), ended_at=T(3))
    assert _prov(err) == {"execution_mode": f"{SERIAL} e3", "output": "copied R-error e3",
                          "success": "derived R-error e3", "eval_reason": "derived R-error e3",
                          "started_at": "derived R-time e3", "ended_at": "derived R-time e3"}
    assert seg.counts == {"interrupts": 0, "rejected_calls": 0, "api_errors": 2}


def test_a_rewound_api_error_is_named_by_the_next_message() -> None:
    drafts = _drafts(user("go", 0), text("overloaded", 1, info=MessageInfo(api_error=True), abandoned=True),
                     user("again", 2))
    assert drafts[1].abandoned
    assert _v1(drafts[2], "causal_note") == ("The conversation was rewound before this message: steps 2-2 are on an "
                                             "abandoned branch.")


# ------------------------------------------------------------------ compactions (R-compaction)
def _boundary(n: int, compact: Any) -> Event:
    return _ev("note", "system", n, info=NoteInfo(subtype="compact_boundary", compact=compact))


def test_a_compaction_is_a_system_step_with_the_summary_and_what_triggered_it() -> None:
    drafts = _drafts(user("go", 0), text("partial", 1), _boundary(2, {"trigger": "auto", "preTokens": 12345}),
                     _ev("compaction", "system", 3, text="Summary"), call("c1", "Bash", "ls", 4),
                     _ev("compaction", "system", 5, text="Summary 2"))
    assert [(d.values["actor"], d.values["action"]) for d in drafts] == [
        ("user", "user_message"), ("agent", "output"), ("system", "agent_step"), ("agent", "agent_step"),
        ("system", "agent_step")]  # the pending answer ends before the compaction; the note is no step
    assert drafts[2].values == _step(
        "system", "agent_step", operation="other", output="Summary", success=True, started_at=T(3), ended_at=T(3),
        state_change="Context compacted (trigger: auto, 12345 tokens before): the model continued from this summary "
                     "instead of the earlier conversation.")
    assert _prov(drafts[2]) == {"execution_mode": f"{SERIAL} e3", "operation": "derived R-compaction e3",
                                "output": "copied - e3", "state_change": "derived R-compaction e3",
                                "success": "derived R-compaction e3", "started_at": "derived R-time e3",
                                "ended_at": "derived R-time e3"}
    # the boundary's facts belong to the compaction after it, not to the next one
    assert drafts[4].values["state_change"] == ("Context compacted: the model continued from this summary instead of "
                                                "the earlier conversation.")


@pytest.mark.parametrize(("compact", "said"), [
    ({"trigger": "manual"}, " (trigger: manual, None tokens before)"),
    ({"preTokens": 500}, " (trigger: None, 500 tokens before)"),
    ({"other": 1}, ""),
    (None, ""),
    ("auto", ""),
])
def test_a_compaction_says_what_its_boundary_recorded(compact: Any, said: str) -> None:
    drafts = _drafts(_boundary(0, compact), _ev("compaction", "system", 1, text="S"))
    assert drafts[0].values["state_change"] == (f"Context compacted{said}: the model continued from this summary "
                                                "instead of the earlier conversation.")


def test_notes_other_than_hooks_and_boundaries_make_no_step() -> None:
    drafts = _drafts(user("go", 0), _ev("note", "system", 1, text="x", info=NoteInfo(subtype="away_summary")),
                     _ev("note", "system", 2, text="y"), _ev("compaction", "system", 3, text="S"))
    assert len(drafts) == 2
    assert drafts[1].values["state_change"].startswith("Context compacted: ")


# ------------------------------------------------------------------ hooks (R-hook)
def _hook(n: int, out: str, hook: str | None = None, target: str | None = None, **kw: Any) -> Event:
    return _ev("note", "system", n, text=out, info=NoteInfo(subtype="hook", hook=hook, hook_target=target), **kw)


def test_a_hook_ends_the_pending_answer_and_causes_the_next_action() -> None:
    drafts = _drafts(user("go", 0), text("Done.", 1), _hook(2, "Tests fail: fix them", "Stop"),
                     call("c1", "Bash", "pytest", 3))
    answer, hook, act = drafts[1:]
    assert _v1(answer, "output") == "Done."
    assert hook.values == _step("system:hook", "agent_step", operation="other", output="Tests fail: fix them",
                                success=True, caused_by=[2], causal_type="other",
                                causal_note="A Stop hook ran after step 2; its output was given to the agent.",
                                started_at=T(2), ended_at=T(2))
    assert _prov(hook) == {"execution_mode": f"{SERIAL} e2", "operation": "derived R-hook e2", "output": "copied - e2",
                           "success": "derived R-hook e2", "caused_by": "derived R-hook e2",
                           "causal_type": "derived R-hook e2", "causal_note": "derived R-hook e2",
                           "started_at": "derived R-time e2", "ended_at": "derived R-time e2"}
    assert hook.actor_key == "system:hook"
    assert _v1(act, "caused_by") == [3] and _v1(act, "causal_type") == "other"
    assert _v1(act, "causal_note") == "Followed the hook intervention(s) of step(s) 3."
    assert _prov(act)["caused_by"] == "derived R-cause/hook e3"


def test_an_action_after_two_hooks_follows_both() -> None:
    drafts = _drafts(user("go", 0), text("Done.", 1), _hook(2, "a", "Stop"), _hook(3, "b", "Stop"),
                     call("c1", "Bash", "ls", 4))
    assert _v1(drafts[3], "caused_by") == [3]  # the second hook ran after the first
    assert (_v1(drafts[4], "caused_by"), _v1(drafts[4], "causal_type"), _v1(drafts[4], "causal_note")) == (
        [3, 4], "dependency_on_multiple_prior_steps", "Followed the hook intervention(s) of step(s) 3, 4.")


def test_a_hook_before_any_step_follows_nothing() -> None:
    drafts = _drafts(_hook(0, "context"), call("c1", "Bash", "ls", 1))
    hook = drafts[0]
    assert (hook.values["turn"], _v1(hook, "caused_by"), _v1(hook, "causal_type")) == (1, None, None)
    assert _v1(hook, "causal_note") == "A hook hook ran; its output was given to the agent."
    assert _v1(drafts[1], "caused_by") == [1]


def test_a_hook_on_a_subagent_ends_that_subagents_answer_only() -> None:
    drafts = _drafts(user("go", 0), text("agent says", 1), text("sub says", 2, actor="subagent:a1"),
                     _hook(3, "keep going", "SubagentStop", "subagent:a1"),
                     call("s1", "Grep", "x", 4, actor="subagent:a1"), text("more", 5))
    assert [(d.values["actor"], _v1(d, "output")) for d in drafts] == [
        ("user", None), ("subagent:a1", "sub says"), ("system:hook", "keep going"), ("subagent:a1", None),
        ("agent", "agent says\n\nmore")]
    assert _v1(drafts[2], "causal_note") == "A SubagentStop hook ran after step 2; its output was given to the agent."
    assert _v1(drafts[3], "caused_by") == [3]  # the subagent's next action follows the hook
    assert _v1(drafts[4], "caused_by") == [1]  # the agent's answer does not


def test_a_rewound_hook_is_named_by_the_next_message() -> None:
    drafts = _drafts(user("go", 0), _hook(1, "x", "Stop", abandoned=True), user("again", 2))
    assert drafts[1].abandoned
    assert _v1(drafts[2], "causal_note") == ("The conversation was rewound before this message: steps 2-2 are on an "
                                             "abandoned branch.")


# ------------------------------------------------------------------ shell history (R-shell)
def test_a_shell_command_is_an_execute_step_failed_by_its_exit_status() -> None:
    info = ShellInfo(exit_code=2, possible_match=Match("G-history/near", 0.8, call_id="c9"))
    e = Event("shell_command", "human:shell", T(1), [Ref("h1", "/cmd"), Ref("h1r", "")], text="make test", info=info)
    drafts, seg = _seg(user("go", 0), e)
    d = drafts[1]
    assert d.values == _step("human:shell", "agent_step", eval=-1, tool="shell", operation="execute",
                             input="make test", success=False, eval_reason="The command exited with status 2.",
                             started_at=T(1), ended_at=T(1))
    assert _prov(d) == {"execution_mode": f"{SERIAL} h1/cmd", "tool": "derived R-shell h1/cmd h1r",
                        "operation": "derived R-shell h1/cmd h1r", "input": "copied - h1/cmd h1r",
                        "success": "derived R-shell/exit-code h1/cmd h1r",
                        "eval_reason": "derived R-shell/exit-code h1/cmd h1r",
                        "started_at": "derived R-time h1/cmd", "ended_at": "derived R-time h1/cmd"}
    assert d.shell is info
    assert seg.matches == [{"kind": "shell_history", "step": 2, "uncertain": True, "rule": "G-history/near",
                            "score": 0.8, "evidence": ["h1"], "possible_call_id": "c9"}]


def test_a_shell_command_that_exited_0_worked_and_a_decoded_one_says_how() -> None:
    e = _ev("shell_command", "human:shell", 1, text="ls é", info=ShellInfo(exit_code=0, decoded="latin-1"))
    drafts, seg = _seg(e)
    d = drafts[0]
    assert _v1(d, "success") is True and d.values["eval"] == 0 and "eval_reason" not in d.values
    assert _prov(d)["input"] == "derived R-shell/decoded {decoding=latin-1} e1"
    assert seg.matches == []


def test_a_shell_command_without_an_exit_status_has_no_success() -> None:
    drafts = _drafts(_ev("shell_command", "human:shell", 1, text="ls"))
    d = drafts[0]
    assert "success" not in d.values and d.values["eval"] == 0
    assert d.shell == ShellInfo()


# ------------------------------------------------------------------ commits (R-commit)
def test_a_commit_no_call_made_is_a_write_step_of_git() -> None:
    info = CommitInfo(sha="abcdef1234567890", branches=["main"])
    e = Event("commit", "git", T(1), [Ref("g1", ""), Ref("g1b", "/x")], text="fix: x\n\nbody\n", info=info)
    drafts, seg = _seg(e)
    d = drafts[0]
    assert d.values == _step("git", "agent_step", tool="git", operation="write",
                             output="commit abcdef1234567890\n\nfix: x\n\nbody",
                             state_change="Commit abcdef123456 was recorded in the repository, on branch main.",
                             success=True, started_at=T(1), ended_at=T(1))
    assert _prov(d) == {"execution_mode": f"{SERIAL} g1", "tool": "derived R-commit g1 g1b/x",
                        "operation": "derived R-commit g1 g1b/x", "output": "derived R-commit/show g1 g1b/x",
                        "state_change": "derived R-commit+R-commit/branches g1 g1b/x",
                        "success": "derived R-commit g1 g1b/x", "started_at": "derived R-time g1",
                        "ended_at": "derived R-time g1"}
    assert d.commits == [e] and seg.matches == []


def test_a_commit_without_a_message_or_branches_says_only_its_sha() -> None:
    d = _drafts(_ev("commit", "git", 1, text=None, info=CommitInfo(sha="abc")))[0]
    assert _v1(d, "output") == "commit abc"
    assert _v1(d, "state_change") == "Commit abc was recorded in the repository."
    assert _prov(d)["state_change"] == "derived R-commit e1"


def test_a_patch_that_names_no_commit_gets_no_made_up_commit_header() -> None:
    """A plain unified diff is read as a commit event without a sha: its output was "commit None"."""
    drafts = _drafts(_ev("commit", "human:git", 1, info=CommitInfo(patch=True)),
                     _ev("commit", "human:git", 2, text="fix: x\n", info=CommitInfo(patch=True)))
    assert [_v1(d, "output") for d in drafts] == [None, "fix: x"]
    assert _prov(drafts[1])["output"] == "derived R-commit/show e2"


def test_a_commit_without_its_payload_is_still_a_step() -> None:
    e = _ev("commit", "git", 1, text="x")
    d = _drafts(e)[0]
    assert (_v1(d, "tool"), _v1(d, "operation"), _v1(d, "success"), d.commits) == ("git", "write", True, [e])


def test_a_commit_that_may_be_a_calls_is_its_own_step_and_an_uncertain_match() -> None:
    info = CommitInfo(sha="abc", branches=[], possible_match=Match("G-time", 0.5), matched_call_id="zz")
    e = Event("commit", "git", T(1), [Ref("e1", ""), Ref("e1b", "/x")], text="x", info=info)
    drafts, seg = _seg(user("go", 0), e)
    assert _v1(drafts[1], "state_change") == "Commit abc was recorded in the repository, on no branch (only a reflog " \
                                             "holds it)."
    assert seg.matches == [{"kind": "commit", "step": None, "sha": "abc", "uncertain": True, "rule": "G-time",
                            "score": 0.5, "evidence": ["e1"], "branches": []}]


def test_a_commit_matched_to_a_call_is_that_calls_change() -> None:
    info = CommitInfo(sha="abcdef1234567890", matched_call_id="c1", match=Match("G-files", 0.9),
                      files=[{"path": "a.py", "status": "M", "diff": "", "hunks": []}])
    e = _ev("commit", "git", 3, text="edit a", info=info)
    drafts, seg = _seg(user("go", 0), call("c1", "Edit", {"file_path": "a.py"}, 1), result("c1", "ok", 2), e)
    assert len(drafts) == 2
    d = drafts[1]
    assert _v1(d, "state_change") == "Commit abcdef123456 records this change (1 file(s): a.py)."
    assert _prov(d)["state_change"] == "derived R-commit/match {match=G-files,score=0.9} e3"
    assert d.commits == [e] and _v1(d, "ended_at") == T(2)  # the call's times stay its own
    assert seg.matches == [{"kind": "commit", "step": 2, "sha": "abcdef1234567890", "rule": "G-files", "score": 0.9,
                            "evidence": ["e3"], "uncertain": False, "files": ["a.py"], "branches": None}]


def test_a_commit_matched_to_a_call_keeps_the_change_the_call_already_states() -> None:
    from forsy.payloads import ResultInfo

    info = CommitInfo(sha="abc", matched_call_id="c1", match=Match("G-files", 0.9))
    e = _ev("commit", "git", 3, info=info)
    drafts, seg = _seg(user("go", 0), call("c1", "Bash", "git commit", 1),
                       result("c1", "no", 2, info=ResultInfo(rejected=True)), e)
    assert _v1(drafts[1], "state_change") == "No change: the tool call was rejected, so it did not run."
    assert drafts[1].commits == [e] and [m["step"] for m in seg.matches] == [2]


# ------------------------------------------------------------------ times (R-time)
def test_a_step_without_a_time_has_none_and_a_copied_time_cites_its_field() -> None:
    drafts = _drafts(_ev("user", "user", 0, text="go", ts=None), _ev("compaction", "system", 1, text="S", ts=""),
                     Event("agent_text", "agent", T(2), [Ref("e2", "/m"), Ref("e2b", "")], text="ok",
                           ts_ref=Ref("e2t", "/timestamp")))
    assert [(_v1(d, "started_at"), _v1(d, "ended_at")) for d in drafts] == [(None, None), (None, None), (T(2), T(2))]
    assert _prov(drafts[2])["started_at"] == "copied - e2t/timestamp"


# ------------------------------------------------------------------ amends (R-commit/amend)
def _amend_meta() -> SessionMeta:
    meta = SessionMeta()
    meta.extra["timeline"] = {"named_commits": [
        {"call_id": "k1", "named": "aaaaaaa", "evidence": "e2", "pointer": "/content", "amended_by": "k2",
         "amended_as": "bbbbbbb"},
        {"call_id": "k2", "named": "bbbbbbb", "evidence": "e6", "pointer": "/content"}]}
    return meta


def test_the_call_that_amended_a_commit_redoes_the_step_that_made_it() -> None:
    drafts, _ = _seg(user("go", 0), call("k1", "Bash", "git commit -m one", 1), result("k1", "[main aaaaaaa] one", 2),
                     call("r1", "Read", "a.py", 3), result("r1", "x", 4),
                     call("k2", "Bash", "git commit --amend -m one!", 5), result("k2", "[main bbbbbbb] one!", 6),
                     meta=_amend_meta())
    d = drafts[3]
    assert _v1(d, "retry_of") == 2 and "retry_of" not in drafts[1].values
    assert (_v1(d, "caused_by"), _v1(d, "causal_type")) == ([2, 3], "dependency_on_multiple_prior_steps")
    assert _v1(d, "causal_note") == ("Redoes step 2: amends the commit aaaaaaa it made (now bbbbbbb, git commit "
                                     "--amend); caused by step(s) 2, 3.")
    rule = "derived R-commit/amend {amended_step=2,amended=aaaaaaa,amended_as=bbbbbbb} e2/content e6/content"
    assert {k: _prov(d)[k] for k in ("retry_of", "caused_by", "causal_type", "causal_note")} == dict.fromkeys(
        ("retry_of", "caused_by", "causal_type", "causal_note"), rule)


# ------------------------------------------------------------------ bugs found by mutation testing
@pytest.mark.parametrize("boundary", [
    [user("next", 2)],
    [_ev("interrupt", "user", 2), user("next", 2)],
    [_ev("compaction", "system", 2, text="S")],
    [_hook(2, "go on", "Stop")],
    [text("overloaded", 2, info=MessageInfo(api_error=True))],
], ids=["user", "interrupt", "compaction", "hook", "api-error"])
def test_thinking_that_ends_a_response_is_its_analysis_not_the_next_actions_reasoning(boundary: list[Event]) -> None:
    """R-answer/thinking-only: a response that ended in thinking (the user wrote next, or an
    interrupt, compaction, hook or API error came) is an analyze step there, in its turn and
    caused by its request; it was carried over to become the reasoning of the next call, in the
    next turn, "caused by" a message written after it."""
    drafts = _drafts(user("go", 0), _ev("reasoning", "agent", 1, text="hm"), *boundary,
                     _ev("reasoning", "agent", 3, text="now"), call("c1", "Bash", "ls", 4))
    analysis = drafts[1]
    assert _v1(analysis, "reasoning") == "hm" and _v1(analysis, "operation") == "analyze"
    assert (analysis.values["turn"], _v1(analysis, "caused_by"), _v1(analysis, "ended_at")) == (1, [1], T(1))
    assert _v1(drafts[-1], "reasoning") == "now"


def test_a_patch_that_names_no_commit_says_so_in_its_state_change() -> None:
    """A plain diff's state change said "Commit None was recorded in the repository."."""
    files: list[FileChange] = [{"path": "a.py", "status": "M", "diff": "", "hunks": []},
                               {"path": "b.py", "status": "A", "diff": "", "hunks": []}]
    d = _drafts(_ev("commit", "human:git", 1, info=CommitInfo(patch=True, files=files)))[0]
    assert _v1(d, "state_change") == "A change to 2 file(s) (a.py, b.py) was read from a patch; it names no commit."
    assert "None" not in str(d.values)
    # matched to the call that made it: the call's change, and the match entry names no sha
    info = CommitInfo(patch=True, files=files[:1], matched_call_id="c1", match=Match("G-files", 0.9))
    e = _ev("commit", "human:git", 3, info=info)
    drafts, seg = _seg(user("go", 0), call("c1", "Edit", {"file_path": "a.py"}, 1), result("c1", "ok", 2), e)
    assert _v1(drafts[1], "state_change") == "A patch naming no commit records this change (1 file(s) (a.py))."
    assert [(m["sha"], m["step"]) for m in seg.matches] == [(None, 2)]
