"""`.aider.input.history`: what the user typed at aider's prompts, with the time of each entry.

prompt_toolkit's FileHistory writes one entry as a blank line, `# <local time>` (Python's
`datetime.now()`: `YYYY-MM-DD HH:MM:SS.ffffff`, no zone) and the entry's lines each
prefixed `+`. Each `# time` line and each `+` line is one record (its text without the
marker), so a typed value is copied exactly from its bytes. The lines of a multi-line input
(`{` … `}`) are stored one entry each: they are made one entry again (`braces`).

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
from dataclasses import dataclass, field
from datetime import datetime

from ...evidence import Event, Evidence, LedgerHeading, Ref, Session
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
    # a multi-line input (`braces`): its `{`/`}` lines and the times of its lines but the last,
    # each with the ledger heading and reason it is read under
    aside: list[tuple[Evidence, LedgerHeading, str]] = field(default_factory=list)
    block: bool = False  # a multi-line input: compared to the chat's without its blank lines

    def when(self) -> datetime | None:
        return parse_time(self.ts)


def take(s: Session, e: Entry) -> None:
    """The entry's records added to `s`, its time marked metadata and its `aside` records marked."""
    for ev in ([e.ts_ev] if e.ts_ev else []) + e.lines + [a[0] for a in e.aside]:
        s.add_evidence(ev)
    if e.ts_ev is not None:
        s.mark(e.ts_ev.id, "metadata", "time of a typed entry")
    for ev, heading, why in e.aside:
        s.mark(ev.id, heading, why)


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
    return braces(out)


def _opens(e: Entry) -> str | None:
    """The closing line of a multi-line input `e` opens (`{` → `}`, `{tag` → `tag}`), else None."""
    t = e.text
    if len(e.lines) != 1 or not t.startswith("{") or not (t == "{" or t[1:].isalnum()):
        return None
    return t[1:] + "}"


def braces(entries: list[Entry]) -> list[Entry]:
    """Multi-line inputs made whole. Aider reads one by prompting for each line (io.get_input: a
    line `{`, or `{tag` since 0.64, opens it; `}` or `tag}` closes it) and sends the lines
    between, without the braces; prompt_toolkit stores each line it prompted for as an entry of
    its own (not blank lines, nor a line the same as the entry before). So the entries from an
    opening line to its closing one are one input: the lines between, at the closing line's time
    (when it was sent). The braces are set aside, the other lines' times metadata. An opening
    line with no closing one (the input was abandoned) is left as it is."""
    out: list[Entry] = []
    i = 0
    while i < len(entries):
        e = entries[i]
        close = _opens(e)
        end = None
        if close is not None:
            end = next((j for j in range(i + 1, len(entries)) if entries[j].text == close
                        and len(entries[j].lines) == 1), None)
        if close is None or end is None:
            out.append(e)
            i += 1
            continue
        last, inner = entries[end], entries[i + 1 : end]
        block = Entry(last.ts, last.ts_ev, [ev for x in inner for ev in x.lines],
                      "\n".join(x.text for x in inner), e.line, block=True)
        why = "the brace line that opens or closes a multi-line input (aider does not send it)"
        block.aside = [(ev, "set_aside", why) for ev in e.lines + last.lines]
        block.aside += [(x.ts_ev, "metadata", "time of a typed line of a multi-line input")
                        for x in [e, *inner] if x.ts_ev is not None]
        out.append(block)
        i = end + 1
    return out


def _bump(s: Session, key: str, n: int = 1) -> None:
    s.quality.extra[key] = s.quality.extra.get(key, 0) + n


def is_answer(text: str) -> bool:
    return "\n" not in text and text.strip().lower() in ANSWERS


def norm(text: str, blank: bool = True) -> str:
    """Text as compared: lines without trailing blanks, blank lines kept or not (`blank`)."""
    lines = [ln.rstrip() for ln in text.strip("\n").split("\n")]
    return "\n".join(ln for ln in lines if blank or ln)


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
        take(s, entry)
        if is_answer(entry.text):
            answers += 1
            s.events.append(answer_note(s, entry))
            continue
        want = norm(entry.text, not entry.block)
        k = next((i for i in range(nxt, len(prompts)) if norm(prompts[i].text or "", not entry.block) == want), None)
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
