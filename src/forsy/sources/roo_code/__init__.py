"""Roo Code and Kilo Code tasks (VS Code globalStorage `rooveterinaryinc.roo-cline/tasks/<task id>/`,
`kilocode.kilo-code/tasks/<task id>/`) → `Session`s.

The reader is `source` (its docstring says what the writers emit and what forsy makes of it);
the other modules are its parts.
"""

from __future__ import annotations

from .source import RooCodeSource

__all__ = ["RooCodeSource"]
