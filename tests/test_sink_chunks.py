"""trace.json and provenance.json are written in parts (a step at a time, so no whole large
document is held in memory): joined, the parts are the very bytes pydantic writes for the
whole model, whatever the steps hold."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from _forks import COUNT_FORKS, NEEDS_FORK, run_fresh
from _paths import ROOT
from forsy.models import Provenance, Trace
from forsy.run import RetraceOptions, retrace_one
from forsy.sinks.folder import model_json, write_folder

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



_TWO_CORES = COUNT_FORKS + """
import json, sys
from pathlib import Path
import forsy.sinks.folder as folder
from forsy.run import RetraceOptions, retrace_one
log, out = Path(sys.argv[1]), Path(sys.argv[2])
folder.ASIDE_STEPS = 0  # provenance.json written by a child, whatever the trace's size
def written(dest):
    a = next(o.assembled for o in retrace_one(log, RetraceOptions(redact=False), keep=True) if o.assembled)
    folder.write_folder(a, dest)
    return {p.name: p.read_bytes().hex() for p in sorted(dest.rglob("*")) if p.is_file()}
two = written(out / "two")
parent, real_write = os.getpid(), folder._write
def fails_in_the_child(path, parts):
    if path.name == "provenance.json" and os.getpid() != parent:
        os._exit(3)  # the child dies mid-way: the caller writes the file itself
    return real_write(path, parts)
folder._write = fails_in_the_child
three = written(out / "three")
print(json.dumps({"two": two, "three": three, "forks": len(forks)}))
"""


@NEEDS_FORK
def test_a_folder_written_on_two_cores_is_the_folder_written_on_one(tmp_path: Path) -> None:
    """A large trace's provenance.json is written by a forked child while this process writes
    the rest (forced for a small trace, in a fresh interpreter: no thread another test left
    running stops the fork): every file, the manifest's hashes included, is byte for byte what
    one process writes; a child that dies leaves the same folder too."""
    log = ROOT / "sample_logs" / "claude" / "demo-session.jsonl"
    a = next(o.assembled for o in retrace_one(log, RetraceOptions(redact=False), keep=True) if o.assembled)
    write_folder(a, tmp_path / "one")
    one = {p.name: p.read_bytes().hex() for p in sorted((tmp_path / "one").rglob("*")) if p.is_file()}
    got = run_fresh(_TWO_CORES, str(log), str(tmp_path))
    assert got["forks"] >= 2
    assert got["two"] == one
    assert got["three"] == one


def test_long_texts_written_apart_are_the_bytes_pydantic_writes() -> None:
    """A step's long non-ASCII texts are written by the stdlib's string encoder (so the string
    keeps no UTF-8 copy): every character of the Basic Multilingual Plane but surrogates, and
    the astral ones, in the output, the input and the reasoning, come out as pydantic's."""
    log = ROOT / "sample_logs" / "claude" / "demo-session.jsonl"
    a = next(o.assembled for o in retrace_one(log, RetraceOptions(redact=False), keep=True) if o.assembled)
    every = "".join(chr(c) for c in range(0x10000) if not 0xD800 <= c < 0xE000) + "😀𝄞\U0010fffd"
    step = a.trace.steps[1]
    step.output, step.reasoning = every, "é" * 1024 + '"\\\n\t\x00\x1f\x7f\u2028/'
    a.trace.steps[0].input = "short é"  # under the length: written by pydantic itself
    size = sys.getsizeof(step.output)
    parts = list(model_json(a.trace))
    assert sys.getsizeof(step.output) == size  # no UTF-8 copy kept in the string (CPython counts it)
    assert step.output is every  # the model is left as it was
    assert b"".join(parts) == _whole(a.trace)
    assert sys.getsizeof(step.output) > size  # as pydantic's own writing leaves it
