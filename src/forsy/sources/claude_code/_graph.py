"""The record graph of a Claude Code session: resume duplicates, the parentUuid chain, rewound branches."""

from __future__ import annotations

from typing import Any

from ...evidence import Session
from .._records import Record
from ._attachments import attachment_indexes
from ._events import classify_user_text
from ._senders import claude_code_prompt, other_sender, queued_by_person

# What a record says (as opposed to where and when it was written): a resumed session's
# replay of a record repeats these exactly.
_CONTENT_KEYS = ("type", "subtype", "message", "content", "toolUseResult", "data", "summary", "isMeta",
                 "isCompactSummary")


def _same_content(a: Record, b: Record) -> bool:
    return a.ev.sha256 == b.ev.sha256 or all(a.data.get(k) == b.data.get(k) for k in _CONTENT_KEYS)


def _dedupe(recs: list[Record], session: Session) -> list[Record]:
    seen: dict[str, Record] = {}
    out: list[Record] = []
    for r in recs:
        u = r.data.get("uuid")
        if isinstance(u, str):
            first = seen.get(u)
            if first is None:
                seen[u] = r
            elif _same_content(first, r):
                session.quality.duplicate_records += 1
                session.mark(r.ev.id, "duplicate", "resume replay of an earlier line")
                continue
            else:
                session.warn("uuid-reused", f"uuid {u!r} was already used at line {first.ev.line} by a record "
                             "with other content; both are kept", r.ev.source, r.ev.line)
        out.append(r)
    if session.quality.duplicate_records:
        session.warn("duplicate-records", f"{session.quality.duplicate_records} records repeated by uuid "
                     "(resumed session?) were read once", session.files[-1].path)
    return out


def _parent(d: dict[str, Any]) -> str | None:
    p = d.get("parentUuid") or d.get("logicalParentUuid")
    return p if isinstance(p, str) else None


def _is_typed(d: dict[str, Any]) -> bool:
    """A record holding words the person typed (not a tool result, not injected, not sent by
    another sender): a user record, or a prompt queued while the agent worked."""
    if d.get("type") == "attachment":
        return queued_by_person(d)
    if (d.get("type") != "user" or d.get("isMeta") or d.get("isCompactSummary") or other_sender(d)
            or claude_code_prompt(d)):
        return False
    c = (d.get("message") or {}).get("content") if isinstance(d.get("message"), dict) else None
    if isinstance(c, str):
        return classify_user_text(c)[0] in ("typed", "slash-command", "bash-input")
    if isinstance(c, list):
        return bool(attachment_indexes(c)) or any(  # a turn of images alone is the person's too
            isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
            and classify_user_text(b["text"])[0] in ("typed", "slash-command", "bash-input")
            for b in c
        )
    return False


def _roots(by_uuid: dict[str, Record]) -> dict[str, str]:
    """Each uuid's root: its farthest ancestor by parent links inside `by_uuid` (a loop's
    root is the record where the walk closed it). Linear: every uuid is walked once, each
    walk ending at a uuid whose root is already known."""
    root_of: dict[str, str] = {}
    for start in by_uuid:
        chain: list[str] = []
        on_chain: set[str] = set()
        u = start
        while u not in root_of:
            chain.append(u)
            on_chain.add(u)
            p = _parent(by_uuid[u].data)
            if p is None or p not in by_uuid or p in on_chain:
                break
            u = p
        r = root_of.get(u, u)
        for c in chain:
            root_of[c] = r
    return root_of


def _abandoned(main: list[Record], session: Session, withdrawn: set[str] | None = None) -> set[str]:
    """uuids of records on branches the user rewound away from. A record Claude Code `withdrawn`
    itself (a refused answer, read by the event builder as the refused call's) is off the path for
    that reason, not a rewind: it starts no rewound branch (unless it hangs off one), so a notice
    chained to it is not taken for one either."""
    by_uuid: dict[str, Record] = {}
    for r in main:  # a uuid reused with other content: the graph follows its first record
        if isinstance(r.data.get("uuid"), str):
            by_uuid.setdefault(r.data["uuid"], r)
    leaf = next((r for r in reversed(main) if r.data.get("type") in ("user", "assistant")
                 and isinstance(r.data.get("uuid"), str)), None)
    if leaf is None:
        return set()
    path: set[str] = set()
    cur: Record | None = leaf
    while cur is not None and cur.data["uuid"] not in path:
        path.add(cur.data["uuid"])
        p = _parent(cur.data)
        cur = by_uuid.get(p) if p else None
    root_of = _roots(by_uuid)
    leaf_root = root_of[leaf.data["uuid"]]
    path_msgs = {(r.data.get("message") or {}).get("id") for r in main
                 if r.data.get("uuid") in path and r.data.get("type") == "assistant"}
    on_path = [r for r in main if r.data.get("uuid") in path
               or (r.data.get("type") == "assistant" and (r.data.get("message") or {}).get("id") in path_msgs)]
    path_calls = _calls_of(on_path)
    abandoned: set[str] = set()
    for r in main:
        u = r.data.get("uuid")
        if not isinstance(u, str) or u in path or r.data.get("type") not in ("user", "assistant", "system",
                                                                               "attachment"):
            continue
        if root_of[u] != leaf_root:
            continue  # another tree (a continued session): not a rewind
        p = _parent(r.data)
        d = r.data
        if withdrawn and u in withdrawn and p not in abandoned:
            continue
        if p in abandoned or _is_typed(d):
            abandoned.add(u)
        elif d.get("type") == "assistant" and (d.get("message") or {}).get("id") not in path_msgs:
            abandoned.add(u)
        elif d.get("type") == "user" and _result_ids(d) and not _result_ids(d) <= path_calls:
            abandoned.add(u)
    if abandoned:
        session.warn("abandoned-branch", f"{len(abandoned)} records are on branches the user rewound away from; "
                     "they are kept and marked abandoned", session.files[-1].path)
    return abandoned


def _calls_of(recs: list[Record]) -> set[str]:
    out: set[str] = set()
    for r in recs:
        c = (r.data.get("message") or {}).get("content") if isinstance(r.data.get("message"), dict) else None
        if isinstance(c, list):
            out.update(str(b.get("id")) for b in c if isinstance(b, dict) and b.get("type") == "tool_use")
    return out


def _result_ids(d: dict[str, Any]) -> set[str]:
    c = (d.get("message") or {}).get("content") if isinstance(d.get("message"), dict) else None
    if not isinstance(c, list):
        return set()
    return {str(b.get("tool_use_id")) for b in c if isinstance(b, dict) and b.get("type") == "tool_result"}
