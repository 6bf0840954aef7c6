"""mini-swe-agent trajectories (`*.traj.json`) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it).
"""

from __future__ import annotations

from .source import MiniSweAgentSource

__all__ = ["MiniSweAgentSource"]
