"""Aider's chat history cut into writes (`aider._md`) and the byte ranges cut from them
(`aider._evidence`), on hand-written files of numbered lines.

aider/io.py writes the file in four ways (`append_chat_history`): a header
`\\n# aider chat started at …\\n\\n`; the user's input, each line `#### ` + text + two spaces
(an empty line of a multi-line input is `####` + three spaces); its own messages, `> ` + text +
two spaces, where a message of several lines has the prefix on its first line only and the two
spaces on its last only; and the model's reply between blank lines. Each expected item (kind,
line numbers), blank-line count and cut range is worked out by hand from the lines below.
"""

from __future__ import annotations

from forsy.evidence import Session, SessionMeta
from forsy.sources.aider._evidence import Cutter
from forsy.sources.aider._md import Chat, parse, split_lines

B = "  "


def chat(lines: list[str]) -> tuple[Chat, list[tuple[str, list[int]]]]:
    c = parse(("\n".join(lines) + "\n").encode())
    return c, [(it.kind, [ln.no for ln in it.lines]) for it in c.items]


def test_each_write_of_a_session() -> None:
    c, items = chat([
        "", "# aider chat started at 2026-03-01 09:00:00", "",  # 1-3
        f"> Aider v0.86.0{B}", f"> Main model: x{B}", "",  # 4-6
        f"#### fix it{B}", f"####{B} ", f"#### please{B}", "",  # 7-10: one input of three lines
        "Sure.", "", "> quoted in the reply", "still quote", "", "More.", "",  # 11-17: the reply
        f"> Applied edit to a.py{B}", "> Running pytest", "raw output line", "", f"more raw{B}",  # 18-22
        f"> Tokens: 1k{B}",  # 23
    ])
    assert items == [
        ("header", [2]), ("output", [4]), ("output", [5]), ("user", [7, 8, 9]),
        # a `> ` line after a blank line that does not end before the next blank is the reply's quote
        ("text", [11, 12, 13, 14, 15, 16]),
        # right after another aider line a message may hold a blank line
        ("output", [18]), ("output", [19, 20, 21, 22]), ("output", [23]),
    ]
    assert c.blank_lines == 5 and c.unterminated == []  # lines 1, 3, 6, 10, 17 (12 and 15 are the reply's)


def test_the_rest_of_a_padded_message_stops_at_a_blank_a_header_or_an_input() -> None:
    _, items = chat([f"> Add a.py to the chat? padded to{B}", f"its width{B}", f"> Tokens: 2k{B}"])
    assert items == [("output", [1, 2]), ("output", [3])]
    for stop, kind in (("", None), ("# aider chat started at 2026-03-02 10:00:00", "header"), (f"#### hi{B}", "user")):
        c, items = chat([f"> Add a.py? padded to{B}", "rest, no break", stop, f"> Tokens: 2k{B}"])
        want = [("output", [1]), ("text", [2])] + ([(kind, [3])] if kind else []) + [("output", [4])]
        assert items == want, stop
        assert c.blank_lines == (1 if kind is None else 0)
    # a blank line or a header stops it even when a line with a break follows (a reply's markdown break)
    for stop in ("", "# aider chat started at 2026-03-02 10:00:00"):
        _, items = chat([f"> Add a.py? padded to{B}", "rest, no break", stop, f"A reply line{B}", "more"])
        assert items[0] == ("output", [1]) and items[1][0] == "text" and items[1][1][0] == 2, stop
    # nor does it run into the next aider line
    _, items = chat([f"> Add a.py? padded to{B}", "rest, no break", f"> Tokens: 2k{B}"])
    assert items == [("output", [1]), ("text", [2, 3])]


def test_a_bare_quote_mark_is_a_message_of_its_own() -> None:
    # `>` alone: an empty message whose two spaces an editor stripped
    _, items = chat([f"#### go{B}", ">", f"> Tokens: 1k{B}"])
    assert items == [("user", [1]), ("output", [2]), ("output", [3])]


def test_a_message_cut_by_a_header_or_the_end_of_the_file() -> None:
    c, items = chat([
        "# aider chat started at 2026-03-01 09:00:00", f"#### go{B}", "",  # 1-3
        "> Running make", "out", "", "",  # 4-7: after a blank line: the reply's quote
        "# aider chat started at 2026-03-01 10:00:00", f"#### go{B}",  # 8-9
        "> Running make", "out", "",  # 10-12: right after the input, cut by the end
    ])
    assert items == [("header", [1]), ("user", [2]), ("text", [4, 5]), ("header", [8]), ("user", [9]),
                     ("output", [10, 11])]
    assert c.unterminated == [10] and c.blank_lines == 4
    c, items = chat([f"#### go{B}", "> Running make", "out", "# aider chat started at 2026-03-01 10:00:00"])
    assert items == [("user", [1]), ("output", [2, 3]), ("header", [4])] and c.unterminated == [2]


def test_lines_and_their_bytes() -> None:
    data = "a\r\nçé\n\nlast".encode()
    got = [(ln.no, ln.start, ln.end, ln.text) for ln in split_lines(data)]
    assert got == [(1, 0, 1, "a"), (2, 3, 7, "çé"), (3, 8, 8, ""), (4, 9, 13, "last")]
    assert split_lines(b"") == [] and [(ln.start, ln.end) for ln in split_lines(b"\n")] == [(0, 0)]
    assert [ln.text for ln in split_lines(b"\xff\r\n\r")] == ["\ufffd", ""]


def test_a_message_is_cut_to_its_text() -> None:
    data = (f"> one{B}\n> two\nmiddle\nlast{B}\n>{B}\n>\n").encode()
    lines = split_lines(data)
    s = Session("aider", "x", [], {}, [], SessionMeta(agent="aider"))
    cut = Cutter(data, "h.md")
    ev, text = cut.prefixed(s, lines[0:1], 2, "aider_output")
    assert text == "one" and (ev.source, ev.line, ev.byte_offset, ev.byte_length) == ("h.md", 1, 2, 3)
    assert ev.record_type == "aider_output" and ev.id in s.evidence
    ev, text = cut.prefixed(s, lines[1:4], 2, "aider_output")
    assert text == "two\nmiddle\nlast" and (ev.line, ev.byte_offset, ev.byte_length) == (2, 10, 15)
    # an empty message (aider writes `>` and its break) and a bare `>`: an empty range at the line's end
    _, text = cut.prefixed(s, lines[4:5], 2, "aider_output")
    ev, text2 = cut.prefixed(s, lines[5:6], 2, "aider_output")
    assert text == text2 == "" and (ev.line, ev.byte_offset, ev.byte_length) == (6, 33, 0)
    ev, text = cut.lines(s, lines[1:3], "reply")
    assert text == "> two\nmiddle" and (ev.line, ev.byte_offset, ev.byte_length, ev.record_type) == (2, 8, 12, "reply")
    assert set(s.evidence) >= {ev.id}
