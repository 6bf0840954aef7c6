"""`asciinema/_commands.Reader`: the commands of a recording as the module docstring promises
them, read from hand-built events: keys typed one event each (the Enter alone or with the last
keys), a line pasted twice, a command whose Enter is not among the keys, a multi-line command
whose later lines and output share one event, a line no event holds a part of (a highlighted
echo), a recording of one program and of tmux/screen/a login shell. Each command's text, where it
was read (the event's file line, pointer and slice), whether it was typed, its prompt, its time
and its output worked out by hand; and every event no command cites marked by its rule and
counted one by one, an empty or cancelled line's own event keeping its rule when the next prompt
is drawn in it.
"""

from __future__ import annotations

import json
from typing import Any

from forsy.evidence import Ref
from forsy.sources.asciinema._cast import parse
from forsy.sources.asciinema._commands import Command, Reader

HEADER = {"version": 2, "width": 80, "height": 24, "timestamp": 1767261600}
FULL = "dev@box:~$ "


def _read(events: list[list[Any]]) -> tuple[Reader, list[Command], dict[str, int]]:
    """The reader after its run, its commands, and each event's id → its line in the file (the
    header is line 1, so `events[k]` is line k + 2)."""
    data = "\n".join(json.dumps(x) for x in [HEADER, *events]) + "\n"
    cast = parse(data.encode(), "rec.cast")
    assert cast is not None
    reader = Reader(cast)
    commands = reader.run()
    return reader, commands, {e.ev.id: e.ev.line for e in cast.events if e.ev.line is not None}


def _cmd(c: Command, line: dict[str, int]) -> tuple[Any, ...]:
    assert all(r.pointer == "/2" for r in c.refs)  # an event's data is its element 2
    return (c.text, [line[r.ev] for r in c.refs], c.span, c.typed, c.start, c.prompt, c.lines, c.end)


def test_keys_typed_one_event_each_are_the_command_cited_key_by_key() -> None:
    r, cmds, line = _read([
        [0.1, "o", "$ "],  # line 2
        [1.0, "i", "l"], [1.1, "o", "l"],  # 3, 4
        [1.2, "i", "s"], [1.3, "o", "s"],  # 5, 6
        [1.4, "i", "\r"], [1.5, "o", "\r\n"],  # 7, 8: Enter
        [1.6, "o", "a.txt\r\n"], [2.0, "o", "$ "],  # 9, 10
        [3.0, "i", "p"], [3.1, "i", "wd\r"],  # 11, 12: the Enter read with the last keys
        [3.2, "o", "pwd\r\n/home\r\n$ "],  # 13
    ])
    # the keys joined as typed; no event holds "ls": the two keys are cited, not the Enter
    assert [_cmd(c, line) for c in cmds] == [("ls", [3, 5], None, True, 1.4, "$", ["a.txt"], 2.0),
                                             ("pwd", [11, 12], None, True, 3.1, "$", ["/home"], 3.2)]
    assert [c.rebuilt for c in cmds] == [False, False]


def test_a_line_no_event_holds_a_part_of_is_cited_by_every_event_of_its_echo() -> None:
    # no keys recorded; each key echoed in colour (a syntax highlighter): no event's data is in
    # the line, so all the echo is cited, and the text is the line rebuilt from the screen
    r, cmds, line = _read([
        [0.1, "o", "$ "], [1.0, "o", "\x1b[31ml\x1b[0m"], [1.1, "o", "\x1b[31ms\x1b[0m"],  # 2, 3, 4
        [1.2, "o", "\r\n"], [1.3, "o", "a\r\n$ "],  # 5, 6
    ])
    assert [_cmd(c, line) for c in cmds] == [("ls", [3, 4, 5], None, False, 1.2, "$", ["a"], 1.3)]
    assert cmds[0].rebuilt


def test_a_line_pasted_twice_is_cited_at_its_first_place() -> None:
    r, cmds, line = _read([
        [0.1, "o", FULL],  # 2
        [1.0, "i", "ls\rls\r"],  # 3: both lines in one paste
        [1.1, "o", "ls\r\n"], [1.2, "o", "a\r\n" + FULL],  # 4, 5
        [1.3, "o", "ls\r\n"], [1.4, "o", "a\r\n" + FULL],  # 6, 7: the second, read from its echo
    ])
    assert [_cmd(c, line) for c in cmds] == [
        ("ls", [3], (0, 2), True, 1.0, "dev@box:~$", ["a"], 1.2),
        ("ls", [6], (0, 2), False, 1.3, "dev@box:~$", ["a"], 1.4)]


def test_a_command_whose_enter_is_not_among_the_keys_is_timed_by_its_echo() -> None:
    # the keys hold no `\r` (the Enter was sent by something asciinema did not record): the
    # command is what was typed, entered when the terminal showed its line end
    r, cmds, line = _read([[0.1, "o", "$ "], [1.0, "i", "pwd"], [1.5, "o", "pwd\r\n/home\r\n"], [2.0, "o", "$ "]])
    assert [_cmd(c, line) for c in cmds] == [("pwd", [3], (0, 3), True, 1.5, "$", ["/home"], 2.0)]


def test_a_multi_line_commands_later_lines_and_its_output_in_one_event() -> None:
    # the terminal drops a line's trailing blanks: `> foo  ` shows as `> foo`, still the command
    r, cmds, line = _read([
        [0.1, "o", "$ "],
        [1.0, "i", "cat <<EOF\nfoo  \nEOF\r"],
        [1.1, "o", "cat <<EOF\r\n> foo  \r\n> EOF\r\nfoo\r\nbar\r\n"],
        [2.0, "o", "$ "],
    ])
    assert [_cmd(c, line) for c in cmds] == [
        ("cat <<EOF\nfoo  \nEOF", [3], (0, 19), True, 1.0, "$", ["foo", "bar"], 2.0)]


def test_each_empty_and_each_cancelled_line_is_counted() -> None:
    r, cmds, _ = _read([
        [0.1, "o", "$ "], [1.0, "o", "\r\n$ "], [2.0, "o", "\r\n$ "],  # two empty lines
        [3.0, "o", "sl^C\r\n$ "], [4.0, "o", "x^C\r\n$ "],  # two lines cancelled with Ctrl-C
    ])
    assert cmds == []
    assert r.marks.counts == {"empty_commands": 2, "cancelled_lines": 2}


def test_a_recording_of_one_program_is_its_header_command_from_the_start() -> None:
    data = "\n".join(json.dumps(x) for x in [dict(HEADER, command="python app.py"), [0.5, "o", "hi\r\n"],
                                             [0.9, "o", "bye"], [1.0, "x", "3"]]) + "\n"
    cast = parse(data.encode(), "rec.cast")
    assert cast is not None
    [c] = Reader(cast).run()
    assert (c.text, c.refs[0].ev, c.refs[0].pointer, c.span, c.typed, c.start, c.prompt) == (
        "python app.py", cast.header_ev.id, "/command", None, False, 0.0, "")
    assert (c.lines, c.end, c.finished, c.exit_code, c.exit_ref) == (
        ["hi", "bye"], 1.0, True, 3, Ref(cast.events[2].ev.id, "/2"))


def test_what_no_command_cites_is_marked_by_its_rule_and_counted_one_by_one() -> None:
    r, cmds, line = _read([
        [0.0, "i", "a"], [0.1, "i", "b"],  # 2, 3: keys before the first prompt
        [0.2, "o", "$ "],  # 4
        [1.0, "o", "\r\nbye\r\n"],  # 5: an empty line's end and output after it, in one event
        [1.1, "o", "logout\r\n"],  # 6: more output after it (no command runs)
        [1.2, "o", "\r\n"],  # 7: the same
        [1.3, "r", "100x30"], [1.4, "r", "90x30"], [1.5, "m", ""], [1.6, "m", "b"],  # 8-11
        [2.0, "o", "$ "], [3.0, "i", "cat\r"], [3.0, "o", "cat\r\n"],  # 12, 13, 14
        [3.1, "i", "y"], [3.2, "i", "\x04"], [4.0, "o", "$ "],  # 15, 16: typed to cat; 17
    ])
    assert [c.text for c in cmds] == ["cat"]
    by_line = {line[k]: v for k, v in r.marks.by_id.items()}
    assert {n: by_line[n] for n in (2, 3, 5, 6, 7, 8, 9, 10, 11, 15, 16)} == {
        2: ("set_aside", "input before the first prompt"), 3: ("set_aside", "input before the first prompt"),
        5: ("set_aside", "output after an empty command line"),
        6: ("set_aside", "output after an empty command line"), 7: ("set_aside", "output after an empty command line"),
        8: ("metadata", "terminal resized (r event)"), 9: ("metadata", "terminal resized (r event)"),
        10: ("metadata", "marker (m event)"), 11: ("metadata", "marker (m event)"),
        15: ("metadata", "input typed to the running program"), 16: ("metadata", "input typed to the running program")}
    assert r.marks.counts == {"input_before_prompt": 2, "empty_commands": 1, "resizes": 2, "markers": 2,
                              "stdin_inputs": 2}


def test_a_recording_of_tmux_or_screen_is_read_from_its_prompts() -> None:
    for command in ("tmux new -s w", "/usr/bin/screen -S w", "/bin/zsh -l"):
        data = "\n".join(json.dumps(x) for x in [dict(HEADER, command=command), [0.1, "o", "$ "],
                                                 [1.0, "o", "ls\r\na\r\n$ "]]) + "\n"
        cast = parse(data.encode(), "rec.cast")
        assert cast is not None
        assert [(c.text, c.lines) for c in Reader(cast).run()] == [("ls", ["a"])], command


def test_an_empty_or_cancelled_line_ended_with_the_next_prompt_keeps_its_own_rule() -> None:
    # the shell often draws its next prompt in the event that ends the line: that event holds
    # no output, so it is what the line was (and the prompt after it opens the next command)
    r, cmds, line = _read([[0.1, "o", "$ "], [1.0, "o", "\r\n$ "], [2.0, "o", "sl^C\r\n$ "],
                           [3.0, "i", "ls\r"], [3.0, "o", "ls\r\na\r\n$ "]])
    assert [(c.text, c.lines) for c in cmds] == [("ls", ["a"])]
    by_line = {line[k]: v for k, v in r.marks.by_id.items()}
    assert (by_line[3], by_line[4]) == (("set_aside", "empty command lines ran nothing"),
                                        ("set_aside", "a line cancelled with Ctrl-C ran nothing"))
    assert r.marks.counts == {"empty_commands": 1, "cancelled_lines": 1}
