"""`/run` and `/test` as aider 0.22-0.63 wrote them, before commit 28be59582 (0.64) rewrote
commands.py cmd_run. Each history is hand-made in the shape that version's writer gives
(aider/io.py: `#### ` inputs and `> ` messages ended by two spaces; a message of several lines
has `> ` on its first line only and the two spaces on its last), read in process, then one
retraced whole. Expectations worked out by hand from the writer's code named at each test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _aider_logs import CHAT, B, retraced_checked
from forsy.evidence import Mark
from forsy.payloads import MessageInfo, NoteInfo, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.aider import AiderSource

AGAIN = Mark("duplicate", "the command's output written again, as added to the chat")
RULE = "R-call/aider-test-output"


def _head(version: str) -> str:
    # main.py writes the version with tool_output at start-up, after the header (io.py __init__)
    return f"\n# aider chat started at 2024-08-10 09:00:00\n\n> Aider v{version}{B}\n\n"  # lines 1-5


def _read(tmp_path: Path, chat: str) -> Any:
    (tmp_path / CHAT).write_text(chat)
    [s] = AiderSource().read(tmp_path / CHAT, ReadContext(root=tmp_path))
    return s


def _events(s: Any) -> list[tuple[Any, ...]]:
    """(kind, tool, text or args, is_error, note subtype, lines cited)."""
    return [(e.kind, e.tool, e.args if e.kind == "tool_call" else e.text, e.is_error,
             e.info.subtype if isinstance(e.info, NoteInfo) else None, [s.evidence[r.ev].line for r in e.refs])
            for e in s.events]


def _marks(s: Any) -> dict[int, Mark]:
    return {s.evidence[k].line: v for k, v in s.ledger.items() if s.evidence[k].line > 4}


def test_run_to_0_53_answers_with_the_output_written_before_the_question(tmp_path: Path) -> None:
    # aider v0.50.0 commands.py cmd_run: io.tool_output(combined_output) (one message), then
    # io.prompt_ask("Add the output to the chat?\n(y/n/instructions)") written `<question> <answer>`,
    # then, when added (y, or instructions), each output line again with tool_output(log_only=True).
    # The instructions are sent to the model with the output (`instructions + "\n\n" + msg`)
    chat = (_head("0.50.0")
            + f"#### /run ls{B}\n> a.txt\nb.txt{B}\n> Add the output to the chat?\n(y/n/instructions) y{B}\n"  # 6-10
            f"> a.txt{B}\n> b.txt{B}\n\nSeen.\n\n"                                                           # 11-15
            f"#### /run pytest{B}\n> 1 failed{B}\n"                                                       # 16-17
            f"> Add the output to the chat?\n(y/n/instructions) fix it{B}\n"                              # 18-19
            f"> 1 failed{B}\n\nFixed.\n\n"                                                                   # 20-23
            f"#### /run pwd{B}\n> /tmp{B}\n> Add the output to the chat?\n(y/n/instructions) n{B}\n")         # 24-27
    s = _read(tmp_path, chat)
    assert _events(s) == [
        ("user", None, "/run ls", None, None, [6]),
        ("tool_call", "/run", "ls", None, None, [6]),
        ("tool_result", "/run", "a.txt\nb.txt", None, None, [7]),  # not the question, not the lines again
        ("note", None, "Add the output to the chat?\n(y/n/instructions) y", None, "confirmation", [9]),
        ("note", None, "a.txt", None, "output_added", [11]),
        ("note", None, "b.txt", None, "output_added", [12]),
        ("agent_text", None, "Seen.", None, None, [14]),
        ("user", None, "/run pytest", None, None, [16]),
        ("tool_call", "/run", "pytest", None, None, [16]),
        ("tool_result", "/run", "1 failed", None, None, [17]),
        ("user", None, "fix it", None, None, [18]),  # the person's words, cut from the question
        ("note", None, "1 failed", None, "output_added", [20]),
        ("agent_text", None, "Fixed.", None, None, [22]),
        ("user", None, "/run pwd", None, None, [24]),
        ("tool_call", "/run", "pwd", None, None, [24]),
        ("tool_result", "/run", "/tmp", None, None, [25]),
        ("note", None, "Add the output to the chat?\n(y/n/instructions) n", None, "confirmation", [26])]
    words = s.events[10]
    assert isinstance(words.info, MessageInfo) and words.info.span == (47, 53)
    assert "Add the output to the chat?\n(y/n/instructions) fix it"[47:53] == "fix it"
    assert {n: m for n, m in _marks(s).items() if m.heading == "duplicate"} == {11: AGAIN, 12: AGAIN, 20: AGAIN}
    assert 18 not in _marks(s)  # cited by the prompt
    assert s.quality.missing_results == 0 and not s.warnings


def test_run_to_0_45_asked_with_confirm_ask(tmp_path: Path) -> None:
    # aider v0.40.0 commands.py cmd_run: the same, but io.confirm_ask("Add the output to the chat?")
    # written `Add the output to the chat? y` (no instructions taken)
    chat = _head("0.40.0") + f"#### !ls{B}\n> a.txt{B}\n> Add the output to the chat? y{B}\n> a.txt{B}\n"  # 6-9
    s = _read(tmp_path, chat)
    assert _events(s) == [
        ("user", None, "!ls", None, None, [6]),
        ("tool_call", "/run", "ls", None, None, [6]),
        ("tool_result", "/run", "a.txt", None, None, [7]),
        ("note", None, "Add the output to the chat? y", None, "confirmation", [8]),
        ("note", None, "a.txt", None, "output_added", [9])]


def test_run_0_54_to_0_63_answers_with_the_output_after_the_question(tmp_path: Path) -> None:
    # aider v0.60.0 commands.py cmd_run: run_cmd prints the output to the terminal only; then
    # io.prompt_ask("Add the output to the chat?\n(Y)es/(n)o/message with instructions:"); typed
    # instructions are written as an input (io.user_input(response, log_only=True)); then, when
    # added, each output line with tool_output(log_only=True). Declined: the output is not written
    q = "Add the output to the chat?\n(Y)es/(n)o/message with instructions:"
    chat = (_head("0.60.0")
            + f"#### /run ls{B}\n> {q} y{B}\n> a.txt{B}\n> b.txt{B}\n\nSeen.\n\n"                   # 6-13
            f"#### /run pytest{B}\n> {q} fix it{B}\n\n#### fix it{B}\n> 1 failed{B}\n\nFixed.\n\n"  # 14-22
            f"#### /run pwd{B}\n> {q} n{B}\n\n"                                                     # 23-26
            f"#### /run date{B}\n> {q} and then?{B}\n")                                             # 27-29
    # (the question is two lines: 7-8, 15-16, 24-25, 28-29)
    s = _read(tmp_path, chat)
    assert _events(s) == [
        ("user", None, "/run ls", None, None, [6]),
        ("tool_call", "/run", "ls", None, None, [6]),
        ("tool_result", "/run", "a.txt\nb.txt", None, None, [9, 10]),
        ("note", None, f"{q} y", None, "confirmation", [7]),
        ("agent_text", None, "Seen.", None, None, [12]),
        ("user", None, "/run pytest", None, None, [14]),
        ("tool_call", "/run", "pytest", None, None, [14]),
        ("note", None, f"{q} fix it", None, "confirmation", [15]),
        # the output came before the instructions were typed: the result, then the prompt
        ("tool_result", "/run", "1 failed", None, None, [19]),
        ("user", None, "fix it", None, None, [18]),
        ("agent_text", None, "Fixed.", None, None, [21]),
        ("user", None, "/run pwd", None, None, [23]),
        ("tool_call", "/run", "pwd", None, None, [23]),
        ("note", None, f"{q} n", None, "confirmation", [24]),
        ("user", None, "/run date", None, None, [27]),
        ("tool_call", "/run", "date", None, None, [27]),
        ("note", None, f"{q} and then?", None, "confirmation", [28])]
    # declined (its output never written), and instructions with no input after them (the file ends)
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("no-result", "/run: aider wrote no output (not added to the chat, or none)", 23),
        ("no-result", "/run: no input of its instructions, and no output, after its question", 27)]
    assert s.quality.missing_results == 2
    assert s.events[8].call_id == s.events[6].call_id


def test_test_0_22_to_0_53_outcome_from_the_output_written_again(tmp_path: Path) -> None:
    # aider v0.50.0 commands.py cmd_test → cmd_run(args, add_on_nonzero_exit=True): the output
    # is written whole (tool_output), then, only when the exit status is not 0, each line of it
    # again (tool_output(line, log_only=True)); no question is asked
    chat = (_head("0.50.0")
            + f"#### /test pytest{B}\n> F test_x\n\n1 failed{B}\n> F test_x{B}\n>{B}\n> 1 failed{B}\n\nOk.\n\n"  # 6-15
            f"#### /test pytest -k ok{B}\n> 3 passed  \n> in 0.1s{B}\n\n"                                     # 16-19
            f"#### /test pytest -k ok{B}\n> 3 passed{B}\n>{B}\n> ^C again to exit{B}\n")                     # 20-23
    s = _read(tmp_path, chat)
    assert _events(s) == [
        ("user", None, "/test pytest", None, None, [6]),
        ("tool_call", "/test", "pytest", None, None, [6]),
        ("tool_result", "/test", "F test_x\n\n1 failed", True, None, [7]),
        ("note", None, "F test_x", None, "output_added", [10]),
        ("note", None, "1 failed", None, "output_added", [12]),
        ("agent_text", None, "Ok.", None, None, [14]),
        ("user", None, "/test pytest -k ok", None, None, [16]),
        ("tool_call", "/test", "pytest -k ok", None, None, [16]),
        # two messages (a line ending with two spaces split the output), not the lines again:
        # not a shape cmd_run writes for either outcome, so it stays unknown
        ("tool_result", "/test", "3 passed\nin 0.1s", None, None, [17, 18]),
        ("user", None, "/test pytest -k ok", None, None, [20]),
        ("tool_call", "/test", "pytest -k ok", None, None, [20]),
        ("tool_result", "/test", "3 passed", False, None, [21]),  # written once: exit status 0
        ("interrupt", None, "^C again to exit", None, None, [23])]  # back at the prompt
    rules = [e.info.failure_rule if isinstance(e.info, ResultInfo) else None
             for e in s.events if e.kind == "tool_result"]
    assert rules == [RULE, None, RULE]
    assert {n: m for n, m in _marks(s).items() if m.heading == "duplicate"} == {10: AGAIN, 12: AGAIN}


def test_test_0_22_to_0_53_output_cut_short_by_its_own_line_break_stays_unknown(tmp_path: Path) -> None:
    # aider v0.48.0 (the shape of the real logs): a line of the output ending with two spaces (an
    # indented blank line of a traceback) ends aider's message there; the rest of the output, and
    # the lines written again, stand after it, not right after the input: the outcome is not read
    chat = (_head("0.48.0") + f"#### /test pytest{B}\n> FAILURES\n    def test_x():\n    \n        x = 1\n    \n"
            f"        assert 0\n1 failed{B}\n> FAILURES{B}\n> def test_x():{B}\n>{B}\n> x = 1{B}\n>{B}\n"    # 12-18
            f"> assert 0{B}\n> 1 failed{B}\n\n"                                                                 # 19-21
            f"#### /test pytest{B}\n> FAILURES\n    \n\n1 failed{B}\n\n#### bye{B}\n")                       # 22-28
    s = _read(tmp_path, chat)
    results = [(e.text, e.is_error) for e in s.events if e.kind == "tool_result"]
    assert results == [("FAILURES\n    def test_x():\n  ", None), ("FAILURES\n  ", None)]


def test_a_command_that_could_not_be_run_to_0_53_failed(tmp_path: Path) -> None:
    # aider v0.40.0 commands.py cmd_run: subprocess.run raised, io.tool_error(f"Error running
    # command: {e}"), and it returned with no output: not a /test written once (a pass)
    s = _read(tmp_path, _head("0.40.0") + f"#### /test nosuch{B}\n> Error running command: boom{B}\n\n#### bye{B}\n")
    [res] = [e for e in s.events if e.kind == "tool_result"]
    assert (res.text, res.is_error, res.info) == ("Error running command: boom", True, None)


def test_test_0_54_to_0_63_output_written_at_all_is_a_failure(tmp_path: Path) -> None:
    # aider v0.60.0 commands.py cmd_run(add_on_nonzero_exit=True): run_cmd prints the output to
    # the terminal only; each line is written (tool_output(line, log_only=True)) only when the exit
    # status is not 0. No output written: passed, or failed printing nothing (unknown)
    chat = _head("0.60.0") + f"#### /test pytest{B}\n> F test_x{B}\n> 1 failed{B}\n\nOk.\n\n"  # 6-11
    chat += f"#### /test pytest -k ok{B}\n"                                                      # 12
    s = _read(tmp_path, chat)
    assert _events(s) == [
        ("user", None, "/test pytest", None, None, [6]),
        ("tool_call", "/test", "pytest", None, None, [6]),
        ("tool_result", "/test", "F test_x\n1 failed", True, None, [7, 8]),
        ("agent_text", None, "Ok.", None, None, [10]),
        ("user", None, "/test pytest -k ok", None, None, [12]),
        ("tool_call", "/test", "pytest -k ok", None, None, [12])]
    assert [(w.code, w.line) for w in s.warnings] == [("no-result", 12)]


def test_test_outcome_needs_a_version_on_one_side_of_the_changes(tmp_path: Path) -> None:
    # 0.53.1-dev builds hold commit eed7e0b65 (the first write dropped) or not, 0.63.3.dev ones
    # commit 28be59582 (`Added N lines of output to the chat` after the lines), 0.64+ and
    # versions before /test (0.22) are read otherwise, and a session may lack the version line
    for head in (_head("0.53.1-dev"), _head("0.63.3.dev12+g28be595"), _head("0.21.1"),
                 "\n# aider chat started at 2024-08-10 09:00:00\n\n\n\n"):
        s = _read(tmp_path, head + f"#### /test pytest{B}\n> 1 failed{B}\n> 1 failed{B}\n")
        assert [(e.kind, e.is_error) for e in s.events][-1] == ("tool_result", None), head


def test_retraced_the_rule_and_the_prompt_are_cited(tmp_path: Path) -> None:
    (tmp_path / CHAT).write_text(
        _head("0.50.0") + f"#### /test pytest{B}\n> 1 failed{B}\n> 1 failed{B}\n\nOk.\n\n"
        f"#### /test pytest -k ok{B}\n> 3 passed{B}\n\n"
        f"#### /run ls{B}\n> a.txt{B}\n> Add the output to the chat?\n(y/n/instructions) why?{B}\n> a.txt{B}\n")
    d = retraced_checked(tmp_path)
    steps = json.loads((d / "trace.json").read_text("utf-8"))["steps"]
    prov = json.loads((d / "provenance.json").read_text("utf-8"))["steps"]
    tests = [i for i, st in enumerate(steps) if st.get("tool") == "/test"]
    assert [(steps[i]["output"], steps[i]["success"]) for i in tests] == [("1 failed", False), ("3 passed", True)]
    assert [prov[i]["fields"]["success"]["rule"] for i in tests] == [RULE, RULE]  # the success names it too
    words = next(i for i, st in enumerate(steps) if st.get("input") == "why?")
    assert steps[words]["action"] == "user_message" and prov[words]["fields"]["input"]["rule"] == "C-span"
    run_step = next(st for st in steps if st.get("tool") == "/run")
    assert run_step["output"] == "a.txt" and run_step["success"] is None
