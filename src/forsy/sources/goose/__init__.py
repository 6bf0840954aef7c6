"""Goose sessions (`~/.local/share/goose/sessions/<id>.jsonl`) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
`_messages` reads the content parts of each message.
"""

from __future__ import annotations

from .source import GooseSource

__all__ = ["GooseSource"]
