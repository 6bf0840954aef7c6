"""A rollout kept twice: `rollout-….jsonl` and its compressed `rollout-….jsonl.zst` side by side.

Codex compresses a cold rollout into `<name>.jsonl.zst` and then removes `<name>.jsonl`; resuming
a compressed session, it writes `<name>.jsonl` back from it and then removes the `.zst`
(codex-rs/rollout/src/compression.rs). Between the two steps, or when the removal failed, both
are on disk, and the plain file may since have grown. Codex itself then reads only the plain
file: `RolloutFile::from_path` passes over a `.jsonl.zst` whose plain sibling exists
(`should_skip_compressed_sibling`), and `existing_rollout_path` opens the plain one first. forsy
does the same, and names the compressed twin as a copy set aside (`listing.unread`), saying
whether it holds the plain file's lines, an earlier part of them, or other lines.
"""

from __future__ import annotations

import os
from pathlib import Path

import zstandard

from ...errors import InputError
from .._side import why
from ..lines import open_regular

ZST = ".zst"
_CHUNK = 1 << 16


def plain_twin(path: Path) -> Path | None:
    """The plain rollout a `.jsonl.zst` file is a compressed copy of, when it exists beside it
    (Codex's test is the plain path's existence, whatever it holds); None otherwise."""
    if not path.name.endswith(".jsonl" + ZST):
        return None
    plain = path.with_name(path.name[: -len(ZST)])
    return plain if os.path.exists(plain) else None


def set_aside_why(packed: Path, plain: Path) -> str:
    """Why the compressed twin `packed` of `plain` is not read, with what it holds beside it
    (the plain file is not named: one reason for every twin, as a run's summary counts them)."""
    held, other = compared(packed, plain)
    return (f"a compressed copy of the plain rollout beside it{held}: Codex reads the plain file when both "
            f"are there, and so does forsy{'; name it to retrace it' if other else ''}")


def compared(packed: Path, plain: Path) -> tuple[str, bool]:
    """What the compressed twin `packed` holds beside `plain` (a phrase to follow "a compressed
    copy of …"), and whether it may hold lines the plain file lacks. `packed` is decompressed
    no further than a chunk past `plain`'s size (a zstd bomb beside a small file stops there)."""
    try:
        same = _compare(packed, plain)
    except (InputError, OSError) as e:
        return f", not compared ({why(e)})", True
    except zstandard.ZstdError as e:  # not a zstd stream, or a damaged one: it may hold other lines
        return f", not compared (its zstd stream could not be read: {e})", True
    if same == "same":
        return " (the same lines)", False
    if same == "prefix":  # compressed, then resumed: the plain file holds it and what came after
        return ", holding the first part of its lines (the plain file was written to since)", False
    return ", whose lines differ from it", True


def _compare(packed: Path, plain: Path) -> str:
    """"same" when `packed` decompresses to `plain`'s bytes, "prefix" when to a first part of
    them, else "differs"."""
    with open_regular(plain) as fp, open_regular(packed) as fz:
        reader = zstandard.ZstdDecompressor().stream_reader(fz, read_across_frames=True)
        while chunk := reader.read(_CHUNK):
            if fp.read(len(chunk)) != chunk:  # past the plain file's end too: it holds more
                return "differs"
        return "same" if not fp.read(1) else "prefix"
