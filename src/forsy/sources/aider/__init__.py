"""Aider's chat history (`.aider.chat.history.md`) and input history (`.aider.input.history`) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts.
"""

from __future__ import annotations

from .source import AiderSource

__all__ = ["AiderSource"]
