"""Gemini CLI shapes read as what they are, from the writer's code (expectations by hand):

* chat compression's summary outside a checkpoint: context/chatCompressionService.ts makes the
  history a user turn holding the model's `<state_snapshot>` and a model turn "Got it. Thanks for
  the additional context!"; services/chatRecordingService.ts updateMessagesFromHistory records them
  as messages of their own, which `/export-session` (ui/commands/exportSessionCommand.ts: the
  loaded record, one JSON object) and rewriteConversationFile (a resumed `.json` chat, one line
  each) write as plain messages, the earlier ones gone;
* an edit the person changed before accepting it: tools/edit.ts and tools/write-file.ts
  createUpdatedParams put `modified_by_user: true` and the model's proposal as
  `ai_proposed_content` in the call's args (scheduler/state-manager.ts updateArgs), which
  core/geminiChat.ts recordCompletedToolCalls records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _gemini_view import ev, events, ledger, read, write_lines
from forsy.payloads import NoteInfo

T = "2026-08-01T00:00:0{}Z".format
HEAD = {"sessionId": "s-x", "projectHash": "h", "startTime": T(0), "lastUpdated": T(5)}
SNAPSHOT = "<state_snapshot>\n<overall_goal>fix the parser</overall_goal>\n</state_snapshot>"
ACK = "Got it. Thanks for the additional context!"


def _summary_then_prompt() -> list[dict[str, Any]]:
    return [
        {"id": "k1", "timestamp": T(2), "type": "user", "content": [{"text": SNAPSHOT}]},
        {"id": "k2", "timestamp": T(2), "type": "gemini", "content": [{"text": ACK}]},
        {"id": "u2", "timestamp": T(3), "type": "user", "content": [{"text": "go on"}]},
    ]


def test_an_exported_sessions_compression_summary_is_a_compaction_not_a_prompt(tmp_path: Path) -> None:
    p = tmp_path / "export.json"
    p.write_text(json.dumps({**HEAD, "messages": _summary_then_prompt()}, indent=2), "utf-8")
    s = read(p)
    lines = [s.evidence[k].line for k in s.evidence]  # each message's first line in the indented file
    summary, ack, prompt = lines
    assert events(s) == [
        ev("compaction", "system", T(2), [(summary, "/content/0/text")], text=SNAPSHOT,
           ts_ref=(summary, "/timestamp"), info=NoteInfo(subtype="state_snapshot")),
        ev("note", "system", T(2), [(ack, "/content/0/text")], text=ACK, ts_ref=(ack, "/timestamp"),
           info=NoteInfo(subtype="state_snapshot_reply")),
        ev("user", "user", T(3), [(prompt, "/content/0/text")], text="go on", ts_ref=(prompt, "/timestamp")),
    ]
    assert ledger(s)[ack][0] == "set_aside"
    assert s.quality.compactions == 1
    assert s.quality.extra["starts_from_summary"] == 1  # the work before it is not in this file


def test_a_rewritten_chats_summary_line_is_a_compaction_too(tmp_path: Path) -> None:
    s = read(write_lines(tmp_path / "session-x.jsonl", [HEAD, *_summary_then_prompt()]))
    assert [(e["kind"], e.get("info")) for e in events(s)] == [
        ("compaction", NoteInfo(subtype="state_snapshot")), ("note", NoteInfo(subtype="state_snapshot_reply")),
        ("user", None)]


def test_words_that_only_mention_a_snapshot_stay_the_persons_and_the_models(tmp_path: Path) -> None:
    """A prompt that does not open with the tag is typed; "Got it." not after a summary is the model's."""
    s = read(write_lines(tmp_path / "session-y.jsonl", [
        HEAD,
        {"id": "u1", "timestamp": T(1), "type": "user", "content": [{"text": "what is a <state_snapshot>?"}]},
        {"id": "g1", "timestamp": T(2), "type": "gemini", "content": [{"text": ACK}]},
    ]))
    assert [(e["kind"], e["text"]) for e in events(s)] == [("user", "what is a <state_snapshot>?"),
                                                           ("agent_text", ACK)]
    assert s.quality.compactions == 0 and "starts_from_summary" not in s.quality.extra
