"""Inputs that would make forsy hang or run out of memory are refused with a clear error.

A FIFO or a device opened for reading blocks or never ends; a zstd "bomb" expands a tiny
file into gigabytes. The CLI cases run in a child process with a timeout, so a hang fails
the test instead of hanging the suite; memory is the child's own peak RSS.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import zstandard

from _paths import SAMPLES
from forsy.errors import InputError
from forsy.sources import ReadContext, detect, read_head
from forsy.sources.codex import CodexSource
from forsy.sources.lines import Limits, read_bytes
from forsy.sources.shell import ShellHistorySource

FORSY = Path(sys.executable).with_name("forsy")
TIMEOUT = 60  # seconds; a blocked open never returns, so any bound catches it
META = orjson.dumps(
    {"timestamp": "2026-05-12T09:00:00.000Z", "type": "session_meta", "payload": {"id": "bomb", "cwd": "/w"}}
)
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(FORSY), *args], capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, **(env or {})}
    )


def bomb(path: Path, zeros: int) -> Path:
    """A rollout whose first line is a real session_meta, then `zeros` NUL bytes, compressed
    as a stream (the zeros are never held in memory whole)."""
    with path.open("wb") as f, zstandard.ZstdCompressor(level=3).stream_writer(f) as w:
        w.write(META + b"\n")
        block = bytes(1 << 20)
        for _ in range(zeros >> 20):
            w.write(block)
    return path


# ------------------------------------------------------------------ FIFOs and devices


@needs_fifo
def test_fifo_as_session_log_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "rollout-x.jsonl"
    os.mkfifo(fifo)
    r = cli("retrace", str(fifo), "-o", str(tmp_path / "out"))
    assert r.returncode == 2, r.stderr
    assert "not a regular file (a FIFO)" in r.stderr and str(fifo) in r.stderr
    assert "Traceback" not in r.stderr


@needs_fifo
def test_fifo_as_history_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / ".bash_history"
    os.mkfifo(fifo)
    r = cli("retrace", "--history", str(fifo), "-o", str(tmp_path / "out"))
    assert r.returncode == 2, r.stderr
    assert "not a regular file (a FIFO)" in r.stderr and str(fifo) in r.stderr


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize("how", ["history", "log"])
def test_dev_zero_is_refused(tmp_path: Path, how: str) -> None:
    args = ["--history", "/dev/zero"] if how == "history" else ["/dev/zero"]
    r = cli("retrace", *args, "-o", str(tmp_path / "out"))
    assert r.returncode == 2, r.stderr
    assert "/dev/zero: not a regular file (a character device)" in r.stderr


@needs_fifo
def test_every_opener_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    """read_head, detect, read_bytes and both readers, in a child: none may open the FIFO."""
    fifo = tmp_path / "rollout-y.jsonl"
    os.mkfifo(fifo)
    code = f"""
from pathlib import Path
from forsy.errors import InputError
from forsy.sources import ReadContext, detect, read_head
from forsy.sources.lines import read_bytes
from forsy.sources.codex import CodexSource
from forsy.sources.shell import ShellHistorySource
p = Path({str(fifo)!r})
calls = [lambda: read_head(p), lambda: detect(p), lambda: read_bytes(p),
         lambda: CodexSource().read(p, ReadContext()), lambda: ShellHistorySource().read(p, ReadContext())]
for call in calls:
    try:
        call()
    except InputError as e:
        print(e)
print(CodexSource().discover(p))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"{fifo}: not a regular file (a FIFO)"] * 5 + ["[]"]


# ------------------------------------------------------------------ size caps


def test_zstd_bomb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    """256 MiB of zeros in a few KiB: refused by the ratio cap long before it is all read.
    Without caps the reader holds the whole stream (and copies of it): well over 500 MB."""
    path = bomb(tmp_path / "rollout-bomb.jsonl.zst", 256 << 20)
    assert path.stat().st_size < 64 << 10
    code = """
import resource, sys
from pathlib import Path
from forsy.errors import InputError
from forsy.sources import ReadContext
from forsy.sources.codex import CodexSource
try:
    CodexSource().read(Path(sys.argv[1]), ReadContext())
    print("READ")
except InputError as e:
    print(e)
# VmHWM is this process's own peak (ru_maxrss may carry the forking parent's over exec)
hwm = [ln for ln in open("/proc/self/status") if ln.startswith("VmHWM:")] if sys.platform == "linux" else []
print(int(hwm[0].split()[1]) // 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    message, peak_mb = r.stdout.splitlines()
    assert message.startswith(f"{path}: zstd stream expands past 1000 times its size")
    assert "FORSY_MAX_ZSTD_RATIO" in message
    assert int(peak_mb) < 150, f"peak RSS {peak_mb} MB"


def test_decompressed_size_cap_from_the_environment(tmp_path: Path) -> None:
    path = bomb(tmp_path / "rollout-bomb.jsonl.zst", 8 << 20)
    r = cli("retrace", str(path), "-o", str(tmp_path / "out"), env={"FORSY_MAX_DECOMPRESSED_BYTES": "1048576"})
    assert r.returncode == 2, r.stderr
    assert "expands past 1048576 bytes (FORSY_MAX_DECOMPRESSED_BYTES)" in r.stderr and path.name in r.stderr


def test_decompressed_size_cap_from_the_context(tmp_path: Path) -> None:
    path = bomb(tmp_path / "rollout-bomb.jsonl.zst", 4 << 20)
    small = ReadContext(limits=Limits(max_decompressed_bytes=1 << 20))
    with pytest.raises(InputError, match="expands past 1048576 bytes"):
        CodexSource().read(path, small)
    # the same file under the default caps is read (zeros are one unparsable line, warned)
    s = CodexSource().read(path, ReadContext())[0]
    assert s.session_id == "bomb" and any(w.line == 2 for w in s.warnings)


def test_limits_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORSY_MAX_DECOMPRESSED_BYTES", "123")
    monkeypatch.setenv("FORSY_MAX_FILE_BYTES", "456")
    monkeypatch.setenv("FORSY_MAX_ZSTD_RATIO", "7")
    assert Limits.from_env() == Limits(max_file_bytes=456, max_decompressed_bytes=123, max_ratio=7)
    assert ReadContext().limits == Limits(max_file_bytes=456, max_decompressed_bytes=123, max_ratio=7)
    monkeypatch.setenv("FORSY_MAX_FILE_BYTES", "lots")
    with pytest.raises(InputError, match="FORSY_MAX_FILE_BYTES"):
        Limits.from_env()


def test_file_read_whole_is_capped(tmp_path: Path) -> None:
    hist = tmp_path / ".bash_history"
    hist.write_bytes(b"ls\n" * 1000)
    with pytest.raises(InputError, match=r"3000 bytes, more than the 1000-byte limit"):
        read_bytes(hist, Limits(max_file_bytes=1000))
    with pytest.raises(InputError, match="FORSY_MAX_FILE_BYTES"):
        ShellHistorySource().read(hist, ReadContext(limits=Limits(max_file_bytes=1000)))
    assert len(ShellHistorySource().read(hist, ReadContext())[0].events) == 1000


def test_well_formed_inputs_still_read() -> None:
    for p in sorted((SAMPLES / "shell").glob("*history*")):
        assert read_head(p) and detect(p).name == "shell"
