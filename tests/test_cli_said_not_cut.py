"""What the terminal shows in part, it says it shows in part: a log record longer than a step's
view shows under `forsy show --step` says how much more there is and where it is whole; `forsy
verify` names how many mismatches it did not list (the count line may be left out by --quiet)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _review import cli
from forsy import verification
from forsy.verification import VerifyReport


def _session(folder: Path, output: str) -> Path:
    folder.mkdir()
    base = {"sessionId": "s1", "cwd": "/w", "version": "2.1.0", "isSidechain": False, "userType": "external"}
    recs = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-01-01T10:00:00Z",
         "message": {"role": "user", "content": "print it"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-01-01T10:00:01Z",
         "message": {"id": "m1", "role": "assistant", "model": "claude-x", "content": [
             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cat big"}}]}},
        {**base, "type": "user", "uuid": "u2", "parentUuid": "a1", "timestamp": "2026-01-01T10:00:02Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": output}]}},
    ]
    log = folder / "s1.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in recs), "utf-8")
    return log


def test_a_long_record_under_a_step_says_how_much_is_not_shown(tmp_path: Path) -> None:
    log = _session(tmp_path / "logs", "x" * 2500)
    out = tmp_path / "trace"
    assert cli("retrace", str(log), "-o", str(out), "--no-redact", "-q")[0] == 0
    code, shown, _ = cli("show", str(out), "--step", "2", "--logs", str(log.parent))
    assert code == 0
    record = len(json.dumps(json.loads(log.read_text("utf-8").splitlines()[2])))  # the record's text as shown
    assert record > 2500 and shown.endswith(
        f"\n    … {record - 2000} more character(s) of this record (forsy render writes it whole)\n"), shown[-400:]


def test_verify_names_the_mismatches_it_does_not_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    problems = [f"step {n} output: value differs from the log at e{n}" for n in range(1, 54)]
    monkeypatch.setattr(verification, "verify_folder", lambda folder, logs: VerifyReport(99, problems))
    code, out, _ = cli("verify", str(tmp_path), str(tmp_path), "-q")
    lines = out.splitlines()
    assert code == 1 and len(lines) == 51 and lines[:50] == [f"MISMATCH {p}" for p in problems[:50]]
    assert lines[50] == "MISMATCH … and 3 more (--json lists them all)"
