"""The OpenHands SDK's browser tools (openhands-tools browser_use/definition.py, a tool's name
being its class's less `Tool`): opening a page fetches it; the others act on the page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forsy.run import RetraceOptions, retrace


@pytest.mark.parametrize(("name", "action", "operation"), [
    ("browser_navigate", {"kind": "BrowserNavigateAction", "url": "https://example.com"}, "download"),
    ("browser_click", {"kind": "BrowserClickAction", "index": 3}, "other"),
    ("browser_get_storage", {"kind": "BrowserGetStorageAction"}, "other"),
])
def test_the_step_says_what_the_tool_does(tmp_path: Path, name: str, action: dict[str, object],
                                          operation: str) -> None:
    events = [
        {"kind": "MessageEvent", "id": "e0", "timestamp": "2026-01-01T10:00:00", "source": "user",
         "llm_message": {"role": "user", "content": [{"type": "text", "text": "check the page"}]}},
        {"kind": "ActionEvent", "id": "e1", "timestamp": "2026-01-01T10:00:01", "source": "agent",
         "tool_name": name, "tool_call_id": "c1", "action": action,
         "tool_call": {"id": "c1", "name": name, "arguments": json.dumps({k: v for k, v in action.items()
                                                                          if k != "kind"})}},
        {"kind": "ObservationEvent", "id": "e2", "timestamp": "2026-01-01T10:00:02", "source": "environment",
         "tool_name": name, "tool_call_id": "c1", "observation": {"content": [{"type": "text", "text": "ok"}]}},
    ]
    conv = tmp_path / "conv.json"
    conv.write_text(json.dumps(events))
    retrace([conv], RetraceOptions(out=tmp_path / "t", redact=False))
    trace = json.loads((tmp_path / "t" / "trace.json").read_text())
    assert [s["operation"] for s in trace["steps"] if s.get("tool") == name] == [operation]
