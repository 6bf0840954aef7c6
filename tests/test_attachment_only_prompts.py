"""A person's turn of attachments and no words is still the person's turn.

An image (or file) sent with no caption: Claude Code writes a user record, or a queued
command, whose blocks are only `image` / `document`; Copilot CLI a `user.message` with empty
`content` and `attachments`; Qwen Code a user turn of `inlineData` parts with an empty
`displayText`. Each is a `user_message` step whose input states what was attached, with the
marker the Claude Code reader already uses for a block it does not copy (`[image omitted by
forsy: image/png]`): no caption is made up. The answers before and after it stay two steps; a
message with neither words nor attachments is still set aside; the CLI's or another agent's
attachments stay theirs. Fixtures are written here, in the shapes each writer writes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _claude_events_view import marks, session_of, views
from _small_logs import _rec, answer, user, write
from forsy.models import Manifest
from forsy.payloads import MessageInfo
from forsy.run import RetraceOptions, retrace
from forsy.validation import validate_path
from forsy.verification import verify_folder

PNG = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
PDF = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"}}
IMAGE_MARK = "[image omitted by forsy: image/png]"


def _retrace(path: Path, out: Path) -> tuple[dict[str, Any], Manifest]:
    retrace([path], RetraceOptions(out=out, redact=False))
    assert validate_path(out).ok, validate_path(out).errors
    return (json.loads((out / "trace.json").read_text()),
            Manifest.model_validate_json((out / "manifest.json").read_text()))


def _steps(trace: dict[str, Any]) -> list[tuple[str, str, Any]]:
    return [(s["actor"], s["action"], s["input"] if s["action"] == "user_message" else s["output"])
            for s in trace["steps"]]


def _ledger(m: Manifest) -> set[tuple[str, str, str | None]]:
    return {(e.heading, e.record_type, e.rule) for f in m.ledger for e in f.entries}


# -- Claude Code --------------------------------------------------------------------------------

def _cc_image_second(tmp_path: Path) -> Path:
    return write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "What color is the sky?"),
        answer(1, "a1", "u1", "Blue."),
        _rec(2, "user", [PNG], "u2", "a1"),
        answer(3, "a2", "u2", "That is a red square."),
    ])


def test_claude_an_image_alone_is_the_persons_turn_between_two_answers(tmp_path: Path) -> None:
    trace, m = _retrace(_cc_image_second(tmp_path), tmp_path / "out")
    assert _steps(trace) == [("user", "user_message", "What color is the sky?"), ("agent", "output", "Blue."),
                             ("user", "user_message", IMAGE_MARK), ("agent", "output", "That is a red square.")]
    assert trace["task"] == "What color is the sky?"
    assert _ledger(m) == {("cited", "user", None), ("cited", "assistant", None)}
    assert [w.code for w in m.warnings] == []


def test_claude_the_event_states_each_block_and_cites_it(tmp_path: Path) -> None:
    blank = {"type": "text", "text": "  "}  # a blank text block is no words
    s = session_of(tmp_path, [_rec(0, "user", [PNG, blank, PDF], "u1", None)])
    assert views(s) == [{
        "kind": "user", "actor": "user", "ts": "2026-01-01T10:00:00.000Z",
        "refs": [(1, "/message/content/0"), (1, "/message/content/2")],
        "text": IMAGE_MARK + "\n[document omitted by forsy: application/pdf]", "excerpt": True,
        "info": MessageInfo(attachments_omitted=2), "ts_ref": (1, "/timestamp")}]


def test_claude_an_image_with_no_media_type_says_so(tmp_path: Path) -> None:
    s = session_of(tmp_path, [_rec(0, "user", [{"type": "image", "source": {"type": "url", "url": "u"}}], "u1", None)])
    assert [e.text for e in s.events] == ["[image omitted by forsy: unknown type]"]


@pytest.mark.parametrize("record", [
    dict(_rec(0, "user", [PNG], "u1", None), isMeta=True),  # Claude Code's own line
    dict(_rec(0, "user", [PNG], "u1", None), promptSource="system"),  # Claude Code's own prompt
    dict(_rec(0, "user", [PNG], "u1", None), origin={"kind": "channel"}),  # another sender
    _rec(0, "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}, PNG], "u1", None),
    _rec(0, "user", [], "u1", None),  # nothing at all
])
def test_claude_images_not_from_the_person_make_no_turn(tmp_path: Path, record: dict[str, Any]) -> None:
    assert [e.kind for e in session_of(tmp_path, [record]).events if e.kind == "user"] == []


def test_claude_an_image_with_words_stays_counted_on_the_words(tmp_path: Path) -> None:
    s = session_of(tmp_path, [_rec(0, "user", [PNG, {"type": "text", "text": "Look."}], "u1", None)])
    assert [(e.text, e.excerpt, e.info) for e in s.events] == [("Look.", False, MessageInfo(attachments_omitted=1))]


def test_claude_an_image_alone_as_the_first_prompt_is_a_step_citing_its_record(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [_rec(0, "user", [PNG], "u1", None), answer(1, "a1", "u1", "A red square.")])
    trace, m = _retrace(path, tmp_path / "out")
    assert _steps(trace) == [("user", "user_message", IMAGE_MARK), ("agent", "output", "A red square.")]
    assert trace["steps"][1]["caused_by"] == [1]
    assert _ledger(m) == {("cited", "user", None), ("cited", "assistant", None)}


def test_claude_an_image_alone_as_the_first_prompt_is_no_task(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [_rec(0, "user", [PNG], "u1", None), answer(1, "a1", "u1", "A red square.")])
    trace, _ = _retrace(path, tmp_path / "out")
    prov = json.loads((tmp_path / "out" / "provenance.json").read_text())
    assert trace["task"].startswith("Work recorded in claude_code evidence")
    assert prov["trace_fields"]["task"]["rule"] == "T-task/no-user-message"


def test_claude_the_stated_input_verifies_as_an_excerpt(tmp_path: Path) -> None:
    path = _cc_image_second(tmp_path)
    _retrace(path, tmp_path / "out")
    prov = json.loads((tmp_path / "out" / "provenance.json").read_text())
    assert prov["steps"][2]["fields"]["input"]["excerpt"] is True
    rep = verify_folder(tmp_path / "out", [path])
    assert rep.ok, rep.problems


def _queued(prompt: Any, **att: Any) -> dict[str, Any]:
    return {"type": "attachment", "uuid": "q1", "parentUuid": "a1", "sessionId": "s-small", "version": "2.1.200",
            "cwd": "/home/dev/proj", "timestamp": "2026-01-01T10:00:02.000Z",
            "attachment": {"type": "queued_command", "prompt": prompt, **att}}


def test_claude_a_queued_image_alone_is_the_persons_turn(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Start the work."),
        answer(1, "a1", "u1", "Started."),
        _queued([PNG], commandMode="prompt", origin={"kind": "human"}),
        answer(3, "a2", "q1", "I saw your image."),
    ])
    trace, m = _retrace(path, tmp_path / "out")
    assert _steps(trace) == [("user", "user_message", "Start the work."), ("agent", "output", "Started."),
                             ("user", "user_message", IMAGE_MARK), ("agent", "output", "I saw your image.")]
    assert ("cited", "attachment/queued_command", None) in _ledger(m)
    s = session_of(tmp_path, [_queued([PNG], commandMode="prompt", origin={"kind": "human"})], "q.jsonl")
    assert [(e.kind, e.refs[0].pointer, e.excerpt, e.info) for e in s.events] == [
        ("user", "/attachment/prompt/0", True, MessageInfo(attachments_omitted=1))]


def test_claude_a_queued_image_of_another_sender_stays_set_aside(tmp_path: Path) -> None:
    s = session_of(tmp_path, [_queued([PNG], commandMode="task-notification")])
    assert s.events == []
    assert marks(s)[1][0] == "set_aside"


def test_claude_an_image_alone_on_a_rewound_branch_is_abandoned(tmp_path: Path) -> None:
    s = session_of(tmp_path, [
        user(0, "u1", None, "Fix the bug."),
        answer(1, "a1", "u1", "Which bug?"),
        _rec(2, "user", [PNG], "m1", "a1"),  # sent, then rewound away from
        user(3, "u3", "a1", "The signup bug."),
        answer(4, "a3", "u3", "Fixed signup."),
    ])
    assert [(e.text, e.abandoned) for e in s.events] == [
        ("Fix the bug.", False), ("Which bug?", False), (IMAGE_MARK, True), ("The signup bug.", False),
        ("Fixed signup.", False)]


# -- Copilot CLI --------------------------------------------------------------------------------

COPILOT_SID = "aaaaaaaa-0000-4000-8000-000000000001"


def _copilot(root: Path, *events: tuple[str, dict[str, Any]]) -> Path:
    lines, last = [], None
    head = ("session.start", {"sessionId": COPILOT_SID, "version": 1, "producer": "copilot-agent",
                              "copilotVersion": "1.0.44", "startTime": "2026-05-02T10:00:00.500Z",
                              "selectedModel": "gpt-5.1", "context": {"cwd": "/home/dev/p"}})
    for n, (typ, data) in enumerate([head, *events], 1):
        eid = f"00000000-0000-4000-8000-{n:012d}"
        lines.append(json.dumps({"type": typ, "data": data, "id": eid, "timestamp": f"2026-05-02T10:00:{n:02d}.000Z",
                                 "parentId": last}))
        last = eid
    path = root / "session-state" / COPILOT_SID / "events.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


BLOB = {"type": "blob", "data": "iVBORw0KGgo=", "mimeType": "image/png", "displayName": "shot.png"}


def _says(text: str) -> tuple[str, dict[str, Any]]:
    return ("assistant.message", {"messageId": text[:3], "content": text, "toolRequests": []})


def test_copilot_an_image_alone_is_the_persons_turn_between_two_answers(tmp_path: Path) -> None:
    path = _copilot(tmp_path, ("user.message", {"content": "Is dim.py right?"}), _says("It is."),
                    ("user.message", {"content": "", "attachments": [BLOB], "interactionId": "x2"}),
                    _says("The screenshot shows 0%."))
    trace, m = _retrace(path, tmp_path / "out")
    assert _steps(trace) == [("user", "user_message", "Is dim.py right?"), ("agent", "output", "It is."),
                             ("user", "user_message", "[blob omitted by forsy: image/png]"),
                             ("agent", "output", "The screenshot shows 0%.")]
    assert not any(e.rule == "a user message with no words" for f in m.ledger for e in f.entries)


@pytest.mark.parametrize("data", [
    {"content": ""},  # no words and nothing attached
    {"content": "  ", "attachments": []},
    {"content": "", "attachments": [BLOB], "source": "system"},  # the CLI's, not the person's
])
def test_copilot_no_words_of_the_persons_stays_set_aside(tmp_path: Path, data: dict[str, Any]) -> None:
    path = _copilot(tmp_path, ("user.message", {"content": "Go."}), _says("Done."), ("user.message", data),
                    _says("Done again."))
    trace, m = _retrace(path, tmp_path / "out")
    assert [s["input"] for s in trace["steps"] if s["action"] == "user_message"] == ["Go."]
    assert any(e.rule == "a user message with no words" for f in m.ledger for e in f.entries)


def test_copilot_each_attachment_is_stated(tmp_path: Path) -> None:
    f = {"type": "file", "path": "/home/dev/p/a.py", "displayName": "a.py"}
    path = _copilot(tmp_path, ("user.message", {"content": "", "attachments": [BLOB, f]}), _says("Seen."))
    trace, _ = _retrace(path, tmp_path / "out")
    assert trace["steps"][0]["input"] == "[blob omitted by forsy: image/png]\n[file omitted by forsy: unknown type]"


# -- Qwen Code ----------------------------------------------------------------------------------

QWEN_SID = "6f1c2a9e-0b7d-4c55-9d0e-2f3a4b5c6d7e"


def _qwen(root: Path, *turns: tuple[str, list[dict[str, Any]], str | None]) -> Path:
    lines, last = [], None
    for n, (kind, parts, shown) in enumerate(turns, 1):
        r: dict[str, Any] = {"uuid": f"q-{n:04d}", "parentUuid": last, "sessionId": QWEN_SID,
                             "timestamp": f"2026-05-04T09:00:{n:02d}.000Z", "type": kind,
                             "provenance": "real_user" if kind == "user" else "assistant_output",
                             "cwd": "/home/dev/tally", "version": "0.15.2", "gitBranch": "main",
                             "message": {"role": "user" if kind == "user" else "model", "parts": parts}}
        if kind == "assistant":
            r["model"] = "qwen3-coder-plus"
        if shown is not None:
            r["systemPayload"] = {"displayText": shown}
        lines.append(json.dumps(r))
        last = r["uuid"]
    path = root / "projects" / "-home-dev-tally" / "chats" / f"{QWEN_SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


INLINE = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}


def test_qwen_an_image_alone_is_the_persons_turn_between_two_answers(tmp_path: Path) -> None:
    path = _qwen(tmp_path, ("user", [{"text": "Count the words."}], "Count the words."),
                 ("assistant", [{"text": "Five."}], None), ("user", [INLINE], ""),
                 ("assistant", [{"text": "A red square."}], None))
    trace, m = _retrace(path, tmp_path / "out")
    assert _steps(trace) == [("user", "user_message", "Count the words."), ("agent", "output", "Five."),
                             ("user", "user_message", "[inlineData omitted by forsy: image/png]"),
                             ("agent", "output", "A red square.")]
    assert not any(e.rule == "a user message with no words" for f in m.ledger for e in f.entries)


def test_qwen_a_turn_of_no_words_and_no_attachment_stays_set_aside(tmp_path: Path) -> None:
    path = _qwen(tmp_path, ("user", [{"text": "Go."}], "Go."), ("assistant", [{"text": "Done."}], None),
                 ("user", [{"text": "  "}], ""), ("assistant", [{"text": "Again."}], None))
    trace, m = _retrace(path, tmp_path / "out")
    assert [s["input"] for s in trace["steps"] if s["action"] == "user_message"] == ["Go."]
    assert any(e.rule == "a user message with no words" for f in m.ledger for e in f.entries)
