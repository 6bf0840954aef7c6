"""An asciinema recording read whole, event by event: each command cited where its text was read
and timed by its Enter key, its output the lines until the next prompt; every other event
marked in the ledger by the rule that read it (output and keys before the first prompt, the
prompt, keys and echo, input to a running program, resizes, markers, a cancelled or empty
line) and counted; an unknown event code warned; a command the recording ends in warned
unfinished at its line. `read_history` gives the same commands as shell_command events.
One hand-built recording; every line number, time and rule name worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forsy.errors import InputError
from forsy.evidence import Session
from forsy.payloads import CallInfo, ResultInfo, ShellInfo
from forsy.sources import ReadContext
from forsy.sources.asciinema import AsciinemaSource
from forsy.sources.asciinema.source import DECODED, RENDERED

SRC = AsciinemaSource()
HEADER = {"version": 2, "width": 80, "height": 24, "timestamp": 1767261600, "env": {"SHELL": "/usr/bin/zsh"},
          "title": "demo"}
P = "dev@box:~$ "
EVENTS: list[list[Any]] = [
    [0.1, "o", "Welcome\r\n"],  # line 2: before the first prompt
    [0.2, "i", "x"],  # 3: input before the first prompt
    [0.3, "o", P],  # 4: the first prompt
    [1.0, "i", "ls\r"], [1.0, "o", "ls\r\n"],  # 5, 6: typed, echoed
    [1.1, "o", "a.txt\r\n"],  # 7: its output
    [1.2, "i", "q"],  # 8: typed to the running program
    [1.3, "r", "100x30"], [1.4, "m", ""], [1.5, "z", "?"],  # 9, 10, 11: resize, marker, an unknown code
    [2.0, "o", P],  # 12: the next prompt: ls ended
    [3.0, "o", "sl^C\r\n"],  # 13: a line cancelled with Ctrl-C
    [3.1, "o", P],  # 14
    [4.0, "o", "\r\n"],  # 15: an empty line
    [4.1, "o", P],  # 16
    [5.0, "i", "sleep 9\r"], [5.0, "o", "sleep 9\r\n"], [6.0, "o", "zz"],  # 17, 18, 19: the recording ends
]


def write(tmp_path: Path, header: object = HEADER, events: list[list[Any]] = EVENTS) -> Path:
    p = tmp_path / "rec.cast"
    p.write_text("\n".join(json.dumps(x) for x in [header, *events]) + "\n")
    return p


def lines(s: Session) -> dict[str, int | None]:
    return {k: v.line for k, v in s.evidence.items()}


def t(sec: int) -> str:
    return f"2026-01-01T10:00:0{sec}.000000Z"


def test_every_event_is_cited_or_marked_by_its_rule(tmp_path: Path) -> None:
    (s,) = SRC.read(write(tmp_path), ReadContext(root=tmp_path))
    ln = lines(s)
    assert sorted((ln[k], m.heading, m.name) for k, m in s.ledger.items()) == [
        (1, "metadata", "the recording's header (start time, terminal, environment)"),
        (2, "set_aside", "terminal output before the first prompt (no command)"),
        (3, "set_aside", "input before the first prompt"),
        (4, "metadata", "the shell prompt"),
        (5, "metadata", "typed keys"),
        (6, "metadata", "echo of the typed command"),
        (8, "metadata", "input typed to the running program"),
        (9, "metadata", "terminal resized (r event)"),
        (10, "metadata", "marker (m event)"),
        (12, "metadata", "the shell prompt"),
        (13, "set_aside", "a line cancelled with Ctrl-C ran nothing"),
        (14, "metadata", "the shell prompt"),
        (15, "set_aside", "empty command lines ran nothing"),
        (16, "metadata", "the shell prompt"),
        (17, "metadata", "typed keys"),
        (18, "metadata", "echo of the typed command"),
    ]
    q = s.quality
    assert (q.records, q.unknown_records, q.unparsable_records) == (19, 1, 0)
    assert q.extra == {"input_before_prompt": 1, "stdin_inputs": 1, "resizes": 1, "markers": 1, "cancelled_lines": 1,
                       "empty_commands": 1, "commands": 2, "exit_codes_unrecorded": 2, "rendered_outputs": 2}
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("unknown-record", "event code 'z' is not one asciicast defines; kept unread", "rec.cast", 11),
        ("unfinished-command", "the recording ends while 'sleep 9' runs (no prompt after it)", "rec.cast", 17)]
    assert (s.source_kind, s.meta.agent, s.meta.extra) == ("asciinema", "terminal",
                                                           {"format": "asciicast v2", "title": "demo"})
    got = [(e.kind, e.actor, e.ts, [(ln[r.ev], r.pointer) for r in e.refs], e.text, e.args, e.tool, e.is_error,
            e.excerpt) for e in s.events]
    assert got == [
        ("tool_call", "human:terminal", t(1), [(5, "/2")], None, "ls", "shell_command", None, False),
        # the echo event is cited too: its data is not in the text, so the result is a rendering
        # (all of the output, derived, never an excerpt)
        ("tool_result", "human:terminal", t(2), [(6, "/2"), (7, "/2")], "a.txt", None, "shell_command", None, False),
        ("tool_call", "human:terminal", t(5), [(17, "/2")], None, "sleep 9", "shell_command", None, False),
        ("tool_result", "human:terminal", t(6), [(18, "/2"), (19, "/2")], "zz", None, "shell_command", None, False),
    ]
    c1, r1, c2, r2 = s.events
    assert [(r.info.decoded, r.info.exit_code) for r in (r1, r2) if isinstance(r.info, ResultInfo)] == [
        (RENDERED, None), (RENDERED, None)]
    assert [(c.info.span, c.info.decoded) for c in (c1, c2) if isinstance(c.info, CallInfo)] == [
        ((0, 2), None), ((0, 7), None)]
    # the call id: the first ref's evidence and the event's place in the session
    assert (c1.call_id, r1.call_id, c2.call_id, r2.call_id) == (
        f"{c1.refs[0].ev}:0", f"{c1.refs[0].ev}:0", f"{c2.refs[0].ev}:2", f"{c2.refs[0].ev}:2")


def test_read_history_gives_the_same_commands_as_shell_commands(tmp_path: Path) -> None:
    p = write(tmp_path)
    (h,) = SRC.read_history(p, ReadContext(root=tmp_path))
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    ln = lines(h)
    got = [(e.kind, e.actor, e.ts, [(ln[r.ev], r.pointer) for r in e.refs], e.text, e.call_id) for e in h.events]
    k1, k2 = h.events[0].refs[0].ev, h.events[2].refs[0].ev
    assert got == [
        ("shell_command", "human:terminal", t(1), [(5, "/2")], "ls", f"{k1}:0"),
        ("tool_result", "human:terminal", t(2), [(6, "/2"), (7, "/2")], "a.txt", f"{k1}:0"),
        ("shell_command", "human:terminal", t(5), [(17, "/2")], "sleep 9", f"{k2}:2"),
        ("tool_result", "human:terminal", t(6), [(18, "/2"), (19, "/2")], "zz", f"{k2}:2"),
    ]
    for e in (h.events[0], h.events[2]):
        assert isinstance(e.info, ShellInfo) and (e.info.shell, e.info.decoded) == ("zsh", DECODED)
    assert [(e.text, e.excerpt, e.is_error) for e in h.events[1::2]] == [
        (e.text, e.excerpt, e.is_error) for e in s.events[1::2]]
    assert (h.ledger, h.quality, h.warnings) == (s.ledger, s.quality, s.warnings)


@pytest.mark.parametrize(("env", "shell"), [({"SHELL": "/bin/bash"}, "bash"), ({"SHELL": "fish"}, "fish"),
                                            ({"SHELL": ""}, None), ({"SHELL": 3}, None), ({}, None),
                                            ("SHELL=/bin/sh", None), (None, None)])
def test_the_shell_is_the_header_s_shell_name(env: object, shell: str | None, tmp_path: Path) -> None:
    header = {k: v for k, v in HEADER.items() if k != "env"} | ({"env": env} if env is not None else {})
    (h,) = SRC.read_history(write(tmp_path, header, EVENTS[2:7]), ReadContext(root=tmp_path))
    (cmd,) = [e for e in h.events if e.kind == "shell_command"]
    assert isinstance(cmd.info, ShellInfo) and cmd.info.shell == shell


def test_the_header_s_title_and_command_are_kept_when_text(tmp_path: Path) -> None:
    header = {"version": 3, "term": {"cols": 80, "rows": 24}, "title": 7, "command": "make"}
    (s,) = SRC.read(write(tmp_path, header, [[0.5, "o", "ok\r\n"]]), ReadContext(root=tmp_path))
    assert s.meta.extra == {"format": "asciicast v3", "command": "make"}
    header = {"version": 2, "width": 80, "title": "t", "command": None}
    (s,) = SRC.read(write(tmp_path, header, [[0.5, "o", "ok\r\n"]]), ReadContext(root=tmp_path))
    assert s.meta.extra == {"format": "asciicast v2", "title": "t"}


def test_a_recording_with_no_prompt_says_so(tmp_path: Path) -> None:
    (s,) = SRC.read(write(tmp_path, events=[[0.1, "o", "just text\r\n"], [0.2, "o", "more"]]),
                    ReadContext(root=tmp_path))
    assert (s.events, s.quality.extra) == ([], {"commands": 0})
    assert [(w.code, w.message, w.line) for w in s.warnings] == [
        ("no-prompt", "no shell prompt was recognised and the header names no command: no commands found "
                      "(the output is set aside)", None)]
    assert {m.name for m in s.ledger.values()} == {
        "the recording's header (start time, terminal, environment)",
        "terminal output before the first prompt (no command)"}
    # a prompt and nothing typed: no warning, the prompt counted
    (s,) = SRC.read(write(tmp_path, events=[[0.1, "o", P]]), ReadContext(root=tmp_path))
    assert (s.events, s.warnings) == ([], [])


def test_keys_typed_at_the_last_prompt_and_never_entered_are_set_aside(tmp_path: Path) -> None:
    (s,) = SRC.read(write(tmp_path, events=[[0.1, "o", P], [0.5, "i", "gi"], [0.5, "o", "gi"]]),
                    ReadContext(root=tmp_path))
    ln = lines(s)
    assert sorted((ln[k], m.heading, m.name) for k, m in s.ledger.items())[1:] == [
        (2, "metadata", "the shell prompt"), (3, "set_aside", "typed at the last prompt, never entered"),
        (4, "set_aside", "typed at the last prompt, never entered")]
    assert s.events == [] and s.warnings == []


def read_events(tmp_path: Path, events: list[list[Any]], header: object = HEADER) -> Session:
    (s,) = SRC.read(write(tmp_path, header, events), ReadContext(root=tmp_path))
    return s


def test_keys_that_edit_the_line_give_the_echo_cited_by_the_keys_it_shows(tmp_path: Path) -> None:
    s = read_events(tmp_path, [
        [0.1, "o", P],  # 2
        [1.0, "i", "l"], [1.0, "o", "l"], [1.1, "i", "x"], [1.1, "o", "x"],  # 3-6
        [1.2, "i", "\x7f"], [1.2, "o", "\b \b"], [1.3, "i", "s"], [1.3, "o", "s"],  # 7-10
        [1.4, "i", "\r"], [1.5, "o", "\r\n"], [1.6, "o", "out\r\n"], [2.0, "o", P]])  # 11-14
    ln = lines(s)
    call, res = s.events
    # the keys hold a backspace: the line is the echo "ls", cited by the echo events whose data is in it
    assert (call.args, [(ln[r.ev], r.pointer) for r in call.refs]) == ("ls", [(4, "/2"), (10, "/2")])
    assert isinstance(call.info, CallInfo) and (call.info.span, call.info.decoded) == (None, DECODED)
    assert call.ts == "2026-01-01T10:00:01.500000Z"  # the echo's Enter, not a key's
    # the output cites the event that ended the line too (nothing of it is in the text: a rendering)
    assert (res.text, [ln[r.ev] for r in res.refs], res.ts, res.excerpt) == ("out", [12, 13], t(2), False)
    assert isinstance(res.info, ResultInfo) and res.info.decoded == RENDERED
    marks = {ln[k]: m.name for k, m in s.ledger.items()}
    assert [marks[i] for i in range(3, 13)] == ["typed keys", "echo of the typed command"] * 5


def test_typed_keys_are_the_line_up_to_the_first_enter_timed_by_it(tmp_path: Path) -> None:
    s = read_events(tmp_path, [[0.1, "o", P], [0.6, "i", "ls\recho x\r"], [0.9, "o", "ls\r\n"],
                               [1.0, "o", "f\r\n" + P]])
    ln = lines(s)
    call, res = s.events
    assert (call.args, [ln[r.ev] for r in call.refs], call.ts) == ("ls", [3], "2026-01-01T10:00:00.600000Z")
    assert isinstance(call.info, CallInfo) and (call.info.span, call.info.decoded) == ((0, 2), None)
    assert (res.text, res.ts, res.excerpt) == ("f", t(1), False)
    assert isinstance(res.info, ResultInfo) and res.info.decoded == RENDERED


def test_a_prompt_redrawn_otherwise_is_cut_from_the_echo(tmp_path: Path) -> None:
    s = read_events(tmp_path, [[0.1, "o", P], [1.0, "o", "\r\x1b[K(venv) dev@box:~$ make\r\n"],
                               [1.5, "o", "done\r\n" + P]])
    assert [(e.kind, e.args or e.text) for e in s.events] == [("tool_call", "make"), ("tool_result", "done")]
    # the shell's prompt re-drawn with nothing typed: an empty line
    s = read_events(tmp_path, [[0.1, "o", P], [1.0, "o", "\r\x1b[K" + P.rstrip() + "\r\n"], [1.5, "o", P]])
    assert (s.events, s.quality.extra["empty_commands"]) == ([], 1)
    # a line whose start is no prompt at all is the command as shown
    s = read_events(tmp_path, [[0.1, "o", P], [1.0, "o", "\r\x1b[Kwhoami\r\n"], [1.5, "o", "me\r\n" + P]])
    assert [(e.kind, e.args or e.text) for e in s.events] == [("tool_call", "whoami"), ("tool_result", "me")]


def test_a_continuation_line_that_differs_from_the_typed_one_is_output(tmp_path: Path) -> None:
    s = read_events(tmp_path, [[0.1, "o", P], [1.0, "i", "cat <<E\nx\nE\r"],
                               [1.0, "o", "cat <<E\r\n> y\r\nx\r\n"], [1.5, "o", P]])
    call, res = s.events
    assert (call.args, res.text) == ("cat <<E\nx\nE", "> y\nx")


def test_a_bare_sign_a_program_prints_is_not_the_next_prompt(tmp_path: Path) -> None:
    s = read_events(tmp_path, [[0.1, "o", P], [1.0, "o", "./demo\r\n"], [1.1, "o", "$ "], [1.2, "o", "ls\r\n"],
                               [1.5, "o", P]])
    assert [(e.kind, e.args or e.text) for e in s.events] == [("tool_call", "./demo"), ("tool_result", "$ ls")]
    # with the bare sign as the shell's own prompt, it is the next prompt
    s = read_events(tmp_path, [[0.1, "o", "$ "], [1.0, "o", "./demo\r\n"], [1.1, "o", "$ "], [1.2, "o", "ls\r\n"],
                               [1.5, "o", "$ "]])
    assert [e.args for e in s.events if e.kind == "tool_call"] == ["./demo", "ls"]
    assert s.quality.extra["exit_codes_unrecorded"] == 2


def test_a_line_longer_than_any_prompt_is_not_one(tmp_path: Path) -> None:
    long = "~/" + "d" * 396 + "$ "  # 400 characters: still a prompt
    s = read_events(tmp_path, [[0.1, "o", long], [1.0, "o", "ls\r\n"], [1.5, "o", long]])
    assert [e.args for e in s.events if e.kind == "tool_call"] == ["ls"]
    longer = "~/" + "d" * 397 + "$ "
    s = read_events(tmp_path, [[0.1, "o", longer], [1.0, "o", "ls\r\n"], [1.5, "o", longer]])
    assert s.events == [] and [w.code for w in s.warnings] == ["no-prompt"]


def test_the_session_names_the_file_and_a_file_that_is_no_recording_is_refused(tmp_path: Path) -> None:
    p = write(tmp_path)
    (s,) = SRC.read(p, ReadContext(root=tmp_path))
    (f,) = s.files
    assert (f.path, f.abs_path, f.kind, f.bytes) == ("rec.cast", str(p.resolve()), "asciinema", len(p.read_bytes()))
    assert s.session_id.startswith("asciinema") and s.session_id != SRC.read(
        write(tmp_path, events=EVENTS[:3]), ReadContext(root=tmp_path))[0].session_id
    bad = tmp_path / "bad.cast"
    bad.write_text('[0.1, "o", "x"]\n')
    with pytest.raises(InputError, match="not an asciicast v2/v3 recording: the first line is not its header"):
        SRC.read(bad, ReadContext(root=tmp_path))
    assert SRC.sniff(p, b"\xef\xbb\xbf\n " + p.read_bytes()) is True
    assert SRC.sniff(p, p.read_bytes().split(b"\n", 1)[0] + b"\nnot json") is True
    assert SRC.sniff(p, b'x{"version": 2, "width": 80}') is False
