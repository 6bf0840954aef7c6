"""Cline task folders written by hand, read in process, every expectation worked out by hand
from what Cline's writer records: the failures it can write (a tool the user denied, an API
request that failed, a task cancelled before its last call was answered, a command whose
output never came), Cline's own words in user messages, native tool results, a task with
its UI messages alone, and the ledger that accounts for every UI record and metadata key.

Files are written one array element per line, so an element's evidence line is its index + 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Event, Mark, Ref, Session
from forsy.payloads import MessageInfo, NoteInfo, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.cline import ClineSource
from forsy.sources.cline._ledger import SAME_TEXT, TIME, TOKENS_SEEN, TOKENS_USED

API = "api_conversation_history.json"
UI = "ui_messages.json"
META = "task_metadata.json"
T = 1769053680000  # 2026-01-22T03:48:00.000Z
RULE = "R-call/cline-failure-text"
OK_OUTPUT = "Command executed successfully (exit code 0).\nOutput:\nx"


def _array(recs: list[Any]) -> str:
    return "[\n" + ",\n".join(json.dumps(r) for r in recs) + "\n]\n"


def task(folder: Path, api: list[Any] | None, ui: list[Any] | None, meta: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if api is not None:
        (folder / API).write_text(_array(api), "utf-8")
    if ui is not None:
        (folder / UI).write_text(_array(ui), "utf-8")
    if meta is not None:
        (folder / META).write_text(meta, "utf-8")
    return folder


def read(folder: Path, name: str = API) -> Session:
    [s] = ClineSource().read(folder / name, ReadContext(root=folder))
    return s


def at(s: Session, ref: Ref | None) -> tuple[str, int, str] | None:
    """(first letter of the file, the element's index, the pointer) a reference cites."""
    if ref is None:
        return None
    ev = s.evidence[ref.ev]
    assert ev.line is not None
    return ev.source[0], ev.line - 2, ref.pointer


def iso(ms: int) -> str:
    return f"2026-01-22T03:48:{(ms - T) // 1000:02d}.{(ms - T) % 1000:03d}Z"


def ui_id(s: Session, i: int) -> str:
    [ev_id] = [k for k, ev in s.evidence.items() if ev.source == UI and ev.line == i + 2]
    return ev_id


def shape(s: Session, e: Event) -> tuple[Any, ...]:
    return (e.kind, e.actor, e.ts, [at(s, r) for r in e.refs], e.text, e.tool, e.call_id, e.is_error, e.info)


# ---------------------------------------------------------------- the failures Cline records
def _failures(tmp: Path) -> Path:
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nlist the files\n</task>"},
                                     {"type": "text", "text": "<environment_details>\nx\n</environment_details>"}]},
        {"role": "assistant", "modelInfo": {"modelId": "m1"}, "metrics": {"tokens": {"prompt": 10, "completion": 2}},
         "content": [{"type": "text", "text": "I will run ls"},
                     {"type": "tool_use", "id": "t1", "name": "execute_command", "input": {"command": "ls"}}]},
        {"role": "user", "content": [
            {"type": "text", "text": "[execute_command for 'ls'] Result:\nThe user denied this operation."},
            {"type": "text", "text": "The user provided the following feedback:\n<feedback>\nuse dir\n</feedback>"}]},
        {"role": "assistant", "modelInfo": {"modelId": "m1"}, "metrics": {"tokens": {"prompt": 20, "completion": 3}},
         "content": [{"type": "tool_use", "id": "t2", "name": "execute_command", "input": {"command": "dir"}}]},
        {"role": "user", "content": [{"type": "text", "text": "[execute_command for 'dir'] Result:\nCommand is still "
                                      "running in the user's terminal.\nHere's the output so far:\n"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t3", "name": "read_file",
                                           "input": {"path": "a"}}]},
        {"role": "user", "content": [{"type": "text", "text": "[read_file for 'a'] Result:\nThe tool execution failed "
                                      "with the following error:\n<error>\nENOENT\n</error>"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t4", "name": "write_to_file",
                                           "input": {"path": "b", "content": "x"}}]},
    ]
    ui = [
        {"ts": T, "type": "say", "say": "text", "text": "list the files"},
        {"ts": T + 1, "type": "say", "say": "api_req_started", "conversationHistoryIndex": -1,
         "text": json.dumps({"request": "<task>", "tokensIn": 10, "tokensOut": 2})},
        {"ts": T + 2, "type": "ask", "ask": "api_req_failed", "text": "529 Overloaded", "conversationHistoryIndex": -1},
        {"ts": T + 3, "type": "say", "say": "api_req_retried", "conversationHistoryIndex": -1},
        {"ts": T + 4, "type": "say", "say": "text", "text": "I will run ls", "conversationHistoryIndex": 0},
        {"ts": T + 5, "type": "ask", "ask": "command", "text": "ls", "conversationHistoryIndex": 0},
        {"ts": T + 6, "type": "say", "say": "user_feedback", "text": "use dir", "conversationHistoryIndex": 1},
        {"ts": T + 7, "type": "ask", "ask": "command", "text": "dir", "conversationHistoryIndex": 2},
        {"ts": T + 8, "type": "say", "say": "tool", "text": '{"tool":"readFile","path":"a"}',
         "conversationHistoryIndex": 4},
        {"ts": T + 9, "type": "say", "say": "error", "text": "Cline could not read a", "conversationHistoryIndex": 4},
        {"ts": T + 10, "type": "say", "say": "api_req_started", "conversationHistoryIndex": 6,
         "text": json.dumps({"request": "[read_file]", "tokensIn": 30, "cancelReason": "user_cancelled"})},
        {"ts": T + 11, "type": "ask", "ask": "resume_task", "text": "", "conversationHistoryIndex": 6},
    ]
    meta = ('{"files_in_context": [],\n "model_usage": [{"model_id": "m1"}],\n "environment_history": '
            '[{"cline_version": "3.1.0"}, {"cline_version": "3.2.0"}],\n "other": 1}\n')
    return task(tmp, api, ui, meta)


def test_each_failure_cline_records_is_read_as_what_it_is(tmp_path: Path) -> None:
    s = read(_failures(tmp_path))
    ok = ResultInfo(failure_rule=RULE)
    assert [shape(s, e) for e in s.events] == [
        ("user", "user", iso(T), [("u", 0, "/text")], "list the files", None, None, None, None),
        ("agent_text", "agent", iso(T + 4), [("a", 1, "/content/0/text")], "I will run ls", None, None, None, None),
        ("tool_call", "agent", iso(T + 4), [("a", 1, "/content/1/input")], None, "execute_command", "t1", None, None),
        # denied: an error, the user's rejection
        ("tool_result", "agent", None, [("a", 2, "/content/0/text")],
         "[execute_command for 'ls'] Result:\nThe user denied this operation.", "execute_command", "t1", True,
         ResultInfo(rejected=True)),
        ("user", "user", iso(T + 6), [("u", 6, "/text")], "use dir", None, None, None, None),
        ("tool_call", "agent", iso(T + 7), [("a", 3, "/content/0/input")], None, "execute_command", "t2", None, None),
        # the command had not ended: its result says so, and nothing of whether it worked
        ("tool_result", "agent", None, [("a", 4, "/content/0/text")], api_text(tmp_path, 4), "execute_command", "t2",
         None, None),
        ("tool_call", "agent", iso(T + 8), [("a", 5, "/content/0/input")], None, "read_file", "t3", None, None),
        ("tool_result", "agent", None, [("a", 6, "/content/0/text")], api_text(tmp_path, 6), "read_file", "t3",
         True, ok),
        # cancelled before its result
        ("tool_call", "agent", iso(T + 10), [("a", 7, "/content/0/input")], None, "write_to_file", "t4", None, None),
    ]
    calls = [e for e in s.events if e.kind == "tool_call"]
    assert [(e.group, at(s, e.name_ref), at(s, e.ts_from)) for e in calls] == [
        ("M1", ("a", 1, "/content/1/name"), ("u", 4, "/ts")), ("M3", ("a", 3, "/content/0/name"), ("u", 7, "/ts")),
        ("M5", ("a", 5, "/content/0/name"), ("u", 8, "/ts")), ("M7", ("a", 7, "/content/0/name"), ("u", 10, "/ts"))]
    assert calls[0].args == {"command": "ls"} and calls[3].args == {"path": "b", "content": "x"}
    assert s.quality.missing_results == 1 and s.quality.records == 8 + 12 + 4
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("no-result", "tool call t4 (write_to_file) has no result", API, 9)]
    assert s.quality.extra == {"injected_context": 1, "rejected_calls": 1, "asks_api_req_failed": 1,
                               "asks_command": 2}
    assert (s.meta.models, s.meta.token_usage, s.meta.agent_version) == (["m1"], {"prompt": 30, "completion": 5},
                                                                         "3.2.0")
    asked = "a question or approval asked of the user (counted as asks_{})"
    assert {i: s.ledger.get(ui_id(s, i)) for i in range(12)} == {
        0: None,  # cited by the task's user event
        1: Mark("metadata", TOKENS_SEEN, "api_req_started"),
        2: Mark("metadata", asked.format("api_req_failed"), "api_req_failed"),
        3: Mark("set_aside", "an API request retried (Cline's UI notice)", "api_req_retried"),
        4: Mark("metadata", TIME, "text"),
        5: Mark("metadata", asked.format("command"), "command"),
        6: Mark("duplicate", SAME_TEXT, "user_feedback"),  # api[2] holds the words (index 1 + 1)
        7: Mark("metadata", TIME, "command"),
        8: Mark("metadata", TIME, "tool"),
        9: Mark("set_aside", "an error or notice Cline showed in the UI, not a step", "error"),
        10: Mark("metadata", TIME, "api_req_started"),  # its time is write_to_file's
        11: Mark("set_aside", "the UI offering to resume the task (it was reopened)", "resume_task"),
    }
    keys = {ev.record_type: s.ledger.get(k) for k, ev in s.evidence.items() if ev.source == META}
    assert keys == {
        "files_in_context": Mark("set_aside", "the files Cline tracked in the task's context (the calls that read "
                                 "and edited them are steps)"),
        "model_usage": Mark("duplicate", "the models the API messages' modelInfo names"),
        "environment_history": Mark("metadata", "the Cline version (agent_version, the last run's); host and OS "
                                    "not taken"),
        "other": None}  # a key forsy does not know stays unknown: the ledger warns


def api_text(folder: Path, i: int) -> str:
    text: str = json.loads((folder / API).read_text("utf-8"))[i]["content"][0]["text"]
    return text


def test_the_denied_call_and_the_failed_read_fail_their_steps(tmp_path: Path) -> None:
    from forsy.rules.segment import Segmenter

    s = read(_failures(tmp_path))
    steps = [d for d in Segmenter(s).run() if d.values.get("tool")]
    assert [(d.values["tool"], d.values.get("success")) for d in steps] == [
        # still running: Cline says nothing of whether the command worked (src/core/task/index.ts at 5fde21dffd)
        ("execute_command", False), ("execute_command", None), ("read_file", False), ("write_to_file", None)]
    assert (steps[0].values["eval"], steps[0].prov["eval_reason"].rule) == (-1, "R-error/rejected")
    assert steps[2].prov["success"].rule == RULE


# ---------------------------------------------------------------- Cline's words in user messages
def test_clines_words_are_notes_or_results_and_a_later_prompt_is_the_users(tmp_path: Path) -> None:
    wrapper = ("The user has provided feedback on the results. Consider their input to continue the task, and then "
               "attempt completion again.")
    api = [
        {"role": "user", "content": "<task>\nsay hi\n</task>"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "attempt_completion",
                                           "input": {"result": "hi", "command": "echo hi"}}]},
        {"role": "user", "content": [{"type": "text", "text": "Command terminated by signal SIGINT.\nOutput:\nhi"},
                                     {"type": "text", "text": wrapper},
                                     {"type": "text", "text": "<feedback>\nlouder\n</feedback>"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c2", "name": "attempt_completion",
                                           "input": {"result": "HI"}}]},
        {"role": "user", "content": [{"type": "text", "text": wrapper},
                                     {"type": "text", "text": OK_OUTPUT}]},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "now write a poem"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c3", "name": "attempt_completion",
                                           "input": {"result": "poem"}}]},
    ]
    s = read(task(tmp_path, api, None))
    feedback = MessageInfo(span=(11, 17), wrapped="feedback", context="<feedback>\n")
    assert [shape(s, e) for e in s.events] == [
        ("user", "user", None, [("a", 0, "/content")], "<task>\nsay hi\n</task>", None, None, None, None),
        ("tool_call", "agent", None, [("a", 1, "/content/0/input")], None, "attempt_completion", "c1", None, None),
        ("tool_result", "agent", None, [("a", 2, "/content/0/text")],
         "Command terminated by signal SIGINT.\nOutput:\nhi", "attempt_completion", "c1", True,
         ResultInfo(failure_rule=RULE)),
        ("note", "system", None, [("a", 2, "/content/1/text")], wrapper, None, None, None,
         NoteInfo(subtype="completion_feedback_wrapper")),
        ("user", "user", None, [("a", 2, "/content/2/text")], "louder", None, None, None, feedback),
        ("tool_call", "agent", None, [("a", 3, "/content/0/input")], None, "attempt_completion", "c2", None, None),
        ("note", "system", None, [("a", 4, "/content/0/text")], wrapper, None, None, None,
         NoteInfo(subtype="completion_feedback_wrapper")),
        # a command's output with no completion waiting for it: Cline's, a note of the tool
        ("note", "tool", None, [("a", 4, "/content/1/text")], OK_OUTPUT, None, None, None,
         NoteInfo(subtype="command_output")),
        ("agent_text", "agent", None, [("a", 5, "/content")], "done", None, None, None, None),
        ("user", "user", None, [("a", 6, "/content")], "now write a poem", None, None, None, None),
        ("tool_call", "agent", None, [("a", 7, "/content/0/input")], None, "attempt_completion", "c3", None, None),
    ]
    assert s.quality.missing_results == 0
    assert s.quality.extra == {"cline_completion_feedback_wrapper": 2, "completion_feedback": 1,
                               "cline_command_output": 1, "completion_unanswered": 1}
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("no-ui-messages", UI, None)]


def test_a_completion_command_that_exited_zero_is_a_result_without_failure(tmp_path: Path) -> None:
    api = [{"role": "user", "content": "<task>\nt\n</task>"},
           {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "attempt_completion",
                                              "input": {"result": "r", "command": "true"}}]},
           {"role": "user", "content": [{"type": "text", "text": "Command executed successfully (exit code 0)."}]}]
    s = read(task(tmp_path, api, []))
    [res] = [e for e in s.events if e.kind == "tool_result"]
    assert (res.call_id, res.is_error, res.info) == ("c1", False, None)
    assert "completion_unanswered" not in s.quality.extra and s.quality.missing_results == 0


# ---------------------------------------------------------------- native tool results
def test_native_results_answer_their_call_once_and_keep_its_error_flag(tmp_path: Path) -> None:
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nbuild\n</task>"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "k1", "name": "execute_command", "input": {"command": "make"}},
            {"type": "tool_use", "id": "k2", "name": "read_file", "input": {"path": "a"}},
            {"type": "tool_use", "id": "k3", "name": "read_file", "input": {"path": "b"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "nope", "content": "x"},
            {"type": "tool_result", "tool_use_id": "k1", "content": [
                "junk", {"type": "image"}, {"type": "text", "text": "Command failed with exit code 2.\nOutput:\nerr"}]},
            {"type": "tool_result", "tool_use_id": "k1", "content": "again"},
            {"type": "tool_result", "tool_use_id": "k2", "is_error": True, "content": "ENOENT: a"},
            {"type": "tool_result", "tool_use_id": 7, "content": "x"},
            {"type": "tool_result", "tool_use_id": "k3", "is_error": True,
             "content": [{"type": "text", "text": "EACCES: b"}]}]},
    ]
    s = read(task(tmp_path, api, []))
    assert [shape(s, e) for e in s.events if e.kind == "tool_result"] == [
        ("tool_result", "agent", None, [("a", 2, "/content/1/content/2")],
         "Command failed with exit code 2.\nOutput:\nerr", "execute_command", "k1", True,
         ResultInfo(failure_rule=RULE)),
        ("tool_result", "agent", None, [("a", 2, "/content/3/content")], "ENOENT: a", "read_file", "k2", True, None),
        ("tool_result", "agent", None, [("a", 2, "/content/5/content/0")], "EACCES: b", "read_file", "k3", True, None),
    ]
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings if w.code != "no-ui-messages"] == [
        ("orphan-result", "tool_result for unknown call 'nope'; skipped", API, 4),
        ("orphan-result", "tool_result for unknown call 'k1'; skipped", API, 4),
        ("orphan-result", "tool_result for unknown call 7; skipped", API, 4)]
    assert s.quality.missing_results == 0


# ---------------------------------------------------------------- which files stand for a task
def test_discover_offers_each_task_once_in_folders_below(tmp_path: Path) -> None:
    ui = [{"ts": T, "type": "say", "say": "text", "text": "t"}]
    api = [{"role": "user", "content": "<task>\nt\n</task>"}]
    both = task(tmp_path / "tasks" / "1", api, ui, '{"files_in_context": []}')
    alone = task(tmp_path / "tasks" / "2", None, ui, '{"files_in_context": []}')
    assert sorted(ClineSource().discover(tmp_path)) == [both / API, alone / UI]
    # a file named is taken, unless its task has an API history (which stands for it)
    assert ClineSource().discover(both / UI) == [] and ClineSource().discover(alone / UI) == [alone / UI]


# ---------------------------------------------------------------- a task with its UI messages alone
def test_a_ui_only_task_says_so_and_marks_what_it_did_not_make_steps(tmp_path: Path) -> None:
    ui = [{"ts": T, "type": "say", "say": "text", "text": "do x"},
          {"ts": T + 1, "type": "say", "say": "text", "text": "I wi", "partial": True},
          {"ts": T + 2, "type": "say", "say": "text", "text": "I will"},
          {"ts": T + 3, "type": "say", "say": "api_req_started", "text": json.dumps({"tokensIn": 4})}]
    meta = '{"model_usage": [{"model_id": "m9"}], "environment_history": [{"cline_version": "3.4.0"}]}'
    s = read(task(tmp_path, None, ui, meta), UI)
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("no-api-history", API, None)]
    assert s.warnings[0].message == (f"{API} is missing: the task is read from {UI} alone (no tool results, "
                                     "no model, no tokens)")
    assert s.quality.extra == {"ui_only": 1} and s.meta.token_usage == {} and s.meta.agent_version == "3.4.0"
    assert [(e.kind, e.text) for e in s.events] == [("user", "do x"), ("agent_text", "I will")]
    assert {i: s.ledger.get(ui_id(s, i)) for i in range(4)} == {
        0: None, 1: Mark("set_aside", "a UI record still streaming (the complete one follows)"), 2: None,
        3: Mark("metadata", TOKENS_SEEN, "api_req_started")}
    [usage] = [k for k, ev in s.evidence.items() if ev.record_type == "model_usage"]
    assert s.ledger[usage] == Mark("set_aside", "models the API messages do not name (not taken: no message says "
                                   "which model wrote it)")
    assert sorted(f.path for f in s.files) == [META, UI]


def test_tokens_summed_from_the_ui_are_marked_as_used(tmp_path: Path) -> None:
    api = [{"role": "user", "content": "<task>\nt\n</task>"}, {"role": "assistant", "content": "ok"}]
    ui = [{"ts": T, "type": "say", "say": "api_req_started", "text": json.dumps({"tokensIn": 4, "cost": 0.1})},
          {"ts": T + 1, "type": "say", "say": "api_req_started", "text": "not json"}]
    s = read(task(tmp_path, api, ui))
    assert s.meta.token_usage == {"tokensIn": 4}
    assert (s.ledger.get(ui_id(s, 0)), s.ledger.get(ui_id(s, 1))) == (
        Mark("metadata", TOKENS_USED, "api_req_started"), None)


# ---------------------------------------------------------------- odd records: warned, never lost
def test_odd_messages_and_unplaced_feedback_are_warned_with_their_place(tmp_path: Path) -> None:
    api = [{"role": "user", "content": "<task>\nt\n</task>"},
           {"role": "system", "content": "x"},
           {"role": "assistant", "content": 5},
           {"role": "assistant", "content": [{"type": "text", "text": "a"}, "b"]},
           {"role": "user", "content": "hello"}]
    ui = [{"ts": T, "type": "say", "say": "text", "text": "other words"},
          {"ts": T + 1, "type": "say", "say": "user_feedback", "text": ""},
          {"ts": T + 2, "type": "say", "say": "user_feedback", "text": "zzz"},
          {"ts": T + 3, "type": "say", "say": "user_feedback"}]
    s = read(task(tmp_path, api, ui))
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("unknown-record", "message role 'system'; skipped", API, 3),
        ("field-type", "message content is neither text nor a list of blocks; skipped", API, 4),
        ("field-type", "content[1] is not a block; skipped", API, 5),
        ("feedback-unplaced", "user feedback in the UI that no API message holds; kept at the end", UI, 3),
        ("feedback-unplaced", "user feedback in the UI that no API message holds; kept at the end", UI, 4),
        ("feedback-unplaced", "user feedback in the UI that no API message holds; kept at the end", UI, 5)]
    assert s.quality.unknown_records == 1
    # the typed task is not in the API's <task>: the API's words; the feedback, with words, at the end
    assert [(e.kind, e.ts, e.text, [at(s, r) for r in e.refs]) for e in s.events] == [
        ("user", None, "<task>\nt\n</task>", [("a", 0, "/content")]),
        ("agent_text", None, "a", [("a", 3, "/content/0/text")]),
        ("user", None, "hello", [("a", 4, "/content")]),
        ("user", iso(T + 2), "zzz", [("u", 2, "/text")])]


def test_the_first_ui_record_is_the_task_only_when_it_is_text(tmp_path: Path) -> None:
    api = [{"role": "user", "content": "<task>\nfix a\n</task>"},
           {"role": "assistant", "content": "ok"}]
    ui = [{"ts": T, "type": "say", "say": "checkpoint_created", "conversationHistoryIndex": 0},
          {"ts": T + 1, "type": "say", "say": "text", "text": "fix a", "conversationHistoryIndex": -1},
          {"ts": T + 2, "type": "say", "say": "text", "text": "ok", "conversationHistoryIndex": 0},
          {"ts": T + 3, "type": "say", "say": "text", "text": "not said", "conversationHistoryIndex": 0}]
    s = read(task(tmp_path, api, ui))
    # the checkpoint gives no time; the second UI record is not the typed task (the API's words are)
    assert [(e.kind, e.ts, [at(s, r) for r in e.refs]) for e in s.events] == [
        ("user", None, [("a", 0, "/content")]), ("agent_text", iso(T + 2), [("a", 1, "/content")])]
    assert {i: s.ledger.get(ui_id(s, i)) for i in range(4)} == {
        0: Mark("set_aside", "a UI checkpoint marker (Cline's snapshot of the workspace), not work",
                "checkpoint_created"),
        1: Mark("duplicate", SAME_TEXT, "text"),  # index -1: held by api[0]
        2: Mark("metadata", TIME, "text"),
        3: None}  # words no API message holds stay unknown


def test_ui_token_counts_take_integers_only(tmp_path: Path) -> None:
    api = [{"role": "user", "content": "<task>\nt\n</task>"}]
    ui = [{"ts": T, "type": "say", "say": "api_req_started",
           "text": json.dumps({"tokensIn": True, "tokensOut": 3, "cacheReads": 1.5, "cacheWrites": 2})}]
    assert read(task(tmp_path, api, ui)).meta.token_usage == {"tokensOut": 3, "cacheWrites": 2}


def test_times_are_epoch_milliseconds_in_range() -> None:
    from forsy.sources.cline._sdk import iso_ms

    assert [iso_ms(v) for v in (1, 10**14 - 1000, 0, -5, 10**14, True, 1.5, "1", 1787220001999)] == [
        "1970-01-01T00:00:00.001Z", "5138-11-16T09:46:39.000Z", None, None, None, None, None, None,
        "2026-08-20T10:00:01.999Z"]


# ---------------------------------------------------------------- task_metadata.json, key by key
def _meta_of(tmp: Path, raw: bytes) -> Session:
    folder = task(tmp, [{"role": "user", "content": "<task>\nt\n</task>"}], [])
    (folder / META).write_bytes(raw)
    return read(folder)


def test_each_metadata_key_is_one_record_with_its_exact_bytes(tmp_path: Path) -> None:
    raw = '\ufeff {"files_in_context": ["é\udcff"] ,\r\n\t"environment_history" :\n [{"cline_version": "3.0"}, ' \
          '{"cline_version": " "}],"x":1}'.encode("utf-8", "surrogateescape")
    s = _meta_of(tmp_path, raw)
    got = {ev.record_type: (ev.line, raw[ev.byte_offset:ev.byte_offset + ev.byte_length], s.ledger.get(k))
           for k, ev in s.evidence.items() if ev.source == META}
    assert got == {
        "files_in_context": (1, '["é\udcff"]'.encode("utf-8", "surrogateescape"), Mark(
            "set_aside", "the files Cline tracked in the task's context (the calls that read and edited them are "
            "steps)")),
        # the last run names no version: none is taken
        "environment_history": (3, b'[{"cline_version": "3.0"}, {"cline_version": " "}]',
                                Mark("set_aside", "the host and OS of each run (no Cline version in it)")),
        "x": (3, b"1", None)}
    assert s.meta.agent_version is None and s.quality.records == 1 + 3


def test_metadata_that_is_no_object_is_unparsable(tmp_path: Path) -> None:
    for i, raw in enumerate((b"[1, 2]", b"{oops")):
        s = _meta_of(tmp_path / str(i), raw)
        assert s.quality.unparsable_records == 1 and s.quality.records == 1
        assert [(w.code, w.message, w.file, w.line) for w in s.warnings if w.code != "no-ui-messages"] == [
            ("unparsable", "task metadata is not a JSON object; not read", META, 1)]


def test_an_environment_history_with_no_runs_or_no_list_names_no_version(tmp_path: Path) -> None:
    for i, value in enumerate(([], 5, [{"cline_version": 3}], {"cline_version": "3.0"})):
        s = _meta_of(tmp_path / str(i), json.dumps({"environment_history": value}).encode())
        [k] = [k for k, ev in s.evidence.items() if ev.source == META]
        assert s.meta.agent_version is None
        assert s.ledger[k] == Mark("set_aside", "the host and OS of each run (no Cline version in it)")


def test_array_results_split_clines_words_the_persons_and_the_output(tmp_path: Path) -> None:
    wrapper = "The user has provided feedback on the results. Consider their input."
    said = "A\nThe user provided the following feedback:\n<feedback>\nfine\n</feedback>"
    api = [
        {"role": "user", "content": "<task>\nt\n</task>"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "k1", "name": "execute_command", "input": {"command": "rm x"}},
            {"type": "tool_use", "id": "k2", "name": "attempt_completion", "input": {"result": "r"}},
            {"type": "tool_use", "id": "k3", "name": "execute_command", "input": {"command": "ls"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "k1", "content": [
                {"type": "text", "text": "line1"}, {"type": "text", "text": "The user denied this operation."}]},
            {"type": "tool_result", "tool_use_id": "k2", "content": [
                {"type": "text", "text": wrapper}, {"type": "text", "text": "<feedback>\nmore\n</feedback>"}]},
            {"type": "tool_result", "tool_use_id": "k3", "content": [
                {"type": "text", "text": "Command executed successfully (exit code 0)."},
                {"type": "text", "text": said}]}]},
    ]
    s = read(task(tmp_path, api, []))
    assert [shape(s, e) for e in s.events if e.kind != "tool_call"] == [
        ("user", "user", None, [("a", 0, "/content")], "<task>\nt\n</task>", None, None, None, None),
        ("tool_result", "agent", None, [("a", 2, "/content/0/content/0"), ("a", 2, "/content/0/content/1")],
         "line1\nThe user denied this operation.", "execute_command", "k1", True, ResultInfo(rejected=True)),
        ("note", "system", None, [("a", 2, "/content/1/content/0")], wrapper, None, None, None,
         NoteInfo(subtype="completion_feedback_wrapper")),
        # all of it Cline's or the person's: no output, the result cites the block
        ("tool_result", "agent", None, [("a", 2, "/content/1")], None, "attempt_completion", "k2", False, None),
        ("user", "user", None, [("a", 2, "/content/1/content/1")], "more", None, None, None,
         MessageInfo(span=(11, 15), wrapped="feedback", context="<feedback>\n")),
        ("tool_result", "agent", None, [("a", 2, "/content/2/content/0"), ("a", 2, "/content/2/content/1")],
         "Command executed successfully (exit code 0).\n" + said, "execute_command", "k3", False, None),
        ("user", "user", None, [("a", 2, "/content/2/content/1")], "fine", None, None, None,
         MessageInfo(span=(55, 59), wrapped="tool_feedback")),  # the span: in its own block
    ]
    assert s.quality.extra == {"rejected_calls": 1, "cline_completion_feedback_wrapper": 1}


def test_blocks_forsy_does_not_know_are_warned_and_results_pair_in_order(tmp_path: Path) -> None:
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nt\n</task>"}, {"type": "image"}]},
        {"role": "assistant", "metrics": {"tokens": {"prompt": True, "completion": 4}}, "content": [
            {"type": "thinking", "thinking": "  "}, {"type": "thinking", "thinking": "hmm"},
            {"type": "redacted_thinking", "data": "x"}, {"type": "text", "text": " "}, {"type": "weird"},
            {"type": "tool_use", "id": "r1", "name": "read_file", "input": {"path": "a"}}]},
        {"role": "user", "content": [
            {"type": "text", "text": "  [list_files for 'a'] Result:\nA"}, {"type": "image"}, {"type": "document"},
            {"type": "text", "text": 5}, {"type": "text", "text": "[read_file] Result:\nB"},
            {"type": "text", "text": "<task>\nagain\n</task>"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": 5, "name": 7, "input": {}}]},
    ]
    s = read(task(tmp_path, api, [{"ts": T, "type": "say", "say": "text", "text": "t"}]))
    [api3] = [k for k, ev in s.evidence.items() if ev.source == API and ev.line == 5]
    assert [shape(s, e) for e in s.events if e.kind != "tool_call"] == [
        ("user", "user", iso(T), [("u", 0, "/text")], "t", None, None, None, None),
        ("reasoning", "agent", None, [("a", 1, "/content/1/thinking")], "hmm", None, None, None, None),
        # paired with the call before it, whatever the name it gives
        ("tool_result", "agent", None, [("a", 2, "/content/0/text")], "  [list_files for 'a'] Result:\nA",
         "read_file", "r1", False, None),
        ("note", "tool", None, [("a", 2, "/content/4/text")], "[read_file] Result:\nB", None, None, None,
         NoteInfo(subtype="unanswered_result")),
        ("user", "user", None, [("a", 2, "/content/5/text")], "<task>\nagain\n</task>", None, None, None, None)]
    [_, odd] = [e for e in s.events if e.kind == "tool_call"]
    assert (odd.tool, odd.call_id, odd.name_ref, at(s, odd.refs[0])) == (None, f"{api3}/content/0", None,
                                                                          ("a", 3, "/content/0/input"))
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("unknown-block", "assistant block type 'weird'; skipped", API, 3),
        ("result-name", "result names 'list_files' but answers the 'read_file' call before it (paired in order)",
         API, 4),
        ("unknown-block", "user block type 'document'; skipped", API, 4),
        ("unknown-block", "user block type 'text'; skipped", API, 4),
        ("orphan-result", "a 'read_file' result answers no call; kept as a note", API, 4),
        ("no-result", f"tool call {api3}/content/0 (None) has no result", API, 5)]
    assert s.quality.unknown_records == 3 and s.quality.missing_results == 1
    assert s.quality.extra == {"images": 2, "cline_unanswered_result": 1}
    assert s.meta.token_usage == {"completion": 4}


def test_a_model_id_that_is_no_text_is_a_model_no_message_names(tmp_path: Path) -> None:
    """An object or list where the model's id belongs was an internal error (a set of ids
    cannot hold it); such an id names no model, so the usage is set aside as any unknown one."""
    api = [{"role": "user", "content": "<task>\nt\n</task>"},
           {"role": "assistant", "content": "ok", "modelInfo": {"modelId": "m1"}}]
    for bad in ('{"a": 1}', "[1]", "null", "7"):
        meta = '{"model_usage": [{"model_id": ' + bad + '}, {"model_id": "m1"}]}'
        s = read(task(tmp_path / bad[:2].replace('"', "q"), api, None, meta))
        [usage] = [k for k, ev in s.evidence.items() if ev.record_type == "model_usage"]
        assert s.ledger[usage] == Mark("set_aside", "models the API messages do not name (not taken: no message "
                                       "says which model wrote it)"), bad
    s = read(task(tmp_path / "ok", api, None, '{"model_usage": [{"model_id": "m1"}]}'))
    [usage] = [k for k, ev in s.evidence.items() if ev.record_type == "model_usage"]
    assert s.ledger[usage] == Mark("duplicate", "the models the API messages' modelInfo names")
