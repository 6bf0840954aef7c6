"""Aider's source (`aider/source.py`): which files it finds, how a chat history is cut into
sessions (id, warnings, blank lines, the session a cut message belongs to), an input history
read alone, and a chat with no write at all. Hand-written files; expectations by hand.
"""

from __future__ import annotations

from pathlib import Path

from forsy.evidence import Mark
from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.aider import AiderSource

B = "  "
SRC = AiderSource()
CHAT = ".aider.chat.history.md"
INPUT = ".aider.input.history"
HEAD = "# aider chat started at 2026-03-01 09:00:00\n"


def test_an_input_history_read_alone(tmp_path: Path) -> None:
    p = tmp_path / INPUT
    p.write_text("\n# 2026-03-01 09:00:00.5\n+fix it\n+now\n\n# 2026-03-01 09:01:00\n+y\nstray\n")
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    assert s.session_id == "input-history" and [(f.path, f.kind, f.bytes) for f in s.files] == [(INPUT, "aider", 70)]
    assert [(e.kind, e.actor, e.ts, e.text) for e in s.events] == [
        ("user", "user", "2026-03-01 09:00:00.5", "fix it\nnow"), ("note", "user", "2026-03-01 09:01:00", "y")]
    user, note = s.events
    assert isinstance(note.info, NoteInfo) and note.info.subtype == "confirmation_answer"
    ev = {e.line: e for e in s.evidence.values()}
    # each record: the time without `# `, each line without `+`, the stray line whole
    assert {n: (e.record_type, e.byte_offset, e.byte_length) for n, e in ev.items()} == {
        2: ("input_time", 3, 21), 3: ("input_line", 26, 6), 4: ("input_line", 34, 3),
        6: ("input_time", 41, 19), 7: ("input_line", 62, 1), 8: ("unknown_line", 64, 5)}
    assert [r.ev for r in user.refs] == [ev[3].id, ev[4].id] and user.ts_ref is not None
    assert user.ts_ref.ev == ev[2].id and [r.ev for r in note.refs] == [ev[7].id]
    assert s.ledger == {
        ev[2].id: Mark("metadata", "time of a typed entry"), ev[6].id: Mark("metadata", "time of a typed entry"),
        ev[7].id: Mark("set_aside", "a typed answer to aider's confirmation (feedback)", "confirmation_answer")}
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("unknown-line", INPUT, 8)]
    assert (s.quality.records, s.quality.unknown_records, s.quality.extra) == (6, 1, {"blank_lines": 2})


def test_sessions_their_ids_warnings_and_blank_lines(tmp_path: Path) -> None:
    p = tmp_path / "c" / CHAT
    p.parent.mkdir()
    p.write_text(f"stray first line\n\n{HEAD}\n#### go{B}\n> Running make\nout\n\n"
                 f"# aider chat started at 2026-03-01 10:00:00\n\n#### again{B}\n\nok\n")
    first, second, third = SRC.read(p, ReadContext(root=tmp_path))
    assert [s.session_id for s in (first, second, third)] == ["L1", "20260301-090000-L3", "20260301-100000-L9"]
    assert [(w.code, w.file, w.line) for w in first.warnings] == [("no-session-header", "c/" + CHAT, 1)]
    assert first.warnings[0].message == ("lines before the first `# aider chat started at` header (the file was "
                                         "cut at its start?): read as a session of their own")
    # the message cut by the next header is the second session's (not the last one's)
    assert [(w.code, w.file, w.line) for w in second.warnings] == [("unterminated-message", "c/" + CHAT, 6)]
    assert second.warnings[0].message == ("an aider message of several lines has no closing line break before the "
                                          "next session or the end (the file was cut?)") and third.warnings == []
    assert [(e.kind, e.text) for e in first.events] == [("agent_text", "stray first line")]
    assert [(e.kind, e.text) for e in second.events] == [("user", "go"), ("note", "Running make\nout")]
    assert [(e.kind, e.text) for e in third.events] == [("user", "again"), ("agent_text", "ok")]
    # lines 2 | 4, 8 | 10, 12
    assert [s.quality.extra["blank_lines"] for s in (first, second, third)] == [1, 2, 2]
    assert [s.quality.extra["untimed_events"] for s in (first, second, third)] == [1, 2, 2]


def test_a_cut_start_is_session_l1_whatever_blank_lines_come_first(tmp_path: Path) -> None:
    p = tmp_path / CHAT
    p.write_text(f"\n\nstray\n\n{HEAD}\n#### go{B}\n")
    first, second = SRC.read(p, ReadContext(root=tmp_path))
    assert (first.session_id, second.session_id) == ("L1", "20260301-090000-L5")
    assert [(w.code, w.line) for w in first.warnings] == [("no-session-header", 3)]
    # a file cut right before an aider message: the message is the no-header session's note
    p.write_text(f"> Tokens: 1k sent{B}\n")
    [s] = SRC.read(p, ReadContext(root=tmp_path))
    assert [(e.kind, e.text) for e in s.events] == [("note", "Tokens: 1k sent")] and s.session_id == "L1"
    # an input history cut at its start: typed lines before any time are an entry without one
    q = tmp_path / INPUT
    q.write_text("+cut\n\n# 2026-03-01 09:00:00\n+fix it\n")
    [s] = SRC.read(q, ReadContext(root=tmp_path))
    assert [(e.ts, e.text) for e in s.events] == [(None, "cut"), ("2026-03-01 09:00:00", "fix it")]
    assert s.quality.records == 3 and s.events[0].ts_ref is None


def test_a_chat_history_with_no_write(tmp_path: Path) -> None:
    for data, blank in ((b"", 0), (b"\n\n\n", 3), (b"\n \n\t", 3)):
        p = tmp_path / CHAT
        p.write_bytes(data)
        [s] = SRC.read(p, ReadContext(root=tmp_path))
        assert s.session_id == "L1" and s.events == [] and s.quality.records == 0
        assert [(w.code, w.file, w.line) for w in s.warnings] == [("no-sessions", CHAT, None)]
        assert s.warnings[0].message == "no `# aider chat started at` header and no writes: an empty chat history"
        assert [(f.path, f.bytes) for f in s.files] == [(CHAT, len(data))]
        assert s.quality.extra["blank_lines"] == blank, data


def test_what_discover_finds(tmp_path: Path) -> None:
    chat = f"\n{HEAD}\n#### hi{B}\n"
    for rel in ("p/" + CHAT, "p/" + INPUT, "q/sub/" + CHAT, "r/" + INPUT, ".hidden/" + CHAT,
                "p/.venv/" + CHAT, "node_modules/x/" + CHAT, "s/venv/" + CHAT, "t/" + CHAT):
        f = tmp_path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(chat if rel.endswith(CHAT) else "\n# 2026-03-01 09:00:00\n+hi\n")
    (tmp_path / "t" / CHAT).write_text("no header here\n")
    got = SRC.discover(tmp_path)
    # hidden and dependency folders skipped; an input history beside a chat is read with it
    assert [str(x.relative_to(tmp_path)) for x in got] == ["p/" + CHAT, "q/sub/" + CHAT, "r/" + INPUT]
    assert SRC.discover(tmp_path / "p" / CHAT) == [tmp_path / "p" / CHAT]  # a file named alone
    assert SRC.discover(tmp_path / "t" / CHAT) == []
    assert SRC.discover(tmp_path / "nothing") == []


def test_an_input_history_beside_the_chat_is_merged(tmp_path: Path) -> None:
    p = tmp_path / "proj"
    p.mkdir()
    (p / CHAT).write_text(f"\n{HEAD}\n#### fix it{B}\n\nok\n")
    inp = p / INPUT
    inp.write_text("\n# 2026-03-01 08:00:00\n+early\n\n# 2026-03-01 09:00:05\n+fix it\nstray\n")  # 67 bytes
    before, chat = SRC.read(p / CHAT, ReadContext(root=tmp_path))
    name = "proj/" + INPUT
    listed = [(f.path, f.abs_path, f.kind, f.bytes) for f in before.files]
    assert listed == [(name, str(inp.resolve()), "aider", 67)]
    assert [f.path for f in chat.files] == ["proj/" + CHAT, name]
    # typed before the chat began: a session of its own, which also takes the file's warnings
    assert before.session_id == "input-before-L2"
    assert [(e.kind, e.ts, e.text) for e in before.events] == [("user", "2026-03-01 08:00:00", "early")]
    assert [(w.code, w.file, w.line) for w in before.warnings] == [
        ("typed-before-chat", name, 2), ("unknown-line", name, 7)]
    assert before.warnings[0].message == ("typed entries older than every session of the chat history beside it: "
                                          "read as a session of typed lines only")
    assert before.quality.unknown_records == 1 and before.quality.extra["input_blank_lines"] == 2
    assert [(e.kind, e.ts, e.text) for e in chat.events] == [("user", "2026-03-01 09:00:05", "fix it"),
                                                            ("agent_text", None, "ok")]
    assert chat.warnings == [] and chat.quality.extra["typed_matched"] == 1
    # an input history of nothing readable: its line is warned in the first session, which lists the file
    inp.write_text("stray only\n")
    [s] = SRC.read(p / CHAT, ReadContext(root=tmp_path))
    assert [f.path for f in s.files] == ["proj/" + CHAT, name]
    assert [(w.code, w.file, w.line) for w in s.warnings] == [("unknown-line", name, 1)]
    assert s.quality.unknown_records == 1
