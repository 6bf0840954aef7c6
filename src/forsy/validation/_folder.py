"""Trace-folder rules of `forsy validate`: manifest.json and artifacts/ (provenance.json's are
in `_provenance`), and the model checks both files get.

A folder is `trace.json` + `manifest.json` [+ `provenance.json`, `artifacts/`]. The manifest
and provenance are checked against their pydantic models first, then against the trace and
the bytes on disk. Paths taken from the files are resolved inside the folder only: a name
like `../x` is a finding, never a read outside the folder.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ..models import Manifest
from ._base import Sink, show
from ._ledger import check_ledger
from ._parts import ARTIFACT_REF_RE, HASH_RE
from ._steps import Counts

_DIGEST_RE = re.compile(r"(?:sha256:)?([0-9a-fA-F]{64})")
M = TypeVar("M", bound=BaseModel)


def inside(folder: Path, name: str) -> Path | None:
    """`folder/name` when it stays inside the folder and exists as a file, else None."""
    try:
        base = folder.resolve()
        p = (folder / name.replace("\\", "/")).resolve()
        return p if p.is_relative_to(base) and p.is_file() else None
    except (OSError, ValueError):  # NUL bytes, surrogates, loops: not a file of ours
        return None


def file_sha256(p: Path) -> str | None:
    try:
        return hashlib.sha256(p.read_bytes()).hexdigest()
    except OSError:
        return None


def model_errors(model: type[M], data: Any, rule: str, what: str, sink: Sink) -> M | None:
    """Validate with a pydantic model (the validated model, or None); group missing and unknown
    fields into one finding each."""
    errors: list[ErrorDetails] = []
    got = validated(model, data, errors)
    error_findings(errors, rule, what, sink)
    return got


def validated(model: type[M], data: Any, errors: list[ErrorDetails], at: tuple[str | int, ...] = ()) -> M | None:
    """`data` validated with `model`, or None with its errors added to `errors` (their places
    prefixed with `at`: the place of `data` in a larger document)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors += [{**err, "loc": at + tuple(err["loc"])} for err in exc.errors()] if at else exc.errors()
        return None


def error_findings(errors: list[ErrorDetails], rule: str, what: str, sink: Sink) -> None:
    """Findings for a model's validation errors: one each, and all missing and all unknown
    fields grouped into one finding each (after the others)."""
    missing, unknown = [], []
    for err in errors:
        loc = ".".join(str(p) for p in err["loc"])
        if err["type"] == "missing":
            missing.append(loc)
        elif err["type"] == "extra_forbidden":
            unknown.append(loc)
        else:
            sink.add(rule, f"{what} {loc or '(root)'}: {err['msg']}", field=loc or None)
    if missing:
        sink.add(rule, f"{what} lacks {', '.join(missing)}")
    if unknown:
        sink.add(rule, f"{what} has fields its model does not know: {', '.join(unknown)}")


# ---------------------------------------------------------------- artifacts/


def check_artifact_files(artifacts: list[dict[str, Any]], folder: Path, sink: Sink) -> None:
    referred: set[Path] = set()
    for j, a in enumerate(artifacts):
        where = f"static_output.artifacts[{j}]"
        path, content = a.get("path"), a.get("content")
        if isinstance(path, str) and _is_local(path):
            p = _must_exist(j, path, f"{where}.path", folder, sink)
            if p:
                referred.add(p)
                if content is None:
                    _file_hash(j, a, p, "A013", where, sink)
        if isinstance(content, str) and ARTIFACT_REF_RE.fullmatch(content.strip()):
            p = _must_exist(j, content.strip(), f"{where}.content", folder, sink)
            if p:
                referred.add(p)
                _file_hash(j, a, p, "A008", where, sink)
    _unreferred(folder, referred, sink)


def _is_local(path: str) -> bool:
    return ARTIFACT_REF_RE.fullmatch(path.replace("\\", "/").strip()) is not None


def _must_exist(j: int, name: str, field: str, folder: Path, sink: Sink) -> Path | None:
    p = inside(folder, name)
    if p is None:
        sink.add(
            "A011",
            f"artifact {j} refers to {show(name)}, which is not a file of the trace folder",
            field=field,
        )
    return p


def _file_hash(j: int, a: dict[str, Any], p: Path, rule: str, where: str, sink: Sink) -> None:
    h = a.get("hash")
    if isinstance(h, str) and HASH_RE.fullmatch(h) and file_sha256(p) != h[len("sha256:") :]:
        sink.add(rule, f"artifact {j} hash is not the sha256 of {p.name}", field=f"{where}.hash")


def _unreferred(folder: Path, referred: set[Path], sink: Sink) -> None:
    for p in _artifact_dir_files(folder):
        if p.resolve() not in referred:
            rel = p.relative_to(folder).as_posix()
            sink.add("A014", f"{rel} is not referred to by any artifact", field="static_output")


def _artifact_dir_files(folder: Path) -> list[Path]:
    try:
        root = folder / "artifacts"
        return sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
    except OSError:
        return []


# ---------------------------------------------------------------- manifest.json


def check_manifest(m: Any, t: dict[str, Any], counts: Counts, folder: Path | None, sink: Sink) -> None:
    if not isinstance(m, dict):
        sink.add("N002", f"manifest is {show(m)}, not an object", field="manifest")
        return
    model_errors(Manifest, m, "N003", "manifest", sink)
    if "trace_id" in m and m["trace_id"] != t.get("trace_id"):
        sink.add(
            "N004",
            f"manifest trace_id {show(m['trace_id'])} differs from the trace's {show(t.get('trace_id'))}",
            field="manifest.trace_id",
        )
    _manifest_agrees(m, t, counts, sink)
    check_ledger(m, sink)
    if folder is not None:
        _manifest_files(m, folder, sink)


def _manifest_agrees(m: dict[str, Any], t: dict[str, Any], counts: Counts, sink: Sink) -> None:
    summ = t.get("summary") if isinstance(t.get("summary"), dict) else {}
    ds = t.get("dataset_summary") if isinstance(t.get("dataset_summary"), dict) else {}
    assert isinstance(summ, dict) and isinstance(ds, dict)  # for mypy: narrowed above
    expected = {
        "total_steps": counts.steps,
        "total_turns": counts.turns,
        "agent_confidence": summ.get("agent_confidence"),
        "trace_mode": t.get("trace_mode"),
        "validation_level": t.get("validation_level"),
        "release_tier": ds.get("release_tier"),
        "schema_version": t.get("schema_version"),
    }
    for f, want in expected.items():
        # type matters: a manifest saying true for one step is not agreeing with 1
        if f in m and (m[f] != want or type(m[f]) is not type(want)):
            sink.add(
                "N005", f"manifest {f} is {show(m[f])}, the trace has {show(want)}", field=f"manifest.{f}"
            )
    for f in ("started_at", "ended_at"):
        if f in m and m[f] != t.get(f):
            sink.add(
                "N008",
                f"manifest {f} is {show(m[f])}, the trace's is {show(t.get(f))}",
                field=f"manifest.{f}",
            )


def _manifest_files(m: dict[str, Any], folder: Path, sink: Sink) -> None:
    files = m.get("files")
    if not isinstance(files, dict):
        return  # N003 has said so
    for name, digest in files.items():
        p = inside(folder, name) if isinstance(name, str) else None
        d = _DIGEST_RE.fullmatch(digest) if isinstance(digest, str) else None
        if p is None:
            sink.add(
                "N006",
                f"manifest lists {show(name)}, which is not a file of the trace folder",
                field="manifest.files",
            )
        elif d is None:
            sink.add(
                "N006",
                f"manifest sha256 of {show(name)} is {show(digest)}, not a sha256",
                field="manifest.files",
            )
        elif file_sha256(p) != d.group(1).lower():
            sink.add(
                "N006", f"{name} on disk does not match its sha256 in the manifest", field="manifest.files"
            )
    on_disk = [folder / "trace.json", folder / "provenance.json", *_artifact_dir_files(folder)]
    listed = {p for n in files if isinstance(n, str) and (p := inside(folder, n))}
    unlisted = [
        p.relative_to(folder).as_posix() for p in on_disk if p.is_file() and p.resolve() not in listed
    ]
    if unlisted and not files:
        sink.add(
            "N007", "manifest 'files' is empty: no sha256 for " + ", ".join(unlisted), field="manifest.files"
        )
    else:
        for rel in unlisted:
            sink.add("N007", f"{rel} is not listed in manifest 'files'", field="manifest.files")
