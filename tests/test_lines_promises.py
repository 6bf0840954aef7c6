"""lines.py's promises, with byte offsets counted by hand: every line of a log with its number,
offset and bytes (CRLF, BOM, NUL, bytes that are no UTF-8, blank lines, a cut last line), the same
through `LineStream` at any read size; what `open_regular` refuses and how it names it (a
directory, a FIFO, a device, a socket, a file swapped for a FIFO after its stat, a failing open);
the limits from the environment; the head a sniff sees; what `discover_sniffed` takes."""

from __future__ import annotations

import errno
import hashlib
import io
import os
import socket
import threading
from pathlib import Path

import pytest

from forsy.errors import InputError
from forsy.sources import lines
from forsy.sources.lines import (
    ENV_DECOMPRESSED,
    ENV_FILE,
    ENV_RATIO,
    HEAD,
    Limits,
    LineStream,
    RawLine,
    discover_sniffed,
    iter_lines,
    open_regular,
    sniff_file,
)

# line 1 at 0: BOM + "a" + CRLF (6 bytes); line 2 at 6: empty; line 3 at 7: " \t" (blank);
# line 4 at 10: two NULs; line 5 at 13: two bytes that are no UTF-8, "b", two CRs (one is the
# terminator's); line 6 at 19: "cut" with no newline (3 bytes; 22 in all)
DATA = b"\xef\xbb\xbfa\r\n" + b"\n" + b" \t\n" + b"\x00\x00\n" + b"\xff\xfeb\r\r\n" + b"cut"
EXPECTED = [
    RawLine(1, 0, b"\xef\xbb\xbfa", True),
    RawLine(4, 10, b"\x00\x00", True),
    RawLine(5, 13, b"\xff\xfeb\r", True),
    RawLine(6, 19, b"cut", False),
]


def test_every_line_has_its_number_offset_and_bytes() -> None:
    assert len(DATA) == 22
    assert list(iter_lines(DATA)) == EXPECTED
    assert list(iter_lines(DATA + b"\n")) == EXPECTED[:3] + [RawLine(6, 19, b"cut", True)]
    assert list(iter_lines(b"")) == [] and list(iter_lines(b"\n\r\n \n")) == []


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 1 << 20])
def test_a_stream_gives_the_same_lines_at_any_read_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        chunk: int) -> None:
    monkeypatch.setattr(LineStream, "CHUNK", chunk)
    p = tmp_path / "log"
    p.write_bytes(DATA)
    with LineStream(p) as stream:
        assert list(stream) == EXPECTED
        assert (stream.size, stream.sha256) == (22, hashlib.sha256(DATA).hexdigest())


@pytest.mark.parametrize(("last", "raw"), [(b"cut \t", b"cut \t"), (b"cutX\r", b"cutX"), (b"cut\r\r", b"cut")])
def test_a_cut_last_line_loses_only_its_carriage_returns(tmp_path: Path, last: bytes, raw: bytes) -> None:
    data = b"{}\n" + last  # the last line starts at byte 3
    assert list(iter_lines(data)) == [RawLine(1, 0, b"{}", True), RawLine(2, 3, raw, False)]
    p = tmp_path / "log"
    p.write_bytes(data)
    with LineStream(p) as stream:
        assert list(stream) == [RawLine(1, 0, b"{}", True), RawLine(2, 3, raw, False)]


def test_a_stream_of_exactly_the_cap_is_read_and_one_that_grows_past_it_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "log"
    p.write_bytes(b"0123456\n8\n")  # 10 bytes
    with LineStream(p, Limits(max_file_bytes=10)) as stream:
        assert list(stream) == [RawLine(1, 0, b"0123456", True), RawLine(2, 8, b"8", True)]
    with LineStream(p, Limits(max_file_bytes=10)) as stream:
        with p.open("ab") as f:
            f.write(b"x")  # written after the size check, before the read
        with pytest.raises(InputError) as e:
            list(stream)
    assert e.value.message == f"grew past 10 bytes while read for a file read whole (raise it with {ENV_FILE})"
    assert e.value.path == str(p)


class _Failing(io.BytesIO):
    def __init__(self, error: OSError) -> None:
        super().__init__()
        self.error = error

    def read(self, size: int | None = -1) -> bytes:
        raise self.error


ERRORS = [(OSError(errno.EIO, "Input/output error"), "Input/output error"),
          (OSError("no reason given"), "no reason given")]


@pytest.mark.parametrize(("error", "message"), ERRORS)
def test_a_failing_read_of_a_stream_names_the_file(tmp_path: Path, error: OSError, message: str) -> None:
    p = tmp_path / "log"
    p.write_bytes(b"{}\n")
    with LineStream(p) as stream:
        stream._f.close()
        stream._f = _Failing(error)
        with pytest.raises(InputError) as e:
            list(stream)
    assert (e.value.message, e.value.path) == (message, str(p))
    with LineStream(p) as stream:
        stream._f.close()
        stream._f = _Failing(error)
        with pytest.raises(InputError) as e:
            stream.starts_with(b"{")
    assert (e.value.message, e.value.path) == (message, str(p))


@pytest.mark.parametrize(("error", "message"), ERRORS)
def test_a_failing_size_of_a_stream_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   error: OSError, message: str) -> None:
    p = tmp_path / "log"
    p.write_bytes(b"{}\n")
    real, calls = os.fstat, []

    def fstat(fd: int) -> os.stat_result:
        calls.append(fd)
        if len(calls) == 2:  # open_regular's check passes, the size read fails
            raise error
        return real(fd)
    monkeypatch.setattr(lines.os, "fstat", fstat)
    with pytest.raises(InputError) as e:
        LineStream(p)
    assert (e.value.message, e.value.path) == (message, str(p))


def _refused(path: Path) -> tuple[str, str | None]:
    with pytest.raises(InputError) as e:
        open_regular(path)
    return e.value.message, e.value.path


def test_only_regular_files_are_opened_and_each_refusal_names_its_file(tmp_path: Path) -> None:
    assert _refused(tmp_path) == ("is a directory", str(tmp_path))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert _refused(fifo) == ("not a regular file (a FIFO)", str(fifo))
    assert _refused(Path("/dev/null")) == ("not a regular file (a character device)", "/dev/null")
    sock_path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(sock_path))
        assert _refused(sock_path) == ("not a regular file (a socket)", str(sock_path))
    assert _refused(tmp_path / "missing") == ("No such file or directory", str(tmp_path / "missing"))
    with pytest.raises(InputError) as e:
        lines._check_regular(Path("odd"), 0)  # no kind bit set at all
    assert (e.value.message, e.value.path) == ("not a regular file (an unknown kind of file)", "odd")
    p = tmp_path / "log"
    p.write_bytes(b"ok")
    with open_regular(p) as f:
        assert f.read() == b"ok"


@pytest.mark.parametrize(("where", "error", "message"), [
    ("stat", PermissionError(errno.EACCES, "Permission denied"), "permission denied"),
    ("open", PermissionError(errno.EACCES, "Permission denied"), "permission denied"),
    ("open", IsADirectoryError(errno.EISDIR, "Is a directory"), "is a directory"),
    ("open", OSError(errno.EMFILE, "Too many open files"), "Too many open files"),
    ("stat", OSError("no reason given"), "no reason given"),
])
def test_a_failing_open_is_an_input_error_naming_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          where: str, error: OSError, message: str) -> None:
    p = tmp_path / "log"
    p.write_bytes(b"ok")

    def fail(*args: object, **kwargs: object) -> object:
        raise error
    monkeypatch.setattr(lines.os, where, fail)
    assert _refused(p) == (message, str(p))


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_file_swapped_for_a_fifo_after_its_stat_is_refused_without_blocking(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    regular = tmp_path / "regular"
    regular.write_bytes(b"")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    real_stat = os.stat
    monkeypatch.setattr(lines.os, "stat", lambda p, *a, **k: real_stat(regular if Path(p) == fifo else p))
    got: list[tuple[str, str | None]] = []
    before = _open_fds()
    t = threading.Thread(target=lambda: got.append(_refused(fifo)))
    t.start()
    t.join(2)  # a non-blocking open takes microseconds
    blocked = t.is_alive()
    if blocked:  # a writer ends the blocked open, so the test ends
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        t.join(10)
    assert not blocked
    assert got == [("not a regular file (a FIFO)", str(fifo))]
    assert _open_fds() == before  # the descriptor opened on the FIFO was closed


def test_limits_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (ENV_FILE, ENV_DECOMPRESSED, ENV_RATIO):
        monkeypatch.delenv(name, raising=False)
    assert Limits.from_env() == Limits(4 << 30, 4 << 30, 1000)
    monkeypatch.setenv(ENV_RATIO, "1")
    monkeypatch.setenv(ENV_FILE, " ")  # blank: the default
    assert Limits.from_env() == Limits(4 << 30, 4 << 30, 1)
    monkeypatch.setenv(ENV_RATIO, "0")
    with pytest.raises(InputError) as e:
        Limits.from_env()
    assert e.value.message == "FORSY_MAX_ZSTD_RATIO='0' is not a positive whole number"


def test_a_sniff_sees_the_head_of_the_file_and_nothing_of_what_it_cannot_open(tmp_path: Path) -> None:
    p = tmp_path / "big"
    p.write_bytes(b"a" * HEAD + b"b" * 10)
    seen: list[tuple[Path, bytes]] = []
    assert sniff_file(p, lambda path, head: seen.append((path, head)) is None)
    assert seen == [(p, b"a" * 65536)]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert not sniff_file(fifo, lambda path, head: True)
    assert not sniff_file(tmp_path / "missing", lambda path, head: True)


def test_discovery_takes_a_named_file_that_sniffs_and_a_folders_matching_files(tmp_path: Path) -> None:
    def sniff(path: Path, head: bytes) -> bool:
        return head.startswith(b"{")
    (tmp_path / "sub").mkdir()
    for name, text in [("a.jsonl", b"{}"), ("b.jsonl", b"x"), ("c.txt", b"{}"), ("sub/d.jsonl", b"{}")]:
        (tmp_path / name).write_bytes(text)
    a, c = tmp_path / "a.jsonl", tmp_path / "c.txt"
    assert discover_sniffed(tmp_path, sniff, ("*.jsonl", "a.*")) == [a]
    assert discover_sniffed(tmp_path, sniff, ("*.jsonl",), recursive=True) == [a, tmp_path / "sub" / "d.jsonl"]
    assert discover_sniffed(a, sniff, ("*.jsonl",)) == [a]
    assert discover_sniffed(c, sniff, ("*.jsonl",)) == [c]  # a file named: its sniff decides, not its name
    assert discover_sniffed(tmp_path / "b.jsonl", sniff, ("*.jsonl",)) == []
    assert discover_sniffed(tmp_path / "missing", sniff, ("*.jsonl",)) == []

    def txt(path: Path) -> bool:
        return path.suffix == ".txt"
    assert discover_sniffed(c, sniff, ("*.jsonl",), named=txt) == [c]
    assert discover_sniffed(a, sniff, ("*.jsonl",), named=txt) == []
    assert discover_sniffed(tmp_path / "b.txt", sniff, ("*.jsonl",), named=txt) == []  # no such file


class _Recorder(io.BufferedReader):
    """A file that notes the size of every read asked of it."""

    def __init__(self, raw: io.RawIOBase) -> None:
        super().__init__(raw)
        self.sizes: list[int | None] = []

    def read(self, size: int | None = -1) -> bytes:
        self.sizes.append(size)
        return super().read(size)


def test_a_stream_never_reads_more_than_a_chunk_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(LineStream, "CHUNK", 4)
    p = tmp_path / "log"
    p.write_bytes(b"  \n{}\n" + b"x" * 10)
    with LineStream(p) as stream:
        stream._f.close()
        stream._f = rec = _Recorder(io.FileIO(p))
        assert stream.starts_with(b"{")
        assert rec.sizes and all(s is not None and 0 < s <= 1 << 16 for s in rec.sizes)
        rec.sizes.clear()
        assert list(stream) == [RawLine(2, 3, b"{}", True), RawLine(3, 6, b"x" * 10, False)]
        assert rec.sizes == [4] * 5  # 16 bytes in four reads, and the empty one at the end
        rec.close()
