"""Reading line-oriented logs with exact byte positions, tolerant of damage.

Logs are opened only through `open_regular`, and read whole only through `read_bytes` (or
as a stream of lines through `LineStream`, under the same cap), which bound what one input
can cost:

* only regular files are opened: a FIFO blocks on open and never ends, a character device
  like /dev/zero never ends, a socket cannot be opened. They are refused by `os.stat`
  before any open ("not a regular file (a FIFO)"); the open itself uses O_NONBLOCK and is
  checked again with `fstat`, so a file swapped for a FIFO in between cannot block either.
* a file read whole may hold at most `Limits.max_file_bytes` (default 4 GiB; env
  `FORSY_MAX_FILE_BYTES`): reading it takes that much memory.
* a zstd stream may expand to at most `Limits.max_decompressed_bytes` (default 4 GiB; env
  `FORSY_MAX_DECOMPRESSED_BYTES`), and, once past `RATIO_FLOOR` (16 MiB), to at most
  `Limits.max_ratio` times its compressed size (default 1000; env `FORSY_MAX_ZSTD_RATIO`).
  JSONL logs compress 5-50 times, rarely 200; a "zstd bomb" (a few KiB that expand to
  gigabytes) is refused after reading about `RATIO_FLOOR` bytes, not all of it.

Limits travel in `ReadContext.limits` (built from the environment unless given), so a
caller or a test can lower them for one read.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from ..errors import InputError, UnsupportedFormat
from ..jsontext import valid_text
from .listing import files_below, unread

GiB = 1 << 30
RATIO_FLOOR = 16 << 20  # the ratio cap applies once this much has been decompressed
ENV_FILE = "FORSY_MAX_FILE_BYTES"
ENV_DECOMPRESSED = "FORSY_MAX_DECOMPRESSED_BYTES"
ENV_RATIO = "FORSY_MAX_ZSTD_RATIO"


@dataclass(frozen=True, slots=True)
class Limits:
    """How much one input may cost (module docstring)."""

    max_file_bytes: int = 4 * GiB  # a file read whole
    max_decompressed_bytes: int = 4 * GiB  # a zstd stream once expanded
    max_ratio: int = 1000  # expanded / compressed size, checked past RATIO_FLOOR

    @classmethod
    def from_env(cls) -> Limits:
        d = cls()
        return cls(
            _env_int(ENV_FILE, d.max_file_bytes),
            _env_int(ENV_DECOMPRESSED, d.max_decompressed_bytes),
            _env_int(ENV_RATIO, d.max_ratio),
        )


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0:
        raise InputError(f"{name}={raw!r} is not a positive whole number")
    return value


_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _check_regular(path: Path, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise InputError("is a directory", path=path)
    what = next((name for test, name in _KINDS if test(mode)), "an unknown kind of file")
    raise InputError(f"not a regular file ({what})", path=path)


PERMISSION_DENIED = "permission denied"  # why `open_regular` could not open a file the user may not read


def open_regular(path: Path) -> BinaryIO:
    """`path` opened for binary reading, or InputError; never blocks (module docstring)."""
    try:
        _check_regular(path, os.stat(path).st_mode)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except PermissionError:
        raise InputError(PERMISSION_DENIED, path=path) from None
    except IsADirectoryError:
        raise InputError("is a directory", path=path) from None
    except OSError as e:
        raise InputError(e.strerror or str(e), path=path) from None
    try:
        _check_regular(path, os.fstat(fd).st_mode)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


HEAD = 65536  # how much of a file a source's sniff sees (also `sources.HEAD_BYTES`)
Sniff = Callable[[Path, bytes], bool]


def head_values(head: bytes, lines: int) -> Iterator[Any]:
    """The JSON values of a JSONL head's first `lines` lines, for a sniff: blank lines and
    lines that do not parse are passed over (a damaged line says nothing of the format: the
    next one does)."""
    for raw in head.split(b"\n")[:lines]:
        if not raw.strip():
            continue
        try:
            yield orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue


def sniffs(sniff: Sniff, path: Path, head: bytes) -> bool:
    """`sniff(path, head)`, False when it raised. A sniff is a guess over a file's first bytes,
    whatever they hold (a value nested thousands deep, bytes no parser takes): one that breaks
    on them says the file is not its source's, so one file never stops the search for the
    others', nor a run (the file is then named as of no format forsy reads)."""
    try:
        return sniff(path, head)
    except Exception:  # any failure of a guess is a "no"
        return False


def sniff_file(path: Path, sniff: Sniff) -> bool:
    """Whether the head of `path` sniffs as a source's file; False for one that cannot be
    read or is not regular (opened through `open_regular`: a FIFO never blocks discovery). One
    the user may not read is said to the walk (`listing.unread`): it may be a session."""
    try:
        with open_regular(path) as f:
            head = f.read(HEAD)
    except InputError as e:
        if e.message == PERMISSION_DENIED:
            unread(path, e.message)
        return False
    except OSError:
        return False
    return sniffs(sniff, path, head)


def sniffed(paths: Iterable[Path], sniff: Sniff) -> list[Path]:
    """The files among `paths` that sniff as the source's, in path order, each once."""
    return sorted({p for p in paths if sniff_file(p, sniff)})


def discover_sniffed(path: Path, sniff: Sniff, patterns: tuple[str, ...], *, recursive: bool = False,
                     named: Callable[[Path], bool] | None = None) -> list[Path]:
    """A source's `discover`: a file named is taken when `named` accepts it (by default: when
    it sniffs as the source's); a folder gives its files matching `patterns` (searched below
    it too when `recursive`) that sniff as the source's; anything else gives nothing."""
    if path.is_file():
        return [path] if (named(path) if named is not None else sniff_file(path, sniff)) else []
    if not path.is_dir():
        return []
    if recursive:  # a folder below that cannot be listed is said (`listing`)
        return sniffed(files_below(path, patterns), sniff)
    return sniffed((p for pattern in patterns for p in path.glob(pattern)), sniff)


@dataclass(slots=True)
class RawLine:
    line: int  # 1-based
    offset: int  # byte offset of the first byte of the line
    raw: bytes  # the line without its line terminator
    complete: bool  # False for a last line with no newline (file still being written?)


_UTF16_BOMS = ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def utf16(head: bytes) -> str | None:
    """"UTF-16LE" or "UTF-16BE" when a file's first bytes are UTF-16 text, else None. Windows
    PowerShell 5 writes what `>` redirects so (with a byte order mark): a JSONL log read as UTF-8
    with its NUL bytes dropped would turn every character beyond ASCII into other bytes. Taken
    for it: text whose first characters are ASCII (a log starts with `{`, `[` or a word), each
    with a NUL beside it, after a byte order mark or not; binary data is not."""
    for bom, codec in _UTF16_BOMS:
        if head.startswith(bom):
            return _ascii_units(head[2:6], 4, codec)
    return _ascii_units(head[:16], 8, "utf-16-le") or _ascii_units(head[:16], 8, "utf-16-be")


def _ascii_units(units: bytes, least: int, codec: str) -> str | None:
    if len(units) < least:
        return None
    text_at, nul_at = (0, 1) if codec == "utf-16-le" else (1, 0)
    ascii_text = all(units[i + nul_at] == 0 and (32 <= units[i + text_at] < 127 or units[i + text_at] in b"\t\r\n")
                     for i in range(0, len(units) - 1, 2))
    return codec.upper().replace("UTF-16-", "UTF-16") if ascii_text else None


def refuse_utf16(path: Path, head: bytes) -> None:
    """UnsupportedFormat when `head` (the file's first bytes) is UTF-16 text (`utf16`), saying how
    to give forsy the log as UTF-8."""
    codec = utf16(head)
    if codec is not None:
        raise UnsupportedFormat(
            f"{codec} text, not UTF-8 (Windows PowerShell 5's '>' writes UTF-16LE); convert it first, "
            f"e.g. iconv -f UTF-16 -t UTF-8 FILE > OUT, or in PowerShell: "
            f"Get-Content FILE | Set-Content -Encoding utf8 OUT", path=path)


def read_bytes(path: Path, limits: Limits | None = None) -> bytes:
    """The whole of a regular file, at most `limits.max_file_bytes` of it (else InputError)."""
    cap = (limits or Limits.from_env()).max_file_bytes
    with open_regular(path) as f:
        try:
            size = os.fstat(f.fileno()).st_size
            if size > cap:
                raise _too_big(path, size, cap)
            # One read of the size stat gave (+1 to see the end); a file still being
            # written may have grown since: read on, up to the cap.
            chunks = [f.read(size + 1)]
            total = len(chunks[0])
            while total <= cap and (chunk := f.read(1 << 20)):
                chunks.append(chunk)
                total += len(chunk)
        except OSError as e:
            raise InputError(e.strerror or str(e), path=path) from None
    if total > cap:
        raise _too_big(path, total, cap, grew=True)
    refuse_utf16(path, chunks[0][:66])
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


class LineStream:
    """The lines of a regular file read as a stream (`iter_lines` over the file, without
    holding it whole): once iterated to the end, `size` and `sha256` are those of all its
    bytes, as `read_bytes` then `sha256` would give. The same cap as `read_bytes` applies."""

    CHUNK = 1 << 20  # bytes per read

    def __init__(self, path: Path, limits: Limits | None = None) -> None:
        self.path = path
        self.cap = (limits or Limits.from_env()).max_file_bytes
        self.size = 0
        self._hash = hashlib.sha256()
        self._f = open_regular(path)
        try:
            size = os.fstat(self._f.fileno()).st_size
        except OSError as e:
            self._f.close()
            raise InputError(e.strerror or str(e), path=path) from None
        if size > self.cap:
            self._f.close()
            raise _too_big(path, size, self.cap)
        try:
            try:
                head = self._f.read(66)
                self._f.seek(0)
            except OSError as e:
                raise InputError(e.strerror or str(e), path=path) from None
            refuse_utf16(path, head)
        except BaseException:
            self._f.close()
            raise

    def __enter__(self) -> LineStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self._f.close()

    @property
    def sha256(self) -> str:
        return self._hash.hexdigest()

    def starts_with(self, first: bytes) -> bool:
        """Whether the file's first byte that is not whitespace (nor a UTF-8 BOM, which a
        Windows editor puts first) is `first` (the stream is rewound: iterating still starts
        at the first line)."""
        try:
            bom = True
            while chunk := self._f.read(1 << 16):
                head = chunk.removeprefix(b"\xef\xbb\xbf").lstrip() if bom else chunk.lstrip()
                bom = False
                if head:
                    return head[:1] == first
            return False
        except OSError as e:
            raise InputError(e.strerror or str(e), path=self.path) from None
        finally:
            self._f.seek(0)

    def __iter__(self) -> Iterator[RawLine]:
        # big reads split with bytes.find (as iter_lines does), not readline: a readline
        # through the default 8 KiB buffer costs more than the JSON parse of the line
        read, update, cap = self._f.read, self._hash.update, self.cap
        n = pos = line_start = 0  # lines seen; file offsets of `chunk` and of the line being read
        pending: list[bytes] = []  # the start of a line that runs past the chunk it began in
        while True:
            try:
                chunk = read(self.CHUNK)
            except OSError as e:
                raise InputError(e.strerror or str(e), path=self.path) from None
            if not chunk:
                break
            update(chunk)
            self.size = pos + len(chunk)
            if self.size > cap:  # grew past the cap since its size was read
                raise _too_big(self.path, self.size, cap, grew=True)
            find, i = chunk.find, 0
            for _ in range(chunk.count(b"\n")):  # one turn per newline: it ends whatever `i` says
                end = find(b"\n", i)
                if pending:
                    pending.append(chunk[i:end])
                    raw = b"".join(pending)
                    pending.clear()
                else:
                    raw = chunk[i:end]
                n += 1
                if raw.endswith(b"\r"):
                    raw = raw[:-1]
                if raw.strip():
                    yield RawLine(n, line_start, raw, True)
                i = end + 1
                line_start = pos + i
            if i < len(chunk):
                pending.append(chunk[i:] if i else chunk)
            pos = self.size
        if pending:
            raw = b"".join(pending)
            if raw.strip():
                yield RawLine(n + 1, line_start, raw.rstrip(b"\r"), False)


def _too_big(path: Path, size: int, cap: int, grew: bool = False) -> InputError:
    size_s = f"grew past {cap} bytes while read" if grew else f"is {size} bytes, more than the {cap}-byte limit"
    return InputError(f"{size_s} for a file read whole (raise it with {ENV_FILE})", path=path)


def iter_lines(data: bytes) -> Iterator[RawLine]:
    """Every line of `data` with its number and byte offset; blank lines are skipped."""
    pos = n = 0
    find = data.find
    for n in range(1, data.count(b"\n") + 1):  # one turn per newline: it ends whatever `pos` says
        end = find(b"\n", pos)
        raw = data[pos:end]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if raw.strip():
            yield RawLine(n, pos, raw, True)
        pos = end + 1
    raw = data[pos:]  # a last line with no newline (empty when the data ends in one)
    if raw.strip():
        yield RawLine(n + 1, pos, raw.rstrip(b"\r"), False)


def name_text(name: str) -> str:
    """A file or folder name as text: the bytes of a name that are not UTF-8 (kept by Python as
    surrogate escapes, which no JSON writer takes) become U+FFFD, one for each."""
    return valid_text(name)


def source_name(path: Path, root: Path | None) -> str:
    """The path as evidence names it: relative to the input root, else the file name
    (so evidence ids do not depend on where the logs live on this machine), as text
    (`name_text`): the name is written in the trace whether or not redaction runs."""
    if root is not None:
        try:
            return name_text(path.resolve().relative_to(root.resolve()).as_posix())
        except ValueError:
            pass
    return name_text(path.name)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def inside(root: Path, name: str) -> Path | None:
    """`root / name` when it stays under `root` (after following `..` and links), else None:
    a name read from a trace (provenance.json) must never open a file outside the roots given."""
    base = root.resolve()
    p = (base / name).resolve()
    return p if p == base or p.is_relative_to(base) else None
