"""The ATIF reader's times and the elements it passes over, one by one: every event a step makes
takes the step's `timestamp` and cites it (`ts_ref`), a damaged call or result does not stop the
ones after it, `extra.forsy_steps` shorter than the calls gives the later calls nothing (never
an error), `raw_input` applies only to an object holding the input text, and the subagent
trajectories are counted, however many. Expectations worked out by hand from the documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.atif import AtifSource

SRC = AtifSource()
T = "2026-01-01T10:00:00Z"


def read(tmp_path: Path, doc: Any) -> Session:
    (tmp_path / "t.json").write_text(json.dumps(doc))
    (s,) = SRC.read(tmp_path / "t.json", ReadContext(root=tmp_path))
    return s


def test_every_event_takes_its_step_s_time_and_cites_it(tmp_path: Path) -> None:
    steps = [
        {"source": "system", "message": "prompt", "timestamp": T},
        {"source": "user", "message": "go", "timestamp": T},
        {"source": "agent", "message": "ok", "reasoning_content": "why", "timestamp": T,
         "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": {}}],
         "observation": {"results": [{"content": "env said"}, {"source_call_id": "c", "content": "r"}]}},
        {"source": "system", "message": "late", "timestamp": T},
        {"source": "system", "message": "sum", "timestamp": T, "extra": {"forsy_steps": [{"actor": "system"}]}},
        {"source": "system", "message": "hook", "timestamp": T,
         "extra": {"forsy_steps": [{"actor": "system:hook"}]}},
    ]
    s = read(tmp_path, {"schema_version": "ATIF-v1.4", "steps": steps})
    got = [(e.kind, e.ts, e.ts_ref.pointer if e.ts_ref else None, e.refs[0].ev == e.ts_ref.ev if e.ts_ref else None)
           for e in s.events]
    assert got == [
        ("user", T, "/steps/1/timestamp", True),
        ("reasoning", T, "/steps/2/timestamp", True),
        ("agent_text", T, "/steps/2/timestamp", True),
        ("tool_call", T, "/steps/2/timestamp", True),
        ("agent_text", T, "/steps/2/timestamp", True),  # a result with no call: what the agent got back
        ("tool_result", None, None, None),  # its end time is forsy's own record's only
        ("note", T, "/steps/3/timestamp", True),
        ("compaction", T, "/steps/4/timestamp", True),
        ("note", T, "/steps/5/timestamp", True),
    ]
    assert [(e.kind, e.info.subtype if e.info else None) for e in s.events if e.kind == "note"] == [  # type: ignore[attr-defined]
        ("note", None), ("note", "hook")]
    assert s.meta.agent == "atif"  # no agent named: the format's own name


def test_a_damaged_call_or_result_does_not_stop_the_ones_after_it(tmp_path: Path) -> None:
    step = {"source": "agent", "message": "", "tool_calls": [
        {"tool_call_id": "c0", "arguments": {}},  # no function_name
        {"tool_call_id": "c1", "function_name": "f", "arguments": {"input": 5}, "extra": {"raw_input": True}},
        {"tool_call_id": "c2", "function_name": "g", "arguments": "text", "extra": {"raw_input": True}}],
        "observation": {"results": ["no object", {"source_call_id": "c1", "content": "one"},
                                    {"source_call_id": "c2", "content": [{"type": "image"}]},
                                    {"source_call_id": "c2", "content": "two"}]},
        "extra": {"forsy_steps": [{"actor": "agent", "ended_at": T}]}}  # shorter than the calls
    s = read(tmp_path, {"schema_version": "ATIF-v1.4", "steps": [{"source": "user", "message": "u"}, step],
                        "subagent_trajectories": {"a": 1}})
    assert [(e.kind, e.call_id, e.args if e.kind == "tool_call" else e.text) for e in s.events[1:]] == [
        ("tool_call", "c1", {"input": 5}),  # raw_input, but the input is no text: the object as written
        ("tool_call", "c2", "text"),  # raw_input on arguments that are no object: as written
        ("tool_result", "c1", "one"), ("tool_result", "c2", "two")]
    assert [e.ts for e in s.events if e.kind == "tool_result"] == [None, None]  # no forsy_steps entry for them
    assert [(w.code, w.message) for w in s.warnings] == [
        ("subagents-not-read", "1 embedded subagent trajectory(ies) not read"),
        ("bad-tool-call", "/steps/1/tool_calls/0 has no function_name; skipped"),
        ("bad-result", "/steps/1/observation/results/0 is not a text result; skipped"),
        ("bad-result", "/steps/1/observation/results/2 is not a text result; skipped")]
    assert s.quality.unknown_records == 4  # the subagents (one object), the call, the two results
    s = read(tmp_path, {"steps": [], "subagent_trajectories": [{}, {}, {}]})
    assert s.quality.unknown_records == 3 and "3 embedded" in s.warnings[0].message
