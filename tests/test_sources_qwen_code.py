"""Qwen Code sessions: hand-made records in the shapes QwenLM/qwen-code's recorder writes
(packages/core/src/services/chatRecordingService.ts at 015346f, its first JSONL form at
1ef5167; subagents by agents/agent-transcript.ts at 015f283), read into steps whose results
are linked to their calls, a rewind's branch flagged, subagents placed under their call; the
folder validates, `forsy verify` finds every copied value, and the ledger accounts for every
record. Claude Code's files stay Claude Code's, and Qwen Code's are no longer taken for them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _paths import REAL_LOGS, SAMPLES
from forsy.evidence import resolve_pointer
from forsy.models import Manifest
from forsy.run import RetraceOptions, retrace
from forsy.sources import ReadContext, detect
from forsy.sources.claude_code import ClaudeCodeSource
from forsy.sources.qwen_code import QwenCodeSource
from forsy.validation import validate_path
from forsy.verification import verify_folder

SRC = QwenCodeSource()
SID = "6f1c2a9e-0b7d-4c55-9d0e-2f3a4b5c6d7e"
CWD = "/home/dev/projects/tally"


class Log:
    """A recorder: each record's base fields as `createBaseRecord` writes them, parents chained."""

    def __init__(self, sid: str = SID, *, provenance: bool = True, **base: Any) -> None:
        self.sid, self.tail, self.n, self.provenance = sid, None, 0, provenance
        self.lines: list[str] = []
        self.base_extra = base
        self.turns: list[str | None] = []

    def rec(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.n += 1
        parent = fields.pop("parent", self.tail)
        r = {"uuid": f"{self.sid[:8]}-{self.n:04d}", "parentUuid": parent, "sessionId": self.sid,
             "timestamp": f"2026-05-04T09:{self.n // 60:02d}:{self.n % 60:02d}.000Z", "type": kind}
        if self.provenance:  # the subagent's writer (agent-transcript.ts baseFields) writes none
            r["provenance"] = {"user": "real_user", "assistant": "assistant_output",
                               "tool_result": "tool_result"}.get(kind, "system")
        r.update({"cwd": CWD, "version": "0.15.2", "gitBranch": "main", **self.base_extra, **fields})
        self.lines.append(json.dumps(r, separators=(",", ":")))
        self.tail = r["uuid"]
        return r

    def user(self, *texts: str, shown: str | None = None, **fields: Any) -> dict[str, Any]:
        self.turns.append(self.tail)
        extra = {"systemPayload": {"displayText": shown, "hookContext": ""}} if shown is not None else {}
        return self.rec("user", message={"role": "user", "parts": [{"text": t} for t in texts]}, **extra, **fields)

    def model(self, *parts: dict[str, Any], **fields: Any) -> dict[str, Any]:
        return self.rec("assistant", model="qwen3-coder-plus", message={"role": "model", "parts": list(parts)},
                        **fields)

    def result(self, call: str, name: str, status: str, **response: Any) -> dict[str, Any]:
        return self.rec("tool_result", message={"role": "user", "parts": [
            {"functionResponse": {"id": call, "name": name, "response": response}}]},
            toolCallResult={"callId": call, "status": status, "resultDisplay": "shown"})

    def system(self, subtype: str, payload: Any, **fields: Any) -> dict[str, Any]:
        return self.rec("system", subtype=subtype, systemPayload=payload, **fields)

    def write(self, path: Path, *extra_lines: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join([*self.lines, *extra_lines]) + "\n", encoding="utf-8")
        return path


def call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"functionCall": {"id": cid, "name": name, "args": args}}


TASK = "Write tests/test_top.py for --top and run the suite."


def _session(root: Path) -> Path:
    """A project folder with one session's chat and one subagent's transcript."""
    project = root / "projects" / "-home-dev-projects-tally"
    log = Log()
    log.user("Add a --top N option to tally.", shown="Add a --top N option to tally.")
    log.model({"text": "Read the CLI first.", "thought": True}, {"text": "Looking at the CLI and its tests."},
              call("c_read", "read_file", absolute_path=f"{CWD}/tally/cli.py"),
              call("c_glob", "glob", pattern="tests/*.py"),
              usageMetadata={"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120})
    log.result("c_read", "read_file", "success", output="import argparse\n")
    log.result("c_glob", "glob", "success", output="tests/test_cli.py")
    log.model(call("c_edit", "edit", file_path=f"{CWD}/tally/cli.py", old_string="a", new_string="b"),
              usageMetadata={"promptTokenCount": 150, "candidatesTokenCount": 10, "totalTokenCount": 160})
    log.rec("tool_result", message={"role": "user", "parts": [{"functionResponse": {
        "id": "c_edit", "name": "edit", "response": {"error": "Failed to edit, 0 occurrences found"}}}]},
        toolCallResult={"callId": "c_edit", "status": "error", "resultDisplay": "Error", "error": {},
                        "errorType": "edit_no_occurrence_found"})
    log.model(call("c_write", "write_file", file_path=f"{CWD}/docs/usage.md", content="# tally\n"))
    log.result("c_write", "write_file", "cancelled", error="[Operation Cancelled] Reason: User did not allow tool call")
    log.model(call("c_shell", "run_shell_command", command="python -m pytest -q"))
    log.result("c_shell", "run_shell_command", "cancelled", error="Command was cancelled by the user.")
    log.model({"text": "Done: --top is in tally/cli.py."})
    log.system("slash_command", {"phase": "invocation", "rawCommand": "/compress"})
    log.system("chat_compression", {"info": {"originalTokenCount": 900, "newTokenCount": 90, "compressionStatus": 1},
                                    "compressedHistory": [
                                        {"role": "user", "parts": [{"text": "<state_snapshot>--top added"
                                                                            "</state_snapshot>"}]},
                                        {"role": "model", "parts": [{"text": "Got it. Thanks for the additional "
                                                                             "context!"}]}]})
    log.system("slash_command", {"phase": "result", "rawCommand": "/compress", "outputHistoryItems": []})
    back = len(log.turns)
    log.user("Explain @tally/cli.py", "\n--- Content from referenced files ---", "\nContent from @tally/cli.py:\n",
             "import argparse\n", "\n--- End of content ---")
    log.model({"text": "It counts words."})
    log.system("rewind", {"truncatedCount": 2}, parent=log.turns[back])
    log.turns = log.turns[:back]
    log.user("Have a subagent test it.", shown="Have a subagent test it.")
    log.model(call("c_agent", "agent", description="Test --top", subagent_type="general-purpose", prompt=TASK))
    log.result("c_agent", "agent", "success", output="Added tests/test_top.py; 5 passed.")
    log.rec("user", subtype="notification", provenance="system", message={"role": "user", "parts": [
        {"text": "<task-notification>shell-1 stopped</task-notification>"}]},
        systemPayload={"displayText": "Background shell shell-1 stopped"})
    log.system("ui_telemetry", {"uiEvent": {"event.name": "qwen-code.api_response"}})
    log.model({"text": "The subagent added the test; 5 passed."})
    log.system("custom_title", {"customTitle": "Add --top", "titleSource": "auto"})
    chat = log.write(project / "chats" / f"{SID}.jsonl", "{not json at all", log.lines[3])
    # the subagent (attachJsonlTranscriptWriter): its records carry agentId and isSidechain
    sub = Log(provenance=False, agentId="general-purpose-1a2b", agentName="general-purpose", isSidechain=True)
    sub.n = 100
    sub.user(TASK)
    sub.model({"text": "Writing the test."}, usageMetadata={"promptTokenCount": 30, "candidatesTokenCount": 5,
                                                             "totalTokenCount": 35}, agentRunId="run1", agentRound=1)
    sub.model(call("s_write", "write_file", file_path=f"{CWD}/tests/test_top.py", content="def test(): pass\n"))
    sub.model(call("s_run", "run_shell_command", command="python -m pytest -q"))
    sub.rec("tool_result", message={"role": "user", "parts": [{"functionResponse": {
        "id": "s_write", "name": "write_file", "response": {"output": "Successfully created tests/test_top.py."}}}]},
        toolCallResult={"callId": "s_write", "durationMs": 10})
    sub.rec("tool_result", message={"role": "user", "parts": [{"functionResponse": {
        "id": "s_run", "name": "run_shell_command", "response": {"error": "Command exited with code 1"}}}]},
        toolCallResult={"callId": "s_run", "durationMs": 900})
    sub.model({"text": "Added tests/test_top.py; 5 passed."}, agentRunId="run1", agentRound=2)
    folder = project / "subagents" / SID
    sub.write(folder / "agent-general-purpose-1a2b.jsonl")
    (folder / "agent-general-purpose-1a2b.meta.json").write_text(json.dumps(
        {"agentId": "general-purpose-1a2b", "agentType": "general-purpose", "parentSessionId": SID,
         "toolUseId": "c_agent", "parentAgentId": None, "createdAt": "2026-05-04T09:00:30.000Z"}, indent=2))
    return chat


def _retrace(path: Path, out: Path) -> tuple[dict[str, Any], Manifest]:
    retrace([path], RetraceOptions(out=out, redact=False))
    assert validate_path(out).ok, validate_path(out).errors
    rep = verify_folder(out, [path])
    assert rep.ok and rep.checked > 5, rep.problems
    manifest = Manifest.model_validate_json((out / "manifest.json").read_text())
    return json.loads((out / "trace.json").read_text()), manifest


def test_a_session_reads_into_steps_with_results_linked(tmp_path: Path) -> None:
    chat = _session(tmp_path)
    assert isinstance(detect(chat), QwenCodeSource)
    assert not ClaudeCodeSource().sniff(chat, chat.read_bytes()[:65536])
    trace, m = _retrace(chat, tmp_path / "out")
    steps = trace["steps"]
    users = [s["input"] for s in steps if s["action"] == "user_message"]
    # the typed words (displayText), the slash command as typed, the @ query without the file it pulled in
    assert users == ["Add a --top N option to tally.", "/compress", "Explain @tally/cli.py", "Have a subagent test it."]
    assert trace["task"] == "Add a --top N option to tally."
    by_tool = {s["tool"]: s for s in steps if s.get("tool") and s["actor"] == "agent"}
    assert by_tool["read_file"]["output"] == "import argparse\n" and by_tool["read_file"]["success"] is True
    assert by_tool["glob"]["output"] == "tests/test_cli.py"
    assert by_tool["edit"]["success"] is False  # status error
    assert by_tool["write_file"]["success"] is False and "rejected" in by_tool["write_file"]["eval_reason"]
    assert by_tool["run_shell_command"]["success"] is False  # cancelled while it ran: a failure, not a No
    # the subagent's work follows the call that launched it, linked by its sidecar's toolUseId
    agent = next(i for i, s in enumerate(steps) if s.get("tool") == "agent")
    assert steps[agent + 1]["actor"] == "subagent:general-purpose-1a2b"
    sub = [s for s in steps if s["actor"] == "subagent:general-purpose-1a2b"]
    assert [s.get("tool") for s in sub] == ["write_file", "run_shell_command", None]
    assert sub[1]["success"] is False  # no status in a subagent's record: its response is an error
    cfg = trace["agent_config"]
    [entry] = cfg["subagents"]
    assert (entry["parent_call_id"], entry["link_rule"]) == ("c_agent", "meta.toolUseId")
    assert (cfg["agent"], cfg["model"], cfg["working_directory"], cfg["title"]) == (
        "qwen-code", "qwen3-coder-plus", CWD, "Add --top")
    assert cfg["token_usage"] == {"input": 250, "output": 30, "total": 280}
    assert steps[1]["reasoning"].startswith("Read the CLI first.")  # the thought part
    # the rewound turn is kept, flagged
    abandoned = [s for s in steps if "rewound" in (s.get("eval_reason") or "")]
    assert abandoned and all(s["turn"] for s in abandoned)
    # the compression summary is a step; the reasoning is the model's thought part
    assert any("<state_snapshot>" in str(s.get("output")) for s in steps)
    # every record accounted for: the garbage line unparsable, the repeated line a duplicate
    f = {e.path: e for e in m.ledger or []}
    main = f[f"{SID}.jsonl"]
    assert main.records_read == 26 and sum(main.totals.values()) == 26
    assert main.totals["unparsable"] == 1 and main.totals["duplicate"] == 1 and main.totals["unknown"] == 0
    assert main.totals["metadata"] == 3  # rewind, ui telemetry, title
    by = {(e.heading, e.record_type, e.rule) for e in main.entries}
    assert ("set_aside", "user/notification", "notes are not steps") in by
    assert ("set_aside", "system/slash_command", "a slash command's output (what the CLI showed)") in by
    side = f[f"qwen-project:subagents/{SID}/agent-general-purpose-1a2b.jsonl"]
    assert side.totals["unknown"] == 0 and sum(side.totals.values()) == side.records_read == 7
    codes = [w.code for w in m.warnings]
    assert "abandoned-branch" in codes


def test_evidence_resolves_in_the_records(tmp_path: Path) -> None:
    chat = _session(tmp_path)
    [s] = SRC.read(chat, ReadContext(root=chat.parent))
    data = {f.path: Path(f.abs_path).read_bytes() for f in s.files}
    for e in s.events:
        for ref in e.refs:
            ev = s.evidence[ref.ev]
            raw = data[ev.source][ev.byte_offset:ev.byte_offset + ev.byte_length]
            value = resolve_pointer(json.loads(raw), ref.pointer)
            if isinstance(value, str) and e.kind not in ("tool_call", "interrupt"):
                assert value in (e.text or ""), (e.kind, ref.pointer)
    assert s.meta.token_usage["input"] == 250 and s.meta.cwd == CWD and s.meta.agent_version == "0.15.2"
    assert s.meta.extra["title"] == "Add --top"
    assert s.quality.compactions == 1 and s.quality.extra["rejected_calls"] == 1


def test_the_first_jsonl_form_reads_too(tmp_path: Path) -> None:
    """1ef5167: no provenance, no system records, usageMetadata as forsy's own summary."""
    lines, n = [], 0
    for raw in [
        {"type": "user", "message": {"role": "user", "parts": [{"text": "List the files."}]}},
        {"type": "assistant", "model": "qwen3-coder-plus", "message": {"role": "model", "parts": [
            {"text": "Listing."}, call("c1", "list_directory", path=CWD)]},
         "usageMetadata": {"input": 50, "output": 7, "cached": 0, "thoughts": 0, "tool": 0, "total": 57}},
        {"type": "tool_result", "message": {"role": "user", "parts": [{"functionResponse": {
            "id": "c1", "name": "list_directory", "response": {"output": "a.py\nb.py"}}}]},
         "toolCallResult": {"callId": "c1", "status": "success", "resultDisplay": "Listed 2 item(s)."}},
        {"type": "assistant", "model": "qwen3-coder-plus", "message": {"role": "model", "parts": [
            {"text": "Two files."}]}},
    ]:
        n += 1
        lines.append(json.dumps({"uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n > 1 else None, "sessionId": SID,
                                 "timestamp": f"2026-01-05T10:00:0{n}.000Z", **raw, "cwd": CWD, "version": "0.2.0"}))
    p = tmp_path / "chats" / f"{SID}.jsonl"
    p.parent.mkdir()
    p.write_text("\n".join(lines) + "\n")
    assert isinstance(detect(p), QwenCodeSource)
    trace, m = _retrace(p, tmp_path / "out")
    assert [s["action"] for s in trace["steps"]] == ["user_message", "agent_step", "output"]
    [s] = SRC.read(p, ReadContext(root=p.parent))
    assert s.meta.token_usage == {"input": 50, "output": 7, "cached": 0, "thoughts": 0, "tool": 0, "total": 57}
    assert m.ledger is not None and m.ledger[0].totals["cited"] == 4


def test_a_slash_command_the_model_was_sent_is_read_once(tmp_path: Path) -> None:
    log = Log()
    inv = log.system("slash_command", {"phase": "invocation", "rawCommand": "/review tally", "sentToModel": True})
    log.user("/review tally")
    log.model({"text": "Reviewing."})
    log.system("slash_command", {"phase": "invocation", "rawCommand": "/init", "sentToModel": True})
    log.user("Please analyze this project and write a QWEN.md file.")
    log.model({"text": "Written."})
    p = log.write(tmp_path / f"{SID}.jsonl")
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    assert [e.text for e in s.events if e.kind == "user"] == ["/review tally", "/init"]
    notes = [e for e in s.events if e.kind == "note"]
    assert [n.info.subtype for n in notes] == ["slash_command_prompt"]  # type: ignore[union-attr]
    assert inv["uuid"] in p.read_text()
    assert [mk.name for mk in s.ledger.values() if mk.heading == "duplicate"] == [
        "the slash command as typed, sent to the model (its slash_command record is read)"]


def test_a_lost_stretch_of_the_file_is_joined_and_said(tmp_path: Path) -> None:
    log = Log()
    log.user("first")
    log.model({"text": "one"})
    log.user("second", parent="lost-record")  # its parent's line is gone
    log.model({"text": "two"})
    p = log.write(tmp_path / f"{SID}.jsonl")
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    assert not any(e.abandoned for e in s.events)
    assert any(w.code == "history-gap" for w in s.warnings) and s.quality.extra["history_gaps"] == 1


def test_unknown_subtypes_and_types_are_said(tmp_path: Path) -> None:
    log = Log()
    log.user("hi")
    log.system("brand_new_subtype", {"x": 1})
    log.model({"text": "hello"})
    p = log.write(tmp_path / f"{SID}.jsonl")
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    assert s.quality.unknown_records == 1 and any(w.code == "unknown-record" for w in s.warnings)


def test_a_subagent_transcript_alone_is_a_delegated_task(tmp_path: Path) -> None:
    chat = _session(tmp_path)
    chat.unlink()
    [sub] = list((tmp_path / "projects").rglob("agent-*.jsonl"))
    assert SRC.discover(tmp_path) == [sub] and SRC.session_of(sub) is None
    trace, _ = _retrace(sub, tmp_path / "out")
    assert trace["task"] == TASK
    assert [s.get("tool") for s in trace["steps"]] == ["write_file", "run_shell_command", None]


def test_discover_finds_sessions_where_qwen_code_keeps_them(tmp_path: Path) -> None:
    chat = _session(tmp_path / "home" / ".qwen")
    project = chat.parent.parent
    [sub] = list(project.rglob("agent-*.jsonl"))
    for where in (tmp_path / "home", tmp_path / "home" / ".qwen", tmp_path / "home" / ".qwen" / "projects",
                  project, chat.parent, chat):
        assert SRC.discover(where) == [chat], where
    assert SRC.session_of(sub) == chat and SRC.session_of(sub.with_name(sub.stem + ".meta.json")) == chat
    assert SRC.default_roots == (".qwen/projects",)
    home = tmp_path / "h"
    assert SRC.env_roots({}, home) == []
    assert SRC.env_roots({"QWEN_HOME": "~/q"}, home) == [home / "q" / "projects"]
    assert SRC.env_roots({"QWEN_HOME": "/q", "QWEN_RUNTIME_DIR": "/rt"}, home) == [Path("/rt/projects")]
    assert SRC.env_roots({"QWEN_RUNTIME_DIR": "  ", "QWEN_HOME": ""}, home) == []
    # verify reads a subagent's transcript back from the project folder, given the chat or its folder
    for root in (chat.parent, project, tmp_path / "home" / ".qwen"):
        name = f"qwen-project:subagents/{SID}/{sub.name}"
        assert SRC.read_back(name, [root]) == sub.read_bytes()
    assert SRC.read_back("qwen-project:../x", [project]) is None


def test_the_example_session_is_qwen_codes(tmp_path: Path) -> None:
    """The four records first seen taken for Claude Code's ("the log holds no work")."""
    recs = [
        {"uuid": "u1", "parentUuid": None, "sessionId": "sess-1", "timestamp": "2026-05-01T10:00:00.000Z",
         "type": "user", "cwd": "/repo", "version": "0.9.0", "gitBranch": "main",
         "message": {"role": "user", "parts": [{"text": "List the files."}]}},
        {"uuid": "u2", "parentUuid": "u1", "sessionId": "sess-1", "timestamp": "2026-05-01T10:00:02.000Z",
         "type": "assistant", "cwd": "/repo", "version": "0.9.0", "model": "qwen3-coder-plus",
         "message": {"role": "model", "parts": [{"text": "I'll list them."}, call("call_1", "list_directory",
                                                                                  path="/repo")]}},
        {"uuid": "u3", "parentUuid": "u2", "sessionId": "sess-1", "timestamp": "2026-05-01T10:00:03.000Z",
         "type": "tool_result", "cwd": "/repo", "version": "0.9.0", "message": {"role": "user", "parts": [
             {"functionResponse": {"id": "call_1", "name": "list_directory", "response": {"output": "a.py\nb.py"}}}]}},
        {"uuid": "u4", "parentUuid": "u3", "sessionId": "sess-1", "timestamp": "2026-05-01T10:00:05.000Z",
         "type": "assistant", "cwd": "/repo", "version": "0.9.0", "model": "qwen3-coder-plus",
         "message": {"role": "model", "parts": [{"text": "Two files: a.py and b.py."}]}},
    ]
    p = tmp_path / "s.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert isinstance(detect(p), QwenCodeSource)
    trace, m = _retrace(p, tmp_path / "out")
    assert [s["action"] for s in trace["steps"]] == ["user_message", "agent_step", "output"]
    assert trace["steps"][1]["output"] == "a.py\nb.py"
    assert m.ledger is not None and m.ledger[0].totals == {"cited": 4, "metadata": 0, "set_aside": 0,
                                                           "duplicate": 0, "unparsable": 0, "unknown": 0}


CLAUDE = sorted(p for p in (SAMPLES / "claude").rglob("*") if p.suffix in (".jsonl", ".json"))
REAL_CLAUDE = sorted(p for p in (REAL_LOGS / "claude").rglob("*") if p.suffix in (".jsonl", ".json")
                     and p.is_file()) if (REAL_LOGS / "claude").is_dir() else []


@pytest.mark.parametrize("path", CLAUDE, ids=lambda p: p.name)
def test_claude_code_samples_stay_claude_codes(path: Path) -> None:
    assert isinstance(detect(path), ClaudeCodeSource)
    head = path.read_bytes()[:65536]
    assert not SRC.sniff(path, head)


def test_no_real_claude_code_log_is_taken_for_qwen_codes() -> None:
    if not REAL_CLAUDE:
        pytest.skip("../shared/real_logs/claude is not here")
    for p in REAL_CLAUDE:
        head = p.read_bytes()[:65536]
        assert not SRC.sniff(p, head), p
        if ClaudeCodeSource().sniff(p, head):
            assert isinstance(detect(p), ClaudeCodeSource), p


def test_a_call_left_without_a_result_is_said_at_its_record(tmp_path: Path) -> None:
    # it named the file alone
    log = Log()
    log.user("List the tests.", shown="List the tests.")
    log.model(call("c_glob", "glob", pattern="tests/*.py"))
    path = log.write(tmp_path / "chats" / f"{SID}.jsonl")
    [s] = QwenCodeSource().read(path, ReadContext(root=tmp_path))
    [w] = [w for w in s.warnings if w.code == "no-result"]
    assert (w.message, w.file, w.line) == ("tool call c_glob (glob) has no result in the log",
                                           f"chats/{SID}.jsonl", 2)
