"""The mini-swe-agent reader on a run made with a Responses-API model (2.4.6,
SWE-agent/mini-swe-agent a83fcae82d).

The documents follow the writer: `LitellmResponseModel.query` (and its openrouter and portkey
twins) keeps the whole response object (`response.model_dump()`: `"object": "response"`, its
`output` items `reasoning` / `message` / `function_call`, no `role`) with `extra` (`actions`
parsed from the function calls: `call_id or id` their tool_call_id, `cost`, `timestamp`);
`format_toolcall_observation_messages` (actions_toolcall_response.py) writes one
`{"type": "function_call_output", "call_id", "output", "extra"}` per action, padding the
outputs it has none for with "action was not executed" (returncode -1), and a `message` with
role `user` and `input_text` parts for a command the person typed; the openrouter and portkey
models' `format_message`, and `_format_error_message`, write `{"type": "message", "role",
"content": [{"type": "input_text", "text"}]}`; a format error keeps the response object in
`extra.response`; `DefaultAgent.serialize` saves `mini-swe-agent-1.1`. The environment raises
Submitted before the output is recorded (an `exit` message, no output). Every expectation is
worked out by hand from the documents; each trace made is validated and verified against the
file (tests/_oracle.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _mini import Places
from _oracle import retrace
from forsy.evidence import Session
from forsy.payloads import MessageInfo, NoteInfo, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.mini_swe_agent import MiniSweAgentSource
from forsy.sources.mini_swe_agent.source import PLACEHOLDER

SRC = MiniSweAgentSource()
NAME = "run.traj.json"
MARK = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
TASK = "Fix the failing test in tally."
PATCH = "diff --git a/tally.py b/tally.py\n-return 0\n+return n\n"
NOT_RUN = "<exception>action was not executed</exception>\n<returncode>-1</returncode>\n<output>\n</output>"


def _doc(messages: list[dict[str, Any]], agent_type: str = "default.DefaultAgent", exit_status: str = "Submitted",
         model: str = "litellm_response_model.LitellmResponseModel") -> dict[str, Any]:
    return {"info": {"model_stats": {"instance_cost": 0.02, "api_calls": 2},
                     "config": {"agent": {"system_template": "sys", "instance_template": "{{task}}", "step_limit": 0,
                                          "cost_limit": 3.0},
                                "agent_type": f"minisweagent.agents.{agent_type}",
                                "model": {"model_name": "openai/gpt-5", "model_kwargs": {}},
                                "model_type": f"minisweagent.models.{model}",
                                "environment": {"cwd": "", "env": {}, "timeout": 30},
                                "environment_type": "minisweagent.environments.local.LocalEnvironment"},
                     "mini_version": "2.4.6", "exit_status": exit_status, "submission": ""},
            "messages": messages, "trajectory_format": "mini-swe-agent-1.1"}


def _start() -> list[dict[str, Any]]:
    # LitellmResponseModel keeps LitellmModel.format_message: plain chat messages
    return [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": TASK}]


def _fc(cid: str, cmd: str) -> dict[str, Any]:
    # the API writes the arguments compact: read as the object (as a chat tool call's are)
    return {"arguments": json.dumps({"command": cmd}, separators=(",", ":")), "call_id": cid, "name": "bash",
            "type": "function_call", "id": f"fc_{cid}", "status": "completed"}


def _response(t: float, *items: dict[str, Any]) -> dict[str, Any]:
    """`response.model_dump()` of litellm's ResponsesAPIResponse, and the extra query() adds."""
    calls = [i for i in items if i["type"] == "function_call"]
    return {"id": f"resp_{int(t)}", "created_at": int(t), "error": None, "incomplete_details": None,
            "instructions": None, "metadata": {}, "model": "gpt-5-2025-08-07", "object": "response",
            "output": list(items), "parallel_tool_calls": True, "temperature": 1.0, "tool_choice": "auto",
            "tools": [{"type": "function", "name": "bash"}], "top_p": 1.0, "max_output_tokens": None,
            "previous_response_id": None, "reasoning": {"effort": "medium", "summary": "auto"}, "status": "completed",
            "text": {"format": {"type": "text"}}, "truncation": "disabled",
            "usage": {"input_tokens": 900, "output_tokens": 60, "total_tokens": 960}, "user": None,
            "extra": {"actions": [{"command": json.loads(c["arguments"])["command"], "tool_call_id": c["call_id"]}
                                  for c in calls], "cost": 0.01, "timestamp": t}}


def _reasoning(*summary: str) -> dict[str, Any]:
    return {"id": "rs_1", "summary": [{"text": x, "type": "summary_text"} for x in summary], "type": "reasoning",
            "content": None, "encrypted_content": None, "status": None}


def _said(text: str) -> dict[str, Any]:
    return {"id": "msg_1", "content": [{"annotations": [], "text": text, "type": "output_text", "logprobs": []}],
            "role": "assistant", "status": "completed", "type": "message"}


def _out(cid: str, content: str, rc: int, raw: str, t: float, exception: str = "") -> dict[str, Any]:
    return {"extra": {"raw_output": raw, "returncode": rc, "timestamp": t, "exception_info": exception},
            "type": "function_call_output", "call_id": cid, "output": content}


def _exit(submission: str) -> dict[str, Any]:
    return {"role": "exit", "content": submission, "extra": {"exit_status": "Submitted", "submission": submission}}


def _read(tmp: Path, doc: dict[str, Any], name: str = NAME) -> tuple[Session, Places]:
    (tmp / name).write_text(json.dumps(doc, indent=2))  # the writer: path.write_text(json.dumps(data, indent=2))
    (s,) = SRC.read(tmp / name, ReadContext(root=tmp))
    return s, Places(s, tmp / name)


FAILED = "<returncode>1</returncode>\n<output>\n1 failed\n</output>"


def _run() -> list[dict[str, Any]]:
    return [*_start(),
            _response(1786356002, _reasoning("Run the tests first."), _said("Let me look."),
                      _fc("call_1", "pytest -q")),
            _out("call_1", FAILED, 1, "1 failed\n", 1786356003),
            _response(1786356004, _fc("call_2", f"echo {MARK} && git diff")),
            _exit(PATCH)]


def test_a_responses_api_run_reads_its_calls_outputs_reasoning_and_words(tmp_path: Path) -> None:
    msgs = _run()
    s, pl = _read(tmp_path, _doc(msgs))
    assert not s.warnings and s.quality.unknown_records == 0
    rows = [(e.kind, e.text, pl.ids(e.call_id), e.tool, e.args, [pl.at(r) for r in e.refs]) for e in s.events]
    assert rows == [
        ("user", TASK, None, None, None, ["/messages/1/content"]),
        ("reasoning", "Run the tests first.", None, None, None, ["/messages/2/output/0/summary/0/text"]),
        ("agent_text", "Let me look.", None, None, None, ["/messages/2/output/1/content/0/text"]),
        ("tool_call", None, "call_1", "bash", {"command": "pytest -q"}, ["/messages/2/output/2/arguments"]),
        ("tool_result", FAILED, "call_1", "bash", None, ["/messages/3/output"]),
        ("tool_call", None, "call_2", "bash", {"command": f"echo {MARK} && git diff"},
         ["/messages/4/output/0/arguments"]),
        # the environment raised Submitted before recording the output: the exit answers it
        ("tool_result", PATCH, "call_2", "bash", None, ["/messages/5/content"]),
        ("note", PATCH, None, None, None, ["/messages/5/content"]),
    ]
    reasoning, call, result, submitted = s.events[1], s.events[3], s.events[4], s.events[6]
    assert reasoning.info == MessageInfo(part="summary")
    assert pl.at(call.name_ref) == "/messages/2/output/2/name"
    assert len({e.group for e in s.events[1:4]}) == 1  # one answer
    assert [pl.at(e.ts_from) for e in (call, result)] == ["/messages/2/extra/timestamp", "/messages/3/extra/timestamp"]
    assert isinstance(result.info, ResultInfo) and (result.is_error, result.info.exit_code) == (True, 1)
    assert pl.at(result.info.exit_code_from) == "/messages/3/extra/returncode"
    assert isinstance(submitted.info, ResultInfo) and submitted.info.failure_rule == "R-call/mini-submitted"
    assert submitted.is_error is False
    (t,) = retrace(tmp_path / NAME, tmp_path / "out")
    steps = [x for x in t["steps"] if x.get("tool")]
    assert [(json.loads(x["input"]), x["output"], x["success"], x["reasoning"]) for x in steps] == [
        # the assembler gives a call the reasoning and words before it
        ({"command": "pytest -q"}, FAILED, False, "Run the tests first.\n\nLet me look."),
        ({"command": f"echo {MARK} && git diff"}, PATCH, True, None)]
    assert (t["task"], t["final_output"], t["termination_reason"]) == (TASK, PATCH, "task_complete")
    man = json.loads(next((tmp_path / "out").rglob("manifest.json")).read_text())
    assert man["counts"]["missing_results"] == 0 and man["counts"]["unknown_records"] == 0


def test_it_keeps_all_the_chat_completions_form_of_the_same_run_gives(tmp_path: Path) -> None:
    # the same run with LitellmModel: an assistant message with tool_calls, a tool message
    chat = [*_start(),
            {"content": "Let me look.", "role": "assistant",
             "tool_calls": [{"function": {"arguments": '{"command":"pytest -q"}', "name": "bash"},
                             "id": "call_1", "type": "function"}],
             "extra": {"actions": [{"command": "pytest -q", "tool_call_id": "call_1"}], "timestamp": 1786356002}},
            {"content": FAILED, "extra": {"raw_output": "1 failed\n", "returncode": 1, "timestamp": 1786356003,
                                          "exception_info": ""}, "tool_call_id": "call_1", "role": "tool"},
            {"content": None, "role": "assistant",
             "tool_calls": [{"function": {"arguments": f'{{"command":"echo {MARK} && git diff"}}',
                                          "name": "bash"}, "id": "call_2", "type": "function"}],
             "extra": {"actions": [{"command": f"echo {MARK} && git diff", "tool_call_id": "call_2"}],
                       "timestamp": 1786356004}},
            _exit(PATCH)]
    (tmp_path / "chat").mkdir()
    (tmp_path / "resp").mkdir()
    _read(tmp_path / "chat", _doc(chat, model="litellm_model.LitellmModel"))
    _read(tmp_path / "resp", _doc(_run()))
    (tc,) = retrace(tmp_path / "chat" / NAME, tmp_path / "out-chat")
    (tr,) = retrace(tmp_path / "resp" / NAME, tmp_path / "out-resp")
    keys = ("action", "actor", "tool", "input", "output", "success", "eval", "caused_by", "started_at", "ended_at")
    assert [{k: x[k] for k in keys} for x in tr["steps"]] == [{k: x[k] for k in keys} for x in tc["steps"]]
    for k in ("task", "system_prompt", "final_output", "termination_reason", "started_at", "ended_at"):
        assert tr[k] == tc[k], k


def test_the_openrouter_and_portkey_messages_and_a_format_error_are_read(tmp_path: Path) -> None:
    # their format_message writes input_text parts; _format_error_message does for every
    # Responses-API model, its extra.response the response object the agent could not parse
    def msg(role: str, text: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        m: dict[str, Any] = {"type": "message", "role": role, "content": [{"type": "input_text", "text": text}]}
        return m | ({"extra": extra} if extra else {})
    unparsed = _response(1786356002, _said("I think the fix is in tally.py."))
    del unparsed["extra"]
    err = "No tool calls found in the response. Every response MUST include at least one tool call."
    msgs = [msg("system", "You are a helpful assistant."), msg("user", TASK),
            msg("user", err, {"interrupt_type": "FormatError", "cost": 0.01, "response": unparsed}),
            _response(1786356004, _fc("call_1", "pytest -q")), _out("call_1", FAILED, 1, "1 failed\n", 1786356005),
            {"type": "message", "role": "exit", "content": [{"type": "input_text", "text": "boom"}],
             "extra": {"exit_status": "RuntimeError", "submission": "", "exception_str": "boom"}}]
    s, pl = _read(tmp_path, _doc(msgs, exit_status="RuntimeError", model="openrouter_response_model.X"))
    assert not s.warnings and s.quality.unknown_records == 0
    assert (s.meta.system_prompt, pl.at(s.meta.system_prompt_ref)) == ("You are a helpful assistant.",
                                                                     "/messages/0/content/0/text")
    rows = [(e.kind, e.text, [pl.at(r) for r in e.refs]) for e in s.events]
    assert rows == [
        ("user", TASK, ["/messages/1/content/0/text"]),
        ("agent_text", "I think the fix is in tally.py.", ["/messages/2/extra/response/output/0/content/0/text"]),
        ("note", err, ["/messages/2/content/0/text"]),
        ("tool_call", None, ["/messages/3/output/0/arguments"]),
        ("tool_result", FAILED, ["/messages/4/output"]),
        ("note", "boom", ["/messages/5/content/0/text"]),
    ]
    assert [e.info.subtype for e in s.events if isinstance(e.info, NoteInfo)] == ["format_error", "exit"]
    (t,) = retrace(tmp_path / NAME, tmp_path / "out")
    assert [x["output"] for x in t["steps"] if x.get("tool")] == [FAILED]


def test_the_interactive_agent_s_placeholders_stand_for_the_submission_or_a_rejection(tmp_path: Path) -> None:
    # the first call submits; InteractiveAgent's finally pads both with placeholders
    msgs = [*_start(), _response(1786356002, _fc("call_1", f"echo {MARK}"), _fc("call_2", "ls")),
            _out("call_1", NOT_RUN, -1, "", 1786356003, "action was not executed"),
            _out("call_2", NOT_RUN, -1, "", 1786356003, "action was not executed"), _exit("ok\n")]
    s, pl = _read(tmp_path, _doc(msgs, "interactive.InteractiveAgent"))
    res = [(e.call_id, e.text, e.is_error, [pl.at(r) for r in e.refs]) for e in s.events if e.kind == "tool_result"]
    assert res == [("call_1", "ok\n", False, ["/messages/5/content"]),
                   ("call_2", NOT_RUN, True, ["/messages/4/output"])]
    placeholder = next(ev for ev, place in pl.of.items() if place == "/messages/3")
    assert (s.ledger[placeholder].heading, s.ledger[placeholder].name) == ("set_aside", PLACEHOLDER)

    rejected = "Commands not executed. The user rejected your commands with the following message: "
    msgs = [*_start(), _response(1786356002, _fc("call_1", "rm -rf build")),
            _out("call_1", NOT_RUN, -1, "", 1786356003, "action was not executed"),
            {"role": "user", "content": rejected + "keep build", "extra": {"interrupt_type": "UserRejection"}}]
    s, pl = _read(tmp_path, _doc(msgs, "interactive.InteractiveAgent", ""))
    (res_ev,) = [e for e in s.events if e.kind == "tool_result"]
    assert isinstance(res_ev.info, ResultInfo) and (res_ev.call_id, res_ev.is_error, res_ev.info.rejected) == (
        "call_1", True, True)
    assert [pl.at(r) for r in res_ev.info.outcome_refs or []] == ["/messages/4/content"]
    assert [e.text for e in s.events if e.kind == "user"] == [TASK, "keep build"]


def test_a_command_the_person_typed_and_its_output_as_a_message(tmp_path: Path) -> None:
    # human mode: the person's command is a plain user message; its output (no tool_call_id)
    # a `message` with role user and input_text parts: the harness's, as in the chat form
    out = "<returncode>0</returncode>\n<output>\nok\n</output>"
    msgs = [*_start(), {"role": "user", "content": "User command: \n```bash\nls\n```",
                        "extra": {"actions": [{"command": "ls"}]}},
            {"extra": {"raw_output": "ok\n", "returncode": 0, "timestamp": 1786356003, "exception_info": ""},
             "type": "message", "role": "user", "content": [{"type": "input_text", "text": out}]}]
    s, pl = _read(tmp_path, _doc(msgs, "interactive.InteractiveAgent", ""))
    assert not s.warnings and s.quality.unknown_records == 0
    assert [(e.kind, e.text, [pl.at(r) for r in e.refs]) for e in s.events] == [
        ("user", TASK, ["/messages/1/content"]),
        ("user", "```bash\nls\n```", ["/messages/2/content"]),
        ("note", out, ["/messages/3/content/0/text"])]


def test_what_a_response_holds_that_forsy_cannot_read_is_counted(tmp_path: Path) -> None:
    # reasoning kept only as ciphertext; an output item of a kind the agent never asks for
    hidden = {"id": "rs_2", "summary": [], "type": "reasoning", "encrypted_content": "gAAAAB..."}
    search = {"id": "ws_1", "type": "web_search_call", "status": "completed"}
    msgs = [*_start(), _response(1786356002, hidden, search, _fc("call_1", "ls")),
            _out("call_1", "<returncode>0</returncode>", 0, "", 1786356003)]
    s, _pl = _read(tmp_path, _doc(msgs, exit_status=""))
    assert [e.kind for e in s.events] == ["user", "tool_call", "tool_result"]
    assert s.quality.encrypted_reasoning == 1 and s.quality.unknown_records == 1
    assert [(w.code, w.message) for w in s.warnings] == [
        ("unknown-output", "output[1] of the response is a 'web_search_call' item, which forsy does not read; "
                           "skipped")]
    # arguments that are not the compact text of their object (another provider's spacing)
    # stay the text as written, as a chat tool call's do
    spaced = _fc("call_1", "ls") | {"arguments": '{"command": "ls"}'}
    s, _pl = _read(tmp_path, _doc([*_start(), _response(1786356002, spaced)], exit_status=""))
    assert [(e.kind, e.args) for e in s.events] == [("user", None), ("tool_call", '{"command": "ls"}')]
