"""The sweep's look at a known file: `fingerprint` (the hashes of the first block and of the last
complete line, reading back only as far as that line) against the same values computed the
plain way over the whole file, on edge shapes; and `classify`, each way a file can change alone."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from _deadline import within
from forsy.sweep._files import HEAD_BLOCK, Stat, classify, fingerprint


@pytest.fixture(autouse=True)
def deadline() -> Iterator[None]:
    """Each test here ends within 10 s: a read back that never reaches the start of the file (a
    fingerprint whose loop does not move) fails the test instead of hanging it."""
    with within(10):
        yield


def _sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def _plain(data: bytes) -> tuple[str, str | None, int, int, bool]:
    """What `fingerprint` must say, from the whole file: head, last complete line, its start,
    the end of the complete lines, and whether the file ends with a newline (or is empty)."""
    head = _sha(data[:HEAD_BLOCK])
    end = data.rfind(b"\n")
    if end < 0:
        return head, None, 0, 0, data == b""
    start = data.rfind(b"\n", 0, end) + 1
    return head, _sha(data[start:end + 1]), start, end + 1, end + 1 == len(data)


LONG = b"x" * 70000  # longer than one block read back (64 KiB)
SHAPES = {
    "empty": b"",
    "no newline": b"partial",
    "one line": b"a\n",
    "newline only": b"\n",
    "two newlines": b"\n\n",
    "a partial last line": b"one\ntwo\nthr",
    "complete": b"one\ntwo\nthree\n",
    "a long last line": b"head\n" + LONG + b"\n",
    "a long partial tail": b"head\nmid\n" + LONG,
    "one long line": LONG + b"\n",
    "a long first block": b"y" * 5000 + b"\nz\n",
    "lines across the block": (b"0123456789" * 7000 + b"\n") * 2 + b"tail",
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_fingerprint_is_the_plain_hashes_of_the_whole_file(tmp_path: Path, name: str) -> None:
    data = SHAPES[name]
    p = tmp_path / "s.jsonl"
    p.write_bytes(data)
    fp = fingerprint(str(p), len(data))
    assert (fp.head_sha256, fp.tail_sha256, fp.tail_offset, fp.read_to, fp.complete) == _plain(data)
    # it reads the first block and back from the end to the start of the last complete line
    want = min(HEAD_BLOCK, len(data)) + len(data) - (_plain(data)[2] if fp.tail_sha256 else 0)
    assert want - 65536 < fp.bytes_read <= want + 65536 and fp.bytes_read >= min(HEAD_BLOCK, len(data))


def test_fingerprint_is_the_plain_hashes_on_lines_around_every_block_edge(tmp_path: Path) -> None:
    """Newlines at, before and after the edges of the blocks read back, over many blocks."""
    import random

    rng = random.Random(7)
    p = tmp_path / "s.jsonl"
    for _ in range(300):
        size = rng.choice([65535, 65536, 65537, 2 * 65536, 3 * 65536 + 5, rng.randrange(1, 5 * 65536)])
        data = bytearray(b"x" * size)
        for at in rng.sample(range(size), k=min(size, rng.choice([0, 1, 2, 3]))):
            data[at] = 10
        for edge in range(65536, size, 65536):  # a newline just before, at or after an edge
            if rng.random() < 0.3:
                data[min(size - 1, edge + rng.choice([-1, 0, 1]))] = 10
        p.write_bytes(data)
        fp = fingerprint(str(p), size)
        assert (fp.head_sha256, fp.tail_sha256, fp.tail_offset, fp.read_to, fp.complete) == _plain(bytes(data))


def test_one_very_long_line_costs_one_read_of_it(tmp_path: Path) -> None:
    """A 40 MB line (Cline writes a task's JSON on one line): the blocks read back were joined to
    what was read before each time, 24 s here, which stalled a cron sweep on such files; now one
    read (the deadline above fails a return to that)."""
    p = tmp_path / "task.json"
    data = b"{" + b"x" * (40 << 20) + b"}\n"
    p.write_bytes(data)
    fp = fingerprint(str(p), len(data))
    assert (fp.tail_sha256, fp.tail_offset, fp.read_to) == (_sha(data), 0, len(data))
    assert fp.bytes_read == min(HEAD_BLOCK, len(data)) + len(data)


def test_fingerprint_of_a_short_file_reads_it_twice_at_most(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(b"one\ntwo\n")
    assert fingerprint(str(p), 8).bytes_read == 16  # the head, then the one block back


def _known(p: Path) -> tuple[Stat, tuple[str, str | None, int, int]]:
    data = p.read_bytes()
    st = Stat.of(os.stat(p))
    fp = fingerprint(str(p), len(data))
    return st, (fp.head_sha256, fp.tail_sha256, fp.tail_offset, fp.read_to)


def _classify(p: Path, old: Stat, fp: tuple[str, str | None, int, int]) -> tuple[str, int]:
    head, tail, off, read_to = fp
    return classify(str(p), Stat.of(os.stat(p)), head, old.size, tail, off, read_to, old)


def test_a_grown_file_is_grown_and_only_its_head_and_last_line_are_read(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(b"one\ntwo\n")
    old, fp = _known(p)
    with p.open("ab") as f:
        f.write(b"three\n")
    assert _classify(p, old, fp) == ("grown", 8 + 4)


def test_each_change_is_a_rewrite(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    first = b"h" * 5000 + b"\n"  # longer than the head block: the last line is read on its own
    p.write_bytes(first + b"one\ntwo\n")
    old, fp = _known(p)
    head = HEAD_BLOCK
    p.write_bytes(b"H" + first[1:] + b"one\ntwo\nthree\n")  # the head changed
    assert _classify(p, old, fp) == ("rewritten", head)
    p.write_bytes(first + b"one\ntwX\nthree\n")  # the last complete line changed
    assert _classify(p, old, fp) == ("rewritten", head + 4)
    p.write_bytes(first + b"one\ntwo\n")  # the same bytes: not longer
    assert _classify(p, old, fp) == ("rewritten", head + 4)
    p.write_bytes(first + b"one\ntw")  # shorter than its complete lines
    assert _classify(p, old, fp) == ("rewritten", 0)
    p.write_bytes(first + b"one\ntwo\nthree\n")
    assert _classify(p, old, fp) == ("grown", head + 4)
    moved = Stat(old.dev, old.ino + 1, old.size, old.mtime_ns)  # another file now at that path
    assert classify(str(p), Stat.of(os.stat(p)), fp[0], old.size, fp[1], fp[2], fp[3], moved) == ("rewritten", 0)
    other_dev = Stat(old.dev + 1, old.ino, old.size, old.mtime_ns)
    assert classify(str(p), Stat.of(os.stat(p)), fp[0], old.size, fp[1], fp[2], fp[3], other_dev) == ("rewritten", 0)


def test_a_file_without_a_complete_line_is_grown_only_when_longer(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(b"part")
    old, fp = _known(p)
    assert fp[1] is None
    p.write_bytes(b"partial")
    assert _classify(p, old, fp) == ("grown", 4)
    p.write_bytes(b"part")
    assert _classify(p, old, fp) == ("rewritten", 4)


def test_a_compressed_or_vanished_file_is_a_rewrite_read_no_further(tmp_path: Path) -> None:
    z = tmp_path / "s.jsonl.zst"
    z.write_bytes(b"one\n")
    old, fp = _known(z)
    z.write_bytes(b"one\ntwo\n")
    assert _classify(z, old, fp) == ("rewritten", 0)
    p = tmp_path / "s.jsonl"
    p.write_bytes(b"one\n")
    old, fp = _known(p)
    now = Stat(old.dev, old.ino, 20, old.mtime_ns)
    p.unlink()
    assert classify(str(p), now, fp[0], old.size, fp[1], fp[2], fp[3], old) == ("rewritten", 0)
