"""Cline's SDK sessions (`<session id>.messages.json`), built by hand from the writer at
cline/cline commit 21cb8d2525bcedf1f4b6890b27a74a14fe7451e4 (2026-08-22):
sdk/packages/core/src/services/session-data.ts (`buildMessagesFilePayload`, the file's
members), sdk/packages/shared/src/llms/messages.ts (`MessageWithMetadata` and its blocks),
sdk/packages/shared/src/prompt/format.ts (`<user_input mode>`), sdk/packages/core/src/session/
user-run-messages.ts (the runtime's own user-role messages) and
sdk/packages/core/src/extensions/context/compaction-shared.ts (a compaction summary).
The extension no longer writes ui_messages.json / api_conversation_history.json for new tasks
(apps/vscode/src/sdk/legacy-state-reader.ts reads them only for tasks made before).
Expectations by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from forsy.cli import app
from forsy.payloads import MessageInfo, NoteInfo
from forsy.sources import ReadContext, available, detect, read_head
from forsy.sources.cline import ClineSource

SID = "sess_1"
WRAPPED = '<user_input mode="act">fix the failing test</user_input>'


def _file(tmp_path: Path, messages: list[Any], **more: Any) -> Path:
    doc = {"version": 1, "updated_at": "2026-08-20T10:00:05.000Z", "agent": "lead", "sessionId": SID,
           "origin": {"source": "vscode", "mode": "user", "sessionId": SID}, "messages": messages, **more}
    p = tmp_path / "sessions" / SID / f"{SID}.messages.json"
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps(doc, indent=2) + "\n", "utf-8")
    return p


MESSAGES: list[Any] = [
    {"id": "m1", "role": "user", "ts": 1787220000000, "content": [{"type": "text", "text": WRAPPED}]},
    {"id": "m2", "role": "assistant", "ts": 1787220001000, "modelInfo": {"id": "claude-x", "provider": "anthropic"},
     "metrics": {"inputTokens": 10, "outputTokens": 4, "cacheReadTokens": 2, "cost": 0.1},
     "content": [{"type": "thinking", "thinking": "run it"}, {"type": "text", "text": "Running the tests."},
                 {"type": "tool_use", "id": "t1", "name": "run_commands", "input": {"commands": ["pytest"]}},
                 {"type": "redacted_thinking", "data": "xx"}]},
    {"id": "m3", "role": "user", "ts": 1787220002000, "content": [
        {"type": "tool_result", "tool_use_id": "t1", "name": "run_commands", "content": "1 failed", "is_error": True}]},
    {"id": "m4", "role": "user", "ts": 1787220003000, "metadata": {"kind": "compaction_summary",
     "displayRole": "system", "userRunSpan": 1}, "content": [{"type": "text", "text": "Summary: tests fail"}]},
    {"id": "m5", "role": "user", "ts": 1787220004000, "metadata": {"userRunSpan": 0, "displayRole": "system"},
     "content": [{"type": "text", "text": "hook said hi"}]},
    {"id": "m6", "role": "user", "ts": 1787220005000, "content": "[TASK RESUMPTION] resumed"},
    {"id": "m7", "role": "assistant", "ts": 1787220006000, "content": "Done."},
]


def test_an_sdk_session_is_found_and_read_whole(tmp_path: Path) -> None:
    p = _file(tmp_path, MESSAGES, system_prompt="You are Cline.")
    assert isinstance(detect(p), ClineSource)
    assert [src.name for src in available() if src.sniff(p, read_head(p))] == ["cline"]  # no other reader's
    assert ClineSource().discover(tmp_path) == [p]
    [s] = ClineSource().read(p, ReadContext(root=tmp_path))
    got = [(e.kind, e.actor, e.text, s.evidence[e.refs[0].ev].line, e.refs[0].pointer, e.ts) for e in s.events]
    line = {m["id"]: 1 + p.read_text().split("\n").index(f'      "id": "{m["id"]}",') - 1 for m in MESSAGES}
    assert got == [
        ("user", "user", "fix the failing test", line["m1"], "/content/0/text", "2026-08-20T10:00:00.000Z"),
        ("reasoning", "agent", "run it", line["m2"], "/content/0/thinking", "2026-08-20T10:00:01.000Z"),
        ("agent_text", "agent", "Running the tests.", line["m2"], "/content/1/text", "2026-08-20T10:00:01.000Z"),
        ("tool_call", "agent", None, line["m2"], "/content/2/input", "2026-08-20T10:00:01.000Z"),
        ("tool_result", "agent", "1 failed", line["m3"], "/content/0/content", "2026-08-20T10:00:02.000Z"),
        ("compaction", "system", "Summary: tests fail", line["m4"], "/content/0/text", "2026-08-20T10:00:03.000Z"),
        ("note", "system", "hook said hi", line["m5"], "/content/0/text", "2026-08-20T10:00:04.000Z"),
        ("note", "system", "[TASK RESUMPTION] resumed", line["m6"], "/content", "2026-08-20T10:00:05.000Z"),
        ("agent_text", "agent", "Done.", line["m7"], "/content", "2026-08-20T10:00:06.000Z"),
    ]
    user, call, result = s.events[0], s.events[3], s.events[4]
    assert user.info == MessageInfo(span=(len('<user_input mode="act">'), WRAPPED.index("</")), wrapped="user_input")
    assert (call.call_id, call.tool, call.args, call.group) == ("t1", "run_commands", {"commands": ["pytest"]}, "M1")
    assert (result.call_id, result.is_error) == ("t1", True)
    assert s.events[6].info == NoteInfo(subtype="system")
    assert s.session_id == SID and s.meta.system_prompt == "You are Cline."
    assert s.meta.models == ["claude-x"]
    assert s.meta.token_usage == {"input": 10, "output": 4, "cache_read": 2}
    assert s.quality.compactions == 1 and s.quality.extra["sdk_redacted_thinking"] == 1
    assert s.meta.extra["sdk_agent"] == "lead"
    assert s.warnings == []
    # every member but `messages` is a record marked as the header; every message is cited or marked
    marked = {s.evidence[k].record_type for k, m in s.ledger.items() if m.name.startswith("the session file's")}
    assert marked == {"version", "updated_at", "agent", "sessionId", "origin", "system_prompt"}
    assert s.quality.records == 7 + 6


def test_a_retrace_of_an_sdk_session_accounts_for_every_record(tmp_path: Path) -> None:
    p = _file(tmp_path, MESSAGES)
    (p.parent / f"{SID}.json").write_text(json.dumps({"session_id": SID, "cwd": "/w", "status": "completed"}), "utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["retrace", str(p), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    ledger = json.dumps(manifest.get("ledger"))
    assert '"unknown"' not in ledger or '"unknown": 0' in ledger
    v = CliRunner().invoke(app, ["verify", str(out), str(p.parent)])
    assert v.exit_code == 0, v.output
    trace = json.loads((out / "trace.json").read_text("utf-8"))
    # the SDK's tool names are in forsy.tools (definitions.ts): run_commands executes
    assert [(st.get("tool"), st.get("operation"), st.get("success")) for st in trace["steps"] if st.get("tool")] == [
        ("run_commands", "execute", False)]


def test_an_unwrapped_prompt_is_the_whole_text_and_an_orphan_result_is_warned(tmp_path: Path) -> None:
    p = _file(tmp_path, [
        {"id": "a", "role": "user", "content": "plain words"},
        {"id": "b", "role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "zz", "name": "read_files",
             "content": [{"type": "text", "text": "x"}, {"type": "image", "data": "", "mediaType": "image/png"}]}]},
    ])
    [s] = ClineSource().read(p, ReadContext(root=tmp_path))
    assert [(e.kind, e.text, e.refs[0].pointer, e.info) for e in s.events][:1] == [
        ("user", "plain words", "/content", None)]
    res = s.events[1]
    assert (res.kind, res.text, res.refs[0].pointer, res.tool, res.is_error) == (
        "tool_result", "x", "/content/0/content/0/text", "read_files", False)
    assert s.quality.extra["sdk_result_images"] == 1
    assert [w.code for w in s.warnings] == ["orphan-result"]


def test_runtime_prompts_in_the_wrapper_are_notes_and_a_mode_notice_is_cut_off(tmp_path: Path) -> None:
    """The runtime wraps its own prompts like the person's (`formatModePrompt`): a resumption, the
    act-mode continuation (apps/vscode/src/sdk/sdk-user-message-mapping.ts `isSyntheticUserPrompt`),
    teammate updates (team-session-coordinator.ts); `<hook_context>` may come without metadata; a
    mode switch prepends `<mode_notice>…</mode_notice>\\n` to the person's words
    (sdk-session-lifecycle.ts, format.ts `formatModeSwitchNotice`)."""
    notice = "<mode_notice>The user switched from plan mode to act mode before sending this message.</mode_notice>"
    texts = ['<user_input mode="act">[TASK RESUMPTION] This task was interrupted.</user_input>',
             '<user_input mode="act">The user approved switching to act mode. Continue with the approved plan now.'
             '</user_input>',
             '<hook_context source="PreToolUse">x</hook_context>',
             '<user_input mode="act">System-delivered teammate async run updates:\n- a done</user_input>',
             f'<user_input mode="act">{notice}\nnow do it</user_input>',
             f'<user_input mode="act">{notice}</user_input>']
    p = _file(tmp_path, [{"id": f"u{i}", "role": "user", "content": [{"type": "text", "text": t}]}
                         for i, t in enumerate(texts)])
    [s] = ClineSource().read(p, ReadContext(root=tmp_path))
    assert [(e.kind, e.actor, e.text if e.kind == "user" else e.info) for e in s.events] == [
        ("note", "system", NoteInfo(subtype="continuation")), ("note", "system", NoteInfo(subtype="continuation")),
        ("note", "system", NoteInfo(subtype="hook_context")), ("note", "system", NoteInfo(subtype="team_updates")),
        ("user", "user", "now do it")]
    start = len('<user_input mode="act">') + len(notice) + 1
    assert s.events[4].info == MessageInfo(span=(start, start + len("now do it")), wrapped="user_input")
    assert [m.name for m in s.ledger.values()].count("a user message with no words (a mode notice alone)") == 1


def test_the_manifest_beside_gives_the_working_directory_and_how_the_session_ended(tmp_path: Path) -> None:
    """sdk/packages/core/src/session/models/session-manifest.ts (SessionManifestSchema) and
    session-data.ts `buildManifestFromRow`: `<session id>.json` beside the messages."""
    p = _file(tmp_path, [{"id": "a", "role": "user", "content": "hi"}])
    manifest = {"version": 1, "session_id": SID, "source": "vscode", "pid": 7, "started_at": "2026-08-20T10:00:00Z",
                "status": "failed", "exit_code": 1, "interactive": True, "provider": "anthropic", "model": "claude-x",
                "cwd": "/work/app", "workspace_root": "/work", "enable_tools": True, "enable_spawn": False,
                "enable_teams": False}
    (p.parent / f"{SID}.json").write_text(json.dumps(manifest, indent=2), "utf-8")
    [s] = ClineSource().read(p, ReadContext(root=tmp_path))
    assert s.meta.cwd == "/work/app"
    assert {k: v for k, v in s.meta.extra.items() if k in ("sdk_status", "sdk_exit_code", "sdk_workspace_root")} == {
        "sdk_status": "failed", "sdk_exit_code": 1, "sdk_workspace_root": "/work"}
    assert [f.path for f in s.files] == [f"sessions/{SID}/{SID}.messages.json", f"sessions/{SID}/{SID}.json"]
    [ev] = [e for e in s.evidence.values() if e.record_type == "manifest"]
    assert s.ledger[ev.id].heading == "metadata"
    (p.parent / f"{SID}.json").write_text("[1]", "utf-8")
    [s] = ClineSource().read(p, ReadContext(root=tmp_path))
    assert s.meta.cwd is None and [w.code for w in s.warnings] == ["unparsable"]


def test_structured_tool_results_are_read_each_operation_and_its_failure(tmp_path: Path) -> None:
    """run_commands, read_files and editor return ToolOperationResult objects
    (sdk/packages/core/src/extensions/tools/types.ts: `{query, result, error?, success, duration?}`),
    persisted as an array as they are (session/persisted-tool-result-content.ts): their words were
    lost and a failed command read as no failure."""
    ops = [{"query": "ls", "result": "a.txt", "success": True, "duration": 3},
           {"query": "false", "result": "", "error": "exit code 1", "success": False}]
    p = _file(tmp_path, [
        {"id": "a", "role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "run_commands",
                                                      "input": {"commands": ["ls", "false"]}}]},
        {"id": "b", "role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "name": "run_commands",
                                                 "content": ops}]},
        {"id": "c", "role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "name": "web",
                                                 "content": [{"url": "u", "title": "t"}]}]},
    ])
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["retrace", str(p), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    [s] = ClineSource().read(p, ReadContext(root=tmp_path))
    res = s.events[1]
    assert (res.kind, res.text, res.is_error) == ("tool_result", "a.txt\n\nexit code 1", True)
    assert [r.pointer for r in res.refs] == ["/content/0/content/0/result", "/content/0/content/1/result",
                                             "/content/0/content/1/error"]
    other = s.events[2]
    assert (other.text, other.is_error, [r.pointer for r in other.refs]) == (
        '{"url":"u","title":"t"}', False, ["/content/0/content/0"])
    v = CliRunner().invoke(app, ["verify", str(out), str(p.parent)])
    assert v.exit_code == 0, v.output


def test_the_sdks_empty_content_placeholder_is_no_ones_words(tmp_path: Path) -> None:
    """agent-message-codec.ts gives a message with no blocks the text EMPTY_CONTENT_TEXT
    ("ERROR: EMPTY CONTENT", ai-sdk-format.ts); written back with the conversation
    (agentMessagesToMessagesWithMetadata) it is neither the model's text nor a prompt."""
    empty = [{"type": "text", "text": "ERROR: EMPTY CONTENT"}]
    p = _file(tmp_path, [{"id": "a", "role": "user", "content": empty},
                         {"id": "b", "role": "assistant", "content": empty}])
    [s] = ClineSource().read(p, ReadContext(root=tmp_path))
    assert [(e.kind, e.actor, e.info) for e in s.events] == [("note", "system", NoteInfo(subtype="empty_content"))] * 2


def test_the_summary_the_agent_submits_and_exits_with_is_the_final_output(tmp_path: Path) -> None:
    """The SDK's run ends with `submit_and_exit {summary, verified}` (definitions.ts, completesRun),
    the extension's with `attempt_completion {result}`: the agent's answer given by a tool call
    (T-final/answer-call, copied from the call's arguments) and the run complete
    (T-termination/answer-call). A later text answer is the final output instead."""
    done = [
        {"id": "m1", "role": "user", "ts": 1787220000000, "content": [{"type": "text", "text": WRAPPED}]},
        {"id": "m2", "role": "assistant", "ts": 1787220001000, "content": [
            {"type": "tool_use", "id": "t9", "name": "submit_and_exit",
             "input": {"summary": "Fixed the off-by-one in pager.py; all tests pass.", "verified": True}}]},
        {"id": "m3", "role": "user", "ts": 1787220002000, "content": [
            {"type": "tool_result", "tool_use_id": "t9", "name": "submit_and_exit", "content": "ok"}]},
    ]
    for name, messages, final, ending in (
            ("a", done, "Fixed the off-by-one in pager.py; all tests pass.", "task_complete"),
            ("b", [*done, {"id": "m4", "role": "assistant", "ts": 1787220003000, "content": "One more thing."}],
             "One more thing.", "task_complete")):
        p = _file(tmp_path / name, messages)
        out = tmp_path / name / "out"
        r = CliRunner().invoke(app, ["retrace", str(p), "-o", str(out), "--no-redact"])
        assert r.exit_code == 0, r.output
        trace = json.loads((out / "trace.json").read_text("utf-8"))
        assert (trace["final_output"], trace["termination_reason"]) == (final, ending), name
        v = CliRunner().invoke(app, ["verify", str(out), str(p.parent)])  # the answer's place is checked
        assert v.exit_code == 0, v.output
    prov = json.loads((tmp_path / "a" / "out" / "provenance.json").read_text("utf-8"))["trace_fields"]["final_output"]
    assert (prov["rule"], prov["evidence"][0]["pointer"]) == ("T-final/answer-call", "/content/0/input/summary")
