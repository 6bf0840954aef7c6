"""A permission a user who is not root lacks, made where forsy meets it (the tests run as root in
CI, where mode 000 stops nothing)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def deny(monkeypatch: pytest.MonkeyPatch, name: str, target: Path) -> None:
    """os.`name` on `target` raises PermissionError, as for a user who may not."""
    real: Callable[..., Any] = getattr(os, name)

    def denied(p: Any, *a: Any, **k: Any) -> Any:
        if isinstance(p, (str, os.PathLike)) and Path(p) == target:
            raise PermissionError(13, "Permission denied", str(p))
        return real(p, *a, **k)

    monkeypatch.setattr(os, name, denied)
