"""The person's answer to ask_followup_question and to plan_mode_respond (cline/cline
src/core/task/tools/handlers/AskFollowupQuestionToolHandler.ts and PlanModeRespondHandler.ts, at
42b211ee3e~1): Cline says it in the UI (`say: "user_feedback"`, with its time) and returns it to
the model as the call's result, `<answer>\\n{text}\\n</answer>` / `<user_message>\\n{text}\\n
</user_message>`. The answer is the person's step right after the call's result, copied from the
UI record; with no UI record, the words inside the result (their span). Before, the UI record
was kept at the end of the trace ("feedback-unplaced")."""

from __future__ import annotations

from pathlib import Path

from forsy.payloads import MessageInfo
from test_sources_cline_xml import ENV, UI, T, _t, head, read, said, task, user


def _api() -> list[object]:
    return [
        user(_t("<task>\nWrite the notes\n</task>"), ENV),
        said("<ask_followup_question>\n<question>Which folder?</question>\n</ask_followup_question>"),
        user(head("[ask_followup_question for 'Which folder?']"), _t("<answer>\ndocs\n</answer>"), ENV),
        said("<plan_mode_respond>\n<response>\nI will keep them in docs/.\n</response>\n</plan_mode_respond>"),
        user(head("[plan_mode_respond]"), _t("<user_message>\nok, go\n</user_message>"), ENV),
        said("<attempt_completion>\n<result>\nDone.\n</result>\n</attempt_completion>"),
    ]


def _order(tmp_path: Path, ui: list[object]) -> tuple[list[tuple[str, str | None, str | None]], list[str]]:
    s = read(task(tmp_path / "tasks" / str(T), _api(), ui))
    got = [(e.kind, e.tool, e.text) for e in s.events if e.kind in ("user", "tool_call", "tool_result")]
    return got, [w.code for w in s.warnings]


EXPECTED = [
    ("user", None, "Write the notes"), ("tool_call", "ask_followup_question", None),
    ("tool_result", "ask_followup_question", "[ask_followup_question for 'Which folder?'] Result:\n<answer>\ndocs\n"
                                             "</answer>"),
    ("user", None, "docs"), ("tool_call", "plan_mode_respond", None),
    ("tool_result", "plan_mode_respond", "[plan_mode_respond] Result:\n<user_message>\nok, go\n</user_message>"),
    ("user", None, "ok, go"), ("tool_call", "attempt_completion", None)]


def test_an_answer_is_the_persons_step_right_after_its_question(tmp_path: Path) -> None:
    ui = [{"ts": T, "type": "say", "say": "text", "text": "Write the notes"},
          {"ts": T + 1000, "type": "ask", "ask": "followup", "text": '{"question":"Which folder?","options":[]}'},
          {"ts": T + 5000, "type": "say", "say": "user_feedback", "text": "docs"},
          {"ts": T + 9000, "type": "say", "say": "user_feedback", "text": "ok, go"}]
    got, warnings = _order(tmp_path, ui)
    assert got == EXPECTED
    assert "feedback-unplaced" not in warnings
    s = read(tmp_path / "tasks" / str(T) / "api_conversation_history.json")
    answer = next(e for e in s.events if e.kind == "user" and e.text == "docs")
    assert answer.ts is not None
    assert s.evidence[answer.refs[0].ev].source.endswith(UI)  # copied from the UI record, with its time


def test_without_the_ui_the_answer_is_cut_out_of_the_result(tmp_path: Path) -> None:
    got, _ = _order(tmp_path, [{"ts": T, "type": "say", "say": "text", "text": "Write the notes"}])
    assert got == EXPECTED
    s = read(tmp_path / "tasks" / str(T) / "api_conversation_history.json")
    answer = next(e for e in s.events if e.kind == "user" and e.text == "docs")
    assert isinstance(answer.info, MessageInfo) and answer.info.span is not None
