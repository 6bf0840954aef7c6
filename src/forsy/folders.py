"""What forsy wrote, recognised: the one test of "forsy wrote this folder's manifest", below
both the sinks that write trace folders and the sources that must not read them back as logs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson


def forsy_manifest(folder: Path) -> dict[str, Any] | None:
    """The manifest.json in `folder` when it names forsy as its generator, else None (none there,
    not JSON, another tool's)."""
    try:
        manifest = orjson.loads((folder / "manifest.json").read_bytes())
    except (OSError, ValueError):
        return None
    gen = manifest.get("generator") if isinstance(manifest, dict) else None
    return manifest if isinstance(gen, dict) and gen.get("name") == "forsy" else None


__all__ = ["forsy_manifest"]
