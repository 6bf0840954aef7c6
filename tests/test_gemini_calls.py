"""Gemini CLI's calls (sources/gemini/source.py), from the writer at google-gemini/gemini-cli
commit 5411f113cafae26161b4969b0237b8e1e024e2c2 (packages/core/src/core/geminiChat.ts,
services/chatRecordingService.ts, scheduler/scheduler.ts, state-manager.ts): when they began,
and which of them the person declined."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _gemini_view import read
from forsy.payloads import ResultInfo
from test_gemini_subagents import T, _main, _turn


def test_cancel_on_one_call_is_the_persons_answer_for_the_rest_of_its_batch(tmp_path: Path) -> None:
    """scheduler.ts: Cancel on one call's confirmation cancels it ("User denied execution.") and
    every call queued after it in the batch ("User cancelled operation"): none ran, by the person's
    answer. A call stopped while it ran ("Operation cancelled by user", Esc) stays a failure."""
    def cancelled(cid: str, reason: str) -> dict[str, Any]:
        return {"id": cid, "name": "run_shell_command", "args": {"command": cid}, "status": "cancelled",
                "timestamp": T(3), "result": [{"functionResponse": {"id": cid, "name": "run_shell_command",
                                                                    "response": {"error": reason}}}]}
    why = "[Operation Cancelled] Reason: {}".format
    main = _main(tmp_path / "chats", _turn("m2", 2, cancelled("a", why("User denied execution.")),
                                           cancelled("b", why("User cancelled operation")),
                                           cancelled("c", why("Operation cancelled by user"))))
    s = read(main)
    results = {e.call_id: (e.is_error, isinstance(e.info, ResultInfo) and e.info.rejected)
               for e in s.events if e.kind == "tool_result"}
    assert results == {"a": (True, True), "b": (True, True), "c": (True, False)}
    assert s.quality.extra["rejected_calls"] == 2



def _shell(cid: str, minute: int) -> dict[str, Any]:
    return {"id": cid, "name": "run_shell_command", "args": {"command": "make"}, "status": "success",
            "timestamp": T(minute), "result": [{"functionResponse": {
                "id": cid, "name": "run_shell_command", "response": {"output": "ok"}}}]}


def test_only_the_first_calls_to_complete_began_when_their_message_asked(tmp_path: Path) -> None:
    """A call is recorded once it completed, at that time (recordCompletedToolCalls). The model's
    next turn with no text writes no message: its calls join this one (recordToolCalls), so only
    the first batch began at the message's time; the later batch's start is not known, and a
    message written after its calls completed (a turn of calls alone) gives no start either."""
    main = _main(tmp_path / "chats", _turn("m2", 2, _shell("a", 7), _shell("b", 7), _shell("c", 8)),
                 _turn("m3", 9, _shell("d", 5)))
    times = [(e.kind, e.call_id, e.ts) for e in read(main).events if e.call_id]
    assert times == [("tool_call", "a", T(2)), ("tool_result", "a", T(7)), ("tool_call", "b", T(2)),
                     ("tool_result", "b", T(7)), ("tool_call", "c", T(8)), ("tool_result", "c", T(8)),
                     ("tool_call", "d", T(5)), ("tool_result", "d", T(5))]
