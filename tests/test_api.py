"""The pinned public API (`forsy.__all__`), the library's one-session-at-a-time run, and the
exit codes defined once (errors.ExitCode) and documented in the README."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import forsy
from forsy.errors import ExitCode

ROOT = Path(__file__).resolve().parents[1]


def _session(sid: str) -> str:
    recs = [
        {"type": "user", "uuid": f"{sid}-u", "parentUuid": None, "sessionId": sid, "cwd": "/w/proj",
         "timestamp": "2026-01-01T10:00:00Z", "message": {"role": "user", "content": f"task {sid}"}},
        {"type": "assistant", "uuid": f"{sid}-a", "parentUuid": f"{sid}-u", "sessionId": sid,
         "timestamp": "2026-01-01T10:00:01Z",
         "message": {"id": f"m-{sid}", "role": "assistant", "content": [{"type": "text", "text": "done"}]}},
    ]
    return "".join(json.dumps(r) + "\n" for r in recs)


def test_all_is_exactly_the_exports_and_each_resolves() -> None:
    assert sorted(forsy.__all__) == sorted(["__version__", *forsy._EXPORTS])
    for name in forsy.__all__:
        assert getattr(forsy, name) is not None, name
    with pytest.raises(AttributeError):
        _ = forsy.no_such_name  # type: ignore[attr-defined]


def test_library_run_keeps_traces_in_memory_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.jsonl").write_text(_session("a"))
    run = forsy.retrace([str(tmp_path / "a.jsonl")], forsy.RetraceOptions(redact=False))  # str paths
    [o] = run.outcomes
    assert o.status == "traced" and o.where is None and o.assembled is not None
    assert o.assembled.trace.steps[0].input == "task a"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl"]


def test_a_broken_session_is_an_outcome_not_an_exception(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_text(_session("a"))
    (logs / "b.jsonl").write_bytes(b"\xff\xfe not json \x00\n")
    (logs / "c.jsonl").write_text(_session("c"))
    [o] = forsy.retrace_one(logs / "b.jsonl", forsy.RetraceOptions(redact=False))
    assert o.status == "failed" and o.exit_code == ExitCode.UNSUPPORTED and o.path.endswith("b.jsonl")
    run = forsy.retrace([logs], forsy.RetraceOptions(redact=False))
    assert [o.status for o in run.outcomes] == ["traced", "failed", "traced"]
    assert run.exit_code == ExitCode.PARTIAL


def test_a_sink_gets_one_trace_at_a_time_and_the_run_keeps_none(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for sid in ("a", "b"):
        (logs / f"{sid}.jsonl").write_text(_session(sid))

    class Recorder:
        def __init__(self) -> None:
            self.ids: list[str] = []

        def write(self, assembled: object, session: object) -> str:
            self.ids.append(assembled.trace.trace_id)  # type: ignore[attr-defined]
            return f"mem:{len(self.ids)}"

    rec = Recorder()
    run = forsy.retrace([logs], forsy.RetraceOptions(redact=False), sink=rec, keep=False)
    assert [o.where for o in run.outcomes] == ["mem:1", "mem:2"]
    assert [o.trace_id for o in run.outcomes] == rec.ids
    assert all(o.assembled is None and o.session is None for o in run.outcomes)


def test_readme_exit_code_table_is_errors_exitcode() -> None:
    text = (ROOT / "README.md").read_text()
    table = text[text.index("| code | meaning |"):]
    table = table[: table.index("\n\n")]
    codes = [int(m) for m in re.findall(r"^\| (\d+) \|", table, re.M)]
    assert codes == sorted(int(c) for c in ExitCode)


def test_every_error_class_exits_with_a_code_of_the_table() -> None:
    for name in ("ForsyError", "InputError", "UnsupportedFormat", "NoWork", "ParseError", "ValidationError",
                 "RedactionError", "LLMError", "OutputError"):
        assert getattr(forsy, name).exit_code in set(ExitCode), name
    assert forsy.NoWork.exit_code == ExitCode.INPUT  # "no work in the log" is unusable input, as the README says


def test_the_readme_api_snippet_runs_as_written(tmp_path: Path) -> None:
    """The README's Python block, run from a folder holding the shipped samples (as a fresh clone
    is), prints the demo session's steps and a written trace that validates and verifies."""

    import subprocess
    import sys

    text = (ROOT / "README.md").read_text()
    [code] = re.findall(r"```python\n(.*?)```", text, re.S)
    (tmp_path / "sample_logs").symlink_to(ROOT / "sample_logs")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].endswith("demo-session.jsonl traced 9") and lines[-1] == "True True", r.stdout


def test_validate_and_verify_stay_callable_whatever_is_imported() -> None:
    """`forsy.validate(path)` and `forsy.verify(path, roots)` as documented, even after every
    module of forsy was imported (a submodule of the same name used to replace the function)."""
    import importlib
    import pkgutil
    import types

    for m in pkgutil.walk_packages(forsy.__path__, "forsy."):
        if m.name.endswith("__main__") or m.name.startswith(("forsy.dataset", "forsy.cli.dataset")):
            continue
        importlib.import_module(m.name)
    assert callable(forsy.validate) and not isinstance(forsy.validate, types.ModuleType)
    assert callable(forsy.verify) and not isinstance(forsy.verify, types.ModuleType)


def test_a_run_tells_skipped_from_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import forsy.run.session as session_stage

    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"type": "summary", "summary": "x", "leafUuid": "q"}) + "\n")
    samples = Path(__file__).resolve().parents[1] / "sample_logs" / "claude"
    demo, other = samples / "demo-session.jsonl", samples / "compaction-and-branches.jsonl"
    real = session_stage.process

    def process(session, options, redactor):  # type: ignore[no-untyped-def]
        if session.files and session.files[0].abs_path == str(other):
            raise RuntimeError("broken on purpose")
        return real(session, options, redactor)

    monkeypatch.setattr(session_stage, "process", process)
    run = forsy.retrace([demo, empty, other])
    assert [o.status for o in run.outcomes] == ["traced", "skipped", "failed"]
    assert [o.path for o in run.skipped] == [str(empty)] and [o.path for o in run.failed] == [str(other)]
