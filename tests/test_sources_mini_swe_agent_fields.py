"""The mini-swe-agent reader field by field: every event of a hand-built 2.x trajectory holding
each odd message the reader meets (content in a cache-control part, a call with no name, a
role it does not read, several parts, a string, a Responses-API object, a late system message,
an exit), with its kind, actor, time and where the time is, where its text is, its call id,
tool, error flag, group and payload; every warning with its file; and the small rules
(times, the timeout template's opening, discover, the action regex across lines). Every
expectation is worked out by hand from the documents below.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _mini import Places
from _oracle import retrace
from forsy.evidence import Session
from forsy.payloads import CallInfo, NoteInfo, ResultInfo
from forsy.sources import ReadContext
from forsy.sources.mini_swe_agent import MiniSweAgentSource
from forsy.sources.mini_swe_agent.source import _iso, _prefix

SRC = MiniSweAgentSource()
NAME = "run.traj.json"


def _doc(messages: list[Any], agent: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"info": {"mini_version": "2.4.6", "config": {"agent": agent or {}}}, "messages": messages,
            "trajectory_format": "mini-swe-agent-1.1"}


def _line(messages: list[Any], i: int) -> int:
    """The line message `i` starts on in the file `_read` writes (worked out from the text)."""
    doc = _doc([*messages[:i], "@@here@@", *messages[i + 1:]])
    text = json.dumps(doc, indent=2)
    return text[: text.index('"@@here@@"')].count("\n") + 1


def _read(tmp: Path, messages: list[Any], agent: dict[str, Any] | None = None) -> Session:
    doc = _doc(messages, agent)
    (tmp / NAME).write_text(json.dumps(doc, indent=2))
    (s,) = SRC.read(tmp / NAME, ReadContext(root=tmp))
    return s


def _rows(s: Session, path: Path | None = None) -> list[tuple[Any, ...]]:
    """Each event with its refs as places in the document (/messages/<i>/...) and the evidence
    ids inside its call id and group written as those places."""
    pl = Places(s, path or s.files[0].abs_path and Path(s.files[0].abs_path))
    return [(x.kind, x.actor, x.ts, pl.at(x.ts_from), [pl.at(r) for r in x.refs], x.text, x.args, pl.ids(x.call_id),
             x.tool, x.is_error, pl.ids(x.group), pl.at(x.name_ref), x.info) for x in s.events]


MSGS: list[Any] = [
    {"role": "system", "content": "sys", "extra": {"timestamp": 1770000000}},
    {"role": "user", "content": [{"type": "text", "text": "fix the bug", "cache_control": {"type": "ephemeral"}}],
     "extra": {"timestamp": 1770000000.5}},
    {"role": "assistant", "content": "Checking.", "extra": {"timestamp": 1770000001}, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"x\"}"}},
        {"id": "call_3", "type": "function", "function": {"arguments": "{}"}},
        {"type": "function", "function": {"name": "bash", "arguments": "not json"}},
    ]},
    {"role": "tool", "tool_call_id": "call_1", "content": "a.py",
     "extra": {"returncode": 0, "timestamp": 1770000002.25}},
    {"role": "developer", "content": "x"},
    {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "u"}}]},
    "just a string",
    {"object": "response", "output": []},
    {"role": "system", "content": "late", "timestamp": 1770000003},
    {"role": "exit", "content": "", "extra": {"exit_status": "LimitsExceeded", "submission": ""}},
]


def test_every_field_of_every_event_of_a_2x_trajectory(tmp_path: Path) -> None:
    s = _read(tmp_path, MSGS)
    pl = Places(s, tmp_path / NAME)
    assert (s.meta.system_prompt, pl.at(s.meta.system_prompt_ref)) == ("sys", "/messages/0/content")
    t0, t05, t1, t225, t3 = ("2026-02-02T02:40:00.000Z", "2026-02-02T02:40:00.500Z", "2026-02-02T02:40:01.000Z",
                             "2026-02-02T02:40:02.250Z", "2026-02-02T02:40:03.000Z")
    assert t0 == _iso(1770000000)
    assert _rows(s) == [
        ("user", "user", t05, "/messages/1/extra/timestamp", ["/messages/1/content/0/text"], "fix the bug", None,
         None, None, None, None, None, None),
        ("agent_text", "agent", t1, "/messages/2/extra/timestamp", ["/messages/2/content"], "Checking.", None,
         None, None, None, None, None, None),
        ("tool_call", "agent", t1, "/messages/2/extra/timestamp", ["/messages/2/tool_calls/0/function/arguments"],
         None, {"command": "ls"}, "call_1", "bash", None, "/messages/2", "/messages/2/tool_calls/0/function/name",
         None),
        ("tool_call", "agent", t1, "/messages/2/extra/timestamp", ["/messages/2/tool_calls/1/function/arguments"],
         None, "{\"command\": \"x\"}", "call_2", "bash", None, "/messages/2",
         "/messages/2/tool_calls/1/function/name", None),
        ("tool_call", "agent", t1, "/messages/2/extra/timestamp", ["/messages/2/tool_calls/3/function/arguments"],
         None, "not json", "/messages/2:/tool_calls/3", "bash", None, "/messages/2",
         "/messages/2/tool_calls/3/function/name", None),
        ("tool_result", "agent", t225, "/messages/3/extra/timestamp", ["/messages/3/content"], "a.py", None,
         "call_1", "bash", False, None, None,
         ResultInfo(exit_code=0, exit_code_from=s.events[5].info.exit_code_from)),  # type: ignore[union-attr]
        ("note", "system", t3, "/messages/8/timestamp", ["/messages/8/content"], "late", None, None, None, None,
         None, None, None),
        ("note", "system", None, None, ["/messages/9/content"], "", None, None, None, None, None, None,
         NoteInfo(subtype="exit", reason="LimitsExceeded")),
    ]
    assert pl.at(s.events[5].info.exit_code_from) == "/messages/3/extra/returncode"  # type: ignore[union-attr]
    line = [_line(MSGS, i) for i in range(len(MSGS))]
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("not-an-object", "element is str, not an object; skipped", NAME, line[6]),  # found while cutting the file
        ("bad-tool-call", "tool_calls[2] has no function name; skipped", NAME, line[2]),
        ("unknown-role", "the message has role 'developer'; skipped", NAME, line[4]),
        ("content-parts", "the message's content holds parts other than one text; skipped", NAME, line[5]),
        ("system-message", "a system message is kept as a note (the system prompt is the first one, before the "
                           "task)", NAME, line[8]),
    ]
    # an empty Responses-API response (element 7) is read, as an empty answer is: set aside, no warning
    assert (s.quality.unknown_records, s.quality.unparsable_records, s.quality.records) == (3, 1, 11)
    assert {k: pl.line[f"/messages/{k}"] for k in (0, 3, 9)} == {k: line[k] for k in (0, 3, 9)}  # each its line
    assert pl.line["/info"] == 2  # {\n  "info": {


def test_a_1x_answer_and_its_result_cite_their_times_and_text(tmp_path: Path) -> None:
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "t", "timestamp": 1760000001},
            {"role": "user", "content": "again", "timestamp": 1760000002},  # a second user message before any answer
            {"role": "assistant", "content": "```bash\ncat <<'EOF' > f.py\nprint(1)\nEOF\n```",
             "timestamp": 1760000003},
            {"role": "user", "content": "<returncode>3</returncode>\nno", "timestamp": 1760000004}]
    s = _read(tmp_path, msgs)
    rows = _rows(s)
    assert [(r[0], r[3], r[4]) for r in rows] == [
        ("user", "/messages/1/timestamp", ["/messages/1/content"]),
        ("note", "/messages/2/timestamp", ["/messages/2/content"]),
        ("agent_text", "/messages/3/timestamp", ["/messages/3/content"]),
        ("tool_call", "/messages/3/timestamp", ["/messages/3/content"]),
        ("tool_result", "/messages/4/timestamp", ["/messages/4/content"]),
    ]
    call, result = s.events[3], s.events[4]
    assert call.args == "cat <<'EOF' > f.py\nprint(1)\nEOF"  # the block spans lines (the agent's re.DOTALL)
    assert call.info == CallInfo(span=(8, 8 + len(call.args))) and (call.tool, result.tool) == ("bash", "bash")
    assert result.info == ResultInfo(exit_code=3, exit_code_from=result.refs[0], failure_rule="R-call/mini-returncode")
    assert Places(s, tmp_path / NAME).at(result.refs[0]) == "/messages/4/content" and result.is_error is True


def test_a_bad_action_regex_is_warned_with_its_file(tmp_path: Path) -> None:
    s = _read(tmp_path, [{"role": "user", "content": "t"}], agent={"action_regex": "("})
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("bad-action-regex", "info.config.agent.action_regex does not compile: commands in answers without "
                             "extra.actions are not read", NAME, 2)]  # the line `info` starts on


def test_times_are_epoch_seconds_within_range() -> None:
    assert _iso(0.5) == "1970-01-01T00:00:00.500Z"
    assert _iso(10**11 - 1) is not None and _iso(10**11) is None and _iso(0) is None and _iso(-5) is None
    assert _iso("1770000000") is None and _iso(True) is None and _iso(float("inf")) is None


def test_a_timeout_template_s_opening_counts_from_twelve_characters() -> None:
    assert _prefix("Timed out!! {{output}}") == "Timed out!! "  # twelve characters
    assert _prefix("Timed out! {{output}}") is None  # eleven: too short to tell a timeout by
    assert _prefix("Killed after {{t}} s {% if x %}{{y}}{% endif %}") == "Killed after "
    assert _prefix(None) is None


def test_discover_takes_a_named_json_file_and_no_other(tmp_path: Path) -> None:
    _read(tmp_path, [{"role": "user", "content": "t"}])
    assert SRC.discover(tmp_path / NAME) == [tmp_path / NAME]
    other = tmp_path / "run.txt"
    other.write_bytes((tmp_path / NAME).read_bytes())
    assert SRC.discover(other) == []  # a file given by name is taken by its suffix, not sniffed


def test_every_field_of_a_2x_text_based_answer(tmp_path: Path) -> None:
    t10, t11, t12 = "2026-02-02T02:40:10.000Z", "2026-02-02T02:40:11.000Z", "2026-02-02T02:40:12.000Z"
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "t"},
            {"role": "assistant", "content": "```mswea_bash_command\nls\n```", "tool_calls": [],
             "extra": {"actions": [{"command": "ls"}, {"cmd": "x"}, {"command": "pwd", "tool_call_id": "tc9"}],
                       "timestamp": 1770000010}},
            {"role": "user", "content": "<returncode>0</returncode>\nout",
             "extra": {"returncode": 0, "timestamp": 1770000011}},
            # no actions kept: the command is the block the (default) action_regex finds
            {"role": "assistant", "content": "```bash\necho hi\n```",
             "extra": {"actions": [], "timestamp": 1770000012}}]
    s = _read(tmp_path, msgs)
    rows = _rows(s)
    a = "/messages/2/extra/timestamp"
    assert rows[:5] == [
        ("user", "user", None, None, ["/messages/1/content"], "t", None, None, None, None, None, None, None),
        ("agent_text", "agent", t10, a, ["/messages/2/content"], "```mswea_bash_command\nls\n```", None, None,
         None, None, None, None, None),
        ("tool_call", "agent", t10, a, ["/messages/2/extra/actions/0/command"], None, "ls",
         "/messages/2:/extra/actions/0", "bash", None, "/messages/2", None, None),
        ("tool_call", "agent", t10, a, ["/messages/2/extra/actions/2/command"], None, "pwd", "tc9", "bash", None,
         "/messages/2", None, None),
        ("tool_result", "agent", t11, "/messages/3/extra/timestamp", ["/messages/3/content"],
         "<returncode>0</returncode>\nout", None, "tc9", "bash", False, None, None, s.events[4].info),
    ]
    assert rows[5:] == [
        ("agent_text", "agent", t12, "/messages/4/extra/timestamp", ["/messages/4/content"], "```bash\necho hi\n```",
         None, None, None, None, None, None, None),
        ("tool_call", "agent", t12, "/messages/4/extra/timestamp", ["/messages/4/content"], None, "echo hi",
         "/messages/4:command", "bash", None, "/messages/4", None, CallInfo(span=(8, 15))),
    ]
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("bad-action", "extra.actions[1] has no command text; skipped", NAME, _line(msgs, 2))]
    assert s.quality.unknown_records == 1


def test_an_empty_working_folder_and_values_of_other_kinds_are_not_kept(tmp_path: Path) -> None:
    local = "minisweagent.environments.local.LocalEnvironment"
    doc = {"info": {"exit_status": 3, "config": {"environment": {"cwd": "", "image": ["x"]}, "agent_type": None,
                                                  "environment_type": local}},
           "messages": [{"role": "user", "content": "t"}]}
    (tmp_path / NAME).write_text(json.dumps(doc, indent=2))
    (s,) = SRC.read(tmp_path / NAME, ReadContext(root=tmp_path))
    assert s.meta.cwd is None  # "" is the folder mini was started in, which the file does not name
    assert s.meta.extra == {"environment_type": local}


def test_the_words_of_an_answer_2x_could_not_parse_are_the_agent_s(tmp_path: Path) -> None:
    # the 2.x models keep no assistant message for it: the format error holds the answer
    raw = {"id": "r1", "choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": "I think",
                                                                         "tool_calls": None}}]}
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "t"},
            {"role": "user", "content": "No tool calls found.", "extra": {"interrupt_type": "FormatError",
                                                                          "response": raw, "cost": 0.1}},
            {"role": "user", "content": "Expected exactly 1 action, found 2.",
             "extra": {"interrupt_type": "FormatError", "n_actions": 2, "model_response": "```a```\n```b```",
                       "response": raw}},
            {"role": "user", "content": "Expected exactly 1 action, found 0.",
             "extra": {"interrupt_type": "FormatError", "response": {"choices": []}}},
            {"role": "user", "content": "No tool calls found.",
             "extra": {"interrupt_type": "FormatError", "response": "ModelResponse(...)"}}]  # the writer's repr()
    s = _read(tmp_path, msgs)
    assert [(r[0], r[1], r[4], r[5]) for r in _rows(s)[1:]] == [
        ("agent_text", "agent", ["/messages/2/extra/response/choices/0/message/content"], "I think"),
        ("note", "system", ["/messages/2/content"], "No tool calls found."),
        ("agent_text", "agent", ["/messages/3/extra/model_response"], "```a```\n```b```"),
        ("note", "system", ["/messages/3/content"], "Expected exactly 1 action, found 2."),
        ("note", "system", ["/messages/4/content"], "Expected exactly 1 action, found 0."),
        ("note", "system", ["/messages/5/content"], "No tool calls found."),
    ]
    assert not [e for e in s.events if e.kind == "tool_call"]  # what it held never ran
    (t,) = retrace(tmp_path / NAME, tmp_path / "out")
    # the segmenter joins an actor's texts that no other step separates (each cited in provenance)
    assert [x["output"] for x in t["steps"] if x["actor"] == "agent"] == ["I think\n\n```a```\n```b```"]


def test_the_record_the_first_system_prompt_and_the_person_s_words_field_by_field(tmp_path: Path) -> None:
    t1, t2, t3, t4, t5 = (f"2025-10-09T08:53:2{k}.000Z" for k in (1, 2, 3, 4, 5))
    msgs = [{"role": "system", "content": None},  # no text: no system prompt, a note
            {"role": "system", "content": "the prompt"},
            {"role": "system", "content": "a second one"},
            {"role": "user", "content": "task"},
            {"role": "assistant", "content": "```bash\nrm -rf build\n```"},
            {"role": "user", "content": "Command not executed. The user rejected your command with the following "
                                        "message: keep build", "timestamp": 1760000001},
            {"role": "assistant", "content": "```bash\nls\n```"},
            {"role": "user", "content": "<returncode>0</returncode>\nok", "extra": {"returncode": 0},
             "timestamp": 1760000002},
            {"role": "assistant", "content": "no block"},
            {"role": "user", "content": "Please always provide EXACTLY ONE action.", "timestamp": 1760000003},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "function": {"name": "bash", "arguments": {"command": "pwd"}}}]},
            {"role": "exit", "content": "", "extra": {"exit_status": "Submitted", "timestamp": 1760000004}},
            {"role": "user", "content": "Interrupted by user: stop", "timestamp": 1760000005}]
    s = _read(tmp_path, msgs)
    data = (tmp_path / NAME).read_bytes()
    evs = list(s.evidence.values())
    assert [(e.source, e.record_type) for e in evs] == [(NAME, "info")] + [(NAME, None)] * len(msgs)
    for e, value in zip(evs, [_doc(msgs)["info"], *msgs], strict=True):  # each record is its value's exact bytes
        assert json.loads(data[e.byte_offset: e.byte_offset + e.byte_length]) == value
        assert e.line == data[: e.byte_offset].count(b"\n") + 1
    assert s.meta.system_prompt == "the prompt"
    marks = {i: (s.ledger[evs[i + 1].id].heading, s.ledger[evs[i + 1].id].name) for i in range(len(msgs))
             if evs[i + 1].id in s.ledger}
    assert marks == {0: ("set_aside", "notes are not steps"), 1: ("metadata", "the system prompt"),
                     2: ("set_aside", "notes are not steps"), 9: ("set_aside", "notes are not steps"),
                     11: ("set_aside", "notes are not steps")}
    assert s.ledger[evs[0].id].heading == "metadata"  # info
    rows = _rows(s)
    def at(ptr: str) -> tuple[Any, ...]:
        return next(r for r in rows if r[4] == [ptr])
    assert at("/messages/0/content")[:2] == ("note", "system")
    assert at("/messages/2/content")[:6] == ("note", "system", None, None, ["/messages/2/content"], "a second one")
    call = next(r for r in rows if r[0] == "tool_call" and r[6] == "rm -rf build")
    rejected = [r for r in rows if r[4] == ["/messages/5/content"]]
    assert rejected == [
        ("tool_result", "agent", t1, "/messages/5/timestamp", ["/messages/5/content"], msgs[5]["content"], None,
         call[7], "bash", True, None, None, ResultInfo(rejected=True)),
        ("user", "user", t1, "/messages/5/timestamp", ["/messages/5/content"], "keep build", None, None, None, None,
         None, None, s.events[rows.index(rejected[1])].info)]
    answer = at("/messages/7/content")
    assert answer[:3] == ("tool_result", "agent", t2) and answer[3] == "/messages/7/timestamp"
    assert isinstance(answer[12], ResultInfo) and answer[12].exit_code == 0
    assert Places(s, tmp_path / NAME).at(answer[12].exit_code_from) == "/messages/7/extra/returncode"
    assert at("/messages/9/content")[2:4] == (t3, "/messages/9/timestamp")
    assert at("/messages/9/content")[12] == NoteInfo(subtype="harness")
    assert next(r for r in rows if r[0] == "tool_call" and r[7] == "c1")[6] == {"command": "pwd"}  # as written
    assert at("/messages/11/content")[2:4] == (t4, "/messages/11/extra/timestamp")
    assert at("/messages/12/content")[:4] == ("user", "user", t5, "/messages/12/timestamp")
    kept = "a system message is kept as a note (the system prompt is the first one, before the task)"
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("system-message", kept, _line(msgs, 0)), ("system-message", kept, _line(msgs, 2))]


def test_what_is_not_a_trajectory_is_said_with_its_file(tmp_path: Path) -> None:
    (tmp_path / NAME).write_text('{"info": {"mini_version": "1"}, "messages": {}}')
    (s,) = SRC.read(tmp_path / NAME, ReadContext(root=tmp_path))
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("unparsable", "not a mini-swe-agent trajectory (no messages list); nothing read", NAME, None)]
    assert (s.quality.records, s.quality.unparsable_records, s.events) == (0, 1, [])
    # a byte order mark and blank lines before the document are the writer's file still
    assert SRC.sniff(tmp_path / NAME, b'\xef\xbb\xbf\n  {\n  "info": {\n    "mini_version": "1.0"')
    assert not SRC.sniff(tmp_path / NAME, b'[{\n  "info": {\n    "mini_version": "1.0"')


def test_the_run_s_own_exit_status_is_its_ending_where_it_is_unambiguous(tmp_path: Path) -> None:
    def ending(status: Any) -> tuple[Any, Any]:
        doc = {"info": {"exit_status": status}, "messages": [{"role": "user", "content": "t"}]}
        (tmp_path / NAME).write_text(json.dumps(doc))
        (s,) = SRC.read(tmp_path / NAME, ReadContext(root=tmp_path))
        ref = s.meta.ending_ref
        info = [e.id for e in s.evidence.values() if e.record_type == "info"]
        return s.meta.ending, None if ref is None else ([ref.ev] == info, ref.pointer)
    assert ending("Submitted") == ("task_complete", (True, "/exit_status"))  # inside the `info` record
    assert ending("TimeExceeded") == ("timeout", (True, "/exit_status"))
    for other in ("LimitsExceeded", "RepeatedFormatError", "RuntimeError", "submitted", "", None, ["Submitted"]):
        assert ending(other) == (None, None), other  # left to the trace's own rules


def test_a_trajectory_cut_short_fails_naming_its_line(tmp_path: Path) -> None:
    # mini rewrites the file after every step: a copy taken mid-write, or a disk that filled up
    whole = json.dumps({"info": {"mini_version": "1.17.5"}, "messages": [{"role": "user", "content": "t"}]},
                       indent=2)
    (tmp_path / NAME).write_text(whole[:60])
    (s,) = SRC.read(tmp_path / NAME, ReadContext(root=tmp_path))
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("unparsable", "not JSON (Expecting ':' delimiter, column 13); nothing read", NAME, 5)]
    assert (s.quality.records, s.quality.unparsable_records) == (0, 1)
    from forsy.run import RetraceOptions, retrace_one

    (o,) = retrace_one(tmp_path / NAME, RetraceOptions(redact=False), sink=None, keep=False)
    assert o.status == "failed" and o.exit_code != 0  # never "skipped: no work", exit 0


def test_a_trajectory_cut_among_its_messages_keeps_those_before_the_cut(tmp_path: Path) -> None:
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "fix it"},
            {"role": "assistant", "content": "```bash\nmake\n```"},
            {"role": "user", "content": "<returncode>2</returncode>\nError 1"}]
    whole = json.dumps(_doc(msgs), indent=2)
    cut = whole.index("Error 1")
    (tmp_path / NAME).write_text(whole[:cut])
    (s,) = SRC.read(tmp_path / NAME, ReadContext(root=tmp_path))
    assert [(e.kind, e.text if e.kind != "tool_call" else e.args) for e in s.events] == [
        ("user", "fix it"), ("agent_text", "```bash\nmake\n```"), ("tool_call", "make")]
    assert [(w.code, w.line) for w in s.warnings] == [("unparsable-element", _line(msgs, 3))]
    assert f"bytes {len(whole[:whole.rindex('{', 0, cut)].encode())}-" in s.warnings[0].message  # what was lost
    # info and the 3 messages read; the cut one is lost bytes, said in the warning (as for Gemini's chats)
    assert (s.quality.records, s.quality.unparsable_records) == (4, 0)
    (t,) = retrace(tmp_path / NAME, tmp_path / "out")  # what was read is a trace; the lost answer is no result
    assert [(x.get("tool"), x.get("output")) for x in t["steps"]] == [(None, None), ("bash", None)]


def test_the_ledger_says_why_each_message_no_step_cites_was_read(tmp_path: Path) -> None:
    msgs = [{"role": "user", "content": "t"},
            {"role": "assistant", "content": ""},  # no words, no command
            {"role": "user", "content": "No tool calls found.", "timestamp": 1760000001,
             "extra": {"interrupt_type": "FormatError", "model_response": "hmm"}},
            {"content": "x"},  # no role, no type
            {"role": "exit", "content": "", "extra": {"exit_status": "Submitted"}}]
    s = _read(tmp_path, msgs)
    pl = Places(s, tmp_path / NAME)
    marks = {pl.of[ev]: (m.heading, m.name, m.subtype) for ev, m in s.ledger.items()}
    assert marks == {
        "/info": ("metadata", "the run's version, configuration and exit status", None),
        "/messages/1": ("set_aside", "an answer with no words and no command", None),
        "/messages/2": ("set_aside", "notes are not steps", "format_error"),
        "/messages/4": ("set_aside", "notes are not steps", "exit"),
    }
    # the refused answer's words take the format error's time
    (words,) = [e for e in s.events if e.kind == "agent_text"]
    assert (words.text, words.ts, pl.at(words.ts_from)) == ("hmm", "2025-10-09T08:53:21.000Z", "/messages/2/timestamp")
    assert [(w.code, w.message) for w in s.warnings] == [
        ("not-a-message", "the message is not a chat message (no role); skipped")]


def test_a_trajectory_without_info_or_with_an_info_of_another_kind(tmp_path: Path) -> None:
    for info in ({}, {"info": 5}):
        doc = {**info, "messages": [{"role": "user", "content": "t"}, {"role": "assistant", "content": "ok"}]}
        (tmp_path / NAME).write_text(json.dumps(doc, indent=2))
        (s,) = SRC.read(tmp_path / NAME, ReadContext(root=tmp_path))
        assert [e.record_type for e in s.evidence.values()] == [None, None], info  # the messages only
        assert (s.quality.records, s.meta.agent_version, s.meta.ending) == (2, None, None)
        assert [e.kind for e in s.events] == ["user", "agent_text"]


def test_a_refused_answer_whose_content_is_no_text_gives_no_words(tmp_path: Path) -> None:
    raw = {"choices": [{"message": {"content": [{"type": "text", "text": "parts"}]}}]}
    s = _read(tmp_path, [{"role": "user", "content": "t"},
                         {"role": "user", "content": "bad", "extra": {"interrupt_type": "FormatError",
                                                                       "response": raw}}])
    assert [e.kind for e in s.events] == ["user", "note"]
