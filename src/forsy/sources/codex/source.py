"""Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl[.zst]`) → `Session`s.

The three formats Codex has written are read: the `{timestamp, type, payload}` envelope
(session_meta, response_item, event_msg, turn_context, compacted, ...), the earlier bare
format (first line `{id, timestamp, instructions}`, bare items, `{"record_type": "state"}`
lines), and the TypeScript CLI's `rollout-*.json` document `{session, items}` (`_legacy`).
The reading rules live in these modules:

* `_codex_read`: lines, evidence, damage (bad JSON, truncated last line, invalid UTF-8);
* `_codex_index`: event_msg records that repeat a response item (never emitted twice);
* `_codex_fork`: where a forked thread's copy of its parent's history ends;
* `_codex_tools`: calls and results, exit codes, the error flag;
* `_codex_build`: one thread → events and session facts.

`discover` on a home folder or on Codex's own (`~/.codex`) looks in its `sessions/` and in
`archived_sessions/` (where `codex` moves an archived thread's file), not the whole tree. A
`.jsonl.zst` beside its plain `.jsonl` is that rollout again (`_twins`): Codex reads the plain
file, so forsy does too, and names the compressed one as a copy set aside.

Subagents: a thread spawned by another has its own file whose `session_meta.source` is
`{"subagent": {"thread_spawn": {"parent_thread_id": ...}}}`. Reading a parent also reads
the subagent files in its directory and in the next day's (spawned after midnight:
`day_folders`), recursively; one further away is read on its own, one that cannot be read
is warned; their events get actor
`subagent:<thread id>` and are merged into the parent's events by timestamp, each file
keeping its own order. The first event of a subagent carries `link.parent_call_id`
only when Codex recorded the spawning call exactly: a `collab_agent_spawn_end` event or a
`spawn_agent` output naming the thread, or the spawn output Codex writes into a forked
child.

Headless runs: what `codex exec --json` prints on stdout (`thread.started`, `turn.*`,
`item.*`, `error`), saved as it came by a CI job or a benchmark harness, is read by
`_exec_json` (its docstring says what the writer emits and what forsy makes of it): one
session per thread id, the thread's rollout id. `sniff` and `read` take it when the first
records are that stream's events, which a rollout's never are (they have an envelope).
"""

from __future__ import annotations

from datetime import date, timedelta
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, ClassVar

import orjson

from ...errors import InputError
from ...evidence import Session, SessionMeta
from ...payloads import Link, NoteInfo
from .. import ReadContext
from .._side import why
from .._threads import add_subagent, interleave, link_thread
from ..base import read_head
from ..lines import open_regular, source_name
from ..listing import files_below, unread
from . import _drift
from ._build import Thread, ThreadBuilder
from ._exec_json import is_exec_stream, read_exec_stream
from ._fork import candidate_paths
from ._ledger import mark_thread
from ._legacy import is_legacy, load_json_rollout
from ._read import LoadedFile, head_text, load_file
from ._twins import compared, plain_twin, set_aside_why

SUFFIXES = (".jsonl", ".jsonl.zst")
PATTERNS = ("rollout-*.jsonl", "rollout-*.json", "*.jsonl.zst")
HEAD_LIMIT = 8 << 20  # a session_meta line longer than this is not looked for
EXEC_HEAD = 4096  # a stream's first event (thread.started) is one short line


class CodexSource:
    name: ClassVar[str] = "codex"
    searches_below: ClassVar[bool] = True  # its discover(dir) looks in every folder below (sources.walk)

    # ------------------------------------------------------------------ sniff
    def sniff(self, path: Path, head: bytes) -> bool:
        if is_legacy(head) or is_exec_stream(head):
            return True
        first = _first_line(head_text(path, head))
        if not first.startswith(b"{"):
            return False
        try:
            d = orjson.loads(first)
        except orjson.JSONDecodeError:
            # A first line longer than the head: recognise the envelope by its opening, or the
            # bare format's header ({"id", "timestamp", ..., "instructions"}: the long member).
            if first.startswith(b'{"id":'):
                return b'"timestamp":' in first[:200] and b'"instructions":' in first
            return first.startswith(b'{"timestamp":') and b'"type":"session_meta"' in first[:200]
        if not isinstance(d, dict):
            return False
        if d.get("type") == "session_meta" and isinstance(d.get("payload"), dict):
            return True
        bare = "type" not in d and "id" in d and "timestamp" in d
        return bare and ("instructions" in d or path.name.startswith("rollout-"))

    # --------------------------------------------------------------- discover
    def discover(self, path: Path) -> list[Path]:
        if path.is_file():
            return [path] if self._is_rollout(path) else []
        if not path.is_dir():
            return []
        # a home folder (~) or Codex's own folder (~/.codex): its sessions and the ones archived
        # (moved by `codex` to archived_sessions/), not the whole tree
        home = path / ".codex" if (path / ".codex").is_dir() else path if path.name == ".codex" else None
        roots = [r for r in (home / "sessions", home / "archived_sessions") if r.is_dir()] if home else []
        listed = [p for r in roots or [path] for p in files_below(r, (*PATTERNS, "*.jsonl"))]
        found = {p for p in listed if any(fnmatchcase(p.name, pat) for pat in PATTERNS) and p.is_file()}
        # a headless run's saved stream has no name of Codex's own: any .jsonl whose events are its
        found |= {p for p in listed if p not in found and p.name.endswith(".jsonl") and _is_exec_file(p)}
        # a compressed twin of a plain rollout beside it is passed over, as Codex does, and named
        for p in sorted(found):
            if (plain := plain_twin(p)) is not None:
                found.discard(p)
                unread(p, set_aside_why(p, plain))
        rollouts = sorted(p for p in found if self._is_rollout(p))
        heads = {p: _head_meta(p) for p in rollouts}
        ids = {(d, str(h.get("id"))) for p, h in heads.items() if h.get("id") for d in day_folders(p.parent)}
        # A subagent whose parent is in its folder, or in the day's before (spawned after
        # midnight), is read with its parent (`_Reader.children` looks in both), not on its
        # own; one elsewhere (its parent archived, or further back) is read on its own.
        return [p for p in rollouts if (p.parent, _parent_of(heads[p])) not in ids]

    def _is_rollout(self, path: Path) -> bool:
        try:
            with open_regular(path) as f:
                head = f.read(65536)
        except (InputError, OSError):
            return False
        return self.sniff(path, head)

    # ------------------------------------------------------------------- read
    def read(self, path: Path, ctx: ReadContext) -> list[Session]:
        if is_exec_stream(read_head(path)):
            return read_exec_stream(path, ctx)
        session = Session("codex", "", [], {}, [], SessionMeta(agent="codex-cli"))
        reader = _Reader(session, ctx)
        main = reader.thread(path)
        if (plain := plain_twin(path)) is not None:  # named by the user: read, but not as Codex would
            held, _ = compared(path, plain)
            session.warn("compressed_twin", f"a compressed copy of {plain.name}, beside it{held}: read as "
                         "named, though Codex reads the plain file when both are there", main.lf.source)  # fmt: skip
        session.session_id = main.thread_id
        session.meta = main.meta
        session.meta.extra["actor"] = main.actor
        if main.lf.decompressed:
            session.meta.extra["decompressed"] = True
        streams = [main.events]
        for child, parent in reader.children(main):
            streams.append(child.events)
            _link(session.meta, child, parent)
        session.events = interleave(streams) if len(streams) > 1 else main.events
        session.files = [t.lf.file for t in reader.threads]
        for t in reader.threads:
            mark_thread(session, t)
            _drift.count(session, t.lf)
        return [session]


class _Reader:
    """Reads the threads of one session, sharing its evidence, quality and warnings."""

    def __init__(self, session: Session, ctx: ReadContext) -> None:
        self.session, self.ctx = session, ctx
        self.threads: list[Thread] = []
        self.paths: set[Path] = set()
        self.unlisted: set[Path] = set()  # folders and files beside it that could not be read, named once

    def thread(self, path: Path) -> Thread:
        if path.name.endswith(".json"):  # the TypeScript CLI's {session, items} document
            lf = load_json_rollout(path, source_name(path, self.ctx.root), self.session, self.ctx.limits)
        else:
            lf = load_file(path, source_name(path, self.ctx.root), self.session, self.ctx.limits)
        self.paths.add(path.resolve())
        t = ThreadBuilder(lf, self.session, self._find_parent(path, lf.source)).build()
        self.threads.append(t)
        return t

    def _find_parent(self, path: Path, source: str) -> Any:
        def find(thread_id: str) -> LoadedFile | None:
            for p in candidate_paths(path, thread_id, self.ctx.root):
                if _head_meta(p).get("id") == thread_id:
                    # Read into a scratch session: only compared, never cited.
                    scratch = Session("codex", thread_id, [], {}, [], SessionMeta())
                    try:
                        return load_file(p, p.name, scratch, self.ctx.limits)
                    except (InputError, OSError) as e:  # the fork is read all the same
                        self.session.warn("fork_parent_unreadable", f"{p.name} (thread {thread_id}) could not "
                                          f"be read to compare with: {why(e)}", source)  # fmt: skip
            return None

        return find

    def children(self, parent: Thread) -> list[tuple[Thread, Thread]]:
        out: list[tuple[Thread, Thread]] = []
        for p in sorted(self._beside(parent)):
            if p.resolve() in self.paths or not p.name.endswith(SUFFIXES) or not p.is_file():
                continue
            if (plain := plain_twin(p)) is not None:  # Codex reads the plain file: that one is read
                if p not in self.unlisted and _parent_of(_head_meta(p)) == parent.thread_id:
                    self.unlisted.add(p)
                    self.session.warn("compressed_twin", f"{p.name}, a subagent's rollout beside it, not read: "
                                      f"{set_aside_why(p, plain)}", parent.lf.source)  # fmt: skip
                continue
            head = _head_meta(p)
            if not head and (reason := _unreadable(p)) is not None:
                # it may be a subagent of this session (its first line says whose): named, once
                if p not in self.unlisted:
                    self.unlisted.add(p)
                    self.session.warn("rollout_unreadable", f"{p.name}, beside it, could not be read ({reason}): "
                                      "a subagent's thread there would not be here", parent.lf.source)
                continue
            if _parent_of(head) == parent.thread_id:
                try:
                    child = self.thread(p)
                except (InputError, OSError) as e:  # its parent is read all the same, and says so
                    said = f"subagent thread {head.get('id')} could not be read, its events are not here: {why(e)}"
                    self.session.warn("subagent_unreadable", said, source_name(p, self.ctx.root))
                    continue
                out.append((child, parent))
                out.extend(self.children(child))
        return out

    def _beside(self, thread: Thread) -> list[Path]:
        """The entries of the folders `thread`'s subagents are looked for in. A folder that may not
        be listed is named once (a subagent's work there is not in the trace); the thread itself
        is read all the same."""
        found: list[Path] = []
        for d in day_folders(thread.lf.path.parent):
            try:
                found.extend(d.iterdir())
            except OSError as e:
                if d not in self.unlisted:
                    self.unlisted.add(d)
                    dated = d != thread.lf.path.parent  # the next day's: named as codex's tree does
                    name = "/".join(d.parts[-3:]) if dated else d.name
                    self.session.warn("subagent_folder_unreadable", f"folder {name}/ could not be listed for "
                                      f"the subagents of thread {thread.thread_id}: {why(e)}",
                                      thread.lf.source)  # fmt: skip
        return found


def _link(meta: SessionMeta, child: Thread, parent: Thread) -> None:
    call_id, rule = parent.spawned.get(child.thread_id), parent.spawn_rules.get(child.thread_id)
    if call_id is None and child.spawn_marker in parent.call_ids:
        call_id, rule = child.spawn_marker, "forked_spawn_output"
    for ev in child.events:
        if isinstance(ev.info, NoteInfo) and ev.info.subtype == "subagent_input" and ev.actor == "agent":
            ev.actor = parent.actor
    link_thread(child.events, child.actor, Link(parent_thread_id=parent.thread_id, parent_call_id=call_id,
                                                link_rule=rule if call_id is not None else None))
    add_subagent(
        meta, child.meta.models,
        {
            "id": child.thread_id,
            "actor": child.actor,
            "file": child.lf.source,
            "kind": child.subagent,
            "parent_thread_id": parent.thread_id,
            "parent_call_id": call_id,
            "link_rule": rule if call_id else None,
            "nickname": child.meta.extra.get("agent_nickname"),
            "role": child.meta.extra.get("agent_role"),
            "models": child.meta.models,
            "token_usage": child.meta.token_usage,
            "agent_version": child.meta.agent_version,
            "context": child.meta.extra.get("context", []),
        }
    )


def _is_exec_file(path: Path) -> bool:
    """Whether a file is a saved `codex exec --json` stream (its first line, short, says so)."""
    try:
        with open_regular(path) as f:
            return is_exec_stream(f.read(EXEC_HEAD))
    except (InputError, OSError):
        return False


def _unreadable(path: Path) -> str | None:
    """Why the file `path` may not be read; None when it may."""
    try:
        with open_regular(path) as f:
            f.read(1)
    except (InputError, OSError) as e:
        return why(e)
    return None


def _first_line(text: bytes) -> bytes:
    text = text.lstrip(b"\xef\xbb\xbf \t\r\n")
    end = text.find(b"\n")
    return (text if end < 0 else text[:end]).rstrip(b"\r")


def _read_first_line(path: Path) -> bytes:
    """The first line of a (maybe zstd) rollout, reading no further than it ends."""
    try:
        with open_regular(path) as f:
            data = b""
            while len(data) < HEAD_LIMIT:
                chunk = f.read(65536)
                data += chunk
                if not chunk or b"\n" in head_text(path, data):
                    break
    except (InputError, OSError):
        return b""
    return _first_line(head_text(path, data))


def day_folders(folder: Path) -> list[Path]:
    """The folders a thread's subagents are looked for in: its own and, in codex's dated layout
    (sessions/YYYY/MM/DD, the day the thread began, local time), the next day's, which holds a
    subagent spawned after midnight (only when it exists)."""
    try:
        day = date(int(folder.parent.parent.name), int(folder.parent.name), int(folder.name))
    except ValueError:
        return [folder]
    if not (len(folder.parent.parent.name) == 4 and len(folder.parent.name) == len(folder.name) == 2):
        return [folder]
    nxt = day + timedelta(days=1)
    after = folder.parent.parent.parent / f"{nxt.year:04d}" / f"{nxt.month:02d}" / f"{nxt.day:02d}"
    try:
        return [folder, after] if after.is_dir() else [folder]
    except OSError:  # a folder that may not be looked into: kept, so the reader names it
        return [folder, after]


def _head_meta(path: Path) -> dict[str, Any]:
    """The session_meta payload (or bare header) of a rollout, from its first line."""
    try:
        d = orjson.loads(_read_first_line(path))
    except orjson.JSONDecodeError:
        return {}
    if not isinstance(d, dict):
        return {}
    p = d.get("payload") if d.get("type") == "session_meta" else d if "type" not in d else None
    return p if isinstance(p, dict) else {}


def _parent_of(meta: dict[str, Any]) -> str | None:
    src = meta.get("source")
    sub = src.get("subagent") if isinstance(src, dict) else None
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    parent = (spawn.get("parent_thread_id") if isinstance(spawn, dict) else None) or meta.get("parent_thread_id")
    return parent if isinstance(parent, str) else None
