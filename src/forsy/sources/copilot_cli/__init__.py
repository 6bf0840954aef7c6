"""GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`, and the older
`<id>.jsonl` and `history-session-state/session_<id>_<ms>.json`) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts: the events of a log (`_events`), the legacy documents and
their chat messages (`_legacy`), the `report_intent` calls read as notes (`_intent`), the
calls the model provider ran itself (`_server_tools`).
"""

from __future__ import annotations

from .source import CopilotCliSource

__all__ = ["CopilotCliSource"]
