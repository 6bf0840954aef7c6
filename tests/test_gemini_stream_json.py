"""Gemini CLI's headless output (`gemini -p "…" --output-format stream-json`): read as Gemini
CLI's work; `--output-format json`'s one object refused, saying where the work is.

The events follow the writer (google-gemini/gemini-cli: packages/core/src/output/types.ts,
packages/cli/src/nonInteractiveCli.ts and nonInteractiveCliAgentSession.ts, utils/errors.ts):
`type` and `timestamp` on every event, keys in the order the CLI builds them, the model's text
as `delta: true` pieces, one `result` last."""

from __future__ import annotations

import json
from itertools import count
from pathlib import Path
from typing import Any

import pytest

import forsy
from forsy.sources import ReadContext, detect
from forsy.sources.claude_code import ClaudeCodeSource
from forsy.sources.gemini import GeminiSource

SID = "7d3c9a52-41e8-4b6f-9a0c-2e5f8b1d4c6a"
MODEL = "gemini-2.5-pro"
_clock = count()


def ts() -> str:
    n = next(_clock)
    return f"2026-04-02T10:{n // 60 % 60:02d}:{n % 60:02d}.{n % 1000:03d}Z"


def init(sid: str = SID) -> dict[str, Any]:
    return {"type": "init", "timestamp": ts(), "session_id": sid, "model": MODEL}


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "timestamp": ts(), "role": "user", "content": text}


def delta(text: str) -> dict[str, Any]:
    return {"type": "message", "timestamp": ts(), "role": "assistant", "content": text, "delta": True}


def tool_use(tid: str, name: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "timestamp": ts(), "tool_name": name, "tool_id": tid, "parameters": params}


def tool_result(tid: str, output: str | None = None, error: tuple[str, str] | None = None) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "tool_result", "timestamp": ts(), "tool_id": tid,
                          "status": "error" if error else "success"}
    if output is not None:
        ev["output"] = output
    if error is not None:
        ev["error"] = {"type": error[0], "message": error[1]}
    return ev


def error(message: str, severity: str = "error") -> dict[str, Any]:
    return {"type": "error", "timestamp": ts(), "severity": severity, "message": message}


def result(status: str = "success", err: tuple[str, str] | None = None, duration: int = 9120) -> dict[str, Any]:
    usage = {"total_tokens": 9010, "input_tokens": 8700, "output_tokens": 310, "cached": 4096, "input": 4604}
    ev: dict[str, Any] = {"type": "result", "timestamp": ts(), "status": status}
    if err is not None:
        ev["error"] = {"type": err[0], "message": err[1]}
    ev["stats"] = {**usage, "duration_ms": duration, "tool_calls": 3, "models": {MODEL: usage}}
    return ev


PROMPT = "Make the totals test pass."
# nonInteractiveCli.ts, v0.13.0 to v0.25.x: what the CLI streamed as an assistant delta when `-p` was used
DEPRECATED_P = ("The --prompt (-p) flag has been deprecated and will be removed in a future version. Please use a "
                "positional argument for your prompt. See gemini --help for more information.\n")


def run(ending: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The agent says what it will do in two deltas, runs the test and reads a file in one turn,
    tries an edit that fails, edits again (no text shown for it), then answers in two deltas."""
    return [
        init(), user(PROMPT),
        delta("I'll run the test"), delta(" and read the module."),
        tool_use("run_shell_command_1_0", "run_shell_command", {"command": "pytest -q"}),
        tool_use("read_file_1_1", "read_file", {"file_path": "totals.py"}),
        tool_result("run_shell_command_1_0", "1 failed, 2 passed in 0.03s\n"),
        tool_result("read_file_1_1", ""),
        delta("It rounds each line."),
        tool_use("replace_2_0", "replace", {"file_path": "totals.py", "old_string": "x\n\n", "new_string": "y\n\n"}),
        tool_result("replace_2_0", "Error: Failed to edit, could not find the string to replace.",
                    ("edit_no_occurrence_found", "Failed to edit, 0 occurrences found for old_string in totals.py.")),
        tool_use("replace_3_0", "replace", {"file_path": "totals.py", "old_string": "x", "new_string": "y"}),
        tool_result("replace_3_0"),
        delta("Fixed: it rounds "), delta("the sum once."),
        *ending,
    ]


def _write(path: Path, events: list[dict[str, Any]], before: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(before + "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events).encode())
    return path


def _trace(path: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    out = path.parent / "out"
    done = forsy.retrace([path], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(out, parent=True))
    [o] = done.outcomes
    assert o.status == "written", o.message
    folder = Path(str(o.where))
    assert forsy.validate(folder).ok
    check = forsy.verify(folder, [path])
    assert check.ok, check
    trace, manifest, prov = (json.loads((folder / n).read_text()) for n in ("trace.json", "manifest.json",
                                                                          "provenance.json"))
    return trace, manifest, prov


def _fields(prov: dict[str, Any], step: int) -> dict[str, Any]:
    return next(sp["fields"] for sp in prov["steps"] if sp["step"] == step)


def test_a_stream_json_run_is_read_as_gemini_clis_work(tmp_path: Path) -> None:
    log = _write(tmp_path / "out.jsonl", run([result()]))
    assert detect(log).name == "gemini"
    assert not ClaudeCodeSource().sniff(log, log.read_bytes())  # it names a session_id and ends on a result too
    trace, manifest, prov = _trace(log)
    steps = [(s["actor"], s["action"], s["tool"], s["input"], s["success"]) for s in trace["steps"]]
    assert steps == [
        ("user", "user_message", None, PROMPT, None),
        ("agent", "agent_step", "run_shell_command", '{"command":"pytest -q"}', True),
        ("agent", "agent_step", "read_file", '{"file_path":"totals.py"}', True),
        ("agent", "agent_step", "replace", '{"file_path":"totals.py","old_string":"x\\n\\n","new_string":"y\\n\\n"}',
         False),
        ("agent", "agent_step", "replace", '{"file_path":"totals.py","old_string":"x","new_string":"y"}', True),
        ("agent", "output", None, None, True),
    ]
    s = trace["steps"]
    assert trace["task"] == PROMPT
    # the deltas with no other event between them are one text, joined as streamed, each cited
    assert s[1]["reasoning"] == "I'll run the test and read the module."
    assert _fields(prov, 2)["reasoning"]["rule"] == "R-reasoning+R-text/deltas"
    assert [e["pointer"] for e in _fields(prov, 2)["reasoning"]["evidence"]] == ["/content", "/content"]
    assert s[3]["reasoning"] == "It rounds each line." and _fields(prov, 4)["reasoning"]["rule"] == "R-reasoning"
    assert trace["final_output"] == s[5]["output"] == "Fixed: it rounds the sum once."
    assert _fields(prov, 6)["output"]["rule"] == "R-answer+R-text/deltas"
    # the two calls of one turn ran together; the results are linked by tool_id
    assert s[1]["parallel_group"] == s[2]["parallel_group"] is not None and s[3]["parallel_group"] is None
    assert s[1]["output"] == "1 failed, 2 passed in 0.03s\n" and s[2]["output"] == ""
    assert s[3]["output"] == ("Error: Failed to edit, could not find the string to replace.\n"
                              "Failed to edit, 0 occurrences found for old_string in totals.py.")
    assert [e["pointer"] for e in _fields(prov, 4)["output"]["evidence"]] == ["/output", "/error/message"]
    assert s[3]["eval"] == -1 and s[3]["eval_reason"] == "The tool returned an error."
    assert s[4]["output"] is None and _fields(prov, 5)["success"]["evidence"][0]["pointer"] == "/status"
    assert s[1]["started_at"] and s[1]["ended_at"] and s[1]["started_at"] < s[1]["ended_at"]
    assert trace["termination_reason"] == "task_complete"
    cfg = trace["agent_config"]
    assert (cfg["agent"], cfg["model"]) == ("gemini-cli", MODEL)
    assert cfg["token_usage"] == {"input": 8700, "output": 310, "cached": 4096, "total": 9010}
    assert cfg["run_result"] == {"status": "success", "tool_calls": 3, "duration_ms": 9120}
    [ledger] = manifest["ledger"]
    assert ledger["records_read"] == 16
    assert ledger["totals"] == {"cited": 15, "metadata": 1, "set_aside": 0, "duplicate": 0, "unparsable": 0,
                                "unknown": 0}


@pytest.mark.parametrize(("ending", "reason", "cited", "error_step"), [
    ([result("error", ("FatalTurnLimitedError", "Reached max session turns for this session. Increase the number of "
                       "turns by specifying maxSessionTurns in settings.json."), 0)],
     "partial_then_stopped", "/error/type", None),
    ([result("error", ("_FatalTurnLimitedError", "Reached max session turns."), 0)],  # a bundler's class name
     "partial_then_stopped", "/error/type", None),
    ([result("error", ("FatalCancellationError", "Operation cancelled."), 0)], "user_abandoned", "/error/type", None),
    ([result("error", ("ApiError", "[API Error: You exceeded your current quota.]"), 0)], "error_unrecoverable",
     "/error/type", "[API Error: You exceeded your current quota.]"),
    # an invalid stream: the CLI streams the error, then a result of status error with no error object
    ([error("Model stream ended with empty response text."), result("error")], "error_unrecoverable", "/status",
     "Model stream ended with empty response text."),
], ids=["turn-limit", "turn-limit-bundled", "cancelled", "api-error", "invalid-stream"])
def test_a_failed_result_declares_how_the_run_ended(tmp_path: Path, ending: list[dict[str, Any]], reason: str,
                                                    cited: str, error_step: str | None) -> None:
    trace, manifest, prov = _trace(_write(tmp_path / "out.jsonl", run(ending)))
    assert trace["termination_reason"] == reason
    how = prov["trace_fields"]["termination_reason"]
    assert how["rule"] == "T-termination/declared" and how["evidence"][0]["pointer"] == cited
    last = trace["steps"][-1]
    if error_step is None:
        assert last["action"] == "output"  # a limit or a cancellation is no error of the work
    else:
        assert (last["action"], last["output"], last["success"]) == ("error", error_step, False)
    assert "duration_ms" not in trace["agent_config"]["run_result"]  # written as 0 when the run failed
    assert sum(manifest["ledger"][0]["totals"].values()) == manifest["ledger"][0]["records_read"]


def test_the_clis_stop_notices_end_a_run_it_then_calls_a_success(tmp_path: Path) -> None:
    events = run([error("Loop detected, stopping execution", "warning"), result()])
    trace, manifest, prov = _trace(_write(tmp_path / "out.jsonl", events))
    assert trace["termination_reason"] == "partial_then_stopped"
    how = prov["trace_fields"]["termination_reason"]
    assert how["rule"] == "T-termination/declared" and how["evidence"][0]["pointer"] == "/message"
    assert trace["steps"][-1]["action"] == "output"  # the notice is the CLI's, no step
    assert manifest["ledger"][0]["totals"]["unknown"] == 0


def test_error_events_are_error_steps_and_warnings_notes(tmp_path: Path) -> None:
    events = [init(), user(PROMPT), delta("Looking."),
              error("Agent execution blocked: the BeforeTool hook refused it", "warning"),
              error("[API Error: Resource has been exhausted (e.g. check quota).]"),
              tool_use("glob_1_0", "glob", {"pattern": "*.py"}), tool_result("glob_1_0", "Found 2 matching file(s)"),
              delta("Two files."), result()]
    trace, manifest, _ = _trace(_write(tmp_path / "out.jsonl", events))
    assert [(s["action"], s["tool"]) for s in trace["steps"]] == [
        ("user_message", None), ("output", None), ("error", None), ("agent_step", "glob"), ("output", None)]
    err = trace["steps"][2]
    assert err["output"] == "[API Error: Resource has been exhausted (e.g. check quota).]" and err["success"] is False
    assert trace["termination_reason"] == "task_complete"
    set_aside = {(e["record_type"], e["rule"]) for e in manifest["ledger"][0]["entries"] if e["heading"] == "set_aside"}
    assert set_aside == {("error/error", "a warning the CLI streamed (a hook's block, a retried error), a note")}


def test_the_deprecated_p_notice_is_the_clis_not_the_models(tmp_path: Path) -> None:
    """v0.13 to v0.25 sent it as an assistant delta right before the model's first words."""
    events = [init(), user(PROMPT), delta(DEPRECATED_P), delta("Done "), delta("already."), result()]
    trace, manifest, _ = _trace(_write(tmp_path / "out.jsonl", events))
    assert trace["final_output"] == "Done already."
    set_aside = {e["rule"] for e in manifest["ledger"][0]["entries"] if e["heading"] == "set_aside"}
    assert set_aside == {"the CLI's notice that -p is deprecated, sent in the model's place"}


def test_a_shell_command_shown_as_exited_with_a_code_failed(tmp_path: Path) -> None:
    """The stream carries the shell tool's display: a command that printed nothing and failed
    shows 'Command exited with code: N' under a status of success."""
    events = [init(), user(PROMPT), tool_use("s_1_0", "run_shell_command", {"command": "test -f setup.cfg"}),
              tool_result("s_1_0", "Command exited with code: 1"), delta("No setup.cfg."), result()]
    trace, _, prov = _trace(_write(tmp_path / "out.jsonl", events))
    call = trace["steps"][1]
    assert (call["tool"], call["success"], call["eval"]) == ("run_shell_command", False, -1)
    assert _fields(prov, 2)["success"]["rule"] == "R-call/gemini-exit-code"


def test_a_run_cut_off_without_its_result(tmp_path: Path) -> None:
    events = run([])[:-3]  # cut after the last edit was asked for, before its result
    log = _write(tmp_path / "out.jsonl", events)
    [s] = GeminiSource().read(log, ReadContext(root=tmp_path))
    assert {w.code for w in s.warnings} >= {"no-run-result", "no-result"} and s.quality.missing_results == 1
    trace, manifest, _ = _trace(log)
    assert trace["steps"][-1]["tool"] == "replace" and trace["steps"][-1]["output"] is None
    assert trace["termination_reason"] == "partial_then_stopped"
    assert manifest["ledger"][0]["totals"]["unknown"] == 0


def test_damaged_lines_are_named_and_the_rest_read(tmp_path: Path) -> None:
    events = run([result()])
    lines = [json.dumps(e, separators=(",", ":")) for e in events]
    lines[3:3] = ["}{ not an event", "[1, 2]"]  # garbage, JSON that is no object
    wrong = dict(events[2], content=["I'll"])  # a delta whose content is no text
    lines[2] = json.dumps(wrong, separators=(",", ":"))
    lines.insert(6, lines[6])  # a call written twice
    text = ("Loaded cached credentials.\n" + "\n".join(lines))[:-40]  # stderr mixed in; the last line cut
    log = tmp_path / "out.jsonl"
    log.write_text(text)
    assert detect(log).name == "gemini"
    trace, manifest, _ = _trace(log)
    warned = {(w["code"], w["line"]) for w in manifest["warnings"]}
    assert {("field-type", 4), ("no-run-result", None)} <= warned
    assert any(line == 1 for _, line in warned) and any(line == 5 for _, line in warned)
    assert any(line == len(lines) + 1 for _, line in warned)  # the cut line
    assert trace["steps"][1]["reasoning"] == " and read the module."  # the damaged piece is not in it
    [ledger] = manifest["ledger"]
    assert sum(ledger["totals"].values()) == ledger["records_read"]
    assert ledger["totals"]["duplicate"] == 1 and ledger["totals"]["unparsable"] >= 3


def test_runs_appended_to_one_file_are_a_session_each(tmp_path: Path) -> None:
    other = "0e4b1f6d-9c2a-4d7e-8b3f-5a6c7d8e9f01"
    log = _write(tmp_path / "runs.jsonl", [init(), user("First."), delta("One."), result(),
                                           init(other), user("Second."), delta("Two."), result()])
    sessions = GeminiSource().read(log, ReadContext(root=tmp_path))
    assert [(s.session_id, [e.text for e in s.events]) for s in sessions] == [
        (SID, ["First.", "One."]), (other, ["Second.", "Two."])]


def test_a_resumed_run_appended_is_the_same_session_and_its_last_result_says_how_it_ended(tmp_path: Path) -> None:
    """`gemini --resume` runs the session again in a new process: the same session_id, counts from 0."""
    log = _write(tmp_path / "runs.jsonl", [
        init(), user("First."), delta("One."), error("Loop detected, stopping execution", "warning"), result(),
        init(), user("Go on."), delta("Two."), result()])
    [s] = GeminiSource().read(log, ReadContext(root=tmp_path))
    assert [e.text for e in s.events if e.kind == "user"] == ["First.", "Go on."]
    assert s.meta.token_usage["total"] == 2 * 9010 and s.meta.ending is None  # the second run was not stopped


def test_the_json_output_is_refused_saying_where_the_work_is(tmp_path: Path) -> None:
    doc = {"session_id": SID, "response": "Fixed: it rounds the sum once.",
           "stats": {"models": {MODEL: {"api": {"totalRequests": 4}, "tokens": {"prompt": 8700}}},
                     "tools": {"totalCalls": 3, "totalSuccess": 2, "totalFail": 1}, "files": {}}}
    log = tmp_path / "result.json"
    log.write_text(json.dumps(doc, indent=2))
    assert detect(log).name == "gemini"
    with pytest.raises(forsy.UnsupportedFormat) as refused:
        forsy.retrace([log], forsy.RetraceOptions(redact=False))
    assert "--output-format json" in refused.value.message and f"session-*-{SID[:8]}.jsonl" in refused.value.message
    # in a folder, beside a run it reads, it is refused in so many words, never passed over
    _write(tmp_path / "out.jsonl", [init(), user("Hi."), delta("Hello."), result()])
    outcomes = forsy.retrace([tmp_path], forsy.RetraceOptions(redact=False)).outcomes
    assert sorted((Path(o.path).name, o.status) for o in outcomes) == [("out.jsonl", "traced"),
                                                                       ("result.json", "failed")]


def test_a_chat_of_lines_and_a_stream_side_by_side_are_each_read_as_what_they_are(tmp_path: Path) -> None:
    """A chat names `sessionId` and its records have an `id`; the stream's events have neither."""
    chat = tmp_path / "session-2026-04-02T10-00-7d3c9a52.jsonl"
    chat.write_text(json.dumps({"sessionId": SID, "projectHash": "ab" * 32, "startTime": "2026-04-02T10:00:00.000Z"})
                    + "\n" + json.dumps({"id": "m1", "timestamp": "2026-04-02T10:00:01.000Z", "type": "user",
                                         "content": [{"text": "Hi."}]}) + "\n")
    stream = _write(tmp_path / "out.jsonl", [init(), user("Hi."), delta("Hello."), result()])
    src = GeminiSource()
    assert src.discover(tmp_path) == [stream, chat]
    [c] = src.read(chat, ReadContext(root=tmp_path))
    assert [(e.kind, e.text) for e in c.events] == [("user", "Hi.")]
    assert not any(w.code == "no-run-result" for w in c.warnings)
    [r] = src.read(stream, ReadContext(root=tmp_path))
    assert [(e.kind, e.text) for e in r.events] == [("user", "Hi."), ("agent_text", "Hello.")]
