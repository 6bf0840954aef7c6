"""Gemini CLI's 2026 writer, read from its code (google-gemini/gemini-cli packages/core/src):

* a subagent's call is recorded with status "success" whenever the tool returned: a run that
  threw is the text `Subagent '<name>' failed. Error: …` with no error (agents/local-invocation.ts
  leaves it out on purpose), a run stopped early says `Termination Reason: <mode>`, <mode> not
  GOAL. Before, both were successful steps; now they fail by R-call/gemini-subagent-failed,
  citing the output;
* an output cut for the model by context/toolDistillationService.ts or context/truncation.ts ends
  `\\n\\nFull output saved to: <file>`; before, only fileUtils.ts's "For full output see:" was
  known, and such an output was neither counted as truncated nor read whole.

Hand-made chats in the writer's shape; expectations by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import forsy
from _gemini_view import read, write_lines
from forsy.payloads import ResultInfo

SID = "5ab00000-1111-4222-8333-444444444444"
T = "2026-08-20T10:00:0{}.000Z".format
HEAD = {"sessionId": SID, "projectHash": "h", "startTime": T(0), "lastUpdated": T(0)}
THREW = "Subagent 'codebase_investigator' failed. Error: Model stream ended with empty response text."
ENDED = ("Subagent '{}' finished.\nTermination Reason: {}\nResult:\nAgent execution was terminated before "
         "completion.").format


def _call(cid: str, name: str, args: dict[str, Any], output: str, status: str = "success") -> dict[str, Any]:
    return {"id": cid, "name": name, "args": args, "status": status, "timestamp": T(3),
            "result": [{"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}]}


def _chat(path: Path, calls: list[dict[str, Any]]) -> Path:
    return write_lines(path, [HEAD, {"id": "u", "timestamp": T(1), "type": "user", "content": "investigate"},
                              {"id": "g", "timestamp": T(2), "type": "gemini", "content": "", "toolCalls": calls}])


def _outcomes(path: Path) -> list[tuple[bool | None, str | None]]:
    s = read(path)
    return [(e.is_error, e.info.failure_rule if isinstance(e.info, ResultInfo) else None)
            for e in s.events if e.kind == "tool_result"]


def test_a_subagent_that_failed_or_stopped_early_is_a_failed_call(tmp_path: Path) -> None:
    rule = "R-call/gemini-subagent-failed"
    calls = [
        _call("a", "codebase_investigator", {"objective": "find the bug"}, THREW),  # the run threw
        _call("b", "invoke_agent", {"agent_name": "generalist", "prompt": "x"}, ENDED("generalist", "MAX_TURNS")),
        _call("c", "codebase_investigator", {}, ENDED("codebase_investigator", "ERROR_NO_COMPLETE_TASK_CALL")),
        _call("d", "browser_agent", {"task": "x"}, ENDED("x", "TIMEOUT").replace("Subagent 'x'", "Browser agent")),
        _call("e", "codebase_investigator", {}, ENDED("codebase_investigator", "GOAL")),  # its task done
        # the words name another agent than the one the call ran: another tool's output quoting them
        _call("f", "read_file", {"file_path": "notes.txt"}, THREW),
        _call("g", "invoke_agent", {"agent_name": "generalist"}, ENDED("other", "TIMEOUT")),
        # failed by its status already: the status's rule stands
        _call("h", "codebase_investigator", {}, THREW, status="error"),
    ]
    assert _outcomes(_chat(tmp_path / "chats" / "session-a.jsonl", calls)) == [
        (True, rule), (True, rule), (True, rule), (True, rule), (False, None), (False, None), (False, None),
        (True, None)]


def test_a_failed_subagents_step_cites_its_output(tmp_path: Path) -> None:
    chat = _chat(tmp_path / "chats" / "session-b.jsonl", [
        _call("a", "codebase_investigator", {"objective": "find the bug"}, THREW),
        _call("b", "codebase_investigator", {"objective": "again"}, ENDED("codebase_investigator", "MAX_TURNS"))])
    sink = forsy.FolderSink(tmp_path / "out", parent=True)
    [o] = forsy.retrace([chat], forsy.RetraceOptions(redact=False), sink=sink).outcomes
    folder = Path(str(o.where))
    assert forsy.validate(folder).ok and forsy.verify(folder, [chat]).ok
    trace, prov = (json.loads((folder / n).read_text()) for n in ("trace.json", "provenance.json"))
    steps = [s for s in trace["steps"] if s.get("tool") == "codebase_investigator"]
    assert [(s["success"], s["eval"], s["output"]) for s in steps] == [
        (False, -1, THREW), (False, -1, ENDED("codebase_investigator", "MAX_TURNS"))]
    for s in steps:
        success = next(p["fields"]["success"] for p in prov["steps"] if p["step"] == s["step"])
        assert success["rule"] == "R-call/gemini-subagent-failed"
        assert [e["pointer"] for e in success["evidence"]] == ["/toolCalls/{}/result/0/functionResponse/response/"
                                                               "output".format(s["step"] - 2)]


FULL = "".join(f"line {i}\n" for i in range(5000))


def test_an_output_distilled_for_the_model_is_read_whole_from_beside_the_chats(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    saved = project / "tool-outputs" / f"session-{SID}" / "run_shell_command_c1.txt"
    saved.parent.mkdir(parents=True)
    saved.write_text(FULL, "utf-8")
    written = f"/home/u/.gemini/tmp/proj/tool-outputs/session-{SID}/run_shell_command_c1.txt"  # where it ran
    # truncateContentStructurally: the cut text, the file, then the model's summary of what was cut
    cut = ("[Message Normalized: Tool output exceeded size limit]\nline 0\n...\nline 4999\n\nFull output saved to: "
           f"{written}\n\n--- Strategic Significance of Truncated Content ---\nNothing failed.")
    s = read(_chat(project / "chats" / "session-c.jsonl", [_call("c1", "run_shell_command", {"command": "cat x"},
                                                                 cut)]))
    [result] = [e for e in s.events if e.kind == "tool_result"]
    assert isinstance(result.info, ResultInfo) and result.info.persisted is not None
    assert result.info.persisted_path == written and result.info.persisted.text == FULL
    assert result.info.persisted.folder == f"tool-outputs/session-{SID}"
    assert s.quality.truncated_outputs == 0 and s.ledger[result.info.persisted.ref.ev].heading == "metadata"
    saved.unlink()  # not beside the chats: a truncated output, its file named
    s = read(project / "chats" / "session-c.jsonl")
    [result] = [e for e in s.events if e.kind == "tool_result"]
    assert isinstance(result.info, ResultInfo) and result.info.persisted is None
    assert result.info.persisted_missing and result.info.persisted_path == written
    assert s.quality.truncated_outputs == 1
