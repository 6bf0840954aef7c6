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
