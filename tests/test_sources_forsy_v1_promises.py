"""The legacy Forsy trace reader and the failures a legacy trace records: a tool step with
`success: false` gives a result that is an error, `success: true` one that is not, and no flag
(or null) one that stays unknown; the success flag of a step with no tool has no event to hold
it and is listed as not upgraded, never dropped silently. Worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.sources import ReadContext
from forsy.sources.forsy_v1 import ForsyV1Source

T = "2026-01-01T10:00:0{}Z"


def _tool(n: int, success: Any, **more: Any) -> dict[str, Any]:
    return {"step": n, "actor": "assistant", "action": "tool_call", "tool": "bash", "input": f"cmd{n}",
            "output": f"out{n}", "started_at": T.format(n), "ended_at": T.format(n + 1), "success": success, **more}


def test_a_legacy_step_s_failure_is_an_error_only_when_it_said_so(tmp_path: Path) -> None:
    doc = {"schema_version": "forsy-v1", "trace_id": "legacy-1", "steps": [
        {"step": 1, "actor": "user", "action": "user_message", "input": "go"},
        _tool(2, False), _tool(3, True), _tool(4, None), {**_tool(5, False), "output": None},
        {"step": 6, "actor": "assistant", "action": "error", "output": "gave up", "success": False},
    ]}
    p = tmp_path / "old" / "trace.json"
    p.parent.mkdir()
    p.write_text(json.dumps(doc))
    (s,) = ForsyV1Source().read(p, ReadContext(root=tmp_path))
    assert s.session_id == "legacy-1"
    results = [(e.call_id, e.text, e.is_error, e.ts) for e in s.events if e.kind == "tool_result"]
    ev = next(iter(s.evidence))
    assert results == [(f"{ev}:/steps/1", "out2", True, T.format(3)), (f"{ev}:/steps/2", "out3", False, T.format(4)),
                       (f"{ev}:/steps/3", "out4", None, T.format(5))]
    assert [e.refs[0].pointer for e in s.events if e.kind == "tool_result"] == [
        "/steps/1/output", "/steps/2/output", "/steps/3/output"]
    assert [e.kind for e in s.events][-1] == "agent_text" and s.events[-1].text == "gave up"
    gaps = [w.message for w in s.warnings if w.code == "not-upgraded"]
    assert any(m.startswith("success: not upgraded (step 6)") for m in gaps)  # no tool: no event holds it
    assert not any(m.startswith("success:") and "step 2" in m for m in gaps)  # a tool's: carried
