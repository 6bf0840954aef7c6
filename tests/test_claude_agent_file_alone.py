"""A Claude Code subagent's file retraced on its own, when some of its records are not marked
`isSidechain` (a field missing or of another type): it is read as a session, and the agent
files beside it are its parent's, never its own subagents. It was read twice (once as the
session, once as its own subagent), and the ledger counted its records twice: an invalid
trace (N009). Found by fuzzing the fixtures one field at a time."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from _paths import ROOT
from forsy.run import RetraceOptions, retrace_one
from forsy.sinks import FolderSink
from forsy.validation import validate_path

SESSION = ROOT / "tests" / "fixtures" / "claude" / "windows-session"
SID = "5e0c2a1f-7b3d-4c8e-9a6f-1d2e3f4a5b6c"


@pytest.mark.parametrize("value", [7, None, "yes", "drop"])
def test_a_subagent_file_with_an_unmarked_record_is_read_once(tmp_path: Path, value: object) -> None:
    shutil.copytree(SESSION, tmp_path / "s")
    agent = tmp_path / "s" / SID / "subagents" / "agent-a1b2c3d.jsonl"
    recs = [json.loads(line) for line in agent.read_text().splitlines()]
    if value == "drop":
        del recs[2]["isSidechain"]
    else:
        recs[2]["isSidechain"] = value
    agent.write_text("".join(json.dumps(r) + "\n" for r in recs))
    sink = FolderSink(tmp_path / "out", parent=False)
    [out] = retrace_one(agent, RetraceOptions(redact=False), sink=sink, keep=False)
    assert out.status == "written", out.message
    report = validate_path(out.where or "")
    assert report.errors == []
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert [f["path"] for f in manifest["ledger"]].count("agent-a1b2c3d.jsonl") == 1
    assert [f["records_read"] for f in manifest["ledger"] if f["path"] == "agent-a1b2c3d.jsonl"] == [len(recs)]
