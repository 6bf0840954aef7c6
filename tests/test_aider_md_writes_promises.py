"""Aider's chat history cut into writes (`aider._md.parse`): a padded subject of several lines
read as one message however many lines it has, and a message that never ends (no line with
aider's two-space break before the next session or the end of the file) cut to its last
non-blank line, here its first. Hand-written files of numbered lines; each expected item (kind,
line numbers), blank-line count and unterminated message worked out by hand.

The parser's loops all run over finite ranges (a write's lines are skipped, never an index moved
back), so it ends on every input: a wrong index gives wrong items, which these tests see."""

from __future__ import annotations

from forsy.sources.aider._md import Chat, parse

B = "  "  # aider's markdown line break
HEADER = "# aider chat started at 2026-03-02 10:00:00"


def chat(lines: list[str], end: str = "\n") -> tuple[Chat, list[tuple[str, list[int]]]]:
    c = parse(("\n".join(lines) + end).encode())
    return c, [(it.kind, [ln.no for ln in it.lines]) for it in c.items]


def test_a_padded_subject_of_three_lines_is_one_message() -> None:
    # a confirmation whose subject of three lines is padded to one width: its first line already
    # ends with spaces; the rest, glued to it, ends at the first line with aider's break
    c, items = chat([
        f"#### add them{B}",  # 1
        f"> Add these files to the chat? src/a.py   {B}",  # 2
        "src/bb.py",  # 3
        f"src/ccc.py  {B}",  # 4
        f"> Tokens: 2k{B}",  # 5
    ])
    assert items == [("user", [1]), ("output", [2, 3, 4]), ("output", [5])]
    assert c.blank_lines == 0 and c.unterminated == []


def test_a_message_followed_only_by_blank_lines_is_cut_at_its_first_line() -> None:
    # right after the input, `> Running make` opens a message of several lines; nothing but
    # blank lines follows it before the end of the file, or before the next session's header
    c, items = chat([f"#### build{B}", "> Running make", "", ""])
    assert items == [("user", [1]), ("output", [2])]
    assert c.unterminated == [2] and c.blank_lines == 2
    c, items = chat([f"#### build{B}", "> Running make", "", HEADER, "", f"#### again{B}"])
    assert items == [("user", [1]), ("output", [2]), ("header", [4]), ("user", [6])]
    assert c.unterminated == [2] and c.blank_lines == 2
    # with no line after it at all (the file ends without a newline)
    c, items = chat([f"#### build{B}", "> Running make"], end="")
    assert items == [("user", [1]), ("output", [2])] and c.unterminated == [2] and c.blank_lines == 0
