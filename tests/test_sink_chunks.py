"""trace.json and provenance.json are written in parts (a step at a time, so no whole large
document is held in memory): joined, the parts are the very bytes pydantic writes for the
whole model, whatever the steps hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from _paths import ROOT
from forsy.models import Provenance, Trace
from forsy.run import RetraceOptions, retrace_one
from forsy.sinks.folder import model_json

SAMPLES = sorted(p for p in (ROOT / "sample_logs").rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))


def _whole(m: Trace | Provenance) -> bytes:
    return m.__pydantic_serializer__.to_json(m, indent=2) + b"\n"


@pytest.mark.parametrize("log", SAMPLES, ids=lambda p: p.name)
def test_the_parts_join_to_the_whole_document(log: Path) -> None:
    outcomes = retrace_one(log, RetraceOptions(redact=False), keep=True)
    assembled = [o.assembled for o in outcomes if o.assembled is not None]
    for a in assembled:
        for m in (a.trace, a.provenance):
            parts = list(model_json(m))
            assert len(parts) == len(m.steps) + 2  # the head, each step, the rest
            assert b"".join(parts) == _whole(m)


def test_a_step_holding_what_looks_like_the_cut_is_written_whole() -> None:
    """The cut is found by a key at the top level only: a step's text naming '"steps": [' (with
    its newline escaped, as JSON has it) or a trace without steps changes nothing."""
    log = ROOT / "sample_logs" / "claude" / "demo-session.jsonl"
    a = next(o.assembled for o in retrace_one(log, RetraceOptions(redact=False), keep=True) if o.assembled)
    a.trace.steps[0].input = '\n  "steps": [\n  "steps": []\n'
    a.trace.task = '\n  "steps": []'
    assert b"".join(model_json(a.trace)) == _whole(a.trace)
    empty = a.trace.model_copy(update={"steps": []})
    assert list(model_json(empty)) == [_whole(empty)]


def test_provenance_with_a_model_and_a_reviewer_joins_to_the_whole_document() -> None:
    """Fields written only when set (params, reviewer) are written the same inside a step."""
    log = ROOT / "sample_logs" / "claude" / "demo-session.jsonl"
    a = next(o.assembled for o in retrace_one(log, RetraceOptions(redact=False), keep=True) if o.assembled)
    fields = a.provenance.steps[1].fields
    name, fp = next(iter(fields.items()))
    fields[name] = fp.model_copy(update={"origin": "human", "params": {"similarity": 93, "x": 0.5},
                                         "model": {"name": "m", "temperature": 1e-07},
                                         "reviewer": {"reviewer": "ada", "replaced": {"value": None}}})
    parts = list(model_json(a.provenance))
    assert b'"reviewer": "ada"' in parts[2] and b"".join(parts) == _whole(a.provenance)


def test_a_folder_written_on_two_cores_is_the_folder_written_on_one(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A large trace's provenance.json is written by a forked child while this process writes
    the rest (forced here for a small trace): every file, the manifest's hashes included, is
    byte for byte what one process writes; a child that fails leaves the same folder too."""
    import os

    import forsy._aside as aside_module
    import forsy.sinks.folder as folder

    if not aside_module.can_fork():
        pytest.skip("this machine cannot fork a child for it (one core, or threads)")
    log = ROOT / "sample_logs" / "claude" / "demo-session.jsonl"

    def written(dest: Path) -> dict[str, bytes]:
        a = next(o.assembled for o in retrace_one(log, RetraceOptions(redact=False), keep=True) if o.assembled)
        folder.write_folder(a, dest)
        return {p.name: p.read_bytes() for p in sorted(dest.rglob("*")) if p.is_file()}

    one = written(tmp_path / "one")
    monkeypatch.setattr(folder, "ASIDE_STEPS", 0)
    forks: list[int] = []
    fork = os.fork

    def counted() -> int:
        pid = fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(aside_module.os, "fork", counted)
    assert written(tmp_path / "two") == one and forks
    real_write = folder._write

    def fails_in_the_child(path: Path, parts: object) -> str:
        if path.name == "provenance.json" and forks and os.getpid() != parent:
            os._exit(3)  # the child dies mid-way: the caller writes the file itself
        return real_write(path, parts)  # type: ignore[arg-type]

    parent = os.getpid()
    monkeypatch.setattr(folder, "_write", fails_in_the_child)
    assert written(tmp_path / "three") == one
