"""OpenAI chat message lists (the fine-tuning format) → `Session`s.

A file is JSON lines, each `{"messages": [...]}` (one conversation per line, one session
each), or one JSON object `{"messages": [...]}`. Each line (or the file) is one evidence
record; values are cited by their JSON pointer inside it. The messages are read by `sources.chat`.
A JSON array of messages is Invariant's event list (`sources.invariant`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

import orjson

from ...evidence import Evidence, ReadingWarning, Session
from .. import ReadContext
from .._records import iter_jsonl
from ..chat import chat_events, load_doc, new_session, parsed
from ..lines import discover_sniffed

KIND = "openai_chat"
_OPENS = re.compile(rb'^\s*\{\s*"messages"\s*:\s*\[\s*\{')


def _is_conversation(d: object) -> bool:
    if not isinstance(d, dict) or not isinstance(d.get("messages"), list):
        return False
    msgs = d["messages"]
    return not msgs or (isinstance(msgs[0], dict) and "role" in msgs[0])


class OpenAIChatSource:
    name: ClassVar[str] = KIND

    def sniff(self, path: Path, head: bytes) -> bool:
        first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
        try:
            return _is_conversation(orjson.loads(first))
        except orjson.JSONDecodeError:
            return bool(_OPENS.match(head.lstrip(b"\xef\xbb\xbf")))

    def discover(self, path: Path) -> list[Path]:
        # only the files of the folder itself: a chat export is named, not searched for
        return discover_sniffed(path, self.sniff, ("*.json*",), named=lambda p: p.suffix in (".json", ".jsonl"))

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        doc = load_doc(path, ctx, KIND)
        whole = parsed(doc)
        if _is_conversation(whole):
            assert isinstance(whole, dict)
            s = new_session(KIND, path.stem, doc, "openai-chat")
            ev = s.add_evidence(Evidence.make(doc.source, 1, 0, doc.data, doc.file.sha256, "conversation"))
            s.quality.records = 1
            chat_events(s, whole["messages"], ev, "/messages", 1)
            return [s]
        out: list[Session] = []
        warnings: list[ReadingWarning] = []
        counters: dict[str, int] = {}
        for rec in iter_jsonl(doc.data, doc.source, warnings, counters):
            s = new_session(KIND, f"{path.stem}#{rec.ev.line}", doc, "openai-chat")
            s.add_evidence(rec.ev)
            s.quality.records = 1
            if not _is_conversation(rec.data):
                s.quality.unknown_records += 1
                s.warn("not-a-conversation", "line has no messages list; skipped", doc.source, rec.ev.line)
            else:
                chat_events(s, rec.data["messages"], rec.ev.id, "/messages", rec.ev.line)
            out.append(s)
        if not out:
            s = new_session(KIND, path.stem, doc, "openai-chat")
            out.append(s)
        out[0].warnings[:0] = warnings
        out[0].quality.unparsable_records += counters.get("unparsable", 0)
        return out
