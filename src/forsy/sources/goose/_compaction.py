"""Goose's compactions as its store keeps them, found among a session's messages before they
are read (a compaction is told by the messages around it, not by one message alone).

What Goose writes (crates/goose/src/context_mgmt/mod.rs compact_messages, read at 331a842972;
the store then holds the conversation it returns, session_manager.rs replace_conversation):

* the messages it summarised stay, made agent-invisible (`agentVisible: false`), still shown to
  the person;
* the summary: a message (the summarising model's answer, given the user role) marked
  `agent_only` (`userVisible: false`, `agentVisible: true`);
* right after it, an assistant message marked `agent_only` whose text tells the model to go on
  and not to mention the summary (CONVERSATION_, TOOL_LOOP_ or MANUAL_COMPACT_CONTINUATION_TEXT;
  earlier versions worded it otherwise, all with "Do not mention that you read a summary");
* then, unless the person asked for the compaction, a fresh user message with the text of the
  last text-only user message the model saw (`Message::user().with_text`): a copy. When that
  message was the newest, it is kept but hidden from both (`MessageMetadata::invisible()`), right
  before the summary. Earlier versions dropped it instead: the copy is then its only record, and
  is not taken for a copy unless an earlier message holds the same words;
* some earlier versions wrote a notice for the person (an assistant message with a
  `conversationCompacted` or `summarizationRequested` part, `user_only`) before the summary.

So a compaction is an `agent_only` message with text followed by an `agent_only` assistant
message saying so; `find` names the part each of its messages plays (`Part`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .._records import Record

Part = Literal["summary", "continuation", "copy", "hidden_original", "notice"]
SUMMARY: Part = "summary"  # the summary the model continued from: the compaction
CONTINUATION: Part = "continuation"  # Goose's words telling the model to go on: a note
COPY: Part = "copy"  # the person's (or Goose's) last words written again: a duplicate
HIDDEN_ORIGINAL: Part = "hidden_original"  # the words the copy repeats, hidden by the compaction
NOTICE: Part = "notice"  # the person's notice of the same compaction (counted once, at the summary)

# the sentence every continuation text of Goose's has held (mod.rs, and the versions before it)
CONTINUE = re.compile(r"Do not mention that you read a summary")
NOTICE_PARTS = frozenset({"conversationCompacted", "summarizationRequested"})
TOOL_PARTS = frozenset({"toolRequest", "toolResponse"})


@dataclass(frozen=True, slots=True)
class _Msg:
    id: str
    role: str
    user_visible: bool
    agent_visible: bool
    types: frozenset[str]
    text: str | None  # the text parts joined as compact_messages' extract_text joins them

    @property
    def agent_only(self) -> bool:
        return not self.user_visible and self.agent_visible

    @property
    def text_only(self) -> bool:
        """Goose's has_text_only: a text part and no tool request or response."""
        return self.text is not None and not self.types & TOOL_PARTS


def _msg(rec: Record, content_key: str, metadata_key: str) -> _Msg | None:
    d = rec.data
    content = d.get(content_key)
    role = d.get("role")
    if role not in ("user", "assistant") or not isinstance(content, list):
        return None
    meta = d.get(metadata_key)
    meta = meta if isinstance(meta, dict) else {}
    parts = [p for p in content if isinstance(p, dict)]
    texts = [p["text"] for p in parts if p.get("type") == "text" and isinstance(p.get("text"), str)]
    # MessageMetadata's defaults: a message written without it is shown to both
    return _Msg(rec.ev.id, str(role), meta.get("userVisible") is not False, meta.get("agentVisible") is not False,
                frozenset(str(p.get("type")) for p in parts), "\n".join(texts) if texts else None)


def _continues(m: _Msg) -> bool:
    return m.role == "assistant" and m.agent_only and m.text is not None and bool(CONTINUE.search(m.text))


def find(recs: Sequence[Record], content_key: str, metadata_key: str) -> dict[str, Part]:
    """What each message record of a compaction is (module docstring); the others are not named."""
    msgs = [m for m in (_msg(r, content_key, metadata_key) for r in recs) if m is not None]
    found: dict[str, Part] = {}
    start = 0  # the first message the model still saw at the latest compaction
    for i in range(1, len(msgs)):
        summary, cont = msgs[i - 1], msgs[i]
        if not (_continues(cont) and summary.agent_only and summary.text is not None):
            continue
        found[summary.id], found[cont.id] = SUMMARY, CONTINUATION
        before = i - 1  # the messages before the summary (its notice left out)
        if before > start and msgs[before - 1].types & NOTICE_PARTS:
            before -= 1
            found[msgs[before].id] = NOTICE
        copy = msgs[i + 1] if i + 1 < len(msgs) else None
        seen = [m for m in msgs[start:before] if m.role == "user" and m.text_only]
        if copy is not None and copy.role == "user" and copy.text_only and seen and seen[-1].text == copy.text:
            found[copy.id] = COPY
            last = seen[-1]
            if last is msgs[before - 1] and not last.user_visible and not last.agent_visible:
                found[last.id] = HIDDEN_ORIGINAL
        start = i + 1
    return found
