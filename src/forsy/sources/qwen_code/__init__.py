"""Qwen Code sessions (`~/.qwen/projects/<project>/chats/<session id>.jsonl`) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts: the record graph (`_graph`), the events of a transcript
(`_events`, its system records in `_system`), subagents (`_subagents`).
"""

from __future__ import annotations

from .source import QwenCodeSource

__all__ = ["QwenCodeSource"]
