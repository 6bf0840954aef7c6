"""Golden traces: every shipped sample log retraced (redaction on, as a user runs it) must give
byte-identical trace.json, manifest.json, provenance.json and README.md to tests/golden/.

An intended change of output updates them with one command, whose diff is then reviewed:

    .venv/bin/python -m pytest tests/test_golden.py --update-golden
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _paths import ROOT, SAMPLES
from forsy.errors import ForsyError
from forsy.run import RetraceOptions, retrace_one
from forsy.sinks.folder import render
from forsy.sources import detect

GOLDEN = ROOT / "tests" / "golden"
WRITTEN = ("trace.json", "manifest.json", "provenance.json", "README.md")


def _samples() -> list[Path]:
    out = []
    for p in sorted(SAMPLES.rglob("*")):
        if not p.is_file() or p.suffix in (".py", ".md"):
            continue
        try:
            detect(p)
        except ForsyError:
            continue
        out.append(p)
    return out


SAMPLE_FILES = _samples()


def _key(p: Path) -> str:
    return p.relative_to(SAMPLES).as_posix().replace("/", "__")


def test_every_sample_log_has_a_golden_trace() -> None:
    assert len(SAMPLE_FILES) >= 12  # the shipped samples: Claude Code, Codex, shell histories
    if GOLDEN.is_dir():
        stale = {d.name for d in GOLDEN.iterdir()} - {_key(p) for p in SAMPLE_FILES}
        assert not stale, f"golden traces of samples that no longer exist: {sorted(stale)}"


@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=_key)
def test_sample_retraces_to_its_golden_trace(sample: Path, update_golden: bool) -> None:
    [outcome] = retrace_one(sample, RetraceOptions())
    assert outcome.status == "traced" and outcome.assembled is not None, outcome.message
    files = render(outcome.assembled)
    gold = GOLDEN / _key(sample)
    if update_golden:
        gold.mkdir(parents=True, exist_ok=True)
        for name in WRITTEN:
            (gold / name).write_bytes(files[name])
        return
    assert gold.is_dir(), f"no golden trace for {sample.name}: run pytest tests/test_golden.py --update-golden"
    for name in WRITTEN:
        assert files[name] == (gold / name).read_bytes(), f"{sample.name}: {name} differs from tests/golden"
