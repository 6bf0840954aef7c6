"""Forked rollouts: where the copy of the parent's history ends.

What codex-rs writes (rollout/recorder.rs, core session init): a forked thread's file
starts with its own `session_meta` (with `forked_from_id`); then comes the parent's
history, persisted again as it was: the parent's own `session_meta` line first, then its
records (ghost snapshots dropped). Newer versions write a `fork_reference` record instead
of (or after) the copy. The rule used here, in order:

1. a `fork_reference` record: everything between our `session_meta` and it is copied; likewise
   a fork's leading `rollout_reference` (only `session_meta` records before it), which newer
   codex-rs writes for a full-history fork in place of the copy: the parent's history is in the
   file it names, not in this one;
2. the parent's rollout file can be found (same directory, or the `sessions/` tree it is
   in and the `archived_sessions/` folder beside it, where `codex` moves an archived
   thread, or the read root): the copy is the run of records equal (type and payload) to
   the parent's records in order; records Codex does not write again (`_NOT_COPIED`: ghost
   snapshots, event_msg, and what spawning a forked agent leaves out of its copy) may be
   missing from the copy; a developer message may be written anew in it; a record the
   harness marks inherited (`metadata.inherited_user_message`) is a copy whatever it holds;
3. otherwise the extent of the copy cannot be known: nothing is skipped and a warning
   says where the copy begins.

A leading `rollout_reference` that names the thread itself (`thread_id` its own id) is no
fork's copy: it is a paginated thread's new segment pointing back at its own previous one
(thread-store `rotate_thread_segment` clones the meta, `forked_from_id` included).

After a fork's reference, newer codex-rs (core `fork_thread`; rollout `segment_checkpoint.rs`)
writes a segment-state checkpoint so the child can be resumed without its parent's file: a
`compacted` record carrying `segment_state_checkpoint` (its `replacement_history` is the history
the fork inherited), then a full `world_state` and a `turn_context` when they were set (the
parent's baselines), then `thread_settings_applied` (the fork's own settings) and `token_count`
(the usage the fork's state was seeded with, its parent's). All but the settings restate what
the fork inherited: `restated` lists them, set aside like the copy; the settings are read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...evidence import Session
from ._read import LoadedFile, Rec
from ._twins import plain_twin


@dataclass(slots=True)
class ForkInfo:
    start: int  # index of the first record that belongs to this thread
    parent_id: str | None = None
    # "fork_reference" | "rollout_reference" | "parent_file" | "unresolved" | "history_before_meta"
    rule: str | None = None
    copied: int = 0
    parent_file: str | None = None  # parent rollout compared with, relative to this file's directory
    restated: frozenset[int] = frozenset()  # records of the checkpoint after the reference restating the parent's


FindParent = Callable[[str], LoadedFile | None]


def own_start(lf: LoadedFile, meta: Rec | None, session: Session, find_parent: FindParent) -> ForkInfo:
    recs = lf.recs
    if meta is None:
        return ForkInfo(0)
    first = meta.idx + 1
    for r in recs[first:]:
        if r.kind == "fork_reference":
            return ForkInfo(r.idx, _str(meta.payload.get("forked_from_id")), "fork_reference", r.idx - first)
    parent_id = _str(meta.payload.get("forked_from_id")) or _str(meta.payload.get("forked_from"))
    own_id = _str(meta.payload.get("id"))
    if parent_id is not None:
        for r in recs[first:]:
            # codex-rs accepts a reference only before any record of the thread's own; a later
            # one (or a segment's reference to its own predecessor) is not a fork's copy
            if r.kind == "rollout_reference":
                if own_id is not None and _str(r.payload.get("thread_id")) == own_id:
                    break  # the thread's own previous segment
                return ForkInfo(r.idx, parent_id, "rollout_reference", r.idx - first,
                                restated=restated_checkpoint(recs, r.idx + 1))
            if r.kind != "session_meta":
                break
    nxt = recs[first] if first < len(recs) else None
    copied_meta = nxt is not None and nxt.kind == "session_meta"
    if copied_meta and nxt is not None:
        parent_id = parent_id or _str(nxt.payload.get("id"))
    if parent_id is None or not copied_meta:
        return ForkInfo(first, parent_id)
    parent = find_parent(parent_id)
    if parent is not None:
        end = copied_end(recs, first, parent.recs)
        rel = os.path.relpath(parent.path, lf.path.parent)  # stable across machines
        return ForkInfo(end, parent_id, "parent_file", end - first, Path(rel).as_posix())
    session.warn(
        "fork_prefix_unresolved",
        f"forked from {parent_id}, whose rollout was not found: the copied history that starts "
        "here cannot be told apart from this thread's own records, so nothing was skipped",
        lf.source,
        recs[first].line,
    )
    session.quality.extra["fork_prefix_unresolved"] = 1
    return ForkInfo(first, parent_id, "unresolved")


# Records of the parent a copy may lack: events and ghost snapshots are never written again,
# and a forked agent's copy leaves out usage records, retained context, risk scores, realtime
# items and `agent_message` items (codex-rs core, spawning an agent with its full history)
_NOT_COPIED_KINDS = frozenset({"event_msg", "token_usage_record", "retained_context", "security_risk_score",
                               "realtime_item"})
_NOT_COPIED_ITEMS = frozenset({"ghost_snapshot", "agent_message"})


def _not_copied(p: Rec) -> bool:
    return p.kind in _NOT_COPIED_KINDS or (p.kind == "response_item" and p.sub in _NOT_COPIED_ITEMS)


def _developer(r: Rec) -> bool:
    return r.kind == "response_item" and r.sub == "message" and r.payload.get("role") == "developer"


def copied_end(child: list[Rec], start: int, parent: list[Rec]) -> int:
    i, j = start, 0
    while i < len(child) and j < len(parent):
        c, p = child[i], parent[j]
        if (c.kind == p.kind and c.payload == p.payload) or (_developer(c) and _developer(p)):
            i += 1  # the same record; or the instructions, which a fork may write anew
            j += 1
        elif _not_copied(p):
            j += 1
        elif c.harness is not None and c.harness.get("inherited_user_message") is True:
            i += 1  # the harness says it is the parent's, though the parent's file does not hold it so
        else:
            break
    return i


# The checkpoint's records after its `compacted` one, in the order Codex writes them
# (CertifiedSegmentStateCheckpoint::new); the world state and turn context only when set.
_FOOTER = (("world_state", None), ("turn_context", None), ("event_msg", "thread_settings_applied"),
           ("event_msg", "token_count"))
_OWN = ("event_msg", "thread_settings_applied")  # the fork's own settings, read


def restated_checkpoint(recs: list[Rec], at: int) -> frozenset[int]:
    """The records of a segment-state checkpoint starting at `at` that restate what a fork
    inherited; none when the record there is no checkpoint's `compacted` one."""
    first = recs[at] if at < len(recs) else None
    if first is None or first.kind != "compacted" or not isinstance(first.payload.get("segment_state_checkpoint"),
                                                                     dict):
        return frozenset()
    out, i = {at}, at + 1
    for kind, sub in _FOOTER:
        if i < len(recs) and recs[i].kind == kind and (sub is None or recs[i].sub == sub):
            if (kind, sub) != _OWN:
                out.add(i)
            i += 1
    return frozenset(out)


def candidate_paths(path: Path, thread_id: str, root: Path | None) -> list[Path]:
    """Rollout files that may hold a thread: its directory, the sessions tree, the archived
    sessions beside it, the root."""
    dirs = [path.parent]
    # ~/.codex/sessions/YYYY/MM/DD/file: the sessions tree is three levels up.
    if len(path.parents) > 3 and path.parents[2].name.isdigit():
        dirs += [path.parents[3], path.parents[3].parent / "archived_sessions"]
    # `codex` archives a thread by moving its file to ~/.codex/archived_sessions/ (flat)
    elif path.parent.name == "archived_sessions":
        dirs.append(path.parents[1] / "sessions")
    if root is not None and root.is_dir():
        dirs.append(root)
    seen: set[Path] = set()
    out: list[Path] = []
    for i, d in enumerate(dirs):
        pattern = f"*{thread_id}*.jsonl*"
        found = d.glob(pattern) if i == 0 else d.rglob(pattern)
        for p in sorted(found):
            # a compressed twin of a plain rollout is not the thread's file: Codex reads the plain one
            if p.is_file() and p != path and p not in seen and p.name.endswith((".jsonl", ".jsonl.zst")) \
                    and plain_twin(p) is None:
                seen.add(p)
                out.append(p)
    return out


def _str(v: object) -> str | None:
    return v if isinstance(v, str) and v else None
