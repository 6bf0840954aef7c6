"""The mini-swe-agent reader on what 2.x (2.4.6) writes around a command that did not show its
output: the one that submitted, the ones the person rejected, and output with images.

The documents follow the writer: `DefaultAgent.serialize` (info merged with the model's and
environment's `serialize`), `LitellmModel.query` (an assistant message, `tool_calls`,
`extra.actions`), `format_toolcall_observation_messages` (a `tool` message per action, the
outputs padded with `{"output": "", "returncode": -1, "exception_info": "action was not
executed"}` for the actions that have none, rendered with default.yaml's observation
template; with a `multimodal_regex`, `expand_multimodal_content` cuts the content into
parts), the environments' `_check_finished` (Submitted: an `exit` message, no output
recorded), `DefaultAgent.execute_actions` (no try: a Submitted leaves no tool message) and
`InteractiveAgent.execute_actions` (its `finally` writes the padded messages, then the
interruption's message). Every expectation is worked out by hand from the documents; each
trace made is validated and verified against the file (tests/_oracle.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _mini import Places
from _oracle import retrace
from forsy.evidence import Session
from forsy.payloads import MessageInfo, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.mini_swe_agent import MiniSweAgentSource
from forsy.sources.mini_swe_agent.source import PLACEHOLDER

SRC = MiniSweAgentSource()
NAME = "run.traj.json"
MARK = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
REGEX = r"(?s)<MSWEA_MULTIMODAL_CONTENT><CONTENT_TYPE>(.+?)</CONTENT_TYPE>(.+?)</MSWEA_MULTIMODAL_CONTENT>"
# default.yaml's observation_template, rendered for a command that printed nothing and for one
# the agent did not get to record
NOT_RUN = "<exception>action was not executed</exception>\n<returncode>-1</returncode>\n<output>\n</output>"
REJECTED = "Commands not executed. The user rejected your commands with the following message: "


def _doc(messages: list[dict[str, Any]], agent_type: str = "interactive.InteractiveAgent", exit_status: str = "",
         submission: str = "", regex: str = "") -> dict[str, Any]:
    return {"info": {"model_stats": {"instance_cost": 0.02, "api_calls": 2},
                     "config": {"agent": {"system_template": "sys", "instance_template": "{{task}}", "step_limit": 0,
                                          "cost_limit": 3.0, "mode": "confirm", "whitelist_actions": [],
                                          "confirm_exit": True},
                                "agent_type": f"minisweagent.agents.{agent_type}",
                                "model": {"model_name": "openai/gpt-5", "multimodal_regex": regex},
                                "model_type": "minisweagent.models.litellm_model.LitellmModel",
                                "environment": {"cwd": "", "env": {}, "timeout": 30},
                                "environment_type": "minisweagent.environments.local.LocalEnvironment"},
                     "mini_version": "2.4.6", "exit_status": exit_status, "submission": submission},
            "messages": messages, "trajectory_format": "mini-swe-agent-1.1"}


def _start(task: Any = "Fix the typo in README.") -> list[dict[str, Any]]:
    return [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": task}]


def _calls(t: float, *calls: tuple[str, str]) -> dict[str, Any]:
    """An answer of the tool-call model: `tool_calls` and the actions parsed from them."""
    return {"content": "On it.", "role": "assistant", "function_call": None,
            "tool_calls": [{"function": {"arguments": json.dumps({"command": cmd}), "name": "bash"}, "id": cid,
                            "type": "function"} for cid, cmd in calls],
            "extra": {"actions": [{"command": cmd, "tool_call_id": cid} for cid, cmd in calls],
                      "response": {"id": "resp"}, "cost": 0.01, "timestamp": t}}


def _tool(cid: str, content: Any, returncode: int, raw: str, t: float, exception: str = "") -> dict[str, Any]:
    return {"content": content, "extra": {"raw_output": raw, "returncode": returncode, "timestamp": t,
                                          "exception_info": exception},
            "tool_call_id": cid, "role": "tool"}


def _not_run(cid: str, t: float) -> dict[str, Any]:
    return _tool(cid, NOT_RUN, -1, "", t, "action was not executed")


def _exit(submission: str) -> dict[str, Any]:
    return {"role": "exit", "content": submission, "extra": {"exit_status": "Submitted", "submission": submission}}


def _read(tmp: Path, doc: dict[str, Any]) -> tuple[Session, Places]:
    (tmp / NAME).write_text(json.dumps(doc, indent=2))  # the writer: path.write_text(json.dumps(data, indent=2))
    (s,) = SRC.read(tmp / NAME, ReadContext(root=tmp))
    return s, Places(s, tmp / NAME)


def _results(s: Session, pl: Places) -> list[tuple[Any, ...]]:
    return [(e.call_id, e.text, e.is_error, [pl.at(r) for r in e.refs], e.info) for e in s.events
            if e.kind == "tool_result"]


def _prov(out: Path) -> dict[str, Any]:
    return json.loads(next(out.rglob("provenance.json")).read_text())


def _manifest(out: Path) -> dict[str, Any]:
    return json.loads(next(out.rglob("manifest.json")).read_text())


# -- the command that submitted ---------------------------------------------------------------
def test_the_interactive_agent_s_command_that_submitted_ran_and_its_result_is_the_submission(tmp_path: Path) -> None:
    # two calls in one answer: the first submits (Submitted is raised before its output is
    # recorded), the second never runs; the finally block pads both, then run() adds the exit
    msgs = [*_start(),
            _calls(1760000000, ("call_1", "cat README")),
            _tool("call_1", "<returncode>0</returncode>\n<output>\nhelo\n</output>", 0, "helo\n", 1760000001),
            _calls(1760000002, ("call_2", f"echo {MARK} && git diff"), ("call_3", "ls")),
            _not_run("call_2", 1760000003), _not_run("call_3", 1760000003),
            _exit("diff --git a/README b/README\n")]
    s, pl = _read(tmp_path, _doc(msgs, exit_status="Submitted", submission="diff --git a/README b/README\n"))
    rows = _results(s, pl)
    assert [r[:4] for r in rows] == [
        ("call_1", msgs[3]["content"], False, ["/messages/3/content"]),
        # in the placeholder's place: the exit message, the submission its content
        ("call_2", "diff --git a/README b/README\n", False, ["/messages/7/content"]),
        ("call_3", NOT_RUN, True, ["/messages/6/content"]),  # it never ran: as written
    ]
    submitted = rows[1][4]
    assert isinstance(submitted, ResultInfo) and submitted.failure_rule == "R-call/mini-submitted"
    assert [pl.at(r) for r in submitted.outcome_refs or []] == ["/messages/7/extra/exit_status"]
    assert submitted.exit_code is None  # the exit message states none: the rule says it was 0
    assert [e.kind for e in s.events[5:]] == ["tool_call", "tool_call", "tool_result", "tool_result", "note"]
    # the placeholder is cited by nothing, and the ledger says what it was
    placeholder = next(ev for ev, place in pl.of.items() if place == "/messages/5")
    assert (s.ledger[placeholder].heading, s.ledger[placeholder].name) == ("set_aside", PLACEHOLDER)
    assert not any(r.ev == placeholder for e in s.events for r in [*e.refs, *([e.ts_from] if e.ts_from else [])])
    (t,) = retrace(tmp_path / NAME, tmp_path / "out")
    steps = [x for x in t["steps"] if x.get("tool")]
    assert [(x["output"], x["success"], x["eval"]) for x in steps] == [
        (msgs[3]["content"], True, 0), ("diff --git a/README b/README\n", True, 0), (NOT_RUN, False, -1)]
    prov = _prov(tmp_path / "out")["steps"][2]["fields"]
    assert (prov["success"]["rule"], [e["pointer"] for e in prov["success"]["evidence"]]) == (
        "R-call/mini-submitted", ["/extra/exit_status"])
    assert (prov["output"]["origin"], [e["pointer"] for e in prov["output"]["evidence"]]) == ("copied", ["/content"])
    man = _manifest(tmp_path / "out")
    (book,) = man["ledger"]
    assert [(x["heading"], x["rule"], x["count"]) for x in book["entries"] if x["heading"] == "set_aside"] == [
        ("set_aside", PLACEHOLDER, 1)]
    assert man["counts"]["missing_results"] == 0 and t["termination_reason"] == "task_complete"


def test_the_default_agent_s_command_that_submitted_has_the_exit_message_as_its_result(tmp_path: Path) -> None:
    # DefaultAgent.execute_actions has no try: Submitted leaves no tool message at all
    msgs = [*_start(), _calls(1760000000, ("call_1", f"echo {MARK} && echo done")), _exit("done\n")]
    s, pl = _read(tmp_path, _doc(msgs, "default.DefaultAgent", "Submitted", "done\n"))
    ((cid, text, error, refs, info),) = _results(s, pl)
    assert (cid, text, error, refs) == ("call_1", "done\n", False, ["/messages/3/content"])
    assert isinstance(info, ResultInfo) and info.failure_rule == "R-call/mini-submitted"
    assert [pl.at(r) for r in info.outcome_refs or []] == ["/messages/3/extra/exit_status"]
    (t,) = retrace(tmp_path / NAME, tmp_path / "out")
    assert [(x["output"], x["success"]) for x in t["steps"] if x.get("tool")] == [("done\n", True)]
    assert _manifest(tmp_path / "out")["counts"]["missing_results"] == 0

    # a text-based model: the command is the answer's action, and nothing comes between
    text_based = [*_start(), {"role": "assistant", "content": f"```mswea_bash_command\necho {MARK}\n```",
                              "extra": {"actions": [{"command": f"echo {MARK}"}], "cost": 0.01,
                                        "timestamp": 1760000000}}, _exit("")]
    s, pl = _read(tmp_path, _doc(text_based, "default.DefaultAgent", "Submitted"))
    assert [(pl.ids(e.call_id), e.text, e.is_error) for e in s.events if e.kind == "tool_result"] == [
        ("/messages/2:/extra/actions/0", "", False)]


PATCH = "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-teh\n+the\n"


def test_the_submission_is_the_final_output(tmp_path: Path) -> None:
    # a SWE-bench run submits its patch: the deliverable (T-final/submission), copied from the
    # exit message; an empty submission is no final output
    msgs = [*_start(), _calls(1760000000, ("call_1", f"echo {MARK} && git diff")), _exit(PATCH)]
    _, pl = _read(tmp_path, _doc(msgs, "default.DefaultAgent", "Submitted", PATCH))
    (t,) = retrace(tmp_path / NAME, tmp_path / "out")
    assert t["final_output"] == PATCH and t["termination_reason"] == "task_complete"
    prov = json.loads(next((tmp_path / "out").rglob("provenance.json")).read_text())["trace_fields"]["final_output"]
    assert (prov["origin"], prov["rule"]) == ("copied", "T-final/submission")
    assert [pl.of[e["id"]] + e["pointer"] for e in prov["evidence"]] == ["/messages/3/content"]

    empty = [*_start(), _calls(1760000000, ("call_1", f"echo {MARK}")), _exit("")]
    _read(tmp_path, _doc(empty, "default.DefaultAgent", "Submitted"))
    (t,) = retrace(tmp_path / NAME, tmp_path / "out2")
    assert t["final_output"] is None


def test_a_submission_that_names_no_one_command_answers_none(tmp_path: Path) -> None:
    # several commands without a result: the default agent ran them in order until one submitted,
    # and the trajectory does not say which
    msgs = [*_start(), _calls(1760000000, ("call_1", "make"), ("call_2", f"echo {MARK}")), _exit("")]
    s, pl = _read(tmp_path, _doc(msgs, "default.DefaultAgent", "Submitted"))
    assert _results(s, pl) == []
    assert [(w.code, w.message) for w in s.warnings] == [
        ("submitted-by-which", "the run was submitted by one of the 2 commands of the answer before it, which the "
                               "trajectory does not say: none is given the submission as its result")]
    # the person's own command submitted (human mode: their message holds the action, its
    # placeholder is a user message): the exit answers no call of the agent's
    msgs = [*_start(), _calls(1760000000, ("call_1", "ls")),
            _tool("call_1", "<returncode>0</returncode>\n<output>\na\n</output>", 0, "a\n", 1760000001),
            {"role": "user", "content": f"User command: \n```bash\necho {MARK}\n```",
             "extra": {"actions": [{"command": f"echo {MARK}"}]}},
            {"role": "user", "content": NOT_RUN, "extra": {"raw_output": "", "returncode": -1,
                                                           "timestamp": 1760000002,
                                                           "exception_info": "action was not executed"}},
            _exit("")]
    s, pl = _read(tmp_path, _doc(msgs, exit_status="Submitted"))
    assert [r[:3] for r in _results(s, pl)] == [("call_1", msgs[3]["content"], False)] and not s.warnings
    # an exit of another status answers nothing either
    msgs = [*_start(), _calls(1760000000, ("call_1", "sleep 9")),
            {"role": "exit", "content": "LimitsExceeded", "extra": {"exit_status": "LimitsExceeded", "submission": ""}}]
    s, pl = _read(tmp_path, _doc(msgs, "default.DefaultAgent", "LimitsExceeded"))
    assert _results(s, pl) == []


# -- rejected commands ------------------------------------------------------------------------
def test_a_rejected_tool_call_is_rejected_not_failed(tmp_path: Path) -> None:
    # _ask_confirmation_or_interrupt raises before any action runs: every action is padded,
    # then the rejection's message follows
    msgs = [*_start(), _calls(1760000000, ("call_1", "rm -rf build"), ("call_2", "ls")),
            _not_run("call_1", 1760000001), _not_run("call_2", 1760000001),
            {"role": "user", "content": REJECTED + "keep build", "extra": {"interrupt_type": "UserRejection"}}]
    s, pl = _read(tmp_path, _doc(msgs))
    rej = [ResultInfo(rejected=True, outcome_refs=e.info.outcome_refs) for e in s.events  # type: ignore[union-attr]
           if e.kind == "tool_result"]
    assert _results(s, pl) == [("call_1", NOT_RUN, True, ["/messages/3/content"], rej[0]),
                               ("call_2", NOT_RUN, True, ["/messages/4/content"], rej[1])]
    assert [[pl.at(r) for r in i.outcome_refs or []] for i in rej] == [["/messages/5/content"]] * 2
    (user,) = [e for e in s.events if e.kind == "user" and e.text == "keep build"]
    assert isinstance(user.info, MessageInfo) and user.info.context == REJECTED
    (t,) = retrace(tmp_path / NAME, tmp_path / "out")
    assert [(x["success"], x["eval_reason"], x["state_change"]) for x in t["steps"] if x.get("tool")] == [
        (False, "The user rejected this tool call.", "No change: the tool call was rejected, so it did not run.")] * 2


def test_switching_to_human_mode_instead_of_confirming_rejects_the_commands(tmp_path: Path) -> None:
    # "/u" at the confirmation: "Commands not executed. Switching to human mode" (UserRejection)
    human = {"role": "user", "content": "Commands not executed. Switching to human mode",
             "extra": {"interrupt_type": "UserRejection"}}
    msgs = [*_start(), _calls(1760000000, ("call_1", "rm -rf build")), _not_run("call_1", 1760000001), human]
    s, pl = _read(tmp_path, _doc(msgs))
    ((_, _, error, refs, info),) = _results(s, pl)
    assert (error, refs, isinstance(info, ResultInfo) and info.rejected) == (True, ["/messages/3/content"], True)
    assert [(e.kind, e.text) for e in s.events[-1:]] == [("note", human["content"])]  # no words of the person's
    # a text-based model writes no placeholder: the message answers the command
    text_based = [*_start(), {"role": "assistant", "content": "```mswea_bash_command\nrm -rf build\n```",
                              "extra": {"actions": [{"command": "rm -rf build"}], "timestamp": 1760000000}}, human]
    s, pl = _read(tmp_path, _doc(text_based))
    ((_, text, error, refs, info),) = _results(s, pl)
    assert (text, error, refs, info) == (human["content"], True, ["/messages/3/content"], ResultInfo(rejected=True))


# -- output with images -----------------------------------------------------------------------
def _parts(*texts_and_images: str | None) -> list[dict[str, Any]]:
    """Content as expand_multimodal_content writes it: None stands for an image."""
    return [{"type": "text", "text": x} if x is not None else
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
            for x in texts_and_images]


def test_an_output_with_an_image_keeps_its_text_and_counts_the_image(tmp_path: Path) -> None:
    out = _parts("<returncode>0</returncode>\n<output>\nshot: ", None, " done\n</output>")
    raw = ("shot: <MSWEA_MULTIMODAL_CONTENT><CONTENT_TYPE>image_url</CONTENT_TYPE>data:image/png;base64,iVBORw0KGgo="
           "</MSWEA_MULTIMODAL_CONTENT> done\n")
    # with a multimodal_regex every message the model formats is parts: the task one text part
    msgs = [{"role": "system", "content": _parts("You are a helpful assistant.")},
            {"role": "user", "content": _parts("Fix the page; it looks like this: ", None)},
            _calls(1760000000, ("call_1", "python shot.py")), _tool("call_1", out, 0, raw, 1760000001),
            _calls(1760000002, ("call_2", "false")), _tool("call_2", _parts("<returncode>1</returncode>\n"), 1, "",
                                                           1760000003)]
    s, pl = _read(tmp_path, _doc(msgs, regex=REGEX))
    first, second = _results(s, pl)
    assert first[:4] == ("call_1", "<returncode>0</returncode>\n<output>\nshot:  done\n</output>", False,
                         ["/messages/3/content/0/text", "/messages/3/content/2/text"])
    assert isinstance(first[4], ResultInfo) and (first[4].images, first[4].exit_code) == (1, 0)
    assert pl.at(first[4].exit_code_from) == "/messages/3/extra/returncode"
    assert second[:4] == ("call_2", "<returncode>1</returncode>\n", True, ["/messages/5/content/0/text"])
    (task,) = [e for e in s.events if e.kind == "user"]
    assert (task.text, [pl.at(r) for r in task.refs], task.info) == (
        "Fix the page; it looks like this: ", ["/messages/1/content/0/text"], MessageInfo(images=1))
    assert s.quality.extra["images"] == 2 and not s.warnings and s.quality.unknown_records == 0
    (t,) = retrace(tmp_path / NAME, tmp_path / "out")
    assert [(x["output"], x["success"]) for x in t["steps"] if x.get("tool")] == [
        (first[1], True), ("<returncode>1</returncode>\n", False)]
    assert t["task"] == "Fix the page; it looks like this: "
    assert _manifest(tmp_path / "out")["counts"]["images"] == 2


def test_a_text_based_observation_with_an_image_answers_its_command(tmp_path: Path) -> None:
    msgs = [*_start(), {"role": "assistant", "content": "```mswea_bash_command\npython shot.py\n```",
                        "extra": {"actions": [{"command": "python shot.py"}], "timestamp": 1760000000}},
            {"role": "user", "content": _parts("<returncode>2</returncode>\n<output>\n", None, "\n</output>"),
             "extra": {"raw_output": "x", "returncode": 2, "timestamp": 1760000001, "exception_info": ""}}]
    s, pl = _read(tmp_path, _doc(msgs, regex=REGEX))
    ((_, text, error, refs, info),) = _results(s, pl)
    assert (text, error, refs) == ("<returncode>2</returncode>\n<output>\n\n</output>", True,
                                   ["/messages/3/content/0/text", "/messages/3/content/2/text"])
    assert isinstance(info, ResultInfo) and (info.images, info.exit_code) == (1, 2)
    # the same parts in a message that answers nothing stay unread, and say so
    s, _pl = _read(tmp_path, _doc([*_start(), msgs[3]], regex=REGEX))
    assert [w.code for w in s.warnings] == ["content-parts"] and s.quality.unknown_records == 1


def test_a_placeholder_written_as_parts_stands_for_the_command_that_submitted(tmp_path: Path) -> None:
    # with a multimodal_regex the placeholder's content is one text part
    msgs = [*_start(), _calls(1760000000, ("call_1", f"echo {MARK}")),
            _tool("call_1", _parts(NOT_RUN), -1, "", 1760000001, "action was not executed"), _exit("ok\n")]
    s, pl = _read(tmp_path, _doc(msgs, exit_status="Submitted", submission="ok\n", regex=REGEX))
    ((cid, text, error, refs, _info),) = _results(s, pl)
    assert (cid, text, error, refs) == ("call_1", "ok\n", False, ["/messages/4/content"])
