"""The scaffolding of the sources' oracle tests: trace a log, check every trace folder made
(validate, verify against the log's folder), and list its steps as the oracles list the raw
log's: ("user", text) and ("call", tool, arguments, output)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import forsy
from forsy.validation import validate_path
from forsy.verification import verify_folder


def checked_traces(out: Path, log: Path, roots: list[Path] | None = None) -> list[dict[str, Any]]:
    """Every trace.json under `out`, each folder validated and verified against `log`'s folder
    (or the `roots` given, when the logs read sit in several folders)."""
    traces = []
    for t in sorted(out.rglob("trace.json")):
        rep = validate_path(t.parent)
        assert not rep.errors, [str(e) for e in rep.errors]
        ver = verify_folder(t.parent, roots or [log.parent])
        assert ver.ok, ver.problems
        traces.append(json.loads(t.read_text("utf-8")))
    return traces


def retrace(path: Path, out: Path) -> list[dict[str, Any]]:
    """Trace folders of every session in `path` (through the API), each checked."""
    run = forsy.retrace([path], forsy.RetraceOptions(redact=False), sink=forsy.FolderSink(out, parent=True))
    assert not run.failed, [o.message for o in run.failed]
    return checked_traces(out, path)


def from_trace(trace: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The trace's prompts and tool calls, in step order, in the oracles' shape."""
    out: list[tuple[Any, ...]] = []
    for st in trace["steps"]:
        if st["action"] == "user_message":
            out.append(("user", st["input"]))
        elif st.get("tool"):
            out.append(("call", st["tool"], json.loads(st["input"]), st["output"]))
    return out
