"""A zsh history read line by line as zsh reads it (Src/hist.c readhistfile): whatever the first
line, a `: <start>:<elapsed>;` line gives its time and duration and a plain line a command with
no time (a `\\:` it starts with unescaped); EXTENDED_HISTORY only decides how zsh writes, so a
history where the option was turned on (or off) mixes them. A plain line in a history that holds
timed ones is warned `zsh_unprefixed_line` in either order: its command has no time where the
file keeps times. A timed line is never warned."""

from __future__ import annotations

from pathlib import Path

from forsy.evidence import Session
from forsy.payloads import ShellInfo
from forsy.sources import ReadContext
from forsy.sources.shell import ShellHistorySource

SRC = ShellHistorySource()
WARN = "no ': <epoch>:<elapsed>;' prefix"


def read(p: Path) -> Session:
    [s] = SRC.read(p, ReadContext(root=p.parent))
    return s


def duration(e: object) -> float | None:
    info = getattr(e, "info", None)
    assert isinstance(info, ShellInfo)
    return info.duration_s


def test_plain_lines_then_timed_ones(tmp_path: Path) -> None:
    p = tmp_path / ".zsh_history"
    p.write_bytes(b"ls\ncd /tmp\n: 1700000000:0;git status\n: 1700000005:3;make test\n")
    s = read(p)
    assert [e.text for e in s.events] == ["ls", "cd /tmp", "git status", "make test"]
    assert [e.ts for e in s.events] == [None, None, "2023-11-14T22:13:20Z", "2023-11-14T22:13:25Z"]
    assert [duration(e) for e in s.events] == [None, None, 0.0, 3.0]
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("zsh_unprefixed_line", WARN, 1), ("zsh_unprefixed_line", WARN, 2)]
    assert s.meta.extra["format"] == "zsh_extended"
    # the timed command's own bytes: after its prefix
    ev = s.evidence[s.events[2].refs[0].ev]
    assert (ev.line, ev.byte_offset, ev.byte_length, ev.record_type) == (3, len(b"ls\ncd /tmp\n: 1700000000:0;"),
                                                                       len(b"git status"), "zsh_extended")


def test_timed_lines_then_plain_ones_warn_alike(tmp_path: Path) -> None:
    p = tmp_path / ".zsh_history"
    p.write_bytes(b": 1700000000:0;git status\nls\n")
    s = read(p)
    assert [(e.text, e.ts) for e in s.events] == [("git status", "2023-11-14T22:13:20Z"), ("ls", None)]
    assert [(w.code, w.line) for w in s.warnings] == [("zsh_unprefixed_line", 2)]


def test_an_escaped_colon_is_unescaped_in_a_mixed_history(tmp_path: Path) -> None:
    # without EXTENDED_HISTORY zsh writes `\` before a command that starts with `:`
    p = tmp_path / ".zsh_history"
    p.write_bytes(b"\\: noop\n: 1700000000:2;true\n")
    s = read(p)
    assert [(e.text, e.ts, duration(e)) for e in s.events] == [(": noop", None, None),
                                                               ("true", "2023-11-14T22:13:20Z", 2.0)]
    ev = s.evidence[s.events[0].refs[0].ev]
    assert (ev.byte_offset, ev.byte_length) == (1, len(b": noop"))


def test_a_plain_history_is_not_warned(tmp_path: Path) -> None:
    p = tmp_path / ".zsh_history"
    p.write_bytes(b"ls\n\\: x\n")
    s = read(p)
    assert [e.text for e in s.events] == ["ls", ": x"] and s.warnings == []
    assert s.meta.extra["format"] == "zsh_plain"


def test_a_timed_multi_line_command_after_plain_lines(tmp_path: Path) -> None:
    p = tmp_path / ".histfile"
    p.write_bytes(b"pwd\n: 1700000000:1;echo a\\\nb\n")
    s = read(p)
    assert [(e.text, e.ts) for e in s.events] == [("pwd", None), ("echo a\nb", "2023-11-14T22:13:20Z")]
