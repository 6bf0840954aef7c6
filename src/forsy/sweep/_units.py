"""What a sweep has to do: which session files are unchanged, changed, new or gone, from
one stat per file and what the store remembers (nothing is read here but for discovery of
files the store has never seen)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ..store import FileState
from ._files import Stat, stat_path

Discover = Callable[[set[str]], tuple[dict[str, str], list[tuple[str, str]]]]
# the session file a source says a file is a part of (sources.walk.session_of), or None
SessionOf = Callable[[str], str | None]


@dataclass
class Unit:
    """A session file and the other files its sessions were read from (`members`)."""

    path: str
    # retried: unchanged, every file as remembered, but its last reading failed
    change: Literal["unchanged", "changed", "retried", "new"]
    members: list[str] = field(default_factory=list)
    source_kind: str | None = None
    failure: str | None = None  # it could not even be looked at (why)


@dataclass
class Plan:
    units: list[Unit]
    gone: list[str]  # remembered paths no longer on disk (to mark source_gone)
    unclaimed: set[str]  # files on disk that no session claims


def _same(s: FileState, st: Stat | None) -> bool:
    return st is not None and (s.dev, s.ino, s.size, s.mtime_ns) == (st.dev, st.ino, st.size, st.mtime_ns)


def _hidden(path: str, blocked: set[str]) -> bool:
    """Is `path` inside a folder the walk could not list, or itself a root that is not there
    (out of sight, not gone)?"""
    if path in blocked:
        return True
    d = os.path.dirname(path)
    while True:
        if d in blocked:
            return True
        parent = os.path.dirname(d)
        if parent == d:
            return False
        d = parent


def plan_units(on_disk: dict[str, Stat], known: dict[str, FileState], roots: list[str],
               discover: Discover, blocked: set[str] | None = None, session_of: SessionOf | None = None) -> Plan:
    """`blocked`: folders the walk could not list. The files remembered inside them are out of
    sight this run: neither gone nor changed, and their sessions wait for the folder.
    `session_of`: which session file a source says a new or changed file is a part of (a new
    event file of a conversation kept one file per event): that session has changed."""
    if blocked:
        known = {p: s for p, s in known.items() if p in on_disk or not _hidden(p, blocked)}
    by_unit: dict[str, list[FileState]] = {}
    for s in known.values():
        if s.unit_path:
            by_unit.setdefault(s.unit_path, []).append(s)
    units: dict[str, Unit] = {}
    gone: list[str] = []
    claimed: set[str] = set()
    stem_dirs: dict[str, str] = {}  # "<dir>/<session>" -> "<dir>/<session>.jsonl": its subagents live there
    for unit_path, rows in by_unit.items():
        main = known.get(unit_path)
        if main is None:
            continue  # member rows of a session file never remembered itself: found again below
        claimed.update(r.path for r in rows)
        if unit_path not in on_disk:
            if os.path.exists(unit_path):  # out of the walk's sight (reached through a link), not gone
                continue
            gone.extend(r.path for r in rows if r.status != "source_gone")
            continue
        members = sorted(r.path for r in rows if r.path != unit_path)
        # a file that failed is read again every run: the fault may have been forsy's, and an
        # upgrade fixes it while the file stays the same (Claude Code deletes it after 30 days)
        same = _same(main, on_disk[unit_path]) and all(
            _same(known[m], on_disk.get(m) or stat_path(m)) for m in members)
        change: Literal["unchanged", "changed", "retried"] = (
            "changed" if main.status == "source_gone" or not same
            else "retried" if main.status == "failed" else "unchanged")
        units[unit_path] = Unit(unit_path, change, members, main.source_kind)
        stem_dirs[unit_path.split(".jsonl")[0]] = unit_path
    gone += [p for p, s in known.items() if not s.unit_path and s.status != "source_gone" and p not in on_disk
             and not os.path.exists(p)]

    fresh = {p for p, st in on_disk.items()
             if p not in claimed and (p not in known or not _same(known[p], st))}
    attributed: set[str] = set()
    for p in sorted(fresh):
        owner = _owner(p, stem_dirs, roots)
        if owner is None and session_of is not None and (named := session_of(p)) in units:
            owner = named  # e.g. a new event file of a conversation (OpenHands), its state rewritten
        if owner is not None:  # e.g. a new subagent file of a known session
            u = units[owner]
            u.change = "changed" if u.change in ("unchanged", "retried") else u.change
            u.members = sorted({*u.members, p})
            attributed.add(p)
    rest = fresh - attributed
    mains: dict[str, str] = {}
    problems: list[tuple[str, str]] = []
    if rest:
        mains, problems = discover(rest)
    for p, kind in sorted(mains.items()):
        if p not in units and p not in claimed:
            units[p] = Unit(p, "new", [], kind)
    for p, why in problems:
        units.setdefault(p, Unit(p, "new", failure=why))
    unclaimed = rest - set(units)
    return Plan([units[k] for k in sorted(units)], gone, unclaimed)


def _owner(path: str, stem_dirs: dict[str, str], roots: list[str]) -> str | None:
    d = os.path.dirname(path)
    while d and d not in roots:
        if d in stem_dirs:
            return stem_dirs[d]
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return None
