"""Copilot CLI `user.message` events that are not the person's words: `source`
`agent-<agent id>` is a prompt another agent sent (github/copilot-sdk session-events.ts
UserMessageData.source: "`agent-<agent-id>` for an inter-agent prompt", from @github/copilot
1.0.76-5): a note naming its author, as Codex's inter-agent messages are read. Also
`session.context_cleared` (the host cleared the conversation: a note with the count and the
message set after it) and `session.binary_asset` (an attachment's bytes: set aside by a rule)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Mark, Session
from forsy.payloads import NoteInfo
from forsy.run import RetraceOptions, retrace
from forsy.sources import ReadContext
from forsy.sources.copilot_cli import CopilotCliSource

SRC = CopilotCliSource()
SID = "aaaaaaaa-0000-4000-8000-000000000001"


def log(tmp_path: Path, events: list[tuple[str, dict[str, Any]]]) -> Path:
    lines, parent = [], None
    for n, (typ, data) in enumerate(events, 1):
        eid = f"00000000-0000-4000-8000-{n:012d}"
        lines.append(json.dumps({"type": typ, "data": data, "id": eid,
                                 "timestamp": f"2026-05-20T10:00:{n:02d}.000Z", "parentId": parent}))
        parent = eid
    p = tmp_path / "session-state" / SID / "events.jsonl"
    p.parent.mkdir(parents=True)
    p.write_text("\n".join(lines) + "\n", "utf-8")
    return p


def read(p: Path) -> Session:
    [s] = SRC.read(p, ReadContext(root=p.parent))
    return s


START = ("session.start", {"sessionId": SID, "copilotVersion": "1.0.76", "startTime": "2026-05-20T10:00:00.000Z",
                           "context": {"cwd": "/w"}})


def test_an_agent_s_prompt_is_a_note_naming_it(tmp_path: Path) -> None:
    s = read(log(tmp_path, [
        START,
        ("user.message", {"content": "fix the dimmer", "attachments": []}),
        ("user.message", {"content": "please double-check dim.py", "source": "agent-reviewer-7f3",
                          "attachments": []}),
    ]))
    person, turn, other = s.events
    assert (person.kind, person.actor, person.text) == ("user", "user", "fix the dimmer")
    # the CLI runs a turn for it: the answer before it ends there (R-turn/unlogged)
    assert (turn.kind, turn.text, turn.refs[0].ev) == ("note", None, other.refs[0].ev)
    assert isinstance(turn.info, NoteInfo) and turn.info.subtype == "turn_started"
    assert (other.kind, other.actor, other.text) == ("note", "system", "please double-check dim.py")
    assert isinstance(other.info, NoteInfo)
    assert (other.info.subtype, other.info.raw) == ("inter_agent_communication", {"author": "reviewer-7f3"})
    assert other.refs[0].pointer == "/data/content"
    assert s.ledger[other.refs[0].ev] == Mark("set_aside", "notes are not steps", "inter_agent_communication")
    assert s.warnings == []


def test_a_bare_agent_prefix_is_no_agent(tmp_path: Path) -> None:
    # `agent-` naming no agent: nothing says it is another's, so the person's words as before
    s = read(log(tmp_path, [START, ("user.message", {"content": "hi", "source": "agent-"})]))
    assert [(e.kind, e.actor) for e in s.events] == [("user", "user")]


def test_an_agent_s_prompt_with_no_words_is_set_aside(tmp_path: Path) -> None:
    s = read(log(tmp_path, [START, ("user.message", {"content": "", "source": "agent-x"})]))
    assert s.events == []


def test_a_cleared_context_and_a_binary_asset(tmp_path: Path) -> None:
    s = read(log(tmp_path, [
        START,
        ("user.message", {"content": "fix it"}),
        ("session.context_cleared", {"messagesCleared": 12, "initialMessage": "now write the changelog entry"}),
        ("session.context_cleared", {"messagesCleared": 3}),
        ("session.binary_asset", {"assetId": "sha256:ab", "byteLength": 8, "data": "iVBORw0KGgo=",
                                  "mimeType": "image/png", "type": "image"}),
    ]))
    assert s.quality.unknown_records == 0 and s.warnings == []
    _, cleared, bare = s.events
    assert (cleared.kind, cleared.actor, cleared.text) == ("note", "system", "now write the changelog entry")
    assert isinstance(cleared.info, NoteInfo) and isinstance(bare.info, NoteInfo)
    assert (cleared.info.subtype, cleared.info.raw) == ("context_cleared", {"messagesCleared": 12})
    assert cleared.refs[0].pointer == "/data/initialMessage"
    assert (bare.text, bare.info.raw, bare.refs[0].pointer) == (None, {"messagesCleared": 3}, "/data")
    assert s.quality.extra["context_clears"] == 2
    marks = sorted(m.subtype or "" for m in s.ledger.values() if m.heading == "set_aside")
    assert marks == ["binary_asset", "context_cleared", "context_cleared"]


def test_the_answers_before_and_after_it_stay_apart(tmp_path: Path) -> None:
    p = log(tmp_path, [
        START,
        ("user.message", {"content": "add a changelog line"}),
        ("assistant.message", {"messageId": "m1", "content": "Added it.", "toolRequests": []}),
        ("user.message", {"content": "check dim.py", "source": "agent-reviewer-7f3"}),
        ("assistant.message", {"messageId": "m2", "content": "Checked: it does.", "toolRequests": []}),
    ])
    retrace([p], RetraceOptions(out=tmp_path / "out", redact=False))
    steps = json.loads((tmp_path / "out" / "trace.json").read_text())["steps"]
    assert [(x["turn"], x["actor"], x["action"], x["input"] or x["output"]) for x in steps] == [
        (1, "user", "user_message", "add a changelog line"), (1, "agent", "output", "Added it."),
        (2, "agent", "output", "Checked: it does.")]
