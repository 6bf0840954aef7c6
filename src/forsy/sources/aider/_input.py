"""`.aider.input.history`: what the user typed at aider's prompts, with the time of each entry.

prompt_toolkit's FileHistory writes one entry as a blank line, `# <local time>` (Python's
`datetime.now()`: `YYYY-MM-DD HH:MM:SS.ffffff`, no zone) and the entry's lines each
prefixed `+`. Each `# time` line and each `+` line is one record (its text without the
marker), so a typed value is copied exactly from its bytes.

Merged into the chat's sessions (`merge`): an entry belongs to the session whose start
(its header time, the same local clock) is the latest at or before the entry's time. In a
session, an entry is matched in order to the first prompt of the chat after the last match
with the same text (lines compared without trailing blanks); the prompt takes the entry's
time. An answer to a confirmation (`y`, `n`, `a`, `s`, `d` or the words) is feedback on
aider's question, counted and set aside. Any other entry the chat does not hold is added as
a `user` event at its place: before the first chat prompt after the last match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ...evidence import Event, Evidence, Ref, Session
from ...payloads import NoteInfo
from ._evidence import Cutter
from ._md import is_blank, split_lines

TIME = re.compile(r"# (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)\s*\Z")
ANSWERS = frozenset({"y", "n", "a", "s", "d", "yes", "no", "all", "skip", "don't"})


@dataclass
class Entry:
    ts: str | None
    ts_ev: Evidence | None
    lines: list[Evidence]
    text: str
    line: int  # where the entry starts

    def when(self) -> datetime | None:
        return parse_time(self.ts)


def parse_time(ts: str | None) -> datetime | None:
    if ts is None:
        return None
    try:
        return datetime.fromisoformat(ts)
    except ValueError:
        return None


def read_entries(data: bytes, cut: Cutter, s: Session) -> list[Entry]:
    """The entries of an input history, their records added to `s` (moved later if merged)."""
    out: list[Entry] = []
    cur: Entry | None = None
    for ln in split_lines(data):
        if is_blank(ln.text):
            _bump(s, "blank_lines")
            continue
        m = TIME.match(ln.text)
        if m is not None:
            ev = cut.range(s, ln.no, ln.start + 2, ln.start + 2 + len(m.group(1)), "input_time")
            cur = Entry(m.group(1), ev, [], "", ln.no)
            out.append(cur)
        elif ln.text.startswith("+"):
            ev = cut.range(s, ln.no, ln.start + 1, ln.end, "input_line")
            if cur is None:  # lines before any time: an entry without one
                cur = Entry(None, None, [], "", ln.no)
                out.append(cur)
            piece = cut.text(ln.start + 1, ln.end)
            cur.text = piece if not cur.lines else cur.text + "\n" + piece
            cur.lines.append(ev)
        else:
            ev = cut.range(s, ln.no, ln.start, ln.end, "unknown_line")
            s.quality.unknown_records += 1
            s.warn("unknown-line", "a line that is neither a `# time` nor a `+` line; skipped", ev.source, ln.no)
    return out


def _bump(s: Session, key: str, n: int = 1) -> None:
    s.quality.extra[key] = s.quality.extra.get(key, 0) + n


def is_answer(text: str) -> bool:
    return "\n" not in text and text.strip().lower() in ANSWERS


def norm(text: str) -> str:
    return "\n".join(ln.rstrip() for ln in text.strip("\n").split("\n"))


def user_event(e: Entry) -> Event:
    return Event("user", "user", e.ts, [Ref(r.id) for r in e.lines], text=e.text,
                 ts_ref=Ref(e.ts_ev.id) if e.ts_ev is not None and e.ts else None)


def answer_note(s: Session, e: Entry) -> Event:
    """A typed answer to aider's confirmation: feedback on its question, not a prompt."""
    for r in e.lines:
        s.mark(r.id, "set_aside", "a typed answer to aider's confirmation (feedback)", "confirmation_answer")
    return Event("note", "user", e.ts, [Ref(r.id) for r in e.lines], text=e.text,
                 ts_ref=Ref(e.ts_ev.id) if e.ts_ev is not None and e.ts else None,
                 info=NoteInfo(subtype="confirmation_answer"))


def merge(s: Session, entries: list[Entry]) -> None:
    """Entries of one session merged into its events (module docstring)."""
    prompts = [e for e in s.events if e.kind == "user"]
    nxt = 0
    matched = added = answers = 0
    for entry in entries:
        _move(s, entry)
        if entry.ts_ev is not None:
            s.mark(entry.ts_ev.id, "metadata", "time of a typed entry")
        if is_answer(entry.text):
            answers += 1
            s.events.append(answer_note(s, entry))
            continue
        want = norm(entry.text)
        k = next((i for i in range(nxt, len(prompts)) if norm(prompts[i].text or "") == want), None)
        if k is not None and entry.ts:
            p = prompts[k]
            p.ts, p.ts_ref = entry.ts, Ref(entry.ts_ev.id) if entry.ts_ev is not None else None
            for r in entry.lines:
                s.mark(r.id, "duplicate", "a typed prompt the chat holds (its time was taken)")
            nxt, matched = k + 1, matched + 1
            continue
        if not entry.lines:
            continue
        ev = user_event(entry)
        at = s.events.index(prompts[nxt]) if nxt < len(prompts) else len(s.events)
        s.events.insert(at, ev)
        added += 1
    for key, n in (("typed_matched", matched), ("typed_added", added), ("typed_answers", answers)):
        if n:
            _bump(s, key, n)


def _move(s: Session, entry: Entry) -> None:
    """Records read into a scratch session belong to `s`."""
    for ev in ([entry.ts_ev] if entry.ts_ev else []) + entry.lines:
        s.add_evidence(ev)


def entries_by_session(entries: list[Entry], starts: list[datetime | None]) -> tuple[list[list[Entry]], list[Entry]]:
    """Entries per session (by start time), and the entries before the first session."""
    per: list[list[Entry]] = [[] for _ in starts]
    before: list[Entry] = []
    for e in entries:
        when = e.when()
        idx = None
        for i, st in enumerate(starts):
            if st is not None and when is not None and st <= when:
                idx = i
        if idx is None and when is None and per:
            idx = len(per) - 1  # an entry without a time: with the last session
        (before if idx is None else per[idx]).append(e)
    return per, before
