"""Every source, one field of one record at a time: whatever a log holds, forsy refuses the
file with a ForsyError or writes a trace that validates. Never an internal error, never an
invalid trace (a ledger that counts a record twice, an empty task...).

The logs are the JSON and JSON Lines files of tests/fixtures and sample_logs (always) and of
../shared/real_logs (skipped when absent). Each file gets a fixed number of mutations chosen
by a seeded generator from the file's name, so a run is the same every time and a failure
names the file, the field and the value. Each mutation is one field (a key's value, a list
element, a whole record) replaced by a value of another kind. The file is mutated in a copy
of its folder, so the files beside it (a session's subagents, a Cline task's other files,
a Gemini project's logs.json) are read as they would be.

(The Claude Code and Codex readers have deeper fuzzers of their own: test_fuzz_fields.py and
test_fuzz_codex.py; this one is the same promise for every source, end to end.)
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _paths import REAL_LOGS, ROOT, SAMPLES
from forsy.run import RetraceOptions, retrace_one
from forsy.sinks import FolderSink
from forsy.validation import validate_path

FIXTURES = ROOT / "tests" / "fixtures"
HOSTILE: list[Any] = [None, 7, -1, 2**70, 1.5, "", " ", "x", [], {}, True, [[[["deep"]]]],
                      {"a": {"b": [1, {"c": None}]}}, "9" * 300]
PER_FILE = 12  # mutations of each fixture
PER_REAL_LOG = 4  # of each real log (there are many)
MAX_BYTES = 400_000  # larger real logs are left to the readers' own tests


def _logs(base: Path) -> list[Path]:
    if not base.is_dir():
        return []
    return sorted(p for p in base.rglob("*") if p.suffix in (".json", ".jsonl", ".cast") and p.is_file()
                  and 0 < p.stat().st_size <= MAX_BYTES and not p.name.startswith("README"))


def _parse(data: bytes) -> tuple[str, Any] | None:
    try:
        return "json", json.loads(data)
    except ValueError:
        pass
    try:
        return "jsonl", [json.loads(line) for line in data.splitlines() if line.strip()]
    except ValueError:
        return None


def _places(value: Any, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield here
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _places(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:8]):
            yield from _places(v, (*here, i))


def _put(doc: Any, place: tuple[Any, ...], value: Any) -> None:
    for p in place[:-1]:
        doc = doc[p]
    doc[place[-1]] = value


def _cases(files: list[Path], base: Path, per_file: int) -> list[Any]:
    out = []
    for f in files:
        parsed = _parse(f.read_bytes())
        if parsed is None:
            continue
        fmt, doc = parsed
        places = [p for p in _places(doc) if p] if fmt == "json" else [
            (i, *p) for i, rec in enumerate(doc) for p in _places(rec)]
        rng = random.Random(hashlib.sha256(str(f.relative_to(base)).encode()).digest())
        for place in rng.sample(places, min(per_file, len(places))):
            value = rng.choice(HOSTILE)
            out.append(pytest.param(base, f, place, value, id=f"{f.relative_to(base)}:{list(place)}={value!r:.20}"))
    return out


def _check(tmp_path: Path, base: Path, f: Path, place: tuple[Any, ...], value: Any) -> None:
    rel = f.relative_to(base)
    top = base / rel.parts[0]
    copy = tmp_path / "in"
    if top.is_dir():
        shutil.copytree(top, copy / rel.parts[0], symlinks=True)
    target = copy / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    parsed = _parse(f.read_bytes())
    assert parsed is not None
    fmt, doc = parsed
    _put(doc, place, value)
    target.write_text(json.dumps(doc, indent=2) if fmt == "json"
                      else "".join(json.dumps(r) + "\n" for r in doc), encoding="utf-8")
    sink = FolderSink(tmp_path / "out", parent=True)
    outcomes = retrace_one(target, RetraceOptions(redact=False), sink=sink, keep=False)
    for o in outcomes:
        assert not (o.message or "").startswith("internal error"), o.message
        if o.where:
            assert [str(e) for e in validate_path(o.where).errors] == []


@pytest.mark.parametrize(("base", "f", "place", "value"),
                         [c for b in (FIXTURES, SAMPLES) for c in _cases(_logs(b), b, PER_FILE)])
def test_a_shipped_log_with_one_field_changed(tmp_path: Path, base: Path, f: Path, place: tuple[Any, ...],
                                              value: Any) -> None:
    _check(tmp_path, base, f, place, value)


KINDS = sorted(p for p in REAL_LOGS.iterdir() if p.is_dir()) if REAL_LOGS.is_dir() else []
REAL = [c for kind in KINDS for c in _cases(_logs(kind), kind, PER_REAL_LOG)]


@pytest.mark.skipif(not REAL, reason="../shared/real_logs is absent")
@pytest.mark.parametrize(("base", "f", "place", "value"), REAL or [pytest.param(None, None, (), None, id="none")])
def test_a_real_log_with_one_field_changed(tmp_path: Path, base: Path, f: Path, place: tuple[Any, ...],
                                           value: Any) -> None:
    _check(tmp_path, base, f, place, value)
