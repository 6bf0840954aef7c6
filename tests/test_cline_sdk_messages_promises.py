"""Each message of a Cline SDK session (`MessageWithMetadata`, sdk/packages/shared/src/llms/messages.ts)
read field by field, built by hand from the writer at cline/cline commit 21cb8d2525bc (see
test_sources_cline_sdk.py for the files cited). Expectations by hand.

* The SDK's `ERROR: EMPTY CONTENT` placeholder is a system note, set aside; a block that is no
  object and content that is neither text nor blocks are warned; a role the SDK does not write
  is an unknown record, warned; a message that gave nothing is set aside by its role.
* Blank text or reasoning is no event; a call with no string id is named by where it is; a call's
  name is cited; redacted reasoning, media, images and files are counted.
* A compaction per compaction message; a runtime-written message (its `displayRole` in any
  case, or a synthetic `kind`) is a system note set aside by its kind; a `kind` or `displayRole`
  that is not a string is ignored.
* A mode notice alone is no words; the person's words after a notice are cut out of it (span,
  "mode_notice"); a runtime prompt after blank is still the runtime's.
* A tool result: each text part, each operation's `result` / `error`, each other part as written,
  images and files counted; an operation's `success: false` fails it; a result for no call is an
  orphan, warned; every time cites `/ts`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Mark, ReadingWarning, Ref
from forsy.payloads import MessageInfo, NoteInfo, ResultInfo
from forsy.sources.cline._sdk import EMPTY, read_sdk

NAME = "s1.messages.json"
RESULT_PARTS: list[Any] = [
    {"type": "text", "text": "ran"}, {"type": "image", "data": "x"}, {"type": "file", "path": "a"},
    {"query": "ls", "result": {"ok": 1}, "success": True}, {"query": "rm", "error": "boom", "success": False},
    {"type": "search_result", "url": "u"}, None]
MESSAGES: list[Any] = [
    {"role": "assistant", "ts": 1000, "modelInfo": {"id": "m"}, "metrics": {"inputTokens": 3, "outputTokens": True},
     "content": [{"type": "text", "text": EMPTY}, "junk", {"type": "text", "text": "  "},
                 {"type": "thinking", "thinking": " "}, {"type": "tool_use", "name": 5, "input": {"a": 1}},
                 {"type": "tool_use", "id": "t1", "name": "run", "input": {}},
                 {"type": "media"}, {"type": "redacted_thinking"}]},  # 0
    {"role": "assistant", "content": EMPTY},  # 1
    {"role": "system", "content": "x"},  # 2
    {"role": "user", "content": {"a": 1}},  # 3
    {"role": "user", "content": [{"type": "image"}, {"type": "file"}]},  # 4
    {"role": "user", "metadata": {"kind": "compaction"}, "content": "sum 1"},  # 5
    {"role": "user", "metadata": {"kind": "compaction"}, "content": "sum 2"},  # 6
    {"role": "user", "metadata": {"displayRole": "Status"}, "content": "working"},  # 7
    {"role": "user", "metadata": {"displayRole": "error"}, "content": "failed"},  # 8
    {"role": "user", "metadata": {"kind": "recovery_notice"}, "content": "recovered"},  # 9
    {"role": "user", "metadata": {"kind": ["compaction"], "displayRole": 5}, "content": "hi"},  # 10
    {"role": "user", "content": "<mode_notice>plan</mode_notice>"},  # 11
    {"role": "user", "content": "<mode_notice>act</mode_notice>\nfix it"},  # 12
    {"role": "user", "content": "<mode_notice>a</mode_notice> go </mode_notice>"},  # 13
    {"role": "user", "content": "\n[TASK RESUMPTION] go on"},  # 14
    {"role": "user", "ts": 2000,
     "content": [{"type": "tool_result", "tool_use_id": "t1", "content": RESULT_PARTS}]},  # 15
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
        {"query": "ls", "result": "a", "success": True}]}]},  # 16
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": 7, "name": "run"}]},  # 17
]


def _read(tmp_path: Path) -> Any:
    p = tmp_path / NAME
    p.write_text(json.dumps({"sessionId": "s1", "messages": MESSAGES}, indent=1) + "\n", "utf-8")
    s = read_sdk(p, p.read_bytes(), NAME)
    ids = [e.id for e in s.evidence.values()][1:]  # the sessionId member, then each message
    assert len(ids) == len(MESSAGES)
    return s, ids


def test_each_message_gives_what_it_holds_and_no_more(tmp_path: Path) -> None:
    s, ids = _read(tmp_path)
    got = [(ids.index(e.refs[0].ev), e.kind, e.actor, e.text, [r.pointer for r in e.refs], e.info) for e in s.events]
    assert got == [
        (0, "note", "system", EMPTY, ["/content/0/text"], NoteInfo(subtype="empty_content")),
        (0, "tool_call", "agent", None, ["/content/4/input"], None),
        (0, "tool_call", "agent", None, ["/content/5/input"], None),
        (1, "note", "system", EMPTY, ["/content"], NoteInfo(subtype="empty_content")),
        (5, "compaction", "system", "sum 1", ["/content"], NoteInfo(subtype="compaction")),
        (6, "compaction", "system", "sum 2", ["/content"], NoteInfo(subtype="compaction")),
        (7, "note", "system", "working", ["/content"], NoteInfo(subtype="Status")),
        (8, "note", "system", "failed", ["/content"], NoteInfo(subtype="error")),
        (9, "note", "system", "recovered", ["/content"], NoteInfo(subtype="recovery_notice")),
        (10, "user", "user", "hi", ["/content"], None),
        (12, "user", "user", "fix it", ["/content"], MessageInfo(span=(31, 37), wrapped="mode_notice")),
        (13, "user", "user", "go </mode_notice>", ["/content"], MessageInfo(span=(29, 46), wrapped="mode_notice")),
        (14, "note", "system", "\n[TASK RESUMPTION] go on", ["/content"], NoteInfo(subtype="continuation")),
        (15, "tool_result", "agent", 'ran\n{"ok":1}\nboom\n{"type":"search_result","url":"u"}',
         ["/content/0/content/0/text", "/content/0/content/3/result", "/content/0/content/4/error",
          "/content/0/content/5"], ResultInfo(orphan=False)),
        (16, "tool_result", "agent", "a", ["/content/0/content/0/result"], ResultInfo(orphan=False)),
        (17, "tool_result", "agent", None, ["/content/0"], ResultInfo(orphan=True)),
    ]
    c0, c1, r15, r16, r17 = s.events[1], s.events[2], s.events[13], s.events[14], s.events[15]
    assert (c0.call_id, c0.tool, c0.args, c0.name_ref, c0.group) == (f"{ids[0]}/content/4", None, {"a": 1}, None, "M0")
    assert (c1.call_id, c1.tool, c1.name_ref) == ("t1", "run", Ref(ids[0], "/content/5/name"))
    assert (r15.call_id, r15.tool, r15.is_error) == ("t1", "run", True)
    assert (r16.call_id, r16.tool, r16.is_error) == ("t1", "run", False)
    assert (r17.call_id, r17.tool, r17.is_error) == (None, "run", False)
    assert [(e.ts, e.ts_from) for e in s.events if e.ts] == [
        ("1970-01-01T00:00:01.000Z", Ref(ids[0], "/ts"))] * 3 + [("1970-01-01T00:00:02.000Z", Ref(ids[15], "/ts"))]
    assert all(e.ts_from is None for e in s.events if e.ts is None)


def test_what_is_set_aside_counted_and_warned(tmp_path: Path) -> None:
    s, ids = _read(tmp_path)
    ev = [s.evidence[i] for i in ids]
    nothing = "a message with no text, call or result (an image, a file, redacted reasoning)"
    runtime = "a message the Cline runtime wrote in the user's place"
    assert {ids.index(k): m for k, m in s.ledger.items() if k in ids} == {
        0: Mark("set_aside", "the SDK's placeholder for a message with no content", "empty_content"),
        1: Mark("set_aside", "the SDK's placeholder for a message with no content", "empty_content"),
        3: Mark("set_aside", nothing, "user"), 4: Mark("set_aside", nothing, "user"),
        7: Mark("set_aside", runtime, None), 8: Mark("set_aside", runtime, None),
        9: Mark("set_aside", runtime, "recovery_notice"),
        11: Mark("set_aside", "a user message with no words (a mode notice alone)", "user"),
        14: Mark("set_aside", "text Cline wrote in the user's place", "continuation"),
    }
    assert s.warnings == [
        ReadingWarning("field-type", "content[1] is not a block; skipped", NAME, ev[0].line),
        ReadingWarning("unknown-record", "a message of role 'system'; skipped", NAME, ev[2].line),
        ReadingWarning("field-type", "a message whose content is neither text nor blocks; skipped", NAME, ev[3].line),
        ReadingWarning("orphan-result", "a tool_result for None, a call this file does not hold", NAME, ev[17].line),
    ]
    assert (s.quality.unknown_records, s.quality.compactions) == (1, 2)
    assert {k: v for k, v in s.quality.extra.items() if k.startswith("sdk_")} == {
        "sdk_session": 1, "sdk_media": 1, "sdk_redacted_thinking": 1, "sdk_user_images": 1, "sdk_user_files": 1,
        "sdk_result_images": 1, "sdk_result_files": 1}
    assert s.meta.token_usage == {"input": 3} and s.meta.models == ["m"]


MORE: list[Any] = [
    {"role": "assistant", "metrics": {"inputTokens": 2}, "content": [{"type": "media"}, {"type": "media"}]},  # 0
    {"role": "assistant", "metrics": {"inputTokens": 5}, "content": "ok"},  # 1
    {"role": "tool", "content": "x"}, {"role": None, "content": "y"},  # 2, 3
    {"role": "user", "content": [{"type": "text", "text": EMPTY}]},  # 4
    {"role": "user", "content": "  "},  # 5
    {"role": "user", "content": [{"type": "text", "text": None}, {"type": "reasoning", "text": "mine"},
                                 {"type": "text", "text": " "}, {"type": "text", "text": "go"}]},  # 6
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": [
        {"type": "tool_op", "result": "r", "success": False}]}]},  # 7
    {"role": "user", "content": "<mode_notice>plan</mode_notice><mode_notice>act</mode_notice> go"},  # 8
]


def test_counts_add_up_and_blank_or_foreign_blocks_are_passed_over(tmp_path: Path) -> None:
    p = tmp_path / NAME
    p.write_text(json.dumps({"sessionId": "s1", "messages": MORE}, indent=1) + "\n", "utf-8")
    s = read_sdk(p, p.read_bytes(), NAME)
    ids = [e.id for e in s.evidence.values()][1:]
    assert (s.quality.extra["sdk_media"], s.meta.token_usage, s.quality.unknown_records) == (2, {"input": 7}, 2)
    got = [(ids.index(e.refs[0].ev), e.kind, e.text, [r.pointer for r in e.refs], e.is_error, e.tool) for e in s.events]
    assert got == [
        (1, "agent_text", "ok", ["/content"], None, None),
        (4, "note", EMPTY, ["/content/0/text"], None, None),
        (6, "user", "go", ["/content/3/text"], None, None),
        (7, "tool_result", '{"type":"tool_op","result":"r","success":false}', ["/content/0/content/0"], False, None),
        (8, "user", "go", ["/content"], None, None),
    ]
    assert s.events[-1].info == MessageInfo(span=(62, 64), wrapped="mode_notice")  # both notices cut off
    assert s.ledger[ids[5]] == Mark("set_aside", "a message with no text, call or result (an image, a file, "
                                    "redacted reasoning)", "user")
