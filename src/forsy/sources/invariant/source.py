"""Invariant traces (the Explorer's event list) → `Session`s.

Three shapes: the event list itself (a JSON array of events, one session), the Explorer's
dataset upload JSON (`{"messages": [[events...], ...], "metadata": [...]}`, one session per
event list), and the Explorer's JSONL dataset (a `{"metadata": ...}` line, then one trace a
line: an event list or `{"messages": [...]}`; one session per line). Events are chat
messages with Invariant's `metadata` (read by `sources.chat`: actor, times, the
success flag when forsy wrote them).

Each array element of the event list is one evidence record (its exact bytes, with the line
where it starts); the upload JSON is one record, cited by pointer.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar

import orjson

from ...evidence import Evidence, ReadingWarning, Session
from .. import ReadContext
from .._records import iter_json_array
from ..chat import ChatState, chat_events, chat_message, load_doc, new_session
from ..lines import discover_sniffed, iter_lines, sha256

_CLINE_API = "api_conversation_history.json"  # the name Cline gives a task's API history
KIND = "invariant"


def _is_event(d: object) -> bool:
    return isinstance(d, dict) and isinstance(d.get("role"), str)


class InvariantSource:
    name: ClassVar[str] = KIND

    def sniff(self, path: Path, head: bytes) -> bool:
        s = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if path.name == _CLINE_API:
            return False  # an array of messages too, but Cline's writer's name: the Cline reader's
        if s.startswith(b"["):
            return _first_is_event(s)
        if s.startswith(b"{") and b'"messages"' in s[:200] and orjson_prefix_is_upload(s):
            return True
        # the Explorer's JSONL dataset: a first line {"metadata": ...}, then one trace a line
        first, _, rest = s.partition(b"\n")
        try:
            d = orjson.loads(first)
        except orjson.JSONDecodeError:
            return False
        if not (isinstance(d, dict) and set(d) == {"metadata"}):
            return False
        nxt = rest.lstrip()
        return nxt.startswith(b"[") and _first_is_event(nxt) or nxt.startswith(b"{") and b'"messages"' in nxt[:400]

    def discover(self, path: Path) -> list[Path]:
        return discover_sniffed(path, self.sniff, ("*.json",), named=lambda p: p.suffix == ".json")

    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        doc = load_doc(path, ctx, KIND)
        if doc.data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
            first = doc.data.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
            if first.rstrip().endswith(b"}") and _is_metadata_line(first):
                return _read_jsonl(path, doc)
            return _read_upload(path, doc)
        s = new_session(KIND, path.stem, doc, "invariant")
        warnings: list[ReadingWarning] = []
        counters: dict[str, int] = {}
        records = list(iter_json_array(doc.data, doc.source, warnings, counters))
        s.warnings.extend(warnings)
        s.quality.records = counters.get("records", 0)
        s.quality.unparsable_records = counters.get("unparsable", 0)
        for r in records:
            s.add_evidence(r.ev)
        # one conversation over many records: each message is read inside its own record
        _read_elements(s, [(r.ev.id, r.data, r.ev.line) for r in records])
        return [s]


def orjson_prefix_is_upload(s: bytes) -> bool:
    """`{"messages": [[` (spaces allowed): a list of event lists."""
    i = s.find(b'"messages"')
    rest = s[i + len(b'"messages"'):].lstrip()
    if not rest.startswith(b":"):
        return False
    rest = rest[1:].lstrip()
    return rest.startswith(b"[") and rest[1:].lstrip().startswith(b"[")


def _read_elements(s: Session, elements: list[tuple[str, dict[str, Any], int | None]]) -> None:
    """Each element is one message in its own record (pointer ""): one conversation."""
    state = ChatState()
    for ev, data, line in elements:
        chat_message(s, data, ev, "", line, state)


def _read_upload(path: Path, doc: Any) -> list[Session]:
    out: list[Session] = []
    try:
        whole = orjson.loads(doc.data)
    except orjson.JSONDecodeError:
        whole = None
    lists = whole.get("messages") if isinstance(whole, dict) else None
    if not isinstance(lists, list):
        s = new_session(KIND, path.stem, doc, "invariant")
        s.quality.unparsable_records = 1
        s.warn("unparsable", "not an Invariant upload JSON (no messages list); skipped", doc.source, None)
        return [s]
    for n, events in enumerate(lists):
        s = new_session(KIND, f"{path.stem}#{n}", doc, "invariant")
        ev = s.add_evidence(Evidence.make(doc.source, 1, 0, doc.data, doc.file.sha256, "dataset"))
        s.quality.records = 1
        if isinstance(events, list):
            chat_events(s, events, ev, f"/messages/{n}", 1)
        else:
            s.quality.unknown_records += 1
            s.warn("not-an-event-list", f"messages[{n}] is not a list of events; skipped", doc.source, 1)
        out.append(s)
    return out


def _first_is_event(s: bytes) -> bool:
    """Whether the array opening `s` starts with a chat event (a "role"). Claude Code's array
    dumps and other arrays of objects are not event lists."""
    body = s[1:].lstrip()
    if not body.startswith(b"{"):
        return False
    try:
        first, _ = json.JSONDecoder().raw_decode(body.decode("utf-8", "replace"))
    except (ValueError, RecursionError):  # longer than the head, or nested past the parser: its opening decides
        return bool(re.match(rb'\{\s*"role"\s*:', body))
    return _is_event(first)


def _is_metadata_line(line: bytes) -> bool:
    try:
        d = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return isinstance(d, dict) and set(d) == {"metadata"}


def _read_jsonl(path: Path, doc: Any) -> list[Session]:
    """The Explorer's JSONL dataset: a metadata line, then one trace a line (an event list, or
    an object with its `messages`). One session per trace line; each line is its evidence."""
    out: list[Session] = []
    skipped: list[tuple[str, int]] = []
    for rl in iter_lines(doc.data):
        ev = Evidence.make(doc.source, rl.line, rl.offset, rl.raw, sha256(rl.raw), None)
        try:
            d = orjson.loads(rl.raw)
        except orjson.JSONDecodeError:
            skipped.append(("line is not JSON; skipped", rl.line))
            continue
        if isinstance(d, dict) and set(d) == {"metadata"}:
            continue  # the dataset's own description
        msgs, ptr = (d, "") if isinstance(d, list) else (d.get("messages"), "/messages") if isinstance(d, dict) \
            else (None, "")
        if not isinstance(msgs, list):
            skipped.append(("line is neither an event list nor an object with messages; skipped", rl.line))
            continue
        s = new_session(KIND, f"{path.stem}#{rl.line}", doc, "invariant")
        s.add_evidence(ev)
        s.quality.records = 1
        chat_events(s, msgs, ev.id, ptr, rl.line)
        out.append(s)
    if not out:
        out.append(new_session(KIND, path.stem, doc, "invariant"))
    for message, line in skipped:
        out[0].quality.unparsable_records += 1
        out[0].warn("unparsable-line", message, doc.source, line)
    return out
