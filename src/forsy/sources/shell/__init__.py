"""Shell histories as evidence: bash (plain, `#epoch`, "eternal"), zsh, fish and atuin.

The reader is `source` (its docstring says what the writer emits and what forsy makes of it);
the other modules are its parts.
"""

from __future__ import annotations

from .source import ShellHistorySource

__all__ = ["ShellHistorySource"]
