"""ATIF trajectories (Harbor's Agent Trajectory Interchange Format) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts.
"""

from __future__ import annotations

from .source import AtifSource

__all__ = ["AtifSource"]
