"""The ATIF reader on one hand-written trajectory holding every kind of step it reads, and the
failures the format can record: a call's result forsy's own export marked failed
(`extra.forsy_steps[k].success: false`) is an error, one marked successful is not, and one no
writer marked stays unknown (never guessed from the text). Every expectation is worked out by
hand from the document below.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Event, Session
from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.atif import AtifSource

SRC = AtifSource()
T1, T2, T3 = "2026-01-01T10:00:01Z", "2026-01-01T10:00:02Z", "2026-01-01T10:00:03Z"

DOC: dict[str, Any] = {
    "schema_version": "ATIF-v1.4",
    "session_id": "sess-1",
    "agent": {"name": "terminus", "version": "2.0", "model_name": "m-1",
              "tool_definitions": [{"function": {"name": "bash"}}, {"function": {}}, "x"]},
    "subagent_trajectories": [{}, {}],
    "steps": [
        {"source": "system", "message": "be brief"},  # 0: the system prompt
        {"source": "user", "message": [{"type": "text", "text": "fix it"}], "timestamp": T1},  # 1
        {"source": "agent", "timestamp": T2, "message": "looking", "reasoning_content": "think",  # 2
         "tool_calls": [
             {"tool_call_id": "c1", "function_name": "bash", "arguments": {"cmd": "false"}},
             {"function_name": "read", "arguments": {"input": "a.py"}, "extra": {"raw_input": True}},
             {"tool_call_id": "c3", "function_name": "ls", "arguments": {"x": 1}, "extra": {"no_input": True}},
             {"tool_call_id": "c4", "arguments": {}},
         ],
         "observation": {"results": [
             {"source_call_id": "c1", "content": "exit 1"},
             {"source_call_id": "c3", "content": [{"type": "text", "text": "a.py"}]},
             {"content": "the environment said this"},
             {"source_call_id": "c1", "content": [{"type": "image"}]},
             {"content": ""},
         ]},
         "extra": {"forsy_steps": [
             {"actor": "agent", "success": False, "started_at": T2, "ended_at": T3},
             {"actor": "subagent:s1"},
             {"success": True},
         ]}},
        {"source": "system", "message": "later words"},  # 3: a note, warned about
        {"source": "system", "message": "compacted", "extra": {"forsy_steps": [{"actor": "system"}]}},  # 4
        {"source": "system", "message": "hook says", "extra": {"forsy_steps": [{"actor": "system:hook"}]}},  # 5
        {"source": "robot", "message": "?"},  # 6
        "not a step",  # 7
        {"source": "user", "message": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},  # 8
        {"source": "agent", "message": "", "observation": {"results": [{"source_call_id": "zz", "content": "?"}]}},
    ],
}


def read(tmp_path: Path, doc: Any, name: str = "run.json") -> Session:
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    return s


def ptrs(e: Event) -> list[str]:
    return [r.pointer for r in e.refs]


def test_every_kind_of_step_of_a_trajectory(tmp_path: Path) -> None:
    s = read(tmp_path, DOC)
    assert (s.session_id, s.source_kind, s.meta.agent, s.meta.agent_version) == ("sess-1", "atif", "terminus", "2.0")
    assert (s.meta.models, s.meta.tools) == (["m-1"], ["bash"])
    assert s.meta.system_prompt == "be brief" and s.meta.system_prompt_ref is not None
    assert s.meta.system_prompt_ref.pointer == "/steps/0/message"
    (ev,) = s.evidence.values()
    assert (ev.source, ev.line, ev.byte_offset, ev.record_type) == ("run.json", 1, 0, "trajectory")
    got = [(e.kind, e.actor, e.text, e.ts, ptrs(e)) for e in s.events]
    assert got == [
        ("user", "user", "fix it", T1, ["/steps/1/message/0/text"]),
        ("reasoning", "agent", "think", T2, ["/steps/2/reasoning_content"]),
        ("agent_text", "agent", "looking", T2, ["/steps/2/message"]),
        ("tool_call", "agent", None, T2, ["/steps/2/tool_calls/0/arguments"]),
        ("tool_call", "subagent:s1", None, T2, ["/steps/2/tool_calls/1/arguments/input"]),
        ("tool_call", "agent", None, T2, ["/steps/2/tool_calls/2/arguments"]),
        ("tool_result", "agent", "exit 1", T3, ["/steps/2/observation/results/0/content"]),
        ("tool_result", "agent", "a.py", None, ["/steps/2/observation/results/1/content/0/text"]),
        ("agent_text", "agent", "the environment said this", T2, ["/steps/2/observation/results/2/content"]),
        ("note", "system", "later words", None, ["/steps/3/message"]),
        ("compaction", "system", "compacted", None, ["/steps/4/message"]),
        ("note", "system:hook", "hook says", None, ["/steps/5/message"]),
        ("tool_result", "agent", "?", None, ["/steps/9/observation/results/0/content"]),
    ]
    c1, c2, c3 = [e for e in s.events if e.kind == "tool_call"]
    assert [(c.call_id, c.tool, c.args) for c in (c1, c2, c3)] == [
        ("c1", "bash", {"cmd": "false"}), (f"{ev.id}:/steps/2/tool_calls/1", "read", "a.py"), ("c3", "ls", None)]
    assert c1.group == c2.group == c3.group == f"{ev.id}/steps/2"
    assert c1.ts_ref is not None and c1.ts_ref.pointer == "/steps/2/extra/forsy_steps/0/started_at"
    assert c2.ts_ref is not None and c2.ts_ref.pointer == "/steps/2/timestamp"
    assert c1.name_ref is not None and c1.name_ref.pointer == "/steps/2/tool_calls/0/function_name"
    r1, r3 = [e for e in s.events if e.kind == "tool_result"][:2]
    assert (r1.call_id, r3.call_id) == ("c1", "c3")
    assert r1.ts_ref is not None and r1.ts_ref.pointer == "/steps/2/extra/forsy_steps/0/ended_at"
    assert r3.ts_ref is None
    hook = s.events[11]
    assert isinstance(hook.info, NoteInfo) and hook.info.subtype == "hook"
    assert [(w.code, w.message) for w in s.warnings] == [
        ("subagents-not-read", "2 embedded subagent trajectory(ies) not read"),
        ("bad-tool-call", "/steps/2/tool_calls/3 has no function_name; skipped"),
        ("bad-result", "/steps/2/observation/results/3 is not a text result; skipped"),
        ("system-step", "system step /steps/3 is kept as a note, not a step"),
        ("not-a-step", "/steps/6 is not an ATIF step; skipped"),
        ("not-a-step", "/steps/7 is not an ATIF step; skipped"),
        ("content-parts", "/steps/8/message holds content parts other than one text; skipped"),
    ]
    assert all(w.file == "run.json" and w.line is None for w in s.warnings)
    assert s.quality.unknown_records == 2 + 5 and s.quality.records == 1


def test_a_failed_call_is_an_error_only_when_the_writer_said_so(tmp_path: Path) -> None:
    s = read(tmp_path, DOC)
    results = {e.call_id: e.is_error for e in s.events if e.kind == "tool_result"}
    # c1: success false -> an error; c3: success true (forsy_steps[2]) -> no error; zz: no call, no flag
    assert results == {"c1": True, "c3": False, "zz": None}
    # the same step without forsy's records: no flag at all, whatever the output says
    bare = json.loads(json.dumps(DOC))
    del bare["steps"][2]["extra"]
    s = read(tmp_path, bare, "bare.json")
    assert {e.call_id: e.is_error for e in s.events if e.kind == "tool_result"} == {"c1": None, "c3": None, "zz": None}
    assert [e.actor for e in s.events if e.kind == "tool_call"] == ["agent", "agent", "agent"]


def test_what_is_not_a_trajectory_and_the_session_s_name(tmp_path: Path) -> None:
    s = read(tmp_path, {"schema_version": "ATIF-v1.4", "steps": {}}, "odd.json")
    assert s.events == [] and s.quality.unparsable_records == 1 and s.session_id == "odd"
    assert (s.quality.records, s.evidence) == (0, {})  # its one record unread: the file fails, never "no work"
    assert [(w.code, w.message, w.file) for w in s.warnings] == [
        ("unparsable", "not an ATIF trajectory (no steps list); nothing read", "odd.json")]
    assert [w.message for w in read(tmp_path, [1], "list.json").warnings] == [
        "a JSON list, not an object; nothing read"]
    assert read(tmp_path, {"trajectory_id": "t-9", "steps": []}, "x.json").session_id == "t-9"
    assert read(tmp_path, {"session_id": "", "steps": []}, "y.json").session_id == "y"
    lone = read(tmp_path, {"steps": [{"source": "system", "message": None}]}, "z.json")
    assert lone.meta.system_prompt is None and [e.kind for e in lone.events] == ["note"]
    assert read(tmp_path, {"steps": [], "subagent_trajectories": {"a": 1}}, "w.json").quality.unknown_records == 1


def test_a_trajectory_is_known_by_its_head(tmp_path: Path) -> None:
    head = b'\xef\xbb\xbf \n{"schema_version": "ATIF-v1.2", "steps": []}'
    assert SRC.sniff(Path("t.json"), head)
    assert not SRC.sniff(Path("t.json"), b'{"schema_version": "v1", "steps": []}')
    assert not SRC.sniff(Path("t.json"), b'[{"schema_version": "ATIF-v1"}]')
    assert not SRC.sniff(Path("t.json"), b"{" + b" " * 400 + b'"schema_version": "ATIF-v1"}')
    (tmp_path / "a.json").write_bytes(head)
    (tmp_path / "b.json").write_text("{}")
    (tmp_path / "c.txt").write_bytes(head)
    assert SRC.discover(tmp_path) == [tmp_path / "a.json"]


def test_a_json_file_named_is_taken_even_damaged(tmp_path: Path) -> None:
    # named on the command line: a .json is read (and warned about if it is no trajectory)
    (tmp_path / "bad.json").write_text("{}")
    (tmp_path / "t.txt").write_text('{"schema_version": "ATIF-v1.4", "steps": []}')
    assert SRC.discover(tmp_path / "bad.json") == [tmp_path / "bad.json"]
    assert SRC.discover(tmp_path / "t.txt") == [] and SRC.discover(tmp_path / "none.json") == []


def test_a_trajectory_cut_short_fails_naming_its_line(tmp_path: Path) -> None:
    from forsy.run import RetraceOptions, retrace_one

    whole = json.dumps({"schema_version": "ATIF-v1.4", "session_id": "s", "steps": [
        {"source": "user", "message": "hi"}]}, indent=2)
    p = tmp_path / "cut.json"
    p.write_text(whole[: whole.index('"hi"')])
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    assert [(w.code, w.line) for w in s.warnings] == [("unparsable", 7)]  # `      "message": ` ends the file
    assert s.warnings[0].message.startswith("not JSON (")
    (o,) = retrace_one(p, RetraceOptions(redact=False), sink=None, keep=False)
    assert o.status == "failed" and o.exit_code != 0  # was "skipped: the log holds no work", exit 0


def test_an_agent_step_in_several_parts_keeps_its_calls_and_an_odd_observation_is_said(tmp_path: Path) -> None:
    parts = [{"type": "text", "text": "look"}, {"type": "image", "source": {"path": "a.png"}}]  # ATIF v1.6
    doc = {"schema_version": "ATIF-v1.6", "steps": [
        {"source": "user", "message": "go"},
        {"source": "agent", "message": parts, "reasoning_content": "hm",
         "tool_calls": [{"tool_call_id": "c1", "function_name": "bash", "arguments": {"cmd": "ls"}}],
         "observation": {"results": [{"source_call_id": "c1", "content": "a.png"}]}},
        {"source": "agent", "message": "x", "observation": ["not", "an object"]},
        {"source": "agent", "message": "y", "observation": {"results": {"c1": "z"}}},
        {"source": "user", "message": parts}]}
    s = read(tmp_path, doc, "parts.json")
    assert [(e.kind, e.text if e.kind != "tool_call" else e.args) for e in s.events] == [
        ("user", "go"), ("reasoning", "hm"), ("tool_call", {"cmd": "ls"}), ("tool_result", "a.png"),
        ("agent_text", "x"), ("agent_text", "y")]
    assert [(w.code, w.message) for w in s.warnings] == [
        ("content-parts", "/steps/1/message holds content parts other than one text; not read (the step's "
                          "reasoning, calls and results are)"),
        ("bad-observation", "/steps/2/observation is list, not an object with a results list; its results not read"),
        ("bad-observation", "/steps/3/observation/results is dict, not an object with a results list; its "
                            "results not read"),
        ("content-parts", "/steps/4/message holds content parts other than one text; skipped")]
    assert s.quality.unknown_records == 4
