"""A denied tool call as Claude Code 2.1.2xx records it: the user record of its one `tool_result`
carries `toolDenialKind`, which names who denied it.

Only `user-rejected` with the words of a person's rejection is the user's rejection; a deny rule
or a hook (`permission-rule`), the auto-mode classifier (`automode-blocked`,
`automode-unavailable`), an interrupt or a cancel (`interrupted`, `cancelled`), a kind forsy does
not know, and `user-rejected` without those words (print mode, no one to ask) are a denied call
that failed (R-call/claude-denied, citing the kind), whatever the result's words say. No kind:
the words decide, as before. The records are the writer's shape (texts as public readers of its
files quote them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _claude_events_view import at, read, session_of, warnings
from _oracle import retrace
from _small_logs import _rec, answer, call, user, write
from forsy.evidence import Event, Session
from forsy.payloads import ResultInfo
from forsy.sources.claude_code._denials import DENIED_RULE

REJECT = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
          "edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to "
          "tell you how to proceed.")
RULE = "Permission to use Bash with command git push origin main has been denied."
HOOK = "PreToolUse:Bash hook error: [guard] blocked"
CLASSIFIER = "Permission for this action was denied by the Claude Code auto mode classifier. Reason: pushes to main."
NO_VERDICT = "The server-side auto mode classifier gave no verdict."
INTERRUPTED = "[Request interrupted by user for tool use]"
CANCELLED = ("The user doesn't want to take this action right now. STOP what you are doing and wait for the user "
             "to tell you how to proceed.")
NOT_ASKED = "Claude requested permissions to use Bash, but you haven't granted it yet."


def _denied(content: Any, kind: Any = None, rich: Any = None, results: int = 1,
            flag: bool | None = True) -> list[dict[str, Any]]:
    """A Bash call (and `results` - 1 more) and the record of their results, the first as given."""
    block: dict[str, Any] = {"type": "tool_result", "content": content, "tool_use_id": "t1"}
    if flag is not None:
        block["is_error"] = flag
    blocks = [block] + [{"type": "tool_result", "content": "ok", "is_error": False, "tool_use_id": f"t{i}"}
                        for i in range(2, results + 1)]
    uses = [{"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": "git push origin main"}}
            for i in range(1, results + 1)]
    r = _rec(2, "user", blocks, "r1", "a1")
    if rich is not None:
        r["toolUseResult"] = rich
    if kind is not None:
        r["toolDenialKind"] = kind
    return [user(0, "u1", None, "Push it."), _rec(1, "assistant", uses, "a1", "u1"), r,
            answer(3, "a2", "r1", "I could not push.")]


def _result(tmp_path: Path, records: list[dict[str, Any]]) -> tuple[Session, Event, ResultInfo]:
    s = session_of(tmp_path, records)
    e = next(e for e in s.events if e.kind == "tool_result" and e.call_id == "t1")
    assert isinstance(e.info, ResultInfo)
    return s, e, e.info


def _outcome(s: Session, e: Event, info: ResultInfo) -> tuple[Any, ...]:
    """(rejected, error, failure rule, where the outcome was read)."""
    return info.rejected, e.is_error, info.failure_rule, [at(s, r) for r in info.outcome_refs or []]


DENIED = (False, True, DENIED_RULE, [(3, "/toolDenialKind")])


@pytest.mark.parametrize("kind", ["permission-rule", "automode-blocked", "automode-unavailable", "interrupted",
                                  "cancelled"])
def test_a_rejections_words_under_another_kind_are_no_rejection_by_the_user(tmp_path: Path, kind: str) -> None:
    # a hook's failure reached the model in a rejection's words (Claude Code before 2.1.210 / 2.1.212)
    s, e, info = _result(tmp_path, _denied(REJECT, kind, "User rejected tool use"))
    assert _outcome(s, e, info) == DENIED
    assert warnings(s) == []


@pytest.mark.parametrize(("kind", "content", "rich"), [
    ("permission-rule", RULE, "Error: " + RULE),
    ("permission-rule", HOOK, "Error: " + HOOK),
    ("automode-blocked", CLASSIFIER, "Error: " + CLASSIFIER),
    ("automode-unavailable", NO_VERDICT, None),
    ("interrupted", INTERRUPTED, INTERRUPTED),
    ("cancelled", CANCELLED, None),
    ("user-rejected", NOT_ASKED, "Error: " + NOT_ASKED),  # print mode: no one could be asked
])
def test_each_kind_in_its_own_words_is_a_denied_call_citing_the_kind(tmp_path: Path, kind: str, content: str,
                                                                      rich: Any) -> None:
    s, e, info = _result(tmp_path, _denied(content, kind, rich))
    assert _outcome(s, e, info) == DENIED
    assert e.text == content


@pytest.mark.parametrize(("content", "rich"), [(REJECT, "User rejected tool use"), ("No.", "User rejected tool use"),
                                               (REJECT, None)])
def test_user_rejected_with_a_rejections_words_is_the_users_rejection_as_before(tmp_path: Path, content: str,
                                                                                rich: Any) -> None:
    s, e, info = _result(tmp_path, _denied(content, "user-rejected", rich))
    assert _outcome(s, e, info) == (True, True, None, [])


@pytest.mark.parametrize(("content", "rich", "rejected"), [
    (REJECT, "User rejected tool use", True), (RULE, None, False), (CLASSIFIER, "Error: " + CLASSIFIER, False)])
def test_no_kind_leaves_the_words_to_decide(tmp_path: Path, content: str, rich: Any, rejected: bool) -> None:
    s, e, info = _result(tmp_path, _denied(content, None, rich))
    assert _outcome(s, e, info) == (rejected, True, None, [])


def test_a_denial_with_no_error_flag_failed(tmp_path: Path) -> None:
    s, e, info = _result(tmp_path, _denied(RULE, "permission-rule", flag=None))
    assert _outcome(s, e, info) == DENIED


def test_a_kind_on_a_record_of_several_results_names_none_of_them(tmp_path: Path) -> None:
    s, e, info = _result(tmp_path, _denied(REJECT, "permission-rule", "User rejected tool use", results=2))
    assert _outcome(s, e, info) == (True, True, None, [])
    assert warnings(s) == [("denial-kind", "toolDenialKind 'permission-rule' on a record of 2 tool results names "
                            "none of them; read as absent", "s.jsonl", 3)]


def test_an_unknown_kind_is_a_denial_not_the_users_warned_once(tmp_path: Path) -> None:
    records = _denied(REJECT, "sandbox-blocked", "User rejected tool use")
    again = [call(4, "a3", "a2", "t9", "Bash", {"command": "ls"}),
             {**_rec(5, "user", [{"type": "tool_result", "content": "x", "is_error": True, "tool_use_id": "t9"}],
                     "r2", "a3"), "toolDenialKind": "sandbox-blocked"}]
    s, e, info = _result(tmp_path, records + again)
    assert _outcome(s, e, info) == DENIED
    assert warnings(s) == [("denial-kind", "toolDenialKind 'sandbox-blocked' is not one forsy knows; read as a "
                            "denial, not the user's rejection", "s.jsonl", 3)]


@pytest.mark.parametrize(("kind", "what"), [(["permission-rule"], "a list"), (3, "a number")])
def test_a_kind_that_is_no_text_is_said_and_read_as_absent(tmp_path: Path, kind: Any, what: str) -> None:
    s, e, info = _result(tmp_path, _denied(REJECT, kind, "User rejected tool use"))
    assert _outcome(s, e, info) == (True, True, None, [])
    assert warnings(s) == [("field-type", f"toolDenialKind is {what}, not a string; read as absent", "s.jsonl", 3)]


def test_in_the_trace_a_rule_denial_is_no_rejection_by_the_user(tmp_path: Path) -> None:
    [trace] = retrace(write(tmp_path / "s.jsonl", _denied(REJECT, "permission-rule", "User rejected tool use")),
                      tmp_path / "out")
    [step] = [st for st in trace["steps"] if st["tool"]]
    assert (step["success"], step["eval"], step["eval_reason"], step["state_change"]) == \
           (False, -1, "The tool returned an error.", None)
    [prov] = [json.loads(p.read_text("utf-8")) for p in (tmp_path / "out").rglob("provenance.json")]
    [fields] = [st["fields"] for st in prov["steps"] if st["step"] == step["step"]]
    assert (fields["success"]["rule"], [ev["pointer"] for ev in fields["success"]["evidence"]]) == \
           (DENIED_RULE, ["/toolDenialKind"])


def _stream_denial(tmp_path: Path, meta: Any) -> Path:
    """A print-mode run: two Bash calls in one message, their results in one user message whose
    `tool_result_meta` names the kinds (the SDKs' shape: one entry per denied result's id)."""
    from test_claude_stream import assistant, init, result, tool_use, user

    blocks = [{"tool_use_id": "toolu_1", "type": "tool_result", "content": RULE, "is_error": True},
              {"tool_use_id": "toolu_2", "type": "tool_result", "content": REJECT, "is_error": True}]
    msgs = [init(), assistant(3, "msg_A", tool_use("toolu_1", "Bash", {"command": "git push origin main"})),
            assistant(4, "msg_A", tool_use("toolu_2", "Bash", {"command": "rm -rf build"})),
            user(5, blocks, tool_result_meta=meta),
            assistant(6, "msg_B", {"type": "text", "text": "Both were denied."}), result(7)]
    return write(tmp_path / "run.jsonl", msgs)


def test_the_streams_kinds_decide_each_result_of_a_message(tmp_path: Path) -> None:
    meta = [{"id": "toolu_1", "non_execution_kind": "permission-rule"},
            {"id": "toolu_2", "non_execution_kind": "automode-blocked", "user_feedback": "no"}, "malformed",
            {"id": "toolu_9"}]
    s = read(_stream_denial(tmp_path, meta))
    first, second = (next(e for e in s.events if e.kind == "tool_result" and e.call_id == c) for c in ("toolu_1",
                                                                                                       "toolu_2"))
    assert isinstance(first.info, ResultInfo) and isinstance(second.info, ResultInfo)
    assert _outcome(s, first, first.info) == (False, True, DENIED_RULE, [(4, "/tool_result_meta/0/non_execution_kind")])
    # the rejection's words under the classifier's kind: not the person's
    assert _outcome(s, second, second.info) == (False, True, DENIED_RULE,
                                                [(4, "/tool_result_meta/1/non_execution_kind")])


def test_a_streams_rejection_by_the_person_stays_one(tmp_path: Path) -> None:
    meta = [{"id": "toolu_2", "non_execution_kind": "user-rejected", "user_feedback": "not now"}]
    s = read(_stream_denial(tmp_path, meta))
    e = next(e for e in s.events if e.kind == "tool_result" and e.call_id == "toolu_2")
    assert isinstance(e.info, ResultInfo) and _outcome(s, e, e.info) == (True, True, None, [])
