"""Qwen Code's 2026 records, in the shapes QwenLM/qwen-code writes them:

* `turn_result` (chatRecordingService.ts TurnResultRecordPayload) of state `error`, its `error`
  `{message, code?}` as normalizeTurnResultError writes it: a failed turn. Before, it was filed
  as metadata and the failure was in no step; now it is an error step with the message and the
  code, citing the record;
* a managed session (the managed engine: `session_execution_engine` `{engine: "managed"}`,
  `managed_session_header_v1`, `managed_session_event_v1` whose `message.committed` events name
  their content by reference, `managed_session_commit_v1`): its messages are in Qwen Code's
  managed-session store, which forsy does not read. Before, it was skipped as "the log holds no
  work"; now it is skipped saying where its messages are (a sweep reads it again when it
  changes), and a session that has messages of its own besides is read with a warning that the
  others are not in the trace.

Hand-made records (`Log`, test_sources_qwen_code.py); expectations by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import forsy
from forsy.payloads import MessageInfo
from forsy.sources import ReadContext
from test_sources_qwen_code import SID, SRC, Log

ERROR = {"message": "429 Too Many Requests: quota exhausted", "code": "429"}


def _failed_turn(tmp_path: Path, error: dict[str, Any]) -> Path:
    log = Log()
    log.user("refactor the parser", shown="refactor the parser")
    log.model({"text": "Looking at the parser."})
    log.system("turn_result", {"promptId": "p1", "state": "error", "error": error, "startedAt": 1786269600000,
                               "endedAt": 1786269609000, "promptText": "refactor the parser"})
    return log.write(tmp_path / "chats" / f"{SID}.jsonl")


def test_a_failed_turn_is_an_error_step_with_its_message_and_code(tmp_path: Path) -> None:
    p = _failed_turn(tmp_path, ERROR)
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    err = s.events[-1]
    assert (err.kind, err.actor, err.text) == ("agent_text", "agent", "429 Too Many Requests: quota exhausted\n429")
    assert isinstance(err.info, MessageInfo) and err.info.api_error
    assert [r.pointer for r in err.refs] == ["/systemPayload/error/message", "/systemPayload/error/code"]
    assert s.evidence[err.refs[0].ev].line == 3
    # a code is only there when the error had one
    [s] = SRC.read(_failed_turn(tmp_path / "b", {"message": "fetch failed"}), ReadContext(root=tmp_path / "b"))
    assert (s.events[-1].text, [r.pointer for r in s.events[-1].refs]) == (
        "fetch failed", ["/systemPayload/error/message"])


def test_a_failed_turn_ends_the_trace_on_its_error(tmp_path: Path) -> None:
    p = _failed_turn(tmp_path, ERROR)
    [o] = forsy.retrace([p], forsy.RetraceOptions(redact=False),
                        sink=forsy.FolderSink(tmp_path / "out", parent=True)).outcomes
    folder = Path(str(o.where))
    assert forsy.validate(folder).ok and forsy.verify(folder, [p]).ok
    trace = json.loads((folder / "trace.json").read_text())
    last = trace["steps"][-1]
    assert (last["actor"], last["success"], last["eval"]) == ("agent", False, -1)
    assert last["output"] == "429 Too Many Requests: quota exhausted\n429"
    assert trace["termination_reason"] == "error_unrecoverable"
    manifest = json.loads((folder / "manifest.json").read_text())
    # the turn_result record is cited now, no longer filed as metadata
    assert manifest["ledger"][0]["totals"] == {"cited": 3, "metadata": 0, "set_aside": 0, "duplicate": 0,
                                               "unparsable": 0, "unknown": 0}


KEY = {"tenantId": "local", "workspaceId": "w1", "sessionId": SID}


def _ref(d: str) -> dict[str, Any]:
    return {"resourceId": f"r-{d}", "kind": "managed-message", "schemaVersion": 1, "byteLength": 300, "digest": d * 64}


def _managed(log: Log) -> None:
    """What managed-session-authority.ts writes opening a session, then one committed exchange."""
    log.system("session_execution_engine", {"version": 1, "engine": "managed"})
    log.rec("system", subtype="managed_session_header_v1", managedSession={
        "formatVersion": 1, "minimumReader": "managed-session/1", "sessionKey": KEY, "engine": "managed",
        "definitionRef": _ref("a"), "rootSnapshotRef": _ref("b"), "createdBy": "cli"})
    for seq, (mid, role, parent) in enumerate((("m1", "user", None), ("m2", "assistant", "m1")), 1):
        log.rec("system", subtype="managed_session_event_v1", managedSession={
            "v": 1, "sequence": seq, "eventId": f"e{seq}", "sessionKey": KEY, "kind": "message.committed",
            "occurredAt": 1786269600000 + seq,
            "payload": {"messageId": mid, "role": role, "contentRef": _ref("cd"[seq - 1]), "parentMessageId": parent}})
    log.rec("system", subtype="managed_session_commit_v1", managedSession={
        "transactionId": "t1", "commandId": "c1", "operation": "message.commit", "contentDigest": "e" * 64,
        "firstSequence": 1, "lastSequence": 2, "eventCount": 2, "eventsDigest": "f" * 64,
        "previousCommitDigest": None})


def test_a_managed_session_is_skipped_saying_where_its_messages_are(tmp_path: Path) -> None:
    log = Log()
    _managed(log)
    log.rec("system", subtype="turn_result", systemPayload={"promptId": "p9", "state": "error", "error": ERROR})
    p = log.write(tmp_path / "chats" / f"{SID}.jsonl")
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    why = ("2 message(s) of this Qwen Code managed session are stored by reference (contentRef) in Qwen Code's "
           "managed-session store, which forsy does not read; the file holds no message of its own, so no trace is "
           "made of it")
    assert s.events == [] and [(w.code, w.message) for w in s.warnings] == [("work-elsewhere", why)]
    [o] = forsy.retrace([p], forsy.RetraceOptions(redact=False), raise_if_empty=False).outcomes
    assert (o.status, o.message) == ("skipped", why)  # not "the log holds no work", nor a trace of one error


def test_a_managed_sessions_own_messages_are_read_and_the_others_said(tmp_path: Path) -> None:
    """A history imported into a managed session keeps its records (the managed design's sealed
    prefix), and the messages committed after it are in the store."""
    log = Log()
    log.user("refactor the parser", shown="refactor the parser")
    log.model({"text": "Looking at the parser."})
    _managed(log)
    p = log.write(tmp_path / "chats" / f"{SID}.jsonl")
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    assert [(e.kind, e.text) for e in s.events] == [("user", "refactor the parser"),
                                                   ("agent_text", "Looking at the parser.")]
    assert [(w.code, w.message) for w in s.warnings] == [(
        "managed-session", "2 message(s) of this Qwen Code managed session are stored by reference (contentRef) in "
        "Qwen Code's managed-session store, which forsy does not read: they are not in the trace")]
    why = {m.subtype: (m.heading, m.name) for m in s.ledger.values()}
    store = "a managed session's record: its content is kept by reference in Qwen Code's managed-session store, " \
            "which forsy does not read"
    for sub in ("managed_session_header_v1", "managed_session_event_v1", "managed_session_commit_v1"):
        assert why[sub] == ("set_aside", store), sub
    assert s.quality.extra["managed_events"] == 2 and s.quality.extra["managed_messages"] == 2
