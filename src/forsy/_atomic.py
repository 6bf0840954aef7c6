"""One file written whole: a work file beside it, renamed over it (readers never see half a file)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def replace_file(path: Path, data: bytes) -> None:
    """Write `data` at `path` atomically; the work file is removed on any failure (OSError raised).
    Whether `path` may be replaced at all is the caller's check: only files forsy wrote are."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
