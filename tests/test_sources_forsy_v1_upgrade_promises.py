"""The legacy Forsy trace upgrade, value by value: what an event can hold is copied and cited
by its pointer in the one evidence record (the file); every other value with something in it
is named in a `not-upgraded` warning with the steps that held it, and counted. Nothing is
dropped silently, nothing invented. Inputs are hand-built; expectations worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.forsy_v1 import ForsyV1Source

SRC = ForsyV1Source()
T = "2026-01-01T10:00:0{}Z"
TAIL = "; no event holds it, so forsy derives it again or leaves it null"


def read(tmp_path: Path, doc: Any, folder: str = "legacy") -> Session:
    p = tmp_path / folder / "trace.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    return s


def gaps(s: Session) -> dict[str, str]:
    """not-upgraded warnings: field → where (the text in the parentheses)."""
    out = {}
    for w in s.warnings:
        if w.code == "not-upgraded":
            assert w.message.endswith(TAIL) and (w.file, w.line) == (s.files[0].path, None), w
            name, where = w.message[: -len(TAIL)].split(": not upgraded (", 1)
            out[name] = where[:-1]
    return out


STEPS: list[Any] = [
    {"step": 1, "actor": "user", "action": "user_message", "input": "go", "started_at": T.format(0), "eval": 0},
    {"step": 2, "actor": "assistant", "action": "agent_step", "reasoning": "think", "output": "part one"},
    {"step": 3, "actor": "agent", "action": "output", "output": "part two", "eval": 3, "observation": None},
    "not a step",
    {"step": 5, "actor": "agent", "action": "analysis", "input": "asked", "output": "part three",
     "started_at": T.format(5)},
    {"step": 6, "actor": "subagent", "action": "tool_call", "tool": "bash", "parallel_group": "g1",
     "started_at": T.format(6), "ended_at": "", "success": True},
    {"step": 7, "actor": "user", "action": "feedback", "input": ""},
    {"step": 8, "action": "agent_step", "success": False},
    {"step": 9, "action": "tool_call", "tool": "grep", "input": "grep x", "output": "x:1", "ended_at": T.format(9),
     "success": "no", "operation": "search"},
]


def test_each_step_becomes_the_events_it_can_hold(tmp_path: Path) -> None:
    s = read(tmp_path, {"schema_version": "forsy-v2", "trace_id": "", "steps": STEPS}, folder="old-run")
    assert (s.session_id, s.source_kind, s.meta.agent) == ("old-run", "forsy_v1", "forsy-v1")
    (ev,) = s.evidence
    e = s.evidence[ev]
    assert (e.line, e.byte_offset, e.record_type, e.byte_length) == (1, 0, "legacy-trace", s.files[0].bytes)

    def ref(ptr: str) -> tuple[str, str]:
        return (ev, ptr)

    got = [(x.kind, x.actor, x.ts, [(r.ev, r.pointer) for r in x.refs], x.text, x.args,
            (x.ts_ref.ev, x.ts_ref.pointer) if x.ts_ref else None) for x in s.events]
    assert got == [
        ("user", "user", T.format(0), [ref("/steps/0/input")], "go", None, ref("/steps/0/started_at")),
        ("reasoning", "agent", None, [ref("/steps/1/reasoning")], "think", None, None),
        ("agent_text", "agent", None, [ref("/steps/1/output")], "part one", None, None),
        ("agent_text", "agent", None, [ref("/steps/2/output")], "part two", None, None),
        ("agent_text", "agent", T.format(5), [ref("/steps/4/output")], "part three", None, ref("/steps/4/started_at")),
        ("tool_call", "subagent", T.format(6), [ref("/steps/5")], None, None, ref("/steps/5/started_at")),
        ("tool_call", "agent", None, [ref("/steps/8/input")], None, "grep x", None),
        ("tool_result", "agent", T.format(9), [ref("/steps/8/output")], "x:1", None, ref("/steps/8/ended_at")),
    ]
    c6, c9, r9 = s.events[5], s.events[6], s.events[7]
    assert (c6.call_id, c6.tool, c6.group, c6.name_ref and (c6.name_ref.ev, c6.name_ref.pointer)) == (
        f"{ev}:/steps/5", "bash", "g1", ref("/steps/5/tool"))
    assert (c9.call_id, c9.tool, c9.group, r9.call_id, r9.tool) == (f"{ev}:/steps/8", "grep", None, c9.call_id, None)
    assert r9.is_error is None  # "no" is not a flag: unknown, not guessed
    assert (s.quality.records, s.quality.unknown_records, s.quality.unparsable_records) == (1, 1, 0)
    assert [(w.code, w.message, w.line) for w in s.warnings if w.code != "not-upgraded"] == [
        ("not-a-step", "/steps/3 is not an object; skipped", None)]
    assert gaps(s) == {
        "eval": "step 3",
        "step boundaries": "steps 2-3 joined into one output step, steps 3-5 joined into one output step",
        "legacy action names": "step 5 (analysis), step 7 (feedback)",
        "input of a step with no tool": "step 5",
        "user message without input": "step 7",
        "success": "step 8",
        "steps with nothing to upgrade": "step 8",
        "operation": "step 9",
        "trace.trace_id": "the trace",  # even empty: the session's id is forsy's, not the legacy one
    }
    assert s.quality.extra["not_upgraded_values"] == 11
    # carried: go, T0 | think, part one | part two | asked, part three, T5 | bash, T6 | - | - | grep, grep x, x:1, T9
    assert s.quality.extra["upgraded_values"] == 14


def test_the_trace_s_own_fields_are_session_facts_or_named(tmp_path: Path) -> None:
    doc = {"schema_version": "forsy-v1", "trace_id": "t-7", "system_prompt": "be brief", "memory": "likes tea",
           "skills": ["pdf", 3, "xlsx"], "agent_tools": ["bash", None, "grep"], "agent_config": {"model": "m1", "t": 0},
           "task": "go", "summary": "did it", "learning": None, "final_output": [], "static_output": {},
           "termination_reason": "done", "steps": [
               {"step": 1, "actor": "user", "action": "user_message", "input": "go"}]}
    s = read(tmp_path, doc)
    m = s.meta
    (ev,) = s.evidence
    assert (s.session_id, m.system_prompt, m.memory, m.skills, m.tools) == (
        "t-7", "be brief", "likes tea", ["pdf", "xlsx"], ["bash", "grep"])
    assert m.system_prompt_ref is not None and (m.system_prompt_ref.ev, m.system_prompt_ref.pointer) == (
        ev, "/system_prompt")
    assert (m.extra["legacy_model"], m.extra["legacy_t"]) == ("m1", 0)
    # the task is the first user message's words (forsy derives it again): not listed
    assert gaps(s) == {"trace.summary": "the trace", "trace.termination_reason": "the trace",
                       "trace.skills": "the trace", "trace.agent_tools": "the trace", "trace.trace_id": "the trace"}
    assert s.quality.extra == {"not_upgraded_values": 5, "upgraded_values": 1}
    # a task that is not those words, empty facts and facts of another type
    doc.update(task="something else", system_prompt="", memory=7, skills="pdf", agent_tools={}, agent_config=[1])
    s = read(tmp_path, doc, folder="other")
    m = s.meta
    assert (m.system_prompt, m.system_prompt_ref, m.memory, m.skills, m.tools, m.extra) == (
        None, None, None, [], [], {})
    # an empty prompt loses nothing; a value of another type no session field can hold is named
    assert gaps(s) == {"trace.summary": "the trace", "trace.termination_reason": "the trace", "trace.task": "the trace",
                       "trace.memory": "the trace", "trace.skills": "the trace", "trace.agent_config": "the trace",
                       "trace.trace_id": "the trace"}
    assert s.quality.extra == {"not_upgraded_values": 7, "upgraded_values": 1}


def test_list_items_that_are_not_text_are_named_not_dropped(tmp_path: Path) -> None:
    # the first test's lists: the names are kept, the items that are no name are listed
    doc = {"schema_version": "forsy-v1", "skills": ["pdf", 3], "agent_tools": ["bash", None, "grep"], "steps": []}
    s = read(tmp_path, doc)
    assert (s.meta.skills, s.meta.tools) == (["pdf"], ["bash", "grep"])
    assert gaps(s) == {"trace.skills": "the trace", "trace.agent_tools": "the trace"}
    doc.update(skills=["pdf"], agent_tools=["bash"])
    s = read(tmp_path, doc, folder="clean")
    assert (s.meta.skills, s.meta.tools, gaps(s)) == (["pdf"], ["bash"], {})


def test_a_field_of_many_steps_names_twelve_and_the_count(tmp_path: Path) -> None:
    steps = [{"step": i + 1, "actor": "agent", "action": "tool_call", "tool": "t", "observation": f"o{i}"}
             for i in range(13)]
    s = read(tmp_path, {"schema_version": "forsy-v1", "steps": steps})
    where = ", ".join(f"step {i}" for i in range(1, 13))
    assert gaps(s) == {"observation": f"{where}, … (13 in all)"}
    assert s.quality.extra == {"not_upgraded_values": 13, "upgraded_values": 13}
    s = read(tmp_path, {"schema_version": "forsy-v1", "steps": steps[:12]}, folder="twelve")
    assert gaps(s) == {"observation": where}


def test_a_file_that_is_no_legacy_trace_is_one_unparsable_record(tmp_path: Path) -> None:
    # its one record unread: the file fails (never "skipped: no work"), saying why and where
    whys = [("not a legacy Forsy trace (no steps list); nothing read", None),
            ("a JSON list, not an object; nothing read", None),
            ("not JSON (Expecting property name enclosed in double quotes, column 2); nothing read", 1),
            ("not JSON (Expecting value, column 1); nothing read", 3)]
    docs = ['{"schema_version": "forsy-v1", "steps": {}}', "[1, 2]", "{not json", '{\n "steps": [\n']
    for i, (doc, (why, line)) in enumerate(zip(docs, whys, strict=True)):
        s = read(tmp_path, doc, folder=f"bad{i}")
        assert (s.session_id, s.events, s.quality.records, s.quality.unparsable_records) == (f"bad{i}", [], 0, 1)
        assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
            ("unparsable", why, f"bad{i}/trace.json", line)]
        assert s.evidence == {}


def test_sniff_and_discover(tmp_path: Path) -> None:
    p = tmp_path / "trace.json"
    yes = [b'{"schema_version": "forsy-v1", "steps": []}',
           b'\xef\xbb\xbf\n  {"trace_id": "x", "schema_version":"forsy-v2"', b'{"schema_version":"forsy-v1"}']
    no = [b'{"schema_version": "forsy-v3"}', b'[{"schema_version": "forsy-v1"}]',
          b'{"schema_version": "forsy-trace-v0.1"}', b'x{"schema_version": "forsy-v1"}',
          b'{"schema_version" : "forsy-v1"}', b""]
    assert [SRC.sniff(p, h) for h in yes] == [True] * len(yes)
    assert [SRC.sniff(p, h) for h in no] == [False] * len(no)
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "trace.json").write_bytes(yes[0])
    (tmp_path / "a" / "trace.json").write_bytes(no[0])
    (tmp_path / "a" / "other.json").write_bytes(yes[0])
    assert SRC.discover(tmp_path) == [tmp_path / "a" / "b" / "trace.json"]


def test_only_consecutive_answers_are_joined_and_every_time_is_cited(tmp_path: Path) -> None:
    steps: list[Any] = [
        {"step": 1, "actor": "assistant", "action": "output", "output": "first"},  # an answer first of all
        {"step": 2, "actor": "assistant", "action": "agent_step", "reasoning": "hmm", "started_at": T.format(2)},
        {"step": 3, "actor": "agent", "action": "output", "output": "second"},
        {"step": 4, "actor": "assistant", "action": "user_message"},  # the user's turn with no words
        {"step": 5, "actor": "agent", "action": "output", "output": "third"},
        {"step": 6, "actor": "agent", "action": "output", "output": "fourth"},
        1, None,
        {"step": 9, "action": "user_message", "actor": "assistant", "input": "thanks", "started_at": T.format(9)},
        {"step": 10, "action": "tool_call", "tool": "ls", "output": "a", "started_at": T.format(1)},
    ]
    s = read(tmp_path, {"schema_version": "forsy-v1", "steps": steps})
    (ev,) = s.evidence
    assert gaps(s) == {"step boundaries": "steps 5-6 joined into one output step",
                       "user message without input": "step 4"}
    assert [(w.code, w.message, w.file) for w in s.warnings if w.code == "not-a-step"] == [
        ("not-a-step", "/steps/6 is not an object; skipped", "legacy/trace.json"),
        ("not-a-step", "/steps/7 is not an object; skipped", "legacy/trace.json")]
    assert s.quality.unknown_records == 2
    got = [(e.kind, e.actor, e.text, e.ts, e.ts_ref and e.ts_ref.pointer) for e in s.events]
    assert got == [
        ("agent_text", "agent", "first", None, None),
        ("reasoning", "agent", "hmm", T.format(2), "/steps/1/started_at"),
        ("agent_text", "agent", "second", None, None),
        ("agent_text", "agent", "third", None, None),
        ("agent_text", "agent", "fourth", None, None),
        ("user", "user", "thanks", T.format(9), "/steps/8/started_at"),  # a user_message is the user's
        ("tool_call", "agent", None, T.format(1), "/steps/9/started_at"),
        ("tool_result", "agent", "a", None, None),  # no ended_at: no time, nothing cited for one
    ]
    assert s.events[-1].refs[0].ev == ev


def test_the_task_is_not_listed_when_it_is_the_first_user_words(tmp_path: Path) -> None:
    lead: list[Any] = ["x", {"step": 1, "actor": "agent", "action": "tool_call", "tool": "t", "input": "ls"}]
    by_action = [*lead, {"step": 2, "actor": "human", "action": "user_message", "input": "a"},
                 {"step": 3, "actor": "user", "action": "user_message", "input": "b"}]
    by_actor = [*lead, {"step": 2, "actor": "user", "action": "feedback", "input": "b"}]
    for steps, task, listed in ((by_action, "a", False), (by_action, "b", True), (by_actor, "b", False),
                                (by_action, "ls", True)):
        doc = {"schema_version": "forsy-v1", "task": task, "steps": steps}
        s = read(tmp_path, doc, folder=f"t-{task}-{len(steps)}")
        assert ("trace.task" in gaps(s)) is listed, (task, steps)
    f = s.files[0]
    (e,) = s.evidence.values()
    assert (f.kind, e.sha256) == ("forsy_v1", f.sha256)
    assert SRC.sniff(tmp_path / "trace.json", b'X{"schema_version": "forsy-v1"}') is False
