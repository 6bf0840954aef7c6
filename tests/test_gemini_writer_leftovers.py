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
from forsy.payloads import CallInfo, NoteInfo
from forsy.rules.segment import USER_EDITED_NOTE
from forsy.run import RetraceOptions, retrace

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


def _edit_chat(tmp_path: Path, args: dict[str, Any], output: str) -> Path:
    return write_lines(tmp_path / "chats" / "session-e.jsonl", [
        HEAD,
        {"id": "u1", "timestamp": T(1), "type": "user", "content": [{"text": "rename x"}]},
        {"id": "g1", "timestamp": T(2), "type": "gemini", "content": "", "toolCalls": [
            {"id": "c1", "name": "replace", "args": args, "status": "success", "timestamp": T(3),
             "result": [{"functionResponse": {"id": "c1", "name": "replace", "response": {"output": output}}}]}]},
    ])


EDITED = {"file_path": "/p/a.py", "old_string": "x = 1", "new_string": "y = 1  # mine", "ai_proposed_content": "y = 1",
          "modified_by_user": True}
EDITED_OUT = ("Successfully modified file: /p/a.py (1 replacements). User modified the `new_string` content to be: "
              "y = 1  # mine.")


def test_an_edit_the_person_changed_says_its_input_is_theirs(tmp_path: Path) -> None:
    s = read(_edit_chat(tmp_path, EDITED, EDITED_OUT))
    [call] = [e for e in s.events if e.kind == "tool_call"]
    assert isinstance(call.info, CallInfo) and call.info.user_edited is not None
    assert (s.evidence[call.info.user_edited.ev].line, call.info.user_edited.pointer) == (
        3, "/toolCalls/0/args/modified_by_user")
    step = _steps(tmp_path)[-1]
    assert step["input_source"] == {"actor": "user", "source_step": None, "source_field": "external",
                                    "note": USER_EDITED_NOTE}
    assert json.loads(step["input"]) == EDITED  # the person's version and the model's proposal, as logged
    prov = json.loads((tmp_path / "t" / "provenance.json").read_text())
    [(origin, rule, pointers)] = [(f["origin"], f["rule"], [e["pointer"] for e in f["evidence"]])
                                  for k, f in _fields(prov, step["step"]).items() if k == "input_source"]
    assert (origin, rule, pointers) == ("derived", "R-call/user-edited", ["/toolCalls/0/args/modified_by_user"])


def test_an_edit_accepted_as_proposed_names_no_source(tmp_path: Path) -> None:
    """Without `modified_by_user: true` (absent, or false) the call's input is the model's."""
    args = {"file_path": "/p/a.py", "old_string": "x = 1", "new_string": "y = 1", "modified_by_user": False}
    s = read(_edit_chat(tmp_path, args, "Successfully modified file: /p/a.py (1 replacements)."))
    [call] = [e for e in s.events if e.kind == "tool_call"]
    assert call.info is None or (isinstance(call.info, CallInfo) and call.info.user_edited is None)
    assert _steps(tmp_path)[-1]["input_source"] is None


def _steps(tmp_path: Path) -> list[dict[str, Any]]:
    retrace([tmp_path / "chats" / "session-e.jsonl"], RetraceOptions(out=tmp_path / "t", redact=False))
    return list(json.loads((tmp_path / "t" / "trace.json").read_text())["steps"])


def _fields(prov: dict[str, Any], step: int) -> dict[str, Any]:
    return dict(prov["steps"][step - 1]["fields"])
