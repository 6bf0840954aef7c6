"""Roo Code and Kilo Code task folders read as their agents' work.

Each folder is written as Roo Code writes it (RooCodeInc/Roo-Code): the XML era's messages and
results as Task.ts and presentAssistantMessage.ts wrote them at 8de9337e63~1 (2025); the native
era's as they are at cb83656718 (2026: tool_use / tool_result, `{"status": …}` results,
`<user_message>` wrappers from 0f08867656); subtasks as ClineProvider.ts delegates and returns
them (9b5f6392df) with history_item.json (TaskHistoryStore.ts, b598efb422); condense and
truncation as core/condense and core/context-management tag them (cf5d42e1e1, a1d392f5cc);
the encrypted reasoning item of 0fdbd392e8. Every folder is validated, verified and its ledger
checked (nothing unknown)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import forsy
from _oracle import checked_traces
from _paths import REAL_LOGS, ROOT
from forsy.sources import ReadContext, detect
from forsy.sources.cline._xml_calls import split
from forsy.sources.roo_code import RooCodeSource
from forsy.sources.roo_code._xml import GRAMMAR

ROO = ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks"
KILO = ".config/Code/User/globalStorage/kilocode.kilo-code/tasks"
T25 = 1750000000000  # June 2025
T26 = 1776000000000  # April 2026
ENV = "<environment_details>\n# VSCode Visible Files\ncalc.py\n</environment_details>"


def task(tmp: Path, where: str, tid: str, api: list[Any], ui: list[Any], history: dict[str, Any] | None = None,
         meta: dict[str, Any] | None = None) -> Path:
    d = tmp / where / tid
    d.mkdir(parents=True)
    (d / "api_conversation_history.json").write_text(json.dumps(api), "utf-8")
    (d / "ui_messages.json").write_text(json.dumps(ui), "utf-8")
    if history is not None:
        (d / "history_item.json").write_text(json.dumps(history), "utf-8")
    if meta is not None:
        (d / "task_metadata.json").write_text(json.dumps(meta), "utf-8")
    return d / "api_conversation_history.json"


def say(ts: int, kind: str, text: str, **kw: Any) -> dict[str, Any]:
    return {"ts": ts, "type": "say", "say": kind, "text": text, **kw}


def ask(ts: int, kind: str, text: str) -> dict[str, Any]:
    return {"ts": ts, "type": "ask", "ask": kind, "text": text}


def req(ts: int, tin: int, tout: int) -> dict[str, Any]:
    return say(ts, "api_req_started", json.dumps({"apiProtocol": "anthropic", "tokensIn": tin, "tokensOut": tout,
                                                  "cacheWrites": 0, "cacheReads": 0, "cost": 0.01}))


def traced(path: Path, tmp: Path, roots: list[Path] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The one trace of `path`, checked (validate, verify), and its manifest (no record unknown)."""
    out = tmp / "out"
    run = forsy.retrace([path], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(out, parent=True))
    assert not run.failed, [o.message for o in run.failed]
    (trace,) = checked_traces(out, path, roots)
    (folder,) = [t.parent for t in out.rglob("trace.json")]
    assert forsy.validate(folder).ok
    assert forsy.verify(folder, roots or [path.parent]).ok
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    for f in manifest["ledger"]:
        assert f["totals"]["unknown"] == 0 and sum(f["totals"].values()) == f["records_read"], f
    return trace, manifest


def steps(trace: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(s["action"], s.get("tool"), s.get("success")) for s in trace["steps"]]


def xml_task(tmp: Path) -> Path:
    """A 2025 task: calls written as XML, each result a header block and the output after it."""
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nFix the failing test in calc.py\n</task>"},
                                     {"type": "text", "text": ENV}], "ts": T25},
        {"role": "assistant", "content": [{"type": "text", "text": "<thinking>Read it first.</thinking>\n\n"
                                           "<read_file>\n<path>calc.py</path>\n</read_file>"}], "ts": T25 + 2000},
        {"role": "user", "content": [{"type": "text", "text": "[read_file for 'calc.py'] Result:"},
                                     {"type": "text", "text": "<file><path>calc.py</path>\n<content lines=\"1-2\">\n"
                                      "1 | def add(a, b):\n2 |     return a - b\n</content>\n</file>"},
                                     {"type": "text", "text": ENV}], "ts": T25 + 3000},
        {"role": "assistant", "content": [{"type": "text", "text": "The sign is wrong.\n\n<apply_diff>\n<path>calc.py"
                                           "</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:2\n-------\n    return a - b"
                                           "\n=======\n    return a + b\n>>>>>>> REPLACE\n</diff>\n</apply_diff>"}],
         "ts": T25 + 5000},
        {"role": "user", "content": [{"type": "text", "text": "[apply_diff for 'calc.py'] Result:"},
                                     {"type": "text", "text": "Changes successfully applied to calc.py:\n\n\n"},
                                     {"type": "text", "text": ENV}], "ts": T25 + 6000},
        {"role": "assistant", "content": [{"type": "text", "text": "<execute_command>\n<command>pytest -q</command>\n"
                                           "</execute_command>"}], "ts": T25 + 8000},
        {"role": "user", "content": [{"type": "text", "text": "[execute_command for 'pytest -q'] Result:"},
                                     {"type": "text", "text": "Command executed in terminal within working directory "
                                      "'/home/u/calc'. Command execution was not successful, inspect the cause and "
                                      "adjust as needed.\nExit code: 1\nOutput:\n1 failed"},
                                     {"type": "text", "text": ENV}], "ts": T25 + 9000},
        {"role": "assistant", "content": [{"type": "text", "text": "<switch_mode>\n<mode_slug>debug</mode_slug>\n"
                                           "<reason>the test still fails</reason>\n</switch_mode>"}],
         "ts": T25 + 10000},
        {"role": "user", "content": [{"type": "text", "text": "[switch_mode to 'debug' because: the test still fails] "
                                      "Result:"},
                                     {"type": "text", "text": "The user denied this operation and provided the "
                                      "following feedback:\n<feedback>\nstay in code mode\n</feedback>"},
                                     {"type": "text", "text": ENV}], "ts": T25 + 11000},
        {"role": "assistant", "content": [{"type": "text", "text": "<attempt_completion>\n<result>\nFixed add().\n"
                                           "</result>\n</attempt_completion>"}], "ts": T25 + 12000},
    ]
    ui = [say(T25, "text", "Fix the failing test in calc.py"), req(T25 + 1, 900, 40),
          say(T25 + 1500, "reasoning", "The test says add(1, 2) is -1."),
          say(T25 + 1600, "text", "Read it first."), ask(T25 + 1700, "tool", json.dumps({"tool": "readFile"})),
          say(T25 + 2500, "checkpoint_saved", "3f2a"), ask(T25 + 7000, "command", "pytest -q"),
          say(T25 + 8500, "command_output", "1 failed"), say(T25 + 10500, "user_feedback", "stay in code mode"),
          say(T25 + 12000, "completion_result", "Fixed add()."), ask(T25 + 12001, "completion_result", "")]
    return task(tmp, ROO, "0197a000-0000-7000-8000-000000000001", api, ui, meta={"files_in_context": []})


def test_an_xml_era_task_is_roo_codes_work(tmp_path: Path) -> None:
    path = xml_task(tmp_path)
    assert detect(path).name == "roo_code"
    trace, manifest = traced(path, tmp_path)
    assert trace["agent_config"]["agent"] == "roo-code"
    assert steps(trace) == [("user_message", None, None), ("agent_step", "read_file", True),
                            ("agent_step", "apply_diff", True), ("agent_step", "execute_command", False),
                            ("agent_step", "switch_mode", False), ("user_message", None, None),
                            ("agent_step", "attempt_completion", None)]
    diff = json.loads(trace["steps"][2]["input"])
    assert diff["path"] == "calc.py" and diff["diff"].startswith("<<<<<<< SEARCH\n:start_line:2\n")
    assert trace["steps"][0]["input"] == "Fix the failing test in calc.py"
    assert trace["steps"][5]["input"] == "stay in code mode"
    assert "Exit code: 1" in trace["steps"][3]["output"]
    assert trace["agent_config"]["token_usage"] == {"tokensIn": 900, "tokensOut": 40, "cacheWrites": 0,
                                                    "cacheReads": 0}
    assert any("The test says" in (s.get("reasoning") or "") for s in trace["steps"])  # the UI's reasoning alone


def native_task(tmp: Path, where: str = KILO) -> Path:
    """A 2026 task: native calls, Roo Code's JSON status results, reasoning blocks."""
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<user_message>\nRename total() to sum_total()\n"
                                      "</user_message>"}, {"type": "text", "text": ENV}], "ts": T26},
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "Find every caller first.", "summary": []},
            {"type": "text", "text": "Searching for callers."},
            {"type": "tool_use", "id": "toolu_01", "name": "search_files",
             "input": {"path": ".", "regex": "total\\(", "file_pattern": "*.py"}}], "ts": T26 + 2000},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                                      "content": "Found 2 results.\n\n# cart.py\n  3 | def total(lines):"},
                                     {"type": "text", "text": ENV}], "ts": T26 + 3000},
        {"role": "assistant", "content": [
            {"type": "reasoning", "summary": [], "encrypted_content": "gAAAAB-opaque"},
            {"type": "tool_use", "id": "toolu_02", "name": "execute_command", "input": {"command": "git push"}}],
         "ts": T26 + 4000},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_02",
                                      "content": json.dumps({"status": "denied", "message":
                                                             "The user denied this operation."})}], "ts": T26 + 5000},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_03", "name": "read_file", "input": {"path": "gone.py"}}],
         "ts": T26 + 6000},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_03", "content": json.dumps(
            {"status": "error", "message": "The tool execution failed", "error": "File not found: gone.py"})}],
         "ts": T26 + 7000},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_04", "name": "edit",
             "input": {"file_path": "cart.py", "old_string": "def total(", "new_string": "def sum_total("}}],
         "ts": T26 + 8000},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_04", "content": json.dumps(
            {"status": "approved", "feedback": "keep the old name as an alias"}) + "\n\nEdited cart.py"}],
         "ts": T26 + 9000},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_05", "name": "attempt_completion", "input": {"result": "Renamed."}}],
         "ts": T26 + 10000},
    ]
    ui = [say(T26, "text", "Rename total() to sum_total()"), req(T26 + 1, 1200, 80),
          say(T26 + 1900, "reasoning", "Find every caller first."), say(T26 + 1950, "text", "Searching for callers."),
          ask(T26 + 3900, "command", "git push"), ask(T26 + 7900, "tool", json.dumps({"tool": "appliedDiff"})),
          say(T26 + 8500, "user_feedback", "keep the old name as an alias"),
          say(T26 + 10000, "completion_result", "Renamed.")]
    history = {"id": "t-native", "number": 3, "ts": T26 + 10000, "task": "Rename total() to sum_total()",
               "tokensIn": 1200, "tokensOut": 80, "totalCost": 0.01, "size": 4096, "workspace": "/home/u/shop",
               "mode": "code", "status": "completed"}
    return task(tmp, where, "t-native", api, ui, history=history)


def test_a_native_era_task_in_kilo_codes_folder(tmp_path: Path) -> None:
    path = native_task(tmp_path)
    assert detect(path).name == "roo_code"
    trace, manifest = traced(path, tmp_path)
    cfg = trace["agent_config"]
    assert cfg["agent"] == "kilo-code" and cfg["mode"] == "code"
    assert steps(trace) == [("user_message", None, None), ("agent_step", "search_files", True),
                            ("agent_step", "execute_command", False), ("agent_step", "read_file", False),
                            ("agent_step", "edit", True), ("user_message", None, None),
                            ("agent_step", "attempt_completion", None)]
    assert trace["steps"][5]["input"] == "keep the old name as an alias"
    assert trace["steps"][1]["reasoning"].startswith("Find every caller first.")
    s = RooCodeSource().read(path, ReadContext())[0]
    assert s.quality.encrypted_reasoning == 1 and s.quality.extra["rejected_calls"] == 1
    assert s.meta.cwd == "/home/u/shop"


def test_a_subtask_is_read_with_its_parent_and_linked_to_its_call(tmp_path: Path) -> None:
    child_id = "c0ffee00-0000-4000-8000-000000000002"
    parent_api = [
        {"role": "user", "content": [{"type": "text", "text": "<user_message>\nAudit the API\n</user_message>"}],
         "ts": T26},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_nt", "name": "new_task", "input": {
            "mode": "ask", "message": "List every endpoint in api/", "todos": "- [ ] list"}}], "ts": T26 + 1000},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_nt", "content":
                                      f"Subtask {child_id} completed.\n\nResult:\nThree endpoints."}],
         "ts": T26 + 9000},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_done", "name": "attempt_completion",
                                           "input": {"result": "Audited."}}], "ts": T26 + 10000},
    ]
    parent = task(tmp_path, ROO, "p-parent", parent_api, [say(T26, "text", "Audit the API"),
                                                          say(T26 + 9000, "subtask_result", "Three endpoints.")],
                  history={"id": "p-parent", "number": 1, "ts": T26, "task": "Audit the API", "tokensIn": 0,
                           "tokensOut": 0, "totalCost": 0, "childIds": [child_id], "status": "active"})
    child_api = [
        {"role": "user", "content": [{"type": "text", "text": "<user_message>\nList every endpoint in api/\n"
                                      "</user_message>"}], "ts": T26 + 2000},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_ls", "name": "list_files",
                                           "input": {"path": "api", "recursive": False}}], "ts": T26 + 3000},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_ls", "content": "a.py\nb.py\nc.py"}],
         "ts": T26 + 4000},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_c", "name": "attempt_completion",
                                           "input": {"result": "Three endpoints."}}], "ts": T26 + 5000},
    ]
    child = task(tmp_path, ROO, child_id, child_api, [say(T26 + 2000, "text", "List every endpoint in api/")],
                 history={"id": child_id, "number": 2, "ts": T26 + 5000, "task": "List every endpoint in api/",
                          "tokensIn": 0, "tokensOut": 0, "totalCost": 0, "parentTaskId": "p-parent",
                          "rootTaskId": "p-parent", "mode": "ask", "status": "completed"})
    src = RooCodeSource()
    assert src.discover(tmp_path / ROO) == [parent]
    assert src.session_of(child) == parent
    trace, _ = traced(parent, tmp_path, [tmp_path / ROO])
    tools = [(s.get("tool"), s.get("actor")) for s in trace["steps"] if s.get("tool")]
    assert tools == [("new_task", "agent"), ("list_files", f"subagent:{child_id}"),
                     ("attempt_completion", f"subagent:{child_id}"), ("attempt_completion", "agent")]
    (sub,) = trace["agent_config"]["subagents"]
    assert sub["id"] == child_id and sub["parent_call_id"] == "toolu_nt" and sub["link_rule"] == "roo-subtask-id"


def test_condensed_and_truncated_history_is_the_earlier_work(tmp_path: Path) -> None:
    cid, tid = "cond-1", "trunc-1"
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<user_message>\nLong job\n</user_message>"}],
         "ts": T26, "condenseParent": cid},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "read_file",
                                           "input": {"path": "a.py"}}], "ts": T26 + 1000, "condenseParent": cid,
         "truncationParent": tid},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "print(1)"}],
         "ts": T26 + 2000, "condenseParent": cid, "truncationParent": tid},
        {"role": "user", "content": "[Sliding window truncation: 2 messages hidden to reduce context]",
         "ts": T26 + 2999, "isTruncationMarker": True, "truncationId": tid, "condenseParent": cid},
        {"role": "assistant", "content": [{"type": "text", "text": "Read a.py."}], "ts": T26 + 3000,
         "condenseParent": cid},
        {"role": "user", "content": [{"type": "text", "text": "## Conversation Summary\nRead a.py; it prints 1."},
                                     {"type": "text", "text": ENV}], "ts": T26 + 3001, "isSummary": True,
         "condenseId": cid},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_b", "name": "attempt_completion",
                                           "input": {"result": "Done."}}], "ts": T26 + 4000},
    ]
    ui = [say(T26, "text", "Long job"),
          say(T26 + 2999, "sliding_window_truncation", "", contextTruncation={
              "truncationId": tid, "messagesRemoved": 2, "prevContextTokens": 9000, "newContextTokens": 4000}),
          say(T26 + 3001, "condense_context", "", contextCondense={
              "cost": 0.01, "prevContextTokens": 9000, "newContextTokens": 300, "summary": "Read a.py; it prints 1.",
              "condenseId": cid})]
    path = task(tmp_path, "copied", "t-cond", api, ui)  # copied out of globalStorage: its fields say whose it is
    assert detect(path).name == "roo_code"
    trace, _ = traced(path, tmp_path)
    assert [s.get("tool") for s in trace["steps"] if s.get("tool")] == ["read_file", "attempt_completion"]
    s = RooCodeSource().read(path, ReadContext())[0]
    assert s.quality.compactions == 1
    assert s.quality.extra["messages_condensed"] == 5 and s.quality.extra["messages_truncated"] == 2
    assert s.quality.extra["truncation_markers"] == 1
    (comp,) = [e for e in s.events if e.kind == "compaction"]
    assert comp.text == "## Conversation Summary\nRead a.py; it prints 1."


def test_an_encrypted_reasoning_item_is_counted(tmp_path: Path) -> None:
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nSay hi\n</task>"}], "ts": T25},
        {"type": "reasoning", "summary": [], "encrypted_content": "gAAAAB-opaque", "id": "rs_1", "ts": T25 + 900},
        {"role": "assistant", "content": [{"type": "text", "text": "<attempt_completion>\n<result>\nhi\n</result>\n"
                                           "</attempt_completion>"}], "ts": T25 + 1000, "id": "resp_1"},
    ]
    path = task(tmp_path, ROO, "t-enc", api, [say(T25, "text", "Say hi")])
    trace, manifest = traced(path, tmp_path)
    s = RooCodeSource().read(path, ReadContext())[0]
    assert s.quality.encrypted_reasoning == 1
    (api_ledger,) = [f for f in manifest["ledger"] if f["path"].endswith("api_conversation_history.json")]
    assert api_ledger["totals"]["set_aside"] == 1


def test_damaged_files_are_read_as_far_as_they_go(tmp_path: Path) -> None:
    path = xml_task(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])  # cut off mid-write
    (path.parent / "ui_messages.json").write_text("[{\"ts\": 1, \"type\": \"say\", \"say\": \"text\", \"text\": \"x\"},"
                                                  " not json]", "utf-8")
    s = RooCodeSource().read(path, ReadContext())[0]
    assert s.events and s.quality.unparsable_records >= 1 and s.warnings


def test_a_task_only_history_item_tells_apart_is_roo_codes(tmp_path: Path) -> None:
    api = [{"role": "user", "content": [{"type": "text", "text": "<task>\nhi\n</task>"}], "ts": T25}]
    plain = task(tmp_path, "a", "t1", api, [say(T25, "text", "hi")])
    assert detect(plain).name == "cline"  # nothing exact says Roo Code: Cline's
    marked = task(tmp_path, "b", "t1", api, [say(T25, "text", "hi")], history={"id": "t1"})
    assert detect(marked).name == "roo_code"
    assert detect(marked.parent / "history_item.json").name == "roo_code"


def test_roo_codes_parser_keeps_a_files_blank_lines_where_clines_trims() -> None:
    text = "<write_to_file>\n<path>a.txt</path>\n<content>\n\nx\n\n</content>\n</write_to_file>"
    (roo,) = split(text, None, GRAMMAR) or []
    (cline,) = split(text) or []
    assert not isinstance(roo, tuple) and not isinstance(cline, tuple)
    assert roo.params["content"] == "\nx\n" and cline.params["content"] == "x"
    assert split("<apply_diff>\n<path>a</path>\n</apply_diff>") is None  # not a tool Cline knew


CLINE_LOGS = sorted([*(ROOT / "tests" / "fixtures" / "cline").rglob("api_conversation_history.json"),
                     *(REAL_LOGS / "cline").rglob("api_conversation_history.json")])


@pytest.mark.parametrize("path", CLINE_LOGS, ids=lambda p: p.parent.name)
def test_every_cline_task_still_reads_as_clines(path: Path) -> None:
    assert detect(path).name == "cline"
    assert not RooCodeSource().discover(path.parent)


def test_a_damaged_history_entry_is_said_and_never_breaks_the_task(tmp_path: Path) -> None:
    """history_item.json with bytes that are not UTF-8, and with a second write appended: the task
    is still traced, the bad bytes are U+FFFD in what is taken, the appended text is warned about
    with its line."""
    from forsy.sources.roo_code import RooCodeSource

    sample = next((Path(__file__).resolve().parent.parent / "sample_logs" / "roo_code").glob("*/history_item.json"))
    task = tmp_path / sample.parent.name
    shutil.copytree(sample.parent, task)
    data = sample.read_bytes()
    (task / "history_item.json").write_bytes(data.replace(b'"mode": "', b'"mode": "\xff\xfe', 1) + b"\n{\"id\": 1}\n")
    [s] = RooCodeSource().read(task / "api_conversation_history.json", ReadContext(root=tmp_path))
    assert s.events
    assert "\udcff" not in str(s.meta.extra.get("mode", ""))
    lines = data.count(b"\n") + 2
    assert any(w.code == "unparsable" and w.file and w.file.endswith("history_item.json") and w.line == lines
               for w in s.warnings), [(w.code, w.file, w.line) for w in s.warnings]
