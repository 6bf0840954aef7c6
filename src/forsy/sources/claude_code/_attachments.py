"""A person's turn of attachments and no words: an image or file sent without a caption (pasted
at the prompt, queued while the agent worked, sent from the Remote Control app, an SDK image
block). Claude Code writes the blocks alone, with no text block. The person still spoke: such a
turn is a `user` event, so the answers before and after it stay apart and the trace shows the
turn. No caption is made up: its text states what was there with the marker the reader already
uses for a block it does not copy (`[image omitted by forsy: image/png]`, as in a tool result),
one per block, flagged an excerpt, citing the blocks; `attachments_omitted` counts them.
"""

from __future__ import annotations

from typing import Any

from ...evidence import Event, Ref, pointer
from ...payloads import MessageInfo
from .._records import omitted_mark

ATTACHMENT_BLOCKS = ("image", "document")


def marker(block: dict[str, Any]) -> str:
    """The stated omission of one attachment block: its kind and the media type it names."""
    src = block.get("source")
    return omitted_mark(str(block.get("type")), src.get("media_type") if isinstance(src, dict) else None)


def attachment_indexes(blocks: Any) -> list[int]:
    """The indexes of the attachment blocks of a turn that holds nothing else a person says (no
    text with words, no tool result); [] for any other content. A blank text block is no words
    (the segmenter would set it aside), so it does not make the turn one of words."""
    if not isinstance(blocks, list):
        return []
    found = []
    for i, b in enumerate(blocks):
        if not isinstance(b, dict):
            continue
        kind = b.get("type")
        if kind in ATTACHMENT_BLOCKS:
            found.append(i)
        elif kind == "tool_result" or (kind == "text" and isinstance(b.get("text"), str) and b["text"].strip()):
            return []
    return found


def attachments_event(rec_id: str, blocks: list[Any], base: tuple[str, ...], at: list[int], ts: str | None,
                      abandoned: bool) -> Event:
    """The person's turn of the attachment blocks `at` of `blocks` (found under `base` in record `rec_id`)."""
    refs = [Ref(rec_id, pointer(*base, i)) for i in at]
    text = "\n".join(marker(blocks[i]) for i in at)
    return Event("user", "user", ts, refs, text=text, excerpt=True, abandoned=abandoned,
                 info=MessageInfo(attachments_omitted=len(at)))
