"""Claude Code session logs (`~/.claude/projects/<project>/<session>.jsonl`), versions 1.0–2.1.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts.
"""

from __future__ import annotations

from .source import ClaudeCodeSource, read_session

__all__ = ["ClaudeCodeSource", "read_session"]
