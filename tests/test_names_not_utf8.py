"""A log whose file or folder name holds bytes that are not UTF-8 is traced like any other, with
redaction on or off: the name is written as text (each such byte U+FFFD), and the evidence ids
are the same either way. Such names (a Latin-1 `résumé`, a name cut mid-character by a tool)
stopped the trace with an internal error: without redaction for every kind, and with it for
the readers that make a session's id from its file name (shell histories)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _paths import ROOT
from forsy.cli import app
from forsy.ids import make_id

SAMPLES = ROOT / "sample_logs"
KINDS = {
    "claude": SAMPLES / "claude" / "demo-session.jsonl",
    "codex": SAMPLES / "codex" / "rollout-2025-11-20T10-00-00-7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl",
    "bash": SAMPLES / "shell" / "epoch.bash_history",
    "zsh": SAMPLES / "shell" / "extended.zsh_history",
    "fish": SAMPLES / "shell" / "sample.fish_history",
}


def _odd(name: str) -> str:
    """`name` with a Latin-1 é (one byte, not UTF-8) before its first dot: what Python holds
    for such a name read from a folder (a surrogate escape)."""
    stem, dot, rest = name.partition(".")
    return os.fsdecode(stem.encode() + b"\xe9" + dot.encode() + rest.encode())


def _text(name: str) -> str:
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _retrace(target: Path, out: Path, *flags: str) -> tuple[dict[str, object], dict[str, object]]:
    r = CliRunner().invoke(app, ["retrace", str(target), "-o", str(out), "-q", *flags])
    assert r.exit_code == 0, r.output
    return (json.loads((out / "trace.json").read_bytes()), json.loads((out / "provenance.json").read_bytes()))


def _sources(provenance: dict[str, object]) -> set[str]:
    evidence = provenance["evidence"]
    assert isinstance(evidence, dict)
    return {ev["source"] for ev in evidence.values()}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_file_whose_name_is_not_utf8_is_traced_with_redaction_on_and_off(tmp_path: Path, kind: str) -> None:
    src = KINDS[kind]
    log = tmp_path / _odd(src.name)
    shutil.copyfile(src, log)
    plain_trace, plain = _retrace(log, tmp_path / "plain", "--no-redact")
    masked_trace, masked = _retrace(log, tmp_path / "masked")
    assert plain_trace["steps"] and len(plain_trace["steps"]) == len(masked_trace["steps"])  # type: ignore[arg-type]
    written = log.name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    assert "\ufffd" in written and _sources(plain) == _sources(masked) == {written}
    assert plain["evidence"].keys() == masked["evidence"].keys()  # type: ignore[attr-defined]
    assert plain_trace["trace_id"] == masked_trace["trace_id"]  # made of the session id and the bytes read


def test_a_folder_whose_names_are_not_utf8_is_walked_and_named_as_text(tmp_path: Path) -> None:
    root = tmp_path / _odd("logs")
    for n, src in enumerate(sorted(KINDS.values())):
        sub = root / _odd(f"project{n}.d")
        sub.mkdir(parents=True)
        shutil.copyfile(src, sub / _odd(src.name))
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["retrace", str(root), "-o", str(out), "-q", "--no-redact"])
    assert r.exit_code == 0, r.output
    traces = sorted(p for p in out.iterdir() if (p / "trace.json").is_file())
    assert len(traces) == len(KINDS)
    named = [_sources(json.loads((p / "provenance.json").read_bytes())) for p in traces]
    assert sorted(map(sorted, named)) == sorted([_text(_odd(src.name))] for src in KINDS.values())  # each read whole


def test_an_id_made_of_a_name_that_is_not_utf8_is_the_id_of_the_name_as_written() -> None:
    odd = os.fsdecode(b"r\xe9sum\xe9.bash_history")
    assert make_id("shell", odd, "abc") == make_id("shell", "r\ufffdsum\ufffd.bash_history", "abc")
    assert make_id("shell", "plain", "abc") != make_id("shell", odd, "abc")
