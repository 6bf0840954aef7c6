"""Field-level fuzzing of Codex rollouts (and a small pass over shell histories).

One real record of each record type/subtype (sample_logs/codex, and ../shared/real_logs
when present) gets ONE field replaced by a value of another type: a list, an object, a
string, an integer beyond 64 bits, null, a bool, or nesting deeper than 1000. The file is
read with that one line changed. Reading may raise nothing but a ForsyError, what it
returns must be writable JSON, and a line that gave events before must still give events
or be named by a warning (a wrong type is never dropped silently).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _paths import REAL_LOGS, SAMPLES
from forsy.errors import ForsyError
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource
from forsy.sources.shell import ShellHistorySource

DEEP = "__DEEP__"  # replaced by nesting in the bytes: orjson cannot write it
HUGE = 2**64 + 7
VALUES: list[Any] = [[1, "x"], {"k": "v"}, "str", HUGE, -HUGE, None, True, False, 1.5, DEEP]
DEPTHS = (1001, 1100)


def _files() -> list[Path]:
    out = sorted((SAMPLES / "codex").rglob("*.jsonl"))
    real = REAL_LOGS / "codex"
    if real.is_dir():
        out += sorted(real.rglob("*.jsonl"))
    return out


def _kind(d: dict[str, Any]) -> str:
    p = d.get("payload")
    if isinstance(d.get("type"), str) and isinstance(p, dict):
        return f"{d['type']}:{p.get('type')}"
    return f"bare:{d.get('type') or d.get('record_type') or 'header'}"


def _samples() -> list[tuple[Path, int, dict[str, Any]]]:
    """(file, 0-based line index, record) for the first record of each kind in each file
    (the same kind reads differently with other neighbours: mirrored or not, ...)."""
    out = []
    for f in _files():
        seen: set[str] = set()
        for i, raw in enumerate(f.read_bytes().splitlines()):
            try:
                d = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if isinstance(d, dict) and _kind(d) not in seen:
                seen.add(_kind(d))
                out.append((f, i, d))
    return out


def _paths(v: Any, prefix: tuple[str | int, ...] = (), depth: int = 0) -> list[tuple[str | int, ...]]:
    """Every field of a record (keys and list items), to a small depth."""
    out: list[tuple[str | int, ...]] = []
    if depth > 4:
        return out
    items: list[tuple[str | int, Any]] = list(v.items()) if isinstance(v, dict) else list(enumerate(v[:3])) \
        if isinstance(v, list) else []
    for k, x in items:
        out.append((*prefix, k))
        out.extend(_paths(x, (*prefix, k), depth + 1))
    return out


SAMPLES_ = _samples()
FIELDS = [(s, p) for s in SAMPLES_ for p in _paths(s[2])]


def _mutated(rec: dict[str, Any], path: tuple[str | int, ...], value: Any, depth: int) -> bytes:
    rec = json.loads(json.dumps(rec))
    target: Any = rec
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = value
    raw = json.dumps(rec, ensure_ascii=False).encode()
    return raw.replace(b'"' + DEEP.encode() + b'"', b"[" * depth + b"]" * depth)


def _read(path: Path) -> Session:
    return CodexSource().read(path, ReadContext(root=path.parent))[0]


def _cited_lines(s: Session, name: str) -> set[int]:
    """Lines of file `name` that some event, or the injected context kept in the session
    facts, cites."""
    ids = [r.ev for e in s.events for r in e.refs]
    ids += [c["ev"] for c in s.meta.extra.get("context", [])]
    lines = set()
    for i in ids:
        ev = s.evidence.get(i)
        if ev is not None and ev.line is not None and ev.source == name:
            lines.add(ev.line)
    return lines


BASE: dict[Path, set[int]] = {}


def _base(src: Path, tmp: Path) -> set[int]:
    """The cited lines of the unmutated file read alone, as the mutated one is (without the
    subagent and fork files beside it)."""
    if src not in BASE:
        alone = tmp / "base" / src.name
        alone.parent.mkdir(exist_ok=True)
        alone.write_bytes(src.read_bytes())
        BASE[src] = _cited_lines(_read(alone), src.name)
    return BASE[src]


def test_samples_cover_every_record_kind_of_the_samples() -> None:
    kinds = {_kind(d) for _, _, d in SAMPLES_}
    assert {"session_meta:None", "response_item:message", "response_item:function_call", "event_msg:token_count",
            "turn_context:None", "response_item:reasoning", "event_msg:user_message", "bare:header"} <= kinds
    # the sample rollouts alone hold 451 field paths; the real ones add more
    assert len(FIELDS) > (500 if (REAL_LOGS / "codex").is_dir() else 400)


def test_a_wrong_type_is_a_warning_with_its_line(tmp_path: Path) -> None:
    """The two crashes the first field fuzzer found, and fields that used to vanish silently."""
    src = SAMPLES / "codex" / "rollout-2025-11-20T10-00-00-7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl"
    lines = src.read_bytes().splitlines()
    recs = [orjson.loads(raw) for raw in lines]
    um = next(i for i, d in enumerate(recs) if d.get("payload", {}).get("type") == "user_message")
    rs = next(i for i, d in enumerate(recs) if d.get("payload", {}).get("type") == "reasoning")
    msg = next(i for i, d in enumerate(recs) if d.get("payload", {}).get("role") == "user")
    # a user_message with no response item beside it is read for itself, images included
    alone = [lines[0], _mutated(recs[um], ("payload", "images"), 3, 0)]  # len(3): TypeError before
    cases = [
        (alone, 2),
        (lines[:rs] + [_mutated(recs[rs], ("payload", "summary"), "a summary", 0)] + lines[rs + 1:], rs + 1),
        # str(role) of 1000 nested lists: RecursionError before
        (lines[:msg] + [_mutated(recs[msg], ("payload", "role"), DEEP, 1001)] + lines[msg + 1:], msg + 1),
    ]
    for data, line in cases:
        f = tmp_path / src.name
        f.write_bytes(b"\n".join(data) + b"\n")
        s = _read(f)
        assert [w.code for w in s.warnings if w.line == line] in (["bad_field_type"], ["too_deep"]), line
        assert all(w.file == src.name for w in s.warnings)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                                     HealthCheck.too_slow])
@given(which=st.integers(0, len(FIELDS) - 1), value=st.sampled_from(VALUES), depth=st.sampled_from(DEPTHS))
def test_one_field_of_another_type(tmp_path: Path, which: int, value: Any, depth: int) -> None:
    (src, idx, rec), path = FIELDS[which]
    lines = src.read_bytes().splitlines()
    lines[idx] = _mutated(rec, path, value, depth)
    f = tmp_path / src.name
    f.write_bytes(b"\n".join(lines) + b"\n")
    base = _base(src, tmp_path)
    try:
        s = _read(f)
    except ForsyError:
        return
    line = idx + 1
    warned = {w.line for w in s.warnings}
    # null is how Codex writes an absent optional field, and an object without text in a
    # list of content blocks is a block of another kind (an image): both are read as such.
    absent = value is None or (isinstance(value, dict) and isinstance(path[-1], int))
    if line in base and not absent:
        assert line in _cited_lines(s, src.name) or line in warned, (path, value)
    # everything read is writable (the trace writer falls back to the stdlib for big ints)
    json.dumps([e.args for e in s.events] + [e.info for e in s.events] + [s.meta.extra, s.quality.extra],
               default=_fields)


def _fields(obj: object) -> dict[str, object]:
    """A payload (or a Ref, a Match inside one) as JSON: its fields, one level at a time."""
    assert dataclasses.is_dataclass(obj) and not isinstance(obj, type), obj
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


@pytest.mark.parametrize("name", ["plain.bash_history", "epoch.bash_history", "extended.zsh_history",
                                  "sample.fish_history", "sample.bash_eternal_history"])
def test_shell_lines_of_another_shape(tmp_path: Path, name: str) -> None:
    """Each line of a shell history replaced by hostile bytes: read, never a crash."""
    data = (SAMPLES / "shell" / name).read_bytes().splitlines()
    junk = [b"#" + b"9" * 30, b": 99999999999999999999:1;x", b"- cmd: \\", b"   when: -" + b"9" * 40,
            b"1 u 1 99999999999 " + b"\x83" * 3, b"\xff\xfe", b"[" * 2000, b""]
    for i in range(min(len(data), 12)):
        for j in junk:
            f = tmp_path / name
            f.write_bytes(b"\n".join(data[:i] + [j] + data[i + 1:]) + b"\n")
            try:
                s = ShellHistorySource().read(f, ReadContext(root=tmp_path))[0]
            except ForsyError:
                continue
            json.dumps([e.info for e in s.events] + [e.text for e in s.events], default=_fields)
