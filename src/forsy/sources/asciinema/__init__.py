"""asciinema terminal recordings (`.cast`, asciicast v2 and v3) → `Session`s of commands.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts.
"""

from __future__ import annotations

from .source import AsciinemaSource

__all__ = ["AsciinemaSource"]
