"""A log read as a stream of lines gives what the same bytes read whole give.

`LineStream` is how a Claude Code session is read without holding the file whole beside its
records: its lines (numbers, byte offsets, terminators), and the size and sha256 it reports
once read, must be exactly `iter_lines` and `sha256` over the whole bytes, or every evidence
id and the trace id would change.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from _paths import SAMPLES
from forsy.errors import InputError
from forsy.evidence import Quality, Session, SessionMeta
from forsy.sources import ReadContext
from forsy.sources.claude_code._load import load_records
from forsy.sources.lines import Limits, LineStream, iter_lines

SHAPES = [
    b"",
    b"\n\n",
    b'{"a":1}\n{"b":2}\n',
    b'{"a":1}\r\n\r\n  \n{"b":2}\r\n',
    b'{"a":1}\n{"b":2}',  # no final newline
    b'{"a":1}\n{"b":2}\r\r',  # a last line ending in carriage returns, no newline
    b'{"a":1}\r\r\n',  # one \r before the newline is the terminator, the other stays
    b"\n\n \t\n{}\n   ",
    b'\xff\xfe{"bad utf8":1}\n\x00\x00\x00\n{"x":"\xe2\x82"}\n',
    b"x" * 200_000 + b"\n" + b"y" * 70_000,  # lines longer than any read buffer
]


@pytest.mark.parametrize("data", SHAPES)
@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 4096, LineStream.CHUNK])
def test_stream_is_iter_lines_over_the_whole_file(tmp_path: Path, data: bytes, chunk: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # small reads put every line end, and a \r\n split across two reads, on a read's edge
    monkeypatch.setattr(LineStream, "CHUNK", chunk)
    p = tmp_path / "s.jsonl"
    p.write_bytes(data)
    with LineStream(p) as stream:
        got = list(stream)
        assert (stream.size, stream.sha256) == (len(data), hashlib.sha256(data).hexdigest())
    assert got == list(iter_lines(data))


def test_starts_with_sees_past_leading_blanks_and_rewinds(tmp_path: Path) -> None:
    p = tmp_path / "a.json"
    p.write_bytes(b" \n" * 40_000 + b'[{"a":1}]\n')
    with LineStream(p) as stream:
        assert stream.starts_with(b"[")
        assert [rl.line for rl in stream] == [40_001]
    p.write_bytes(b'\n{"a":1}\n')
    with LineStream(p) as stream:
        assert not stream.starts_with(b"[")
        assert [rl.offset for rl in stream] == [1]


def test_stream_keeps_the_cap_of_a_file_read_whole(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(b"{}\n" * 1000)
    with pytest.raises(InputError, match=r"3000 bytes, more than the 1000-byte limit"):
        LineStream(p, Limits(max_file_bytes=1000))
    with pytest.raises(InputError, match="FORSY_MAX_FILE_BYTES"):
        load_records(p, ReadContext(root=tmp_path, limits=Limits(max_file_bytes=1000)),
                     Session("claude_code", "", [], {}, [], SessionMeta(), Quality()))


def test_a_claude_session_names_the_bytes_it_was_read_from() -> None:
    logs = sorted((SAMPLES / "claude").rglob("*.jsonl"))[:5] + [SAMPLES / "claude" / "hook-array.json"]
    for p in logs:
        s = Session("claude_code", "", [], {}, [], SessionMeta(), Quality())
        recs = load_records(p, ReadContext(root=p.parent), s)
        data = p.read_bytes()
        assert recs and (s.files[0].bytes, s.files[0].sha256) == (len(data), hashlib.sha256(data).hexdigest())
