"""Failures OpenHands (V0) writes as an error flag beside or inside a result, not as an error
observation: read as failures, each citing where the flag is.

Hand-written trajectories in the shapes OpenHands serialises (openhands/events/serialization):

* an MCPObservation (`observation: "mcp"`): `content` is the MCP CallToolResult as JSON text
  (mcp/utils.py call_tool_mcp: `json.dumps(response.model_dump(mode="json"))`), and a timeout or
  an McpError is written as `{"isError": true, "error": ..., "content": []}`;
* a BrowserOutputObservation (`observation: "browse"`, for `browse` and `browse_interactive`
  actions): its `error` flag is serialised into `extras` (runtime/browser/utils.py browse).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _oracle import retrace
from forsy.payloads import ResultInfo
from forsy.sources import ReadContext
from forsy.sources.openhands import OpenHandsSource

T = "2026-01-01T00:00:"


def _call(i: int, action: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": i, "timestamp": f"{T}{i:02d}", "source": "agent", "message": "", "action": action,
            "args": {**args, "thought": ""}}


def _obs(i: int, cause: int, obs: str, content: str, extras: dict[str, Any]) -> dict[str, Any]:
    return {"id": i, "timestamp": f"{T}{i:02d}", "source": "agent", "message": "", "cause": cause,
            "observation": obs, "content": content, "extras": extras}


def _mcp(i: int, content: str) -> list[dict[str, Any]]:
    args = {"name": "fetch", "arguments": {"url": "http://example.invalid"}}
    return [_call(i, "call_tool_mcp", args), _obs(i + 1, i, "mcp", content, args)]


def _browse(i: int, error: Any) -> list[dict[str, Any]]:
    extras = {"url": "http://example.invalid", "trigger_by_action": "browse_interactive", "screenshot_path": None,
              "error": error, "goal_image_urls": [], "open_pages_urls": [], "active_page_index": -1,
              "last_browser_action": 'goto("http://example.invalid")', "last_browser_action_error": "",
              "focused_element_bid": "", "filter_visible_only": False}
    return [_call(i, "browse_interactive", {"browser_actions": 'goto("http://example.invalid")'}),
            _obs(i + 1, i, "browse", "[Current URL: http://example.invalid]\n", extras)]


EVENTS = [
    {"id": 0, "timestamp": f"{T}00", "source": "user", "message": "", "action": "message",
     "args": {"content": "fetch the page"}},
    *_mcp(1, json.dumps({"isError": True, "error": 'Tool "fetch" timed out after 30 seconds', "content": []})),
    *_mcp(3, json.dumps({"isError": True, "error": "Connection closed", "content": []})),  # an McpError
    *_mcp(5, json.dumps({"meta": None, "content": [{"type": "text", "text": "<html>", "annotations": None,
                                                     "meta": None}], "structuredContent": None, "isError": False})),
    *_mcp(7, "not JSON at all"),  # says nothing of an error: as before
    *_mcp(9, json.dumps([{"isError": True}])),  # not a CallToolResult object: as before
    *_browse(11, True),
    *_browse(13, False),
    *_browse(15, "yes"),  # not the boolean OpenHands writes: nothing read from it
]


def _write(tmp_path: Path) -> Path:
    p = tmp_path / "traj.json"
    p.write_text(json.dumps(EVENTS, indent=1))
    return p


def test_mcp_and_browser_error_flags_fail_their_calls(tmp_path: Path) -> None:
    [s] = OpenHandsSource().read(_write(tmp_path), ReadContext(root=tmp_path))
    results = [e for e in s.events if e.kind == "tool_result"]
    assert [(e.call_id, e.is_error) for e in results] == [
        ("1", True), ("3", True), ("5", False), ("7", False), ("9", False), ("11", True), ("13", False), ("15", False)]
    # the output is the content either way; a browser's flag is cited beside it
    assert all(e.refs[0].pointer == "/content" for e in results)
    outcome = [e.info.outcome_refs if isinstance(e.info, ResultInfo) else None for e in results]
    assert [[r.pointer for r in o] if o else None for o in outcome] == [None] * 5 + [["/extras/error"], None, None]
    assert not s.warnings


def test_the_steps_fail_and_cite_the_flag(tmp_path: Path) -> None:
    [trace] = retrace(_write(tmp_path), tmp_path / "out")  # validated and verified
    calls = [st for st in trace["steps"] if st.get("tool")]
    assert [(st["tool"], st["success"], st["eval"]) for st in calls] == [
        ("call_tool_mcp", False, -1), ("call_tool_mcp", False, -1), ("call_tool_mcp", True, 0),
        ("call_tool_mcp", True, 0), ("call_tool_mcp", True, 0),
        ("browse_interactive", False, -1), ("browse_interactive", True, 0), ("browse_interactive", True, 0)]
    [prov_path] = (tmp_path / "out").rglob("provenance.json")
    prov = json.loads(prov_path.read_text("utf-8"))
    success = {sp["step"]: sp["fields"]["success"] for sp in prov["steps"] if "success" in sp["fields"]}
    cited = [(success[st["step"]]["rule"], [r["pointer"] for r in success[st["step"]]["evidence"]]) for st in calls]
    assert cited[0] == ("R-call/error-flag", ["/content"])
    assert cited[5] == ("R-call/error-flag", ["/extras/error"])


def test_the_sdk_writes_an_mcp_error_as_its_flag(tmp_path: Path) -> None:
    """OpenHands V1 (the SDK's MCPToolObservation) keeps the flag as the observation's
    `is_error`, which the reader already reads: the same failure, no new rule."""
    events = [
        {"kind": "MessageEvent", "id": "e0", "timestamp": f"{T}00", "source": "user",
         "llm_message": {"role": "user", "content": [{"type": "text", "text": "fetch the page"}]}},
        {"kind": "ActionEvent", "id": "e1", "timestamp": f"{T}01", "source": "agent", "tool_name": "fetch",
         "tool_call_id": "c1", "action": {"kind": "MCPToolAction", "data": {"url": "http://example.invalid"}},
         "tool_call": {"id": "c1", "name": "fetch", "arguments": "{}"}},
        {"kind": "ObservationEvent", "id": "e2", "timestamp": f"{T}02", "source": "environment", "tool_name": "fetch",
         "tool_call_id": "c1", "observation": {"kind": "MCPToolObservation", "tool_name": "fetch", "is_error": True,
                                               "content": [{"type": "text", "text": "[Tool 'fetch' executed.]"}]}},
    ]
    p = tmp_path / "conv.json"
    p.write_text(json.dumps(events))
    [s] = OpenHandsSource().read(p, ReadContext(root=tmp_path))
    assert [e.is_error for e in s.events if e.kind == "tool_result"] == [True]
