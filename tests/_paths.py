"""Shared fixtures: where the real logs are, and a one-call retrace helper."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REAL_LOGS = SHARED / "real_logs"
SAMPLES = ROOT / "sample_logs"


def real_logs(kind: str, *patterns: str) -> list[Path]:
    base = REAL_LOGS / kind
    if not base.is_dir():
        return []
    out: set[Path] = set()
    for pat in patterns or ("**/*.jsonl",):
        out.update(p for p in base.glob(pat) if p.is_file())
    return sorted(out)


needs_shared = pytest.mark.skipif(not REAL_LOGS.is_dir(), reason="../shared/real_logs is absent")


def system_tool(name: str) -> str | None:
    """The path of an administrator's tool (runuser, capsh, setpriv): on PATH, else in /usr/sbin or
    /sbin, which a root shell started with a plain PATH (`env -i PATH=/usr/bin:/bin`) leaves out."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")

