"""Publish: the approved traces as trace folders plus one JSON Lines index, ready for a dataset.

    export_approved(store, Path("dataset"))   # dataset/<trace_id>/…, dataset/index.jsonl

Each folder holds the stored files byte for byte (checked against their sha256, so the export
is the reviewed trace the audit log names). A folder already there is left alone when it holds
exactly these files, and refused otherwise: forsy never overwrites what it did not write. The
index is replaced whole only when it is one an export wrote (each line an object with the
index's own keys; `-o` may point at a folder holding someone's own `index.jsonl`); otherwise the
export is refused before anything is written.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import orjson

from .._atomic import replace_file
from ..errors import InputError, OutputError
from ..store import Store, TraceQuery, every_audit, every_trace
from .lineage import superseded_approvals

INDEX = "index.jsonl"


@dataclass(frozen=True)
class Exported:
    trace_id: str
    folder: Path
    written: bool  # False: an identical folder was already there


def export_approved(store: Store, dest: Path, *, agent: str | None = None, project: str | None = None,
                    skipped: list[tuple[str, str]] | None = None) -> list[Exported]:
    """Write every reviewed (approved) trace under `dest`, and `dest/index.jsonl` (one line each).
    A trace whose stored files cannot be read, or whose folder holds other files, is an error;
    or, when `skipped` is given, it is left out of the folder and the index and added to it
    (trace id, why), and the others are written."""
    rows = every_trace(store, TraceQuery(status="approved", reviewed=True, agent=agent, project=project))
    older = superseded_approvals(store)  # a session approved again once it grew: each approval is kept, marked
    if not _index_ours(dest / INDEX):
        raise OutputError("exists and was not written by forsy review export; not overwritten", path=dest / INDEX)
    dest.mkdir(parents=True, exist_ok=True)
    out: list[Exported] = []
    index: list[bytes] = []
    for row in sorted(rows, key=lambda r: r.trace_id):
        folder = dest / row.trace_id
        try:
            files = {f.name: f.data for f in store.trace_files(row.trace_id)}
            written = _write(folder, files)
        except (InputError, OutputError) as e:
            if skipped is None:
                raise
            skipped.append((row.trace_id, e.message))
            continue
        state = store.draft_state(row.trace_id)
        out.append(Exported(row.trace_id, folder, written))
        review = [a for a in every_audit(store, row.prior_trace_id) if a.action == "approve"] \
            if row.prior_trace_id else []
        index.append(orjson.dumps({
            "trace_id": row.trace_id, "prior_trace_id": row.prior_trace_id, "folder": row.trace_id,
            "validation_level": state.validation_level if state else None,
            "reviewer": review[-1].actor if review else None, "approved_at": review[-1].at if review else None,
            "agent": row.agent, "project": row.project, "started_at": row.started_at, "ended_at": row.ended_at,
            "steps": row.steps, "turns": row.turns, "confidence": row.confidence, "task": row.task,
            "sha256": {n: hashlib.sha256(d).hexdigest() for n, d in sorted(files.items())},
            "superseded": row.trace_id in older,  # a later draft of its session was approved too
        }) + b"\n")
    try:
        replace_file(dest / INDEX, b"".join(index))  # checked above as forsy's own: replaced whole
    except OSError as e:
        raise OutputError(f"cannot write the index: {e.strerror or e}", path=dest / INDEX) from None
    return out


# the keys every line of an index this module writes has (a later version may add others)
_INDEX_KEYS = frozenset({"trace_id", "prior_trace_id", "folder", "sha256"})


def _index_ours(path: Path) -> bool:
    """No index yet, or one an export wrote: every line an object with the index's keys. An empty
    file counts as ours (an export of no trace writes one, and replacing it loses nothing); a
    symlink never does (replacing it would drop someone's link)."""
    if path.is_symlink():
        return False
    if not path.exists():
        return True
    if not path.is_file():
        return False
    try:
        with path.open("rb") as f:
            for line in f:
                doc = orjson.loads(line)
                if not (isinstance(doc, dict) and _INDEX_KEYS <= doc.keys()):
                    return False
    except (OSError, orjson.JSONDecodeError):
        return False
    return True


def _write(folder: Path, files: dict[str, bytes]) -> bool:
    if folder.exists():
        present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() or p.is_symlink()}
        same = present == set(files) and all(
            not (folder / n).is_symlink() and (folder / n).read_bytes() == d for n, d in files.items())
        if same:
            return False
        raise OutputError("holds other files than this trace's; refusing to replace it (export to a new folder)",
                          path=folder)
    tmp = folder.parent / f".{folder.name}.forsy-tmp-{os.getpid()}"
    for name in files:  # every name checked before anything is written: no work folder left half made
        if not (tmp / name).resolve().is_relative_to(tmp.resolve()):
            raise InputError(f"stored file name {name!r} leaves its folder")
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        for name, data in files.items():
            p = tmp / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        os.rename(tmp, folder)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(f"cannot write the trace folder: {e.strerror or e}", path=folder) from None
    return True
