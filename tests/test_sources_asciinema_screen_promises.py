"""What a terminal showed, by the line model of `asciinema._term`: each line-editing escape
(CSI K, C, D, G, P, @) moves or changes the line in progress as a terminal would; colours,
screen addressing and private modes draw nothing; a sequence cut between two writes is carried
over to the next, and an ESC that begins no sequence is dropped, the rest kept as text.
Every expected line was worked out by hand, cell by cell.
"""

from __future__ import annotations

import pytest

from forsy.sources.asciinema._term import MAX_PENDING, Screen, _may_continue, render, typed_text


@pytest.mark.parametrize(("data", "shown"), [
    # K: erase to the end (0, the default), to the start (1, blanks up to the cursor), the whole line (2)
    ("abcdef\r\x1b[3C\x1b[K", "abc"),
    ("abcdef\r\x1b[3C\x1b[0K", "abc"),
    ("abcdef\x1b[3D\x1b[1K", "   def"),
    ("ab\x1b[5C\x1b[1Kx", "       x"),  # the cursor past the line's end: the whole line blanked
    ("abcdef\x1b[2Kx", "      x"),  # the cursor stays where it was
    # C: forward n (default and 0: one)
    ("ab\x1b[3Cx", "ab   x"),
    ("ab\x1b[Cx", "ab x"),
    ("ab\x1b[0Cx", "ab x"),
    # D: back n, never past the first column
    ("abcd\x1b[2DX", "abXd"),
    ("abcd\x1b[DX", "abcX"),
    ("ab\x1b[9DX", "Xb"),
    # G: to column n (1-based; default and 0: the first)
    ("abcd\x1b[2GX", "aXcd"),
    ("abcd\x1b[GX", "Xbcd"),
    ("abcd\x1b[0GX", "Xbcd"),
    # P: delete n characters at the cursor (default one)
    ("abcdef\r\x1b[2P", "cdef"),
    ("abcdef\r\x1b[P", "bcdef"),
    # @: insert n blanks at the cursor (default one); nothing past the line's end
    ("abcd\r\x1b[2@X", "X abcd"),
    ("abcd\r\x1b[@X", "Xabcd"),
    ("ab\x1b[5C\x1b[@x", "ab     x"),
    ("ab\x1b[2C\x1b[3@x", "ab  x"),  # at the line's end exactly: inserted (then written over)
    # several parameters: the first counts; an empty one is 0
    ("abcd\x1b[2;5DX", "abXd"),
    ("abcd\x1b[;3DX", "abcX"),
    # private modes, colours and screen addressing draw nothing and move nothing on the line
    ("abc\x1b[?25K", "abc"),
    ("abc\x1b[>1K", "abc"),
    ("abc\x1b[<2K", "abc"),
    ("abc\x1b[=3K", "abc"),
    ("a\x1b[31mb\x1b[0mc\x1b[2;5Hd\x1b[2Je", "abcde"),
    ("ab\x1b[1;1Hc", "abc"),
    # other sequences: OSC titles (BEL or ST), DCS, tmux's title, two-byte and nF escapes
    ("\x1b]0;title\x07a\x1b]2;t\x1b\\b", "ab"),
    ("\x1bPq#0\x1b\\a\x1bktitle\x1b\\b", "ab"),
    ("\x1b(Ba\x1b7b\x1b=c\x1b8", "abc"),
    # control characters: BEL and NUL write nothing, a tab is kept, backspace moves back one
    ("a\x07b\x00c\td", "abc\td"),
    ("abc\b\bX", "aXc"),
    ("\b\bab", "ab"),
    ("a\x7fb", "ab"),
])
def test_the_line_shown(data: str, shown: str) -> None:
    assert render(data) == shown


def test_completed_lines_keep_their_blanks_inside_not_after() -> None:
    s = Screen()
    s.write("one  \r\n\r\n  two\x1b[K\nthree")
    assert s.take() == ["one", "", "  two"]
    assert s.take() == []
    assert (s.current(), s.line, s.col) == ("three", list("three"), 5)
    s.write("   ")
    assert s.current() == "three"


def test_a_sequence_cut_between_writes_is_carried_over() -> None:
    s = Screen()
    s.write("abcd\x1b[2")
    assert (s.current(), s.pending) == ("abcd", "\x1b[2")
    s.write("DX")
    assert (s.current(), s.pending) == ("abXd", "")
    s = Screen()
    for piece in ("a\x1b", "]0;ti", "tle", "\x07b", "\x1b(", "Bc", "\x1b", "[1", "D", "Z"):
        s.write(piece)
    assert (s.current(), s.pending) == ("abZ", "")


def test_an_esc_that_begins_no_sequence_is_dropped_and_the_rest_kept() -> None:
    assert render("a\x1b[3\x07b") == "a[3b"  # BEL cannot be in a CSI: the ESC alone goes
    assert render("a\x1b\x01b") == "ab"
    # a sequence that never ends is given up at MAX_PENDING characters: its text is kept
    s = Screen()
    s.write("\x1b]" + "x" * MAX_PENDING)
    assert (s.pending, s.current()) == ("", "]" + "x" * MAX_PENDING)
    s = Screen()
    s.write("\x1b]" + "x" * (MAX_PENDING - 3))  # still short enough to wait for its end
    assert (s.pending, s.current()) == ("\x1b]" + "x" * (MAX_PENDING - 3), "")
    s = Screen()
    s.write("\x1b]" + "x" * (MAX_PENDING - 2))  # MAX_PENDING characters exactly: given up
    assert (s.pending, s.current()) == ("", "]" + "x" * (MAX_PENDING - 2))
    s = Screen()
    s.write("a" * 10 + "\x1b]" + "x" * (MAX_PENDING - 6))  # the bound counts from the ESC, not the write's start
    assert (s.pending, s.current()) == ("\x1b]" + "x" * (MAX_PENDING - 6), "a" * 10)


@pytest.mark.parametrize(("tail", "more"), [
    ("\x1b", True), ("\x1b[", True), ("\x1b[12;", True), ("\x1b[?", True), ("\x1b[1 ", True),
    ("\x1b[1\x07", False), ("\x1b[1\x01", False),
    ("\x1b]0;t", True), ("\x1bPq", True), ("\x1bX", True), ("\x1b^", True), ("\x1b_a", True), ("\x1bkti", True),
    ("\x1b]0;t\x07", False),
    ("\x1b(", True), ("\x1b( ", True), ("\x1b\x01", False), ("\x1b(\x01", False),
])
def test_which_tails_may_still_become_a_sequence(tail: str, more: bool) -> None:
    assert _may_continue(tail) is more


@pytest.mark.parametrize(("keys", "line"), [
    ("ls -la", "ls -la"),
    ("lss\x7f -l", "ls -l"),
    ("lss\b -l", "ls -l"),
    ("\x7f\x7fls", "ls"),
    ("rm -rf /\x15ls", "ls"),
    ("echo a\nb\x7f\x7fc", "echo a\nc"),  # backspace stops at the newline of a multi-line command
    ("echo a\n\x15x", "echo a\nx"),
    ("git st\x1b[Dx\x1b[A", "git stx"),
    ("a\tb\x01\x02c\r", "a\tbc"),
])
def test_the_line_typed(keys: str, line: str) -> None:
    assert typed_text(keys) == line
