"""Why each Claude Code record no step cites was read: the ledger's mark, by record type.

Progress records are set aside (an `agent_progress` one as a subagent's copied message), model
turns are metadata (model and usage), a system `init` gives the tools and a `compact_boundary`
the compaction trigger, system notices are set aside; titles, tags, modes and the like are
metadata, snapshots and queue operations set aside (with the operation). A system record of a
subtype no event is made of gets no mark (it stays unknown). The file read, JSON lines or a
JSON array, is listed with its size and sha256, and its records counted."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from _small_logs import SESSION, answer, user, write
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _env(uuid: str, parent: str | None = "a1", **fields: Any) -> dict[str, Any]:
    return {"uuid": uuid, "parentUuid": parent, "sessionId": SESSION, "timestamp": "2026-01-01T10:00:05.000Z",
            **fields}


MARKS = [
    (_env("p1", type="progress", data={"type": "hook_progress", "hookEvent": "Stop"}),
     ("set_aside", "progress records carry no work", "hook_progress")),
    (_env("p1", type="progress", data={"type": "bash_progress", "output": "x"}, parentToolUseID="t1"),
     ("set_aside", "progress records carry no work", "bash_progress")),
    (_env("p1", type="progress", data={"type": "agent_progress", "agentId": 7, "message": {}}),
     ("set_aside", "agent_progress copies a subagent's message", "agent_progress")),
    (_env("p1", type="progress", data="hook ran"), ("set_aside", "progress records carry no work", None)),
    (_env("p1", type="system", subtype="init", tools=["Bash", "Read"]), ("metadata", "tools", "init")),
    (_env("p1", type="system", subtype="turn_duration", durationMs=12), ("set_aside", "system notices are not steps",
                                                                         "turn_duration")),
    (_env("p1", type="system", subtype="stop_hook_summary", hookCount=1),
     ("set_aside", "system notices are not steps", "stop_hook_summary")),
    (_env("p1", type="system", subtype="informational", content="Hooks ran."),
     ("set_aside", "system notices are not steps", "informational")),
    (_env("p1", type="system", subtype="microcompact_boundary"), ("set_aside", "system notices are not steps",
                                                                  "microcompact_boundary")),
    (_env("p1", type="system", subtype="bridge_status"), ("set_aside", "system notices are not steps",
                                                          "bridge_status")),
    (_env("p1", type="system", content="Running PostToolUse hooks", level="info"),
     ("set_aside", "system notices are not steps", None)),
    (_env("p1", type="system", subtype="weird_new_kind", content="x"), None),
    (_env("p1", type="system", content="no subtype, no level"), None),
    (_env("p1", type="file-history-snapshot", messageId="m1", snapshot={}),
     ("set_aside", "file-history-snapshot", None)),
    (_env("p1", type="queue-operation", operation="enqueue", content="next"),
     ("set_aside", "queue-operation", "enqueue")),
    (_env("p1", type="queue-operation", operation=3), ("set_aside", "queue-operation", None)),
    (_env("p1", type="last-prompt", lastPrompt="x"), ("set_aside", "last-prompt", None)),
    (_env("p1", type="attachment", attachment={}), ("set_aside", "attachment", None)),
    (_env("p1", type="teleport-skipped-branch"), ("set_aside", "teleport-skipped-branch", None)),
    ({"type": "summary", "summary": "Fix the login bug", "leafUuid": "a1"}, ("metadata", "title", None)),
    (_env("p1", type="custom-title", customTitle="login"), ("metadata", "title", None)),
    (_env("p1", type="agent-name", agentName="fixer"), ("metadata", "agent name", None)),
    (_env("p1", type="tag", tag="bug"), ("metadata", "tag", None)),
    (_env("p1", type="pr-link", url="https://x.test/pr/1"), ("metadata", "pull request link", None)),
    (_env("p1", type="mode", mode="plan"), ("metadata", "mode", None)),
    (_env("p1", type="permission-mode", permissionMode="plan"), ("metadata", "permission mode", None)),
    (_env("p1", type="result", usage={}), ("metadata", "usage", None)),
    (_env("p1", type="teleported-from", remoteSessionId="r1"),
     ("metadata", "the remote session this one was teleported from", None)),
]


@pytest.mark.parametrize(("record", "mark"), MARKS)
def test_each_record_type_is_marked_for_why_it_was_read(tmp_path: Path, record: dict[str, Any],
                                                        mark: tuple[str, str, str | None] | None) -> None:
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), answer(1, "a1", "u1", "Done."), record]))
    [ev] = [ev for ev in s.evidence.values() if ev.line == 3]
    got = s.ledger.get(ev.id)
    assert ((got.heading, got.name, got.subtype) if got else None) == mark


def test_a_model_turn_is_marked_as_model_and_usage(tmp_path: Path) -> None:
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), answer(1, "a1", "u1", "Done.")]))
    [ev] = [ev for ev in s.evidence.values() if ev.line == 2]
    assert (s.ledger[ev.id].heading, s.ledger[ev.id].name) == ("metadata", "model and usage")


def test_a_compaction_boundary_is_marked_as_its_trigger(tmp_path: Path) -> None:
    boundary = _env("b1", None, type="system", subtype="compact_boundary", logicalParentUuid="a1",
                    compactMetadata={"trigger": "auto", "preTokens": 150000}, content="Conversation compacted")
    s = _read(write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), answer(1, "a1", "u1", "Done."), boundary]))
    [ev] = [ev for ev in s.evidence.values() if ev.line == 3]
    assert (s.ledger[ev.id].heading, s.ledger[ev.id].name, s.ledger[ev.id].subtype) == (
        "metadata", "compaction trigger", "compact_boundary")


def _records() -> list[dict[str, Any]]:
    return [user(0, "u1", None, "Go."), answer(1, "a1", "u1", "Done.")]


def test_a_jsonl_file_is_listed_with_its_size_and_hash_and_its_records_counted(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", _records(), {1: "not json"})
    data = path.read_bytes()
    s = _read(path)
    [f] = s.files
    assert (f.path, f.abs_path, f.kind, f.bytes, f.sha256) == (
        "s.jsonl", str(path), "claude_code", len(data), hashlib.sha256(data).hexdigest())
    assert (s.quality.records, s.quality.unparsable_records) == (2, 1)


def test_a_json_array_file_is_listed_with_its_size_and_hash_and_its_records_counted(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(_records(), indent=1), "utf-8")
    data = path.read_bytes()
    s = _read(path)
    [f] = s.files
    assert (f.path, f.abs_path, f.kind, f.bytes, f.sha256) == (
        "chat.json", str(path), "claude_code", len(data), hashlib.sha256(data).hexdigest())
    assert (s.quality.records, s.quality.unparsable_records) == (2, 0)
    assert [(e.kind, e.text) for e in s.events] == [("user", "Go."), ("agent_text", "Done.")]
