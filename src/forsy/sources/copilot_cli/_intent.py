"""Copilot CLI's `report_intent`: the model's status line for the person, not work.

The CLI's bundle (npm `@github/copilot`, app.js, read at 1.0.40) defines the tool as one to
"update the current intent of the session. This is displayed in the user interface"; its
callback does nothing but answer `Intent logged` (the intent kept as the call's session log),
and the model is told to call it only along with other tools, first among them. The CLI's own
timeline skips the call, and its ACP server sends the intent as a thought and drops the call's
completion. So the call is a note (subtype `intent`, its text the intent), not a step: it would
otherwise count as a tool the agent used, run "in parallel" with the calls it announces, and
cause the next action. Its start and its answer are metadata; `quality.extra["intents"]`
counts the calls read this way, so none is lost without a trace in the manifest.
"""

from __future__ import annotations

from typing import Any

from ...evidence import Session

TOOL = "report_intent"
SUBTYPE = "intent"
ANSWER = "report_intent's answer ('Intent logged'): the intent it reported is a note"
START = "report_intent's start: the intent it reported is a note"


def intent(args: Any) -> str | None:
    """The words the call reported (its `intent` argument), or None."""
    said = args.get("intent") if isinstance(args, dict) else None
    return said if isinstance(said, str) and said.strip() else None


def count(s: Session) -> None:
    s.quality.extra["intents"] = s.quality.extra.get("intents", 0) + 1
