"""Goose sessions (`~/.local/share/goose/sessions/<id>.jsonl`, and the later
`sessions/sessions.db`) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts: the content parts of each message (`_messages`), the SQLite
store's rows (`_db`).
"""

from __future__ import annotations

from .source import GooseSource

__all__ = ["GooseSource"]
