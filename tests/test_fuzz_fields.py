"""Field fuzzer for the Claude Code reader: one field of one real record at a time.

Real records of every shape (record type, progress kind, content block kinds...) are taken
from sample_logs/claude (always) and ../shared/real_logs/claude (skipped when absent). One
field at a time gets a value of another kind (list, object, string, huge integer, null,
nesting past the reader's depth limit, boolean, number) and the record is read after a small
well-formed context. Reading must never raise anything but ForsyError, and a record that was
used before the mutation (some event cites its line) must still be used or be warned about
with its file and line. Fixed seed (derandomize) and bounded examples: a few seconds.

(Codex has its own fuzzer in another file; this one is Claude Code only.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from _paths import SAMPLES, needs_shared, real_logs
from forsy.cli import app
from forsy.errors import ForsyError
from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources._records import MAX_DEPTH
from forsy.sources.claude_code import read_session

Path_ = tuple[str | int, ...]


def _nest(depth: int) -> Any:
    v: Any = "bottom"
    for _ in range(depth):
        v = [v]
    return v


WRONG: list[Any] = [["x"], {"k": "v"}, "s", 2**70, -(2**64), None, _nest(MAX_DEPTH + 50), _nest(MAX_DEPTH // 2),
                    True, False, 1.5, 0]
# fields whose value says what the record is: another value of the field's own kind may make
# it a record forsy reads as metadata by design (a system notice without a subtype...), so
# only "no crash" is asked of those mutations
DISCRIMINATORS: dict[str, tuple[type, ...]] = {"type": (str,), "subtype": (str, type(None)), "isSidechain": (bool,)}

CONTEXT = [
    {"type": "user", "uuid": "ctx-1", "parentUuid": None, "sessionId": "fuzz", "timestamp": "2026-01-01T00:00:00Z",
     "message": {"role": "user", "content": "a well-formed start"}},
    {"type": "assistant", "uuid": "ctx-2", "parentUuid": "ctx-1", "sessionId": "fuzz",
     "timestamp": "2026-01-01T00:00:01Z",
     "message": {"id": "ctx-m", "role": "assistant", "content": [{"type": "text", "text": "fine"}]}},
]
LINE = len(CONTEXT) + 1  # the fuzzed record's line


def _records(path: Path) -> list[dict[str, Any]]:
    out = []
    for raw in path.read_bytes().split(b"\n"):
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        if isinstance(d, dict):
            out.append(d)
    return out


def _shape(d: dict[str, Any]) -> tuple[Any, ...]:
    data = d.get("data") if isinstance(d.get("data"), dict) else {}
    msg = d.get("message") if isinstance(d.get("message"), dict) else {}
    if isinstance(data.get("message"), dict) and isinstance(data["message"].get("message"), dict):
        msg = data["message"]["message"]
    c = msg.get("content")
    blocks = tuple(sorted({str(b.get("type")) for b in c if isinstance(b, dict)})) if isinstance(c, list) else (
        type(c).__name__,)
    return (d.get("type"), data.get("type"), d.get("subtype"), bool(d.get("isSidechain")), bool(d.get("isMeta")),
            bool(d.get("isCompactSummary")), "toolUseResult" in d, blocks)


def _pick(files: list[Path]) -> list[dict[str, Any]]:
    """One record of each shape, in file order."""
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for f in files:
        for d in _records(f):
            seen.setdefault(_shape(d), d)
    return list(seen.values())


def _paths(v: Any, at: Path_ = (), depth: int = 0) -> list[Path_]:
    """Every place in a record, down to 7 levels (lists: their first 3 items)."""
    out: list[Path_] = [at] if at else []
    if depth >= 7:
        return out
    if isinstance(v, dict):
        for k, x in v.items():
            out += _paths(x, (*at, k), depth + 1)
    elif isinstance(v, list):
        for i, x in enumerate(v[:3]):
            out += _paths(x, (*at, i), depth + 1)
    return out


def _set(d: Any, at: Path_, value: Any) -> Any:
    if not at:
        return value
    copy = dict(d) if isinstance(d, dict) else list(d)
    copy[at[0]] = _set(d[at[0]], at[1:], value)  # type: ignore[index]
    return copy


def _read(tmp: Path, record: dict[str, Any]) -> Session:
    lines = [json.dumps(r, ensure_ascii=False).encode() for r in [*CONTEXT, record]]
    p = tmp / "fuzz-session.jsonl"
    p.write_bytes(b"\n".join(lines) + b"\n")
    return read_session(p, ReadContext(root=tmp))


def _used(s: Session) -> bool:
    return any(s.evidence[r.ev].line == LINE for e in s.events for r in e.refs)


def _warned(s: Session) -> bool:
    return any(w.line == LINE and w.file == "fuzz-session.jsonl" for w in s.warnings)


def _fuzz(tmp: Path, records: list[dict[str, Any]], data: st.DataObject, baseline: dict[int, bool]) -> None:
    i = data.draw(st.integers(0, len(records) - 1), label="record")
    rec = records[i]
    if i not in baseline:
        baseline[i] = _used(_read(tmp, rec))
    places = _paths(rec)
    at = places[data.draw(st.integers(0, len(places) - 1), label="field")]
    value = data.draw(st.sampled_from(WRONG), label="value")
    try:
        s = _read(tmp, _set(rec, at, value))
    except ForsyError:
        return  # a clear error naming the file is fine
    if baseline[i] and not (at[-1] in DISCRIMINATORS and isinstance(value, DISCRIMINATORS[str(at[-1])])):
        assert _used(s) or _warned(s), f"record {rec.get('type')} with {at} = {str(value)[:40]}: silently dropped"


FUZZ = settings(max_examples=250, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
SAMPLE_RECORDS = _pick(sorted((SAMPLES / "claude").rglob("*.jsonl")))
REAL_RECORDS = _pick(real_logs("claude"))


def test_claude_samples_cover_the_record_shapes() -> None:
    types = {d.get("type") for d in SAMPLE_RECORDS}
    assert {"user", "assistant", "system", "progress", "summary"} <= types and len(SAMPLE_RECORDS) >= 10


@FUZZ
@given(data=st.data())
def test_claude_fields_of_sample_records(tmp_path: Path, data: st.DataObject) -> None:
    _fuzz(tmp_path, SAMPLE_RECORDS, data, _SAMPLE_BASELINE)


@needs_shared
@FUZZ
@given(data=st.data())
def test_claude_fields_of_real_records(tmp_path: Path, data: st.DataObject) -> None:
    _fuzz(tmp_path, REAL_RECORDS, data, _REAL_BASELINE)


_SAMPLE_BASELINE: dict[int, bool] = {}
_REAL_BASELINE: dict[int, bool] = {}


# ---------------------------------------------------------------- shapes real logs were seen to hold

def _asst(**msg: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"id": "m9", "role": "assistant", "content": [{"type": "text", "text": "hi"}]}
    base.update(msg)
    return {"type": "assistant", "uuid": "u9", "parentUuid": "ctx-2", "sessionId": "fuzz",
            "timestamp": "2026-01-01T00:00:02Z", "message": base}


def _web(content: Any) -> dict[str, Any]:
    return _asst(content=[{"type": "server_tool_use", "id": "srv1", "name": "web_search", "input": {"query": "q"}},
                          {"type": "web_search_tool_result", "tool_use_id": "srv1", "content": content}])


NAMED = {
    "uuid-list": {**_asst(), "uuid": ["u9"]},
    "uuid-object": {**_asst(), "uuid": {"u": 9}},
    "message-id-list": _asst(id=["m9"]),
    "message-id-object": _asst(id={"m": 9}),
    "type-list": {**_asst(), "type": ["assistant"]},
    "assistant-message-string": {**_asst(), "message": "hello"},
    "content-number": _asst(content=5),
    "content-object": _asst(content={"type": "text", "text": "hi"}),
    "web-result-huge-int": _web([{"type": "web_search_result", "page_age": 2**64}]),
    "web-result-deep": _web(_nest(MAX_DEPTH - 10)),
}


def _too_deep_line() -> bytes:
    """A web-search result nested 1,100 deep (past what json.dumps writes): made by hand."""
    raw = json.dumps(_web("@@DEEP@@")).encode()
    return raw.replace(b'"@@DEEP@@"', b"[" * 1100 + b'"bottom"' + b"]" * 1100)


LINES = {name: json.dumps(r).encode() for name, r in NAMED.items()} | {"web-result-too-deep": _too_deep_line()}


@pytest.mark.parametrize("name", list(LINES))
def test_named_odd_fields_are_warnings_not_internal_errors(tmp_path: Path, name: str) -> None:
    """Each used to end in an internal error (exit 70) not naming the file."""
    lines = [json.dumps(r).encode() for r in CONTEXT] + [LINES[name]]
    lines.append(json.dumps({**CONTEXT[0], "uuid": "u10", "parentUuid": "ctx-2",
                             "message": {"role": "user", "content": "still read"}}).encode())
    p = tmp_path / "fuzz-session.jsonl"
    p.write_bytes(b"\n".join(lines) + b"\n")
    s = read_session(p, ReadContext(root=tmp_path))
    assert "still read" in [e.text for e in s.events]
    assert _used(s) or _warned(s), s.warnings
    if name.startswith(("uuid", "message-id", "type", "assistant-message", "content", "web-result-too")):
        assert _warned(s), s.warnings
    r = CliRunner().invoke(app, ["retrace", str(p), "-o", str(tmp_path / "out"), "--no-redact"])
    assert r.exit_code == 0, r.output
