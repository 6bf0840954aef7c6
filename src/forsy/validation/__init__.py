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

The package: `check` (the entry points above and `Report`), `_json` (reading the folder's
JSON files), `_base` (findings and the rule catalogue), and the rules by part of the folder:
`_parts` (top level, summaries, artifacts), `_steps`, `_folder` (manifest, artifacts/ on
disk), `_provenance` and `_ledger`.
"""

from __future__ import annotations

from ._base import RULES, Finding, Rule, Severity, catalogue_markdown, rule_catalogue
from ._parts import is_legacy
from .check import Report, validate_files, validate_path, validate_trace

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
