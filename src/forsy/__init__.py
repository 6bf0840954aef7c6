"""forsy: retrace AI agent logs into honest, structured Forsy work traces."""

from __future__ import annotations

__version__ = "0.1.0"
