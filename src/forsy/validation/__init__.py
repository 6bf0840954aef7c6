"""`forsy validate`: check a Forsy trace (`forsy-trace-v0.1`) against every rule a program can check.

    report = validate_path(Path("out/my-trace"))        # a folder, or a trace.json
    for f in report.findings: print(f)                  # "error S005 step 3: ..."
    report.ok                                           # no errors (warnings allowed)

    findings = validate_trace(trace_dict)               # a trace already in memory
    report = validate_files({"trace.json": b"...", ...})  # a folder held in memory

Nothing here raises on bad input: an unreadable file, a JSON list, a string where an object
belongs, a number written as a string — each is a `Finding` with a stable rule id from
`rule_catalogue()` (documented in docs/validation.md). The rules are at least as strict as
the independent checker `shared/tools/forsy_check.py spec`, and stricter where the format
lets a program check more (types, hashes, manifest and provenance against the files).

Legacy traces (`forsy-v1`, `forsy-v2`: `step_index`, `collection_id`, static_output as a JSON
string, ...) are read too; `Report.legacy` is set and the findings say what they lack.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._gc import gc_paused
from ._base import RULES, Finding, Rule, Severity, Sink, is_int
from ._folder import check_artifact_files, check_manifest, check_provenance
from ._parts import (
    check_dataset_summary,
    check_final_output,
    check_static_output,
    check_summary,
    check_top,
    check_trace_times,
    is_legacy,
)
from ._steps import check_steps, count_steps

__all__ = [
    "RULES",
    "Finding",
    "Report",
    "Rule",
    "Severity",
    "catalogue_markdown",
    "is_legacy",
    "rule_catalogue",
    "validate_files",
    "validate_path",
    "validate_trace",
]


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


def rule_catalogue() -> dict[str, str]:
    """Rule id -> one-line description, in catalogue order. Severities are in `RULES`."""
    return {rid: rule.summary for rid, rule in RULES.items()}


def catalogue_markdown() -> str:
    """The rule table of docs/validation.md, generated from the catalogue."""
    rows = ["| Rule | Severity | Meaning |", "|---|---|---|"]
    rows += [f"| {r.id} | {r.severity} | {r.summary.replace('|', '/')} |" for r in RULES.values()]
    return "\n".join(rows) + "\n"


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
    sink = Sink()
    folder = path if _is_dir(path) else None
    trace = _load_json(path / "trace.json" if folder else path, sink, ("F001", "F002", "F003"))
    if trace is None:
        return Report(str(path), sink.findings, False, {})
    manifest = provenance = None
    if folder is not None:
        if _exists(folder / "manifest.json"):
            manifest = _load_json(folder / "manifest.json", sink, ("N002",) * 3)
        else:
            sink.add("N001", "the trace folder has no manifest.json", field="manifest")
        if _exists(folder / "provenance.json"):
            provenance = _load_json(folder / "provenance.json", sink, ("P001",) * 3)
    sink.findings += validate_trace(trace, manifest=manifest, provenance=provenance, folder=folder)
    return Report(str(path), sink.findings, is_legacy(trace), trace_stats(trace))


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


def _load_json(path: Path, sink: Sink, rules: tuple[str, str, str]) -> dict[str, Any] | None:
    """Parse a JSON object file; `rules` are the ids for unreadable, not JSON, not an object."""
    unreadable, invalid, not_object = rules
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        sink.add(unreadable, f"cannot read {path.name}: {exc}", field=path.name)
        return None
    duplicates: list[str] = []
    try:
        value = json.loads(text, object_pairs_hook=_pairs_hook(duplicates), parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        sink.add(invalid, f"{path.name} is not valid JSON: {exc}", field=path.name)
        return None
    for key in dict.fromkeys(duplicates):
        sink.add("F004", f"{path.name} repeats the key {key!r} in an object", field=path.name)
    if not isinstance(value, dict):
        kind = type(value).__name__ if value is not None else "null"
        sink.add(not_object, f"{path.name} holds a JSON {kind}, not an object", field=path.name)
        return None
    return value


def _pairs_hook(duplicates: list[str]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    # json.loads keeps the last of repeated keys without a word; we want to say so
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj:
                duplicates.append(key)
            obj[key] = value
        return obj

    return hook


def _reject_constant(name: str) -> Any:
    # NaN and Infinity are accepted by Python's json but are not JSON
    raise ValueError(f"{name} is not a JSON value")
