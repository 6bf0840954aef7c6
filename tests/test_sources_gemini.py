"""Gemini CLI chats and logs.json: every prompt, call and result in the trace, in order.

The oracle reads the raw JSON with the standard library only (not forsy's reader) and lists
what a person would check by hand: the prompts typed, and each tool call's name, exact
arguments and the output the model got back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import forsy
from _oracle import checked_traces, from_trace
from _paths import REAL_LOGS, needs_shared
from forsy.cli import app
from forsy.sources import ReadContext, detect
from forsy.sources.gemini import GeminiSource

runner = CliRunner()
REAL = sorted((REAL_LOGS / "gemini").rglob("*.json")) if (REAL_LOGS / "gemini").is_dir() else []


def retrace(path: Path, out: Path) -> list[dict[str, Any]]:
    """Trace folders made by the CLI from `path`, each checked by validate and verify."""
    r = runner.invoke(app, ["retrace", str(path), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    return checked_traces(out, path)


def oracle(path: Path) -> list[tuple[Any, ...]]:
    """(user, text) and (call, name, args, output) in file order, from the raw JSON."""
    doc = json.loads(path.read_text("utf-8"))
    out: list[tuple[Any, ...]] = []
    if isinstance(doc, list):  # logs.json
        return [("user", e["message"]) for e in doc if e.get("type") == "user"]
    for m in doc["messages"]:
        if m["type"] == "user":
            out.append(("user", m["content"]))
        for tc in m.get("toolCalls") or []:
            resp = tc["result"][0]["functionResponse"]["response"]
            out.append(("call", tc["name"], tc["args"], resp.get("output", resp.get("error"))))
    return out


@needs_shared
@pytest.mark.real_logs
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_gemini_logs_against_the_oracle(path: Path, tmp_path: Path) -> None:
    assert isinstance(detect(path), GeminiSource)
    traces = retrace(path, tmp_path / "out")
    assert len(traces) == 1
    assert from_trace(traces[0]) == oracle(path)


@needs_shared
@pytest.mark.real_logs
def test_real_chat_takes_times_models_and_tokens_from_the_log() -> None:
    path = next(p for p in REAL if "5b959dae" in p.name)
    [s] = GeminiSource().read(path, ReadContext(root=path.parent))
    raw = json.loads(path.read_text("utf-8"))
    assert s.session_id == raw["sessionId"]
    assert s.meta.models == sorted({m["model"] for m in raw["messages"] if m.get("model")})
    assert s.meta.token_usage["total"] == sum(m["tokens"]["total"] for m in raw["messages"] if m.get("tokens"))
    users = [e for e in s.events if e.kind == "user"]
    assert [e.ts for e in users] == [m["timestamp"] for m in raw["messages"] if m["type"] == "user"]
    # the logs.json beside it names the same three prompts: confirmed, not added twice
    assert s.quality.extra["logs_json_confirmed"] == 3 and "logs_json_added" not in s.quality.extra
    assert GeminiSource().discover(path.parent) == sorted(p for p in path.parent.glob("session-*.json"))


def _chat(messages: list[Any]) -> str:
    return json.dumps({"sessionId": "s-1", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z",
                       "messages": messages}, indent=2)


def test_a_prompt_only_in_logs_json_is_added_at_its_time(tmp_path: Path) -> None:
    (tmp_path / "chats").mkdir()
    chat = tmp_path / "chats" / "session-1.json"
    chat.write_text(_chat([
        {"id": "u1", "timestamp": "2026-01-01T00:00:01Z", "type": "user", "content": "first"},
        {"id": "g1", "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": "ok", "model": "m"},
        {"id": "u2", "timestamp": "2026-01-01T00:00:09Z", "type": "user", "content": "third"},
    ]))
    (tmp_path / "logs.json").write_text(json.dumps([
        {"sessionId": "s-1", "messageId": 0, "type": "user", "message": "first", "timestamp": "2026-01-01T00:00:01Z"},
        {"sessionId": "s-1", "messageId": 1, "type": "user", "message": "/stats", "timestamp": "2026-01-01T00:00:05Z"},
        {"sessionId": "s-2", "messageId": 0, "type": "user", "message": "other", "timestamp": "2026-01-01T00:00:06Z"},
    ]))
    [s] = GeminiSource().read(chat, ReadContext(root=tmp_path))
    assert [e.text for e in s.events if e.kind == "user"] == ["first", "/stats", "third"]
    assert s.quality.extra == {"logs_json_confirmed": 1, "logs_json_added": 1}
    # session s-2 has no chat here: the sweep still finds its prompts in logs.json
    assert GeminiSource().discover(tmp_path) == [chat, tmp_path / "logs.json"]


def test_damaged_chat_is_reported_not_fatal(tmp_path: Path) -> None:
    good = {"id": "u1", "timestamp": "2026-01-01T00:00:01Z", "type": "user", "content": "hello"}
    call = {"id": "g1", "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": "",
            "toolCalls": [{"id": "c1", "name": "read_file", "args": {"absolute_path": "/a"}, "status": "cancelled"}]}
    text = _chat([good, 7, {"type": "telepathy"}, call])
    p = tmp_path / "session-x.json"
    p.write_text(text[: text.rindex("]")])  # cut inside the array: a file still being written
    [s] = GeminiSource().read(p, ReadContext(root=tmp_path))
    codes = {w.code for w in s.warnings}
    assert {"not-an-object", "unknown-record", "no-result", "truncated"} <= codes
    assert [e.kind for e in s.events] == ["user", "tool_call"]
    assert s.quality.missing_results == 1 and s.quality.unknown_records == 1
    assert s.quality.records == 4 and s.quality.unparsable_records == 1


# ---------------------------------------------------------------- chats of lines (Gemini CLI 2026)
PROJECT = next((Path(__file__).parent / "fixtures" / "gemini" / "tmp").iterdir())
CHAT = next((PROJECT / "chats").glob("session-*.jsonl"))


def _lines_oracle(chat: Path) -> tuple[list[tuple[Any, ...]], list[bool], list[str]]:
    """What ChatRecordingService's lines say, read with its own rules (loadConversationRecord):
    the last write of each message id at the place of its first; the prompts typed
    (displayContent when the CLI kept it, never the tool responses it records as type user);
    each call's name, args and response; whether it failed (status, or the shell tool's
    `Exit Code: N` line); and the prompts of logs.json the chat does not hold."""
    msgs: dict[str, dict[str, Any]] = {}
    for line in chat.read_text("utf-8").splitlines():
        rec = json.loads(line)
        if isinstance(rec.get("id"), str):
            msgs[rec["id"]] = rec
    steps: list[tuple[Any, ...]] = []
    failed: list[bool] = []
    for m in msgs.values():
        if m["type"] == "user" and not any("functionResponse" in p for p in m["content"]):
            shown = m.get("displayContent", m["content"])
            steps += [("user", p["text"]) for p in shown]
        for tc in m.get("toolCalls") or []:
            resp = tc["result"][0]["functionResponse"]["response"]
            out = resp.get("output", resp.get("error"))
            steps.append(("call", tc["name"], tc["args"], out))
            failed.append(tc["status"] != "success" or "\nExit Code: 1\n" in out)
    typed = {s[1] for s in steps if s[0] == "user"}
    logs = json.loads((chat.parent.parent / "logs.json").read_text("utf-8"))
    sid = json.loads(chat.read_text("utf-8").splitlines()[0])["sessionId"]
    added = [e["message"] for e in logs if e["sessionId"] == sid and e["message"] not in typed]
    return steps, failed, added


def test_chat_lines_every_prompt_call_and_failure(tmp_path: Path) -> None:
    """A 2026 chat named alone: it was refused (exit 3); the logs.json beside chats/ (where
    Gemini keeps it) was never merged, its root being chats/."""
    assert isinstance(detect(CHAT), GeminiSource)
    [trace] = retrace(CHAT, tmp_path / "out")
    steps, failed, added = _lines_oracle(CHAT)
    got = [s for s in from_trace(trace) if s not in [("user", a) for a in added]]
    assert got == steps
    assert [("user", a) in from_trace(trace) for a in added] == [True] * len(added) and added == ["/rewind"]
    assert [not s["success"] for s in trace["steps"] if s.get("tool")] == failed
    manifest = json.loads(next((tmp_path / "out").rglob("manifest.json")).read_text("utf-8"))
    for f in manifest["ledger"]:
        assert f["totals"]["unknown"] == 0 and sum(f["totals"].values()) == f["records_read"], f
    # every entry of this session in logs.json is read and accounted for (confirmed ones too)
    sid = json.loads(CHAT.read_text("utf-8").splitlines()[0])["sessionId"]
    logs = json.loads((CHAT.parent.parent / "logs.json").read_text("utf-8"))
    assert sorted(f["records_read"] for f in manifest["ledger"]) == sorted(
        [len(CHAT.read_text("utf-8").splitlines()), sum(e["sessionId"] == sid for e in logs)])


def test_request_cancelled_and_rewind(tmp_path: Path) -> None:
    """`Request cancelled.` (the info the CLI writes when the person cancels) is an interrupt,
    not an unknown record; a prompt taken back by `$rewindTo` is kept and flagged."""
    [trace] = retrace(CHAT, tmp_path / "out")
    users = [s for s in trace["steps"] if s["action"] == "user_message"]
    rewound = next(s for s in users if s["input"] == "Also add -q")
    assert "interrupted the agent 1 time" in rewound["causal_note"]
    assert "rewound away" in rewound["causal_note"]
    [s] = GeminiSource().read(CHAT, ReadContext(root=CHAT.parent))
    assert s.quality.unknown_records == 0
    assert [e.text for e in s.events if e.kind == "interrupt"] == ["Request cancelled."]


def test_a_folder_gives_one_trace_per_session(tmp_path: Path) -> None:
    """Gemini's project folder: the chat (its prompts confirmed by logs.json) and a session
    that only logs.json holds; no second, prompt-only trace of the chat's session."""
    out = tmp_path / "out"
    run = forsy.retrace([PROJECT], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(out, parent=True))
    assert not run.failed, [o.message for o in run.failed]
    # evidence is named from each file's folder: the chat's from chats/, logs.json's from the project
    traces = checked_traces(out, CHAT, roots=[CHAT.parent, PROJECT])
    logs = json.loads((PROJECT / "logs.json").read_text("utf-8"))
    want = {e["sessionId"] for e in logs}
    assert len(traces) == len(want) == 2
    chat_sid = json.loads(CHAT.read_text("utf-8").splitlines()[0])["sessionId"]
    [chat] = [t for t in traces if any(s.get("tool") for s in t["steps"])]
    assert [s for s in from_trace(chat) if s[0] == "call"] == [s for s in _lines_oracle(CHAT)[0] if s[0] == "call"]
    [only_logs] = [t for t in traces if t is not chat]
    assert [s["input"] for s in only_logs["steps"]] == [e["message"] for e in logs if e["sessionId"] != chat_sid]


def test_fields_a_newer_cli_writes_are_counted(tmp_path: Path) -> None:
    """Drift: message and tool call fields the writer's types do not name are counted by name;
    the message is still read."""
    lines = CHAT.read_text("utf-8").splitlines()
    recs = [json.loads(x) for x in lines]
    i = max(j for j, r in enumerate(recs) if r.get("id") == "g2")
    recs[i]["groundingMetadata"] = {"sources": []}
    recs[i]["toolCalls"][0]["durationMs"] = 12
    p = tmp_path / "chats" / CHAT.name
    p.parent.mkdir()
    p.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    [s] = GeminiSource().read(p, ReadContext(root=p.parent))
    assert s.meta.extra["unknown_fields"] == {"groundingMetadata": 1, "toolCalls.durationMs": 1}
    assert s.quality.extra["unknown_fields"] == 2
    assert [e.tool for e in s.events if e.kind == "tool_call"] == [
        tc["name"] for r in {r["id"]: r for r in recs if r.get("id")}.values() for tc in r.get("toolCalls") or []]
    [clean] = GeminiSource().read(CHAT, ReadContext(root=CHAT.parent))
    assert "unknown_fields" not in clean.quality.extra


def test_a_subagents_chat_alone_gives_its_task_to_no_person(tmp_path: Path) -> None:
    """A subagent's chat (`chats/<parent session id>/<id>.jsonl`, header `kind: "subagent"`):
    its user message is the parent agent's task, the trace's task, not a person's prompt."""
    parent = json.loads(CHAT.read_text("utf-8").splitlines()[0])["sessionId"]
    p = tmp_path / "chats" / parent / "sub-1.jsonl"
    p.parent.mkdir(parents=True)
    task = "Find every caller of parse_args and list them with their files."
    recs = [
        {"sessionId": "sub-1", "projectHash": "h", "startTime": "2026-03-04T10:16:00.000Z",
         "lastUpdated": "2026-03-04T10:16:00.000Z", "kind": "subagent", "directories": ["/home/dev/proj"]},
        {"id": "s1", "timestamp": "2026-03-04T10:16:01.000Z", "type": "user", "content": [{"text": task}]},
        {"id": "s2", "timestamp": "2026-03-04T10:16:02.000Z", "type": "gemini", "content": "", "model": "m",
         "toolCalls": [{"id": "grep-1", "name": "search_file_content", "args": {"pattern": "parse_args"},
                        "result": [{"functionResponse": {"id": "grep-1", "name": "search_file_content",
                                                         "response": {"output": "cli.py:3: parse_args()"}}}],
                        "status": "success", "timestamp": "2026-03-04T10:16:03.000Z"}]},
    ]
    p.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    [trace] = retrace(p, tmp_path / "out")
    assert trace["task"] == task
    assert [s["actor"] for s in trace["steps"]] == ["agent"] and trace["steps"][0]["tool"] == "search_file_content"


def test_an_api_error_is_a_failed_step(tmp_path: Path) -> None:
    """A message of type error holding `[API Error: …]` (the CLI's record of a failed model
    call) is an error step, not a note out of the trace."""
    [trace] = retrace(CHAT, tmp_path / "out")
    errors = [json.loads(x) for x in CHAT.read_text("utf-8").splitlines() if '"type":"error"' in x]
    got = [(s["output"], s["success"]) for s in trace["steps"] if s["action"] == "error"]
    assert got == [(e["content"], False) for e in errors] and len(got) == 1


def test_values_of_unexpected_types_are_not_fatal(tmp_path: Path) -> None:
    """A functionResponse that is not an object, a displayContent with no text: read around,
    never a crash; the typed words are still found in `content`."""
    recs = [json.loads(x) for x in CHAT.read_text("utf-8").splitlines()]
    g1 = max(i for i, r in enumerate(recs) if r.get("id") == "g1")
    recs[g1]["toolCalls"][0]["result"][0]["functionResponse"] = 1.5
    u1 = next(i for i, r in enumerate(recs) if r.get("id") == "u1")
    recs[u1]["displayContent"] = 7
    p = tmp_path / "chats" / CHAT.name
    p.parent.mkdir()
    p.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    [s] = GeminiSource().read(p, ReadContext(root=p.parent))
    assert s.quality.missing_results == 1
    assert [e.text for e in s.events if e.kind == "user"][0] == recs[u1]["content"][0]["text"]


def test_a_call_the_person_declined_is_rejected(tmp_path: Path) -> None:
    """The scheduler cancels a call the person answers No to, with the reason `User denied
    execution.`: the step is a rejection (eval -1), not only a failure."""
    [trace] = retrace(CHAT, tmp_path / "out")
    denied = {tc["id"] for x in CHAT.read_text("utf-8").splitlines() for tc in json.loads(x).get("toolCalls") or []
              if tc["status"] == "cancelled" and "User denied execution." in json.dumps(tc["result"])}
    rejected = [s for s in trace["steps"] if s.get("eval_reason") == "The user rejected this tool call."]
    assert len(rejected) == len(denied) == 1 and rejected[0]["success"] is False


def test_a_results_text_parts_after_its_function_response_are_its_output(tmp_path: Path) -> None:
    """A tool whose result has several parts (read_many_files: a functionResponse, then the
    files' text) gave only the first to the trace."""
    recs = [json.loads(x) for x in CHAT.read_text("utf-8").splitlines()]
    g1 = max(i for i, r in enumerate(recs) if r.get("id") == "g1")
    result = recs[g1]["toolCalls"][0]["result"]
    result.append({"text": "--- cli.py ---\nimport argparse\n"})
    p = tmp_path / "chats" / CHAT.name
    p.parent.mkdir()
    p.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    [trace] = retrace(p, tmp_path / "out")
    first = next(s for s in trace["steps"] if s.get("tool") == recs[g1]["toolCalls"][0]["name"])
    assert first["output"] == result[0]["functionResponse"]["response"]["output"] + "\n" + result[1]["text"]


def test_a_resumed_json_chat_is_read_once_from_its_lines(tmp_path: Path) -> None:
    """Resuming a `.json` chat, Gemini writes its record again as `<name>.jsonl` (header, then
    every message) and goes on there; the `.json` stays. A folder gives the session once."""
    old = {"sessionId": "s-9", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z",
           "lastUpdated": "2026-01-01T00:00:02Z", "messages": [
               {"id": "u1", "timestamp": "2026-01-01T00:00:01Z", "type": "user", "content": "first"}]}
    chats = tmp_path / "chats"
    chats.mkdir()
    (chats / "session-2026-01-01T00-00-s9.json").write_text(json.dumps(old, indent=2))
    migrated = [{k: v for k, v in old.items() if k != "messages"}, *old["messages"],
                {"id": "u2", "timestamp": "2026-01-02T00:00:01Z", "type": "user", "content": "second, resumed"}]
    (chats / "session-2026-01-01T00-00-s9.jsonl").write_text("\n".join(json.dumps(r) for r in migrated) + "\n")
    assert GeminiSource().discover(tmp_path) == [chats / "session-2026-01-01T00-00-s9.jsonl"]
    (chats / "session-2026-01-01T00-00-s9.jsonl").unlink()  # alone, the .json is the chat
    assert GeminiSource().discover(tmp_path) == [chats / "session-2026-01-01T00-00-s9.json"]


def test_text_sent_with_tool_responses_is_no_prompt(tmp_path: Path) -> None:
    """A user-type record holding functionResponse parts is Gemini's, whatever text rides with
    it: no prompt of the person comes from it, and the text is kept as a note."""
    recs = [json.loads(x) for x in CHAT.read_text("utf-8").splitlines()]
    u2 = next(i for i, r in enumerate(recs) if r.get("id") == "u2")
    recs[u2]["content"].append({"text": "[Binary content of cli.png follows]"})
    p = tmp_path / "chats" / CHAT.name
    p.parent.mkdir()
    p.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    [s] = GeminiSource().read(p, ReadContext(root=p.parent))
    assert "[Binary content of cli.png follows]" not in [e.text for e in s.events if e.kind == "user"]
    assert [e.text for e in s.events if e.kind == "note" and e.actor == "system"][0] == recs[u2]["content"][-1]["text"]
