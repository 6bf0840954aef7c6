"""Codex rollouts in the shapes its writers produce, read against their own fields.

Fixtures are written from the writers' code: the TypeScript CLI's `rollout-*.json`
(`{session, items}`, codex-cli/src/utils/storage/save-rollout.ts), the Rust recorder's
envelope lines with the failure messages Codex returns to the model without a success
flag (sandbox denials, exec and apply_patch errors), an interrupted turn
(`event_msg` turn_aborted and its `<turn_aborted>` message), and a review thread
(`session_meta.source = {"subagent": "review"}`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from _oracle import checked_traces, from_trace
from forsy.cli import app
from forsy.sources import ReadContext, detect
from forsy.sources.codex import CodexSource

FIX = Path(__file__).parent / "fixtures" / "codex"
LEGACY = next(FIX.glob("rollout-*.json"))
FAILURES = next(FIX.glob("rollout-2026-*.jsonl"))
REVIEW = next((FIX / "review").glob("rollout-*.jsonl"))
runner = CliRunner()


def _retrace(path: Path, out: Path) -> dict[str, Any]:
    r = runner.invoke(app, ["retrace", str(path), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    [trace] = checked_traces(out, path)
    return trace


def _manifest(out: Path) -> dict[str, Any]:
    return json.loads((out / "manifest.json").read_text("utf-8"))


def _success_rules(out: Path) -> list[tuple[bool | None, str | None]]:
    trace = json.loads((out / "trace.json").read_text("utf-8"))
    prov = json.loads((out / "provenance.json").read_text("utf-8"))
    return [(s["success"], p["fields"].get("success", {}).get("rule"))
            for s, p in zip(trace["steps"], prov["steps"], strict=True) if s.get("tool")]


def test_legacy_json_rollout_is_read(tmp_path: Path) -> None:
    """The TypeScript CLI's `{session, items}` document was refused (exit 3)."""
    assert isinstance(detect(LEGACY), CodexSource)
    trace = _retrace(LEGACY, tmp_path / "out")
    doc = json.loads(LEGACY.read_text("utf-8"))
    outputs = {i["call_id"]: json.loads(i["output"]) for i in doc["items"] if i["type"] == "function_call_output"}
    want: list[tuple[Any, ...]] = []
    for i in doc["items"]:
        if i["type"] == "message" and i["role"] == "user":
            want += [("user", c["text"]) for c in i["content"]]
        elif i["type"] == "function_call":
            want.append(("call", i["name"], json.loads(i["arguments"]), outputs[i["call_id"]]["output"]))
    assert from_trace(trace) == want
    assert [s["success"] for s in trace["steps"] if s.get("tool")] == [
        outputs[i["call_id"]]["metadata"]["exit_code"] == 0 for i in doc["items"] if i["type"] == "function_call"]
    assert trace["started_at"] == doc["session"]["timestamp"]
    [f] = _manifest(tmp_path / "out")["ledger"]
    assert f["totals"]["unknown"] == 0 and f["records_read"] == len(doc["items"]) + 1


# Codex's own failure messages that carry no success flag, as its code writes them
FAILURE_STARTS = ("error: invalid hunk", "Failed to find expected lines", "failed in sandbox ",
                  "exec_command failed for ")


def test_codex_failure_messages_fail_the_call_by_a_named_rule(tmp_path: Path) -> None:
    """apply_patch parse and match errors, a sandbox denial and a denied unified exec were
    left success null while similar calls of the same file were false."""
    _retrace(FAILURES, tmp_path / "out")
    outputs = []
    for line in FAILURES.read_text("utf-8").splitlines():
        p = json.loads(line)["payload"]
        if p.get("type") in ("function_call_output", "custom_tool_call_output"):
            outputs.append(p["output"])
    want = [(False, "R-call/codex-failure-text") if o.startswith(FAILURE_STARTS) else (True, "R-call/error-flag")
            for o in outputs]
    assert _success_rules(tmp_path / "out") == want and want.count((True, "R-call/error-flag")) == 1


def test_an_interrupted_turn_is_accounted_for(tmp_path: Path) -> None:
    """`event_msg` turn_aborted was counted unknown in the ledger."""
    trace = _retrace(FAILURES, tmp_path / "out")
    [f] = _manifest(tmp_path / "out")["ledger"]
    assert f["totals"]["unknown"] == 0 and sum(f["totals"].values()) == f["records_read"]
    aborted = [e for e in f["entries"] if e["record_type"].startswith("event_msg:turn_aborted")]
    assert [e["heading"] for e in aborted] == ["set_aside"]
    assert trace["termination_reason"] == "user_abandoned"


def test_a_review_thread_keeps_its_task_and_gives_it_to_no_person(tmp_path: Path) -> None:
    """The review request was set aside and the task read 'Work recorded in codex evidence…'."""
    trace = _retrace(REVIEW, tmp_path / "out")
    request = next(json.loads(x)["payload"]["content"][0]["text"] for x in REVIEW.read_text("utf-8").splitlines()
                   if json.loads(x)["payload"].get("role") == "user")
    assert trace["task"] == request
    assert all(s["actor"] != "user" for s in trace["steps"])
    prov = json.loads((tmp_path / "out" / "provenance.json").read_text("utf-8"))
    assert prov["trace_fields"]["task"]["rule"] == "T-task/delegated"


def test_response_items_of_multi_agent_threads_are_known(tmp_path: Path) -> None:
    """ResponseItem::AgentMessage {author, recipient, content}, AdditionalTools {role, tools} and
    a sleep's item_completed, persisted by the recorder's policy, were unknown records."""
    lines = FAILURES.read_text("utf-8").splitlines()[:4]
    extra = [
        {"type": "agent_message", "author": "/root/worker", "recipient": "/root",
         "content": [{"type": "input_text", "text": "Lexer tests pass on my side."}]},
        {"type": "additional_tools", "role": "developer", "tools": [{"type": "function", "name": "wait_agent"}]},
    ]
    lines += [json.dumps({"timestamp": "2026-06-10T08:00:30.000Z", "type": "response_item", "payload": p})
              for p in extra]
    # the recorder keeps item_completed for items with no response item: a sleep is one
    lines.append(json.dumps({"timestamp": "2026-06-10T08:00:31.000Z", "type": "event_msg", "payload": {
        "type": "item_completed", "turn_id": "t1", "item": {"type": "sleep", "id": "sleep-1"}}}))
    p = tmp_path / FAILURES.name
    p.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    _retrace(p, out)
    [f] = _manifest(out)["ledger"]
    assert f["totals"]["unknown"] == 0
    kinds = {e["record_type"]: e["heading"] for e in f["entries"]}
    assert kinds["response_item:agent_message/agent_message"] == "set_aside"
    assert kinds["response_item:additional_tools"] == "metadata"
    assert kinds["event_msg:item_completed"] == "set_aside"
    [s] = CodexSource().read(p, ReadContext(root=tmp_path))
    notes = [e for e in s.events if e.kind == "note"]
    assert [e.text for e in notes] == [extra[0]["content"][0]["text"]] and s.quality.unknown_records == 0
    assert s.meta.extra["additional_tools"] == ["wait_agent"]


def test_fields_a_newer_codex_writes_are_counted(tmp_path: Path) -> None:
    """Drift: a response item field the writer's table does not name is counted and named,
    not dropped without a word (the item is still read)."""
    lines = FAILURES.read_text("utf-8").splitlines()
    rec = json.loads(lines[4])
    rec["payload"]["sandbox_permissions"] = "require_escalated"  # a field this reader does not know
    lines[4] = json.dumps(rec)
    p = tmp_path / FAILURES.name
    p.write_text("\n".join(lines) + "\n")
    [s] = CodexSource().read(p, ReadContext(root=tmp_path))
    field = f"{rec['payload']['type']}.sandbox_permissions"
    assert s.quality.extra["unknown_fields"] == 1 and s.meta.extra["unknown_fields"] == {field: 1}
    assert any(w.code == "unknown_fields" and field in w.message for w in s.warnings)
    [clean] = CodexSource().read(FAILURES, ReadContext(root=FAILURES.parent))
    assert "unknown_fields" not in clean.quality.extra


def test_a_declined_approval_is_a_rejection(tmp_path: Path) -> None:
    """Codex answers the model `exec command rejected by user` / `patch rejected by user` when
    the person declines: the step is the person's rejection (eval -1), not only a failure."""
    lines = FAILURES.read_text("utf-8").splitlines()
    for i, line in enumerate(lines):
        rec = json.loads(line)
        if rec["payload"].get("call_id") == "call_s1" and rec["payload"]["type"] == "function_call_output":
            rec["payload"]["output"] = "exec command rejected by user"
            lines[i] = json.dumps(rec)
    p = tmp_path / FAILURES.name
    p.write_text("\n".join(lines) + "\n")
    trace = _retrace(p, tmp_path / "out")
    rejected = [s for s in trace["steps"] if s.get("eval_reason") == "The user rejected this tool call."]
    assert [(s["output"], s["success"]) for s in rejected] == [("exec command rejected by user", False)]


def test_compaction_texts_in_the_users_place_are_codexs(tmp_path: Path) -> None:
    """Codex sends its compaction prompt and the summary it opens with its prefix as user-role
    messages; in a rollout with no event_msg user_message to confirm prompts (older ones),
    they were read as the person's prompts."""
    texts = [  # codex-rs/core/templates/compact/ (prompt.md in its 2025 wording, summary_prefix.md)
        "You have exceeded the maximum number of tokens, please stop coding and instead write a short memento "
        "message for the next agent. Your note should:\n- Summarize what you finished.",
        "Another language model started to solve this problem and produced a summary of its thinking process. "
        "You also have access to the state of the tools that were used by that language model. …\nFixed the parser.",
    ]
    lines = [json.loads(x) for x in FAILURES.read_text("utf-8").splitlines()]
    lines = [d for d in lines if d["type"] != "event_msg"][:9]  # an older rollout: no UI events
    for t in texts:
        lines.append({"timestamp": "2026-06-10T08:00:40.000Z", "type": "response_item",
                      "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": t}]}})
    p = tmp_path / FAILURES.name
    p.write_text("\n".join(json.dumps(d) for d in lines) + "\n")
    trace = _retrace(p, tmp_path / "out")
    prompts = [s["input"] for s in trace["steps"] if s["action"] == "user_message"]
    assert prompts == ["Fix the parser and make the tests pass"]
    [s] = CodexSource().read(p, ReadContext(root=tmp_path))
    assert sorted(e.info.subtype for e in s.events if e.kind == "note") == ["compaction_prompt", "compaction_summary"]
