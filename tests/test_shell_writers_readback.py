"""What the shells' newest writers put in a history, read back the way the shells read it:

* bash (histfile.c read_history_range, since 4.4): a file that starts with a `#<epoch>` stamp
  was written with HISTTIMEFORMAT; a line no stamp precedes belongs to the command before it
  (a multi-line command under lithist), blank lines too (5.3), joined with newlines.
* zsh (hist.c, 5.9): savehistfile writes one space after a command ending in backslashes and
  readhistline drops it; without EXTENDED_HISTORY a command starting with `:` is written after
  a backslash, which readhistfile drops.
* atuin (history.rs AuthorKind, History::is_agent): author_kind 1 is a person, 2 an agent; with
  no kind (or one atuin does not know) a known agent's name is an agent's, unless it is only the
  user name the author fell back to (the user half of `hostname`).

Histories are synthetic, in the writers' exact shapes; expectations worked out by hand.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from forsy.evidence import Session
from forsy.sources import ReadContext
from forsy.sources.shell import ShellHistorySource
from forsy.sources.shell._formats import parse_bash, parse_zsh

SRC = ShellHistorySource()


def read(path: Path) -> Session:
    (s,) = SRC.read(path, ReadContext(root=path.parent))
    return s


def test_bash_stamped_file_keeps_a_multi_line_command_whole(tmp_path: Path) -> None:
    data = b"#1700000000\n\nfor i in 1 2\ndo echo $i\n\ndone\n#1700000060\nls\n"
    (loop, ls) = parse_bash(data).entries
    # the blank line right after the stamp is skipped; the one inside the command is its own
    assert loop.command == "for i in 1 2\ndo echo $i\n\ndone" and loop.epoch == 1_700_000_000
    assert loop.command_span() == (3, 13, 42) and data[13:42] == loop.command.encode()
    assert (ls.command, ls.epoch, ls.line) == ("ls", 1_700_000_060, 7)
    hist = tmp_path / ".bash_history"
    hist.write_bytes(data)
    s = read(hist)
    assert [e.text for e in s.events] == [loop.command, "ls"]
    assert s.events[0].ts == "2023-11-14T22:13:20Z" and s.warnings == []
    ev = s.evidence[s.events[0].refs[0].ev]
    assert (ev.line, ev.byte_offset, ev.byte_length) == (3, 13, 29)


def test_bash_file_not_starting_with_a_stamp_has_one_command_a_line() -> None:
    # bash turns multi-line entries on only for a file whose first line is a stamp
    data = b"make\n#1700000000\nfor i in 1 2\ndo echo $i\n"
    assert [(e.command, e.epoch) for e in parse_bash(data).entries] == [
        ("make", None), ("for i in 1 2", 1_700_000_000), ("do echo $i", None)]


def test_zsh_drops_the_space_it_wrote_after_a_final_backslash(tmp_path: Path) -> None:
    data = b": 1700000000:0;echo \\\\ \n: 1700000005:2;printf a\\\\\nb\\  \n"
    one, two = parse_zsh(data, "zsh_extended").entries
    assert one.command == "echo \\\\" and one.command_span() == (1, 15, 22)
    assert two.command == "printf a\\\nb\\ "  # of two spaces after the backslash, one was zsh's
    hist = tmp_path / ".zsh_history"
    hist.write_bytes(data)
    s = read(hist)
    assert [e.text for e in s.events] == [one.command, two.command]
    ev = s.evidence[s.events[0].refs[0].ev]
    assert ev.byte_length == 7 and s.events[0].info.decoded is None  # type: ignore[union-attr]


def test_zsh_plain_drops_the_backslash_before_a_colon(tmp_path: Path) -> None:
    data = b"\\: noop\nls\n"
    hist = tmp_path / ".zsh_history"
    hist.write_bytes(data)
    s = read(hist)
    assert [e.text for e in s.events] == [": noop", "ls"]
    ev = s.evidence[s.events[0].refs[0].ev]
    assert (ev.byte_offset, ev.byte_length) == (1, 6)
    rec = s.evidence[s.events[0].info.record_ref.ev]  # type: ignore[union-attr]
    assert (rec.byte_offset, rec.byte_length) == (0, 7)


def test_atuin_author_kind_and_the_defaulted_author(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    con = sqlite3.connect(db)
    con.execute("create table history (id text primary key, timestamp integer not null, duration integer not null, "
                "exit integer not null, command text not null, cwd text not null, session text not null, "
                "hostname text not null, deleted_at integer, author text, intent text, shell text, "
                "author_kind integer)")
    t0 = 1_700_000_000_000_000_000
    rows = [
        ("a", t0, "kind 1", "box:me", "claude-code", 1),  # a person, whatever the name says
        ("b", t0 + 1, "kind 2", "box:me", "me", 2),  # an agent, whatever the name says
        ("c", t0 + 2, "user pi", "raspberrypi:pi", "pi", None),  # the author is the user's name
        ("d", t0 + 3, "host pi", "pi", "pi", None),  # a colonless hostname: the author fell back to it
        ("e", t0 + 4, "placeholder", "pi:unknown-user", "pi", None),  # atuin's placeholder user
        ("f", t0 + 5, "codex", "box:me", "codex", None),  # a known agent's name, not the user's
        ("g", t0 + 6, "kind 7", "box:me", "codex", 7),  # a kind atuin does not know: by the name
        ("h", t0 + 7, "no author", "claude-code:claude-code", None, None),
    ]
    con.executemany("insert into history values (?, ?, 0, 0, ?, '/', 's', ?, null, ?, null, null, ?)", rows)
    con.commit()
    con.close()
    s = read(db)
    assert [(e.text, e.actor) for e in s.events] == [
        ("kind 1", "human:shell"), ("kind 2", "agent:shell"), ("user pi", "human:shell"),
        ("host pi", "human:shell"), ("placeholder", "human:shell"), ("codex", "agent:shell"),
        ("kind 7", "agent:shell"), ("no author", "human:shell")]
