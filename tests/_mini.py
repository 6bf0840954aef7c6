"""Where a mini-swe-agent session's evidence records sit in the trajectory, for the tests: each
record is one message (or `info`), found by reading its bytes back from the file and matching
them with the document the test wrote, so a test can name a value as `/messages/3/content`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forsy.evidence import Ref, Session


class Places:
    def __init__(self, s: Session, path: Path) -> None:
        data = path.read_bytes()
        doc = json.loads(data)
        used: set[int] = set()
        self.of: dict[str, str] = {}
        self.line: dict[str, int] = {}
        for ev in s.evidence.values():
            value = json.loads(data[ev.byte_offset: ev.byte_offset + ev.byte_length])
            if ev.record_type == "info":
                self.of[ev.id] = "/info"
            else:
                same = json.dumps(value, sort_keys=True)  # NaN included
                i = next(i for i, m in enumerate(doc["messages"])
                         if i not in used and json.dumps(m, sort_keys=True) == same)
                used.add(i)
                self.of[ev.id] = f"/messages/{i}"
            self.line[self.of[ev.id]] = ev.line or 0

    def at(self, r: Ref | None) -> str | None:
        """A ref as the place of its value in the whole document."""
        return None if r is None else self.of[r.ev] + r.pointer

    def ids(self, v: Any) -> Any:
        """A call id or group with the evidence ids in it written as their places."""
        if not isinstance(v, str):
            return v
        for ev, place in self.of.items():
            v = v.replace(ev, place)
        return v
