"""Aider's `.aider.input.history` merged into the chat beside it, in process: which session
each typed entry joins (by time; an entry with no time joins the last; one older than every
session is a session of its own), a typed prompt the chat holds gives it its time, an answer
to a question is a note, anything else typed is added at its place; lines of no kind are
warned. Hand-written files in prompt_toolkit's FileHistory shape; expectations by hand.
"""

from __future__ import annotations

from pathlib import Path

from forsy.evidence import Mark
from forsy.payloads import NoteInfo
from forsy.sources import ReadContext
from forsy.sources.aider import AiderSource

B = "  "
CHAT = (f"\n# aider chat started at 2026-03-01 09:00:00\n\n#### at start{B}\n\n#### fix it{B}\n\n#### later{B}\n\n"
        f"# aider chat started at 2026-03-01 10:00:00\n\n#### second{B}\n")
INPUT = ("+early\n"  # before any time line: an entry with no time
         "\n# 2026-03-01 08:00:00\n+older\n"  # older than every session
         "\n# 2026-03-01 09:00:00\n+at start\n"  # the very time the session started: its own
         "\n# 2026-03-01 09:00:01\n+y\n"
         "\n# 2026-03-01 09:00:02\n+n\n"
         "\n# 2026-03-01 09:00:10.500000\n+fix it  \n"  # trailing blanks: still the chat's prompt
         "garbage\n"
         "\n# 2026-03-01 09:00:20\n+typed only\n+two lines\n"
         "\n# 2026-03-01 10:00:01\n+second\n")


def test_typed_entries_join_their_sessions_at_their_place(tmp_path: Path) -> None:
    (tmp_path / ".aider.chat.history.md").write_text(CHAT)
    (tmp_path / ".aider.input.history").write_text(INPUT)
    before, s1, s2 = AiderSource().read(tmp_path / ".aider.chat.history.md", ReadContext(root=tmp_path))
    lines = INPUT.split("\n")

    def ln(text: str) -> int:
        return lines.index(text) + 1

    assert before.session_id == f"input-before-L{ln('# 2026-03-01 08:00:00')}"
    assert [(e.kind, e.text, e.ts) for e in before.events] == [("user", "older", "2026-03-01 08:00:00")]
    # the file's reading warnings go with the first session that holds it: here the typed-only one
    assert [(w.code, w.message, w.line) for w in before.warnings] == [
        ("typed-before-chat", "typed entries older than every session of the chat history beside it: read as a "
         "session of typed lines only", ln("# 2026-03-01 08:00:00")),
        ("unknown-line", "a line that is neither a `# time` nor a `+` line; skipped", ln("garbage"))]
    got = [(e.kind, e.actor, e.text, e.ts, e.info.subtype if isinstance(e.info, NoteInfo) else None)
           for e in s1.events]
    assert got == [("user", "user", "at start", "2026-03-01 09:00:00", None),
                   ("user", "user", "fix it", "2026-03-01 09:00:10.500000", None),
                   ("user", "user", "typed only\ntwo lines", "2026-03-01 09:00:20", None),  # added before `later`
                   ("user", "user", "later", None, None),
                   ("note", "user", "y", "2026-03-01 09:00:01", "confirmation_answer"),
                   ("note", "user", "n", "2026-03-01 09:00:02", "confirmation_answer")]
    inp = ".aider.input.history"

    def cited(e: object) -> tuple[list[tuple[str, int]], tuple[str, int] | None]:
        refs = [(s1.evidence[r.ev].source, s1.evidence[r.ev].line) for r in e.refs]  # type: ignore[attr-defined]
        t = e.ts_ref  # type: ignore[attr-defined]
        return refs, (s1.evidence[t.ev].source, s1.evidence[t.ev].line) if t is not None else None

    # a matched prompt keeps citing the chat, its time the typed entry's time line; an added one
    # cites its typed lines
    assert [cited(e) for e in s1.events] == [
        ([(".aider.chat.history.md", 4)], (inp, ln("# 2026-03-01 09:00:00"))),
        ([(".aider.chat.history.md", 6)], (inp, ln("# 2026-03-01 09:00:10.500000"))),
        ([(inp, ln("+typed only")), (inp, ln("+two lines"))], (inp, ln("# 2026-03-01 09:00:20"))),
        ([(".aider.chat.history.md", 8)], None),
        ([(inp, ln("+y"))], (inp, ln("# 2026-03-01 09:00:01"))),
        ([(inp, ln("+n"))], (inp, ln("# 2026-03-01 09:00:02")))]
    q = s1.quality.extra
    assert (q["typed_matched"], q["typed_added"], q["typed_answers"]) == (2, 1, 2)
    assert s1.warnings == []
    marks = {(ev.source, ev.line): s1.ledger.get(k) for k, ev in s1.evidence.items() if ev.source == inp}
    assert marks[(inp, ln("# 2026-03-01 09:00:01"))] == Mark("metadata", "time of a typed entry")
    assert marks[(inp, ln("+at start"))] == Mark("duplicate", "a typed prompt the chat holds (its time was taken)")
    assert marks[(inp, ln("+y"))] == Mark("set_aside", "a typed answer to aider's confirmation (feedback)",
                                          "confirmation_answer")
    # the entry with no time joins the last session, before its next chat prompt
    assert [(e.text, e.ts, e.ts_ref) for e in s2.events] == [("early", None, None),
                                                            ("second", "2026-03-01 10:00:01", s2.events[1].ts_ref)]
    assert s2.events[1].ts_ref is not None and s2.quality.extra["typed_added"] == 1
