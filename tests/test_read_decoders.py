"""The reader's faster decoders give what the whole parse gave, value for value.

* `_records._loads` decodes with msgspec (exact integers of any size, no long-number check)
  where a line has few brackets; the reference is the parse it replaced: orjson, the stdlib
  for long integers and what orjson refuses, with bad text made writable.
* Claude Code's progress and snapshot lines are decoded straight into the few fields kept of
  them (`_load._light`). Reading a file with it and without it must give the same records,
  evidence, ledger, warnings and counts, on real logs and on lines built to trip it: fields of
  other kinds, forks, agent progress, damaged or cut lines, deep or long numbers.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from _paths import REAL_LOGS, SAMPLES, real_logs
from forsy.evidence import Quality, Session, SessionMeta
from forsy.sources import ReadContext, _records
from forsy.sources.claude_code import _load


def _reference(raw: bytes) -> Any:
    """The parse `_loads` replaced, kept here as the oracle."""
    if not _records._long_number(raw):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    try:
        return _records._scrub(json.loads(raw.decode("utf-8", "replace")))
    except (ValueError, RecursionError):
        return _records._MISSING


def _same(a: Any, b: Any) -> bool:
    """The same for the reader: not JSON (recovered from), JSON but no object (skipped, as
    a bare long integer, which the old parse made a float, is), or the same object; repr
    tells 1 from 1.0 and 0.0 from -0.0, which == does not."""
    if _records._MISSING in (a, b):
        return a is b
    if not isinstance(a, dict) or not isinstance(b, dict):
        return not isinstance(a, dict) and not isinstance(b, dict)
    return repr(a) == repr(b)


def _lines(paths: list[Path]) -> list[bytes]:
    out: list[bytes] = []
    for p in paths:
        out += [ln for ln in p.read_bytes().split(b"\n") if ln.strip()]
    return out


def _fuzz_lines(rng: random.Random, n: int) -> list[bytes]:
    """JSON-ish lines: numbers of every shape (long, exponents, negative zero), strings with
    escapes, surrogates, bad bytes, NULs, duplicate keys, nesting, and cut or spliced text."""
    atoms = [b"0", b"-0", b"-0.0", b"1e999", b"-1e-400", b"1.7976931348623157e308", b"5e-324", b"0.1",
             b"123456789012345678", b"1234567890123456789", b"-9223372036854775809", b"18446744073709551616",
             b"3" * 40, b"1.0000000000000000000001", b"2.5E+3", b"true", b"false", b"null", b"NaN", b"Infinity",
             b'"a"', b'"\\u00e9"', b'"\\ud83d\\ude00"', b'"\\ud800"', b'"\\udc00x"', b'"\xff"', b'"\xed\xa0\x80"',
             b'"a\x00b"', b'"\\u0000"', b'"tab\\t"', b'"\xe2\x80\xa8"', b'"' + b"x" * 30 + b'"']
    def value(depth: int) -> bytes:
        r = rng.random()
        if depth > 3 or r < 0.5:
            return rng.choice(atoms)
        if r < 0.75:
            return b"[" + b",".join(value(depth + 1) for _ in range(rng.randint(0, 4))) + b"]"
        keys = [rng.choice([b'"k"', b'"type"', b'"n"', b'"\\u006b"', b'"\xff"']) for _ in range(rng.randint(0, 4))]
        return b"{" + b",".join(k + b":" + value(depth + 1) for k in keys) + b"}"
    out = []
    for _ in range(n):
        line = value(0)
        r = rng.random()
        if r < 0.1 and line:
            line = line[: rng.randrange(len(line))]  # cut
        elif r < 0.15:
            line += value(0)  # spliced
        elif r < 0.2:
            line = b" " + line + b" \t"
        out.append(line)
    out.append(b"[" * 600 + b"]" * 600)  # deeper than msgspec is asked to take
    out.append(b'{"a":' + b"[" * 1100 + b"]" * 1100 + b"}")  # deeper than orjson takes
    return out


def test_loads_gives_what_the_parse_it_replaced_gave_on_built_lines() -> None:
    lines = _fuzz_lines(random.Random(20261127), 20000)
    differ = [ln for ln in lines if not _same(_records._loads(ln), _reference(ln))]
    assert differ == []
    parsed = sum(1 for ln in lines if _records._loads(ln) is not _records._MISSING)
    assert 2000 < parsed < len(lines)  # both outcomes occur


def test_loads_gives_what_the_parse_it_replaced_gave_on_the_sample_logs() -> None:
    lines = _lines(sorted(p for p in SAMPLES.rglob("*.jsonl") if p.is_file()))
    assert len(lines) > 100
    assert [ln for ln in lines if not _same(_records._loads(ln), _reference(ln))] == []


@pytest.mark.skipif(not real_logs("claude"), reason="../shared/real_logs is absent")
def test_loads_gives_what_the_parse_it_replaced_gave_on_every_real_line() -> None:
    paths = sorted(p for p in REAL_LOGS.rglob("*.json*") if p.is_file() and p.suffix in (".json", ".jsonl"))
    lines = _lines(paths)
    assert len(lines) > 10000
    assert [ln[:80] for ln in lines if not _same(_records._loads(ln), _reference(ln))] == []


def _read(path: Path, light: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    with monkeypatch.context() as m:
        if not light:
            m.setattr(_load, "_light", lambda raw: None)
        calls: list[bool] = []
        real = _load._light

        def counting(raw: bytes) -> dict[str, Any] | None:
            got = real(raw)
            calls.append(got is not None)
            return got

        m.setattr(_load, "_light", counting)
        session = Session("claude_code", "", [], {}, [], SessionMeta(agent="claude-code"), Quality())
        recs = _load.load_records(path, ReadContext(root=path.parent), session)
    return ([(r.ev, r.data, r.prefix) for r in recs], session.evidence, session.ledger,
            [(w.code, w.message, w.file, w.line) for w in session.warnings], session.quality,
            [(f.path, f.bytes, f.sha256) for f in session.files], sum(calls))


def _progress(rng: random.Random, i: int) -> dict[str, Any]:
    sub = rng.choice(["hook_progress", "bash_progress", "waiting_for_task", "agent_progress", "mcp_progress"])
    return {"parentUuid": f"p{i - 1}" if i else None, "isSidechain": False, "userType": "external",
            "cwd": "/w", "sessionId": "s1", "version": "2.1.39", "gitBranch": "main", "type": "progress",
            "data": {"type": sub, "hookEvent": "PostToolUse", "output": "x" * rng.randint(0, 50),
                     "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}},
            "toolUseID": f"t{i}", "parentToolUseID": f"t{i}", "uuid": f"u{i}", "timestamp": "2026-01-01T00:00:00Z"}


_TWISTS: list[tuple[str, Any]] = [
    ("uuid", 7), ("parentUuid", ["x"]), ("isSidechain", "no"), ("isSidechain", 1), ("sessionId", {"a": 1}),
    ("agentId", 5), ("subtype", False), ("summary", 3.5), ("leafUuid", []), ("parentToolUseID", 9),
    ("isMeta", "yes"), ("isCompactSummary", 0), ("isApiErrorMessage", None), ("timestamp", None),
    ("cwd", None), ("type", None), ("type", 5), ("data", None), ("data", []), ("data", "text"),
    ("data", {"type": 3}), ("data", {"nope": 1}), ("forkedFrom", {"sessionId": "old", "messageUuid": "m"}),
    ("forkedFrom", "odd"), ("forkedFrom", None), ("type", "file-history-snapshot"), ("type", "user"),
    ("messageId", 12), ("gitBranch", 12345678901234567890123), ("version", "\ud800"),
]


def _twisted_log(rng: random.Random, n: int) -> bytes:
    out: list[bytes] = []
    for i in range(n):
        rec = _progress(rng, i)
        r = rng.random()
        if r < 0.5:
            key, value = rng.choice(_TWISTS)
            rec[key] = value
        elif r < 0.55:
            rec["data"]["n"] = 10 ** 25  # a long number in what is not kept
        elif r < 0.6:
            del rec["type"]
        line = json.dumps(rec).encode("utf-8", "surrogatepass")
        r = rng.random()
        if r < 0.04:
            line = line[: rng.randrange(1, len(line))]  # cut
        elif r < 0.07:
            line = line + line  # two records spliced on one line
        elif r < 0.1:
            line = line.replace(b'"x', b'"\xff', 1)  # a bad byte in a dropped string
        elif r < 0.12:
            line = line.replace(b'"output": "', b'"output": "\x00', 1)
        elif r < 0.14:
            line = line.replace(b'"hookEvent"', b'"deep": ' + b"[" * 250 + b"]" * 250 + b', "hookEvent"', 1)
        elif r < 0.16:
            line = line.replace(b'"uuid"', b'"uuid": "dup", "uuid"', 1)  # the last of a duplicate key stands
        elif r < 0.18:
            line = line + b"\r"
        out.append(line)
    return b"\n".join(out)  # and the last line has no newline


def test_light_decoding_reads_built_lines_as_the_whole_parse_does(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "s1.jsonl"
    log.write_bytes(_twisted_log(random.Random(7), 3000))
    light, whole = _read(log, True, monkeypatch), _read(log, False, monkeypatch)
    assert light[:-1] == whole[:-1]
    assert whole[-1] == 0 and 800 < light[-1]  # the light path took many lines, and not all
    assert len(light[3]) > 30  # warnings about the twisted lines were given the same way


@pytest.mark.skipif(not real_logs("claude"), reason="../shared/real_logs is absent")
def test_light_decoding_reads_every_real_claude_log_as_the_whole_parse_does(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = 0
    for p in real_logs("claude"):
        light, whole = _read(p, True, monkeypatch), _read(p, False, monkeypatch)
        assert light[:-1] == whole[:-1], p
        taken += light[-1]
    assert taken > 1000


def test_the_light_path_takes_plain_progress_and_snapshot_lines_and_nothing_else() -> None:
    hook = {"parentUuid": "p", "isSidechain": False, "type": "progress", "uuid": "u", "sessionId": "s",
            "timestamp": "2026-01-01T00:00:00Z", "data": {"type": "hook_progress", "output": "x" * 100},
            "toolUseID": "t", "cwd": "/w"}
    got = _load._light(json.dumps(hook).encode())
    assert got == {"type": "progress", "uuid": "u", "parentUuid": "p", "isSidechain": False,
                   "timestamp": "2026-01-01T00:00:00Z", "sessionId": "s", "cwd": "/w"}
    assert isinstance(got, _load._Stub) and got.data_type == "hook_progress"
    assert list(got) == [k for k in _load._STUB_KEYS if k in got]
    snap = {"type": "file-history-snapshot", "messageId": "m", "snapshot": {"trackedFileBackups": {}}}
    got = _load._light(json.dumps(snap).encode())
    assert isinstance(got, _load._Stub) and got == {"type": "file-history-snapshot"} and got.data_type is None
    for other in ({**hook, "data": {"type": "agent_progress"}}, {**hook, "type": "user"},
                  {**snap, "type": "queue-operation", "note": "progress"}):
        assert _load._light(json.dumps(other).encode()) is None


def test_a_sessions_repeated_values_are_one_string_in_every_record(tmp_path: Path) -> None:
    # most records are held until the events are built: each must not keep its own copy of the
    # session's id, folder, version, branch, model...
    rng = random.Random(3)
    lines = [_progress(rng, i) for i in range(40)]
    for i in range(40, 60):
        lines.append({"type": "assistant", "uuid": f"u{i}", "parentUuid": f"u{i - 1}", "sessionId": "s1",
                      "cwd": "/w", "version": "2.1.39", "gitBranch": "main", "timestamp": "2026-01-01T00:00:00Z",
                      "message": {"id": f"m{i}", "model": "claude-opus-4-5", "role": "assistant", "type": "message",
                                  "content": [{"type": "text", "text": "hi"}], "stop_reason": None}})
    log = tmp_path / "s1.jsonl"
    log.write_bytes(b"\n".join(json.dumps(d).encode() for d in lines))
    session = Session("claude_code", "", [], {}, [], SessionMeta(agent="claude-code"), Quality())
    recs = _load.load_records(log, ReadContext(root=tmp_path), session)
    assert len(recs) == 60
    for key in ("sessionId", "cwd", "version", "gitBranch", "type"):
        assert len({id(r.data[key]) for r in recs if key in r.data}) == (1 if key != "type" else 2), key
    assert len({id(r.data["message"]["model"]) for r in recs[40:]}) == 1
    assert len({id(r.data["uuid"]) for r in recs}) == 60  # what differs stays apart
