"""What a fuzzing run over mutated real logs found, each case built small here by hand.

Every warning names the file it is about, and the line where there is one: a call or action
left with no result is said at the call's record (OpenHands, Cline, Roo Code); a subagent no
spawning call is found for, at its transcript's first record (Claude Code); a companion file
that is missing, empty or unreadable, by its own name. A Claude Code subagent file retraced on
its own stays one however a damaged record in it reads. A Claude Code session whose first
record is longer than the head a sniff sees (a first prompt of many KB) is still Claude Code's,
told by the members before the cut; a Qwen Code record so cut is not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _small_logs import SESSION, answer, call, result, user, write
from forsy.evidence import Session
from forsy.sources import ReadContext, detect
from forsy.sources.aider import AiderSource
from forsy.sources.claude_code import ClaudeCodeSource
from forsy.sources.claude_code._opening import CUT, opening
from forsy.sources.cline import ClineSource
from forsy.sources.cline._sdk import read_sdk
from forsy.sources.lines import HEAD, Limits
from forsy.sources.openhands import OpenHandsSource
from forsy.sources.roo_code.source import read_task

API = "api_conversation_history.json"
UI = "ui_messages.json"
T = 1769053680000  # 2026-01-22T03:48:00.000Z


def _array(recs: list[Any]) -> str:
    """A JSON array, one element a line: element i is on line i + 2."""
    return "[\n" + ",\n".join(json.dumps(r) for r in recs) + "\n]\n"


def _said(s: Session, code: str) -> list[tuple[str, str | None, int | None]]:
    return [(w.message, w.file, w.line) for w in s.warnings if w.code == code]


# ------------------------------------------------------------ a call with no result
def test_an_openhands_action_with_no_observation_is_said_at_the_action(tmp_path: Path) -> None:
    events = [
        {"id": 0, "timestamp": "2026-01-01T00:00:00", "source": "user", "action": "message",
         "args": {"content": "fix the bug"}},
        {"id": 1, "timestamp": "2026-01-01T00:00:01", "source": "agent", "action": "run",
         "args": {"command": "ls", "thought": ""}},
        {"id": 2, "timestamp": "2026-01-01T00:00:02", "source": "agent", "observation": "run", "cause": 1,
         "content": "a.py", "extras": {"metadata": {"exit_code": 0}}},
        {"id": 3, "timestamp": "2026-01-01T00:00:03", "source": "agent", "action": "edit",
         "args": {"path": "a.py", "thought": ""}},
    ]
    (tmp_path / "basic.json").write_text(_array(events), "utf-8")
    [s] = OpenHandsSource().read(tmp_path / "basic.json", ReadContext(root=tmp_path))
    assert _said(s, "no-result") == [("action 'edit' (3) has no observation", "basic.json", 5)]


def _sdk_event(n: int, kind: str, parent: int | None, **fields: Any) -> dict[str, Any]:
    e = {"kind": kind, "id": f"00000000-0000-4000-8000-{n:012d}", "timestamp": f"2026-03-02T10:00:{n:02d}.000000",
         **fields}
    return {**e, "parent_id": f"00000000-0000-4000-8000-{parent:012d}"} if parent is not None else e


def test_an_openhands_branch_left_is_said_at_its_first_event(tmp_path: Path) -> None:
    """navigate_to(the request): the run past the HEAD is off the active branch, each event a file."""
    action = {"kind": "TerminalAction", "command": "rm -rf build"}
    events = [
        _sdk_event(1, "MessageEvent", None, source="user",
                   llm_message={"role": "user", "content": [{"type": "text", "text": "clean the build"}]}),
        _sdk_event(2, "ActionEvent", 1, source="agent", thought=[], action=action, tool_name="terminal",
                   tool_call_id="call_2", tool_call={"id": "call_2", "name": "terminal",
                                                     "arguments": json.dumps(action), "origin": "completion"}),
        _sdk_event(3, "ObservationEvent", 2, source="environment", tool_name="terminal", tool_call_id="call_2",
                   observation={"kind": "TerminalObservation", "content": [{"type": "text", "text": "done"}],
                                "is_error": False}),
    ]
    folder = tmp_path / "5b1d7c2e9f0a4b3c8d6e1f2a3b4c5d6e"
    (folder / "events").mkdir(parents=True)
    for i, e in enumerate(events):
        (folder / "events" / f"event-{i:05d}-{e['id']}.json").write_text(json.dumps(e), "utf-8")
    (folder / "base_state.json").write_text(json.dumps({
        "id": folder.name, "agent": {"kind": "Agent", "llm": {"model": "m"}}, "execution_status": "idle",
        "head_is_empty": False, "leaf_event_id": events[0]["id"]}), "utf-8")
    first = sorted((folder / "events").iterdir())[0]
    [s] = OpenHandsSource().read(first, ReadContext(root=folder))
    [(_, file, line)] = _said(s, "abandoned-branch")
    # the first event off the branch: the action's own file
    [action_ev] = [s.evidence[e.refs[0].ev] for e in s.events if e.kind == "tool_call"]
    assert (file, line) == (action_ev.source, action_ev.line)
    assert file is not None and file.endswith(f"event-00001-{events[1]['id']}.json")


def test_a_cline_call_with_no_result_is_said_at_its_message(tmp_path: Path) -> None:
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nwrite a\n</task>"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "write_to_file",
                                           "input": {"path": "a", "content": "x"}}]},
    ]
    ui = [{"ts": T, "type": "say", "say": "text", "text": "write a"}]
    (tmp_path / API).write_text(_array(api), "utf-8")
    (tmp_path / UI).write_text(_array(ui), "utf-8")
    [s] = ClineSource().read(tmp_path / API, ReadContext(root=tmp_path))
    assert _said(s, "no-result") == [("tool call toolu_1 (write_to_file) has no result", API, 3)]


def _roo_task(folder: Path, api: list[Any] | None, ui: list[Any] | None) -> Path:
    folder.mkdir(parents=True)
    if api is not None:
        (folder / API).write_text(_array(api), "utf-8")
    if ui is not None:
        (folder / UI).write_text(_array(ui), "utf-8")
    return folder


def test_a_roo_code_call_with_no_result_is_said_at_its_message(tmp_path: Path) -> None:
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<user_message>\nlist\n</user_message>"}], "ts": T},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "execute_command",
                                           "input": {"command": "ls"}}], "ts": T + 1000},
    ]
    folder = _roo_task(tmp_path / "t1", api, [{"ts": T, "type": "say", "say": "text", "text": "list"}])
    s = read_task(folder, ReadContext(root=tmp_path))
    assert _said(s, "no-result") == [("tool call toolu_1 (execute_command) has no result", f"t1/{API}", 3)]


# ------------------------------------------------------------ a companion file missing or unreadable
def test_a_cline_task_missing_a_file_names_it(tmp_path: Path) -> None:
    api = [{"role": "user", "content": [{"type": "text", "text": "<task>\nhi\n</task>"}]}]
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / API).write_text(_array(api), "utf-8")
    [s] = ClineSource().read(tmp_path / "a" / API, ReadContext(root=tmp_path))
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("no-ui-messages", f"a/{UI}", None)]
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / UI).write_text(_array([{"ts": T, "type": "say", "say": "text", "text": "hi"}]), "utf-8")
    [s] = ClineSource().read(tmp_path / "b" / UI, ReadContext(root=tmp_path))
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("no-api-history", f"b/{API}", None)]


def test_a_roo_code_task_missing_a_file_names_it(tmp_path: Path) -> None:
    api = [{"role": "user", "content": [{"type": "text", "text": "<user_message>\nhi\n</user_message>"}], "ts": T}]
    s = read_task(_roo_task(tmp_path / "a", api, None), ReadContext(root=tmp_path))
    assert [(w.code, w.file) for w in s.warnings] == [("no-ui-messages", f"a/{UI}")]
    s = read_task(_roo_task(tmp_path / "b", None, [{"ts": T, "type": "say", "say": "text", "text": "hi"}]),
                  ReadContext(root=tmp_path))
    assert [(w.code, w.file) for w in s.warnings] == [("no-api-history", f"b/{API}")]


def test_a_cline_sdk_manifest_too_large_is_named(tmp_path: Path) -> None:
    p = tmp_path / "s1.messages.json"
    p.write_text(json.dumps({"sessionId": "s1", "messages": []}), "utf-8")
    (tmp_path / "s1.json").write_bytes(b'{"cwd": "/w", "pad": "' + b"x" * 200 + b'"}')
    s = read_sdk(p, p.read_bytes(), "s1.messages.json", ReadContext(root=tmp_path, limits=Limits(max_file_bytes=100)))
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("manifest-unreadable", "s1.json", None)]


def test_an_aider_input_history_too_large_is_named(tmp_path: Path) -> None:
    (tmp_path / ".aider.chat.history.md").write_text("\n# aider chat started at 2026-03-01 09:00:00\n\n#### hi  \n")
    (tmp_path / ".aider.input.history").write_text("\n# 2026-03-01 09:00:05\n+hi\n" + "+more\n" * 10)
    ctx = ReadContext(root=tmp_path, limits=Limits(max_file_bytes=60))
    [s] = AiderSource().read(tmp_path / ".aider.chat.history.md", ctx)
    assert [(w.code, w.file, w.line) for w in s.warnings] == [
        ("input-history-unreadable", ".aider.input.history", None)]


# ------------------------------------------------------------ Claude Code subagents
def _task_call(n: int, uuid: str, parent: str, tid: str, prompt: str) -> dict[str, Any]:
    return call(n, uuid, parent, tid, "Task", {"description": "look", "prompt": prompt, "subagent_type": "x"})


def _session_with_agent(tmp_path: Path, agent_recs: list[dict[str, Any]]) -> Session:
    log = write(tmp_path / "s.jsonl", [user(0, "u1", None, "Where is the retry limit?"),
                                       _task_call(1, "a1", "u1", "t1", "Find the retry limit."),
                                       result(2, "r1", "a1", "t1", "in conf.py"),
                                       answer(3, "a2", "r1", "In conf.py.")])
    (tmp_path / "s" / "subagents").mkdir(parents=True)
    path = tmp_path / "s" / "subagents" / "agent-ab12.jsonl"
    if agent_recs:
        write(path, [dict(r, isSidechain=True, agentId="ab12") for r in agent_recs])
    else:
        path.write_bytes(b"")
    [s] = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))
    return s


MESSAGE = "subagent ab12: spawning call not identified exactly; its steps are placed by time without a causal link"


def test_an_unlinked_subagent_is_said_at_its_transcripts_first_record(tmp_path: Path) -> None:
    # its prompt is no call's: nothing ties it to its spawner
    s = _session_with_agent(tmp_path, [user(0, "x1", None, "Something else."), answer(1, "x2", "x1", "Done.")])
    assert _said(s, "unlinked-subagent") == [(MESSAGE, "s/subagents/agent-ab12.jsonl", 1)]


def test_an_unlinked_subagent_with_no_record_is_said_at_its_transcript(tmp_path: Path) -> None:
    s = _session_with_agent(tmp_path, [])
    assert _said(s, "unlinked-subagent") == [(MESSAGE, "s/subagents/agent-ab12.jsonl", None)]


def test_an_unlinked_inline_subagent_is_said_at_its_first_sidechain_record(tmp_path: Path) -> None:
    recs = [user(0, "u1", None, "Where is the retry limit?"), answer(1, "a1", "u1", "Looking."),
            dict(user(2, "x1", None, "Something else."), isSidechain=True),
            dict(answer(3, "x2", "x1", "Done."), isSidechain=True)]
    log = write(tmp_path / "s.jsonl", recs)
    [s] = ClaudeCodeSource().read(log, ReadContext(root=tmp_path))
    [(message, file, line)] = _said(s, "unlinked-subagent")
    assert (file, line) == ("s.jsonl", 3) and message.endswith("spawning call not identified exactly; its steps "
                                                               "are placed by time without a causal link")


@pytest.mark.parametrize("damaged", ['{"type": "TYPE"}', '{"type": "TYPE", "uuid": "q"}'])
def test_a_subagent_file_alone_stays_one_whatever_a_skipped_record_holds(tmp_path: Path, damaged: str) -> None:
    """A record of no known type with no `isSidechain` (a damaged line) is skipped, and said so:
    it does not make the file a session holding an inline subagent (unlinked, said with no file)."""
    recs = [dict(r, isSidechain=True, agentId="ab12") for r in
            (user(0, "x1", None, "Find the retry limit."), answer(1, "x2", "x1", "In conf.py."))]
    clean = ClaudeCodeSource().read(write(tmp_path / "agent-ab12.jsonl", recs), ReadContext(root=tmp_path))[0]
    [s] = ClaudeCodeSource().read(write(tmp_path / "agent-ab12.jsonl", recs, {2: damaged}),
                                  ReadContext(root=tmp_path))
    assert [(e.kind, e.actor, e.text) for e in s.events] == [(e.kind, e.actor, e.text) for e in clean.events] == [
        ("note", "agent", "Find the retry limit."), ("agent_text", "subagent:ab12", "In conf.py.")]
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("unknown-record-type", "agent-ab12.jsonl", 3)]


def test_a_warmup_subagent_file_alone_stays_set_aside_with_a_skipped_record(tmp_path: Path) -> None:
    recs = [dict(r, isSidechain=True, agentId="ab12") for r in
            (user(0, "x1", None, "Warmup"), answer(1, "x2", "x1", "Ready."))]
    [s] = ClaudeCodeSource().read(write(tmp_path / "agent-ab12.jsonl", recs, {1: '{"type": "TYPE"}'}),
                                  ReadContext(root=tmp_path))
    assert s.events == []
    assert [w.code for w in s.warnings] == ["unknown-record-type", "warmup-only"]


# ------------------------------------------------------------ a first record longer than the head
def _long_first(path: Path, first: dict[str, Any], rest: list[dict[str, Any]]) -> Path:
    # as Claude Code and Qwen Code write them: compact JSON, one record a line
    path.write_bytes(b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in [first, *rest]))
    return path


def _claude(n: int, kind: str, uuid: str, parent: str | None, content: Any) -> dict[str, Any]:
    # Claude Code's key order: the envelope, then the type, then the message
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message.update({"id": f"msg_{uuid}", "model": "claude-test"})
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/p", "sessionId": SESSION,
            "version": "1.0.98", "gitBranch": "", "type": kind, "message": message, "uuid": uuid,
            "timestamp": f"2026-01-01T10:00:{n:02d}.000Z"}


PROMPT = "pasted build output line\n" * 3000  # 75 KB: the first line runs past the head


def test_a_claude_code_session_whose_first_line_runs_past_the_head_is_read(tmp_path: Path) -> None:
    path = _long_first(tmp_path / "s.jsonl", _claude(0, "user", "u1", None, PROMPT),
                       [_claude(1, "assistant", "a1", "u1", [{"type": "text", "text": "Built."}])])
    head = path.read_bytes()[:HEAD]
    assert b"\n" not in head  # the head holds nothing but the cut first line
    assert ClaudeCodeSource().sniff(path, head)
    assert isinstance(detect(path), ClaudeCodeSource)
    [s] = ClaudeCodeSource().read(path, ReadContext(root=tmp_path))
    assert [(e.kind, e.text) for e in s.events] == [("user", PROMPT), ("agent_text", "Built.")]


def test_a_qwen_code_record_cut_by_the_head_is_not_claude_codes(tmp_path: Path) -> None:
    first = {"uuid": "u1", "parentUuid": None, "sessionId": "q1", "timestamp": "2026-05-04T09:00:00.000Z",
             "type": "user", "cwd": "/p", "version": "0.15.2", "gitBranch": "main",
             "message": {"role": "user", "parts": [{"text": PROMPT}]}}
    path = _long_first(tmp_path / "q.jsonl", first, [])
    assert not ClaudeCodeSource().sniff(path, path.read_bytes()[:HEAD])


@pytest.mark.parametrize("cut", [
    # the type comes after the long message (an assistant record): nothing says what the record is
    b'{"parentUuid":null,"sessionId":"s","message":{"role":"assistant","content":"' + b"x" * 100,
    b'{"parentUuid":null,"sessionId":"s","type":"us',  # the cut in the type itself
    b'{"sessionId":"s","type":"message","message":{"content":"' + b"x" * 100,  # a type Claude Code does not write
    b'{"type":"user","uuid":"u","message":{"content":"' + b"x" * 100,  # no key Claude Code's records carry
    b'{"parentUuid":null,"sessionId":"s","type":"user","toolCallResult":{"x":"' + b"x" * 100,  # Qwen Code's field
    b'7, {"parentUuid":null,"sessionId":"s","type":"user","message":{"content":"x',  # no object
])
def test_a_cut_record_is_claude_codes_only_when_its_opening_says_so(cut: bytes) -> None:
    assert not ClaudeCodeSource().sniff(Path("x.jsonl"), cut)


@pytest.mark.parametrize("cut", [
    b'{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":"ab',
    b'{"type": "queue-operation", "operation": "enqueue", "sessionId": "s", "content": "' + b"x" * 100,
    b'\xef\xbb\xbf{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"a\\',
])
def test_a_cut_record_whose_opening_is_claude_codes_is(cut: bytes) -> None:
    assert ClaudeCodeSource().sniff(Path("x.jsonl"), cut)


def test_a_damaged_line_that_ends_is_still_passed_over() -> None:
    # only the head's last line, with no end, is read as cut: a damaged line before a record is not
    record = b'{"type":"user","sessionId":"s"}\n'
    assert ClaudeCodeSource().sniff(Path("x.jsonl"), b'{"parentUuid":null,"sessionId":"s","type":"us\n' + record)
    assert not ClaudeCodeSource().sniff(Path("x.jsonl"), b'{"sessionId":"s","type":"user",\n' + b"[1]\n")


def test_the_opening_of_a_cut_object() -> None:
    assert opening(b'{"a":1,"b":[true,null,{"c":"d"}],"e":"f') == {"a": 1, "b": [True, None, {"c": "d"}], "e": CUT}
    assert opening(b'{"a" : "b" , "c":') == {"a": "b"}  # a key whose value had not begun is left out
    assert opening(b'{"a":"b","c') == {"a": "b"}  # a key the cut fell inside too
    assert opening(b'{"a":12') == {"a": CUT}  # a number at the cut may go on
    assert opening(b'{"a":"x\\"y') == {"a": CUT}  # an escaped quote does not close the string
    assert opening(b'{"a":"b" @ "c":1}') == {"a": "b"}  # damage ends what is read
    assert opening(b'{"a":tru') == {}
    assert opening(b'[{"a":1') is None and opening(b"") is None and opening(b'"a"') is None
