"""A tool result's `toolUseResult` is cut down to what later rules read as the session is read
(`_rich.Slimmed`): what reaches the events is what the whole value gave, and resume replays are
still told apart by the whole value, not by the part kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _small_logs import answer, call, result, user, write
from forsy.evidence import Session
from forsy.payloads import ResultInfo
from forsy.sources import ReadContext
from forsy.sources.claude_code import ClaudeCodeSource
from forsy.sources.claude_code._rich import Slimmed, slim_rich


def _read(path: Path) -> Session:
    [s] = ClaudeCodeSource().read(path, ReadContext(root=path.parent))
    return s


def _session(tmp_path: Path, *results: dict[str, Any]) -> Session:
    recs = [user(0, "u1", None, "Edit it."), call(1, "a1", "u1", "t1", "Edit", {"file_path": "x.py"}), *results,
            answer(9, "a9", results[-1]["uuid"], "Done.")]
    return _read(write(tmp_path / "s.jsonl", recs))


def _rich(s: Session) -> list[tuple[Any, str | None]]:
    out = []
    for e in s.events:
        if e.kind == "tool_result" and isinstance(e.info, ResultInfo):
            out.append((e.info.rich, e.info.rich_ref.pointer if e.info.rich_ref else None))
    return out


WHOLE: dict[str, Any] = {"filePath": "x.py", "oldString": "a" * 5000, "newString": "b", "originalFile": "a" * 9000,
         "structuredPatch": [{"oldStart": 1, "lines": ["-a", "+b"]}], "userModified": False}


def test_the_events_get_what_the_whole_value_gave(tmp_path: Path) -> None:
    cases: list[tuple[Any, Any]] = [
        (WHOLE, {"filePath": "x.py", "structuredPatch": WHOLE["structuredPatch"], "userModified": False,
                 "had_original": True}),
        ({**WHOLE, "originalFile": None}, {**slim_rich(WHOLE), "had_original": False}),
        ("Error: " + "x" * 3000, "Error: " + "x" * 1993),
        ([{"type": "text", "text": "an MCP tool's blocks"}], None),
    ]
    for whole, slim in cases:
        res = dict(result(2, "r1", "a1", "t1", "ok"), toolUseResult=whole)
        assert _rich(_session(tmp_path, res)) == [(slim, "/toolUseResult")], whole


def _unsaid(rec: dict[str, Any]) -> dict[str, Any]:
    del rec["message"]["content"][0]["is_error"]  # the writer said nothing: toolUseResult tells
    return rec


def test_a_result_given_as_error_text_or_rejection_reads_as_before(tmp_path: Path) -> None:
    res = dict(_unsaid(result(2, "r1", "a1", "t1", "no such file")), toolUseResult="Error: no such file " + "." * 4000)
    [e] = [e for e in _session(tmp_path, res).events if e.kind == "tool_result"]
    assert e.is_error is True
    res = dict(result(2, "r1", "a1", "t1", "no"), toolUseResult="User rejected the edit " + "." * 4000)
    [e] = [e for e in _session(tmp_path, res).events if e.kind == "tool_result"]
    assert isinstance(e.info, ResultInfo) and e.info.rejected is True


def test_a_null_tool_use_result_is_no_rich_result(tmp_path: Path) -> None:
    res = dict(result(2, "r1", "a1", "t1", "ok"), toolUseResult=None)
    assert _rich(_session(tmp_path, res)) == [(None, None)]


def test_a_replay_whose_result_differs_only_past_the_kept_keys_is_kept_and_warned(tmp_path: Path) -> None:
    first = dict(result(2, "r1", "a1", "t1", "ok"), toolUseResult=WHOLE)
    other = dict(first, timestamp="2026-01-01T11:00:00.000Z", toolUseResult={**WHOLE, "newString": "c"})
    s = _session(tmp_path, first, other)
    assert s.quality.duplicate_records == 0
    assert [w.code for w in s.warnings] == ["uuid-reused"]
    assert len(_rich(s)) == 2


def test_a_replay_of_the_same_result_with_keys_in_another_order_is_a_duplicate(tmp_path: Path) -> None:
    first = dict(result(2, "r1", "a1", "t1", "ok"), toolUseResult=WHOLE)
    again = dict(first, timestamp="2026-01-01T11:00:00.000Z", toolUseResult=dict(reversed(WHOLE.items())))
    s = _session(tmp_path, first, again)
    assert s.quality.duplicate_records == 1 and len(_rich(s)) == 1


def test_slimmed_values_are_equal_exactly_when_the_whole_values_are() -> None:
    big = 1 << 70  # beyond orjson: the stdlib writes it
    assert Slimmed.of({"a": 1, "b": [big]}) == Slimmed.of({"b": [big], "a": 1})
    assert Slimmed.of({"a": 1, "b": [big]}) != Slimmed.of({"a": 1, "b": [big + 1]})
    assert Slimmed.of("x" * 3000) != Slimmed.of("x" * 3001)  # the part kept is the same
    assert Slimmed.of("\ud800 lone") != Slimmed.of("\ud801 lone")
    assert slim_rich(Slimmed.of(WHOLE)) == slim_rich(WHOLE)


def test_the_records_read_hold_no_whole_result(tmp_path: Path) -> None:
    # a third of a large session's bytes: held whole, they raised the read's peak by a sixth
    from forsy.evidence import Quality, SessionMeta
    from forsy.sources.claude_code._load import load_records

    path = write(tmp_path / "s.jsonl", [user(0, "u1", None, "Go."), dict(result(1, "r1", "u1", "t1", "ok"),
                                                                        toolUseResult=WHOLE)])
    session = Session("claude_code", "", [], {}, [], SessionMeta(agent="claude-code"), Quality())
    held = [r.data.get("toolUseResult") for r in load_records(path, ReadContext(root=tmp_path), session)]
    assert held == [None, Slimmed.of(WHOLE)]
    assert held[1].value == slim_rich(WHOLE)
