"""Trace-folder rules of `forsy validate`: manifest.json, provenance.json and artifacts/.

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

from ..models import STEP_FIELDS, TOP_LEVEL_FIELDS, FieldProvenance, Manifest, Provenance
from ._base import Sink, show
from ._ledger import check_ledger, ledger_vs_provenance
from ._parts import ARTIFACT_REF_RE, HASH_RE
from ._steps import Counts

# Fields that need no provenance entry: structure and labels, not content copied from evidence.
PROVENANCE_EXEMPT = frozenset({"step", "turn", "actor", "action", "eval"})
_STEP_FIELD_SET = frozenset(STEP_FIELDS)
_PROVENANCE_FIELDS = tuple(f for f in STEP_FIELDS if f not in PROVENANCE_EXEMPT)  # in STEP_FIELDS order
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
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        missing, unknown = [], []
        for err in exc.errors():
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
        return None


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


# ---------------------------------------------------------------- provenance.json


def check_provenance(raw: Any, t: dict[str, Any], steps: list[Any], manifest: Any, sink: Sink) -> None:
    if not isinstance(raw, dict):
        sink.add("P001", f"provenance is {show(raw)}, not an object", field="provenance")
        return
    prov = model_errors(Provenance, raw, "P002", "provenance", sink)
    if prov is None:
        return
    if prov.trace_id != t.get("trace_id"):
        sink.add(
            "P003", f"provenance trace_id {show(prov.trace_id)} differs from the trace's", field="provenance"
        )
    _provenance_steps(prov, steps, sink)
    for f, fp in prov.trace_fields.items():
        if _head(f) not in TOP_LEVEL_FIELDS:
            sink.add("P009", f"provenance.trace_fields names {show(f)}, not a top-level field", field=f)
        _field_provenance(None, f, fp, prov, sink)
    for ev_id, info in prov.evidence.items():
        if info.source not in prov.sources:
            sink.add(
                "P011",
                f"evidence {ev_id} comes from {show(info.source)}, not in provenance.sources",
                field="provenance.evidence",
            )
    _sources_agree(prov, manifest, sink)
    ledger_vs_provenance(prov, manifest, sink)


def _provenance_steps(prov: Provenance, steps: list[Any], sink: Sink) -> None:
    seen: set[int] = set()
    for sp in prov.steps:
        if not 1 <= sp.step <= len(steps):
            sink.add(
                "P004", f"provenance for step {sp.step}, but the trace has {len(steps)} steps", step=sp.step
            )
            continue
        if sp.step in seen:
            sink.add("P005", "more than one provenance entry for this step", step=sp.step)
            continue
        seen.add(sp.step)
        for ev_id in sp.evidence:
            if ev_id not in prov.evidence:
                sink.add(
                    "P006", f"cites evidence {show(ev_id)}, absent from provenance.evidence", step=sp.step
                )
        s = steps[sp.step - 1]
        s = s if isinstance(s, dict) else {}
        heads = set()
        for f, fp in sp.fields.items():
            head = _head(f)
            heads.add(head)
            if head not in _STEP_FIELD_SET:
                sink.add("P009", f"provenance names {show(f)}, not a step field", step=sp.step, field=f)
            elif s.get(head) is None:
                sink.add("P010", f"provenance describes {f}, which is null", step=sp.step, field=f)
            _field_provenance(sp.step, f, fp, prov, sink)
        _uncovered(sp.step, s, heads, sink)
    for i, s in enumerate(steps, start=1):
        if i not in seen and isinstance(s, dict):
            _uncovered(i, s, set(), sink)


def _head(name: str) -> str:
    """Provenance may name a part of a field ("summary.agent_confidence"): its field is the head."""
    return name.partition(".")[0]


def _uncovered(i: int, s: dict[str, Any], covered: set[str], sink: Sink) -> None:
    missing = [f for f in _PROVENANCE_FIELDS if s.get(f) is not None and f not in covered]
    if missing:
        sink.add("P007", f"no provenance for {', '.join(missing)}", step=i)


def _field_provenance(step: int | None, f: str, fp: FieldProvenance, prov: Provenance, sink: Sink) -> None:
    known = prov.evidence
    for ref in fp.evidence:
        if ref.id not in known:
            sink.add(
                "P006",
                f"{f} cites evidence {show(ref.id)}, absent from provenance.evidence",
                step=step,
                field=f,
            )
        if ref.pointer and not ref.pointer.startswith("/"):
            sink.add(
                "P012",
                f"{f} evidence pointer {show(ref.pointer)} is not an RFC 6901 pointer",
                step=step,
                field=f,
            )
    if fp.origin == "model" and not fp.model:
        sink.add("P008", f"{f} comes from a model but names no model", step=step, field=f)
    if fp.origin == "human" and not (fp.reviewer or {}).get("reviewer"):
        sink.add("P008", f"{f} comes from a reviewer's edit but names no reviewer", step=step, field=f)
    if fp.origin == "derived" and not fp.rule:
        sink.add("P012", f"{f} is derived but names no rule", step=step, field=f)
    if fp.origin == "copied" and not fp.evidence:
        sink.add("P012", f"{f} is copied but cites no evidence", step=step, field=f)


def _sources_agree(prov: Provenance, manifest: Any, sink: Sink) -> None:
    sources = manifest.get("sources") if isinstance(manifest, dict) else None
    if not isinstance(sources, list):
        return
    for src in sources:
        if not isinstance(src, dict) or not isinstance(src.get("path"), str):
            continue
        theirs = prov.sources.get(src["path"])
        if theirs is not None and theirs != src.get("sha256"):
            sink.add(
                "P013",
                f"source {show(src['path'])}: manifest and provenance give different sha256",
                field="provenance.sources",
            )
