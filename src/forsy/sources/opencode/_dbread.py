"""The sessions of OpenCode's database (`_db`): each main session with its subagents' sessions,
as the JSON storage's are read (`_subagents`)."""

from __future__ import annotations

from pathlib import Path

from ...evidence import Session
from .. import ReadContext
from .._side import unreadable
from .._sqlite import WAL_MISSING
from . import _layout
from ._db import DbReader
from ._subagents import read_subagents


def read_db(db: Path, ctx: ReadContext) -> list[Session]:
    """Every session of the database no other session ran (a subagent's is read with its
    parent's), in id order. A session the JSON storage beside it holds too is read from here
    only: json-migration.ts copied it once and left the files, which OpenCode no longer writes."""
    r = DbReader(db, ctx)
    storage = db.parent / "storage"
    copies = storage if _layout.is_storage(storage) else None
    out: list[Session] = []
    for sid in r.tops():
        top = r.thread(sid, "agent", None)
        read_subagents(top, r.children, lambda cid, up: r.thread(cid, f"subagent:{cid}", up))
        s = top.session
        if copies is not None and _layout.session_file(copies, sid) is not None:
            s.warn("json-copy", f"OpenCode's JSON storage beside the database (storage/session/*/{sid}.json) holds "
                   "this session too, as json-migration.ts copied it: read from the database only, which "
                   "OpenCode writes since", r.name("session", sid), None)
        out.append(s)
    for s in out if r.wal else []:
        unreadable(s, r.src, f"{r.src}-wal", r.wal[0], WAL_MISSING)
    return out  # none when OpenCode made the database and no session yet
