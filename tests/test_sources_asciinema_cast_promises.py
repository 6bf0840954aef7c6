"""An asciicast file line by line (`asciinema._cast.parse`): the header and each event located
to the byte with its record type, v3 comments kept as evidence, v3 intervals summed (a
negative one read as 0, said), v2 times that go back said, and every line that is no event
named with its line and why. The header's timestamp gives the times, or a problem saying why
there are none. Every offset, time and message worked out by hand.
"""

from __future__ import annotations

import json

import pytest

from forsy.sources._records import Problem
from forsy.sources.asciinema._cast import Cast, parse

V3 = b'{"version": 3, "term": {"cols": 80, "rows": 24}, "timestamp": 1767261600}'  # 73 bytes


def cast_of(*lines: bytes) -> Cast:
    c = parse(b"\n".join(lines) + b"\n", "r.cast")
    assert c is not None
    return c


def test_a_v3_recording_line_by_line() -> None:
    c = cast_of(V3, b"# a comment", b'[0.5, "o", "a"]', b'[-1, "i", "b"]', b'[0.25, "r", "90x30"]',
                b'[1, "m", ""]', b'[0, "x", "0"]', b'[0, "q", "?"]')
    h = c.header_ev
    assert (c.version, h.line, h.byte_offset, h.byte_length, h.record_type) == (3, 1, 0, 73, "header")
    (cm,) = c.comments
    assert (cm.line, cm.byte_offset, cm.byte_length, cm.record_type) == (2, 74, 11, "comment")
    assert [(e.ev.line, e.ev.byte_offset, e.ev.record_type, e.t, e.code, e.data) for e in c.events] == [
        (3, 86, "event_o", 0.5, "o", "a"),
        (4, 102, "event_i", 0.5, "i", "b"),  # -1 read as 0
        (5, 117, "event_r", 0.75, "r", "90x30"),
        (6, 138, "event_m", 1.75, "m", ""),
        (7, 151, "event_x", 1.75, "x", "0"),
        (8, 165, "event", 1.75, "q", "?"),  # a code asciicast does not define: kept, typed plainly
    ]
    assert c.problems == [Problem("negative-interval", "interval -1.0 is negative; read as 0", 4)]
    assert (c.iso(0.0), c.iso(1.75), c.iso(1e-6)) == (
        "2026-01-01T10:00:00.000000Z", "2026-01-01T10:00:01.750000Z", "2026-01-01T10:00:00.000001Z")
    # a v2 recording has no comments: a line starting with # is a line that is no event
    c = cast_of(b'{"version": 2, "width": 80, "timestamp": 0}', b"# not a comment")
    assert (c.comments, c.problems) == ([], [Problem("unparsable-line", "not a JSON event line", 2)])


def test_v2_times_are_seconds_since_the_start_and_going_back_is_said() -> None:
    c = cast_of(b'{"version": 2, "width": 80, "timestamp": 1767261600}', b'[1, "o", "a"]', b'[2.5, "o", "b"]',
                b'[2.5, "o", "c"]', b'[2, "o", "d"]', b'[0, "o", "e"]')
    assert [e.t for e in c.events] == [1.0, 2.5, 2.5, 2.0, 0.0]
    assert c.problems == [Problem("time-goes-back", "time 2.0 is before the event before it (2.5)", 5),
                          Problem("time-goes-back", "time 0.0 is before the event before it (2.0)", 6)]


@pytest.mark.parametrize(("line", "why"), [
    (b"[1, \"o\"", "not a JSON event line"),
    (b"[1, \"o\"]", "not a [time, code, data] event"),
    (b"[1, \"o\", \"a\", \"b\"]", "not a [time, code, data] event"),
    (b"\"abc\"", "not a [time, code, data] event"),
    (b"{\"a\": 1, \"b\": 2, \"c\": 3}", "not a [time, code, data] event"),
    (b"[true, \"o\", \"a\"]", "an event whose time, code or data has the wrong type"),
    (b"[\"1\", \"o\", \"a\"]", "an event whose time, code or data has the wrong type"),
    (b"[1, 5, \"a\"]", "an event whose time, code or data has the wrong type"),
    (b"[1, \"o\", 5]", "an event whose time, code or data has the wrong type"),
    (b"[1, \"o\", null]", "an event whose time, code or data has the wrong type"),
    (b"[NaN, \"o\", \"a\"]", "an event whose time, code or data has the wrong type"),
    (b"[1e400, \"o\", \"a\"]", "an event whose time, code or data has the wrong type"),
    (b"[" + b"9" * 400 + b", \"o\", \"a\"]", "an event whose time, code or data has the wrong type"),
])
def test_a_line_that_is_no_event_is_named(line: bytes, why: str) -> None:
    c = cast_of(V3, b'[0.5, "o", "ok"]', line)
    assert [e.data for e in c.events] == ["ok"]
    assert c.problems == [Problem("unparsable-line", why, 3)]


def test_a_lone_surrogate_is_replaced_and_said() -> None:
    c = cast_of(V3, json.dumps([0.5, "o", "a\ud800b"]).encode())
    assert [e.data for e in c.events] == ["a\ufffdb"]
    assert c.problems == [Problem("lossy-text", "data holds a lone surrogate (\\ud800-\\udfff); read as U+FFFD", 2)]


@pytest.mark.parametrize(("ts", "problem"), [
    (None, Problem("no-timestamp", "the header has no timestamp: the commands have no times", 1)),
    ('"2026-01-01"', Problem("bad-timestamp", "header timestamp '2026-01-01' is not a number; no times", 1)),
    ("true", Problem("bad-timestamp", "header timestamp True is not a number; no times", 1)),
    ("1e20", Problem("bad-timestamp", "header timestamp 1e+20 is not a date; no times", 1)),
])
def test_a_header_with_no_usable_timestamp_gives_no_times(ts: str | None, problem: Problem) -> None:
    head = b'{"version": 2, "width": 80' + (b', "timestamp": ' + ts.encode() if ts is not None else b"") + b"}"
    c = cast_of(head, b'[1, "o", "a"]')
    assert (c.start, c.iso(1.0), c.problems) == (None, None, [problem])


def test_a_header_timestamp_with_a_fraction_and_a_time_past_any_date() -> None:
    c = cast_of(b'{"version": 2, "height": 24, "timestamp": 1767261600.5}')
    assert (c.problems, c.iso(0.25), c.iso(1e300)) == ([], "2026-01-01T10:00:00.750000Z", None)


def test_no_header_no_recording() -> None:
    assert parse(b"", "r.cast") is None
    assert parse(b"\n\n", "r.cast") is None
    assert parse(b'[0.5, "o", "a"]\n', "r.cast") is None
    assert parse(b'{"version": 2}\n', "r.cast") is None  # v2 names a width or a height
    assert parse(b'{"version": 3, "term": "xterm"}\n', "r.cast") is None  # v3's term is an object
    assert parse(b'{"version": true, "width": 1}\n', "r.cast") is None
    c = parse(b'\n{"version": 2, "width": 80}\n', "r.cast")  # blank lines before it are no lines
    assert c is not None and (c.header_ev.line, c.header_ev.byte_offset) == (2, 1)
