"""Shell histories, field by field, on hand-written files: the eternal history and fish records
(every field, continuations, duplicates, what cannot be read), empty commands set aside with
their bytes, which heads are taken for a history under another name, and what a folder holds.

Every expectation is worked out from the bytes written here.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from forsy.evidence import Event, Mark, Session
from forsy.payloads import ShellInfo
from forsy.sources import ReadContext
from forsy.sources.shell import ShellHistorySource
from forsy.sources.shell._formats import parse_eternal

SRC = ShellHistorySource()


def read(path: Path) -> Session:
    (s,) = SRC.read(path, ReadContext(root=path.parent))
    return s


def si(e: Event) -> ShellInfo:
    assert isinstance(e.info, ShellInfo)
    return e.info


def warns(s: Session) -> list[tuple[str, str, str | None, int | None]]:
    return [(w.code, w.message, w.file, w.line) for w in s.warnings]


def span(s: Session, ev_id: str) -> tuple[int | None, int, int, str | None]:
    ev = s.evidence[ev_id]
    return ev.line, ev.byte_offset, ev.byte_length, ev.record_type


# --- the eternal history ---------------------------------------------------------------------

E1 = b"4242 me  7 1700000000 echo one"
ETERNAL = (
    E1 + b"\n"  # line 1
    b"\n"  # 2: blank, inside the command (a line of it follows)
    b"continued\n"  # 3
    b"\n"  # 4: blank after a continuation, before the next entry: not part of the command
    b"4242 me  8 1700000010 ls\n"  # 5
    b"4242 me  8 1700000010 ls\n"  # 6: logged again on an empty prompt
    b"4242 me  9 1700000010 pwd\n"  # 7: the same time, another command: no duplicate
    b"4242 jos\xe9  10 1700000020 caf\xe9\n"  # 8: invalid UTF-8 in the user and the command
)


def test_every_field_of_an_eternal_history(tmp_path: Path) -> None:
    p = tmp_path / ".bash_eternal_history"
    p.write_bytes(ETERNAL)
    s = read(p)
    assert s.meta.extra["format"] == "eternal"
    assert [e.text for e in s.events] == ["echo one\n\ncontinued", "ls", "ls", "pwd", "caf\ufffd"]
    assert [(si(e).session, si(e).user, si(e).histnum, si(e).shell) for e in s.events] == [
        ("4242", "me", 7, "bash"), ("4242", "me", 8, "bash"), ("4242", "me", 8, "bash"),
        ("4242", "me", 9, "bash"), ("4242", "jos\ufffd", 10, "bash")]
    assert [si(e).duplicate_of_line for e in s.events] == [None, None, 5, None, None]
    assert s.quality.duplicate_records == 1 and s.quality.records == 5
    first = s.events[0]
    # the command's own bytes, from after the time to the end of its last line; the record: all of it
    cmd_at = len(b"4242 me  7 1700000000 ")
    whole = len(E1 + b"\n\ncontinued")
    assert span(s, first.refs[0].ev) == (1, cmd_at, whole - cmd_at, "bash_eternal")
    assert span(s, si(first).record_ref.ev if si(first).record_ref else "") == (1, 0, whole, "bash_eternal_record")
    assert s.ledger[si(first).record_ref.ev if si(first).record_ref else ""] == Mark(
        "metadata", "the entry's time, duration and paths")
    one_line = span(s, si(s.events[1]).record_ref.ev if si(s.events[1]).record_ref else "")
    assert one_line == (5, ETERNAL.index(b"4242 me  8"), len(b"4242 me  8 1700000010 ls"), "bash_eternal_record")
    assert warns(s) == [("invalid_utf8", "invalid UTF-8 at byte 3 of the record", ".bash_eternal_history", 8)]
    assert si(s.events[4]).decoded == "invalid UTF-8 replaced by U+FFFD"


def test_an_eternal_parse_says_which_lines_it_could_not_read() -> None:
    # read() never starts here (an eternal history is known by its first line), the parser still says so
    got = parse_eternal(b"not an entry\n" + E1 + b"\n")
    assert [(p.code, p.message, p.line) for p in got.problems] == [
        ("unparsable_line", "not an eternal-history line", 1)]
    assert [e.command for e in got.entries] == ["echo one"] and got.shell == "bash"


# --- fish ------------------------------------------------------------------------------------

LONG = b"a_field_fish_does_not_know_of_that_is_long: x"
FISH = (
    b"  when: 1699999999\n"  # 1: a field before any command
    b"- cmd: echo a\\\\b\\nc\n"  # 2: `\\` a backslash, `\n` a newline
    b" when: 1700000000\n"  # 3: one space is an indent too
    b"  paths:\n"  # 4
    b"    - dir\\\\x\n"  # 5
    b"    - two\n"  # 6
    b"\n"  # 7: a blank line between records
    b"- cmd: lone\\\n"  # 8: a backslash at the very end stays
    b"  paths:\n"  # 9: an empty list
    b"- cmd: tail\\n\n"  # 10: an escaped newline at the very end
    b"    - stray\n"  # 11: an item with no paths: before it in this record
    b"  " + LONG + b"\n"  # 12
    b"- cmd:\n"  # 13: an empty command
    b"  when: 1700000010\n"  # 14
    b"not indented\n"  # 15: ends the record
    b"  when: 1700000020\n"  # 16: belongs to no record
    b"- cmd: caf\xe9\n"  # 17
)


def test_every_field_of_a_fish_history(tmp_path: Path) -> None:
    p = tmp_path / "fish_history"
    p.write_bytes(FISH)
    s = read(p)
    assert [e.text for e in s.events] == ["echo a\\b\nc", "lone\\", "tail\n", "caf\ufffd"]
    assert [e.ts for e in s.events] == ["2023-11-14T22:13:20Z", None, None, None]
    assert [si(e).paths for e in s.events] == [["dir\\x", "two"], [], None, None]
    assert [si(e).shell for e in s.events] == ["fish"] * 4
    lines = FISH.split(b"\n")
    at = [sum(len(x) + 1 for x in lines[: n - 1]) for n in range(1, len(lines) + 1)]  # offset of line n
    first, lone = s.events[0], s.events[1]
    assert span(s, first.refs[0].ev) == (2, at[1] + len(b"- cmd: "), len(b"echo a\\\\b\\nc"), "fish")
    assert span(s, si(first).record_ref.ev if si(first).record_ref else "") == (
        2, at[1], at[5] + len(b"    - two") - at[1], "fish_record")
    assert span(s, lone.refs[0].ev) == (8, at[7] + len(b"- cmd: "), len(b"lone\\"), "fish")
    # the empty command ran nothing: counted, and its bytes set aside by a named rule
    assert s.quality.extra["empty_commands"] == 1
    (empty,) = [k for k, m in s.ledger.items() if m == Mark("set_aside", "empty commands ran nothing")]
    assert span(s, empty) == (13, at[12], len(b"- cmd:\n  when: 1700000010"), "fish_record")
    assert s.evidence[empty].sha256 == hashlib.sha256(b"- cmd:\n  when: 1700000010").hexdigest()
    assert warns(s) == [
        ("unparsable_line", "not part of a fish history record", "fish_history", 1),
        ("unknown_fish_field", "unknown field b'- stray'", "fish_history", 11),
        ("unknown_fish_field", f"unknown field {LONG[:40]!r}", "fish_history", 12),
        ("unparsable_line", "not part of a fish history record", "fish_history", 15),
        ("unparsable_line", "not part of a fish history record", "fish_history", 16),
        ("invalid_utf8", "invalid UTF-8 at byte 3 of the record", "fish_history", 17),
    ]
    assert s.quality.unparsable_records == 3


def test_empty_zsh_commands_are_set_aside_with_their_bytes(tmp_path: Path) -> None:
    p = tmp_path / ".zsh_history"
    data = b": 1700000000:0;\n: 1700000001:0;ls\n: 1700000002:0;\n"
    p.write_bytes(data)
    s = read(p)
    assert [e.text for e in s.events] == ["ls"] and s.quality.extra["empty_commands"] == 2
    aside = sorted(span(s, k) for k, m in s.ledger.items() if m == Mark("set_aside", "empty commands ran nothing"))
    assert aside == [(1, 0, 15, "zsh_extended_record"), (3, 34, 15, "zsh_extended_record")]
    assert all(s.evidence[k].source == ".zsh_history" for k in s.ledger)


def test_an_orphan_timestamp_is_named_with_its_line(tmp_path: Path) -> None:
    p = tmp_path / ".bash_history"
    p.write_bytes(b"ls\n#1700000000\n")
    assert warns(read(p)) == [("orphan_timestamp", "timestamp line with no command after it", ".bash_history", 2)]


# --- which files are histories ---------------------------------------------------------------


def test_a_history_under_another_name_is_known_by_its_head_only() -> None:
    other = Path("notes")
    yes = [
        b": 1700000000:0;ls\n",
        b"- cmd: ls\n  when: 1700000000\n",
        b"#1700000000\nls\n#1700000001\npwd\necho stray\n",  # the pairs of the first four lines
        E1 + b"\n" + E1 + b"\n" + E1 + b"\n",  # exactly three eternal lines
        E1 + b"\n" + E1 + b"\n" + E1 + b"\nnot one\n",  # the first three
    ]
    no = [
        b"", b"\n\n", b"hello\n",
        b": 1:0;ls\n",  # zsh's shape, but no epoch of a date
        b"- cmd: x\n", b"- cmd: x\n- cmd: y\n",  # a YAML list, not fish
        E1 + b"\n" + E1 + b"\n",
    ]
    assert [SRC.sniff(other, h) for h in yes] == [True] * len(yes)
    assert [SRC.sniff(other, h) for h in no] == [False] * len(no)
    # JSON, an array, or binary: never a history, whatever the name
    bash = Path(".bash_history")
    assert [SRC.sniff(bash, h) for h in (b'  \n{"a": 1}', b"[1, 2]\n", b"ls\x00\n", b"ls\n")] == [
        False, False, False, True]


def test_a_folder_s_histories_by_name_and_by_content(tmp_path: Path) -> None:
    zsh = b": 1700000000:0;ls\n"
    (tmp_path / "history.db").write_bytes(b"SQLite format 3\x00")
    (tmp_path / "a_notes").write_bytes(zsh)  # no "hist" in the name: not looked at
    (tmp_path / "ahist_dir").mkdir()
    (tmp_path / "myhist.TXT").write_bytes(zsh)  # a document by its suffix, in any case
    elsewhere = tmp_path / "sub"
    elsewhere.mkdir()
    (elsewhere / "target").write_bytes(zsh)
    (tmp_path / "hist_link").symlink_to(elsewhere / "target")  # a link is not followed
    (tmp_path / "zhist_work").write_bytes(zsh)
    assert SRC.discover(tmp_path) == [tmp_path / "history.db", tmp_path / "zhist_work"]
