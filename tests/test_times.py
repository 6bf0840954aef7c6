"""Timestamps are parsed and compared as times: odd ones are warnings naming file and line, and
never make the trace forsy writes invalid."""

from __future__ import annotations

import importlib.util
import json
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from _paths import SHARED
from forsy.cli import app
from forsy.evidence import ReadingWarning
from forsy.run import RetraceOptions, read
from forsy.times import check_times, instant, order_key, parse_iso, span, status
from forsy.validation import validate_path, validate_trace

runner = CliRunner()
FILE = "sess-t.jsonl"


# ---------------------------------------------------------------- a small Claude Code session
def rec(i: int, ts: str, kind: str = "user", **extra: object) -> dict[str, object]:
    base: dict[str, object] = {"type": kind, "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i > 1 else None,
                               "sessionId": "sess-t", "timestamp": ts}
    base.update(extra)
    return base


def session(t_user: str, t_call: str, t_result: str, t_answer: str) -> list[dict[str, object]]:
    """Line 1: the request; 2: a Bash call; 3: its result; 4: the answer."""
    return [
        rec(1, t_user, message={"role": "user", "content": "list the files"}),
        rec(2, t_call, "assistant", message={"id": "m2", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}),
        rec(3, t_result, message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "a.py b.py"}]}),
        rec(4, t_answer, "assistant", message={"id": "m4", "role": "assistant", "content": [
            {"type": "text", "text": "Two files: a.py and b.py."}]}),
    ]


def write(tmp: Path, records: list[dict[str, object]]) -> Path:
    p = tmp / FILE
    p.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return p


def _load_checker() -> ModuleType | None:
    path = SHARED / "tools" / "forsy_check.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("forsy_check", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CHECKER = _load_checker()


def retrace_and_validate(tmp: Path, records: list[dict[str, object]]) -> dict[str, object]:
    """The whole CLI: retrace, then `forsy validate` on what it wrote, which must pass."""
    src = write(tmp, records)
    out = tmp / "out"
    r = runner.invoke(app, ["retrace", str(src), "-o", str(out), "--no-redact"])
    assert r.exit_code == 0, r.output
    report = validate_path(out)
    assert [str(f) for f in report.errors] == []
    r = runner.invoke(app, ["validate", str(out)])
    assert r.exit_code == 0, r.output
    if CHECKER is not None:  # the independent checker agrees
        errs, _warns, _stats = CHECKER.check_spec(out)
        assert errs == []
    trace: dict[str, object] = json.loads((out / "trace.json").read_text(encoding="utf-8"))
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert (manifest["started_at"], manifest["ended_at"]) == (trace["started_at"], trace["ended_at"])
    return trace


def step_times(trace: dict[str, object]) -> list[tuple[object, object]]:
    steps = trace["steps"]
    assert isinstance(steps, list)
    return [(s["started_at"], s["ended_at"]) for s in steps]


def warnings_of(tmp: Path, records: list[dict[str, object]]) -> list[ReadingWarning]:
    sessions = read([write(tmp, records)], RetraceOptions())
    assert len(sessions) == 1
    before = [(e.ts, e.ts_ref) for e in sessions[0].events]
    found = check_times(sessions[0])
    assert [(e.ts, e.ts_ref) for e in sessions[0].events] == before  # the events are not changed
    return found


def codes(ws: list[ReadingWarning]) -> list[tuple[str, str | None, int | None]]:
    return sorted((w.code, w.file, w.line) for w in ws)


# ---------------------------------------------------------------- the four logs of the issue
def test_yesterday_is_not_copied_and_is_a_warning(tmp_path: Path) -> None:
    recs = session("2026-05-01T10:00:00.000Z", "2026-05-01T10:00:05.000Z", "yesterday",
                   "2026-05-01T10:00:09.000Z")
    trace = retrace_and_validate(tmp_path, recs)
    assert step_times(trace) == [("2026-05-01T10:00:00.000Z", "2026-05-01T10:00:00.000Z"),
                                 ("2026-05-01T10:00:05.000Z", None),
                                 ("2026-05-01T10:00:09.000Z", "2026-05-01T10:00:09.000Z")]
    assert (trace["started_at"], trace["ended_at"]) == ("2026-05-01T10:00:00.000Z", "2026-05-01T10:00:09.000Z")
    ws = warnings_of(tmp_path, recs)
    assert codes(ws) == [("time-unparsable", FILE, 3)]
    assert "'yesterday'" in ws[0].message and ws[0].message.startswith("1 record(s)")


def test_javascript_max_date_is_out_of_range(tmp_path: Path) -> None:
    # "+275760-09-13T00:00:00.000Z" is new Date(8.64e15).toISOString(); as a string it sorts first
    recs = session("+275760-09-13T00:00:00.000Z", "2026-05-01T10:00:05.000Z", "2026-05-01T10:00:07.000Z",
                   "2026-05-01T10:00:09.000Z")
    trace = retrace_and_validate(tmp_path, recs)
    assert step_times(trace)[0] == (None, None)
    assert (trace["started_at"], trace["ended_at"]) == ("2026-05-01T10:00:05.000Z", "2026-05-01T10:00:09.000Z")
    assert codes(warnings_of(tmp_path, recs)) == [("time-out-of-range", FILE, 1)]


def test_epoch_zero_is_not_the_start(tmp_path: Path) -> None:
    # valid ISO 8601, but a zero value: it must not become the trace's started_at
    recs = session("2026-05-01T10:00:00.000Z", "1970-01-01T00:00:00.000Z", "2026-05-01T10:00:07.000Z",
                   "2026-05-01T10:00:09.000Z")
    trace = retrace_and_validate(tmp_path, recs)
    assert step_times(trace)[1] == (None, "2026-05-01T10:00:07.000Z")
    assert trace["started_at"] == "2026-05-01T10:00:00.000Z"
    assert codes(warnings_of(tmp_path, recs)) == [("time-out-of-range", FILE, 2)]


def test_out_of_order_times(tmp_path: Path) -> None:
    # the result (line 3) is timed before its call (line 2); the answer (line 4) before everything
    recs = session("2026-05-01T10:00:00.000Z", "2026-05-01T10:00:05.000Z", "2026-05-01T10:00:01.000Z",
                   "2026-05-01T09:59:00.000Z")
    trace = retrace_and_validate(tmp_path, recs)
    # a step cannot end before it starts: the end the log gives is not written (H004 is an error)
    assert step_times(trace)[1] == ("2026-05-01T10:00:05.000Z", None)
    assert (trace["started_at"], trace["ended_at"]) == ("2026-05-01T09:59:00.000Z", "2026-05-01T10:00:05.000Z")
    ws = warnings_of(tmp_path, recs)
    assert codes(ws) == [("time-out-of-order", FILE, 3)]
    assert ws[0].message.startswith("2 time(s)")  # lines 3 and 4 both step back: one warning


def test_mixed_offsets_are_ordered_as_times(tmp_path: Path) -> None:
    # 10:00+02:00 is 08:00Z: the earliest, though it sorts last as a string
    recs = session("2026-05-01T10:00:00+02:00", "2026-05-01T09:00:00Z", "2026-05-01T09:10:00Z",
                   "2026-05-01T09:30:00Z")
    trace = retrace_and_validate(tmp_path, recs)
    assert (trace["started_at"], trace["ended_at"]) == ("2026-05-01T10:00:00+02:00", "2026-05-01T09:30:00Z")
    assert warnings_of(tmp_path, recs) == []


def test_step_ending_in_another_offset_is_kept(tmp_path: Path) -> None:
    # 09:00:07-01:00 (= 10:00:07Z) sorts before the start as a string, yet is after it: kept as written
    recs = session("2026-05-01T10:00:00Z", "2026-05-01T10:00:05Z", "2026-05-01T09:00:07-01:00",
                   "2026-05-01T10:00:09Z")
    trace = retrace_and_validate(tmp_path, recs)
    assert step_times(trace)[1] == ("2026-05-01T10:00:05Z", "2026-05-01T09:00:07-01:00")
    assert trace["ended_at"] == "2026-05-01T10:00:09Z"


def test_many_bad_times_one_warning_per_kind_per_file(tmp_path: Path) -> None:
    recs = session("soon", "2026-05-01T10:00:05.000Z", "later", "0000-00-00T00:00:00Z")
    retrace_and_validate(tmp_path, recs)
    ws = warnings_of(tmp_path, recs)
    assert codes(ws) == [("time-unparsable", FILE, 1)]
    assert ws[0].message.startswith("3 record(s)") and "'soon'" in ws[0].message


def test_small_jitter_is_not_out_of_order(tmp_path: Path) -> None:
    # concurrent writers put records a few ms out of order (56 ms at most in the real logs)
    recs = session("2026-05-01T10:00:00.000Z", "2026-05-01T10:00:05.300Z", "2026-05-01T10:00:05.250Z",
                   "2026-05-01T10:00:09.000Z")
    assert warnings_of(tmp_path, recs) == []


def test_assemble_reports_what_it_did_not_write(tmp_path: Path) -> None:
    recs = session("2026-05-01T10:00:00.000Z", "2026-05-01T10:00:05.000Z", "yesterday",
                   "2026-05-01T10:00:09.000Z")
    out = tmp_path / "out"
    runner.invoke(app, ["retrace", str(write(tmp_path, recs)), "-o", str(out), "--no-redact"])
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    ws = [w for w in manifest["warnings"] if w["code"] == "time-not-written"]
    assert [(w["file"], w["line"]) for w in ws] == [(FILE, 3)]
    assert "yesterday" not in ws[0]["message"]  # assembled after redaction: never quotes the value
    # the pipeline reports the log's odd time too (times.check_times, called right after reading)
    assert [(w["file"], w["line"]) for w in manifest["warnings"] if w["code"] == "time-unparsable"] == [(FILE, 3)]


POOL = ["2026-05-01T10:00:00.000Z", "2026-05-01T10:00:05Z", "2026-05-01T12:00:01+02:00", "2026-05-01T09:59:59Z",
        "2026-05-01T10:00:03.123456789-00:30", "2026-05-01T10:00:04", "2026-05-01", "yesterday", "",
        "+275760-09-13T00:00:00.000Z", "1970-01-01T00:00:00.000Z", "9999-12-31T23:59:59Z", "20260501T100000Z"]


@settings(max_examples=25, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(POOL), min_size=4, max_size=4))
def test_any_mix_of_times_gives_a_valid_trace(tmp_path: Path, stamps: list[str]) -> None:
    run = tmp_path / f"run{len(list(tmp_path.iterdir()))}"
    run.mkdir()
    trace = retrace_and_validate(run, session(*stamps))
    written = [t for pair in step_times(trace) for t in pair if t is not None]
    placed = [t for t in map(instant, written) if t is not None]
    assert len(placed) == len(written)  # every time written is a placeable time
    if placed:
        assert (instant(trace["started_at"]), instant(trace["ended_at"])) == (min(placed), max(placed))


# ---------------------------------------------------------------- the parser itself
@pytest.mark.parametrize("value", [
    "2026-05-01T10:00:00Z", "2026-05-01T10:00:00.1Z", "2026-05-01T10:00:00.123456789012Z",
    "2026-05-01T10:00:00,5+02:00", "2026-05-01T10:00:00+0530", "2026-05-01T10:00:00-03",
    "2026-05-01t10:00Z", "2026-05-01 10:00:00Z", "2026-05-01T10:00:00", "2026-05-01",
])
def test_accepted_forms(value: str) -> None:
    dt = parse_iso(value)
    assert dt is not None
    assert datetime.fromisoformat(value.replace("Z", "+00:00")) == dt  # what forsy_check reads


@pytest.mark.parametrize("value", [
    "yesterday", "", " 2026-05-01T10:00:00Z", "2026-05-01T10:00:00Z ", "2026-05-01T10:00:00z",
    "20260501T100000Z", "2026-W18-5", "2026-02-30T10:00:00Z", "2026-05-01T24:00:00Z",
    "2026-05-01T10:00:60Z", "2026-05-01T10:00:00+24:00", "2026-05-01T10:00:00.Z", "2026-05-01T10Z",
    "２０２６-05-01T10:00:00Z", "2026-05-01T10:00:00+02:00:30", 1777622400, None,
])
def test_refused_forms(value: object) -> None:
    assert parse_iso(value) is None
    assert status(value) == "unparsable"


def test_range() -> None:
    assert status("+275760-09-13T00:00:00.000Z") == "out_of_range"
    assert status("1969-12-31T19:00:00-05:00") == "out_of_range"  # epoch 0 in New York
    assert status("9999-12-31T23:59:59Z") == "out_of_range"
    assert status("1990-01-01T00:00:00Z") == "ok" and status("2099-12-31T23:59:59Z") == "ok"
    assert status("1990-01-01T00:30:00+01:00") == "out_of_range"  # 1989-12-31T23:30Z
    assert instant("2026-05-01T10:00:00") == datetime(2026, 5, 1, 10, tzinfo=UTC)  # no offset: UTC


def test_span_and_order_key() -> None:
    vals = ["2026-05-01T09:30:00Z", "2026-05-01T10:00:00+02:00", None, "yesterday", "1970-01-01T00:00:00Z"]
    assert span(vals) == ("2026-05-01T10:00:00+02:00", "2026-05-01T09:30:00Z")
    assert span([None, "x"]) == (None, None)
    assert sorted(vals, key=order_key)[:2] == ["2026-05-01T10:00:00+02:00", "2026-05-01T09:30:00Z"]


def test_validator_uses_the_same_definition() -> None:
    # a trace time in a form forsy refuses is H001, whatever fromisoformat would say
    trace = {"started_at": "20260501T100000Z", "ended_at": "2026-05-01T10:00:00.000Z"}
    assert [f.rule for f in validate_trace(trace) if f.rule.startswith("H")] == ["H001"]
