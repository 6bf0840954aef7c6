"""What the last pre-SDK Cline writer puts in a task folder that the reader misread or did not
know (cline/cline 864419d8b0, apps/vscode/src: core/task/index.ts, core/task/ToolExecutor.ts,
shared/messages/content.ts, the tool handlers). Task folders built by hand in the writer's
shape; expectations by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _oracle import retrace
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.cline import ClineSource

T = 1780000000000
TASK_API = {"role": "user", "content": [{"type": "text", "text": "<task>\nfix it\n</task>"}], "ts": T + 10}
TASK_UI = {"ts": T, "type": "say", "say": "task", "text": "fix it"}


def _read(tmp_path: Path, api: list[dict[str, Any]], ui: list[dict[str, Any]]) -> Session:
    folder = tmp_path / "tasks" / str(T)
    folder.mkdir(parents=True)
    (folder / "api_conversation_history.json").write_text(json.dumps([TASK_API, *api], indent=1), "utf-8")
    (folder / "ui_messages.json").write_text(json.dumps([TASK_UI, *ui], indent=1), "utf-8")
    [s] = ClineSource().read(folder / "api_conversation_history.json", ReadContext(root=tmp_path))
    return s


def _use(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": cid, "name": name, "input": args}


def test_api_messages_own_times_time_the_results(tmp_path: Path) -> None:
    """Since v3.67.0 each API message has `ts` (content.ts ClineStorageMessage.ts, cline/cline
    03ab2968a6; index.ts writes Date.now() with every addToApiConversationHistory): a result's
    time (its user message's) was null, and so was an assistant message's with no UI record."""
    api = [{"role": "assistant", "content": [_use("t1", "read_file", path="a.py")], "ts": T + 2000},
           {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                         "content": "[read_file for 'a.py'] Result:\nprint(1)"}], "ts": T + 5000},
           {"role": "assistant", "content": [{"type": "text", "text": "Done."}], "ts": T + 7000}]
    s = _read(tmp_path, api, [])
    res = next(e for e in s.events if e.kind == "tool_result")
    assert res.ts == "2026-05-28T20:26:45.000Z" and res.ts_from is not None and res.ts_from.pointer == "/ts"
    call, text = (next(e for e in s.events if e.kind == k) for k in ("tool_call", "agent_text"))
    assert (call.ts, text.ts) == ("2026-05-28T20:26:42.000Z", "2026-05-28T20:26:47.000Z")


def test_an_interrupted_response_is_cut_from_the_models_words(tmp_path: Path) -> None:
    """index.ts (abort path): the partial response is saved with "\\n\\n[Response interrupted by
    user]" or "...by API Error]" after it, and an empty response as "Failure: I did not provide a
    response.": Cline's words, which were the model's answer."""
    api = [{"role": "assistant", "content": [{"type": "text",
                                              "text": "Let me look\n\n[Response interrupted by user]"}]},
           {"role": "user", "content": [{"type": "text", "text": "New instructions for task continuation:\n"
                                                                  "<user_message>\ngo on\n</user_message>"}]},
           {"role": "assistant", "content": [{"type": "text",
                                              "text": "Partial\n\n[Response interrupted by API Error]"}]},
           {"role": "user", "content": [{"type": "text", "text": "[TASK RESUMPTION] This task was interrupted."}]},
           {"role": "assistant", "content": [{"type": "text", "text": "Failure: I did not provide a response."}]}]
    s = _read(tmp_path, api, [])
    got = [(e.kind, e.actor, e.text, getattr(e.info, "api_error", None)) for e in s.events if e.kind != "user"]
    assert got == [("agent_text", "agent", "Let me look", False),
                   ("interrupt", "user", "[Response interrupted by user]", None),
                   ("agent_text", "agent", "Partial", False),
                   ("agent_text", "agent", "[Response interrupted by API Error]", True),
                   ("agent_text", "agent", "Failure: I did not provide a response.", True)]
    assert s.quality.extra["responses_interrupted"] == 2
    # a message of injected context alone (a resumption with no new words) is accounted for
    [resumed] = [k for k in _api_ids(tmp_path, s) if b"[TASK RESUMPTION]" in _bytes(tmp_path, s, k)]
    assert s.ledger[resumed].heading == "set_aside"


def _bytes(tmp_path: Path, s: Session, k: str) -> bytes:
    ev = s.evidence[k]
    raw = (tmp_path / ev.source).read_bytes()
    return raw[ev.byte_offset:ev.byte_offset + ev.byte_length]


def _api_ids(tmp_path: Path, s: Session) -> list[str]:
    return [k for k, ev in s.evidence.items() if ev.source.endswith("api_conversation_history.json")]


def test_the_trace_of_an_interrupted_response_verifies(tmp_path: Path) -> None:
    """The words and the error cut out of one string are copied as slices (C-span): the trace's
    steps say them apart, and `forsy verify` (in `retrace`) agrees with the log."""
    api = [{"role": "assistant", "content": [{"type": "text",
                                              "text": "Partial\n\n[Response interrupted by API Error]"}]}]
    _read(tmp_path, api, [])
    [trace] = retrace(tmp_path / "tasks" / str(T) / "api_conversation_history.json", tmp_path / "out")
    assert [(st["output"], st["success"]) for st in trace["steps"][1:]] == [
        ("Partial", True), ("[Response interrupted by API Error]", False)]


def test_calls_cline_did_not_run_are_their_results_not_prompts(tmp_path: Path) -> None:
    """ToolExecutor.ts writes a plain text block where a call's result would be: "Skipping tool due
    to user rejecting a previous tool. [read_file for 'c.py']" (createToolRejectionMessage), "Tool
    [list_files] was not executed because a tool has already been used in this message."
    (toolAlreadyUsed), and after a result "Tool [read_file] has been called 3 times consecutively
    with identical arguments." (repeatedToolCall). Each was read as the person's prompt and the
    skipped calls as missing their results."""
    api = [{"role": "assistant", "content": [_use("t1", "write_to_file", path="b.py", content="x"),
                                             _use("t2", "read_file", path="c.py")]},
           {"role": "user", "content": [
               {"type": "tool_result", "tool_use_id": "t1",
                "content": "[write_to_file for 'b.py'] Result:\nThe user denied this operation."},
               {"type": "text",
                "text": "Skipping tool due to user rejecting a previous tool. [read_file for 'c.py']"}]},
           {"role": "assistant", "content": [_use("t3", "read_file", path="a.py"), _use("t4", "list_files", path=".")]},
           {"role": "user", "content": [
               {"type": "tool_result", "tool_use_id": "t3", "content": "[read_file for 'a.py'] Result:\nprint(1)"},
               {"type": "text", "text": "Tool [list_files] was not executed because a tool has already been used in "
                                        "this message. Only one tool may be used per message."},
               {"type": "text", "text": "Tool [read_file] has been called 3 times consecutively with identical "
                                        "arguments. This is not making progress."}]}]
    s = _read(tmp_path, api, [])
    assert [e.text for e in s.events if e.kind == "user"] == ["fix it"]
    results = {e.call_id: e for e in s.events if e.kind == "tool_result"}
    assert set(results) == {"t1", "t2", "t3", "t4"} and s.quality.missing_results == 0
    t2, t4 = results["t2"], results["t4"]
    assert t2.is_error and t2.info is not None and getattr(t2.info, "rejected", False)
    assert t4.is_error and getattr(t4.info, "failure_rule", None) == "R-call/cline-failure-text"
    assert s.quality.extra["rejected_calls"] == 2
    [note] = [e for e in s.events if e.kind == "note"]
    assert (note.actor, getattr(note.info, "subtype", None)) == ("system", "repeated_tool_call")


def test_the_last_writers_ui_kinds_are_accounted_for(tmp_path: Path) -> None:
    """index.ts says `error_retry` before retrying a failed request itself;
    GenerateExplanationToolHandler.ts and SubagentToolHandler.ts say `generate_explanation` and
    `use_subagents`: each stayed unknown in the ledger, warned."""
    api = [{"role": "assistant", "content": [{"type": "text", "text": "Done."}]}]
    ui = [{"ts": T + 1, "type": "say", "say": "text", "text": "Done.", "conversationHistoryIndex": 0},
          {"ts": T + 2, "type": "say", "say": "error_retry", "conversationHistoryIndex": 0,
           "text": json.dumps({"attempt": 1, "maxAttempts": 3, "delaySeconds": 2, "errorMessage": "overloaded"})},
          {"ts": T + 3, "type": "say", "say": "generate_explanation", "text": "{}", "conversationHistoryIndex": 0},
          {"ts": T + 4, "type": "say", "say": "use_subagents", "text": "{}", "conversationHistoryIndex": 0}]
    s = _read(tmp_path, api, ui)
    heads = {}
    for k, ev in s.evidence.items():
        for kind in ("error_retry", "generate_explanation", "use_subagents"):
            if ev.source.endswith("ui_messages.json") and f'"say": "{kind}"'.encode() in _bytes(tmp_path, s, k):
                heads[kind] = s.ledger[k].heading if k in s.ledger else None
    assert heads == {"error_retry": "set_aside", "generate_explanation": "duplicate", "use_subagents": "duplicate"}
