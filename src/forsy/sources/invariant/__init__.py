"""Invariant traces (the Explorer's event list) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts.
"""

from __future__ import annotations

from .source import InvariantSource

__all__ = ["InvariantSource"]
