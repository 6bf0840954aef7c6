"""lines.read_bytes: a file read whole is all of its bytes, at most the cap, even when it grows
while read (then the bytes past its stat are read too, and past the cap it is refused, never cut
short); a failing read is an InputError naming the file. lines.inside: a name never leaves its root."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path

import pytest

from forsy.errors import InputError
from forsy.sources import lines
from forsy.sources.lines import ENV_FILE, Limits, LineStream, inside, iter_lines, read_bytes

REAL_FSTAT = os.fstat


def _stat_says(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    """os.fstat reports `size` bytes: the file grew after its stat was taken."""
    def fstat(fd: int) -> os.stat_result:
        r = REAL_FSTAT(fd)
        return os.stat_result((r.st_mode, r.st_ino, r.st_dev, r.st_nlink, r.st_uid, r.st_gid, size,
                               int(r.st_atime), int(r.st_mtime), int(r.st_ctime)))
    monkeypatch.setattr(lines.os, "fstat", fstat)


def test_a_file_of_exactly_the_cap_is_read_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "log"
    p.write_bytes(b"12345")
    assert read_bytes(p, Limits(max_file_bytes=5)) == b"12345"
    with pytest.raises(InputError) as e:
        read_bytes(p, Limits(max_file_bytes=4))
    assert e.value.message == f"is 5 bytes, more than the 4-byte limit for a file read whole (raise it with {ENV_FILE})"
    assert e.value.path == str(p)


def test_a_file_that_grew_while_read_is_read_to_its_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "log"
    p.write_bytes(b"abcdefghij")
    _stat_says(monkeypatch, 2)
    assert read_bytes(p, Limits(max_file_bytes=10)) == b"abcdefghij"


def test_a_file_that_grew_past_the_cap_while_read_is_refused_not_cut(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "log"
    p.write_bytes(b"abcdef")
    for stat_size in (4, 1):  # the first read reaches the cap exactly; the first read is short of it
        _stat_says(monkeypatch, stat_size)
        with pytest.raises(InputError) as e:
            read_bytes(p, Limits(max_file_bytes=5))
        assert e.value.message == f"grew past 5 bytes while read for a file read whole (raise it with {ENV_FILE})"
        assert e.value.path == str(p)


@pytest.mark.parametrize(("error", "message"), [(OSError(errno.EIO, "Input/output error"), "Input/output error"),
                                                (OSError("no reason given"), "no reason given")])
def test_a_failing_read_is_an_input_error_naming_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         error: OSError, message: str) -> None:
    p = tmp_path / "log"
    p.write_bytes(b"abc")
    calls: list[int] = []

    def fstat(fd: int) -> os.stat_result:
        calls.append(fd)
        if len(calls) == 2:  # the regular-file check passes, the size read fails
            raise error
        return REAL_FSTAT(fd)
    monkeypatch.setattr(lines.os, "fstat", fstat)
    with pytest.raises(InputError) as e:
        read_bytes(p, Limits(max_file_bytes=10))
    assert (e.value.message, e.value.path) == (message, str(p))


def test_a_name_never_leaves_its_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "out").symlink_to(tmp_path)
    assert inside(root, "a/b.txt") == root.resolve() / "a" / "b.txt"
    assert inside(root, ".") == root.resolve()
    assert inside(root, "a/../a") == root.resolve() / "a"
    assert [inside(root, n) for n in ("..", "../x", "out/x", "/etc/passwd")] == [None, None, None, None]


def test_a_last_line_without_newline_loses_only_its_carriage_return() -> None:
    assert [(r.line, r.offset, r.raw, r.complete) for r in iter_lines(b"a\r\nb \r")] == [
        (1, 0, b"a", True), (2, 3, b"b ", False)]
    assert [r.raw for r in iter_lines(b"a\nbX")] == [b"a", b"bX"]


def test_a_file_of_blanks_starts_with_nothing(tmp_path: Path) -> None:
    p = tmp_path / "log"
    p.write_bytes(b" \n\t\r\n")
    with LineStream(p) as stream:
        assert not stream.starts_with(b" ") and not stream.starts_with(b"[")
        assert list(stream) == []


def test_a_failing_read_of_the_first_bytes_is_an_input_error_naming_the_file(tmp_path: Path) -> None:
    p = tmp_path / "log"
    p.write_bytes(b"[1]\n")

    class Failing(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            raise OSError(errno.EIO, "Input/output error")

    with LineStream(p) as stream:
        stream._f.close()
        stream._f = Failing()  # the disk fails under an open file
        with pytest.raises(InputError) as e:
            stream.starts_with(b"[")
    assert (e.value.message, e.value.path) == ("Input/output error", str(p))
