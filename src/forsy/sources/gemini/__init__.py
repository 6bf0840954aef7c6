"""Gemini CLI chats (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, `.json` before 2026) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts. `part_texts` and `response_id` read a Gemini `Content`'s
parts, which Gemini CLI's forks (Qwen Code) record too; `shell_outcome` reads the shell tool's
words for how a command ended, which Qwen Code's fork of the tool writes too.
"""

from __future__ import annotations

from ._parts import part_texts, response_id
from ._shell import SHELL_TOOLS, shell_outcome
from .source import GeminiSource

__all__ = ["SHELL_TOOLS", "GeminiSource", "part_texts", "response_id", "shell_outcome"]
