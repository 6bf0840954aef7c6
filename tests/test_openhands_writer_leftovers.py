"""Observations of the OpenHands SDK's tools whose words sit outside `observation.content`.

Shapes from the writer: openhands-tools/openhands/tools/tom_consult/definition.py
(ConsultTomObservation keeps Tom's answer in `suggestions` and `reasoning`,
SleeptimeComputeObservation its words in `message`; executor.py builds them without `content`,
and their `to_llm_content` renders those fields for the model), serialised by
openhands-sdk/openhands/sdk/event/llm_convertible/observation.py (ObservationEvent). Expectations
by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.openhands import OpenHandsSource

T = "2026-01-01T10:00:0{}"
TOM = ("unclear ask\nI need to consult Tom agent about the user's message\n\n[Starting consultation with Tom "
       "agent...]\nAsk which file they mean.\n\n[Finished consulting with ToM Agent...]")


def _ev(kind: str, n: int, **more: Any) -> dict[str, Any]:
    return {"kind": kind, "id": f"e{n}", "timestamp": T.format(n), "source": "agent", **more}


def _read(tmp_path: Path, events: list[Any]) -> Session:
    p = tmp_path / "conv.json"
    p.write_text(json.dumps(events, indent=1))
    (s,) = OpenHandsSource().read(p, ReadContext(root=tmp_path))
    return s


def _call(n: int, tool: str, action: dict[str, Any], observation: dict[str, Any]) -> list[dict[str, Any]]:
    cid = f"c{n}"
    return [_ev("ActionEvent", n, tool_name=tool, tool_call_id=cid, action=action),
            _ev("ObservationEvent", n + 1, source="environment", tool_name=tool, tool_call_id=cid,
                action_id=f"e{n}", observation=observation)]


def _results(s: Session) -> list[tuple[str | None, list[str], bool | None]]:
    return [(e.text, [r.pointer for r in e.refs], e.is_error) for e in s.events if e.kind == "tool_result"]


def test_toms_answer_is_the_consultations_output(tmp_path: Path) -> None:
    """ConsultTomObservation(suggestions=..., confidence=..., reasoning=...): `content` stays [],
    the words are Tom's suggestions and reasoning (the confidence is a number, not words)."""
    s = _read(tmp_path, [
        _ev("MessageEvent", 0, source="user", llm_message={"role": "user", "content": [{"type": "text",
                                                                                       "text": "fix it"}]}),
        *_call(1, "consult_tom", {"kind": "ConsultTomAction", "reason": "unclear ask", "use_user_message": True,
                                  "custom_query": None},
               {"kind": "ConsultTomObservation", "content": [], "is_error": False, "suggestions": TOM,
                "confidence": 0.8, "reasoning": "They named no file."}),
        *_call(3, "consult_tom", {"kind": "ConsultTomAction", "reason": "again", "use_user_message": True},
               {"kind": "ConsultTomObservation", "content": [], "is_error": False, "suggestions": "[CRITICAL] Tom "
                "agent cannot provide consultation for this user message.", "confidence": None, "reasoning": None}),
        *_call(5, "sleeptime_compute", {"kind": "SleeptimeComputeAction"},
               {"kind": "SleeptimeComputeObservation", "content": [], "is_error": False,
                "message": "Indexed 2 sessions", "sessions_processed": 2}),
    ])
    assert _results(s) == [
        (TOM + "\nThey named no file.", ["/observation/suggestions", "/observation/reasoning"], False),
        ("[CRITICAL] Tom agent cannot provide consultation for this user message.",
         ["/observation/suggestions"], False),
        ("Indexed 2 sessions", ["/observation/message"], False),
    ]


def test_content_stays_the_output_when_it_holds_words(tmp_path: Path) -> None:
    """Any observation with text in `content` is read from there alone, whatever else it holds."""
    s = _read(tmp_path, _call(0, "consult_tom", {"kind": "ConsultTomAction", "reason": "r"},
                              {"kind": "ConsultTomObservation", "content": [{"type": "text", "text": "said"}],
                               "is_error": False, "suggestions": "other"}))
    assert _results(s) == [("said", ["/observation/content/0/text"], False)]
