"""A failed model call (a `system` record of subtype `api_error`: 429, 401, overloaded...) is the
agent's error, at its time, its text the first message the record gives (`error.message`, then
`error.error.message`, then `content`), cited where it was read; a record with none keeps no text
and cites the whole record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _small_logs import SESSION, user, write
from forsy.payloads import MessageInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource


def _api_error(n: int, parent: str, **fields: Any) -> dict[str, Any]:
    return {"type": "system", "subtype": "api_error", "uuid": f"e{n}", "parentUuid": parent, "sessionId": SESSION,
            "timestamp": f"2026-01-01T10:00:{n:02d}.000Z", "level": "error", **fields}


def test_each_failed_model_call_is_the_agents_error_with_the_text_it_gives(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        user(0, "u1", None, "Go."),
        _api_error(1, "u1", error={"message": "Overloaded"}, content="API Error: 529"),
        _api_error(2, "e1", error={"error": {"message": "Rate limited"}}, content="API Error: 429"),
        _api_error(3, "e2", error={"message": 7}, content="API Error: 500"),
        _api_error(4, "e3", error="boom"),
        _api_error(5, "e4", error={"message": ""}, content=""),
    ])
    [s] = ClaudeCodeSource().read(path, ReadContext(root=tmp_path))
    errors = [e for e in s.events if isinstance(e.info, MessageInfo) and e.info.api_error]
    assert [(e.kind, e.actor, e.ts, e.text, [r.pointer for r in e.refs], e.abandoned) for e in errors] == [
        ("agent_text", "agent", "2026-01-01T10:00:01.000Z", "Overloaded", ["/error/message"], False),
        ("agent_text", "agent", "2026-01-01T10:00:02.000Z", "Rate limited", ["/error/error/message"], False),
        ("agent_text", "agent", "2026-01-01T10:00:03.000Z", "API Error: 500", ["/content"], False),
        ("agent_text", "agent", "2026-01-01T10:00:04.000Z", None, [""], False),
        ("agent_text", "agent", "2026-01-01T10:00:05.000Z", None, [""], False),
    ]
    assert len({e.refs[0].ev for e in errors}) == 5  # each cites its own record
