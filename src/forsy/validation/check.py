"""Validating a trace: a folder or a `trace.json` on disk, a folder held in memory, or a
trace already parsed; each gives its findings (and, for a path, a `Report`)."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._aside import Handoff, aside
from .._gc import gc_paused, give_back
from ._base import Finding, Sink, is_int
from ._folder import check_artifact_files, check_manifest
from ._json import load_json
from ._parts import (
    check_dataset_summary,
    check_final_output,
    check_static_output,
    check_summary,
    check_top,
    check_trace_times,
    is_legacy,
)
from ._provenance import check_provenance
from ._steps import check_steps, count_steps


@dataclass
class Report:
    """What `validate_path` found in one trace file or folder."""

    path: str
    findings: list[Finding]
    legacy: bool  # the trace is a legacy forsy-v1 / forsy-v2 trace
    stats: dict[str, Any]  # steps, turns, confidence, user_messages, ...

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def ok(self) -> bool:
        return not self.errors


def validate_path(path: str | Path) -> Report:
    """Validate a `trace.json` file, or a trace folder (trace.json + manifest.json
    [+ provenance.json, artifacts/]). A file is checked alone: the folder rules (N, P, A011,
    A013, A014) need the folder to be given."""
    with gc_paused():  # parsing a large trace builds millions of objects and no cycles (forsy._gc)
        return _validate_path(Path(path))


def validate_files(files: Mapping[str, bytes]) -> Report:
    """Validate a trace folder held in memory (name -> bytes, e.g. a draft from the store):
    the folder rules read files, so it is written to a temporary folder first."""
    with tempfile.TemporaryDirectory(prefix="forsy-validate-") as tmp:
        for name, data in files.items():
            p = Path(tmp, name)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        return validate_path(tmp)


def _validate_path(path: Path) -> Report:
    give_back()  # what the caller freed (a retrace's session and trace): the parse starts from it
    folder = path if _is_dir(path) else None
    prov = folder / "provenance.json" if folder is not None and _exists(folder / "provenance.json") else None
    # A large folder's provenance is read and checked on the other core while this process reads
    # and checks the trace; the child waits for what it needs of the trace (which step fields are
    # set) only once it has parsed provenance.json. Neither process holds both parsed files.
    known: dict[str, Any] = {}
    handoff = Handoff() if prov is not None and _size(prov) >= ASIDE_BYTES else None

    def part() -> tuple[list[Finding], list[Finding]]:
        return _provenance_findings(prov, known, handoff)

    with aside(part, worth_it=handoff is not None) as provenance_findings:
        try:
            sink = Sink()
            trace = load_json(path / "trace.json" if folder else path, sink, ("F001", "F002", "F003"))
            if trace is None:
                return Report(str(path), sink.findings, False, {})
            manifest = _manifest(folder, sink)
            if isinstance(trace, dict) and prov is not None:
                known.update(trace_id=trace.get("trace_id"), steps=_fields_set(trace), manifest=manifest)
        finally:
            if handoff is not None:
                handoff.send(known, forked=provenance_findings is not part)
        at = len(sink.findings)  # where the provenance file's own findings go (as if read with the others)
        sink.findings += validate_trace(trace, manifest=manifest, folder=folder)
        legacy, stats = is_legacy(trace), trace_stats(trace)
        del trace
        if prov is not None:
            give_back()
            read, checked = provenance_findings()
            sink.findings[at:at] = read
            sink.findings += checked
    return Report(str(path), sink.findings, legacy, stats)


ASIDE_BYTES = 4_000_000  # a provenance.json this large takes longer to check than a child takes to fork


def _manifest(folder: Path | None, sink: Sink) -> dict[str, Any] | None:
    if folder is None:
        return None
    if _exists(folder / "manifest.json"):
        return load_json(folder / "manifest.json", sink, ("N002",) * 3)
    sink.add("N001", "the trace folder has no manifest.json", field="manifest")
    return None


def _provenance_findings(prov: Path | None, known: dict[str, Any],
                         handoff: Handoff | None) -> tuple[list[Finding], list[Finding]]:
    """The findings of reading provenance.json, and of checking it against the trace: which
    step fields are set, not their values, so the trace is dropped before provenance is parsed
    (a large folder's validation peaked at the two parsed files together). In a child, what the
    caller read of the trace comes through `handoff` once provenance.json is parsed."""
    if prov is None:
        return [], []
    read, checked = Sink(), Sink()
    provenance = load_json(prov, read, ("P001",) * 3)
    if handoff is not None and (sent := handoff.receive()) is not None:
        known = sent
    if provenance is not None and known:  # a trace that is no object: no step to check
        check_provenance(provenance, {"trace_id": known["trace_id"]}, known["steps"], known["manifest"], checked)
    return read.findings, checked.findings


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _fields_set(trace: dict[str, Any]) -> list[Any]:
    """Each step as the provenance rules read it: the names of its fields that are not null
    (a step that is no object stays as it is)."""
    steps = trace.get("steps")
    if not isinstance(steps, list):
        return []
    return [{k: True for k, v in s.items() if v is not None} if isinstance(s, dict) else s for s in steps]


def validate_trace(
    trace: dict[str, Any],
    *,
    manifest: dict[str, Any] | None = None,
    provenance: dict[str, Any] | None = None,
    folder: Path | None = None,
) -> list[Finding]:
    """Every finding about a parsed trace. `manifest`/`provenance` (parsed JSON) are checked
    when given; `folder` enables the checks against files on disk (artifacts/, manifest files)."""
    sink = Sink()
    if not isinstance(trace, dict):
        sink.add("F003", "the trace is not a JSON object")
        return sink.findings
    legacy = is_legacy(trace)
    check_top(trace, legacy, sink)
    window = check_trace_times(trace, sink)
    steps = trace["steps"] if isinstance(trace.get("steps"), list) else []
    counts = count_steps(steps)
    check_steps(trace, steps, window, legacy, sink)
    check_summary(trace, counts, sink)
    check_dataset_summary(trace, sink)
    artifacts = check_static_output(trace, counts.steps, legacy, sink)
    check_final_output(trace, counts, sink)
    if folder is not None:
        check_artifact_files(artifacts, folder, sink)
    if manifest is not None:
        check_manifest(manifest, trace, counts, folder, sink)
    if provenance is not None:
        check_provenance(provenance, trace, steps, manifest, sink)
    return sink.findings


def trace_stats(trace: Any) -> dict[str, Any]:
    """Counts worth printing next to the findings."""
    if not isinstance(trace, dict):
        return {}
    steps = trace["steps"] if isinstance(trace.get("steps"), list) else []
    c = count_steps(steps)
    summary = trace.get("summary")
    confidence = summary.get("agent_confidence") if isinstance(summary, dict) else None
    so = trace.get("static_output")
    artifacts = so.get("artifacts") if isinstance(so, dict) else None
    return {
        "steps": c.steps,
        "turns": c.turns,
        "confidence": confidence if is_int(confidence) else None,
        "user_messages": c.user_messages,
        "positive": c.positive,
        "negative": c.negative,
        "neutral": c.neutral,
        "artifacts": len(artifacts) if isinstance(artifacts, list) else 0,
    }


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):
        return False
