"""The mini-swe-agent reader on trajectories shaped as its writer writes them.

Each document below follows mini-swe-agent's own code: 1.x `save_traj` and `DefaultAgent`
(messages `{role, content[, timestamp]}`, the command a fenced block the agent's
`action_regex` finds, what came back the next `user` message, rendered from
`action_observation_template`, `timeout_template` or `format_error_template`, a terminating
exception's text last), 2.x `serialize` with the tool-call model (`tool_calls`, `tool` messages
with `extra.returncode`, `exit` messages, `extra.interrupt_type`) and the text-based model
(`extra.actions`). Every expectation is worked out by hand from the document; each trace made
is validated and verified against the file (tests/_oracle.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _mini import Places
from _oracle import retrace
from _paths import REAL_LOGS
from forsy.payloads import MessageInfo, NoteInfo, ResultInfo
from forsy.sources import ReadContext, detect
from forsy.sources.mini_swe_agent import MiniSweAgentSource

SRC = MiniSweAgentSource()
TIMEOUT_T = ("The last command <command>{{action['action']}}</command> timed out and has been killed.\n"
             "The output of the command was:\n<output>\n{{output}}\n</output>")
OBS_T = "<returncode>{{output.returncode}}</returncode>\n<output>\n{{output.output}}</output>"


def _write(tmp: Path, doc: dict[str, Any], name: str = "inst-1.traj.json") -> Path:
    p = tmp / name
    p.write_text(json.dumps(doc, indent=2))  # the writer: path.write_text(json.dumps(data, indent=2))
    return p


def _v1(messages: list[dict[str, Any]], **agent: Any) -> dict[str, Any]:
    return {"info": {"exit_status": "Submitted", "submission": "", "model_stats": {"instance_cost": 0.01,
                     "api_calls": 4}, "mini_version": "1.17.5",
                     "config": {"agent": {"timeout_template": TIMEOUT_T, "action_observation_template": OBS_T,
                                          **agent},
                                "model": {"model_name": "anthropic/claude-sonnet-4"},
                                "environment": {"image": "swebench/sweb.eval.x86_64.django_1776_django-11099:latest",
                                                "cwd": "/testbed", "timeout": 60},
                                "agent_type": "minisweagent.agents.default.DefaultAgent",
                                "environment_type": "minisweagent.environments.docker.DockerEnvironment"}},
            "messages": messages, "trajectory_format": "mini-swe-agent-1"}


def _answer(thought: str, cmd: str) -> str:
    return f"THOUGHT: {thought}\n\n```bash\n{cmd}\n```"


V1 = [
    {"role": "system", "content": "You are a helpful assistant.", "timestamp": 1760000000.0},
    {"role": "user", "content": "Please solve this issue: add a --json flag", "timestamp": 1760000001.0},
    {"role": "assistant", "content": _answer("look around", "ls -la"), "timestamp": 1760000002.5},
    {"role": "user", "content": "<returncode>0</returncode>\n<output>\nsetup.py\n</output>", "timestamp": 1760000003.0},
    # two blocks: the agent ran nothing and said so in the format error message
    {"role": "assistant", "content": "```bash\nls\n```\n```bash\npwd\n```", "timestamp": 1760000004.0},
    {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks.",
     "timestamp": 1760000005.0},
    {"role": "assistant", "content": _answer("run it", "  python t.py  "), "timestamp": 1760000006.0},
    {"role": "user", "content": "<returncode>1</returncode>\n<output>\nTraceback\n</output>",
     "timestamp": 1760000007.0},
    {"role": "assistant", "content": _answer("wait", "sleep 999"), "timestamp": 1760000008.0},
    {"role": "user", "content": "The last command <command>sleep 999</command> timed out and has been killed.\n"
     "The output of the command was:\n<output>\n\n</output>", "timestamp": 1760000068.0},
    {"role": "assistant", "content": _answer("done", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
     "timestamp": 1760000069.0},
    {"role": "user", "content": "", "timestamp": 1760000070.0},  # Submitted(""): the output after the marker
]


def test_a_1x_trajectory_step_by_step(tmp_path: Path) -> None:
    p = _write(tmp_path, _v1(V1))
    assert isinstance(detect(p), MiniSweAgentSource)
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    assert (s.session_id, s.meta.agent, s.meta.agent_version, s.meta.models) == (
        "inst-1", "mini-swe-agent", "1.17.5", ["anthropic/claude-sonnet-4"])
    assert s.meta.system_prompt == "You are a helpful assistant."
    at = Places(s, p).at
    assert at(s.meta.system_prompt_ref) == "/messages/0/content"
    got = [(e.kind, e.actor, e.text if e.kind != "tool_call" else e.args, e.is_error) for e in s.events]
    assert got == [
        ("user", "user", "Please solve this issue: add a --json flag", None),
        ("agent_text", "agent", _answer("look around", "ls -la"), None),
        ("tool_call", "agent", "ls -la", None),
        ("tool_result", "agent", "<returncode>0</returncode>\n<output>\nsetup.py\n</output>", False),
        ("agent_text", "agent", "```bash\nls\n```\n```bash\npwd\n```", None),
        ("note", "system", "Please always provide EXACTLY ONE action in triple backticks.", None),
        ("agent_text", "agent", _answer("run it", "  python t.py  "), None),
        ("tool_call", "agent", "python t.py", None),
        ("tool_result", "agent", "<returncode>1</returncode>\n<output>\nTraceback\n</output>", True),
        ("agent_text", "agent", _answer("wait", "sleep 999"), None),
        ("tool_call", "agent", "sleep 999", None),
        ("tool_result", "agent", V1[9]["content"], True),
        ("agent_text", "agent", _answer("done", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"), None),
        ("tool_call", "agent", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", None),
        ("tool_result", "agent", "", None),
    ]
    calls = [e for e in s.events if e.kind == "tool_call"]
    # each command is the slice of the answer the regex found, stripped as the agent strips it
    for e in calls:
        text = V1[int(str(at(e.refs[0])).split("/")[2])]["content"]
        assert e.info is not None and e.info.span is not None
        a, z = e.info.span
        assert text[a:z] == e.args and e.refs[0].pointer == "/content"
    results = [e for e in s.events if e.kind == "tool_result"]
    assert [r.call_id for r in results] == [c.call_id for c in calls]
    infos = [r.info for r in results]
    assert all(isinstance(i, ResultInfo) for i in infos)
    assert [(i.exit_code, i.failure_rule) for i in infos if isinstance(i, ResultInfo)] == [
        (0, None), (1, "R-call/mini-returncode"), (None, "R-call/mini-timeout"), (None, None)]
    assert [e.ts for e in s.events[:3]] == ["2025-10-09T08:53:21.000Z", "2025-10-09T08:53:22.500Z",
                                            "2025-10-09T08:53:22.500Z"]
    assert at(s.events[0].ts_from) == "/messages/1/timestamp"
    assert s.quality.unknown_records == 0 and not s.warnings


def test_a_1x_trajectory_makes_a_trace_that_validates_and_verifies(tmp_path: Path) -> None:
    p = _write(tmp_path, _v1(V1))
    (t,) = retrace(p, tmp_path / "out")
    steps = t["steps"]
    assert [(x["action"], x.get("tool"), x.get("input"), x.get("success")) for x in steps] == [
        ("user_message", None, "Please solve this issue: add a --json flag", None),
        ("agent_step", "bash", "ls -la", True),
        ("agent_step", "bash", "python t.py", False),
        ("agent_step", "bash", "sleep 999", False),
        ("agent_step", "bash", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", None),
    ]
    assert [x["operation"] for x in steps[1:]] == ["execute"] * 4
    assert t["agent_config"] == {
        "agent": "mini-swe-agent", "agent_version": "1.17.5", "model": "anthropic/claude-sonnet-4",
        "working_directory": "/testbed", "exit_status": "Submitted",
        "agent_type": "minisweagent.agents.default.DefaultAgent",
        "environment_type": "minisweagent.environments.docker.DockerEnvironment",
        "environment_image": "swebench/sweb.eval.x86_64.django_1776_django-11099:latest"}
    assert sum(1 for x in steps if x["actor"] == "user") == 1  # the harness's messages are never the person's
    assert t["termination_reason"] == "task_complete"  # info.exit_status "Submitted" (T-termination/declared)
    prov = json.loads(next((tmp_path / "out").rglob("provenance.json")).read_text())
    why = prov["trace_fields"]["termination_reason"]
    assert (why["origin"], why["rule"], [e["pointer"] for e in why["evidence"]]) == (
        "derived", "T-termination/declared", ["/exit_status"])  # inside the `info` record


def test_the_person_s_words_in_an_interactive_run_are_cut_out_of_the_harness_s(tmp_path: Path) -> None:
    msgs = V1[:3] + [
        {"role": "user", "content": "Command not executed. The user rejected your command with the following "
                                    "message: use git status instead"},
        {"role": "assistant", "content": _answer("ok", "git status")},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\nclean\n</output>"},
        {"role": "assistant", "content": "All done."},
        {"role": "user", "content": "The user added a new task: now add tests"},
        {"role": "assistant", "content": _answer("tests", "pytest")},
        {"role": "user", "content": "Interrupted by user: stop, wrong folder"},
    ]
    (s,) = SRC.read(_write(tmp_path, _v1(msgs)), ReadContext(root=tmp_path))
    at = Places(s, tmp_path / "inst-1.traj.json").at
    users = [e for e in s.events if e.kind == "user"]
    assert [u.text for u in users] == ["Please solve this issue: add a --json flag", "use git status instead",
                                       "now add tests", "stop, wrong folder"]
    for u in users[1:]:
        info = u.info
        assert isinstance(info, MessageInfo) and info.span is not None and info.wrapped == "mini-swe-agent"
        whole = msgs[int(str(at(u.refs[0])).split("/")[2])]["content"]
        assert whole[info.span[0]:info.span[1]] == u.text and info.context == whole[:info.span[0]]
    rejected = [e for e in s.events if e.kind == "tool_result" and isinstance(e.info, ResultInfo) and e.info.rejected]
    assert [(r.text, r.is_error) for r in rejected] == [(msgs[3]["content"], True)]
    # the interrupted command has no answer: no result is made up for it
    pytest_call = next(e for e in s.events if e.kind == "tool_call" and e.args == "pytest")
    assert not any(e.kind == "tool_result" and e.call_id == pytest_call.call_id for e in s.events)
    (t,) = retrace(tmp_path / "inst-1.traj.json", tmp_path / "out")
    assert [x["input"] for x in t["steps"] if x["action"] == "user_message"] == [u.text for u in users]


def test_the_agent_s_own_action_regex_finds_its_command(tmp_path: Path) -> None:
    msgs = V1[:2] + [
        {"role": "assistant", "content": "```bash\nnot this\n```\n<cmd>make test</cmd>"},
        {"role": "user", "content": "<returncode>2</returncode>\n<output>\nfail\n</output>"},
    ]
    (s,) = SRC.read(_write(tmp_path, _v1(msgs, action_regex=r"<cmd>(.*?)</cmd>")), ReadContext(root=tmp_path))
    assert [(e.kind, e.args) for e in s.events if e.kind == "tool_call"] == [("tool_call", "make test")]
    (s,) = SRC.read(_write(tmp_path, _v1(msgs, action_regex="(unclosed")), ReadContext(root=tmp_path))
    assert not [e for e in s.events if e.kind == "tool_call"]
    assert [w.code for w in s.warnings] == ["bad-action-regex"]
    # no command read: what came back is the harness's message, not a result of nothing
    assert [e.kind for e in s.events] == ["user", "agent_text", "note"]


def _v2(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"info": {"model_stats": {"instance_cost": 0.0, "api_calls": 2},
                     "config": {"agent": {"system_template": "sys", "instance_template": "{{task}}"},
                                "agent_type": "minisweagent.agents.default.DefaultAgent",
                                "model": {"model_name": "openai/gpt-5"}},
                     "mini_version": "2.4.6", "exit_status": "Submitted", "submission": "diff"},
            "messages": messages, "trajectory_format": "mini-swe-agent-1.1"}


V2 = [
    {"role": "system", "content": "sys"},
    {"role": "user", "content": "fix the bug"},
    {"role": "assistant", "content": "Checking.", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"false\"}"}},
    ], "extra": {"actions": [{"command": "ls", "tool_call_id": "call_1"},
                             {"command": "false", "tool_call_id": "call_2"}], "cost": 0.01, "timestamp": 1770000000}},
    {"role": "tool", "tool_call_id": "call_1", "content": "<returncode>0</returncode>\na.py",
     "extra": {"raw_output": "a.py", "returncode": 0, "timestamp": 1770000001.25, "exception_info": None}},
    {"role": "tool", "tool_call_id": "call_2", "content": "<returncode>1</returncode>\n",
     "extra": {"raw_output": "", "returncode": 1, "timestamp": 1770000002, "exception_info": None}},
    {"role": "user", "content": "No tool calls found in the response.", "extra": {"interrupt_type": "FormatError"}},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_3", "type": "function",
         "function": {"name": "bash", "arguments": "{\"command\":\"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\"}"}}]},
    {"role": "exit", "content": "diff", "extra": {"exit_status": "Submitted", "submission": "diff"}},
    {"type": "reasoning", "summary": []},
]


def test_a_2x_tool_call_trajectory(tmp_path: Path) -> None:
    p = _write(tmp_path, _v2(V2), "last_mini_run.traj.json")
    assert isinstance(detect(p), MiniSweAgentSource)
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    assert (s.session_id, s.meta.agent_version) == ("last_mini_run", "2.4.6")
    got = [(e.kind, e.call_id, e.args if e.kind == "tool_call" else e.text, e.is_error) for e in s.events]
    assert got == [
        ("user", None, "fix the bug", None),
        ("agent_text", None, "Checking.", None),
        ("tool_call", "call_1", {"command": "ls"}, None),
        ("tool_call", "call_2", "{\"command\": \"false\"}", None),  # not written compactly: kept as written
        ("tool_result", "call_1", "<returncode>0</returncode>\na.py", False),
        ("tool_result", "call_2", "<returncode>1</returncode>\n", True),
        ("note", None, "No tool calls found in the response.", None),
        ("tool_call", "call_3", {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}, None),
        ("tool_result", "call_3", "diff", False),  # the submission answers it (R-call/mini-submitted)
        ("note", None, "diff", None),
    ]
    at = Places(s, p).at
    codes = [(e.info.exit_code, at(e.info.exit_code_from)) for e in s.events if isinstance(e.info, ResultInfo)]
    # the submission's exit message states no exit code (its rule says the command exited 0)
    assert codes == [(0, "/messages/3/extra/returncode"), (1, "/messages/4/extra/returncode"), (None, None)]
    notes = [e.info for e in s.events if e.kind == "note"]
    assert [(n.subtype, n.reason) for n in notes if isinstance(n, NoteInfo)] == [
        ("format_error", "FormatError"), ("exit", "Submitted")]
    calls = [e for e in s.events if e.kind == "tool_call"]
    assert calls[0].group == calls[1].group != calls[2].group  # issued together
    assert s.events[2].ts == "2026-02-02T02:40:00.000Z" and s.events[4].ts == "2026-02-02T02:40:01.250Z"
    assert s.quality.unknown_records == 1
    assert [w.code for w in s.warnings] == ["not-a-message"] and "'reasoning'" in s.warnings[0].message
    (t,) = retrace(p, tmp_path / "out")
    assert [(x.get("input"), x.get("success")) for x in t["steps"] if x.get("tool")] == [
        ('{"command":"ls"}', True), ('{"command": "false"}', False),
        ('{"command":"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}', True)]


def test_a_2x_text_based_trajectory_reads_the_actions_and_their_return_codes(tmp_path: Path) -> None:
    msgs = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": "```mswea_bash_command\ncat a\n```",
         "extra": {"actions": [{"command": "cat a"}]}},
        {"role": "user", "content": "<returncode>0</returncode>\nA", "extra": {"raw_output": "A", "returncode": 0}},
        {"role": "assistant", "content": "```mswea_bash_command\nrm -rf /x\n```",
         "extra": {"actions": [{"command": "rm -rf /x"}]}},
        {"role": "user", "content": "timed out", "extra": {"returncode": -1, "exception_info": "timeout"}},
    ]
    (s,) = SRC.read(_write(tmp_path, _v2(msgs)), ReadContext(root=tmp_path))
    at = Places(s, tmp_path / "inst-1.traj.json").at
    calls = [e for e in s.events if e.kind == "tool_call"]
    assert [(c.args, at(c.refs[0])) for c in calls] == [
        ("cat a", "/messages/2/extra/actions/0/command"), ("rm -rf /x", "/messages/4/extra/actions/0/command")]
    results = [e for e in s.events if e.kind == "tool_result"]
    assert [(r.call_id, r.is_error) for r in results] == [(calls[0].call_id, False), (calls[1].call_id, True)]


def test_what_is_not_a_trajectory_is_said(tmp_path: Path) -> None:
    p = tmp_path / "x.traj.json"
    p.write_text(json.dumps({"info": {"mini_version": "1.0"}, "messages": "nope"}, indent=2))
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    assert (s.quality.unparsable_records, [w.code for w in s.warnings], s.events) == (1, ["unparsable"], [])
    # a chat log that merely mentions the agent is not taken for one of its trajectories
    assert not SRC.sniff(p, b'{"messages": [{"role": "user", "content": "\\"mini_version\\""}]}')
    assert not SRC.sniff(p, b'{\n  "info": {\n    "exit_status": "Submitted"\n  }\n}')


def test_discover_finds_a_batch_run_s_trajectories(tmp_path: Path) -> None:
    for inst in ("django__django-1", "astropy__astropy-2"):
        (tmp_path / inst).mkdir()
        _write(tmp_path / inst, _v1(V1), f"{inst}.traj.json")
    (tmp_path / "preds.json").write_text('{"django__django-1": {"model_patch": ""}}')
    found = SRC.discover(tmp_path)
    assert sorted(p.name for p in found) == ["astropy__astropy-2.traj.json", "django__django-1.traj.json"]


def test_the_sweep_looks_where_mini_saves_its_last_run(tmp_path: Path) -> None:
    from forsy.config import default_log_roots

    roots = default_log_roots(tmp_path)
    assert tmp_path / ".config" / "mini-swe-agent" in roots  # Linux: platformdirs' user_config_dir
    assert tmp_path / "Library" / "Application Support" / "mini-swe-agent" in roots  # macOS
    # what else mini keeps there (its .env of API keys, its yaml configs) is never offered
    home = tmp_path / ".config" / "mini-swe-agent"
    home.mkdir(parents=True)
    (home / ".env").write_text("OPENAI_API_KEY=sk-x\n")
    (home / "mini.yaml").write_text("agent: {}\n")
    _write(home, _v1(V1), "last_mini_run.traj.json")
    assert [p.name for p in SRC.discover(home)] == ["last_mini_run.traj.json"]


@pytest.mark.skipif(not (REAL_LOGS / "invariant").is_dir(), reason="../shared/real_logs is absent")
def test_the_real_1x_trajectory(tmp_path: Path) -> None:
    p = next((REAL_LOGS / "invariant").rglob("mini-swe-agent-trajectory.json"))
    (t,) = retrace(p, tmp_path / "out")
    assert [(x.get("tool"), x.get("input"), x.get("success")) for x in t["steps"]] == [
        (None, t["steps"][0]["input"], None),
        ("bash", 'echo "Hello, world!" > hello.txt', True),
        ("bash", "cat hello.txt", True),
        ("bash", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", None),
    ]
    assert t["steps"][0]["input"].startswith("Please solve this issue: Create a file called hello.txt")


def test_a_lead_in_inside_an_output_is_the_output(tmp_path: Path) -> None:
    # a command's output that prints one of the harness's lead-ins is still the command's output
    out = "<returncode>0</returncode>\n<output>\nInterrupted by user: x\n</output>"
    msgs = V1[:3] + [{"role": "user", "content": out},
                     {"role": "assistant", "content": "no command here"},
                     {"role": "user", "content": "Note: The user added a new task: no"}]
    (s,) = SRC.read(_write(tmp_path, _v1(msgs)), ReadContext(root=tmp_path))
    assert [(e.kind, e.text) for e in s.events if e.kind in ("user", "tool_result", "note")] == [
        ("user", "Please solve this issue: add a --json flag"), ("tool_result", out),
        ("note", "Note: The user added a new task: no")]


def test_a_command_answered_by_nothing_gets_no_answer_from_a_later_message(tmp_path: Path) -> None:
    msgs = V1[:3] + [{"role": "assistant", "content": "Let me think again."},
                     {"role": "user", "content": "<returncode>0</returncode>\n<output>\nx\n</output>"}]
    (s,) = SRC.read(_write(tmp_path, _v1(msgs)), ReadContext(root=tmp_path))
    assert [e.kind for e in s.events] == ["user", "agent_text", "tool_call", "agent_text", "note"]
    (t,) = retrace(tmp_path / "inst-1.traj.json", tmp_path / "out")
    assert t["summary"]["total_steps"] >= 2 and [x["output"] for x in t["steps"] if x.get("tool")] == [None]


def test_a_format_error_after_a_text_based_action_is_no_result(tmp_path: Path) -> None:
    msgs = [{"role": "system", "content": "sys"}, {"role": "user", "content": "task"},
            {"role": "assistant", "content": "x", "extra": {"actions": [{"command": "ls"}]}},
            {"role": "user", "content": "Format error", "extra": {"interrupt_type": "FormatError"}},
            {"role": "user", "content": "Commands not executed. The user rejected your commands with the following "
                                        "message: no", "extra": {"interrupt_type": "UserRejection"}}]
    (s,) = SRC.read(_write(tmp_path, _v2(msgs)), ReadContext(root=tmp_path))
    assert [(e.kind, e.text) for e in s.events if e.kind != "tool_call"] == [
        ("user", "task"), ("agent_text", "x"), ("note", "Format error"), ("user", "no")]


def test_a_timeout_template_that_opens_with_a_tag_tells_nothing(tmp_path: Path) -> None:
    msgs = V1[:3] + [{"role": "user", "content": "whatever came back"}]
    (s,) = SRC.read(_write(tmp_path, _v1(msgs, timeout_template="{{output}} timed out")), ReadContext(root=tmp_path))
    (r,) = [e for e in s.events if e.kind == "tool_result"]
    assert r.is_error is None  # neither an exit code nor the timeout's own words: success unknown


def test_human_mode_odd_codes_and_times(tmp_path: Path) -> None:
    msgs = [{"role": "system", "content": "sys"}, {"role": "user", "content": "task", "extra": {"timestamp": 0}},
            {"role": "user", "content": "User command: \n```bash\nmake\n```", "extra": {"timestamp": 1e15}},
            {"role": "assistant", "content": "x", "extra": {"actions": [{"command": "ls"}], "timestamp": True}},
            {"role": "user", "content": "out", "extra": {"returncode": True, "timestamp": float("nan")}}]
    p = tmp_path / "h.traj.json"
    p.write_text(json.dumps(_v2(msgs), indent=2, allow_nan=True))
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    assert [(e.kind, e.text) for e in s.events if e.kind == "user"] == [("user", "task"),
                                                                        ("user", "```bash\nmake\n```")]
    (r,) = [e for e in s.events if e.kind == "tool_result"]
    assert r.is_error is None and isinstance(r.info, ResultInfo) and r.info.exit_code is None  # true is no code
    assert [e.ts for e in s.events] == [None] * len(s.events)  # 0, past the year 5000, true, NaN: no times
    (t,) = retrace(p, tmp_path / "out")  # NaN (which the writer's json.dumps writes) is no reason to refuse
    assert [x["input"] for x in t["steps"] if x["action"] == "user_message"] == ["task", "```bash\nmake\n```"]


def test_ls_keeps_its_columns_when_a_kind_name_is_long(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from forsy.cli import app

    _write(tmp_path, _v1(V1), "a.traj.json")
    (tmp_path / "b.json").write_text(json.dumps({"schema_version": "ATIF-v1.4", "session_id": "s", "steps": []}))
    r = CliRunner().invoke(app, ["ls", str(tmp_path)])
    assert r.exit_code == 0, r.output
    lines = [x for x in r.stdout.splitlines() if x.strip()]
    assert sorted(x.split()[0] for x in lines) == ["atif", "mini-swe-agent"]  # the agents as the queue names them
    assert len({x.index(str(tmp_path)) for x in lines}) == 1  # the path column starts at one place
