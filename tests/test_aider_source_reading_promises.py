"""Aider's source (`aider/source.py`): which heads it takes for its own (a BOM, blank lines,
an input history's first entry), the session and file records a read makes, and the file size
limit for the chat and for the input history beside it (a history too big is warned, not read).
Hand-written files; expectations by hand.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from forsy.errors import InputError
from forsy.evidence import Mark
from forsy.sources import ReadContext
from forsy.sources.aider import AiderSource
from forsy.sources.lines import Limits

B = "  "
SRC = AiderSource()
CHAT = ".aider.chat.history.md"
INPUT = ".aider.input.history"
HEAD = "# aider chat started at 2026-03-01 09:00:00\n"


def test_the_heads_aider_wrote() -> None:
    chat, inp = Path("p") / CHAT, Path("p") / INPUT
    # a chat: the header at a line's start anywhere in the head, after a BOM too
    assert SRC.sniff(chat, HEAD.encode())
    assert SRC.sniff(chat, b"\xef\xbb\xbf" + HEAD.encode())
    assert SRC.sniff(chat, b"stray\n\n" + HEAD.encode())
    assert not SRC.sniff(chat, b"> " + HEAD.encode())
    assert not SRC.sniff(chat, b"# aider chat started at soon\n")
    assert not SRC.sniff(chat, b"")
    # an input history: its first line that is not blank is an entry's time or a typed line
    assert SRC.sniff(inp, b"\n# 2026-03-01 09:00:00.5\n+hi\n")
    assert SRC.sniff(inp, b"\xef\xbb\xbf\n \n# 2026-03-01 09:00:00\n")
    assert SRC.sniff(inp, b"\n+typed before any time\n")
    assert not SRC.sniff(inp, b"\xff junk\n+hi\n")  # a byte that is no UTF-8: replaced, not an error
    assert not SRC.sniff(inp, b"\n# not a time\n+hi\n")
    assert not SRC.sniff(inp, b"\xef\xbb\xbf")
    assert not SRC.sniff(inp, b"")
    assert not SRC.sniff(inp, b"\n\n \n")
    # each file is judged by its own name: a chat's header does not make an input history
    assert not SRC.sniff(inp, HEAD.encode()) and not SRC.sniff(chat, b"# 2026-03-01 09:00:00\n+hi\n")


def test_a_sessions_records_of_its_file(tmp_path: Path) -> None:
    p = tmp_path / "proj" / CHAT
    p.parent.mkdir()
    data = f"\n{HEAD}\n#### hi{B}\n".encode()
    p.write_bytes(data)
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    assert (s.source_kind, s.session_id, s.meta.agent) == ("aider", "20260301-090000-L2", "aider")
    assert [(f.path, f.abs_path, f.kind, f.bytes, f.sha256) for f in s.files] == [
        ("proj/" + CHAT, str(p.resolve()), "aider", len(data), hashlib.sha256(data).hexdigest())]
    [inp] = SRC.read(_input(p.parent, "\n# 2026-03-01 09:00:00\n+hi\n"), ReadContext(root=tmp_path))
    assert (inp.source_kind, inp.session_id, inp.meta.agent) == ("aider", "input-history", "aider")


def _input(folder: Path, text: str) -> Path:
    p = folder / INPUT
    p.write_text(text)
    return p


def test_the_size_limit_for_the_chat_and_for_its_input_history(tmp_path: Path) -> None:
    chat = f"\n{HEAD}\n#### hi{B}\n"  # 56 bytes
    p = tmp_path / CHAT
    p.write_text(chat)
    inp = _input(tmp_path, "\n# 2026-03-01 09:00:05\n+hi\n" + "+more\n" * 10)  # 87 bytes
    ctx = ReadContext(root=tmp_path, limits=Limits(max_file_bytes=60))
    [s] = SRC.read(p, ctx)
    # the input history is too big: warned (with its name, never a path of this machine, and the
    # reader's words) in the first session
    assert [(w.code, w.message, w.file, w.line) for w in s.warnings] == [
        ("input-history-unreadable", f"{inp.name} could not be read (is 87 bytes, more than the 60-byte limit for a "
         "file read whole (raise it with FORSY_MAX_FILE_BYTES)): the times of what was typed, and what the chat "
         "lacks of it, are not here", ".aider.input.history", None)]
    assert [f.path for f in s.files] == [CHAT] and [(e.kind, e.ts, e.text) for e in s.events] == [
        ("user", None, "hi")]
    # the chat itself too big, or the input history read alone: the reader's error
    with pytest.raises(InputError, match="is 56 bytes, more than the 55-byte limit"):
        SRC.read(p, ReadContext(root=tmp_path, limits=Limits(max_file_bytes=55)))
    with pytest.raises(InputError, match="is 87 bytes, more than the 60-byte limit"):
        SRC.read(inp, ctx)


def test_an_input_history_s_unknown_lines_go_to_the_session_that_lists_it(tmp_path: Path) -> None:
    """Typed entries go to the session they were typed in (the second here); the lines that are
    no entry go with them, to the first session that lists the input history; an input history
    with no blank line adds no count of its blank lines."""
    p = tmp_path / CHAT
    p.write_text(f"\n{HEAD}\n#### first{B}\n\n# aider chat started at 2026-03-01 10:00:00\n\n#### second{B}\n")
    _input(tmp_path, "# 2026-03-01 10:00:05\n+second\nstray\n")
    first, second = SRC.read(p, ReadContext(root=tmp_path))
    assert [f.path for f in first.files] == [CHAT] and [f.path for f in second.files] == [CHAT, INPUT]
    assert first.warnings == [] and first.quality.unknown_records == 0
    assert [(e.kind, e.ts, e.text) for e in second.events] == [("user", "2026-03-01 10:00:05", "second")]
    assert [(w.code, w.file, w.line) for w in second.warnings] == [("unknown-line", INPUT, 3)]
    stray = [(ev.source, ev.line, ev.byte_offset, ev.byte_length) for ev in second.evidence.values()
             if ev.record_type == "unknown_line"]
    assert stray == [(INPUT, 3, 30, 5)] and second.quality.unknown_records == 1
    assert not any(ev.source == INPUT for ev in first.evidence.values())
    assert "input_blank_lines" not in first.quality.extra and "input_blank_lines" not in second.quality.extra


def test_the_run_entries_aider_writes_for_commands_it_ran_are_not_typed(tmp_path: Path) -> None:
    """base_coder.handle_shell_commands adds `/run <command>` to the input history for each
    command of a reply's suggestion it runs: aider's entry, set aside, not a prompt the user
    typed. A `/run` the user did type (in the chat too) stays theirs."""
    yes = "Run shell commands? (Y)es/(N)o/(D)on't ask again [Yes]: y"
    p = tmp_path / CHAT
    p.write_text(f"\n{HEAD}\n#### list files{B}\n\nRun:\n\n```bash\nls\n# a comment\npwd\n```\n\n"
                 f"> ls\n# a comment\npwd{B}\n> {yes}{B}\n> Running ls{B}\n> Running pwd{B}\n\n"
                 f"#### /run ls{B}\n> a.txt{B}\n")
    _input(tmp_path, "\n# 2026-03-01 09:00:05.1\n+list files\n\n# 2026-03-01 09:00:09.2\n+y\n\n"
                     "# 2026-03-01 09:00:09.3\n+/run ls\n\n# 2026-03-01 09:00:09.4\n+/run pwd\n\n"
                     "# 2026-03-01 09:00:20\n+/run ls\n")                                         # lines 1-15
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    got = [(e.kind, e.actor, e.tool, e.text if e.kind != "tool_call" else e.args, e.ts) for e in s.events]
    assert got == [
        ("user", "user", None, "list files", "2026-03-01 09:00:05.1"),
        ("agent_text", "agent", None, "Run:\n\n```bash\nls\n# a comment\npwd\n```", None),
        ("tool_call", "agent", "shell", "ls\n# a comment\npwd", None),
        ("note", "system", None, yes, None),
        ("tool_result", "agent", "shell", "Running ls\nRunning pwd", None),
        ("user", "user", None, "/run ls", "2026-03-01 09:00:20"),
        ("tool_call", "agent", "/run", "ls", None),
        ("tool_result", "agent", "/run", "a.txt", None),
        ("note", "user", None, "y", "2026-03-01 09:00:09.2")]
    marks = {(ev.source, ev.line): s.ledger.get(ev.id) for ev in s.evidence.values() if ev.source == INPUT}
    ran = Mark("set_aside", "a command of the reply aider ran: aider writes it to the input history")
    assert {n: marks[(INPUT, n)] for n in (9, 12)} == {9: ran, 12: ran}
    assert {n: marks[(INPUT, n)] for n in (8, 11)} == {n: Mark("metadata", "time of a typed entry") for n in (8, 11)}
    assert (s.quality.extra["aider_run_entries"], s.quality.extra["typed_matched"]) == (2, 2)
    assert "typed_added" not in s.quality.extra
    # a suggestion refused: aider wrote no entry, so the typed `/run ls` is the user's
    p.write_text(f"\n{HEAD}\n#### list files{B}\n\nRun:\n\n```bash\nls\n```\n\n"
                 f"> ls{B}\n> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: n{B}\n\n#### /run ls{B}\n")
    _input(tmp_path, "\n# 2026-03-01 09:00:05.1\n+list files\n\n# 2026-03-01 09:00:20\n+/run ls\n")
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    assert [(e.kind, e.text, e.ts) for e in s.events if e.kind == "user"] == [
        ("user", "list files", "2026-03-01 09:00:05.1"), ("user", "/run ls", "2026-03-01 09:00:20")]
    assert "aider_run_entries" not in s.quality.extra and s.quality.extra["typed_matched"] == 2
    # typed first, then run by aider for a reply: the first entry is the user's, the second aider's
    p.write_text(f"\n{HEAD}\n#### /run ls -a{B}\n> a.txt{B}\n\n#### list again{B}\n\nRun:\n\n```bash\nls -a\n```\n\n"
                 f"> ls -a{B}\n> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y{B}\n> Running ls -a{B}\n")
    _input(tmp_path, "\n# 2026-03-01 09:00:05\n+/run ls -a\n\n# 2026-03-01 09:00:20\n+list again\n\n"
                     "# 2026-03-01 09:00:30\n+/run ls -a\n")
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    assert [(e.kind, e.text, e.ts) for e in s.events if e.kind == "user"] == [
        ("user", "/run ls -a", "2026-03-01 09:00:05"), ("user", "list again", "2026-03-01 09:00:20")]
    assert (s.quality.extra["aider_run_entries"], s.quality.extra["typed_matched"]) == (1, 2)
    assert [s.ledger[ev.id] for ev in s.evidence.values() if ev.source == INPUT and ev.line == 9] == [ran]
