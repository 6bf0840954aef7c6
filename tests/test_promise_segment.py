"""The segmentation rules' promises on hand-built event streams (rules/segment.py): a tool
result lands on the call with its id (never on the latest call), an unknown id is a warning,
retries and causes are the steps computed by hand here, parallel siblings are one group.
Each expectation is written out; the events are built directly, so no reader is involved."""

from __future__ import annotations

from typing import Any

import pytest

from forsy.evidence import Event, Quality, Ref, Session, SessionMeta
from forsy.payloads import CallInfo, Link, MessageInfo, ResultInfo, ShellInfo
from forsy.rules.segment import RETRY_WINDOW, Draft, Segmenter, copied, derived, json_text

TS = "2026-01-01T10:00:00Z"


def _ev(kind: str, actor: str = "agent", n: int = 0, **kw: Any) -> Event:
    return Event(kind, actor, kw.pop("ts", f"2026-01-01T10:00:{n:02d}Z"), [Ref(f"e{n}", "")], **kw)  # type: ignore[arg-type]


def user(text: str, n: int = 0) -> Event:
    return _ev("user", "user", n, text=text)


def call(cid: str, tool: str, args: Any, n: int = 0, actor: str = "agent", **kw: Any) -> Event:
    return _ev("tool_call", actor, n, call_id=cid, tool=tool, args=args, **kw)


def result(cid: str, text: str, n: int = 0, actor: str = "agent", **kw: Any) -> Event:
    return _ev("tool_result", actor, n, call_id=cid, text=text, **kw)


def text(t: str, n: int = 0, actor: str = "agent", **kw: Any) -> Event:
    return _ev("agent_text", actor, n, text=t, **kw)


def _run(*events: Event) -> tuple[list[Draft], Session]:
    s = Session("claude-code", "s", [], {}, list(events), SessionMeta(), Quality())
    return Segmenter(s).run(), s


def _v(d: Draft, *names: str) -> tuple[Any, ...]:
    return tuple(d.values.get(n) for n in names)


# ------------------------------------------------------------------ linking by id
def test_results_link_to_their_call_by_id_not_to_the_latest_call() -> None:
    drafts, s = _run(user("go"), call("c1", "Bash", {"command": "ls"}, 1), call("c2", "Read", {"path": "a"}, 2),
                     result("c1", "a.py", 3), result("c2", "print(1)", 4))
    assert [_v(d, "tool", "output") for d in drafts[1:]] == [("Bash", "a.py"), ("Read", "print(1)")]
    assert [d.prov["output"].evidence[0].id for d in drafts[1:]] == ["e3", "e4"]
    assert [d.values["ended_at"] for d in drafts[1:]] == ["2026-01-01T10:00:03Z", "2026-01-01T10:00:04Z"]
    assert s.warnings == []


def test_a_result_for_an_unknown_call_is_a_warning_and_not_a_step() -> None:
    drafts, s = _run(user("go"), call("c1", "Bash", "ls", 1), result("zz", "lost", 2))
    assert len(drafts) == 2 and "output" not in drafts[1].values
    assert [(w.code, w.message) for w in s.warnings] == [("orphan-result", "result for unknown call 'zz' kept out "
                                                                           "of the trace")]


def test_a_result_without_an_id_is_an_orphan_too() -> None:
    drafts, s = _run(user("go"), call("c1", "Bash", "ls", 1), result(None, "?", 2))  # type: ignore[arg-type]
    assert "output" not in drafts[1].values
    assert [w.code for w in s.warnings] == ["orphan-result"]


def test_a_result_without_an_id_never_links_whatever_the_calls_ids() -> None:
    drafts, s = _run(user("go"), call("XXXX", "Bash", "ls", 1), result(None, "?", 2))  # type: ignore[arg-type]
    assert "output" not in drafts[1].values
    assert [w.code for w in s.warnings] == ["orphan-result"]


def test_a_subagent_that_only_thought_is_flushed_when_its_call_returns() -> None:
    link = Link(subagent="a1", parent_call_id="c1", link_rule="R-link/agent-id")
    drafts, _ = _run(user("go"), call("c1", "Task", {"prompt": "look"}, 1),
                     _ev("reasoning", "subagent:a1", 2, text="pondering", link=link),
                     result("c1", "nothing", 3), text("Nothing found.", 4))
    assert [_v(d, "actor", "action", "operation") for d in drafts] == [
        ("user", "user_message", None), ("agent", "agent_step", "other"), ("subagent:a1", "agent_step", "analyze"),
        ("agent", "output", "answer")]


def test_a_call_without_an_id_gets_no_result() -> None:
    drafts, s = _run(user("go"), call(None, "Bash", "ls", 1), result("", "x", 2))  # type: ignore[arg-type]
    assert "output" not in drafts[1].values
    assert [w.code for w in s.warnings] == ["orphan-result"]


def test_a_failed_result_is_eval_minus_one_with_its_reason() -> None:
    drafts, _ = _run(user("go"), call("c1", "Bash", "false", 1), result("c1", "exit 1", 2, is_error=True))
    d = drafts[1]
    assert _v(d, "success", "eval", "eval_reason") == (False, -1, "The tool returned an error.")
    assert d.prov["success"].rule == "R-call/error-flag"
    assert d.prov["eval_reason"].rule == "R-error"


def test_a_good_result_is_success_with_eval_zero() -> None:
    drafts, _ = _run(user("go"), call("c1", "Bash", "true", 1), result("c1", "", 2, is_error=False))
    assert _v(drafts[1], "success", "eval", "eval_reason", "output") == (True, 0, None, "")


def test_a_rejected_call_says_so_and_changed_nothing() -> None:
    drafts, _ = _run(user("go"), call("c1", "Bash", "rm x", 1),
                     result("c1", "no", 2, info=ResultInfo(rejected=True)))
    d = drafts[1]
    assert _v(d, "success", "eval", "eval_reason", "state_change") == (
        False, -1, "The user rejected this tool call.", "No change: the tool call was rejected, so it did not run.")
    assert d.prov["eval_reason"].rule == "R-error/rejected"


def test_an_excerpt_result_is_counted_as_truncated() -> None:
    drafts, s = _run(user("go"), call("c1", "Read", "a", 1), result("c1", "[…]", 2, excerpt=True),
                     call("c2", "Read", "b", 3), result("c2", "full", 4))
    assert s.quality.truncated_outputs == 1
    assert (drafts[1].prov["output"].excerpt, drafts[2].prov["output"].excerpt) == (True, False)


# ------------------------------------------------------------------ retries
def _retry_case(first: str, second: str, *, err: bool = True, tool2: str = "Bash") -> list[Draft]:
    drafts, _ = _run(user("go"), call("c1", "Bash", {"command": first}, 1), result("c1", "x", 2, is_error=err),
                     call("c2", tool2, {"command": second}, 3), result("c2", "ok", 4))
    return drafts


def test_a_repeated_failed_call_is_a_retry_of_that_step() -> None:
    d = _retry_case("pytest -x tests", "pytest -x tests")[2]
    assert _v(d, "retry_of", "causal_type", "caused_by") == (2, "retry_after_failure", [2])
    assert d.prov["retry_of"].rule == "R-retry"
    assert d.prov["retry_of"].params == {"similarity": 100, "failed_step": 2}
    assert d.values["causal_note"] == "Repeats step 2, which failed (input similarity 100); also follows step(s) none."


def test_a_similar_failed_call_is_a_retry_with_its_similarity() -> None:
    d = _retry_case("pytest -x tests/test_a.py", "pytest -x tests/test_b.py")[2]
    assert d.values["retry_of"] == 2
    # inputs '{"command":"pytest -x tests/test_a.py"}' and ..._b.py: 39 chars each, one differs,
    # indel distance 2 of 78 → similarity 100 × 76/78 = 97.4
    assert d.prov["retry_of"].params == {"similarity": 97, "failed_step": 2}


def test_the_retry_threshold_is_90_inclusive() -> None:
    """Plain-string inputs of 10 chars: one char changed is 90 % similar (a retry), two is 80 %."""
    def second(args: str) -> Draft:
        drafts, _ = _run(user("go"), call("c1", "Bash", "abcdefghij", 1), result("c1", "x", 2, is_error=True),
                         call("c2", "Bash", args, 3))
        return drafts[2]
    assert second("abcdefghiX").prov["retry_of"].params == {"similarity": 90, "failed_step": 2}
    assert "retry_of" not in second("abcdefghXX").values


def test_a_dissimilar_call_after_a_failure_is_not_a_retry() -> None:
    d = _retry_case("pytest -x tests", "git status")[2]
    assert "retry_of" not in d.values
    assert _v(d, "caused_by", "causal_type") == ([2], "dependency_on_tool_result")


def test_no_retry_after_a_success() -> None:
    d = _retry_case("pytest -x tests", "pytest -x tests", err=False)[2]
    assert "retry_of" not in d.values


def test_no_retry_of_another_tool() -> None:
    d = _retry_case("pytest -x tests", "pytest -x tests", tool2="Shell")[2]
    assert "retry_of" not in d.values


def test_a_retry_also_keeps_what_it_followed() -> None:
    drafts, _ = _run(user("go"), call("c1", "Bash", "make", 1), result("c1", "fail", 2, is_error=True),
                     call("c2", "Read", "Makefile", 3), result("c2", "all:", 4),
                     call("c3", "Bash", "make", 5), result("c3", "ok", 6))
    d = drafts[3]
    assert _v(d, "retry_of", "caused_by") == (2, [2, 3])
    assert d.values["causal_note"] == "Repeats step 2, which failed (input similarity 100); also follows step(s) 3."


def test_the_latest_failure_is_the_one_retried() -> None:
    drafts, _ = _run(user("go"), call("c1", "Bash", "make", 1), result("c1", "fail", 2, is_error=True),
                     call("c2", "Bash", "make", 3), result("c2", "fail", 4, is_error=True),
                     call("c3", "Bash", "make", 5))
    assert [d.values.get("retry_of") for d in drafts] == [None, None, 2, 3]


def test_retries_look_back_at_most_the_window_of_the_same_actor() -> None:
    fillers = [e for i in range(RETRY_WINDOW - 1) for e in (call(f"f{i}", "Read", f"f{i}", 3), result(f"f{i}", "x", 3))]
    others = [call(f"s{i}", "Read", "y", 3, actor="subagent:a") for i in range(3)]
    drafts, _ = _run(user("go"), call("c1", "Bash", "make", 1), result("c1", "fail", 2, is_error=True),
                     *others, *fillers, call("c9", "Bash", "make", 4))
    assert drafts[-1].values.get("retry_of") == 2  # 8th step back of this actor: still in the window
    drafts, _ = _run(user("go"), call("c1", "Bash", "make", 1), result("c1", "fail", 2, is_error=True),
                     *fillers, call("fx", "Read", "z", 3), call("c9", "Bash", "make", 4))
    assert "retry_of" not in drafts[-1].values  # 9th step back: out of it


def test_a_parallel_sibling_is_not_a_retry_of_its_group() -> None:
    drafts, _ = _run(user("go"), call("c1", "Bash", "make", 1, group="m1"), result("c1", "fail", 2, is_error=True),
                     call("c2", "Bash", "make", 3, group="m1"))
    assert "retry_of" not in drafts[2].values
    drafts, _ = _run(user("go"), call("c1", "Bash", "make", 1, group="m1"), result("c1", "fail", 2, is_error=True),
                     call("c2", "Bash", "make", 3, group="m2"))
    assert drafts[2].values.get("retry_of") == 2


# ------------------------------------------------------------------ causes
def test_the_first_action_follows_the_request_then_results() -> None:
    drafts, _ = _run(user("go"), call("c1", "Bash", "ls", 1), result("c1", "a", 2), call("c2", "Read", "a", 3))
    assert _v(drafts[1], "caused_by", "causal_type") == ([1], "user_request")
    assert drafts[1].prov["caused_by"].rule == "R-cause/user"
    assert _v(drafts[2], "caused_by", "causal_type", "causal_note") == (
        [2], "dependency_on_tool_result", "Followed the result(s) of step(s) 2.")


def test_a_later_request_is_a_follow_up() -> None:
    drafts, _ = _run(user("go"), text("done", 1), user("more", 2), call("c1", "Bash", "ls", 3))
    assert [d.values["turn"] for d in drafts] == [1, 1, 2, 2]
    assert _v(drafts[3], "caused_by", "causal_type") == ([3], "follow_up_user_request")


def test_an_action_after_several_results_depends_on_all_of_them() -> None:
    drafts, _ = _run(user("go"), call("c1", "Read", "a", 1), call("c2", "Read", "b", 2), result("c2", "B", 3),
                     result("c1", "A", 4), text("both read", 5))
    assert _v(drafts[3], "action", "caused_by", "causal_type", "causal_note") == (
        "output", [2, 3], "dependency_on_multiple_prior_steps", "Followed the result(s) of step(s) 2, 3.")


def test_an_action_after_a_subagent_result_uses_it() -> None:
    drafts, _ = _run(user("go"), call("c1", "Task", {"prompt": "look"}, 1), result("c1", "found", 2),
                     text("it found it", 3))
    assert _v(drafts[2], "caused_by", "causal_type") == ([2], "used_subagent_result")


def test_a_new_request_drops_earlier_results() -> None:
    drafts, _ = _run(user("go"), call("c1", "Read", "a", 1), result("c1", "A", 2), user("now b", 3),
                     call("c2", "Read", "b", 4))
    assert _v(drafts[3], "caused_by", "causal_type") == ([3], "follow_up_user_request")


def test_parallel_siblings_share_the_first_calls_cause_and_a_group() -> None:
    drafts, _ = _run(user("go"), call("c1", "Read", "a", 1, group="m1"), call("c2", "Read", "b", 2, group="m1"),
                     call("c3", "Read", "c", 3), result("c1", "A", 4), result("c2", "B", 5), result("c3", "C", 6))
    assert [_v(d, "caused_by", "causal_type", "execution_mode", "parallel_group") for d in drafts[1:]] == [
        ([1], "user_request", "parallel", "pg_001"),
        ([1], "user_request", "parallel", "pg_001"),
        (None, None, "serial", None),
    ]


def test_subagent_work_is_caused_by_its_spawning_call() -> None:
    link = Link(subagent="a1", parent_call_id="c1", link_rule="R-link/agent-id")
    drafts, s = _run(user("go"), call("c1", "Task", {"prompt": "look"}, 1),
                     call("s1", "Grep", "x", 2, actor="subagent:a1", link=link),
                     result("s1", "hit", 3, actor="subagent:a1", link=link),
                     text("found it", 4, actor="subagent:a1", link=link),
                     result("c1", "found it", 5))
    sub = drafts[2]
    assert _v(sub, "actor", "caused_by", "causal_type", "causal_note") == (
        "subagent:a1", [2], "delegation_to_subagent",
        "Work delegated by the Task call in step 2 (linked by R-link/agent-id).")
    answer = drafts[3]  # the subagent's answer is flushed when its spawning call returns
    assert _v(answer, "actor", "action", "output", "caused_by") == ("subagent:a1", "output", "found it", [3])
    assert drafts[1].values["output"] == "found it"
    assert s.warnings == []


def test_an_api_error_is_an_error_step() -> None:
    drafts, _ = _run(user("go"), text("overloaded", 1, info=MessageInfo(api_error=True)))
    assert _v(drafts[1], "action", "success", "eval", "eval_reason") == (
        "error", False, -1, "The model call failed with an API error.")


def test_a_call_without_a_result_in_the_log_expects_none() -> None:
    drafts, _ = _run(user("go"), call("w1", "web_search", {"q": "x"}, 1, info=CallInfo(result_in_log=False)),
                     call("c2", "Bash", "ls", 2))
    assert (drafts[1].no_result_expected, drafts[2].no_result_expected) == (True, False)


def test_parallel_groups_are_numbered_in_the_order_they_began_per_actor() -> None:
    sub = "subagent:s"
    drafts, _ = _run(user("go", 0), call("a1", "Read", "x", 1, actor=sub, group="m1", name_ref=Ref("e1", "/name")),
                     call("a2", "Read", "y", 2, actor=sub, group="m1"), call("b1", "Read", "p", 3, group="m0"),
                     call("b2", "Read", "q", 4, group="m0"), call("c1", "Read", "r", 5, group="m9"),
                     call("d1", "Read", "s", 6, group="m1"), call("d2", "Read", "t", 7, group="m1"))
    assert [_v(d, "execution_mode", "parallel_group") for d in drafts[1:]] == [
        ("parallel", "pg_001"), ("parallel", "pg_001"), ("parallel", "pg_002"), ("parallel", "pg_002"),
        ("serial", None), ("parallel", "pg_003"), ("parallel", "pg_003")]
    for name in ("execution_mode", "parallel_group"):  # the evidence of the tool's name
        p = drafts[1].prov[name]
        assert (p.origin, p.rule, [(r.id, r.pointer) for r in p.evidence]) == (
            "derived", "R-parallel", [("e1", "/name")])
    p = drafts[5].prov["execution_mode"]
    assert (p.rule, [r.id for r in p.evidence]) == ("R-parallel/serial", ["e5"])


# ------------------------------------------------------------------ a call's own fields
def test_a_call_copies_its_tool_name_and_arguments() -> None:
    name_ref = Ref("e1", "/message/content/0/name")
    drafts, _ = _run(user("go"), call("c1", "Bash", {"command": "ls -la", "n": 2}, 1, name_ref=name_ref))
    d = drafts[1]
    assert _v(d, "tool", "operation", "input", "started_at") == (
        "Bash", "execute", '{"command":"ls -la","n":2}', "2026-01-01T10:00:01Z")
    assert (d.prov["tool"].origin, d.prov["tool"].evidence[0].pointer) == ("copied", "/message/content/0/name")
    assert (d.prov["input"].origin, d.prov["input"].rule) == ("copied", "R-call/json")
    assert (d.prov["operation"].rule, d.prov["execution_mode"].rule) == ("R-operation", "R-parallel/serial")
    assert (d.call_id, d.tool_args) == ("c1", {"command": "ls -la", "n": 2})
    assert "ended_at" not in d.values


def test_a_call_without_a_name_reference_derives_its_tool() -> None:
    drafts, _ = _run(user("go"), call("c1", None, "raw args", 1))  # type: ignore[arg-type]
    d = drafts[1]
    assert _v(d, "tool", "operation", "input") == ("unknown", "other", "raw args")
    assert (d.prov["tool"].origin, d.prov["tool"].rule) == ("derived", "R-call/name")
    assert d.prov["input"].rule is None  # a string argument is copied as it is


def test_a_call_without_arguments_keeps_a_null_input() -> None:
    drafts, _ = _run(user("go"), call("c1", "Read", None, 1))
    assert "input" not in drafts[1].values


def test_text_before_a_call_is_its_reasoning_and_not_an_answer() -> None:
    drafts, _ = _run(user("go"), text("I will list the files", 1), _ev("reasoning", "agent", 2, text="think"),
                     call("c1", "Bash", "ls", 3), result("c1", "a", 4), text("Two files.", 5))
    assert [_v(d, "action", "reasoning") for d in drafts] == [
        ("user_message", None), ("agent_step", "I will list the files\n\nthink"), ("output", None)]
    assert drafts[2].values["output"] == "Two files."
    assert drafts[1].values["started_at"] == "2026-01-01T10:00:03Z"  # the call's own time, not its texts'


def test_a_thinking_only_turn_end_is_an_analyze_step() -> None:
    drafts, _ = _run(user("go"), _ev("reasoning", "agent", 1, text="hmm"))
    assert _v(drafts[1], "action", "operation", "reasoning", "caused_by") == ("agent_step", "analyze", "hmm", [1])


def test_an_orphan_result_warning_names_the_file_and_line_it_was_read_from() -> None:
    from forsy.evidence import Evidence

    s = Session("claude-code", "s", [], {}, [user("go"), call("c1", "Bash", "ls", 1), result("zz", "lost", 2)],
                SessionMeta(), Quality())
    s.add_evidence(Evidence("e2", "logs/s.jsonl", 7, 100, 20, "0" * 64))
    Segmenter(s).run()
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("orphan-result", "logs/s.jsonl", 7)]


def test_the_operation_is_the_one_the_tool_table_declares_for_every_source() -> None:
    """R-operation reads forsy.tools, the one table of tools: a Gemini or Cline read, an
    OpenHands run, an Aider edit get their declared operation, not "other"."""
    from forsy import tools

    names = ["read_file", "run", "search_replace", "Read", "mcp__x__y"]
    drafts, _ = _run(user("go"), *(call(f"c{i}", n, {}, i + 1) for i, n in enumerate(names)))
    assert [d.values["operation"] for d in drafts[1:]] == ["read", "execute", "edit", "read", "other"]
    assert [d.values["operation"] for d in drafts[1:]] == [tools.operation_for(n) for n in names]


# ------------------------------------------------------------------ survivors of the mutation run
def test_derived_tool_and_operation_cite_the_calls_first_record_only() -> None:
    e = Event("tool_call", "agent", TS, [Ref("e1", "/a"), Ref("e2", "/b")], call_id="c1", tool="Bash", args="ls")
    drafts, _ = _run(user("go"), e)
    assert [r.id for r in drafts[1].prov["tool"].evidence] == ["e1"]
    assert [r.id for r in drafts[1].prov["operation"].evidence] == ["e1"]
    assert [r.id for r in drafts[1].prov["input"].evidence] == ["e1", "e2"]


def test_a_call_matched_to_the_shell_history_keeps_the_match() -> None:
    from forsy.payloads import HistoryMatch, Match

    hist = HistoryMatch(exit_code=2, duration_s=1.5, record="h7", match=Match("R-history/exact", 1.0, dt_s=0.4))
    events = [user("go"), call("c1", "Bash", "make", 1, info=CallInfo(shell_history=hist))]
    s = Session("claude-code", "s", [], {}, events, SessionMeta(), Quality())
    seg = Segmenter(s)
    drafts = seg.run()
    assert drafts[1].shell_history is hist
    assert seg.matches == [{"kind": "shell_history", "step": 2, "rule": "R-history/exact", "score": 1.0, "dt_s": 0.4,
                            "evidence": ["h7"], "uncertain": False, "exit_code": 2, "duration_s": 1.5}]
    unrecorded = HistoryMatch(exit_code=None, duration_s=None, record=None, match=Match("R-history/exact", 1.0))
    seg = Segmenter(Session("claude-code", "s", [], {}, [call("c1", "Bash", "make", 1, info=CallInfo(
        shell_history=unrecorded))], SessionMeta(), Quality()))
    seg.run()
    assert seg.matches[0]["evidence"] == []  # no history record to cite: none invented


def test_every_truncated_output_and_rejected_call_is_counted() -> None:
    s = Session("claude-code", "s", [], {}, [
        user("go"), call("c1", "Read", "a", 1), result("c1", "[…]", 2, excerpt=True),
        call("c2", "Read", "b", 3), result("c2", "[…]", 4, excerpt=True),
        call("c3", "Bash", "rm a", 5), result("c3", "no", 6, info=ResultInfo(rejected=True)),
        call("c4", "Bash", "rm b", 7), result("c4", "no", 8, info=ResultInfo(rejected=True))], SessionMeta(), Quality())
    seg = Segmenter(s)
    drafts = seg.run()
    assert s.quality.truncated_outputs == 2
    assert seg.counts["rejected_calls"] == 2
    assert isinstance(drafts[4].result, ResultInfo) and drafts[4].result.rejected


def test_a_result_without_refs_or_with_a_foreign_payload_is_still_handled() -> None:
    bare = Event("tool_result", "agent", TS, [], call_id="zz", text="lost")
    drafts, s = _run(user("go"), call("c1", "Bash", "ls", 1), bare,
                     result("c1", "ok", 2, is_error=False, info=MessageInfo()))
    assert [w.code for w in s.warnings] == ["orphan-result"]
    assert _v(drafts[1], "output", "success") == ("ok", True) and drafts[1].result is None


def test_a_subagent_whose_spawning_call_is_unknown_is_not_delegated() -> None:
    link = Link(subagent="a9", parent_call_id="nope", link_rule="R-link/agent-id")
    drafts, _ = _run(user("go"), call("s1", "Grep", "x", 1, actor="subagent:a9", link=link))
    assert _v(drafts[1], "caused_by", "causal_type") == (None, None)


def test_two_argument_less_calls_of_one_tool_after_a_failure_are_a_retry() -> None:
    drafts, _ = _run(user("go"), call("c1", "Bash", None, 1), result("c1", "x", 2, is_error=True),
                     call("c2", "Bash", None, 3))
    assert drafts[2].prov["retry_of"].params == {"similarity": 100, "failed_step": 2}


def test_a_failed_sibling_is_skipped_and_the_earlier_failure_retried() -> None:
    drafts, _ = _run(user("go"), call("c1", "Bash", "make", 1), result("c1", "x", 2, is_error=True),
                     call("c2", "Bash", "make", 3, group="g2"), result("c2", "x", 4, is_error=True),
                     call("c3", "Bash", "make", 5, group="g2"))
    assert [d.values.get("retry_of") for d in drafts] == [None, None, 2, 2]


def test_a_retry_note_lists_every_other_step_it_follows() -> None:
    drafts, _ = _run(user("go"), call("c1", "Bash", "make", 1), result("c1", "fail", 2, is_error=True),
                     call("c2", "Read", "a", 3), call("c3", "Read", "b", 4), result("c2", "A", 5), result("c3", "B", 6),
                     call("c4", "Bash", "make", 7))
    assert _v(drafts[4], "retry_of", "caused_by", "causal_note") == (
        2, [2, 3, 4], "Repeats step 2, which failed (input similarity 100); also follows step(s) 3, 4.")


def test_an_action_after_a_hook_follows_the_hook_and_opens_the_turn_from_the_request() -> None:
    from forsy.payloads import NoteInfo

    hook = _ev("note", "system", 1, text="lint passed", info=NoteInfo(subtype="hook", hook="PostToolUse"))
    drafts, _ = _run(user("go"), hook, call("c1", "Bash", "ls", 2))
    assert _v(drafts[1], "actor", "caused_by") == ("system:hook", [1])
    assert _v(drafts[2], "caused_by", "causal_type", "causal_note") == (
        [1, 2], "dependency_on_multiple_prior_steps", "Followed the hook intervention(s) of step(s) 2.")


def test_events_of_a_kind_no_rule_reads_are_passed_over() -> None:
    odd = Event("telemetry", "system", TS, [Ref("e9", "")])  # type: ignore[arg-type]
    drafts, s = _run(user("go"), odd, text("done", 1))
    assert [d.values["action"] for d in drafts] == ["user_message", "output"]


def test_a_subagent_linked_only_from_its_second_event_still_answers_when_its_call_returns() -> None:
    link = Link(subagent="a1", parent_call_id="c1", link_rule="R-link/agent-id")
    drafts, _ = _run(user("go"), call("c1", "Task", {"prompt": "look"}, 1),
                     text("looking", 2, actor="subagent:a1"), text("found it", 3, actor="subagent:a1", link=link),
                     result("c1", "found it", 4), text("It found it.", 5))
    assert [_v(d, "actor", "action") for d in drafts] == [
        ("user", "user_message"), ("agent", "agent_step"), ("subagent:a1", "output"), ("agent", "output")]


# ------------------------------------------------------------------ the provenance helpers and drafts
def test_call_arguments_are_written_as_exact_json_whatever_their_keys_or_integers() -> None:
    assert json_text("raw text") == "raw text"
    assert json_text({"b": 1, "a": [0.5, None, True]}) == '{"b":1,"a":[0.5,null,true]}'  # the log's key order
    assert json_text({1: 1e-7}) == json_text({"1": 1e-7}) == '{"1":1e-7}'  # a non-string key: the same writer
    # beyond 64 bits orjson refuses: the standard library writes them exactly, text unescaped, no spaces
    assert json_text({"n": 2**70, "s": "é", "l": [1, 2]}) == '{"n":1180591620717411303424,"s":"é","l":[1,2]}'


def test_provenance_names_only_catalogued_rules_with_their_declared_parameters() -> None:
    with pytest.raises(KeyError):
        copied([], rule="R-no-such-rule")
    with pytest.raises(KeyError):
        copied([], rule="C-json-string")  # takes a pointer
    with pytest.raises(KeyError):
        derived("R-no-such-rule", [])
    with pytest.raises(KeyError):
        derived("R-retry", [], similarity=90)  # and the failed step
    p = copied([Ref("e1", "/a")], excerpt=True)
    assert (p.origin, p.rule, p.params, p.excerpt, p.redacted, p.model) == ("copied", None, None, True, False, None)
    assert [(r.id, r.pointer) for r in p.evidence] == [("e1", "/a")]
    q = derived("R-time", [Ref("e2", "")])
    assert (q.origin, q.rule, q.params, q.excerpt, q.redacted, q.model) == ("derived", "R-time", None, False, False,
                                                                            None)
    assert (copied([], rule="C-json-string", params={"pointer": "/x"}).params,
            derived("R-shell/decoded", [], decoding="utf-8").params) == ({"pointer": "/x"}, {"decoding": "utf-8"})


def test_a_draft_sets_a_value_with_its_origin_once_per_evidence_and_never_a_null() -> None:
    d = Draft({"actor": "agent"})
    d.set("output", None, copied([Ref("e1", "")]))
    assert "output" not in d.values and "output" not in d.prov and d.evidence == []
    d.set("output", "x", copied([Ref("e2", "/a"), Ref("e1", ""), Ref("e2", "/b")]))
    d.set("success", True, derived("R-time", [Ref("e1", ""), Ref("e3", "")]))
    assert d.values == {"actor": "agent", "output": "x", "success": True}
    assert d.evidence == ["e2", "e1", "e3"]


def test_a_copied_draft_changes_without_touching_the_original() -> None:
    d = Draft({"actor": "agent"}, call_id="c1")
    d.set("output", "x", copied([Ref("e1", "")]))
    d.commits.append(_ev("commit", "git", 1))
    c = d.copy()
    assert (c.values, c.prov, c.evidence, c.commits, c.call_id) == (d.values, d.prov, d.evidence, d.commits, "c1")
    c.set("input", "y", copied([Ref("e2", "")]))
    c.values["actor"] = "other"
    c.commits.append(_ev("commit", "git", 2))
    assert (d.values, list(d.prov), d.evidence, len(d.commits)) == ({"actor": "agent", "output": "x"}, ["output"],
                                                                    ["e1"], 1)


def test_a_fresh_segmenter_counts_nothing() -> None:
    seg = Segmenter(Session("claude-code", "s", [], {}, [user("go", 0), text("ok", 1)], SessionMeta(), Quality()))
    seg.run()
    assert seg.counts == {"interrupts": 0, "rejected_calls": 0, "api_errors": 0}
    assert (seg.matches, seg.turn, seg.last_user, seg.interrupts, seg.abandoned_run) == ([], 1, 0, [], [])


def test_a_recorded_commands_output_is_linked_to_it_by_id_like_a_calls() -> None:
    """A terminal recording's command (merged with --history) carries a call id; its output,
    even when it arrives after the next command's, is that command's (R-call/error-flag)."""
    ls = _ev("shell_command", "human:terminal", 1, text="ls", call_id="r1", info=ShellInfo())
    pwd = _ev("shell_command", "human:terminal", 2, text="pwd", call_id="r2", info=ShellInfo())
    plain = _ev("shell_command", "human:terminal", 3, text="history", info=ShellInfo())  # a shell history's: no id
    drafts, s = _run(user("go", 0), ls, pwd, result("r2", "/home", 4, actor="human:terminal", is_error=True),
                     result("r1", "a.py", 5, actor="human:terminal", is_error=False), plain)
    got = [(d.call_id, d.values.get("input"), d.values.get("output"), d.values.get("success")) for d in drafts[1:]]
    assert got == [("r1", "ls", "a.py", True), ("r2", "pwd", "/home", False), (None, "history", None, None)]
    assert drafts[2].values["eval"] == -1 and drafts[1].values["ended_at"] == "2026-01-01T10:00:05Z"
    assert s.warnings == []  # no result was an orphan


def test_a_derived_time_cites_the_record_it_was_read_from() -> None:
    """A time computed from another record than the event's (Cline: the UI record naming an API
    message) cites that record; one the event's own record holds cites the event (R-time)."""
    c = call("c1", "read_file", {"path": "a"}, 1, ts_from=Ref("ui7", "/ts"))
    drafts, _ = _run(user("go", 0), c, result("c1", "A", 2))
    f = drafts[1].prov["started_at"]
    assert (f.origin, f.rule, [(r.id, r.pointer) for r in f.evidence]) == ("derived", "R-time", [("ui7", "/ts")])
    f = drafts[1].prov["ended_at"]  # the result's own time
    assert (f.origin, f.rule, [(r.id, r.pointer) for r in f.evidence]) == ("derived", "R-time", [("e2", "")])
