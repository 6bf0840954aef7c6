"""A recording of one program (`asciinema rec -c CMD`: the header's `command`, no shell prompt):
the program is one call at the recording's start, its result everything it printed, ending at
the last event (at the start for a recording with no event), and it finished (the recording
ended with it: no "unfinished" warning). Expectations worked out by hand from the casts below."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.sources import ReadContext
from forsy.sources.asciinema import AsciinemaSource

START = "2025-10-09T08:53:20.000000Z"  # the header's timestamp, 1760000000


def _read(tmp_path: Path, events: list[Any]) -> Any:
    p = tmp_path / "rec.cast"
    head = {"version": 2, "width": 80, "height": 24, "timestamp": 1760000000, "command": "python app.py"}
    p.write_text("\n".join(json.dumps(x) for x in [head, *events]) + "\n")
    (s,) = AsciinemaSource().read(p, ReadContext(root=tmp_path))
    return s


def test_a_program_recording_with_no_event_is_one_call_ended_at_its_start(tmp_path: Path) -> None:
    s = _read(tmp_path, [])
    assert [(e.kind, e.ts, e.text if e.kind != "tool_call" else e.args) for e in s.events] == [
        ("tool_call", START, "python app.py"), ("tool_result", START, "")]
    assert s.warnings == [] and s.quality.extra == {"commands": 1, "exit_codes_unrecorded": 1}


def test_a_program_recording_ends_at_its_last_event_finished(tmp_path: Path) -> None:
    s = _read(tmp_path, [[0.5, "o", "hello\r\n"], [1.25, "o", "bye\r\n"]])
    assert [(e.kind, e.ts, e.text if e.kind != "tool_call" else e.args) for e in s.events] == [
        ("tool_call", START, "python app.py"), ("tool_result", "2025-10-09T08:53:21.250000Z", "hello\nbye")]
    assert [w.code for w in s.warnings] == []  # it finished with the recording: no "unfinished-command"
