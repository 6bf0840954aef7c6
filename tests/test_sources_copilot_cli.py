"""GitHub Copilot CLI sessions: hand-made events in the shapes the CLI's session writer gives
them (npm @github/copilot's bundle, 0.0.343-1.0.60: `{type, data, id, timestamp, parentId}`,
a subagent's with `agentId`), read into steps whose results are linked to their calls; each
event kind, damaged and unknown events, the legacy document and the sniff (other agents' JSONL
is not taken, and theirs do not take Copilot's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _paths import SAMPLES
from forsy.models import Manifest
from forsy.payloads import CallInfo
from forsy.run import RetraceOptions, retrace
from forsy.sources import ReadContext, available, detect
from forsy.sources.copilot_cli import CopilotCliSource
from forsy.validation import validate_path
from forsy.verification import verify_folder

SRC = CopilotCliSource()
SID = "5d1e0c2a-7b3f-4e9a-8c61-0f2b3a4d5e6f"
CWD = "/home/dev/projects/kiln"


class Log:
    """`emitInternal`: each event `{type, data, id, timestamp, parentId}`, parents chained."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.last: str | None = None

    def emit(self, typ: str, data: dict[str, Any], agent: str | None = None) -> str:
        n = len(self.lines) + 1
        eid = f"00000000-0000-4000-8000-{n:012d}"
        ev: dict[str, Any] = {"type": typ, "data": data, "id": eid, "timestamp": f"2026-05-02T10:00:{n:02d}.000Z",
                              "parentId": self.last}
        if agent:
            ev["agentId"] = agent
        self.lines.append(json.dumps(ev, separators=(",", ":")))
        self.last = eid
        return eid

    def write(self, root: Path, raw: list[str] | None = None) -> Path:
        path = root / "session-state" / SID / "events.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(self.lines + (raw or [])) + "\n", "utf-8")
        return path


def req(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"toolCallId": cid, "name": name, "arguments": args, "type": "function"}


def done(cid: str, content: str | None = None, error: str | None = None, code: str = "failure") -> dict[str, Any]:
    if error is None:
        return {"toolCallId": cid, "success": True, "result": {"content": content}}
    return {"toolCallId": cid, "success": False, "error": {"message": error, "code": code}}


def _session(root: Path) -> Path:
    log = Log()
    log.emit("session.start", {"sessionId": SID, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.44",
                               "startTime": "2026-05-02T10:00:00.500Z", "selectedModel": "gpt-5.1",
                               "context": {"cwd": CWD, "branch": "main", "repository": "dev/kiln"}})
    log.emit("user.message", {"content": "Make the build pass.", "transformedContent": "Make the build pass.\n<x/>"})
    log.emit("assistant.turn_start", {"turnId": "0"})
    log.emit("assistant.reasoning", {"reasoningId": "r1", "content": "Run the build first."})
    log.emit("assistant.message", {"messageId": "m1", "content": "Building.", "reasoningText": "Run the build first.",
                                   "toolRequests": [req("c_make", "bash", command="make", description="Build"),
                                                    req("c_view", "view", path=f"{CWD}/Makefile")]})
    log.emit("tool.execution_start", {"toolCallId": "c_make", "toolName": "bash", "arguments": {"command": "make"}})
    log.emit("tool.execution_complete", done("c_make", "cc: error: x.c\n<exited with exit code 2>"))
    log.emit("tool.execution_complete", done("c_view", "1. all: x\n"))
    log.emit("assistant.message", {"messageId": "m2", "content": "",
                                   "toolRequests": [req("c_edit", "edit", path=f"{CWD}/x.c", old_str="a", new_str="b"),
                                                    req("c_rm", "bash", command="rm -rf build")]})
    log.emit("tool.execution_complete", done("c_edit", "File x.c updated."))
    log.emit("permission.completed", {"requestId": "p1", "toolCallId": "c_rm",
                                      "result": {"kind": "denied-interactively-by-user"}})
    log.emit("tool.execution_complete", done("c_rm", error="The user rejected this tool call.", code="denied"))
    log.emit("assistant.message", {"messageId": "m3", "content": "",
                                   "toolRequests": [req("c_task", "task", prompt="Run the tests", agent_type="task")]})
    log.emit("subagent.started", {"toolCallId": "c_task", "agentName": "task", "agentDisplayName": "Task",
                                  "agentDescription": "runs commands", "model": "claude-haiku-4.5"}, agent="c_task")
    log.emit("assistant.message", {"messageId": "s1", "content": "",
                                   "toolRequests": [req("c_test", "bash", command="make test")],
                                   "parentToolCallId": "c_task"}, agent="c_task")
    log.emit("tool.execution_complete", {**done("c_test", "ok\n<shellId: 3 completed with exit code 0>"),
                                         "parentToolCallId": "c_task"}, agent="c_task")
    log.emit("assistant.message", {"messageId": "s2", "content": "Tests pass.", "parentToolCallId": "c_task"},
             agent="c_task")
    log.emit("subagent.completed", {"toolCallId": "c_task", "agentName": "task", "agentDisplayName": "Task"},
             agent="c_task")
    log.emit("tool.execution_complete", done("c_task", "Tests pass."))
    log.emit("assistant.usage", {"model": "gpt-5.1", "inputTokens": 300, "outputTokens": 40})
    log.emit("abort", {"reason": "user_initiated"})
    log.emit("tool.user_requested", {"toolCallId": "u1", "toolName": "bash", "arguments": {"command": "ls"}})
    log.emit("tool.execution_complete", {"toolCallId": "u1", "isUserRequested": True, "success": True,
                                         "result": {"content": "Makefile\n"}})
    log.emit("session.model_change", {"previousModel": "gpt-5.1", "newModel": "claude-sonnet-4.5"})
    log.emit("session.truncation", {"tokenLimit": 1000, "preTruncationTokensInMessages": 900,
                                    "preTruncationMessagesLength": 9, "postTruncationTokensInMessages": 400,
                                    "postTruncationMessagesLength": 5, "tokensRemovedDuringTruncation": 500,
                                    "messagesRemovedDuringTruncation": 4, "performedBy": "BasicTruncator"})
    log.emit("session.compaction_complete", {"success": True, "summaryContent": "<overview>built</overview>"})
    log.emit("session.error", {"errorType": "query", "message": "rate limited"})
    log.emit("assistant.message", {"messageId": "m4", "content": "Done.",
                                   "toolRequests": [req("c_late", "glob", pattern="*.c")]})
    log.emit("assistant.message", {"messageId": "m5", "content": "", "toolRequests": [
        {**req("c_mcp", "github-mcp-server-list_issues", owner="dev"), "mcpServerName": "github-mcp-server",
         "mcpToolName": "list_issues"}]})
    log.emit("tool.execution_complete", done("c_mcp", "[]"))
    log.emit("session.shiny_new_event", {"x": 1})
    return log.write(root, ['{"type":"user.message","data":{"content":"cut', "garbage"])


def _retrace(path: Path, out: Path) -> tuple[dict[str, Any], Manifest]:
    retrace([path], RetraceOptions(out=out, redact=False))
    assert validate_path(out).ok, validate_path(out).errors
    rep = verify_folder(out, [path])
    assert rep.ok and rep.checked > 5, rep.problems
    return json.loads((out / "trace.json").read_text()), Manifest.model_validate_json((out / "manifest.json")
                                                                                       .read_text())


def test_a_session_reads_into_steps(tmp_path: Path) -> None:
    path = _session(tmp_path)
    assert isinstance(detect(path), CopilotCliSource)
    trace, m = _retrace(path, tmp_path / "out")
    steps = trace["steps"]
    users = [s["input"] for s in steps if s["action"] == "user_message"]
    assert users == ["Make the build pass.", "!ls"]  # the words as typed (not transformedContent), the ! command
    by = {s["tool"]: s for s in steps if s.get("tool")}
    make = next(s for s in steps if s.get("tool") == "bash" and "make" in s["input"])
    assert make["success"] is False  # success true, but exit code 2: R-call/copilot-exit-code
    assert by["view"]["success"] is True and by["view"]["output"] == "1. all: x\n"
    assert by["edit"]["success"] is True
    rm = next(s for s in steps if s.get("tool") == "bash" and "rm -rf" in s["input"])
    assert rm["success"] is False and "rejected" in rm["eval_reason"]
    # the subagent's steps follow its task call, linked to it
    task = next(i for i, s in enumerate(steps) if s.get("tool") == "task")
    assert steps[task + 1]["actor"] == "subagent:c_task" and steps[task + 1]["success"] is True
    cfg = trace["agent_config"]
    [entry] = cfg["subagents"]
    assert (entry["parent_call_id"], entry["link_rule"]) == ("c_task", "parentToolCallId")
    assert (cfg["agent"], cfg["working_directory"]) == ("copilot-cli", CWD)
    assert any("<overview>built</overview>" in str(s.get("output")) for s in steps)
    f = {e.path: e for e in m.ledger or []}
    main = f["events.jsonl"]
    assert sum(main.totals.values()) == main.records_read == 33  # 31 events, the cut line, the garbage
    assert main.totals["unparsable"] == 2 and main.totals["unknown"] == 1
    codes = [w.code for w in m.warnings]
    assert "unknown-record" in codes and "no-result" in codes
    # said at the record of the call left without a result (it named the file alone)
    [nr] = [w for w in m.warnings if w.code == "no-result"]
    lines = path.read_text().splitlines()
    assert nr.file == "events.jsonl" and nr.line is not None and '"toolCallId":"c_late"' in lines[nr.line - 1]


def test_each_event_kind_becomes_what_the_docstring_says(tmp_path: Path) -> None:
    path = _session(tmp_path)
    [s] = SRC.read(path, ReadContext(root=path.parent))
    kinds = [(e.kind, e.actor) for e in s.events]
    assert ("reasoning", "agent") in kinds and kinds.count(("reasoning", "agent")) == 1  # reasoningText read once
    assert ("interrupt", "user") in kinds and ("compaction", "system") in kinds
    notes = {getattr(e.info, "subtype", None): e.text for e in s.events if e.kind == "note"}
    assert notes["model_change"] == "claude-sonnet-4.5" and notes["session_error:query"] == "rate limited"
    assert notes["user_shell_output"] == "Makefile\n" and "truncation" in notes
    assert s.session_id == SID and s.meta.agent_version == "1.0.44" and s.meta.git_branch == "main"
    assert s.meta.models == ["gpt-5.1", "claude-haiku-4.5", "claude-sonnet-4.5"]  # the subagent's too
    assert s.meta.token_usage == {"input": 300, "output": 40}
    assert s.quality.compactions == 1 and s.quality.extra["truncations"] == 1
    assert s.quality.extra["rejected_calls"] == 1 and s.quality.unknown_records == 1
    assert s.quality.missing_results == 1  # c_late: the log ends before its result
    results = {e.call_id: e for e in s.events if e.kind == "tool_result"}
    assert results["c_make"].is_error is True and results["c_make"].info.exit_code == 2  # type: ignore[union-attr]
    assert results["c_test"].actor == "subagent:c_task"
    mcp = next(e for e in s.events if e.kind == "tool_call" and e.call_id == "c_mcp")
    assert mcp.tool == "mcp:github-mcp-server.list_issues" and results["c_mcp"].tool == mcp.tool
    assert mcp.info.raw_name == "github-mcp-server-list_issues"  # type: ignore[union-attr]


def test_damaged_events_are_warnings_not_crashes(tmp_path: Path) -> None:
    log = Log()
    log.emit("session.start", {"sessionId": SID})
    log.emit("user.message", {"content": 7})  # not text
    log.emit("assistant.message", {"messageId": "m", "content": "hi", "toolRequests": ["nope", {"name": 3}]})
    log.emit("tool.execution_complete", {"success": True})  # no call id
    log.emit("tool.execution_complete", {"toolCallId": "ghost", "result": {"content": "?"}})  # no flag, no call
    log.emit("session.compaction_complete", {"success": "yes"})
    path = log.write(tmp_path)
    [s] = SRC.read(path, ReadContext(root=tmp_path))
    codes = [w.code for w in s.warnings]
    assert codes.count("damaged-record") == 3
    ghost = next(e for e in s.events if e.call_id == "ghost")
    assert ghost.is_error is None and ghost.info.orphan  # type: ignore[union-attr]
    assert {e.kind for e in s.events} == {"agent_text", "tool_call", "tool_result"}


def test_the_flat_log_and_the_legacy_document_read_too() -> None:
    flat = next((SAMPLES / "copilot_cli" / "session-state").glob("*.jsonl"))
    doc = next((SAMPLES / "copilot_cli" / "history-session-state").glob("session_*.json"))
    [f] = SRC.read(flat, ReadContext(root=flat.parent))
    # the imported legacy conversation, then the resumed work
    assert [e.text for e in f.events if e.kind == "user"] == ["What is in src?", "Now add a docstring to util.py."]
    imported = next(e for e in f.events if e.kind == "tool_result")  # its outcome from the embedded timeline
    assert imported.is_error is False and imported.refs[0].pointer == "/data/legacySession/timeline/3/result/log"
    [d] = SRC.read(doc, ReadContext(root=doc.parent))
    assert d.session_id == "4b90d39a-c756-4d55-bf1f-8b605cf183c8" and d.meta.models == ["claude-sonnet-4"]
    [res] = [e for e in d.events if e.kind == "tool_result"]
    assert res.is_error is False and res.ts == "2025-10-09T16:02:13.450Z"  # the timeline entry's outcome and time
    assert [e.text for e in d.events if e.kind == "user"] == ["What is in src?"]  # cut before the <reminder>


def test_discover_finds_every_form(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".copilot").mkdir(parents=True)
    import shutil
    shutil.copytree(SAMPLES / "copilot_cli" / "session-state", home / ".copilot" / "session-state")
    shutil.copytree(SAMPLES / "copilot_cli" / "history-session-state", home / ".copilot" / "history-session-state")
    found = SRC.discover(home)
    assert sorted(p.name for p in found) == sorted(["events.jsonl", next(
        (SAMPLES / "copilot_cli" / "session-state").glob("*.jsonl")).name, next(
        (SAMPLES / "copilot_cli" / "history-session-state").glob("*.json")).name])
    assert SRC.env_roots({"COPILOT_HOME": "/x"}, home)[0] == Path("/x/session-state")


def test_the_sniff_keeps_to_its_own() -> None:
    heads = {
        "claude": {"type": "user", "uuid": "u", "parentUuid": None, "sessionId": "s", "timestamp": "t",
                   "message": {"role": "user", "content": "hi"}},
        "codex": {"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}},
        "qwen": {"uuid": "u", "parentUuid": None, "sessionId": "s", "timestamp": "t", "type": "user",
                 "message": {"role": "user", "parts": [{"text": "hi"}]}},
        "gemini": {"sessionId": "s", "projectHash": "h", "startTime": "t", "messages": []},
    }
    for name, d in heads.items():
        assert not SRC.sniff(Path(f"{name}.jsonl"), json.dumps(d).encode() + b"\n"), name
    for p in sorted((SAMPLES / "copilot_cli").rglob("*.json*")):
        head = p.read_bytes()[:65536]
        assert [s.name for s in available() if s.sniff(p, head)] == ["copilot_cli"], p


def test_report_intent_is_a_note_of_the_intent_not_a_step(tmp_path: Path) -> None:
    # the tool only shows its words in the CLI's UI (its callback answers "Intent logged"); the model
    # calls it first among the calls it announces, a subagent too
    log = Log()
    log.emit("session.start", {"sessionId": SID, "copilotVersion": "1.0.44", "context": {"cwd": CWD}})
    log.emit("user.message", {"content": "Fix the build."})
    log.emit("assistant.message", {"messageId": "m1", "content": "", "toolRequests": [
        req("c_i1", "report_intent", intent="Fixing the build"), req("c_make", "bash", command="make")]})
    log.emit("tool.execution_start", {"toolCallId": "c_i1", "toolName": "report_intent",
                                      "arguments": {"intent": "Fixing the build"}})
    log.emit("tool.execution_complete", {"toolCallId": "c_i1", "success": True,
                                         "result": {"content": "Intent logged", "detailedContent": "Fixing the build"}})
    log.emit("tool.execution_complete", done("c_make", "ok\n<exited with exit code 0>"))
    log.emit("assistant.message", {"messageId": "m2", "content": "", "toolRequests": [
        req("c_task", "task", prompt="run the tests")]})
    log.emit("subagent.started", {"toolCallId": "c_task", "agentName": "task"}, agent="c_task")
    log.emit("assistant.message", {"messageId": "s1", "content": "", "toolRequests": [
        req("c_i2", "report_intent", intent="Running tests"), req("c_test", "bash", command="make test")]},
             agent="c_task")
    log.emit("tool.execution_complete", {"toolCallId": "c_i2", "success": True,
                                         "result": {"content": "Intent logged"}}, agent="c_task")
    log.emit("tool.execution_complete", done("c_test", "ok\n<exited with exit code 0>"), agent="c_task")
    log.emit("tool.execution_complete", done("c_task", "tests pass"))
    # alone in its message (the model was told never to), and one no message asked for: notes too
    log.emit("assistant.message", {"messageId": "m3", "content": "", "toolRequests": [
        req("c_i3", "report_intent", intent="Wrapping up")]})
    log.emit("tool.execution_start", {"toolCallId": "c_i4", "toolName": "report_intent", "arguments": {}})
    path = log.write(tmp_path)
    [s] = SRC.read(path, ReadContext(root=tmp_path))
    intents = [(e.actor, e.text, e.refs[0].pointer) for e in s.events
               if e.kind == "note" and getattr(e.info, "subtype", None) == "intent"]
    assert intents == [("agent", "Fixing the build", "/data/toolRequests/0/arguments/intent"),
                       ("subagent:c_task", "Running tests", "/data/toolRequests/0/arguments/intent"),
                       ("agent", "Wrapping up", "/data/toolRequests/0/arguments/intent"),
                       ("agent", None, "/data/arguments")]
    assert s.quality.extra["intents"] == 4 and s.quality.missing_results == 0
    assert not [w for w in s.warnings if w.code in ("orphan-result", "no-result")]
    trace, m = _retrace(path, tmp_path / "out")
    steps = trace["steps"]
    assert [s["tool"] for s in steps if s["tool"]] == ["bash", "task", "bash"]
    make, sub = steps[1], steps[3]
    assert (make["execution_mode"], make["caused_by"]) == ("serial", [1])  # one call in its message, not two
    assert sub["actor"] == "subagent:c_task" and sub["causal_type"] == "delegation_to_subagent"
    assert trace["agent_tools"] == ["bash", "task"]  # the tools used: report_intent is none
    # every record accounted for: the intent-only message set aside as a note, start and answer metadata
    main = {e.path: e for e in m.ledger or []}["events.jsonl"]
    assert sum(main.totals.values()) == main.records_read == 14
    rules = [(e.heading, e.record_type, e.rule, e.count) for e in main.entries]
    assert ("set_aside", "assistant.message/intent", "notes are not steps", 1) in rules
    assert ("set_aside", "tool.execution_start/intent", "notes are not steps", 1) in rules
    assert ("metadata", "tool.execution_complete", "report_intent's answer ('Intent logged'): the intent it "
            "reported is a note", 2) in rules
    assert ("metadata", "tool.execution_start", "report_intent's start: the intent it reported is a note", 1) in rules
    assert m.counts["intents"] == 4  # type: ignore[index]


def test_the_providers_own_tool_calls_are_read_and_the_rest_warned(tmp_path: Path) -> None:
    """`assistant.message`'s `serverTools` (github/copilot-sdk's generated session-events.ts,
    AssistantMessageServerTools: `{provider, items?, rawContentBlocks?}`, kept verbatim): an
    OpenAI `web_search_call` item is a search whose results stay with the provider; Anthropic's
    `server_tool_use` blocks are calls, each `*_tool_result` naming one its result (failed when
    its content is an error). Any other item is counted and warned; a message of nothing else is
    set aside as such. The provider ran them before the words that follow from them, in its own
    loop (no parallel group)."""
    search = [{"type": "web_search_result", "url": "https://example.org/libfoo", "title": "libfoo 2.3"}]
    log = Log()
    log.emit("session.start", {"sessionId": SID, "copilotVersion": "1.0.81", "context": {"cwd": CWD}})
    log.emit("user.message", {"content": "What is the latest libfoo?"})
    log.emit("assistant.message", {"messageId": "m1", "content": "", "serverTools": {"provider": "openai", "items": [
        {"type": "web_search_call", "id": "ws_1", "status": "completed",
         "action": {"type": "search", "query": "libfoo latest release"}},
        {"type": "tool_search_call", "call_id": "ts_1", "arguments": {"q": "x"}}, 5]}})
    log.emit("assistant.message", {"messageId": "m2", "content": "libfoo 2.3 is the latest.", "serverTools": {
        "provider": "anthropic", "rawContentBlocks": [
            {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "libfoo notes"}},
            {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": search},
            {"type": "server_tool_use", "id": "srv_2", "name": "web_fetch", "input": {"url": "https://example.org/x"}},
            {"type": "web_fetch_tool_result", "tool_use_id": "srv_2",
             "content": {"type": "web_fetch_tool_result_error", "error_code": "url_not_accessible"}},
            {"type": "web_search_tool_result", "tool_use_id": "srv_9", "content": []}]}})
    log.emit("assistant.message", {"messageId": "m3", "content": "", "serverTools": {
        "provider": "openai", "items": [{"type": "tool_search_output", "call_id": "ts_1", "tools": []}]}})
    log.emit("assistant.message", {"messageId": "m4", "content": "Done.", "serverTools": "?"})
    path = log.write(tmp_path)
    [s] = SRC.read(path, ReadContext(root=tmp_path))
    got = [(e.kind, e.tool, e.call_id, e.text, e.is_error, [r.pointer for r in e.refs], e.group) for e in s.events]
    st = "/data/serverTools"
    assert got == [
        ("user", None, None, "What is the latest libfoo?", None, ["/data/content"], None),
        ("tool_call", "web_search", "ws_1", None, None, [f"{st}/items/0/action"], None),
        ("tool_call", "web_search", "srv_1", None, None, [f"{st}/rawContentBlocks/0/input"], None),
        ("tool_result", "web_search", "srv_1", '{"type":"web_search_result","url":"https://example.org/libfoo",'
         '"title":"libfoo 2.3"}', False, [f"{st}/rawContentBlocks/1/content/0"], None),
        ("tool_call", "web_fetch", "srv_2", None, None, [f"{st}/rawContentBlocks/2/input"], None),
        ("tool_result", "web_fetch", "srv_2", '{"type":"web_fetch_tool_result_error","error_code":'
         '"url_not_accessible"}', True, [f"{st}/rawContentBlocks/3/content"], None),
        ("agent_text", None, None, "libfoo 2.3 is the latest.", None, ["/data/content"], None),
        ("agent_text", None, None, "Done.", None, ["/data/content"], None),
    ]
    calls = [e for e in s.events if e.kind == "tool_call"]
    assert [e.info for e in calls] == [CallInfo(server_side=True, status="completed", result_in_log=False),
                                       CallInfo(server_side=True), CallInfo(server_side=True)]
    assert calls[0].name_ref is None and calls[1].name_ref is not None  # web_search_call names no tool
    assert [(w.code, w.message) for w in s.warnings] == [
        ("unread-content", "2 provider server-tool item(s) not read: items[1]: 'tool_search_call'; items[2]: no type"),
        ("unread-content", "1 provider server-tool item(s) not read: rawContentBlocks[4]: 'web_search_tool_result'"),
        ("unread-content", "1 provider server-tool item(s) not read: items[0]: 'tool_search_output'"),
        ("unread-content", "1 provider server-tool item(s) not read: serverTools is not an object")]
    assert s.quality.extra["server_tool_items_unread"] == 5 and s.quality.missing_results == 0
    trace, m = _retrace(path, tmp_path / "out")
    steps = [(x["tool"], x["operation"], x["success"], x["execution_mode"]) for x in trace["steps"] if x["tool"]]
    assert steps == [("web_search", "search", None, "serial"), ("web_search", "search", True, "serial"),
                     ("web_fetch", "download", False, "serial")]  # run by the provider in turn, not issued together
    assert trace["final_output"] == "libfoo 2.3 is the latest.\n\nDone."  # the words after the searches
    main = {e.path: e for e in m.ledger or []}["events.jsonl"]
    rules = [(e.heading, e.record_type, e.rule, e.count) for e in main.entries]
    assert ("set_aside", "assistant.message/server_tools",
            "provider server-tool items forsy does not read (counted and warned)", 1) in rules
    assert main.totals["unknown"] == 0 and sum(main.totals.values()) == main.records_read == 6
