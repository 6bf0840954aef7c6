"""Gemini CLI chats (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, `.json` before 2026) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts.
"""

from __future__ import annotations

from .source import GeminiSource

__all__ = ["GeminiSource"]
