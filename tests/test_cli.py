"""The command line as a user meets it: exit codes, messages, no tracebacks, determinism."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _paths import REAL_LOGS, needs_shared
from forsy.cli import app

runner = CliRunner()

SESSION = [
    {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s-1", "version": "2.1.38",
     "cwd": "/home/dev/proj", "timestamp": "2026-01-01T10:00:00.000Z",
     "message": {"role": "user", "content": "List the files please"}},
    {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s-1",
     "timestamp": "2026-01-01T10:00:01.000Z",
     "message": {"id": "msg_1", "role": "assistant", "model": "claude-test",
                 "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]}},
    {"type": "user", "uuid": "r1", "parentUuid": "a1", "sessionId": "s-1", "timestamp": "2026-01-01T10:00:02.000Z",
     "message": {"role": "user",
                 "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py\nb.py"}]},
     "toolUseResult": {"stdout": "a.py\nb.py", "stderr": "", "interrupted": False}},
    {"type": "assistant", "uuid": "a2", "parentUuid": "r1", "sessionId": "s-1", "timestamp": "2026-01-01T10:00:03.000Z",
     "message": {"id": "msg_2", "role": "assistant", "model": "claude-test",
                 "content": [{"type": "text", "text": "There are two files: a.py and b.py."}]}},
]


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    p = tmp_path / "s-1.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in SESSION), encoding="utf-8")
    return p


def test_help_explains_commands() -> None:
    r = runner.invoke(app, ["--help"])
    assert r.exit_code == 0
    for cmd in ("retrace", "validate", "schema", "verify"):
        assert cmd in r.output
    r = runner.invoke(app, ["retrace", "--help"])
    assert r.exit_code == 0 and "--no-redact" in r.output and "--history" in r.output


def test_retrace_writes_folder_and_summary(session_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "trace"
    r = runner.invoke(app, ["retrace", str(session_file), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    assert "3 steps" in r.output and "confidence" in r.output
    for name in ("trace.json", "manifest.json", "provenance.json", "README.md"):
        assert (out / name).is_file()
    trace = json.loads((out / "trace.json").read_text())
    assert [s["action"] for s in trace["steps"]] == ["user_message", "agent_step", "output"]
    assert trace["steps"][1]["input"] == '{"command":"ls"}'
    assert trace["steps"][1]["output"] == "a.py\nb.py"
    assert trace["final_output"] == "There are two files: a.py and b.py."
    assert runner.invoke(app, ["validate", str(out)]).exit_code == 0
    r = runner.invoke(app, ["verify", str(out), str(session_file.parent)])
    assert r.exit_code == 0, r.output


def test_same_input_gives_byte_identical_output(session_file: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        assert runner.invoke(app, ["retrace", str(session_file), "-o", str(d), "--no-redact"]).exit_code == 0
    for name in ("trace.json", "manifest.json", "provenance.json", "README.md"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_rerun_replaces_folder(session_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "t"
    for _ in range(2):
        assert runner.invoke(app, ["retrace", str(session_file), "-o", str(out), "--no-redact"]).exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s-1.jsonl", "t"]  # no temp folders left


def test_unsupported_file_is_a_clear_error(tmp_path: Path) -> None:
    p = tmp_path / "notes.txt"
    p.write_text("just some notes\nnothing to see\n")
    r = runner.invoke(app, ["retrace", str(p), "-o", str(tmp_path / "o")])
    assert r.exit_code == 3
    assert str(p) in r.output and "not a log format" in r.output
    assert "Traceback" not in r.output


def test_missing_path_exit_2(tmp_path: Path) -> None:
    r = runner.invoke(app, ["retrace", str(tmp_path / "nope.jsonl")])
    assert r.exit_code == 2 and "no such file" in r.output
    assert runner.invoke(app, ["validate", str(tmp_path / "nope")]).exit_code == 2


def test_validate_reports_broken_trace(session_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "trace"
    runner.invoke(app, ["retrace", str(session_file), "-o", str(out), "--no-redact"])
    t = json.loads((out / "trace.json").read_text())
    t["steps"][0]["eval"] = 1  # user messages are always eval 0
    (out / "trace.json").write_text(json.dumps(t))
    r = runner.invoke(app, ["validate", str(out / "trace.json")])
    assert r.exit_code == 1 and "step 1" in r.output


def test_schema_is_json_schema() -> None:
    r = runner.invoke(app, ["schema"])
    assert r.exit_code == 0
    s = json.loads(r.output)
    step = s["$defs"]["Step"]
    assert len(step["properties"]) == 28 and len(step["required"]) == 28


@needs_shared
@pytest.mark.real_logs
def test_every_real_log_kind_is_read_or_named_as_not_read() -> None:
    """A folder of every agent's real logs: each kind is found by its source, and what is
    not read is named (the ATIF repository's training export, which is no trajectory, and the
    OpenHands evaluation's fixtures are read; nothing else is left)."""
    from forsy.run import discover

    unread: list[tuple[Path, str]] = []
    found = discover([REAL_LOGS], unread)
    kinds = {src.name for src, _ in found}
    dirs = {p.name for p in REAL_LOGS.iterdir() if p.is_dir()}
    assert "claude_code" in kinds
    assert dirs - {"claude"} <= kinds  # every other folder is named after its source
    assert sorted(p.name for p, _ in unread) == ["hello-world-context-summarization.traces.json"], unread


def test_console_script_runs(session_file: Path, tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "forsy.cli", "retrace", str(session_file), "-o", str(tmp_path / "x"),
                        "--no-redact"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr




def test_a_session_given_twice_is_written_once_and_the_copy_named(session_file: Path, tmp_path: Path) -> None:
    """A copy of a log in another folder makes the very same trace (ids are content hashes):
    written once, the copy reported as skipped naming the first; the run said '2 written' of
    one folder, the second write replacing the first."""
    backup = tmp_path / "backup"
    backup.mkdir()
    copy = backup / session_file.name
    copy.write_bytes(session_file.read_bytes())
    out = tmp_path / "out"
    r = runner.invoke(app, ["retrace", str(session_file), str(backup), "-o", str(out), "--verbose", "--json"])
    assert r.exit_code == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(x["input"], x["status"]) for x in lines] == [(str(session_file), "written"), (str(copy), "skipped")]
    assert lines[1]["message"] == f"the same trace as {session_file} (an identical session), written to " \
        f"{lines[0]['path']}"
    assert len(list(out.iterdir())) == 1
    assert "1 written, 1 skipped (1 the same trace as another input)" in r.stderr


def test_warnings_past_the_first_five_say_where_the_rest_are(session_file: Path, tmp_path: Path) -> None:
    """A written trace keeps its reading warnings in its manifest.json; a file that failed has no
    folder, so the line must not send the user to `<the log>/manifest.json`."""
    logs = tmp_path / "logs"
    logs.mkdir()
    noisy = logs / "noisy.jsonl"  # a session with seven lines that are not JSON: written, 7 warnings
    noisy.write_text(session_file.read_text() + "not json\n" * 7)
    broken = logs / "broken.jsonl"  # nothing readable at all: failed, with its warnings
    broken.write_text("not json\n" * 7)
    out = tmp_path / "out"
    r = runner.invoke(app, ["retrace", str(logs), "-o", str(out)])
    assert r.exit_code == 7, r.stderr  # one written, one failed
    [folder] = list(out.iterdir())
    assert f"  … 2 more in {folder}/manifest.json (--verbose lists them)" in r.stderr
    assert "  … 2 more (--verbose lists them)" in r.stderr
    assert "broken.jsonl/manifest.json" not in r.stderr


def test_standard_input_is_named_so_never_by_its_removed_spool_file(session_file: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["retrace", "-", "-o", str(tmp_path / "out"), "--json"], input=session_file.read_bytes())
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["input"] == "<stdin>"
    r = runner.invoke(app, ["retrace", "-", "-o", str(tmp_path / "out2")], input=b"hello\n")
    assert r.exit_code == 3
    assert r.stderr.startswith("forsy: error: <stdin>: not a log format forsy reads"), r.stderr
    assert "forsy-stdin-" not in r.stderr
