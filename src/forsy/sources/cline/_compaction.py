"""Cline SDK's compacted view: `<session id>.compaction.json` beside the transcript.

What the SDK writes (sdk/packages/core/src/session/models/session-compaction.ts,
`createSessionCompactionState`; extensions/context/compaction.ts saves it at each compaction,
replacing the one before): `{version, updated_at, conversation_id?, source_message_count,
source_prefix_hash?, source_last_message_key?, messages, system_prompt?}`, `messages` being what
the model got from then on in place of the transcript's first `source_message_count` messages:
a summary (`metadata.kind: "compaction_summary"`, with `generatedAt` epoch ms, `tokensBefore`;
extensions/context/compaction-shared.ts) and the messages it kept.

The transcript stays whole, so the work is read from it. What this file adds is that, and when,
the context was compacted: each summary is a `compaction` event at its `generatedAt` (else the
file's `updated_at`; derived, R-time), unless the transcript holds the same summary already (a
duplicate then). Only the last compaction is kept by the writer: earlier ones left no file.
The kept messages are copies of the transcript's (set aside); the other members are metadata.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import InputError
from ...evidence import Event, Evidence, Ref, Session
from ...payloads import NoteInfo
from .. import ReadContext
from .._side import read_side
from .._threads import interleave
from ..json_doc import read_object_array
from ..lines import sha256, source_name
from ._sdk import SUFFIX as MESSAGES
from ._sdk import iso_ms

SUFFIX = ".compaction.json"
SUMMARY = "compaction_summary"


def session_file(path: Path) -> Path | None:
    """The transcript a compacted view belongs to (`<id>.compaction.json` → `<id>.messages.json`)."""
    if not path.name.endswith(SUFFIX):
        return None
    messages = path.with_name(path.name[: -len(SUFFIX)] + MESSAGES)
    return messages if messages.is_file() else None


def read_compaction(messages_path: Path, s: Session, ctx: ReadContext) -> None:
    """Add to `s` (read from `messages_path`) what its compacted view beside it says (module docstring)."""
    path = messages_path.with_name(messages_path.name[: -len(MESSAGES)] + SUFFIX)
    if not messages_path.name.endswith(MESSAGES) or not path.is_file():
        return
    name = source_name(path, ctx.root)
    try:
        data = read_side(path, name, "cline", s, ctx.limits)
    except InputError as e:
        s.warn("compaction-unreadable", f"the session's compacted view could not be read: {e.message}", name)
        return
    doc = read_object_array(data, name, "messages")
    if doc is None:
        s.quality.records += 1
        s.quality.unparsable_records += 1
        s.warn("unparsable", "the session's compacted view is not a JSON object; not read", name, 1)
        return
    for code, msg, line in doc.problems:
        s.warn(code, msg, name, line)
    s.quality.records += doc.elements + len(doc.spans)
    s.quality.unparsable_records += doc.elements - len(doc.records)
    header: dict[str, str] = {}  # member -> its evidence id
    for key, (line, off, raw) in doc.spans.items():
        ev = Evidence.make(name, line, off, raw, sha256(raw), key)
        header[key] = s.add_evidence(ev)
        s.mark(ev.id, "metadata", "the compacted view's header (when, after how many messages)", key)
    updated = doc.header.get("updated_at") if isinstance(doc.header.get("updated_at"), str) else None
    updated_ref = Ref(header["updated_at"], "") if updated and "updated_at" in header else None
    known = {e.text for e in s.events if e.kind == "compaction"}
    found: list[Event] = []
    late: list[Event] = []
    for rec in doc.records:
        s.add_evidence(rec.ev)
        meta = rec.data.get("metadata")
        kind = meta.get("kind") if isinstance(meta, dict) else None
        content = rec.data.get("content")
        text, ptr = (content, "/content") if isinstance(content, str) else next(
            ((b["text"], f"/content/{i}/text") for i, b in enumerate(content if isinstance(content, list) else [])
             if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)), (None, ""))
        if kind != SUMMARY or not text:
            s.mark(rec.ev.id, "set_aside", "a message of the compacted view: a copy of the transcript's", "message")
        elif text in known:
            s.mark(rec.ev.id, "duplicate", "the compaction summary the transcript holds already", "message")
        else:
            at = iso_ms(meta.get("generatedAt")) if isinstance(meta, dict) else None
            event = Event("compaction", "system", at or updated, [Ref(rec.ev.id, ptr)], text=text,
                       ts_from=Ref(rec.ev.id, "/metadata/generatedAt") if at else None,  # epoch ms: derived
                       ts_ref=None if at else updated_ref, info=NoteInfo(subtype=SUMMARY))
            s.quality.compactions += 1
            if event.ts is None:  # nothing says when: after the work it followed, and said
                s.warn("compaction-time", "a compaction summary with no time (generatedAt, updated_at); placed at "
                       "the end", name, rec.ev.line)
                late.append(event)
            else:
                found.append(event)
    if found:
        s.events = interleave([s.events, found])
    s.events.extend(late)
