"""The one failure an asciinema recording can hold: the exit status of a one-program recording
(asciicast v3 `x` event). Each status is read as written (0 a success, anything else a failure),
cited where it was read; a status that is no number, or one in a shell recording (where it is
the shell's, not a command's), says nothing about any command. Worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forsy.evidence import Event, Mark, Session
from forsy.payloads import ResultInfo
from forsy.sources import ReadContext
from forsy.sources.asciinema import AsciinemaSource

HEADER = {"version": 3, "term": {"cols": 80, "rows": 24}, "timestamp": 1767261600, "command": "make test"}


def read(tmp_path: Path, lines: list[object], header: object = HEADER) -> Session:
    p = tmp_path / "rec.cast"
    p.write_text("\n".join(json.dumps(x) for x in [header, *lines]) + "\n")
    (s,) = AsciinemaSource().read(p, ReadContext(root=tmp_path))
    return s


def result(s: Session) -> Event:
    (r,) = [e for e in s.events if e.kind == "tool_result"]
    return r


@pytest.mark.parametrize(("status", "code", "error"), [("0", 0, False), ("2", 2, True), ("-1", -1, True),
                                                       (" 137\n", 137, True)])
def test_a_program_s_exit_status_is_its_failure_or_success(tmp_path: Path, status: str, code: int,
                                                            error: bool) -> None:
    s = read(tmp_path, [[0.5, "o", "building\r\n"], [0.25, "x", status]])
    r = result(s)
    assert isinstance(r.info, ResultInfo)
    assert (r.is_error, r.info.exit_code) == (error, code)
    x_line = next(ev for ev in s.evidence.values() if ev.line == 3)
    assert r.info.exit_code_from is not None
    assert (r.info.exit_code_from.ev, r.info.exit_code_from.pointer) == (x_line.id, "/2")
    assert s.ledger[x_line.id] == Mark("metadata", "exit status of the recorded process (x event)")
    assert "exit_codes_unrecorded" not in s.quality.extra


def test_a_status_that_is_no_number_or_no_status_says_nothing(tmp_path: Path) -> None:
    for lines in ([[0.5, "o", "done\r\n"], [0.25, "x", "killed"]], [[0.5, "o", "done\r\n"]]):
        r = result(read(tmp_path, lines))
        assert isinstance(r.info, ResultInfo)
        assert (r.is_error, r.info.exit_code, r.info.exit_code_from) == (None, None, None)


def test_an_exit_status_in_a_shell_recording_is_no_command_s(tmp_path: Path) -> None:
    header = {"version": 3, "term": {"cols": 80, "rows": 24}, "timestamp": 1767261600}
    s = read(tmp_path, [[0.1, "o", "$ "], [0.5, "i", "false\r"], [0.01, "o", "false\r\n"], [0.1, "o", "$ "],
                        [0.5, "i", "exit\r"], [0.01, "o", "exit\r\n"], [0.1, "x", "1"]], header)
    results = [e for e in s.events if e.kind == "tool_result"]
    assert [e.is_error for e in results] == [None] * len(results) and len(results) >= 1
    assert s.quality.extra["exit_codes_unrecorded"] == len(results)
