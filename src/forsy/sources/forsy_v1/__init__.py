"""Legacy Forsy traces (`schema_version` forsy-v1 / forsy-v2, the upstream examples) → `Session`s.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts.
"""

from __future__ import annotations

from .source import ForsyV1Source

__all__ = ["ForsyV1Source"]
