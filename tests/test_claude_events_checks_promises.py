"""What the Claude Code reader does with a record field of the wrong kind, one field at a time.

Each such field is one `field-type` warning with the file and the record's line, saying which
field, what kind it was and what kind it should be; the field is then read as absent (the rest
of the record is read). A record whose `type` is no text is skipped and counted unknown. A user
or assistant record without a message object, or whose message has no content to read, is read
as having none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _claude_events_view import marks, session_of, views, warnings
from _small_logs import SESSION, _rec, answer, call, user
from forsy.payloads import MessageInfo, NoteInfo

TS0, TS1 = "2026-01-01T10:00:00.000Z", "2026-01-01T10:00:01.000Z"
GO = {"kind": "user", "actor": "user", "ts": TS0, "refs": [(1, "/message/content")], "text": "Go.",
      "ts_ref": (1, "/timestamp")}


def _with(rec: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {**rec, **fields}


@pytest.mark.parametrize(("value", "kind"), [(3, "a number"), (["user"], "a list"), (True, "a boolean"),
                                             ({"t": "user"}, "an object")])
def test_a_record_whose_type_is_no_text_is_skipped_counted_and_said(tmp_path: Path, value: Any, kind: str) -> None:
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), _with(user(1, "u2", "u1", "Hidden."), type=value)])
    assert warnings(s) == [("field-type", f"record type is {kind}, not a string; record skipped", "s.jsonl", 2)]
    assert views(s) == [GO]
    assert s.quality.unknown_records == 1
    assert s.quality.records == 2


STR_FIELDS = ["uuid", "parentUuid", "logicalParentUuid", "sessionId", "timestamp", "cwd", "version", "gitBranch",
              "agentId", "subtype", "summary", "leafUuid", "parentToolUseID"]
BOOL_FIELDS = ["isSidechain", "isMeta", "isCompactSummary", "isApiErrorMessage"]


@pytest.mark.parametrize("field", STR_FIELDS)
def test_a_text_field_of_another_kind_is_said_with_its_line(tmp_path: Path, field: str) -> None:
    s = session_of(tmp_path, [_with(user(0, "u1", None, "Go."), **{field: 7})])
    assert warnings(s) == [("field-type", f"{field} is a number, not a string; read as absent", "s.jsonl", 1)]


@pytest.mark.parametrize("field", BOOL_FIELDS)
def test_a_flag_of_another_kind_is_said_with_its_line(tmp_path: Path, field: str) -> None:
    s = session_of(tmp_path, [_with(user(0, "u1", None, "Go."), **{field: "yes"})])
    assert warnings(s) == [("field-type", f"{field} is a string, not true/false; read as absent", "s.jsonl", 1)]


def test_several_bad_fields_are_said_in_order_texts_first_and_all_read_as_absent(tmp_path: Path) -> None:
    # isMeta "yes" read as absent: typed words, not a meta note; timestamp 5 read as absent: no time
    rec = _with(user(0, "u1", None, "Go."), isMeta="yes", timestamp=5, cwd=["/x"], isSidechain=1)
    s = session_of(tmp_path, [rec])
    assert warnings(s) == [
        ("field-type", "timestamp is a number, not a string; read as absent", "s.jsonl", 1),
        ("field-type", "cwd is a list, not a string; read as absent", "s.jsonl", 1),
        ("field-type", "isSidechain is a number, not true/false; read as absent", "s.jsonl", 1),
        ("field-type", "isMeta is a string, not true/false; read as absent", "s.jsonl", 1)]
    assert views(s) == [{"kind": "user", "actor": "user", "ts": None, "refs": [(1, "/message/content")],
                         "text": "Go."}]
    assert s.meta.cwd is None


def test_a_true_flag_of_another_kind_is_not_read_as_true(tmp_path: Path) -> None:
    # isCompactSummary 1 is no flag: the text is the person's words, not a compaction summary
    s = session_of(tmp_path, [_with(user(0, "u1", None, "Go."), isCompactSummary=1),
                              _with(answer(1, "a1", "u1", "Busy."), isApiErrorMessage="true")])
    assert views(s) == [GO, {"kind": "agent_text", "actor": "agent", "ts": TS1,
                             "refs": [(2, "/message/content/0/text")], "text": "Busy.", "group": "msg_a1",
                             "ts_ref": (2, "/timestamp")}]
    assert [w.line for w in s.warnings] == [1, 2]


def test_good_fields_are_kept_when_one_is_bad(tmp_path: Path) -> None:
    s = session_of(tmp_path, [_with(user(0, "u1", None, "Go."), gitBranch=3, isMeta=True)])
    assert views(s) == [{"kind": "note", "actor": "system", "ts": TS0, "refs": [(1, "/message/content")],
                         "text": "Go.", "info": NoteInfo(subtype="meta"), "ts_ref": (1, "/timestamp")}]
    assert s.meta.cwd == "/home/dev/proj" and s.meta.git_branch is None and s.session_id == SESSION


def _progress(data: Any) -> dict[str, Any]:
    r = {"type": "progress", "uuid": "p1", "parentUuid": "u1", "sessionId": SESSION,
         "timestamp": "2026-01-01T10:00:01.000Z"}
    if data is not ...:
        r["data"] = data
    return r


@pytest.mark.parametrize(("data", "what"), [
    (..., "data that is null"),
    (None, "data that is null"),
    ("hook", "data that is a string"),
    ([1], "data that is a list"),
    ({"type": 4}, "data.type that is a number"),
    ({"hookName": "x"}, "data.type that is null"),
])
def test_a_progress_record_with_no_readable_data_type_is_said(tmp_path: Path, data: Any, what: str) -> None:
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), _progress(data)])
    assert warnings(s) == [("field-type", f"progress record with {what}; its data was not read", "s.jsonl", 2)]
    assert views(s) == [GO]
    assert marks(s)[2] == ("set_aside", "progress records carry no work", None)


def test_a_progress_record_with_a_data_type_is_not_warned(tmp_path: Path) -> None:
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), _progress({"type": "hook_progress"})])
    assert warnings(s) == []
    assert marks(s)[2] == ("set_aside", "progress records carry no work", "hook_progress")


def test_a_progress_data_type_of_another_kind_is_dropped_with_its_data(tmp_path: Path) -> None:
    # data.type 4 is no kind: data is read as absent, so the agent_progress copy rule cannot see it
    s = session_of(tmp_path, [user(0, "u1", None, "Go."),
                              _progress({"type": 4, "message": {"type": "user", "message": {"content": "x"}}})])
    assert marks(s)[2] == ("set_aside", "progress records carry no work", None)
    assert views(s) == [GO]


@pytest.mark.parametrize(("kind", "message", "what"), [
    ("user", ..., "has no message"),
    ("user", None, "has no message"),
    ("user", "Go.", "has a message that is a string, not an object"),
    ("assistant", ["x"], "has a message that is a list, not an object"),
    ("assistant", 2, "has a message that is a number, not an object"),
])
def test_a_message_record_without_a_message_object_reads_nothing(tmp_path: Path, kind: str, message: Any,
                                                                  what: str) -> None:
    rec = _rec(1, kind, "Hidden.", "x1", "u1")
    if message is ...:
        del rec["message"]
    else:
        rec["message"] = message
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), rec])
    assert warnings(s) == [("field-type", f"{kind} record {what}; nothing read from it", "s.jsonl", 2)]
    assert views(s) == [GO]


def test_a_system_record_needs_no_message(tmp_path: Path) -> None:
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), {"type": "system", "subtype": "informational",
                                                           "uuid": "y1", "parentUuid": "u1", "content": "hi",
                                                           "message": 3}])
    assert warnings(s) == []


def _assistant_with(**message: Any) -> dict[str, Any]:
    rec = answer(1, "a1", "u1", "Done.")
    rec["message"].update(message)
    return rec


DONE = {"kind": "agent_text", "actor": "agent", "ts": TS1, "refs": [(2, "/message/content/0/text")],
        "text": "Done.", "group": "msg_a1", "ts_ref": (2, "/timestamp")}


def test_a_message_id_of_another_kind_is_said_and_the_group_falls_back_to_the_uuid(tmp_path: Path) -> None:
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), _assistant_with(id=12)])
    assert warnings(s) == [("field-type", "message.id is a number, not a string; read as absent", "s.jsonl", 2)]
    assert views(s) == [GO, {**DONE, "group": "a1"}]


def test_a_message_model_of_another_kind_is_said_and_not_a_model(tmp_path: Path) -> None:
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), _assistant_with(model=["claude"], id=None)])
    assert warnings(s) == [("field-type", "message.model is a list, not a string; read as absent", "s.jsonl", 2)]
    assert views(s) == [GO, {**DONE, "group": "a1"}]
    assert s.meta.models == []


def test_a_synthetic_model_of_another_kind_marks_nothing_synthetic(tmp_path: Path) -> None:
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), _assistant_with(model=None)])
    assert views(s) == [GO, DONE]
    assert warnings(s) == []


def test_usage_that_is_no_object_is_said_and_not_counted(tmp_path: Path) -> None:
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), _assistant_with(usage=[5, 6], id=3, model=4)])
    assert warnings(s) == [
        ("field-type", "message.id is a number, not a string; read as absent", "s.jsonl", 2),
        ("field-type", "message.model is a number, not a string; read as absent", "s.jsonl", 2),
        ("field-type", "message.usage is a list, not an object; read as absent", "s.jsonl", 2)]
    assert views(s) == [GO, {**DONE, "group": "a1"}]


def test_usage_as_an_object_is_read(tmp_path: Path) -> None:
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), _assistant_with(usage={"input_tokens": 9})])
    assert warnings(s) == []
    assert views(s) == [GO, DONE]


@pytest.mark.parametrize(("kind", "content", "what"), [
    ("assistant", ..., "no content"),
    ("assistant", None, "no content"),
    ("assistant", 5, "content that is a number, not text or a list of blocks"),
    ("user", {"type": "text", "text": "x"}, "content that is an object, not text or a list of blocks"),
    ("user", False, "content that is a boolean, not text or a list of blocks"),
])
def test_a_message_with_no_content_to_read_is_said(tmp_path: Path, kind: str, content: Any, what: str) -> None:
    rec = _rec(1, kind, content, "x1", "u1")
    if content is ...:
        del rec["message"]["content"]
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), rec])
    assert warnings(s) == [("field-type", f"{kind} message has {what}; nothing read from it", "s.jsonl", 2)]
    assert views(s) == [GO]


def test_a_compact_summary_with_bad_content_is_an_empty_compaction(tmp_path: Path) -> None:
    rec = _with(_rec(1, "user", 5, "x1", "u1"), isCompactSummary=True)
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), rec])
    assert views(s) == [GO, {"kind": "compaction", "actor": "system", "ts": TS1,
                             "refs": [(2, "/message/content/0/text")], "text": "", "ts_ref": (2, "/timestamp")}]


def test_an_api_error_flag_read_as_absent_is_no_api_error(tmp_path: Path) -> None:
    rec = _with(_assistant_with(model="<synthetic>"), isApiErrorMessage=0)
    s = session_of(tmp_path, [user(0, "u1", None, "Go."), rec])
    assert views(s) == [GO, {**DONE, "info": MessageInfo(synthetic=True)}]


def test_a_subagents_progress_copy_with_a_bad_field_still_cites_inside_the_copy(tmp_path: Path) -> None:
    # the copy's message.id and timestamp are read as absent; its pointers keep the /data/message prefix
    inner = {"type": "assistant", "uuid": "x1", "timestamp": 5,
             "message": {"role": "assistant", "id": 9, "model": "claude-test",
                         "content": [{"type": "text", "text": "Found it."},
                                     {"type": "tool_use", "id": "g1", "name": "Grep", "input": {"p": "r"}}]}}
    prog = {"type": "progress", "uuid": "p1", "parentUuid": "a1", "sessionId": SESSION, "timestamp": TS1,
            "parentToolUseID": "t1", "data": {"type": "agent_progress", "agentId": "ab12", "prompt": "Find it.",
                                              "message": inner}}
    s = session_of(tmp_path, [user(0, "u1", None, "Go."),
                              call(1, "a1", "u1", "t1", "Task", {"description": "d", "prompt": "Find it."}), prog])
    assert warnings(s)[:2] == [
        ("field-type", "timestamp is a number, not a string; read as absent", "s.jsonl", 3),
        ("field-type", "message.id is a number, not a string; read as absent", "s.jsonl", 3)]
    sub = [e for e in s.events if e.actor == "subagent:ab12"]
    assert [([r.pointer for r in e.refs], e.ts, e.group, e.name_ref and e.name_ref.pointer) for e in sub] == [
        (["/data/message/message/content/0/text"], None, "x1", None),
        (["/data/message/message/content/1/input"], None, "x1", "/data/message/message/content/1/name")]
