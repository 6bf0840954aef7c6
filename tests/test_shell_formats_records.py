"""The shell history parsers' records, field by field: each command's record type, line, byte
offset and end, for plain bash and zsh lines, a `\\r\\n` history and a last line without a
newline (their spans are what `forsy verify` re-reads, byte for byte)."""

from __future__ import annotations

from forsy.sources.shell._formats import all_lines, parse_bash, parse_zsh


def _rows(parsed: object) -> list[tuple[int, int, int, str, str]]:
    return [(e.line, e.offset, e.end, e.command, e.record_type) for e in parsed.entries]  # type: ignore[attr-defined]


def test_plain_bash_lines_and_a_stamped_one() -> None:
    data = b"ls -la\r\n\n#1700000000\ngit status\nmake\n"
    assert _rows(parse_bash(data)) == [
        (1, 0, 6, "ls -la", "bash_plain"),
        (3, 9, 31, "git status", "bash_epoch"),  # the record begins at its stamp
        (5, 32, 36, "make", "bash_plain"),
    ]
    assert parse_bash(data).entries[1].command_span() == (4, 21, 31)


def test_a_last_line_without_a_newline_and_crlf_lines() -> None:
    data = b"echo a\r\necho b\r\necho c"
    assert [(ln.n, ln.offset, ln.raw) for ln in all_lines(data)] == [
        (1, 0, b"echo a"), (2, 8, b"echo b"), (3, 16, b"echo c")]
    assert _rows(parse_bash(data))[-1] == (3, 16, 22, "echo c", "bash_plain")
    assert [(ln.n, ln.offset, ln.raw) for ln in all_lines(b"a\n\n")] == [(1, 0, b"a"), (2, 2, b"")]


def test_plain_zsh_lines_blank_lines_between_and_a_continuation_on_the_last_line() -> None:
    data = b"ls\n\n\necho one\\\ntwo\npwd\\"
    assert _rows(parse_zsh(data, "zsh_plain")) == [
        (1, 0, 2, "ls", "zsh_plain"),
        (4, 5, 18, "echo one\ntwo", "zsh_plain"),
        (6, 19, 23, "pwd\\", "zsh_plain"),  # cut after a continuation's backslash: kept as written
    ]
