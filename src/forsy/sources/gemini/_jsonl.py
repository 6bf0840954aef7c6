"""Gemini CLI's chat files since 2026: `chats/session-<time>-<id>.jsonl`, appended to.

What `ChatRecordingService` writes (packages/core/src/services/chatRecordingService.ts), one
JSON value a line:

* first, the header `{sessionId, projectHash, startTime, lastUpdated, kind?, directories?}`
  (`kind: "subagent"` for a subagent's chat, kept under `chats/<parent session id>/`);
* a message record (it has an `id`) each time a message is recorded *or changed*: the same
  message is written again when its tool calls complete (`recordToolCalls`) or its token
  counts arrive; Gemini keeps the last write of each id, at the place of its first;
* `{"$set": {...}}`: a metadata update (`lastUpdated` after every message, `summary`,
  `directories`, `memoryScratchpad`, `sessionId`); one holding `messages` is a checkpoint
  that replaces the history (tool outputs masked, a compression summary);
* `{"$rewindTo": id}`: the messages from that one on are taken back (`/rewind`).

Read the same way here: each line is one record. The last write of each message is read at
the place of its first; earlier writes are duplicates in the ledger. A checkpoint's messages
that were never written on their own (a summary Gemini made up) are read from inside it
(cited at `/$set/messages/<i>`); the ones already read keep their first, unmasked form.
Messages a rewind took back are read and flagged abandoned (the work happened).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...evidence import ReadingWarning, Session
from .._records import Record, iter_jsonl
from ..listing import unread

HEADER_WHY = "the chat's header (session id, project hash, start time)"
SET_WHY = "a metadata update ($set: last updated, summary, directories)"
CHECKPOINT_WHY = "a checkpoint: the history as Gemini rewrote it (masked outputs, summaries); its new messages are read"
REWIND_WHY = "a rewind: the messages from the one it names on were taken back (read, flagged abandoned)"
REWRITE_WHY = "an earlier write of a message Gemini wrote again (as its calls completed or its tokens arrived)"
COPY_WHY = ("a copy of an earlier turn, written again under a new id when the CLI replaced the history "
            "(/restore, a truncating compression)")
IMPORT_WHY = ("another session's history, copied in by `gemini --session-file` (gemini.tsx): that session's "
              "work, not this one's")
MIGRATED_WHY = ("an older copy of the chat beside it: resuming a .json chat, Gemini CLI writes it again into the "
                ".jsonl of the same name and goes on there, which is read")
# what that `.jsonl` is, said when the `.json` is named and read all the same
MIGRATED_TWIN = "where Gemini CLI went on with this chat when it was resumed (its messages, and the later ones)"
IMPORT_MARK = "Imported session from "  # the info message written before the copied messages


def imported(messages: list[tuple[Record, bool]]) -> set[str]:
    """The evidence ids of the messages `gemini --session-file` copied into a new chat: it writes
    the header, an info message "Imported session from <file>" stamped with the import's time,
    then the old session's user and model messages with their own, earlier times; the new
    session's messages follow, later. The ones before the mark's time are the copies."""
    if not messages:
        return set()
    first = messages[0][0].data
    mark, at = first.get("content"), first.get("timestamp")
    if not (first.get("type") == "info" and isinstance(mark, str) and mark.startswith(IMPORT_MARK)
            and isinstance(at, str) and at.endswith("Z")):
        return set()
    out = set()
    for rec, _ in messages[1:]:
        ts = rec.data.get("timestamp")
        if not (isinstance(ts, str) and len(ts) == len(at) and ts.endswith("Z") and ts < at):
            break  # the new session's own messages: from here on
        out.add(rec.ev.id)
    return out


# what the header and `$set` lines may hold (chatRecordingTypes.ts ConversationRecord)
HEADER_KEYS = frozenset({"sessionId", "projectHash", "startTime", "lastUpdated", "summary", "memoryScratchpad",
                         "directories", "kind", "messages",
                         # loadConversationRecord's counts, which rewriteConversationFile writes back into
                         # the header when it rebuilds a file it could not reload
                         "messageCount", "userMessageCount", "firstUserMessage", "hasResumableContent",
                         "memoryScratchpadIsStale"})


@dataclass
class Lines:
    header: dict[str, Any] = field(default_factory=dict)
    messages: list[tuple[Record, bool]] = field(default_factory=list)  # (last write, abandoned), in order
    copies: set[str] = field(default_factory=set)  # ids of messages that copy earlier turns (`_replaced`)
    records: int = 0
    unparsable: int = 0


def is_jsonl(data: bytes) -> bool:
    """A chat of one JSON object per line: its first line is a whole object (the header)."""
    first = data.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0].strip()
    return first.startswith(b"{") and first.endswith(b"}") and b'"sessionId"' in first


def collect(data: bytes, name: str, s: Session) -> Lines:
    out = Lines()
    warnings: list[ReadingWarning] = []
    counters: dict[str, int] = {}
    latest: dict[str, Record] = {}
    order: list[str] = []
    abandoned: set[str] = set()
    extra_keys: dict[str, int] = {}
    run: list[str] = []  # ids first written as lines since the last checkpoint, rewrite or rewind
    for rec in iter_jsonl(data, name, warnings, counters):
        s.add_evidence(rec.ev)
        d = rec.data
        if isinstance(d.get("$rewindTo"), str):
            live = [i for i in order if i not in abandoned]
            rid = d["$rewindTo"]
            abandoned.update(live[live.index(rid):] if rid in live else live)  # not found: Gemini clears all
            run = []
            s.mark(rec.ev.id, "metadata", REWIND_WHY, "$rewindTo")
        elif isinstance(d.get("$set"), dict):
            upd = d["$set"]
            msgs = upd.get("messages")
            if isinstance(msgs, list):
                out.copies |= _replaced(msgs, run, order)
                run = []
            for i, m in enumerate(msgs if isinstance(msgs, list) else []):
                if isinstance(m, dict) and isinstance(m.get("id"), str) and m["id"] not in latest:
                    latest[m["id"]] = Record(rec.ev, m, f"/$set/messages/{i}")
                    order.append(m["id"])
                    s.quality.extra["checkpoint_messages"] = s.quality.extra.get("checkpoint_messages", 0) + 1
            out.header.update({k: v for k, v in upd.items() if k != "messages"})
            _count_keys(upd, extra_keys)
            s.mark(rec.ev.id, "metadata", CHECKPOINT_WHY if isinstance(msgs, list) else SET_WHY, "$set")
        elif isinstance(d.get("id"), str):
            mid = d["id"]
            old = latest.get(mid)
            if old is None:
                order.append(mid)
                run.append(mid)
            else:
                run = []
            if old is not None and not old.prefix:
                s.mark(old.ev.id, "duplicate", REWRITE_WHY, "message")
            latest[mid] = rec
        elif isinstance(d.get("sessionId"), str):
            out.header.update({k: v for k, v in d.items() if k != "messages"})
            _count_keys(d, extra_keys)
            msgs = d.get("messages")  # a whole legacy record written on one line
            for i, m in enumerate(msgs if isinstance(msgs, list) else []):
                if isinstance(m, dict) and isinstance(m.get("id"), str) and m["id"] not in latest:
                    latest[m["id"]] = Record(rec.ev, m, f"/messages/{i}")
                    order.append(m["id"])
            s.mark(rec.ev.id, "metadata", HEADER_WHY, "header")
        else:
            s.quality.unknown_records += 1
            s.warn("unknown-record", "a line that is no message, header, $set or $rewindTo; skipped",
                   rec.ev.source, rec.ev.line)
    s.warnings.extend(warnings)
    if extra_keys:  # drift: fields the writer's table does not name, counted
        s.quality.extra["unknown_header_fields"] = sum(extra_keys.values())
        s.warn("unknown-fields", "header or $set fields forsy does not know: " + ", ".join(sorted(extra_keys)),
               name, None)
    out.records = counters.get("records", 0)
    out.unparsable = counters.get("unparsable", 0)
    out.messages = [(latest[i], i in abandoned) for i in order]
    return out


def _replaced(msgs: list[Any], run: list[str], order: list[str]) -> set[str]:
    """The messages a checkpoint shows to be copies: `setHistory` of plain turns (`/restore`'s
    history, a truncating compression's) records each again under a new id (recordSyntheticMessage),
    then `updateMessagesFromHistory` writes a checkpoint of exactly those, the history they
    replace left out. So: a checkpoint whose ids are the last lines written, all new, while
    messages written before them are not in it."""
    ids = [m["id"] for m in msgs if isinstance(m, dict) and isinstance(m.get("id"), str)]
    if not ids or len(ids) != len(msgs) or run[-len(ids):] != ids:
        return set()
    earlier = order[: len(order) - len(ids)]
    return set(ids) if any(i not in ids for i in earlier) else set()


def _count_keys(d: dict[str, Any], into: dict[str, int]) -> None:
    for k in d:
        if k not in HEADER_KEYS and not k.startswith("$"):
            into[k] = into.get(k, 0) + 1


def without_migrated(chats: list[Path]) -> list[Path]:
    """`chats` but the `.json` ones beside a `.jsonl` of the same name: resuming a `.json` chat,
    Gemini writes its whole record again into `<same name>.jsonl` and goes on there, leaving the
    `.json` (ChatRecordingService.initialize). That older copy is not read (its messages would be
    read twice) and is named to the walk (`listing.unread`), as a copy set aside."""
    lines = {p.with_suffix("") for p in chats if p.suffix == ".jsonl"}
    older = {p for p in chats if p.suffix == ".json" and p.with_suffix("") in lines}
    for p in sorted(older):
        unread(p, MIGRATED_WHY)
    return [p for p in chats if p not in older]
