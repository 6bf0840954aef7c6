"""What a rollout says twice, and what later records tell about earlier ones.

Codex mirrors model-visible items as UI events: an `event_msg` user_message follows the
`response_item` user message it repeats, agent_message / agent_reasoning come just before
the assistant message / reasoning item they repeat, context_compacted sits beside the
`compacted` record. The response item is preferred; an event_msg is used only when its
response item is absent. A pair is made when
  * the texts are equal and the two records are at most WINDOW records apart, or
  * the texts differ but the records are adjacent in Codex's order (sanitized logs replace
    both texts with different placeholders, and IDE-wrapped prompts differ from the typed
    words).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._activity import outcome_id, started_subagent
from ._read import Rec

WINDOW = 4

# event_msg type -> (what it mirrors, where that record is: +1 after, -1 before)
MIRRORS: dict[str, tuple[str, int]] = {
    "user_message": ("user", -1),
    "agent_message": ("assistant", 1),
    "agent_reasoning": ("summary", 1),
    "agent_reasoning_raw_content": ("content", 1),
}
END_EVENTS = frozenset({"exec_command_end", "patch_apply_end", "mcp_tool_call_end"})
COMPACTION_ITEMS = frozenset({"compaction", "compaction_summary", "context_compaction"})


@dataclass(slots=True)
class Index:
    mirrored: set[int] = field(default_factory=set)  # event_msg records that repeat an item
    typed: set[int] = field(default_factory=set)  # user messages an event_msg user_message confirms
    has_user_events: bool = False  # the file has event_msg user_message records at all
    has_abort_events: bool = False
    ends: dict[str, Rec] = field(default_factory=dict)  # call_id -> *_end event (or its completed turn item)
    web_search_ids: dict[int, str] = field(default_factory=dict)  # web_search_call idx -> id
    spawned: dict[str, str] = field(default_factory=dict)  # new thread id -> spawning call_id
    spawn_rules: dict[str, str] = field(default_factory=dict)  # new thread id -> the record kind that linked it


def item_texts(rec: Rec, what: str) -> list[str] | None:
    """The texts of a response item of the kind an event_msg mirrors, else None."""
    if rec.kind != "response_item":
        return None
    p = rec.payload
    if what in ("user", "assistant"):
        if rec.sub != "message" or p.get("role") != what:
            return None
        blocks = p.get("content")
    elif rec.sub == "reasoning":
        blocks = p.get(what)
    else:
        return None
    if not isinstance(blocks, list):
        return []
    return [b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]


def event_text(p: dict[str, Any]) -> str | None:
    v = p.get("message", p.get("text"))
    return v if isinstance(v, str) else None


def build_index(recs: list[Rec], start: int) -> Index:
    ix = Index()
    claimed: set[tuple[int, int]] = set()
    for rec in recs[start:]:
        if rec.kind != "event_msg":
            continue
        sub = rec.sub or ""
        if sub in MIRRORS:
            _pair(recs, rec, ix, claimed, start)
        elif sub in END_EVENTS and isinstance(rec.payload.get("call_id"), str):
            ix.ends[rec.payload["call_id"]] = rec
        elif sub == "web_search_end":
            _web_search(recs, rec, ix)
        elif sub == "collab_agent_spawn_end":
            new, call = rec.payload.get("new_thread_id"), rec.payload.get("call_id")
            if isinstance(new, str) and isinstance(call, str):
                ix.spawned[new], ix.spawn_rules[new] = call, "collab_agent_spawn_end"
        elif (started := started_subagent(rec)) is not None and started[0] not in ix.spawned:
            # multi-agent v2: the spawn tool's output names no thread; its activity does
            ix.spawned[started[0]], ix.spawn_rules[started[0]] = started[1], "sub_agent_activity"
        elif (call_id := outcome_id(rec)) is not None and call_id not in ix.ends:
            ix.ends[call_id] = rec  # paginated history: the call's completed item, in place of its end event
        elif sub == "turn_aborted":
            ix.has_abort_events = True
    return ix


def _pair(recs: list[Rec], e: Rec, ix: Index, claimed: set[tuple[int, int]], start: int) -> None:
    what, side = MIRRORS[e.sub or ""]
    if e.sub == "user_message":
        ix.has_user_events = True
    text = event_text(e.payload)
    order = [d * s for d in range(1, WINDOW + 1) for s in (side, -side)]
    for d in order:
        j = e.idx + d
        if not start <= j < len(recs):
            continue
        texts = item_texts(recs[j], what)
        if texts is None or text is None:
            continue
        for k, t in enumerate(texts):
            if t == text and (j, k) not in claimed:
                _mark(ix, e, j, k, claimed)
                return
    j = e.idx + side
    if start <= j < len(recs) and item_texts(recs[j], what) and (j, -1) not in claimed:
        _mark(ix, e, j, -1, claimed)


def _mark(ix: Index, e: Rec, j: int, k: int, claimed: set[tuple[int, int]]) -> None:
    claimed.add((j, k))
    claimed.add((j, -1))
    ix.mirrored.add(e.idx)
    if e.sub == "user_message":
        ix.typed.add(j)


def _web_search(recs: list[Rec], e: Rec, ix: Index) -> None:
    """A web_search_call item has no id in the rollout; the web_search_end event written
    just before it carries the id and the same action, which ties them exactly."""
    call = e.payload.get("call_id")
    if not isinstance(call, str):
        return
    for j in range(e.idx + 1, min(e.idx + 1 + WINDOW, len(recs))):
        r = recs[j]
        if r.kind == "response_item" and r.sub == "web_search_call":
            if r.payload.get("action") == e.payload.get("action") and j not in ix.web_search_ids:
                ix.web_search_ids[j] = call
            return


def compaction_mirror(recs: list[Rec], rec: Rec) -> bool:
    """Is this compaction record the twin of a `compacted` record beside it?"""
    for j in range(max(0, rec.idx - WINDOW), min(len(recs), rec.idx + WINDOW + 1)):
        r = recs[j]
        if j != rec.idx and r.kind == "compacted":
            return True
    return False
