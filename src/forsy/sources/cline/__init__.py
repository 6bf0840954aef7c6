"""Cline tasks (VS Code globalStorage `saoudrizwan.claude-dev/tasks/<task id>/`) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts.
"""

from __future__ import annotations

from .source import ClineSource

__all__ = ["ClineSource"]
