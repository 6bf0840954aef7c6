"""The record graph of a Qwen Code session file: repeated records, the `parentUuid` chain, the
branches a rewind left.

Qwen Code reads its own file back the same way (services/sessionService.ts
`reconstructHistory`, utils/conversation-chain.ts `buildOrderedUuidChain`): the history is the
chain of `parentUuid` links from the last record of the file to a root. A `/rewind`
(chatRecordingService.ts `rewindRecording`) points the next record's parent back at the record
before the turn it rewinds to, so the turns after that point are left off the chain. Records
written beside the chain on purpose (`updateActiveTail: false`: a title or a session source
written again, artifact records) are metadata and carry no work. A chain that meets a parent the
file does not hold (a lost stretch of the file) is joined to the newest earlier stretch that is
not yet on it, as Qwen Code does, and said; a `rewind` record with a missing parent ends it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...evidence import Session
from .._records import Record

REPEAT_WHY = "the same record written again (same uuid, same bytes)"


def _uuid(d: dict[str, Any]) -> str | None:
    u = d.get("uuid")
    return u if isinstance(u, str) and u else None


def _parent(d: dict[str, Any]) -> str | None:
    p = d.get("parentUuid")
    return p if isinstance(p, str) and p else None


@dataclass
class Graph:
    records: list[Record]  # the records to read, in file order (repeats dropped)
    off_chain: set[str] = field(default_factory=set)  # evidence ids of records off the chain
    rewound: bool = False  # a rewind record is on the chain


def dedupe(recs: list[Record], s: Session) -> list[Record]:
    """Records in file order, a record written again byte for byte (same uuid) marked as a
    duplicate and dropped; one with other content under the same uuid is kept (Qwen Code's
    loader merges their parts: `aggregateRecords`) and said."""
    seen: dict[str, Record] = {}
    out: list[Record] = []
    for r in recs:
        u = _uuid(r.data)
        first = seen.get(u) if u else None
        if u is not None and first is None:
            seen[u] = r
        elif first is not None and first.ev.sha256 == r.ev.sha256:
            s.quality.duplicate_records += 1
            s.mark(r.ev.id, "duplicate", REPEAT_WHY)
            continue
        elif first is not None:
            s.warn("uuid-reused", f"uuid {u!r} was already used at line {first.ev.line} by a record with other "
                   "content; both are read (Qwen Code joins their parts)", r.ev.source, r.ev.line)
        out.append(r)
    return out


def chain(recs: list[Record], s: Session) -> Graph:
    """Which records are off the chain from the last record (module docstring)."""
    g = Graph(recs)
    main = [(i, r) for i, r in enumerate(recs) if _uuid(r.data) and not r.data.get("isSidechain")]
    if not main:
        return g
    first: dict[str, Record] = {}
    pos: dict[str, int] = {}
    for i, r in main:
        u = _uuid(r.data)
        assert u is not None
        first.setdefault(u, r)
        pos[u] = i
    comp: dict[str, int] | None = None
    used: set[int] = set()
    path: list[str] = []
    seen: set[str] = set()
    cur: str | None = _uuid(main[-1][1].data)
    while cur is not None and cur not in seen:
        seen.add(cur)
        path.append(cur)
        rec = first[cur]
        parent = _parent(rec.data)
        if parent is None:
            break
        if parent in first:
            cur = parent
            continue
        if rec.data.get("subtype") == "rewind":
            break  # a rewind's parent lost: the turns before it were rewound away, not lost
        if comp is None:
            comp = _components(first)
            used.add(comp[path[0]])
        target = _stitch(main, comp, used, pos[cur])
        s.warn("history-gap", f"record {cur!r} names a parent ({parent!r}) the file does not hold: a part of the "
               "session is missing" + (f"; joined to the record {target!r} before it, as Qwen Code does" if target
                                       else ""), rec.ev.source, rec.ev.line)
        s.quality.extra["history_gaps"] = s.quality.extra.get("history_gaps", 0) + 1
        if target is None:
            break
        used.add(comp[target])
        cur = target
    on = set(path)
    for _, r in main:
        u = _uuid(r.data)
        if u not in on:
            g.off_chain.add(r.ev.id)
        elif r.data.get("type") == "system" and r.data.get("subtype") == "rewind":
            g.rewound = True
    return g


def _components(first: dict[str, Record]) -> dict[str, int]:
    """Each uuid's connected part of the file: records joined by parent links the file holds."""
    up: dict[str, str] = {u: u for u in first}

    def find(x: str) -> str:
        while up[x] != x:
            up[x] = up[up[x]]
            x = up[x]
        return x

    for u, r in first.items():
        p = _parent(r.data)
        if p is not None and p in first:
            a, b = find(u), find(p)
            if a != b:
                up[a] = b
    ids: dict[str, int] = {}
    return {u: ids.setdefault(find(u), len(ids)) for u in first}


def _stitch(main: list[tuple[int, Record]], comp: dict[str, int], used: set[int], before: int) -> str | None:
    """The newest record before file position `before` in a part not on the chain yet."""
    for i, r in reversed(main):
        u = _uuid(r.data)
        if i < before and u is not None and comp[u] not in used:
            return u
    return None
