"""What fuzzing real logs found stopping a whole run, or failing one file without its name:
a sniff that broke on a file's first bytes (a JSON value nested thousands deep) raised out of
the search for sessions, so `forsy retrace DIR` and `forsy sweep` ended with an internal error
and nothing written; and a file that met a bug failed a one-file run with exit 1, its error
naming no file. Each input is hand-made here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _paths import SAMPLES
from forsy import sources
from forsy.cli import app
from forsy.errors import ExitCode, UnsupportedFormat
from forsy.sources.lines import sniffs

DEMO = SAMPLES / "claude" / "demo-session.jsonl"
DEEP = 3000  # past Python's recursion limit (1000), as the stdlib's JSON parser nests


def _deep_array(path: Path) -> Path:
    # an array of chat messages whose first one holds a value nested DEEP levels
    path.write_text('[{"role": "user", "content": ' + "[" * DEEP + "]" * DEEP + "}]\n")
    return path


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    root.mkdir()
    shutil.copy(DEMO, root / "session.jsonl")
    _deep_array(root / "bad.json")
    return root


def test_a_sniff_that_breaks_says_no() -> None:
    def broken(path: Path, head: bytes) -> bool:
        raise RecursionError("maximum recursion depth exceeded")

    assert sniffs(broken, Path("x.json"), b"[") is False
    assert sniffs(lambda p, h: h.startswith(b"["), Path("x.json"), b"[") is True


def test_detect_goes_on_past_a_source_whose_sniff_breaks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import forsy.sources.base as base

    demo = tmp_path / "s.jsonl"
    shutil.copy(DEMO, demo)

    class Broken:
        name = "broken"

        def sniff(self, path: Path, head: bytes) -> bool:
            raise RecursionError("maximum recursion depth exceeded")

    real = base._each_available
    monkeypatch.setattr(base, "_each_available", lambda: iter([Broken(), *real()]))
    assert sources.detect(demo).name == "claude_code"  # the next source's, as without the broken one
    monkeypatch.setattr(base, "_each_available", lambda: iter([Broken()]))
    with pytest.raises(UnsupportedFormat):  # no source's: named as of no format forsy reads
        sources.detect(demo)


def test_a_file_nested_past_the_parser_does_not_stop_a_folders_retrace(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    r = CliRunner().invoke(app, ["retrace", str(root), "-o", str(tmp_path / "out"), "--no-redact"])
    assert r.exit_code == ExitCode.PARTIAL, r.output
    assert "internal error" not in r.output
    assert "1 written" in r.output and str(root / "bad.json") in r.output
    assert len([p for p in (tmp_path / "out").iterdir() if p.is_dir()]) == 1


def test_nor_a_sweep(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    r = CliRunner().invoke(app, ["sweep", str(root), "--store", f"sqlite:///{tmp_path / 's.db'}", "--now"])
    assert r.exit_code == ExitCode.PARTIAL, r.output
    assert "internal error" not in r.output and "1 draft(s) written" in r.output
    assert str(root / "bad.json") in r.output


def test_a_bug_met_in_one_file_is_an_internal_error_naming_it(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    demo = tmp_path / "s.jsonl"
    shutil.copy(DEMO, demo)
    src = sources.detect(demo)

    def read(self: object, path: Path, ctx: object) -> object:
        raise RuntimeError("a reader's own bug")

    monkeypatch.setattr(type(src), "read", read)
    r = CliRunner().invoke(app, ["retrace", str(demo), "-o", str(tmp_path / "out"), "--no-redact"])
    assert r.exit_code == ExitCode.INTERNAL, r.output  # it was 1: the error's class default
    assert f"{demo}: internal error: RuntimeError: a reader's own bug" in r.output


def test_a_file_beside_it_that_may_not_be_read_fails_the_file_as_input_not_as_a_bug(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader that meets a companion file or folder the user may not read (an OSError naming a
    path) fails that file as unreadable input, naming both, and the run goes on: it was an
    internal error, exit 70, asking to report a bug."""
    demo, other = tmp_path / "s.jsonl", tmp_path / "b" / "s.jsonl"
    shutil.copy(DEMO, demo)
    other.parent.mkdir()
    shutil.copy(DEMO, other)
    src = sources.detect(demo)
    real = type(src).read

    def read(self: object, path: Path, ctx: object) -> object:
        if path == demo:
            raise PermissionError(13, "Permission denied", str(tmp_path / "locked"))
        return real(self, path, ctx)  # type: ignore[arg-type]

    monkeypatch.setattr(type(src), "read", read)
    r = CliRunner().invoke(app, ["retrace", str(demo), "-o", str(tmp_path / "out"), "--no-redact"])
    assert r.exit_code == ExitCode.INPUT, r.output
    assert f"{demo}: could not read {tmp_path / 'locked'}: Permission denied" in r.output
    assert "internal error" not in r.output
    r = CliRunner().invoke(app, ["retrace", str(tmp_path), "-o", str(tmp_path / "out2"), "--no-redact"])
    assert r.exit_code == ExitCode.PARTIAL and "1 written" in r.output, r.output


DEEP_ARGS = '{"cmd": ["ls"], "x": ' + "[" * 900 + "]" * 900 + "}"  # JSON orjson reads (< 1024 levels)


def test_call_arguments_nested_past_what_forsy_walks_stay_text(tmp_path: Path) -> None:
    """A Codex call whose arguments parse but nest 900 deep: the redactor's walk of them ended in
    an internal error for the file (RecursionError); they are kept as the text they are, and said."""
    import json

    from forsy.sources.cline._ui_only import _json
    from forsy.sources.codex._text import json_args

    assert json_args(DEEP_ARGS) == (DEEP_ARGS, False)
    assert json_args('{"cmd": ["ls"]}') == ({"cmd": ["ls"]}, True)
    assert _json(DEEP_ARGS) is None
    rollout = SAMPLES / "codex" / "rollout-2025-11-20T10-00-00-7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl"
    lines = rollout.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if json.loads(line).get("payload", {}).get("type") == "function_call")
    rec = json.loads(lines[at])
    rec["payload"]["arguments"] = DEEP_ARGS
    lines[at] = json.dumps(rec)
    log = tmp_path / rollout.name
    log.write_text("\n".join(lines) + "\n")
    r = CliRunner().invoke(app, ["retrace", str(log), "-o", str(tmp_path / "out")])  # redaction on
    assert r.exit_code == ExitCode.OK, r.output
    assert "nest deeper than forsy reads" in r.output
