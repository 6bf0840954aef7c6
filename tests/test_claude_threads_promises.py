"""A Claude Code subagent's thread: read from its own file, or (when no file holds it) from the
`agent_progress` copies of its messages in the main log, whose citations then point inside the
copy (`/data/message/...`); linked to the call that spawned it only by an exact key
(`parentToolUseID`, `toolUseResult.agentId`, or a prompt identical to the call's and unique)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _small_logs import _rec, answer, call, result, user, write
from forsy.evidence import Event, Session
from forsy.payloads import Link, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _task(n: int, uuid: str, parent: str, tid: str, prompt: str) -> dict[str, Any]:
    return call(n, uuid, parent, tid, "Task", {"description": "look", "prompt": prompt,
                                               "subagent_type": "general-purpose"})


def _progress(n: int, uuid: str, parent: str, inner: dict[str, Any], **data: Any) -> dict[str, Any]:
    return {"type": "progress", "uuid": uuid, "parentUuid": parent, "sessionId": "s-small",
            "timestamp": f"2026-01-01T10:00:{n:02d}.000Z", "parentToolUseID": "t1", "toolUseID": "agent_msg_1",
            "data": {"type": "agent_progress", "agentId": "ab12", "prompt": "Find the retry limit.",
                     "normalizedMessages": [], "message": inner, **data}}


def _inner(n: int, kind: str, content: Any, uuid: str, **extra: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        msg.update({"id": f"msg_{uuid}", "model": "claude-test"})
    return {"type": kind, "message": msg, "uuid": uuid, "timestamp": f"2026-01-01T10:00:{n:02d}.500Z", **extra}


def _sub(s: Session) -> list[Event]:
    return [e for e in s.events if e.actor.startswith("subagent:")]


def _where(e: Event) -> tuple[Any, ...]:
    return ([r.pointer for r in e.refs], e.ts_ref and e.ts_ref.pointer, e.name_ref and e.name_ref.pointer,
            e.info.rich_ref.pointer if isinstance(e.info, ResultInfo) and e.info.rich_ref else None)


def test_a_subagent_read_from_progress_copies_cites_inside_the_copy(tmp_path: Path) -> None:
    grep = [{"type": "tool_use", "id": "g1", "name": "Grep", "input": {"pattern": "retries"}}]
    found = [{"type": "tool_result", "tool_use_id": "g1", "content": "conf.py:3: retries = 5"}]
    s = _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Where is the retry limit set?"),
        _task(1, "a1", "u1", "t1", "Find the retry limit."),
        _progress(2, "p1", "a1", _inner(2, "assistant", grep, "x1")),
        _progress(3, "p2", "p1", _inner(3, "user", found, "x2", toolUseResult={"filenames": ["conf.py"]})),
        result(4, "r1", "a1", "t1", "conf.py line 3"),
        answer(5, "a2", "r1", "In conf.py."),
    ]))
    assert [(e.kind, e.actor) for e in s.events] == [
        ("user", "user"), ("tool_call", "agent"), ("tool_call", "subagent:ab12"), ("tool_result", "subagent:ab12"),
        ("tool_result", "agent"), ("agent_text", "agent")]
    call_e, result_e = _sub(s)
    assert _where(call_e) == (["/data/message/message/content/0/input"], "/data/message/timestamp",
                              "/data/message/message/content/0/name", None)
    assert _where(result_e) == (["/data/message/message/content/0/content"], "/data/message/timestamp", None,
                                "/data/message/toolUseResult")
    assert (call_e.ts, result_e.ts) == ("2026-01-01T10:00:02.500Z", "2026-01-01T10:00:03.500Z")
    assert [s.evidence[e.refs[0].ev].line for e in (call_e, result_e)] == [3, 4]  # the progress records' lines
    assert call_e.ts_ref and call_e.name_ref and call_e.ts_ref.ev == call_e.name_ref.ev == call_e.refs[0].ev
    assert isinstance(result_e.info, ResultInfo) and result_e.info.rich_ref and result_e.ts_ref
    assert result_e.info.rich_ref.ev == result_e.ts_ref.ev == result_e.refs[0].ev
    link = Link(subagent="ab12", parent_call_id="t1", link_rule="progress.parentToolUseID", thread_source="progress")
    assert [e.link for e in _sub(s)] == [link, link]
    assert [w.code for w in s.warnings if w.code == "unlinked-subagent"] == []


def _agent_file(tmp_path: Path, agent: str, records: list[dict[str, Any]]) -> None:
    folder = tmp_path / "s" / "subagents"
    folder.mkdir(parents=True, exist_ok=True)
    write(folder / f"agent-{agent}.jsonl", [dict(r, isSidechain=True, agentId=agent) for r in records])


def _parent_log(tmp_path: Path, *prompts: str) -> Path:
    recs = [user(0, "u1", None, "Where is the retry limit set?")]
    for i, p in enumerate(prompts):
        recs.append(_task(1 + 2 * i, f"a{i}", recs[-1]["uuid"], f"t{i}", p))
        recs.append(result(2 + 2 * i, f"r{i}", f"a{i}", f"t{i}", "done"))
    return write(tmp_path / "s.jsonl", recs)


@pytest.mark.parametrize("first", [
    # the prompt as text blocks: joined with a newline, other blocks left out
    _rec(0, "user", [{"type": "text", "text": "Find the retry limit."},
                     {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
                     {"type": "text", "text": "Look in src/."}], "x1", None),
])
def test_a_subagent_file_is_linked_by_a_prompt_identical_to_its_call(tmp_path: Path, first: dict[str, Any]) -> None:
    _agent_file(tmp_path, "ab12", [
        first,
        call(1, "x2", "x1", "g1", "Grep", {"pattern": "retries"}),
    ])
    s = _read(_parent_log(tmp_path, "Find the retry limit.\nLook in src/."))
    link = Link(subagent="ab12", parent_call_id="t0", link_rule="identical-prompt", thread_source="file")
    assert [(e.kind, e.link) for e in _sub(s)] == [("note", link), ("note", link), ("tool_call", link)]
    assert [w.code for w in s.warnings if w.code == "unlinked-subagent"] == []


@pytest.mark.parametrize(("first", "why"), [
    # the file starts with a record that is not the prompt: the prompt is its first user record
    (None, "no user record"),
    (_rec(0, "user", [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}],
          "x1", None), "no words"),
])
def test_a_subagent_without_a_readable_prompt_is_not_linked(tmp_path: Path, first: dict[str, Any] | None,
                                                            why: str) -> None:
    _agent_file(tmp_path, "ab12", ([first] if first else []) + [
        call(1, "x2", "x1", "g1", "Grep", {"pattern": "retries"}),
    ])
    s = _read(_parent_log(tmp_path, "Find the retry limit."))
    assert {e.link.parent_call_id if e.link else "-" for e in _sub(s)} == {None}, why
    assert [w.message for w in s.warnings if w.code == "unlinked-subagent"] == [
        "subagent ab12: spawning call not identified exactly; its steps are placed by time without a causal link"]


def test_the_prompt_is_the_first_user_record_even_after_other_records(tmp_path: Path) -> None:
    notice = {"type": "system", "subtype": "informational", "uuid": "x0", "parentUuid": None,
              "sessionId": "s-small", "timestamp": "2026-01-01T10:00:00.000Z", "content": "Started."}
    _agent_file(tmp_path, "ab12", [
        notice,
        user(0, "x1", "x0", "Find the retry limit."),
        user(1, "x3", "x1", "Also the timeout."),
    ])
    s = _read(_parent_log(tmp_path, "Find the retry limit."))
    assert {e.link.link_rule if e.link else "-" for e in _sub(s)} == {"identical-prompt"}


def test_a_prompt_two_calls_share_links_neither(tmp_path: Path) -> None:
    _agent_file(tmp_path, "ab12", [user(0, "x1", None, "Find the retry limit.")])
    s = _read(_parent_log(tmp_path, "Find the retry limit.", "Find the retry limit."))
    assert {e.link.parent_call_id if e.link else "-" for e in _sub(s)} == {None}
    assert [w.code for w in s.warnings if w.code == "unlinked-subagent"] == ["unlinked-subagent"]


def _progress_log(tmp_path: Path, *copies: dict[str, Any]) -> Session:
    return _read(write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Where is the retry limit set?"),
        _task(1, "a1", "u1", "t1", "Find the retry limit."),
        *copies,
        result(9, "r1", "a1", "t1", "conf.py line 3"),
    ]))


@pytest.mark.parametrize(("data", "what"), [
    ({"agentId": 7}, "data.agentId that is a number"),
    ({"agentId": ""}, "data.agentId that is a string"),
    ({"agentId": None}, "data.agentId that is null"),
    ({"message": "Find it."}, "data.message that is a string"),
    ({"message": None}, "data.message that is null"),
])
def test_an_agent_progress_copy_without_an_agent_or_a_message_is_warned_and_not_read(
        tmp_path: Path, data: dict[str, Any], what: str) -> None:
    s = _progress_log(tmp_path, _progress(2, "p1", "a1", _inner(2, "assistant", [], "x1"), **data))
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("field-type", f"agent_progress record with {what}; its subagent message was not read", "s.jsonl", 3)]
    assert _sub(s) == []


def test_an_agent_progress_copy_of_no_work_is_said_to_be_unread(tmp_path: Path) -> None:
    inner = {"type": "attachment", "uuid": "x1", "attachment": {}}
    s = _progress_log(tmp_path, _progress(2, "p1", "a1", inner))
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("unread-content", "agent_progress message of type 'attachment'; not read", "s.jsonl", 3)]
    assert _sub(s) == []


def test_a_prompt_that_is_no_text_is_read_as_absent(tmp_path: Path) -> None:
    # the thread's prompt then comes from its first user record; the link is by parentToolUseID all the same
    s = _progress_log(tmp_path, _progress(2, "p1", "a1", _inner(2, "user", "Find the retry limit.", "x1"), prompt=7),
                      _progress(3, "p2", "p1", _inner(3, "assistant", [{"type": "text", "text": "conf.py"}], "x2")))
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("field-type", "data.prompt is a number, not a string; read as absent", "s.jsonl", 3)]
    assert [(e.kind, e.text, e.link.parent_call_id if e.link else None) for e in _sub(s)] == [
        ("note", "Find the retry limit.", "t1"), ("agent_text", "conf.py", "t1")]


def test_the_copies_of_an_agent_that_has_its_own_file_are_not_read_twice(tmp_path: Path) -> None:
    _agent_file(tmp_path, "ab12", [_rec(0, "user", "Find the retry limit.", "x1", None)])
    s = _progress_log(tmp_path, _progress(2, "p1", "a1", _inner(2, "user", "Find the retry limit.", "x1")))
    assert [(e.kind, e.text) for e in _sub(s)] == [("note", "Find the retry limit.")]
    assert {e.link.thread_source for e in _sub(s) if e.link} == {"file"}


def test_a_copy_that_cannot_be_read_leaves_the_later_ones_read(tmp_path: Path) -> None:
    _agent_file(tmp_path, "ef56", [_rec(0, "user", "Count the tests.", "z1", None)])
    said = _inner(7, "assistant", [{"type": "text", "text": "conf.py"}], "x2")
    s = _progress_log(tmp_path,
                      _progress(2, "p1", "a1", _inner(2, "user", "x", "y1"), agentId=7),
                      _progress(3, "p2", "p1", {"type": "attachment", "uuid": "y2"}),
                      _progress(4, "p3", "p2", {"type": 7, "uuid": "y3"}),
                      _progress(5, "p4", "p3", _inner(5, "user", "Count the tests.", "y4"), agentId="ef56"),
                      _progress(6, "p5", "p4", dict(_inner(6, "user", "Find the retry limit.", "x1"), sessionId=3)),
                      _progress(7, "p6", "p5", said))
    assert [(e.actor, e.text) for e in _sub(s) if e.kind == "agent_text"] == [("subagent:ab12", "conf.py")]
    assert [(w.code, w.line) for w in s.warnings if w.line] == [
        ("field-type", 3), ("unread-content", 4), ("field-type", 5), ("field-type", 7), ("unlinked-subagent", 1)]
