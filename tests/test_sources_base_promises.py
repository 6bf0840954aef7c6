"""The promises of `forsy.sources.base`, the registry every reader is found through: a file is
given to the first source (in registry order) whose sniff takes it, else refused naming what was
seen and every source there is; a source is loaded by name, an unknown or uninstallable one said
as such and passed over by `available`; a built-in source is never replaced by a plugin of the
same name; evidence names with a scheme (`git:`, `atuin:`, `gemini-project:`) are read back by
the source that owns the scheme, others by nobody; a file's head is its first bytes only, and a
FIFO is refused."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
from pathlib import Path
from typing import Any

import pytest
import zstandard

from _paths import SAMPLES
from forsy.errors import InputError, UnsupportedFormat
from forsy.sources import base
from forsy.sources.claude_code import ClaudeCodeSource
from forsy.sources.lines import HEAD

ALL = sorted(base.BUILTIN)


def test_a_file_goes_to_the_source_whose_sniff_takes_it(tmp_path: Path) -> None:
    assert isinstance(base.detect(SAMPLES / "claude" / "demo-session.jsonl"), ClaudeCodeSource)


@pytest.mark.parametrize(("data", "seen"), [
    (b"", "empty file"),
    (b"\x00\x01\x02 some bytes", "binary data"),
    (b"  \n\nhello there\nsecond line\n", "starts with 'hello there'"),
    (b"x" * 100 + b"\n", f"starts with {'x' * 60!r}"),
    (b'{"a": "\x00"}\n', "starts with '{\"a\": \"\\x00\"}'"),  # JSON holding a NUL: not called binary
    (b"a" * 1100 + b"\x00", f"starts with {'a' * 60!r}"),  # a NUL past the first 1024 bytes
    (b"a" * 1024 + b"\x00", f"starts with {'a' * 60!r}"),  # the first NUL just past them
    (b"  [\x00]", "starts with '[\\x00]'"),  # JSON after blanks
    (b"caf\xe9 au lait\n", "starts with 'caf\ufffd au lait'"),  # not UTF-8: replaced, not refused
    (b"   \n\t\n", "starts with ''"),  # blanks only
    (b" " * 195 + b"abcdefghijkl", "starts with 'abcde'"),  # the first 200 bytes are looked at
    # a log compressed for keeping: which compression, and how to give forsy the log
    (gzip.compress(b'{"type":"user"}\n'), "gzip-compressed: decompress it first, e.g. gunzip -k FILE"),
    (zstandard.ZstdCompressor().compress(b'{"type":"user"}\n'),
     "zstd-compressed: decompress it first, e.g. zstd -d FILE"),
    (bz2.compress(b'{"type":"user"}\n'), "bzip2-compressed: decompress it first, e.g. bunzip2 -k FILE"),
    (lzma.compress(b'{"type":"user"}\n'), "xz-compressed: decompress it first, e.g. unxz -k FILE"),
    (b"PK\x03\x04" + b"\x00" * 26, "zip-compressed: decompress it first, e.g. unzip FILE"),
    (b"\x1f\x8c not gzip", "starts with '\ufffd not gzip'"),  # one byte off: not gzip (\x1f is blank to strip)
])
def test_a_file_no_source_takes_is_refused_saying_what_was_seen(tmp_path: Path, data: bytes, seen: str) -> None:
    f = tmp_path / "x.log"
    f.write_bytes(data)
    with pytest.raises(UnsupportedFormat) as e:
        base.detect(f)
    assert e.value.message == f"not a log format forsy reads ({seen}); supported: {', '.join(ALL)}"
    assert e.value.path == str(f)


def test_the_first_source_in_registry_order_that_takes_a_file_reads_it(monkeypatch: pytest.MonkeyPatch,
                                                                         tmp_path: Path) -> None:
    class Takes:
        def __init__(self, name: str, takes: bool) -> None:
            self.name, self.takes = name, takes

        def sniff(self, path: Path, head: bytes) -> bool:
            return self.takes and head == b"abc"

    srcs = [Takes("a", False), Takes("b", True), Takes("c", True)]
    monkeypatch.setattr(base, "_each_available", lambda: iter(srcs))  # the sources, in order, as loaded
    f = tmp_path / "f"
    f.write_bytes(b"abc")
    assert base.detect(f) is srcs[1]  # type: ignore[comparison-overlap]


def test_a_head_is_the_first_bytes_only_and_a_fifo_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "big"
    f.write_bytes(b"a" * HEAD + b"b" * 10)
    assert base.read_head(f) == b"a" * HEAD
    small = tmp_path / "small"
    small.write_bytes(b"xyz")
    assert base.read_head(small) == b"xyz"
    with pytest.raises(InputError) as e:  # a file that fails when read: the system's words, the file
        base.read_head(Path("/proc/self/mem"))
    assert (e.value.message, e.value.path) == ("Input/output error", "/proc/self/mem")
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InputError):
        base.read_head(fifo)


def _plugins(monkeypatch: pytest.MonkeyPatch, *pairs: tuple[str, str]) -> None:
    monkeypatch.setattr(base, "_plugins", lambda: tuple(pairs))


def test_a_source_is_loaded_by_name_and_an_unknown_one_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(base.load("claude_code"), ClaudeCodeSource)
    _plugins(monkeypatch, ("zz_extra", "forsy.sources.claude_code:ClaudeCodeSource"))
    with pytest.raises(InputError) as e:
        base.load("nope")
    assert e.value.message == f"unknown source 'nope'; known: {', '.join(sorted([*ALL, 'zz_extra']))}"
    assert isinstance(base.load("zz_extra"), ClaudeCodeSource)


def test_a_plugin_that_cannot_be_imported_is_said_and_passed_over(monkeypatch: pytest.MonkeyPatch) -> None:
    _plugins(monkeypatch, ("broken", "no_such_module_anywhere:Source"))
    with pytest.raises(InputError) as e:
        base.load("broken")
    assert e.value.message == "source 'broken' is not available (No module named 'no_such_module_anywhere')"
    names = [type(s).__name__ for s in base.available()]
    assert len(names) == len(ALL) and names[0] == "ClaudeCodeSource"  # the built-ins, in registry order
    _plugins(monkeypatch, ("broken", "no_such_module_anywhere:Source"),
             ("zz_extra", "forsy.sources.claude_code:ClaudeCodeSource"))
    assert len(base.available()) == len(ALL) + 1  # the one after the broken one still there


def test_a_plugin_never_replaces_a_built_in_source(monkeypatch: pytest.MonkeyPatch) -> None:
    _plugins(monkeypatch, ("claude_code", "somewhere:Other"), ("extra", "pkg.mod:Cls"))
    reg = base.registry()
    assert reg["claude_code"] == base.BUILTIN["claude_code"] and reg["extra"] == "pkg.mod:Cls"
    assert list(reg)[: len(base.BUILTIN)] == list(base.BUILTIN)


class Owner:
    schemes = ("own:",)

    def __init__(self) -> None:
        self.asked: list[tuple[str, Any]] = []

    def read_back(self, name: str, roots: Any) -> bytes | None:
        self.asked.append((name, roots))
        return b"bytes of " + name.encode()


def test_evidence_with_a_scheme_is_read_back_by_its_owner(monkeypatch: pytest.MonkeyPatch) -> None:
    owner = Owner()

    class NoSchemes:
        pass

    monkeypatch.setattr(base, "available", lambda: [NoSchemes(), owner])
    roots = [Path("/r")]
    assert base.read_back("own:thing#1", roots) == b"bytes of own:thing#1"
    assert owner.asked == [("own:thing#1", roots)]
    assert base.read_back("/plain/file.jsonl", roots) is None  # a plain file: the caller reads it
    assert base.read_back("x-own:thing", roots) is None
    assert owner.asked == [("own:thing#1", roots)]
    assert base.has_scheme("own:x") and not base.has_scheme("plain/own:x") and not base.has_scheme("ow")


def test_the_built_in_schemes_are_owned() -> None:
    assert base.has_scheme("git:/repo@abc") and base.has_scheme("atuin:/db#3")
    assert base.has_scheme("gemini-project:/x/logs.json")
    assert not base.has_scheme("/home/x/session.jsonl") and not base.has_scheme("gitx:/repo")
