"""Evidence of a markdown log: the exact byte range a value was copied from.

Aider's files are text, so a record is a byte range, not a JSON value: `forsy verify` reads
the range back, checks its sha256 and compares it with the copied value as text. A range
is cut to what was copied (a prompt line without its `#### ` prefix and its two-space line
break, an aider message without `> `), so the value is the range's text exactly.
"""

from __future__ import annotations

from ...evidence import Evidence, Session
from ..lines import sha256
from ._md import BREAK, Line


class Cutter:
    """Evidence of one file, added to the session it belongs to."""

    def __init__(self, data: bytes, source: str) -> None:
        self.data = data
        self.source = source

    def range(self, s: Session, line: int, start: int, end: int, rtype: str) -> Evidence:
        raw = self.data[start:end]
        ev = Evidence.make(self.source, line, start, raw, sha256(raw), rtype)
        s.add_evidence(ev)
        return ev

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")

    def next_line(self, end: int) -> bytes | None:
        """The first line after the line ending at byte `end` that holds something: not blank, not a
        blank quote line (an empty aider message); None at the file's end."""
        pos = end
        while (nl := self.data.find(b"\n", pos)) != -1:
            stop = self.data.find(b"\n", nl + 1)
            line = self.data[nl + 1 : stop if stop != -1 else len(self.data)]
            if line.strip() not in (b"", b">"):
                return line
            pos = nl + 1
        return None

    def lines(self, s: Session, lines: list[Line], rtype: str) -> tuple[Evidence, str]:
        """Consecutive lines, whole."""
        ev = self.range(s, lines[0].no, lines[0].start, lines[-1].end, rtype)
        return ev, self.text(lines[0].start, lines[-1].end)

    def prefixed(self, s: Session, lines: list[Line], prefix: int, rtype: str) -> tuple[Evidence, str]:
        """A message aider wrote with a `prefix`-byte marker on its first line and a line break
        on its last: the bytes between them."""
        first, last = lines[0], lines[-1]
        start = min(first.start + prefix, first.end) if len(lines) == 1 else first.start + prefix
        end = last.end - len(BREAK) if last.text.endswith(BREAK) else last.end
        end = max(start, end)
        return self.range(s, first.no, start, end, rtype), self.text(start, end)
