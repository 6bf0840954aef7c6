"""`forsy verify` says no when the trace and the log disagree: a changed byte of the
log, a changed value in trace.json, evidence that points at another span of the log, a log
that is gone. Each must give exit code 1 (ExitCode.INVALID) and a MISMATCH line naming the
problem; the untouched trace must verify clean first, so a "no" is never the only answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _small_logs import RETRY_SESSION, call, write
from forsy.cli import app
from forsy.errors import ExitCode
from forsy.run import RetraceOptions, retrace

runner = CliRunner()


@pytest.fixture
def traced(tmp_path: Path) -> tuple[Path, Path]:
    """(trace folder, logs folder) of the retry session, with steps 4 and 5 at the same second:
    their call records then differ only in uuid and message id, so the evidence of one moved
    onto the other resolves to the very same values."""
    recs = list(RETRY_SESSION)
    recs[7] = call(5, "a4", "r3", "t4", "Bash", {"command": "git status"})  # step 5, as step 4's time
    logs = tmp_path / "logs"
    logs.mkdir()
    write(logs / "s.jsonl", recs)
    out = tmp_path / "trace"
    retrace([logs / "s.jsonl"], RetraceOptions(out=out, redact=False))
    r = runner.invoke(app, ["verify", str(out), str(logs)])
    assert r.exit_code == ExitCode.OK and " 0 problem(s)" in r.output, r.output
    return out, logs


def _verify(out: Path, logs: Path) -> tuple[int, list[str]]:
    r = runner.invoke(app, ["verify", str(out), str(logs)])
    return r.exit_code, [line for line in r.output.splitlines() if line.startswith("MISMATCH")]


def _edit_json(path: Path, edit: Any) -> None:
    doc = json.loads(path.read_text("utf-8"))
    edit(doc)
    path.write_text(json.dumps(doc, indent=2), "utf-8")


def test_verify_reports_a_changed_byte_of_the_log_even_when_no_value_changes(traced: tuple[Path, Path]) -> None:
    out, logs = traced
    log = logs / "s.jsonl"
    *head, last, end = log.read_bytes().split(b"\n")
    # the first ": " of the last line becomes ":\t": the same JSON, the same length, other bytes
    changed = last.replace(b": ", b":\t", 1)
    assert changed != last and json.loads(changed) == json.loads(last) and end == b""
    log.write_bytes(b"\n".join([*head, changed, end]))
    code, problems = _verify(out, logs)
    assert code == ExitCode.INVALID
    assert problems == ["MISMATCH source s.jsonl changed since the trace was made (sha256 differs)"]


def test_verify_reports_a_changed_value_in_the_trace(traced: tuple[Path, Path]) -> None:
    out, logs = traced
    _edit_json(out / "trace.json", lambda t: t["steps"][1].update(output="F..\n0 failed, 3 passed"))
    code, problems = _verify(out, logs)
    assert code == ExitCode.INVALID
    assert len(problems) == 1 and problems[0].startswith("MISMATCH step 2 output: value differs from the log at ev_")


def test_verify_checks_the_traces_own_copied_fields_too(traced: tuple[Path, Path]) -> None:
    """The task and the final output are copied values as a step's are (before, only steps' were
    checked: a changed task verified clean)."""
    out, logs = traced
    prov = json.loads((out / "provenance.json").read_text("utf-8"))["trace_fields"]
    assert prov["task"]["origin"] == prov["final_output"]["origin"] == "copied"
    _edit_json(out / "trace.json", lambda t: t.update(task=t["task"] + " and deploy it"))
    code, problems = _verify(out, logs)
    assert code == ExitCode.INVALID
    assert len(problems) == 1 and problems[0].startswith("MISMATCH the trace's task: value differs from the log at ev_")


def test_verify_reports_evidence_moved_to_another_span_with_the_same_values(traced: tuple[Path, Path]) -> None:
    """Step 5's record (line 8) said to be at line 6's bytes: every copied value read there is
    the same, only the record's sha256 can tell."""
    out, logs = traced

    def move(prov: dict[str, Any]) -> None:
        ev = prov["evidence"]
        [line8] = [e for e in ev.values() if e["line"] == 8]
        [line6] = [e for e in ev.values() if e["line"] == 6]
        assert line8["byte_length"] == line6["byte_length"]
        line8.update(byte_offset=line6["byte_offset"], line=6)

    _edit_json(out / "provenance.json", move)
    code, problems = _verify(out, logs)
    assert code == ExitCode.INVALID
    assert problems and all(p.startswith("MISMATCH step 5 ") for p in problems), problems
    assert all(p.endswith("bytes at s.jsonl:6 do not match their sha256") for p in problems), problems


def test_verify_reports_evidence_shifted_by_one_byte(traced: tuple[Path, Path]) -> None:
    out, logs = traced
    _edit_json(out / "provenance.json",
               lambda p: [e.update(byte_offset=e["byte_offset"] + 1) for e in p["evidence"].values() if e["line"] == 2])
    code, problems = _verify(out, logs)
    assert code == ExitCode.INVALID
    assert problems and all(p.startswith("MISMATCH step 2 ") and p.endswith("s.jsonl:2 do not match their sha256")
                            for p in problems), problems


def test_verify_reports_a_missing_source(traced: tuple[Path, Path]) -> None:
    out, logs = traced
    (logs / "s.jsonl").unlink()
    code, problems = _verify(out, logs)
    assert code == ExitCode.INVALID
    assert problems == [f"MISMATCH source s.jsonl not found under {logs}"]


def test_verify_json_output_says_mismatch(traced: tuple[Path, Path]) -> None:
    out, logs = traced
    _edit_json(out / "trace.json", lambda t: t["steps"][0].update(input="Run the tests and leave them."))
    r = runner.invoke(app, ["verify", str(out), str(logs), "--json"])
    assert r.exit_code == ExitCode.INVALID
    doc = json.loads(r.output)
    assert doc["status"] == "mismatch" and len(doc["errors"]) == 1
    assert doc["errors"][0].startswith("step 1 input: value differs from the log at ev_")


def test_a_text_record_that_parses_as_json_verifies_as_written(tmp_path: Path) -> None:
    """A history line (or an Aider line) is text: `1e3` or `[1,  2]` typed at a prompt must
    verify against the bytes as written, not against their JSON reading (1000.0, [1, 2])."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / ".bash_history").write_text("1e3\n[1,  2]\n\"quoted\"\nls -la\n")
    out = tmp_path / "trace"
    retrace([logs / ".bash_history"], RetraceOptions(out=out, redact=False))
    steps = json.loads((out / "trace.json").read_text("utf-8"))["steps"]
    assert [s["input"] for s in steps] == ["1e3", "[1,  2]", '"quoted"', "ls -la"]
    code, mismatches = _verify(out, logs)
    assert (code, mismatches) == (ExitCode.OK, [])
    # and a changed value is still caught
    _edit_json(out / "trace.json", lambda d: d["steps"][0].update(input="1e4"))
    code, mismatches = _verify(out, logs)
    assert code != ExitCode.OK and len(mismatches) == 1 and "step 1 input" in mismatches[0]


def test_a_redacted_prompt_of_several_lines_verifies_against_its_lines(tmp_path: Path) -> None:
    """Aider keeps a prompt of several lines as one `+line` record each, blank lines too; with
    a secret in one line the trace's input holds a placeholder, and each unmasked part must
    still be found in the lines joined as the prompt was. A changed word is still caught."""
    logs = tmp_path / "logs"
    logs.mkdir()
    token = "ghp_" + "Zq4" * 12
    (logs / ".aider.input.history").write_text(
        "\n# 2026-01-01 10:00:00.000001\n+fix the build:\n+```\n+GITHUB_TOKEN=" + token + " make\n+\n"
        "+error: 401\n+```\n")
    out = tmp_path / "trace"
    retrace([logs / ".aider.input.history"], RetraceOptions(out=out))
    steps = json.loads((out / "trace.json").read_text("utf-8"))["steps"]
    prompt = next(s["input"] for s in steps if isinstance(s.get("input"), str) and "fix the build" in s["input"])
    assert token not in prompt and "[CREDENTIAL_1]" in prompt and "make\n\nerror: 401" in prompt
    assert _verify(out, logs) == (ExitCode.OK, [])
    _edit_json(out / "trace.json", lambda d: [s.update(input=s["input"].replace("401", "403"))
                                              for s in d["steps"] if s.get("input") == prompt])
    code, mismatches = _verify(out, logs)
    assert code != ExitCode.OK and len(mismatches) == 1 and "input" in mismatches[0]
