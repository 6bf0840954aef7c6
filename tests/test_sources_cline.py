"""Cline task folders: every prompt, call and result in the trace, in order.

The oracle reads the raw files with the standard library (not forsy's reader): the task as
the UI recorded it, each tool_use of the API history (name, exact input) and the text block
of the next user message that reports its result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _oracle import from_trace, retrace
from _paths import REAL_LOGS, needs_shared
from forsy.sources import ReadContext, detect
from forsy.sources.cline import ClineSource

BASE = REAL_LOGS / "cline"
REAL = sorted(p for p in BASE.rglob("*") if p.is_file()) if BASE.is_dir() else []


def oracle(folder: Path) -> list[tuple[Any, ...]]:
    api = json.loads((folder / "api_conversation_history.json").read_text("utf-8"))
    ui = json.loads((folder / "ui_messages.json").read_text("utf-8"))
    out: list[tuple[Any, ...]] = [("user", ui[0]["text"])]
    for j, m in enumerate(api):
        if m["role"] != "assistant":
            continue
        uses = [b for b in m["content"] if b["type"] == "tool_use"]
        answers = [b["text"] for b in (api[j + 1]["content"] if j + 1 < len(api) else [])
                   if b["type"] == "text" and b["text"].startswith("[") and not b["text"].startswith("[TASK")]
        for k, b in enumerate(uses):
            answer = answers[k] if k < len(answers) else None
            assert answer is None or answer.startswith(f"[{b['name']}")
            out.append(("call", b["name"], b["input"], answer))
    return out


@needs_shared
@pytest.mark.real_logs
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_cline_task_against_the_oracle(path: Path, tmp_path: Path) -> None:
    # any file of the task folder stands for the task
    assert isinstance(detect(path), ClineSource)
    [trace] = retrace(path, tmp_path / "out")
    assert from_trace(trace) == oracle(path.parent)


@needs_shared
@pytest.mark.real_logs
def test_real_task_times_models_and_tokens() -> None:
    folder = BASE / "gmfstu__Online-Card-Architecture/exported_conversation_1769053680585"
    [s] = ClineSource().read(folder / "api_conversation_history.json", ReadContext(root=folder))
    api = json.loads((folder / "api_conversation_history.json").read_text("utf-8"))
    assert s.meta.models == ["claude-sonnet-4-5-20250929"]
    assert s.meta.token_usage["completion"] == sum(m["metrics"]["tokens"]["completion"] for m in api if "metrics" in m)
    calls = [e for e in s.events if e.kind == "tool_call"]
    assert all(e.ts for e in calls)  # every assistant message has its UI record
    assert [e.ts for e in calls] == sorted(e.ts or "" for e in calls)
    assert s.events[0].kind == "user" and s.events[0].ts == "2026-01-22T03:48:00.628Z"
    assert s.quality.missing_results == 0 and s.quality.extra["completion_unanswered"] == 1
    assert ClineSource().discover(BASE) == [folder / "api_conversation_history.json"]


def test_denied_call_and_feedback(tmp_path: Path) -> None:
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nfix it\n</task>"},
                                     {"type": "text", "text": "<environment_details>\nx\n</environment_details>"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "execute_command",
                                           "input": {"command": "rm -rf /"}}]},
        {"role": "user", "content": [
            {"type": "text", "text": "[execute_command for 'rm -rf /'] Result:\nThe user denied this operation."},
            {"type": "text", "text": "The user provided the following feedback:\n<feedback>\nnot that\n</feedback>"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "read_file",
                                           "input": {"path": "a"}}]},
    ]
    ui = [{"ts": 1769053680628, "type": "say", "say": "text", "text": "fix it"},
          {"ts": 1769053681000, "type": "ask", "ask": "command", "text": "rm -rf /", "conversationHistoryIndex": 0},
          {"ts": 1769053682000, "type": "say", "say": "user_feedback", "text": "not that",
           "conversationHistoryIndex": 1}]
    (tmp_path / "api_conversation_history.json").write_text(json.dumps(api))
    (tmp_path / "ui_messages.json").write_text(json.dumps(ui))
    [s] = ClineSource().read(tmp_path / "api_conversation_history.json", ReadContext(root=tmp_path))
    assert [(e.kind, e.text) for e in s.events if e.kind == "user"] == [("user", "fix it"), ("user", "not that")]
    [res] = [e for e in s.events if e.kind == "tool_result"]
    assert res.is_error is True and s.quality.extra["rejected_calls"] == 1
    # the denial is the user's feedback on the step: rejected, eval -1 with the rule's reason
    from forsy.rules.segment import Segmenter

    [denied] = [d for d in Segmenter(s).run() if d.values.get("tool") == "execute_command"]
    assert (denied.values["success"], denied.values["eval"], denied.values["eval_reason"]) == (
        False, -1, "The user rejected this tool call.")
    assert denied.prov["eval_reason"].rule == "R-error/rejected"
    assert s.quality.extra["asks_command"] == 1 and s.quality.extra["injected_context"] == 1
    assert s.quality.missing_results == 1  # read_file never answered
    assert s.events[0].ts == "2026-01-22T03:48:00.628Z"


# ---------------------------------------------------------------- the ledger adds up
def _ledger(out: Path) -> list[dict[str, Any]]:
    [m] = [json.loads(p.read_text("utf-8")) for p in out.rglob("manifest.json")]
    files: list[dict[str, Any]] = m["ledger"]
    return files


def _headings(files: list[dict[str, Any]]) -> dict[tuple[str, str], set[str]]:
    """(file name, record type) -> the headings its records are under."""
    out: dict[tuple[str, str], set[str]] = {}
    for f in files:
        for e in f["entries"]:
            out.setdefault((Path(f["path"]).name, e["record_type"]), set()).add(e["heading"])
    return out


@needs_shared
@pytest.mark.real_logs
def test_real_task_ledger_accounts_for_every_record(tmp_path: Path) -> None:
    folder = BASE / "gmfstu__Online-Card-Architecture/exported_conversation_1769053680585"
    retrace(folder / "api_conversation_history.json", tmp_path / "out")
    files = _ledger(tmp_path / "out")
    for f in files:
        assert f["totals"]["unknown"] == 0 and sum(f["totals"].values()) == f["records_read"], f
    # the oracle: an element of each array, and a top-level key of the task's metadata
    raw = {name: json.loads((folder / name).read_text("utf-8"))
           for name in ("api_conversation_history.json", "ui_messages.json", "task_metadata.json")}
    assert {Path(f["path"]).name: f["records_read"] for f in files} == {k: len(v) for k, v in raw.items()}


def _write_task(folder: Path, *, metrics: bool) -> None:
    info = {"modelId": "m1", "providerId": "anthropic", "mode": "act"}
    extra: dict[str, Any] = {"metrics": {"tokens": {"prompt": 3, "completion": 4, "cached": 5}}} if metrics else {}
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nfix it\n</task>"},
                                     {"type": "text", "text": "<environment_details>\nx\n</environment_details>"}]},
        {"role": "assistant", "modelInfo": info, **extra, "content": [
            {"type": "thinking", "thinking": "look first", "signature": "s"},
            {"type": "text", "text": "I will read a"},
            {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a", "task_progress": "- [ ] a"}}]},
        {"role": "user", "content": [{"type": "text", "text": "[read_file for 'a'] Result:\nA"}]},
        {"role": "assistant", "modelInfo": info, "content": [
            {"type": "text", "text": "Now list"},
            {"type": "tool_use", "id": "t2", "name": "execute_command", "input": {"command": "ls"}}]},
        {"role": "user", "content": [
            {"type": "text", "text": "[execute_command for 'ls'] Result:\nCommand executed.\nOutput:\nx.txt"}]},
        {"role": "assistant", "modelInfo": info, "content": [
            {"type": "text", "text": "All set"},
            {"type": "tool_use", "id": "t3", "name": "attempt_completion", "input": {"result": "done, all of it"}}]},
    ]
    usage = {"tokensIn": 10, "tokensOut": 5, "cacheWrites": 1, "cacheReads": 2, "cost": 0.5}
    t = 1769053680000
    ui = [
        {"ts": t, "type": "say", "say": "text", "text": "fix it", "conversationHistoryIndex": -1},
        {"ts": t + 1, "type": "say", "say": "checkpoint_created", "conversationHistoryIndex": -1,
         "lastCheckpointHash": "abc"},
        {"ts": t + 2, "type": "say", "say": "api_req_started", "conversationHistoryIndex": -1,
         "text": json.dumps({"request": "<task>\nfix it\n</task>", **usage})},
        {"ts": t + 3, "type": "say", "say": "reasoning", "text": "look first", "conversationHistoryIndex": 0},
        {"ts": t + 4, "type": "say", "say": "text", "text": "I will", "partial": True, "conversationHistoryIndex": 0},
        {"ts": t + 5, "type": "say", "say": "tool", "text": '{"tool":"readFile","path":"a"}',
         "conversationHistoryIndex": 0},
        {"ts": t + 6, "type": "say", "say": "task_progress", "text": "- [ ] a", "conversationHistoryIndex": 1},
        {"ts": t + 7, "type": "say", "say": "api_req_started", "conversationHistoryIndex": 1,
         "text": json.dumps({"request": "[read_file for 'a'] Result:\nA", **usage})},
        {"ts": t + 8, "type": "say", "say": "text", "text": "Now list", "conversationHistoryIndex": 2},
        {"ts": t + 9, "type": "ask", "ask": "command", "text": "ls", "conversationHistoryIndex": 2},
        {"ts": t + 10, "type": "ask", "ask": "command_output", "text": "\nx.txt", "conversationHistoryIndex": 3},
        {"ts": t + 11, "type": "say", "say": "error", "text": "Cline had a hiccup", "conversationHistoryIndex": 3},
        {"ts": t + 12, "type": "say", "say": "text", "text": "All set", "conversationHistoryIndex": 4},
        {"ts": t + 13, "type": "say", "say": "completion_result", "text": "done, all of itHAS_CHANGES",
         "conversationHistoryIndex": 4},
        {"ts": t + 14, "type": "ask", "ask": "completion_result", "text": "", "conversationHistoryIndex": 4},
        {"ts": t + 15, "type": "ask", "ask": "resume_completed_task", "conversationHistoryIndex": 4},
    ]
    meta = {"files_in_context": [{"path": "a", "record_state": "active", "record_source": "read_tool"}],
            "model_usage": [{"ts": t, "model_id": "m1", "model_provider_id": "anthropic", "mode": "act"}],
            "environment_history": [{"ts": t, "os_name": "linux", "cline_version": "3.51.0"}]}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "api_conversation_history.json").write_text(json.dumps(api, indent=1))
    (folder / "ui_messages.json").write_text(json.dumps(ui, indent=1))
    (folder / "task_metadata.json").write_text(json.dumps(meta, indent=2))


def test_every_ui_record_kind_has_its_heading(tmp_path: Path) -> None:
    _write_task(tmp_path / "task", metrics=True)
    retrace(tmp_path / "task" / "api_conversation_history.json", tmp_path / "out")
    files = _ledger(tmp_path / "out")
    for f in files:
        assert f["totals"]["unknown"] == 0 and sum(f["totals"].values()) == f["records_read"], f
    got = _headings(files)
    ui = "ui_messages.json"
    assert got[(ui, "say/text")] == {"cited", "duplicate"}  # the task as typed, and the times of api[3] and
    # api[5] ("Now list", "All set": their steps' started_at cite them); the streamed fragment "I will" of api[1]'s text
    assert got[(ui, "say/checkpoint_created")] == {"set_aside"}
    assert got[(ui, "say/api_req_started")] == {"metadata"}  # token and cost counts
    assert got[(ui, "say/reasoning")] == {"cited"}  # its time is the time of the steps of api[1], cited by them
    assert got[(ui, "say/tool")] == {"duplicate"}
    assert got[(ui, "say/task_progress")] == {"set_aside"}
    assert got[(ui, "ask/command")] == {"metadata"}  # an approval asked, counted
    assert got[(ui, "ask/command_output")] == {"duplicate"}
    assert got[(ui, "say/error")] == {"set_aside"}
    assert got[(ui, "say/completion_result")] == {"duplicate"}
    assert got[(ui, "ask/completion_result")] == {"set_aside"}
    assert got[(ui, "ask/resume_completed_task")] == {"set_aside"}
    meta = "task_metadata.json"
    assert got[(meta, "files_in_context")] == {"set_aside"}
    assert got[(meta, "model_usage")] == {"duplicate"}
    assert got[(meta, "environment_history")] == {"metadata"}  # read for the Cline version
    trace = json.loads(next((tmp_path / "out").rglob("trace.json")).read_text("utf-8"))
    assert trace["agent_config"]["agent_version"] == "3.51.0"


def test_token_usage_from_the_ui_when_the_api_history_has_no_metrics(tmp_path: Path) -> None:
    _write_task(tmp_path, metrics=False)
    [s] = ClineSource().read(tmp_path / "api_conversation_history.json", ReadContext(root=tmp_path))
    # the two api_req_started records: Cline's own names, summed (the cost is not a token count)
    assert s.meta.token_usage == {"tokensIn": 20, "tokensOut": 10, "cacheWrites": 2, "cacheReads": 4}
    _write_task(tmp_path / "m", metrics=True)
    [s] = ClineSource().read(tmp_path / "m" / "api_conversation_history.json", ReadContext(root=tmp_path / "m"))
    assert s.meta.token_usage == {"prompt": 3, "completion": 4, "cached": 5}  # the API's counts, as before


def test_a_steps_time_cites_the_ui_record_it_was_read_from(tmp_path: Path) -> None:
    """An assistant message's steps take their time from the first UI record that names the
    message (Cline's API history holds no time); the provenance cited the API message, which
    holds no time at all."""
    _write_task(tmp_path / "task", metrics=True)
    retrace(tmp_path / "task" / "api_conversation_history.json", tmp_path / "out")
    folder = next((tmp_path / "out").rglob("trace.json")).parent
    trace = json.loads((folder / "trace.json").read_text("utf-8"))
    prov = json.loads((folder / "provenance.json").read_text("utf-8"))
    [read_step] = [s["step"] for s in trace["steps"] if s.get("tool") == "read_file"]
    assert trace["steps"][read_step - 1]["started_at"] == "2026-01-22T03:48:00.003Z"  # t + 3 ms
    f = next(sp for sp in prov["steps"] if sp["step"] == read_step)["fields"]["started_at"]
    [cite] = f["evidence"]
    assert (f["rule"], cite["pointer"]) == ("R-time", "/ts")
    ev = prov["evidence"][cite["id"]]
    raw = (tmp_path / "task" / ev["source"]).read_bytes()[ev["byte_offset"]:ev["byte_offset"] + ev["byte_length"]]
    record = json.loads(raw)  # the UI record at t + 3: the first that names API message 1
    assert (ev["source"], record["ts"], record["say"], record["conversationHistoryIndex"]) == \
        ("ui_messages.json", 1769053680003, "reasoning", 0)


# ---------------------------------------------------------------- whose words a user message holds
FIXTURES = Path(__file__).parent / "fixtures" / "cline"


def test_text_cline_writes_is_never_the_users(tmp_path: Path) -> None:
    """Cline's notices, wrappers, attachments and a command's output spread as plain blocks
    (native tool calls with no id to answer) are Cline's; only the words inside a wrapper
    are the person's."""
    folder = FIXTURES / "harness-text"
    [s] = ClineSource().read(folder / "api_conversation_history.json", ReadContext(root=folder))
    users = [e for e in s.events if e.actor == "user"]
    assert [e.text for e in users] == ["make the tests pass", "they still fail, look at test_x", "fix test_x only"]
    notes = {e.info.subtype: e.actor for e in s.events if e.kind == "note" and e.info is not None}
    assert notes == {"no_tool_used": "system", "completion_feedback_wrapper": "system",
                     "files_attached": "system", "no_new_message": "system"}
    # the command attempt_completion ran is its result, failed as its status line says
    [res] = [e for e in s.events if e.kind == "tool_result" and e.tool == "attempt_completion"]
    assert res.is_error is True and res.text is not None and res.text.startswith("Command failed with exit code 1.")
    assert s.quality.missing_results == 0
    # the resumption message's words are cited as the slice between its tags
    [resumed] = [e for e in users if e.text == "fix test_x only"]
    assert resumed.info is not None and resumed.info.span is not None
    [trace] = retrace(folder / "api_conversation_history.json", tmp_path / "out")
    prompts = [st["output"] or st.get("input") for st in trace["steps"] if st["actor"] == "user"]
    assert not any("[ERROR]" in str(p) or "Files attached" in str(p) or "Command failed" in str(p) for p in prompts)


def test_a_task_with_only_its_ui_messages_is_read(tmp_path: Path) -> None:
    """No api_conversation_history.json: the task, the person's feedback, the tool views and
    the command with its output come from the UI messages."""
    folder = FIXTURES / "ui-only"
    ui = folder / "ui_messages.json"
    assert isinstance(detect(ui), ClineSource) and ClineSource().discover(folder) == [ui]
    [trace] = retrace(ui, tmp_path / "out")
    steps = trace["steps"]
    assert [st["input"] for st in steps if st["actor"] == "user"] == [
        "add a health check endpoint", "use /healthz, not /health"]
    calls = [(st["tool"], st["input"]) for st in steps if st.get("tool")]
    assert [t for t, _ in calls] == ["readFile", "editedExistingFile", "execute_command", "attempt_completion"]
    assert calls[-1][1] == "Added /healthz."
    [cmd] = [st for st in steps if st.get("tool") == "execute_command"]
    assert "pytest -q" in str(cmd["input"]) and "REQ_APP" not in str(cmd["input"]) and "1 passed" in cmd["output"]
    ledger = _ledger(tmp_path / "out")
    assert not [r for f in ledger for r in f.get("unknown", [])]


def test_failures_cline_writes_in_a_result_fail_the_call(tmp_path: Path) -> None:
    """A command that exited non-zero, a tool error, a missing parameter: Cline says so in
    the result's words (no error flag), and the call fails by Cline's named rule."""
    calls = [("t1", "execute_command", {"command": "make"}),
             ("t2", "read_file", {"path": "x"}),
             ("t3", "execute_command", {"command": "ls"}),
             ("t4", "write_to_file", {})]
    answers = ["[execute_command for 'make'] Result:\nCommand failed with exit code 2.\nOutput:\nmake: Error 2",
               "The tool execution failed with the following error:\n<error>\nENOENT: x\n</error>",
               "[execute_command for 'ls'] Result:\nCommand executed successfully (exit code 0).\nOutput:\na.txt",
               "[write_to_file] Result:\nMissing value for required parameter 'path'. Please retry."]
    api: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "<task>\nbuild\n</task>"}]}]
    for (cid, name, args), answer in zip(calls, answers, strict=True):
        api.append({"role": "assistant", "content": [{"type": "tool_use", "id": cid, "name": name, "input": args}]})
        block: dict[str, Any] = ({"type": "tool_result", "tool_use_id": cid, "content": answer} if cid == "t2"
                                 else {"type": "text", "text": answer})
        api.append({"role": "user", "content": [block]})
    (tmp_path / "api_conversation_history.json").write_text(json.dumps(api))
    [trace] = retrace(tmp_path / "api_conversation_history.json", tmp_path / "out")
    assert [(st["tool"], st["success"]) for st in trace["steps"] if st.get("tool")] == [
        ("execute_command", False), ("read_file", False), ("execute_command", True), ("write_to_file", False)]
    prov = json.loads(next((tmp_path / "out").rglob("provenance.json")).read_text("utf-8"))
    rules = {p["fields"]["success"]["rule"] for p in prov["steps"] if "success" in p["fields"]}
    assert "R-call/cline-failure-text" in rules


def test_feedback_inside_native_results_is_the_users_and_in_its_place(tmp_path: Path) -> None:
    """With native tool calls the person's feedback rides inside a tool_result: their words are
    a user message right after that result (not left to the end, not part of the output),
    Cline's wrapper and attachment are its notes, and a file that holds the tag is no one's."""
    folder = FIXTURES / "native-feedback"
    [s] = ClineSource().read(folder / "api_conversation_history.json", ReadContext(root=folder))
    kinds = [(e.kind, e.actor, e.text) for e in s.events if e.kind in ("user", "tool_result")]
    assert [(k, a) for k, a, _ in kinds] == [("user", "user"), ("tool_result", "agent"), ("user", "user"),
                                             ("tool_result", "agent"), ("user", "user"), ("tool_result", "agent")]
    users = [t for k, _, t in kinds if k == "user"]
    assert users == ["speed up the build", "use -j4, this laptop overheats", "also cache the objects"]
    assert not [w for w in s.warnings if w.code == "feedback-unplaced"]
    [done] = [e for e in s.events if e.kind == "tool_result" and e.tool == "attempt_completion"]
    assert done.text is None
    retrace(folder / "api_conversation_history.json", tmp_path / "out")  # validated and verified
