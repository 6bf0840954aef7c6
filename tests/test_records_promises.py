"""_records.py's promises, byte offsets counted by hand: each record of a JSONL log or of a log
saved as one JSON array has its file, line, byte range, sha256 and type exact; every damaged line
is a warning naming the file and line, with the byte ranges it lost (a cut last line, a line of
NULs, NULs inside a line, bytes that are no UTF-8, spliced records, junk after a record, values
nested too deep, numbers past 64 bits); the counters add up; warnings past twenty of a kind are
counted in one line."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from forsy.evidence import Quality, ReadingWarning, Session, SessionMeta
from forsy.sources._records import MAX_DEPTH, Problem, Record, iter_json_array, iter_jsonl, too_deep, warn_problems

SRC = "logs/s.jsonl"


def _ev(rec: Record) -> tuple[str, int | None, int, int, str, str | None]:
    e = rec.ev
    return e.source, e.line, e.byte_offset, e.byte_length, e.sha256, e.record_type


def _h(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def _read(data: bytes, is_record: Any = None) -> tuple[list[Record], list[ReadingWarning], dict[str, int]]:
    warnings: list[ReadingWarning] = []
    counters: dict[str, int] = {}
    recs = list(iter_jsonl(data, SRC, warnings, counters, is_record))
    return recs, warnings, counters


# line (offset): 1 (0) a record, CRLF; 2 (20) empty; 3 (21) JSON, no object; 4 (27) a type that is
# no string; 5 (38) three NULs; 6 (42) a NUL inside; 7 (53) a byte that is no UTF-8; 8 (63) two
# records spliced and junk; 9 (82) no JSON; 10 (91) a number past 64 bits; 11 (122) cut, no newline
LOG = (b'{"type":"a","n":1}\r\n' + b"\n" + b"[1,2]\n" + b'{"type":5}\n' + b"\x00\x00\x00\n"
       + b'{"a":\x00"b"}\n' + b'{"x":"\xff"}\n' + b'{"a":1}{"b":2}junk\n' + b"not json\n"
       + b'{"n":123456789012345678901234}\n' + b'{"cut":"ab')


def test_every_record_of_a_log_has_its_exact_bytes_and_every_damaged_line_a_warning() -> None:
    assert len(LOG) == 132
    recs, warnings, counters = _read(LOG)
    assert [_ev(r) for r in recs] == [
        (SRC, 1, 0, 18, _h(b'{"type":"a","n":1}'), "a"),
        (SRC, 4, 27, 10, _h(b'{"type":5}'), None),
        (SRC, 6, 42, 10, _h(b'{"a":\x00"b"}'), None),  # the NUL stays in the bytes cited
        (SRC, 7, 53, 9, _h(b'{"x":"\xff"}'), None),
        (SRC, 8, 63, 7, _h(b'{"a":1}'), None),
        (SRC, 8, 70, 7, _h(b'{"b":2}'), None),
        (SRC, 10, 91, 30, _h(b'{"n":123456789012345678901234}'), None),
    ]
    assert [r.data for r in recs] == [{"type": "a", "n": 1}, {"type": 5}, {"a": "b"}, {"x": "\ufffd"},
                                      {"a": 1}, {"b": 2}, {"n": 123456789012345678901234}]
    assert [r.prefix for r in recs] == [""] * 7
    assert warnings == [
        ReadingWarning("not-an-object", "line is JSON but not an object; skipped", SRC, 3),
        ReadingWarning("nul-run", "a run of 3 NUL bytes; skipped", SRC, 5),
        ReadingWarning("nul-bytes", "NUL bytes removed from the line", SRC, 6),
        ReadingWarning("damaged-line", "line is damaged (spliced, cut or with junk); kept the 2 whole record(s) "
                       "that start it; bytes 14-18 lost", SRC, 8),
        ReadingWarning("unparsable-line", "line is not JSON (8 bytes); skipped: bytes 0-8 lost", SRC, 9),
        ReadingWarning("truncated-line", "last line is cut off (file still being written?); skipped: "
                       "bytes 0-10 lost", SRC, 11),
    ]
    assert counters == {"records": 8, "unparsable": 4, "damaged": 1}


def test_a_whole_last_record_without_newline_is_kept_and_said() -> None:
    recs, warnings, counters = _read(b'{"a":1}\n{"type":"t"}')
    assert [_ev(r) for r in recs] == [(SRC, 1, 0, 7, _h(b'{"a":1}'), None),
                                      (SRC, 2, 8, 12, _h(b'{"type":"t"}'), "t")]
    assert warnings == [ReadingWarning("no-final-newline", "last line has no newline (file still being written?)",
                                       SRC, 2)]
    assert counters == {"records": 2}


def test_numbers_past_64_bits_stay_exact_wherever_they_start() -> None:
    recs, warnings, _ = _read(b'{"a": -123456789012345678901234, "b": [99999999999999999999, 1]}\n'
                              b'{"s": "12345678901234567890123", "t": 1.5}\n')
    assert [r.data for r in recs] == [{"a": -123456789012345678901234, "b": [99999999999999999999, 1]},
                                      {"s": "12345678901234567890123", "t": 1.5}]
    assert warnings == []


def test_lone_surrogates_become_replacement_characters_in_keys_values_and_lists() -> None:
    recs, _, _ = _read(b'{"\\ud800k": ["\\udfff", {"v": "a\\ud83d"}], "n": 12345678901234567890123}\n')
    assert recs[0].data == {"\ufffdk": ["\ufffd", {"v": "a\ufffd"}], "n": 12345678901234567890123}
    assert recs[0].ev.byte_length == 71


def test_a_damaged_line_keeps_only_whole_records_that_start_it_with_byte_ranges() -> None:
    # é is two bytes, the BOM three, \xff one: ranges are bytes, not characters
    data = (b'{"a":"\xc3\xa9"}x\n'  # line 1 at 0: a record of 10 bytes, 1 byte of junk
            + b'\xef\xbb\xbf{"a":1}x\n'  # line 2 at 12: BOM, a record at 3-10, junk 10-11
            + b'{"a":"\xff"}{"b":1}\n'  # line 3 at 24: records at 0-9 and 9-16
            + b'{"a":1} \t\r{"b":2}\n'  # line 4 at 41: blanks between: 0-7 and 10-17
            + b'{"a":1}[1]{"b":2}\n'  # line 5 at 59: an array stops the reading: 7-17 lost
            + b'x{"a":1}\n')  # line 6 at 77: junk first: nothing kept
    recs, warnings, counters = _read(data)
    assert [_ev(r)[1:4] for r in recs] == [(1, 0, 10), (2, 15, 7), (3, 24, 9), (3, 33, 7), (4, 41, 7),
                                          (4, 51, 7), (5, 59, 7)]
    assert [r.ev.sha256 for r in recs] == [_h(b'{"a":"\xc3\xa9"}'), _h(b'{"a":1}'), _h(b'{"a":"\xff"}'),
                                          _h(b'{"b":1}'), _h(b'{"a":1}'), _h(b'{"b":2}'), _h(b'{"a":1}')]
    assert [r.data for r in recs] == [{"a": "é"}, {"a": 1}, {"a": "\ufffd"}, {"b": 1}, {"a": 1}, {"b": 2}, {"a": 1}]
    kept = "line is damaged (spliced, cut or with junk); kept the {} whole record(s) that start it; {} lost"
    assert warnings == [
        ReadingWarning("damaged-line", kept.format(1, "bytes 10-11"), SRC, 1),
        ReadingWarning("damaged-line", kept.format(1, "bytes 10-11"), SRC, 2),
        ReadingWarning("damaged-line", kept.format(2, "nothing"), SRC, 3),
        ReadingWarning("damaged-line", kept.format(2, "nothing"), SRC, 4),
        ReadingWarning("damaged-line", kept.format(1, "bytes 7-17"), SRC, 5),
        ReadingWarning("unparsable-line", "line is not JSON (8 bytes); skipped: bytes 0-8 lost", SRC, 6),
    ]
    assert counters == {"damaged": 5, "records": 7, "unparsable": 1}


def test_a_byte_order_mark_opening_the_file_is_said_and_read_past_not_called_damage() -> None:
    """Notepad and PowerShell 5 begin a UTF-8 file with a BOM: the first record starts after
    it (its range and hash are the record's bytes), the rest of the file is read as without it."""
    body = b'{"type":"a","n":1}\n{"type":"b"}\n'
    recs, warnings, counters = _read(b"\xef\xbb\xbf" + body)
    plain, plain_warnings, plain_counters = _read(body)
    assert [_ev(r)[1:4] for r in recs] == [(1, 3, 18), (2, 22, 12)]
    assert [r.ev.sha256 for r in recs] == [r.ev.sha256 for r in plain] == [_h(b'{"type":"a","n":1}'),
                                                                         _h(b'{"type":"b"}')]
    assert [r.data for r in recs] == [r.data for r in plain]
    assert warnings == [ReadingWarning("bom", "the file starts with a UTF-8 byte order mark (not JSON); read from "
                                              "the byte after it", SRC, 1)]
    assert (counters, plain_warnings) == (plain_counters, [])
    # a damaged first line is still damage, its lost bytes counted in the line as written
    recs, warnings, _ = _read(b'\xef\xbb\xbf{"a":1}x\n')
    assert [_ev(r)[1:4] for r in recs] == [(1, 3, 7)]
    assert [(w.code, w.message[-17:]) for w in warnings] == [("bom", "the byte after it"),
                                                             ("damaged-line", " bytes 10-11 lost")]


def test_what_the_caller_says_is_no_record_is_lost_and_the_records_after_it_kept() -> None:
    line = b'{"type":"x"}{"other":1}{"type":"y"}'  # 12 + 11 + 12 bytes
    recs, warnings, counters = _read(line + b"\n", lambda d: "type" in d)
    assert [_ev(r)[1:4] + (r.data,) for r in recs] == [(1, 0, 12, {"type": "x"}), (1, 23, 12, {"type": "y"})]
    assert warnings == [ReadingWarning("damaged-line", "line is damaged (spliced, cut or with junk); kept the 2 "
                                       "whole record(s) that start it; bytes 12-23 lost", SRC, 1)]
    # no rule: every whole object is a record
    assert [r.data for r in _read(line + b"\n")[0]] == [{"type": "x"}, {"other": 1}, {"type": "y"}]
    # a line holding no record of this log is a line lost whole
    recs, warnings, counters = _read(b'{"other":1}{"o":2}\n', lambda d: "type" in d)
    assert recs == [] and counters == {"unparsable": 1}
    assert warnings == [ReadingWarning("unparsable-line", "line is not JSON (18 bytes); skipped: bytes 0-11, "
                                       "bytes 11-18 lost", SRC, 1)]


def test_a_cut_last_line_keeps_the_whole_records_that_start_it() -> None:
    recs, warnings, _ = _read(b'{"a":1}\n{"b":2}{"c":')
    assert [_ev(r)[1:4] for r in recs] == [(1, 0, 7), (2, 8, 7)]
    assert warnings == [ReadingWarning("damaged-line", "line is damaged (spliced, cut or with junk); kept the 1 "
                                       "whole record(s) that start it; bytes 7-12 lost", SRC, 2)]


def test_nesting_too_deep_for_the_parser_in_a_damaged_line_is_lost_not_fatal() -> None:
    line = b'{"a":1}' + b'{"a":' * 5000
    recs, warnings, _ = _read(line + b"\n")
    assert [_ev(r)[1:4] for r in recs] == [(1, 0, 7)]
    assert warnings[0].message.endswith(f"kept the 1 whole record(s) that start it; bytes 7-{len(line)} lost")


def _nested(lists: int, extra: bytes = b"") -> bytes:
    return b'{' + extra + b'"a":' + b"[" * lists + b"]" * lists + b"}"


def test_a_record_nesting_past_the_limit_is_skipped_and_one_at_it_kept() -> None:
    assert MAX_DEPTH == 200
    at = _nested(199, b'"s":"[[",')  # 202 brackets, 200 levels (the object and 199 lists)
    past = _nested(200)  # 201 levels
    recs, warnings, counters = _read(at + b"\n" + past + b"\n" + at + past + b"\n")
    assert [_ev(r)[1:4] for r in recs] == [(1, 0, len(at)), (3, len(at) + len(past) + 2, len(at))]
    deep = f"record nests values more than {MAX_DEPTH} levels deep; skipped"
    assert warnings == [ReadingWarning("too-deep", deep, SRC, 2),
                        ReadingWarning("damaged-line", "line is damaged (spliced, cut or with junk); kept the 1 "
                                       f"whole record(s) that start it; bytes {len(at)}-{len(at) + len(past)} lost",
                                       SRC, 3)]
    assert counters == {"records": 3, "unparsable": 1, "damaged": 1}


def test_too_deep_counts_levels_of_objects_and_lists() -> None:
    assert not too_deep(b"[" * 300, {"a": [[]]})  # few levels, whatever the brackets
    value: Any = []
    for _ in range(199):
        value = [value]
    assert not too_deep(b"[" * 201, value)  # 200 lists
    assert too_deep(b"[" * 201, [value])  # 201
    assert too_deep(b"[" * 201, {"k": value})  # an object and 200 lists
    assert not too_deep(b"[" * 200, [value])  # 200 brackets cannot nest deeper than 200


def test_an_array_log_gives_each_element_its_line_and_bytes() -> None:
    data = b'[\n  {"type":"a"},\n  5,\n  {"b":"\xc3\xa9"}\n]\n'
    warnings: list[ReadingWarning] = []
    counters: dict[str, int] = {}
    recs = list(iter_json_array(data, SRC, warnings, counters))
    assert [_ev(r) for r in recs] == [(SRC, 2, 4, 12, _h(b'{"type":"a"}'), "a"),
                                      (SRC, 4, 25, 10, _h(b'{"b":"\xc3\xa9"}'), None)]
    assert [r.data for r in recs] == [{"type": "a"}, {"b": "é"}]
    assert warnings == [ReadingWarning("not-an-object", "array element is int, not an object; skipped", SRC, 3)]
    assert counters == {"records": 3, "unparsable": 1}


def _array(data: bytes) -> tuple[list[tuple[int | None, int, int]], list[Any], list[ReadingWarning], dict[str, int]]:
    warnings: list[ReadingWarning] = []
    counters: dict[str, int] = {}
    recs = list(iter_json_array(data, SRC, warnings, counters))
    return [_ev(r)[1:4] for r in recs], [r.data for r in recs], warnings, counters


def test_an_array_after_a_bom_and_elements_over_several_lines() -> None:
    assert _array(b'\xef\xbb\xbf[{"a":1}]')[:2] == ([(1, 4, 7)], [{"a": 1}])
    assert _array(b'[{\n"a":1\n},{"b":2} ,\r\n\t{"c":"\\ud800"}]')[:2] == (
        [(1, 1, 9), (3, 11, 7), (4, 23, 14)], [{"a": 1}, {"b": 2}, {"c": "\ufffd"}])
    assert _array(b"[]") == ([], [], [], {})


CUT = "the file ends inside the array (still being written?)"


def test_an_array_cut_after_an_element_is_said_with_the_line_it_ends_on() -> None:
    assert _array(b'[\n  {"a":1},\n  ') == ([(2, 4, 7)], [{"a": 1}], [ReadingWarning("truncated", CUT, SRC, 3)],
                                          {"records": 1})
    assert _array(b"[") == ([], [], [ReadingWarning("truncated", CUT, SRC, 1)], {})
    assert _array(b'[{"a":1}') == ([(1, 1, 7)], [{"a": 1}], [ReadingWarning("truncated", CUT, SRC, 1)],
                                  {"records": 1})
    assert _array(b"") == ([], [], [], {})  # no array at all: nothing cut


def test_an_element_that_is_no_json_is_skipped_naming_the_bytes_lost() -> None:
    # its end is told by its brackets, and the array goes on after it: it alone is lost
    assert _array(b'[{"a":1},\n{"b":}]') == ([(1, 1, 7)], [{"a": 1}], [ReadingWarning(
        "unparsable-element", "array element is not JSON; skipped (bytes 10-16 of the file lost)", SRC, 2)],
        {"records": 1, "unparsable": 1})
    # no element's brackets: the array stops there. Counted in bytes: the element before holds a
    # two-byte character
    assert _array(b'[{"a":"\xc3\xa9"},x]')[2][0].message == (
        "array element is not JSON; stopped reading (bytes 12-14 of the file lost)")


def test_an_element_nesting_past_the_limit_is_skipped_and_the_next_one_read() -> None:
    past = _nested(200)
    spans, data, warnings, counters = _array(b"[" + past + b',\n{"c":1}]')
    assert spans == [(2, len(past) + 3, 7)] and data == [{"c": 1}]
    assert warnings == [ReadingWarning("too-deep", f"record nests values more than {MAX_DEPTH} levels deep; skipped",
                                       SRC, 1)]
    assert counters == {"records": 2, "unparsable": 1}


def _session() -> Session:
    return Session("shell", "", [], {}, [], SessionMeta(), Quality())


@pytest.mark.parametrize("n_x", [20, 22])
def test_twenty_warnings_of_a_kind_then_one_line_counting_the_rest(n_x: int) -> None:
    problems = [Problem("x", f"bad {i}", i) for i in range(1, 4)] + [Problem("y", "odd", 7)]
    problems += [Problem("x", f"bad {i}", i) for i in range(4, n_x + 1)]
    problems += [Problem("z", "zz", 100 + i) for i in range(20)]
    s = _session()
    warn_problems(s, "h.txt", problems, frozenset({"x", "z"}))
    assert s.quality.unparsable_records == n_x + 20
    expected = ([ReadingWarning("x", f"bad {i}", "h.txt", i) for i in range(1, 4)]
                + [ReadingWarning("y", "odd", "h.txt", 7)]
                + [ReadingWarning("x", f"bad {i}", "h.txt", i) for i in range(4, 21)]
                + [ReadingWarning("z", "zz", "h.txt", 100 + i) for i in range(20)])
    if n_x == 22:
        expected.append(ReadingWarning("x", "2 more lines with this problem", "h.txt", None))
    assert s.warnings == expected


def test_junk_between_records_is_lost_and_so_is_all_after_it() -> None:
    recs, warnings, _ = _read(b'{"a":1}X{"b":2}\n')
    assert [_ev(r)[1:4] for r in recs] == [(1, 0, 7)]
    assert warnings == [ReadingWarning("damaged-line", "line is damaged (spliced, cut or with junk); kept the 1 whole "
                                       "record(s) that start it; bytes 7-15 lost", SRC, 1)]


def test_an_array_after_blank_lines_with_bytes_that_are_no_utf8_and_junk() -> None:
    # line 3 at byte 3: [ then an element of 14 bytes (one byte no UTF-8), then junk at byte 18
    data = b'\n \n[{"type":5,"a":"\xff"}X{"b":2}]'
    spans, values, warnings, counters = _array(data)
    assert spans == [(3, 4, 18)]
    assert values == [{"type": 5, "a": "\ufffd"}]
    assert warnings == [ReadingWarning("unparsable-element", "array element is not JSON; stopped reading "
                                       "(bytes 22-31 of the file lost)", SRC, 3)]
    assert counters == {"records": 1, "unparsable": 1}
    warnings = []
    [rec] = iter_json_array(data, SRC, warnings, {})
    assert (rec.ev.record_type, rec.ev.sha256) == (None, _h(b'{"type":5,"a":"\xff"}'))


def test_a_damaged_line_of_64_million_bytes_is_lost_whole_without_a_search() -> None:
    # past 64,000,000 bytes a damaged line is not searched for records (linear, but slow and big)
    line = b'{"a":1}' + b"x" * (64_000_000 - 7)
    recs, warnings, counters = _read(line + b"\n")
    assert recs == [] and counters == {"unparsable": 1}
    assert warnings == [ReadingWarning("unparsable-line", "line is not JSON (64000000 bytes); skipped: "
                                       "bytes 0-64000000 lost", SRC, 1)]
    recs, warnings, _ = _read(line[:-1] + b"\n")  # one byte less: searched
    assert [_ev(r)[1:4] for r in recs] == [(1, 0, 7)]
