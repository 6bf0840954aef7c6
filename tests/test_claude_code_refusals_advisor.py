"""A model's refusal and the tools its provider runs, as newer Claude Code versions write them,
each record built by hand in the writer's shape (made-up words):

* a server tool's result (`<tool>_tool_result` in the assistant message) whose content is an
  error object (`advisor_tool_result_error`, `web_search_tool_result_error`… with an
  `error_code`), or whose block says `is_error: true`, is a failed call citing where it says
  so; the advisor's `advisor_result` is its text; its `advisor_redacted_result` (encrypted for
  the model) is no readable output: a stated marker, never the ciphertext, counted as
  encrypted reasoning is. Shapes: Anthropic's SDK types (BetaAdvisorToolResultBlock,
  BetaAdvisorRedactedResultBlockParam: `encrypted_content`), the server tools' documented
  `*_tool_result_error` {error_code}; the advisor ships in Claude Code from 2.1.117.
* `system`/`model_refusal_fallback` (originalModel, fallbackModel, retractedMessageUuids,
  refusedUserMessageUuid, apiRefusalCategory, content): the refused model call is an error step,
  the records it names (the refused partial answer, withdrawn) are kept, their words that call's
  (an error, never merged into the fallback's answer), not flagged abandoned (no rewind by the
  person); the models are noted.
* `system`/`model_refusal_no_fallback`: the turn ends as an error (an error step, as an
  `api_error` record is), and an answer the API ended with `stop_reason: "refusal"` is no answer.
* the print-mode stream: the same records in snake_case, and a `result` whose `stop_reason` is
  `refusal` under subtype `success`, end the run as an error.
The refusal records' shapes: the Agent SDK's message schema ('Emitted when the model ends the
stream with stop_reason "refusal" and no fallback model is configured, so the turn ends as an
error'), and public readers of transcripts (camelCase there)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import forsy
from _claude_events_view import marks, session_of, warnings
from _small_logs import SESSION, _rec, user, write
from forsy.evidence import Session
from forsy.payloads import MessageInfo, NoteInfo, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource

CIPHER = "RU5DUllQVEVEIEFEVklDRQ=="


def _trace(tmp_path: Path, log: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    run = forsy.retrace([log], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(tmp_path / "out", parent=True))
    [o] = run.outcomes
    assert o.status == "written", o.message
    folder = Path(str(o.where))
    assert forsy.validate(folder).ok
    assert forsy.verify(folder, [log]).ok
    trace, prov, manifest = (json.loads((folder / f).read_text()) for f in ("trace.json", "provenance.json",
                                                                          "manifest.json"))
    return trace, prov, manifest


def _env(n: int, uuid: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"uuid": uuid, "parentUuid": parent, "isSidechain": False, "sessionId": SESSION, "version": "2.1.200",
            "timestamp": f"2026-01-01T10:00:{n:02d}.000Z", **fields}


def _asst(n: int, uuid: str, parent: str, blocks: list[dict[str, Any]], stop: str | None = None,
          model: str = "claude-test") -> dict[str, Any]:
    r = _rec(n, "assistant", blocks, uuid, parent)
    r["message"].update({"model": model, "stop_reason": stop})
    return r


# ------------------------------------------------------------------ server tool results

def _advisor(cid: str, content: Any) -> list[dict[str, Any]]:
    return [{"type": "server_tool_use", "id": cid, "name": "advisor", "input": {}},
            {"type": "advisor_tool_result", "tool_use_id": cid, "content": content}]


def _advisor_session(tmp_path: Path) -> Path:
    return write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Refactor the parser."),
        _asst(1, "a1", "u1", _advisor("srvtoolu_1", {"type": "advisor_tool_result_error", "error_code": "overloaded"})
              + [{"type": "text", "text": "No advice; going on alone."}]),
        _asst(2, "a2", "a1", _advisor("srvtoolu_2", {"type": "advisor_result", "text": "Split the tokenizer out."})
              + _advisor("srvtoolu_3", {"type": "advisor_redacted_result", "encrypted_content": CIPHER})
              + [{"type": "text", "text": "Done."}], stop="end_turn"),
    ])


def test_an_advisor_error_fails_its_call_its_advice_is_its_text_and_encrypted_advice_is_not_shown(
        tmp_path: Path) -> None:
    log = _advisor_session(tmp_path)
    [s] = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))
    results = [e for e in s.events if e.kind == "tool_result"]
    line = {r.ev: s.evidence[r.ev].line for e in results for r in e.refs}
    assert [(e.call_id, e.is_error, e.text, e.excerpt, [(line[r.ev], r.pointer) for r in e.refs]) for e in results] == [
        ("srvtoolu_1", True, '{"type":"advisor_tool_result_error","error_code":"overloaded"}', False,
         [(2, "/message/content/1/content")]),
        ("srvtoolu_2", False, "Split the tokenizer out.", False, [(3, "/message/content/1/content/text")]),
        ("srvtoolu_3", False, "[encrypted result omitted by forsy: advisor_redacted_result]", True,
         [(3, "/message/content/3/content")]),
    ]
    failed = results[0].info
    assert isinstance(failed, ResultInfo) and failed.failure_rule == "R-call/server-tool-error"
    assert [r.pointer for r in failed.outcome_refs or []] == ["/message/content/1/content/error_code"]
    assert not any(CIPHER in (e.text or "") for e in s.events)
    [note] = [e for e in s.events if e.kind == "note"]
    assert (note.info, note.refs[0].pointer) == (NoteInfo(subtype="encrypted_reasoning"), "/message/content/3/content")
    assert s.quality.encrypted_reasoning == 1
    assert s.warnings == []


def test_the_advisors_failed_call_is_a_failed_step_citing_the_error_code(tmp_path: Path) -> None:
    trace, prov, manifest = _trace(tmp_path, _advisor_session(tmp_path))
    steps = trace["steps"]
    assert [(st["tool"], st["success"], st["output"]) for st in steps[1:4]] == [
        ("advisor", False, '{"type":"advisor_tool_result_error","error_code":"overloaded"}'),
        ("advisor", True, "Split the tokenizer out."),
        ("advisor", True, "[encrypted result omitted by forsy: advisor_redacted_result]"),
    ]
    assert steps[1]["eval"] == -1 and steps[1]["eval_reason"] == "The tool returned an error."
    success = prov["steps"][1]["fields"]["success"]
    assert success["rule"] == "R-call/server-tool-error"
    assert [e["pointer"] for e in success["evidence"]] == ["/message/content/1/content/error_code"]
    assert prov["steps"][3]["fields"]["output"]["excerpt"] is True
    assert manifest["counts"]["encrypted_reasoning"] == 1
    assert trace["termination_reason"] == "task_complete" and trace["final_output"] == "Done."


def _server(tmp_path: Path, *blocks: dict[str, Any]) -> Session:
    return session_of(tmp_path, [user(0, "u1", None, "Look it up."), _asst(1, "a1", "u1", list(blocks))])


def test_any_server_tools_error_object_fails_its_call_alone_or_in_its_list(tmp_path: Path) -> None:
    s = _server(
        tmp_path,
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "s1",
         "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
        {"type": "server_tool_use", "id": "s2", "name": "web_fetch", "input": {"url": "https://example.test/"}},
        {"type": "web_fetch_tool_result", "tool_use_id": "s2", "content": [{"type": "web_fetch_tool_result_error"}]},
        {"type": "server_tool_use", "id": "s3", "name": "web_search", "input": {"query": "r"}},
        {"type": "web_search_tool_result", "tool_use_id": "s3",
         "content": [{"type": "web_search_result", "title": "T", "url": "https://example.test/t"}]},
    )
    results = [e for e in s.events if e.kind == "tool_result"]
    assert [(e.is_error, [r.pointer for r in e.info.outcome_refs or []] if isinstance(e.info, ResultInfo) else None)
            for e in results] == [
        (True, ["/message/content/1/content/error_code"]),
        (True, ["/message/content/3/content/0/type"]),  # no error_code: the error's type says it
        (False, None),
    ]
    assert results[2].text == '[{"type":"web_search_result","title":"T","url":"https://example.test/t"}]'


def test_a_server_result_flagged_is_error_fails_and_a_flag_of_another_kind_is_said(tmp_path: Path) -> None:
    """The API's MCP connector answers with `mcp_tool_result` {tool_use_id, is_error, content} (its
    call block, `mcp_tool_use`, is one forsy does not read: warned, as before)."""
    s = _server(
        tmp_path,
        {"type": "mcp_tool_use", "id": "m1", "name": "lookup", "server_name": "docs", "input": {}},
        {"type": "mcp_tool_result", "tool_use_id": "m1", "is_error": True, "content": [{"type": "text", "text": "no"}]},
        {"type": "mcp_tool_result", "tool_use_id": "m2", "is_error": "yes", "content": "maybe"},
    )
    r1, r2 = [e for e in s.events if e.kind == "tool_result"]
    assert r1.is_error is True and isinstance(r1.info, ResultInfo)
    assert r1.info.failure_rule is None and [r.pointer for r in r1.info.outcome_refs or []] == [
        "/message/content/1/is_error"]
    assert (r2.is_error, r2.text) == (None, "maybe")
    assert warnings(s) == [
        ("unread-content", "message.content[0] is a 'mcp_tool_use' block, a kind forsy does not read; not read",
         "s.jsonl", 2),
        ("field-type", "message.content[2].is_error is a string, not true/false; read as not known", "s.jsonl", 2)]


# ------------------------------------------------------------------ refusals in the transcript

def _fallback_session(tmp_path: Path) -> Path:
    return write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Summarise the report."),
        _asst(1, "a1", "u1", [{"type": "thinking", "thinking": "Let me see.", "signature": "sig"}],
              model="claude-fable-5"),
        _asst(2, "a2", "a1", [{"type": "text", "text": "The report says the first"}], stop="refusal",
              model="claude-fable-5"),
        _env(3, "s1", "a2", type="system", subtype="model_refusal_fallback", level="warning", trigger="refusal",
             direction="retry", originalModel="claude-fable-5", fallbackModel="claude-opus-4-8",
             apiRefusalCategory="cyber", retractedMessageUuids=["a1", "a2", "gone"], refusedUserMessageUuid="u1",
             content="Fable 5 refused this request. Switched to Opus 4.8."),
        _asst(4, "a3", "s1", [{"type": "text", "text": "The report covers three findings."}], stop="end_turn",
              model="claude-opus-4-8"),
    ])


def test_a_withdrawn_refused_answer_is_kept_as_the_failed_calls_and_the_refusal_is_an_error(
        tmp_path: Path) -> None:
    [s] = ClaudeCodeSource().read(_fallback_session(tmp_path), ReadContext(root=tmp_path))
    line = {e_id: ev.line for e_id, ev in s.evidence.items()}
    got = [(e.kind, e.text, e.abandoned, isinstance(e.info, MessageInfo) and e.info.api_error,
            line[e.refs[0].ev], e.refs[0].pointer) for e in s.events]
    assert got == [
        ("user", "Summarise the report.", False, False, 1, "/message/content"),
        ("reasoning", "Let me see.", False, False, 2, "/message/content/0/thinking"),
        ("agent_text", "The report says the first", False, True, 3, "/message/content/0/text"),
        ("agent_text", "Fable 5 refused this request. Switched to Opus 4.8.", False, True, 4, "/content"),
        ("agent_text", "The report covers three findings.", False, False, 5, "/message/content/0/text"),
    ]
    assert warnings(s) == [("refusal-withdrawn", "claude-fable-5 refused; Claude Code withdrew the 2 record(s) of "
                            "its answer and retried on claude-opus-4-8: kept, the refused words an error step, not "
                            "an answer (1 more named that this file does not hold)", "s.jsonl", 4)]
    # not flagged abandoned: the trace would call it a branch the person rewound away from
    assert s.meta.models == ["claude-fable-5", "claude-opus-4-8"]
    assert s.meta.extra["model_fallbacks"] == [{"originalModel": "claude-fable-5", "fallbackModel": "claude-opus-4-8",
                                                "apiRefusalCategory": "cyber", "line": 4}]
    assert 4 not in marks(s)  # no longer set aside: the record is the error step's


def test_after_a_fallback_the_answer_is_the_fallback_models_alone(tmp_path: Path) -> None:
    trace, prov, manifest = _trace(tmp_path, _fallback_session(tmp_path))
    assert [(st["action"], st["output"], st["success"]) for st in trace["steps"][1:]] == [
        ("agent_step", None, None),  # the refused call's thinking
        ("error", "The report says the first", False),
        ("error", "Fable 5 refused this request. Switched to Opus 4.8.", False),
        ("output", "The report covers three findings.", True),
    ]
    assert manifest["counts"]["abandoned_steps"] == 0  # withdrawn by Claude Code, not rewound by the person
    assert trace["final_output"] == "The report covers three findings."
    assert trace["termination_reason"] == "task_complete"
    assert trace["agent_config"]["models"] == ["claude-fable-5", "claude-opus-4-8"]
    [ledger] = manifest["ledger"]
    assert ledger["totals"]["unknown"] == 0 and ledger["totals"]["set_aside"] == 0


def test_a_refusal_without_fallback_ends_the_turn_as_an_error_and_its_words_are_no_answer(tmp_path: Path) -> None:
    log = write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Explain the scheduler."),
        _asst(1, "a1", "u1", [{"type": "text", "text": "The scheduler"}], stop="refusal", model="claude-opus-5"),
        _env(2, "s1", "a1", type="system", subtype="model_refusal_no_fallback", level="error",
             originalModel="claude-opus-5", requestId="req_1", apiRefusalCategory="reasoning_extraction",
             refusedUserMessageUuid="u1", content="Opus 5 refused this request and no fallback model is configured."),
    ])
    trace, prov, manifest = _trace(tmp_path, log)
    assert [(st["action"], st["output"], st["success"]) for st in trace["steps"][1:]] == [
        ("error", "The scheduler", False),
        ("error", "Opus 5 refused this request and no fallback model is configured.", False),
    ]
    assert trace["termination_reason"] == "error_unrecoverable"
    assert prov["trace_fields"]["termination_reason"]["rule"] == "T-termination/api-error"
    assert trace["final_output"] is None
    [ledger] = manifest["ledger"]
    assert ledger["totals"]["unknown"] == 0
    assert manifest["warnings"] == []


def test_a_refusal_in_a_subagents_transcript_is_withdrawn_in_its_thread(tmp_path: Path) -> None:
    main = write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Review it."),
        _asst(1, "a1", "u1", [{"type": "tool_use", "id": "t1", "name": "Agent",
                               "input": {"prompt": "Review the diff.", "subagent_type": "reviewer"}}]),
        {**_rec(7, "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "Fine."}], "r1", "a1"),
         "toolUseResult": {"status": "completed", "agentId": "x1", "content": [{"type": "text", "text": "Fine."}]}},
    ])
    sub = tmp_path / "s" / "subagents"
    sub.mkdir(parents=True)
    write(sub / "agent-x1.jsonl", [{**r, "isSidechain": True, "agentId": "x1"} for r in (
        user(2, "b1", None, "Review the diff."),
        _asst(3, "b2", "b1", [{"type": "text", "text": "The diff"}], stop="refusal"),
        _env(4, "b3", "b2", type="system", subtype="model_refusal_fallback", scope="local",
             originalModel="claude-test", fallbackModel="claude-other", retractedMessageUuids=["b2"],
             content="Switched to another model for this answer."),
        _asst(5, "b4", "b3", [{"type": "text", "text": "Fine."}], model="claude-other"))])
    [s] = ClaudeCodeSource().read(main, ReadContext(root=tmp_path))
    side = [(e.text, e.abandoned) for e in s.events if e.actor == "subagent:x1" and e.kind == "agent_text"]
    assert side == [("The diff", False), ("Switched to another model for this answer.", False), ("Fine.", False)]
    assert [w.code for w in s.warnings] == ["refusal-withdrawn"]


# ------------------------------------------------------------------ the print-mode stream

SID = "5e0c2b1a-7d3e-4f6a-9b8c-1d2e3f4a5b6c"


def _msg(n: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "session_id": SID, "uuid": f"0b6a0c1e-1111-4a2b-8c3d-{n:012d}", **fields}


def _said(n: int, text: str, stop: str | None, model: str = "claude-opus-5") -> dict[str, Any]:
    return _msg(n, "assistant", parent_tool_use_id=None, message={
        "id": f"msg_{n}", "type": "message", "role": "assistant", "model": model, "stop_reason": stop,
        "content": [{"type": "text", "text": text}]})


def _stream(tmp_path: Path, *messages: dict[str, Any]) -> Path:
    init = _msg(1, "system", subtype="init", cwd="/repo", tools=["Bash"], model="claude-opus-5",
                claude_code_version="2.1.200", permissionMode="default")
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in (init, *messages)))
    return path


def _result(n: int, **fields: Any) -> dict[str, Any]:
    return _msg(n, "result", subtype="success", is_error=False, result="The scheduler", num_turns=1,
                total_cost_usd=0.01, **fields)


def test_a_streamed_refusal_without_fallback_is_an_error_not_a_set_aside_notice(tmp_path: Path) -> None:
    log = _stream(tmp_path, _said(2, "The scheduler", "refusal"),
                  _msg(3, "system", subtype="model_refusal_no_fallback", original_model="claude-opus-5",
                       request_id="req_1", api_refusal_category="reasoning_extraction",
                       content="Opus 5 refused this request."),
                  _result(4))
    trace, prov, manifest = _trace(tmp_path, log)
    assert [(st["action"], st["output"]) for st in trace["steps"]] == [
        ("error", "The scheduler"), ("error", "Opus 5 refused this request.")]
    assert trace["termination_reason"] == "error_unrecoverable" and trace["final_output"] is None
    [ledger] = manifest["ledger"]
    assert not [e for e in ledger["entries"] if e["heading"] == "set_aside"]


def test_a_result_whose_stop_reason_is_refusal_ends_the_run_as_an_error(tmp_path: Path) -> None:
    """The Agent SDK's ResultMessage `stop_reason` (its stop-reasons guide: detect refusals from
    the result), under a `success` subtype."""
    log = _stream(tmp_path, _said(2, "The scheduler", None), _result(3, stop_reason="refusal"))
    trace, prov, _ = _trace(tmp_path, log)
    assert trace["termination_reason"] == "error_unrecoverable"
    how = prov["trace_fields"]["termination_reason"]
    assert how["rule"] == "T-termination/declared" and how["evidence"][0]["pointer"] == "/stop_reason"


def test_a_streamed_fallback_withdraws_the_messages_it_names(tmp_path: Path) -> None:
    refused = _said(2, "The report says", "refusal", model="claude-fable-5")
    log = _stream(tmp_path, refused,
                  _msg(3, "system", subtype="model_refusal_fallback", trigger="refusal", direction="retry",
                       original_model="claude-fable-5", fallback_model="claude-opus-4-8", request_id=None,
                       api_refusal_category="cyber", retracted_message_uuids=[refused["uuid"]],
                       refused_user_message_uuid=None, content="Switched to Opus 4.8."),
                  _said(4, "Three findings.", "end_turn", model="claude-opus-4-8"),
                  _result(5))
    [s] = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))
    assert [(e.text, e.abandoned) for e in s.events if e.kind == "agent_text"] == [
        ("The report says", False), ("Switched to Opus 4.8.", False), ("Three findings.", False)]
    assert s.meta.extra["model_fallbacks"] == [{"originalModel": "claude-fable-5", "fallbackModel": "claude-opus-4-8",
                                                "apiRefusalCategory": "cyber", "line": 3}]
    assert [w.code for w in s.warnings] == ["refusal-withdrawn"]


def test_a_withdrawn_answer_off_the_chain_is_no_rewind(tmp_path: Path) -> None:
    """Should the retry hang off the refused request (the fallback's answer a child of the user's
    message), the withdrawn answer is off the chain: it is no rewind (nothing is flagged
    abandoned), and the refusal's record chained to it stays on the work."""
    [s] = ClaudeCodeSource().read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Summarise."),
        _asst(1, "a1", "u1", [{"type": "text", "text": "The report says"}], stop="refusal"),
        _env(2, "s1", "a1", type="system", subtype="model_refusal_fallback", originalModel="m1", fallbackModel="m2",
             retractedMessageUuids=["a1"], content="Switched to m2."),
        _asst(3, "a2", "u1", [{"type": "text", "text": "Three findings."}], stop="end_turn"),
    ]), ReadContext(root=tmp_path))
    assert [(e.text, e.abandoned) for e in s.events] == [
        ("Summarise.", False), ("The report says", False), ("Switched to m2.", False), ("Three findings.", False)]
    assert [w.code for w in s.warnings] == ["refusal-withdrawn"]
