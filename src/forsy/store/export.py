"""A stored trace, back out as a trace folder (through the folder writer, atomically)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..assemble import Assembled
from ..errors import InputError
from ..models import Manifest, Provenance, Trace
from ..sinks.folder import write_folder
from . import Store

_MAIN = ("trace.json", "manifest.json", "provenance.json")


def export_trace(store: Store, trace_id: str, dest: Path) -> Path:
    """Write trace `trace_id` as a trace folder at `dest` (the folder writer's rules: never
    over anything forsy did not write for this trace source). The written trace.json is
    checked against the stored sha256, so the export is the stored trace, byte for byte."""
    row = store.trace(trace_id)
    if row is None:
        raise InputError(f"no trace {trace_id} in the store {store.url}")
    files = {f.name: f.data for f in store.trace_files(trace_id)}
    missing = [n for n in _MAIN if n not in files]
    if missing:
        raise InputError(f"trace {trace_id} lacks {', '.join(missing)} in the store")
    a = Assembled(
        trace=Trace.model_validate_json(files["trace.json"]),
        provenance=Provenance.model_validate_json(files["provenance.json"]),
        manifest=Manifest.model_validate_json(files["manifest.json"]),
        files={n: d.decode("utf-8", "surrogatepass") for n, d in files.items() if n.startswith("artifacts/")},
    )
    folder = write_folder(a, dest)
    written = hashlib.sha256((folder / "trace.json").read_bytes()).hexdigest()
    if written != row.sha256.get("trace.json"):
        raise InputError(f"exported trace.json of {trace_id} differs from the stored one", path=folder)
    return folder
