"""A Codex rollout's lines read one by one (`sources/codex/_read.load_file`): each non-blank line
is one record counted and cited at its exact line, offset and bytes with its record type; what
is not JSON, JSON null, no object, no rollout record, nested too deep, cut at the end, or not
valid UTF-8 is counted and said with its line, in its words; each record classified (envelope,
state, the bare format's header and items) with its kind, type, time and payload pointer. And
the field reader every Codex module uses (`typed`, `bad_type`): a value of another type than
Codex writes is a warning naming the field or item, both types and the line, twenty at most.
Expectations worked out by hand from the bytes written below."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import zstandard

from forsy.errors import InputError
from forsy.evidence import Quality, Session, SessionMeta
from forsy.sources.codex._read import bad_type, head_text, load_file, typed
from forsy.sources.lines import Limits

T = "2026-08-01T10:00:00.000Z"
DEEP = b'{"type":"response_item","payload":{"x":' + b"[" * 200 + b"]" * 200 + b"}}"
LINES = [
    b'{"timestamp":"' + T.encode() + b'","type":"session_meta","payload":{"id":"x","cwd":"/w"}}',  # 1
    b"",  # 2: blank, not a record
    b"oops {",  # 3
    b"null",  # 4
    b"[1, 2]",  # 5
    b'{"timestamp":"T5","type":"response_item","payload":"text"}',  # 6: a payload that is no object
    b'{"type":"response_item","payload":{"type":"message","role":"user"}}\r',  # 7: no time; CRLF
    b'{"timestamp":"T7","type":"event_msg","payload":{"type":5}}',  # 8
    b'{"record_type":"state"}',  # 9
    b'{"id":"x","timestamp":"T9"}',  # 10: the bare format's header
    b'{"type":"message","role":"assistant"}',  # 11: a bare item
    b'{"foo":1}',  # 12
    b'{"timestamp":5,"type":"turn_context","payload":{}}',  # 13
    DEEP,  # 14
    b'{"timestamp":"T14","type":"event_msg","payload":{"type":"agent_message","message":"caf\xe9"}}',  # 15
    b"\xff\xfe not json",  # 16
    b'{"timestamp":"T16","type":"compacted","payload":{"message":"m"}}',  # 17: no newline after it
]


def _session() -> Session:
    return Session("codex", "", [], {}, [], SessionMeta(agent="codex-cli"), Quality())


def test_each_line_is_one_record_cited_at_its_bytes_with_its_kind(tmp_path: Path) -> None:
    data = b"\n".join(LINES)
    p = tmp_path / "rollout.jsonl"
    p.write_bytes(data)
    s = _session()
    got = load_file(p, "r.jsonl", s, Limits.from_env())
    assert (got.path, got.source, got.decompressed) == (p, "r.jsonl", False)
    assert (got.file.path, got.file.abs_path, got.file.kind, got.file.bytes, got.file.sha256) == (
        "r.jsonl", str(p.resolve()), "codex", len(data), hashlib.sha256(data).hexdigest())
    evs = list(s.evidence.values())
    want_types = {1: "session_meta", 7: "response_item:message", 8: "event_msg", 9: "state", 10: "bare_header",
                  11: "response_item:message", 13: "turn_context", 15: "event_msg:agent_message", 17: "compacted"}
    lines = [n for n in range(1, 18) if n != 2]
    assert [(e.line, e.record_type) for e in evs] == [(n, want_types.get(n)) for n in lines]
    for e, n in zip(evs, lines, strict=True):
        raw = LINES[n - 1].removesuffix(b"\r")  # the line's bytes without its line end
        assert (e.source, e.byte_offset, e.byte_length) == ("r.jsonl", sum(len(x) + 1 for x in LINES[: n - 1]),
                                                           len(raw))
        assert e.sha256 == hashlib.sha256(raw).hexdigest()
    ev = {e.line: e.id for e in evs}
    assert [(r.idx, r.line, r.ev, r.kind, r.sub, r.ts, r.base, r.lossy) for r in got.recs] == [
        (0, 1, ev[1], "session_meta", None, T, ("payload",), False),
        (1, 7, ev[7], "response_item", "message", None, ("payload",), False),
        (2, 8, ev[8], "event_msg", None, "T7", ("payload",), False),
        (3, 9, ev[9], "state", None, None, (), False),
        (4, 10, ev[10], "bare_header", None, "T9", (), False),
        (5, 11, ev[11], "response_item", "message", None, (), False),
        (6, 13, ev[13], "turn_context", None, None, ("payload",), False),
        (7, 15, ev[15], "event_msg", "agent_message", "T14", ("payload",), True),
        (8, 17, ev[17], "compacted", None, "T16", ("payload",), False),
    ]
    assert [r.payload for r in got.recs] == [
        {"id": "x", "cwd": "/w"}, {"type": "message", "role": "user"}, {"type": 5}, {"record_type": "state"},
        {"id": "x", "timestamp": "T9"}, {"type": "message", "role": "assistant"}, {}, {"type": "agent_message",
                                                                                     "message": "caf\ufffd"},
        {"message": "m"}]
    q = s.quality
    assert (q.records, q.unparsable_records, q.unknown_records) == (16, 4, 3)
    assert q.extra == {"invalid_utf8_records": 1, "bad_field_types": 1}
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("unparsable", "line is not JSON; skipped", "r.jsonl", 3),
        ("unparsable", "line is JSON null, not a record; skipped", "r.jsonl", 4),
        ("unknown_record", "JSON value is not a rollout record; skipped", "r.jsonl", 5),
        ("unknown_record", "JSON value is not a rollout record; skipped", "r.jsonl", 6),
        ("unknown_record", "JSON value is not a rollout record; skipped", "r.jsonl", 12),
        ("bad_field_type", "field 'timestamp' is an integer, not a string; ignored", "r.jsonl", 13),
        ("too_deep", "JSON nested deeper than 200 levels; skipped", "r.jsonl", 14),
        ("invalid_utf8", "invalid UTF-8 replaced by U+FFFD to read the line", "r.jsonl", 15),
        ("unparsable", "line is not JSON; skipped", "r.jsonl", 16),
        ("truncated_last_line", "last line has no newline but parsed", "r.jsonl", 17),
    ]


def test_a_cut_last_line_that_does_not_parse_is_said_twice(tmp_path: Path) -> None:
    p = tmp_path / "r.jsonl"
    p.write_bytes(b' null \n{"timestamp":"T","type":"event_msg","payload":{"type":"agent_mess')
    s = _session()
    got = load_file(p, "r.jsonl", s, Limits.from_env())
    assert got.recs == [] and [(e.line, e.record_type) for e in s.evidence.values()] == [(1, None), (2, None)]
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("unparsable", "line is JSON null, not a record; skipped", 1),  # `null` with spaces round it
        ("truncated_last_line", "last line has no newline and could not be parsed", 2),
        ("unparsable", "line is not JSON; skipped", 2)]
    assert (s.quality.records, s.quality.unparsable_records, s.quality.unknown_records) == (2, 2, 0)


def test_the_depth_limit_is_200_levels(tmp_path: Path) -> None:
    ok = b'{"type":"x","a":' + b"[" * 198 + b"]" * 198 + b"}"  # 199 levels: read
    p = tmp_path / "r.jsonl"
    p.write_bytes(ok + b"\n" + DEEP + b"\n")
    s = _session()
    got = load_file(p, "r.jsonl", s, Limits.from_env())
    assert [(r.line, r.kind, r.sub) for r in got.recs] == [(1, "response_item", "x")]
    assert [(w.code, w.line) for w in s.warnings] == [("too_deep", 2)] and s.quality.unparsable_records == 1


def test_a_zstd_rollout_is_read_decompressed_and_cited_in_the_stream(tmp_path: Path) -> None:
    plain = b'{"timestamp":"T","type":"session_meta","payload":{"id":"z"}}\n{"type":"message"}\n'
    packed = zstandard.ZstdCompressor().compress(plain)
    p = tmp_path / "r.jsonl.zst"
    p.write_bytes(packed)
    s = _session()
    got = load_file(p, "r.jsonl.zst", s, Limits.from_env())
    assert got.decompressed is True and (got.file.bytes, got.file.sha256) == (len(packed),
                                                                              hashlib.sha256(packed).hexdigest())
    assert [(e.line, e.byte_offset, e.byte_length) for e in s.evidence.values()] == [(1, 0, 60), (2, 61, 18)]
    assert [(r.kind, r.sub) for r in got.recs] == [("session_meta", None), ("response_item", "message")]
    assert s.warnings == []
    # cut inside its frame: the stream reader stops there as at an end, in silence; forsy says it
    p.write_bytes(packed[:-6])
    s = _session()
    got = load_file(p, "r.jsonl.zst", s, Limits.from_env())
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("zstd_damaged", "zstd stream ends inside a frame (cut short?); what it held before the cut is read",
         "r.jsonl.zst", None)]
    # something after the last frame that is no frame: what came before is read, the damage said
    p.write_bytes(packed + b"garbage!")
    s = _session()
    got = load_file(p, "r.jsonl.zst", s, Limits.from_env())
    assert [(r.kind, r.sub) for r in got.recs] == [("session_meta", None), ("response_item", "message")]
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("zstd_damaged", "zstd stream could not be read to its end: zstd decompressor error: Unknown frame descriptor",
         "r.jsonl.zst", None)]


def test_a_zstd_rollout_of_several_frames_and_one_cut_after_its_first_blocks(tmp_path: Path) -> None:
    lines = [b'{"type":"message","n":%d,"pad":"%s"}\n' % (n, (b"%08x" % (n * 2654435761 % 2**32)) * 8)
             for n in range(3000)]  # about 300 KiB: the second frame has two blocks of at most 128 KiB
    frames = [zstandard.ZstdCompressor().compress(b"".join(lines[:1000])),
              zstandard.ZstdCompressor().compress(b"".join(lines[1000:]))]
    p = tmp_path / "r.jsonl.zst"
    p.write_bytes(b"".join(frames))
    s = _session()
    got = load_file(p, "r", s, Limits.from_env())
    assert (len(got.recs), s.warnings) == (3000, [])
    # a frame, then a skippable frame ending at exactly 1 KiB (where a step of the reading ends), then the rest
    one = zstandard.ZstdCompressor().compress(b'{"type":"first"}\n')
    skip = b"\x50\x2a\x4d\x18" + (1024 - 8 - len(one)).to_bytes(4, "little") + b"\0" * (1024 - 8 - len(one))
    p.write_bytes(one + skip + b"".join(frames))
    s = _session()
    got = load_file(p, "r", s, Limits.from_env())
    assert (len(got.recs), got.recs[0].sub, s.warnings) == (3001, "first", [])
    p.write_bytes(b"".join(frames)[:-100])  # cut inside the second frame's last block
    s = _session()
    got = load_file(p, "r", s, Limits.from_env())
    cut = got.recs[-1].line + 1  # the line the cut fell in: not read
    assert [(w.code, w.line) for w in s.warnings] == [("zstd_damaged", None), ("truncated_last_line", cut),
                                                      ("unparsable", cut)]
    assert 1000 < len(got.recs) < 3000 and [r.line for r in got.recs] == list(range(1, len(got.recs) + 1))


def test_a_zstd_stream_past_the_caps_is_refused(tmp_path: Path) -> None:
    plain = b'{"type":"message"}\n' * 100  # 1,900 bytes
    p = tmp_path / "r.jsonl.zst"
    p.write_bytes(zstandard.ZstdCompressor().compress(plain))
    with pytest.raises(InputError) as e:
        load_file(p, "r", _session(), Limits(max_decompressed_bytes=1899))
    assert (e.value.message, e.value.path) == (
        "zstd stream expands past 1899 bytes (FORSY_MAX_DECOMPRESSED_BYTES); refused", str(p))
    got = load_file(p, "r", _session(), Limits(max_decompressed_bytes=1900))  # exactly the cap: read
    assert len(got.recs) == 100
    big = zstandard.ZstdCompressor().compress(b" " * (17 << 20))
    assert len(big) < 1024  # one step of the reading: the check comes after 17 MiB
    p.write_bytes(big)
    with pytest.raises(InputError) as e:
        load_file(p, "r", _session(), Limits())
    assert (e.value.message, e.value.path) == (
        f"zstd stream expands past 1000 times its size ({len(big)} bytes, {17 << 20} read so far): a zstd bomb? "
        "refused (FORSY_MAX_ZSTD_RATIO raises the limit)", str(p))
    got = load_file(p, "r", _session(), Limits(max_ratio=(17 << 20) // len(big) + 1))
    assert got.recs == []
    p.write_bytes(zstandard.ZstdCompressor().compress(b" " * (16 << 20)))  # up to 16 MiB, any ratio is read
    got = load_file(p, "r", _session(), Limits())
    assert got.recs == []


def test_a_head_is_decompressed_when_it_is_zstd() -> None:
    plain = b'{"type":"session_meta"}\n' * 10
    packed = zstandard.ZstdCompressor().compress(plain)
    assert head_text(Path("x"), plain[:30]) == plain[:30]
    assert head_text(Path("x"), packed) == plain
    assert plain.startswith(head_text(Path("x"), packed[:-4]))  # cut inside the frame: what was decoded
    big = b"x" * (3 << 20)
    assert head_text(Path("x"), zstandard.ZstdCompressor().compress(big)) == big[: 1 << 20]  # 1 MiB at most


def test_the_ratio_cap_waits_for_16_mib(tmp_path: Path) -> None:
    p = tmp_path / "r.jsonl.zst"
    p.write_bytes(zstandard.ZstdCompressor().compress(b'{"type":"message"}\n' * 100))  # 1,900 bytes, ratio > 2
    got = load_file(p, "r", _session(), Limits(max_ratio=2))
    assert len(got.recs) == 100


def test_what_is_a_record_and_what_is_not(tmp_path: Path) -> None:
    rows = [
        b'{"type":5,"payload":{"type":"message"}}',  # 1: a type that is no text: no record
        b'{"id":"x"}',  # 2: an id without a time: no header
        b'{"id":"x","timestamp":"T","type":"message"}',  # 3: typed: a bare item (its time kept), not a header
        b'{"id":"x","timestamp":5}',  # 4: a header whose time is no text
        b'{"type":"compacted","payload":{"type":"summary"}}',  # 5: only items and events name their type
        b'{"type":"event_msg","payload":{"type":""}}',  # 6: an empty type
        b"[" * 201 + b"]" * 201,  # 7: too deep, though no object
        b'{"record_type":"state","type":"x","payload":{}}',  # 8: an envelope first
        b'"text"',  # 9
        b'{"record_type":"state","timestamp":"T"}',  # 10: a state keeps no time, and its time is no damage
    ]
    p = tmp_path / "r.jsonl"
    p.write_bytes(b"\n".join(rows) + b"\n")
    s = _session()
    got = load_file(p, "r", s, Limits.from_env())
    assert [(r.line, r.kind, r.sub, r.ts, r.base) for r in got.recs] == [
        (3, "response_item", "message", "T", ()), (4, "bare_header", None, None, ()),
        (5, "compacted", "summary", None, ("payload",)), (6, "event_msg", "", None, ("payload",)),
        (8, "x", None, None, ("payload",)), (10, "state", None, None, ())]
    assert [(e.line, e.record_type) for e in s.evidence.values()] == [
        (1, None), (2, None), (3, "response_item:message"), (4, "bare_header"), (5, "compacted"), (6, "event_msg"),
        (7, None), (8, "x"), (9, None), (10, "state")]
    assert [(w.code, w.line) for w in s.warnings] == [
        ("unknown_record", 1), ("unknown_record", 2), ("bad_field_type", 4), ("too_deep", 7), ("unknown_record", 9)]
    assert (s.quality.records, s.quality.unparsable_records, s.quality.unknown_records) == (10, 1, 3)
    assert s.warnings[2].message == "field 'timestamp' is an integer, not a string; ignored"


# ------------------------------------------------------------------ typed fields


def test_a_field_of_another_type_is_said_with_both_types_and_its_line() -> None:
    s = _session()
    obj = {"b": True, "i": 3, "f": 1.5, "s": "x", "n": None, "l": [1], "o": {}}
    assert typed(s, "f.jsonl", 4, obj, "b", int) is None  # a bool is no integer here
    assert typed(s, "f.jsonl", 4, obj, "b", bool, int) is True
    assert typed(s, "f.jsonl", 4, obj, "i", int) == 3 and typed(s, "f.jsonl", 4, obj, "f", int, float) == 1.5
    assert typed(s, "f.jsonl", 4, obj, "n", str) is None and typed(s, "f.jsonl", 4, obj, "gone", str) is None
    assert typed(s, "f.jsonl", 5, obj, "l", dict) is None and typed(s, "f.jsonl", 6, obj, "o", list, str) is None
    assert typed(s, "f.jsonl", 7, obj, "s", int, float, bool) is None
    assert typed(s, "f.jsonl", 8, obj, "f", tuple) is None
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("bad_field_type", "field 'b' is a boolean, not an integer; ignored", "f.jsonl", 4),
        ("bad_field_type", "field 'l' is a list, not an object; ignored", "f.jsonl", 5),
        ("bad_field_type", "field 'o' is an object, not a list or a string; ignored", "f.jsonl", 6),
        ("bad_field_type", "field 's' is a string, not an integer or a number or a boolean; ignored", "f.jsonl", 7),
        ("bad_field_type", "field 'f' is a number, not tuple; ignored", "f.jsonl", 8),
    ]
    assert s.quality.extra == {"bad_field_types": 5}


def test_twenty_type_warnings_then_one_that_says_more_are_counted() -> None:
    s = _session()
    for n in range(21):
        assert typed(s, "f.jsonl", n + 1, {"k": n}, "k", str) is None
    assert len(s.warnings) == 21  # the 21st says that more are counted
    for n in range(21, 23):
        assert typed(s, "f.jsonl", n + 1, {"k": n}, "k", str) is None
    assert len(s.warnings) == 21 and s.quality.extra == {"bad_field_types": 23}
    assert [(w.message, w.line) for w in s.warnings[19:]] == [
        ("field 'k' is an integer, not a string; ignored", 20),
        ("more fields of an unexpected type (quality.extra counts them)", None)]
    assert (s.warnings[20].code, s.warnings[20].file) == ("bad_field_type", "f.jsonl")


def test_a_value_of_no_json_type_or_null_is_named() -> None:
    s = _session()
    bad_type(s, "f.jsonl", 3, 0, None, (dict,))
    bad_type(s, "f.jsonl", 4, "k", (1, 2), (str, list))
    assert [(w.message, w.line) for w in s.warnings] == [("item 0 is null, not an object; ignored", 3),
                                                         ("field 'k' is tuple, not a string or a list; ignored", 4)]


def test_each_line_of_invalid_utf8_is_counted(tmp_path: Path) -> None:
    p = tmp_path / "r.jsonl"
    p.write_bytes(b'{"type":"message","text":"\xff"}\n{"type":"message","text":"\xfe"}\n')
    s = _session()
    got = load_file(p, "r", s, Limits.from_env())
    assert [(r.lossy, r.payload["text"]) for r in got.recs] == [(True, "\ufffd"), (True, "\ufffd")]
    assert s.quality.extra == {"invalid_utf8_records": 2}
    assert [(w.code, w.line) for w in s.warnings] == [("invalid_utf8", 1), ("invalid_utf8", 2)]


def test_a_stream_of_exactly_the_ratio_cap_is_read(tmp_path: Path) -> None:
    frame = zstandard.ZstdCompressor().compress(b" " * (17 << 20))
    pad = 1024 - len(frame) - 8  # a skippable frame makes the file exactly 1 KiB
    p = tmp_path / "r.jsonl.zst"
    p.write_bytes(frame + b"\x50\x2a\x4d\x18" + pad.to_bytes(4, "little") + b"\0" * pad)
    s = _session()
    got = load_file(p, "r", s, Limits(max_ratio=17 << 10))  # 1 KiB x 17,408 = 17 MiB: at the cap, not past it
    assert (got.recs, s.warnings, got.file.bytes) == ([], [], 1024)
    with pytest.raises(InputError):
        load_file(p, "r", _session(), Limits(max_ratio=(17 << 10) - 1))
