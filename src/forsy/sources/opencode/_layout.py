"""Where OpenCode keeps a session's files, and which session a file of its storage belongs to.

The storage folder (`<data>/storage`, `<data>` being `$XDG_DATA_HOME/opencode`, else
`~/.local/share/opencode`) holds one JSON file per item, named by the item's id:

    session/<project id>/<session id>.json     the session's info (a subagent's too: `parentID`)
    message/<session id>/<message id>.json     a message's info
    part/<message id>/<part id>.json           a part of a message (text, a tool call, ...)

and, beside them, `project/<project id>.json`, `session_diff/<session id>.json`,
`todo/<session id>.json`, `share/<session id>.json`, `permission/<project id>.json`: the
project's and the sessions' state, not their work. A subagent's session is in its parent's
project folder (the task tool creates it in the same project). Messages and parts are evidence
under `SCHEME` (their path in the storage folder), read back by `read_back` from any folder
of the storage given to `forsy verify`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path

import orjson

from ...errors import InputError
from ..lines import inside, open_regular

SCHEME = "opencode-storage:"
STORAGE_KINDS = ("session", "message", "part")
# files of a session's state kept under its id, and of a project's under the project's id
SESSION_STATE = ("session_diff", "todo", "share", "session_share")
PROJECT_STATE = ("project", "permission")
DATA_DIR = (".local", "share", "opencode")  # xdg-basedir's data folder, under the home folder
MAX_CHAIN = 64  # subagents of subagents: a parent chain longer than this is a cycle


def is_storage(d: Path) -> bool:
    """A folder laid out as OpenCode's storage: `session/` and `message/` or `part/` in it."""
    try:
        return (d / "session").is_dir() and ((d / "message").is_dir() or (d / "part").is_dir())
    except OSError:
        return False


def storage_at(d: Path) -> Path | None:
    """The storage folder `d` is, holds (a data folder, a home folder) or is a kind folder of."""
    for cand in (d, d / "storage", d.joinpath(*DATA_DIR, "storage")):
        if is_storage(cand):
            return cand
    if d.name in STORAGE_KINDS and is_storage(d.parent):
        return d.parent
    return None


def storage_near(root: Path) -> Path | None:
    """The storage folder a root given to `forsy verify` is in or holds: the storage, the data or
    home folder holding it, a kind folder, or a folder in one (a session file's project folder)."""
    found = storage_at(root)
    if found is None and root.parent.name in (*STORAGE_KINDS, *SESSION_STATE) and is_storage(root.parent.parent):
        found = root.parent.parent
    return found


def storage_of(session_file: Path) -> Path | None:
    """The storage folder of a session's info file (`<storage>/session/<project>/<id>.json`)."""
    folder = session_file.parent
    return folder.parent.parent if folder.parent.name == "session" and is_storage(folder.parent.parent) else None


def evidence_name(storage: Path, path: Path) -> str:
    """A message's or part's file as evidence names it: its place in the storage folder."""
    return SCHEME + path.relative_to(storage).as_posix()


def read_back(name: str, roots: Sequence[Path]) -> bytes | None:
    """The file an `evidence_name` names, under the storage folder of one of `roots`; never a
    file outside that storage's message and part folders."""
    rel = name.removeprefix(SCHEME)
    if rel == name or rel.split("/", 1)[0] not in ("message", "part") or ".." in rel.split("/"):
        return None
    for root in roots:
        storage = storage_near(root.resolve())
        p = inside(storage, rel) if storage is not None else None
        if p is not None and p.is_file():
            return p.read_bytes()
    return None


def head_object(path: Path, limit: int = 1 << 16) -> dict[str, object]:
    """The JSON object of a small file (a session's info, a part), or empty when it is none."""
    try:
        with open_regular(path) as f:
            data = f.read(limit + 1)
        value = orjson.loads(data.removeprefix(b"\xef\xbb\xbf")) if len(data) <= limit else None
    except (InputError, OSError, orjson.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def _folder_stamp(folder: Path) -> int | None:
    try:
        return folder.stat().st_mtime_ns  # a session added or removed changes it
    except OSError:
        return None


def parents(folder: Path) -> dict[str, str | None]:
    """Each session of a project folder (its id: the file's name) and the session it is a
    subagent of (`parentID`), or None. Read once while the folder is unchanged: asked of every
    file of a storage folder, the walk and the sweep would read them all again for each."""
    stamp = _folder_stamp(folder)
    return dict(_parents(str(folder), stamp)) if stamp is not None else {}


@functools.lru_cache(maxsize=64)
def _parents(folder: str, stamp: int) -> tuple[tuple[str, str | None], ...]:
    out: list[tuple[str, str | None]] = []
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".json") and e.is_file())
    except OSError:
        return ()
    for n in names:
        parent = head_object(Path(folder) / n).get("parentID")
        out.append((n[: -len(".json")], parent if isinstance(parent, str) and parent else None))
    return tuple(out)


def top_of(folder: Path, sid: str) -> str:
    """The session a subagent's session is read with: up its parents while their files are in
    the folder (a chain that loops stops where it would)."""
    known = parents(folder)
    seen = {sid}
    while (up := known.get(sid)) is not None and up in known and up not in seen and len(seen) < MAX_CHAIN:
        seen.add(up)
        sid = up
    return sid


def children(folder: Path, sid: str) -> list[Path]:
    """The session files of a project folder whose `parentID` is `sid`, in name order."""
    return [folder / f"{c}.json" for c, p in parents(folder).items() if p == sid]


def is_top(path: Path) -> bool:
    """A session file read as a session of its own: no parent, or a parent not in its folder."""
    return top_of(path.parent, path.stem) == path.stem


def session_file(storage: Path, sid: str) -> Path | None:
    """The info file of session `sid` in the storage folder (its project folder is not known)."""
    try:
        projects = sorted(p for p in (storage / "session").iterdir() if p.is_dir())
    except OSError:
        return None
    return next((f for p in projects if (f := p / f"{sid}.json").is_file()), None)


def _message_session(storage: Path, part: Path) -> str | None:
    """The session a part's message belongs to: the part's own `sessionID` when the message's
    file is there, else the session folder holding the message's file."""
    msg = part.parent.name
    sid = head_object(part).get("sessionID")
    if isinstance(sid, str) and sid and (storage / "message" / sid / f"{msg}.json").is_file():
        return sid
    try:
        return next((d.name for d in (storage / "message").iterdir() if (d / f"{msg}.json").is_file()), None)
    except OSError:
        return None


def session_of(path: Path) -> Path | None:
    """The top session file a file of OpenCode's storage belongs to (a message, a part, a
    subagent's session, a session's or project's state), or None (a top session itself, or no
    file of OpenCode's storage)."""
    if path.suffix != ".json":
        return None
    kind, storage = path.parent.parent.name, path.parent.parent.parent
    if kind in STORAGE_KINDS and is_storage(storage):
        if kind == "session":
            top = top_of(path.parent, path.stem)
            return path.parent / f"{top}.json" if top != path.stem else None
        sid = path.parent.name if kind == "message" else _message_session(storage, path)
        found = session_file(storage, sid) if sid else None
        return found.parent / f"{top_of(found.parent, found.stem)}.json" if found is not None else None
    kind, storage = path.parent.name, path.parent.parent
    if kind in SESSION_STATE and is_storage(storage):
        found = session_file(storage, path.stem)
        return found.parent / f"{top_of(found.parent, found.stem)}.json" if found is not None else None
    if kind in PROJECT_STATE and is_storage(storage):
        folder = storage / "session" / path.stem
        tops = [c for c, p in parents(folder).items() if p is None] if folder.is_dir() else []
        return folder / f"{tops[0]}.json" if tops else None
    return None


def messages(storage: Path, sid: str) -> list[Path]:
    """A session's message files, in id order (the writer's ids sort in the order it made them);
    OSError when their folder may not be listed."""
    return _listed(storage / "message" / sid)


def parts(storage: Path, mid: str) -> list[Path]:
    """A message's part files, in id order; OSError when their folder may not be listed."""
    return _listed(storage / "part" / mid)


def _listed(folder: Path) -> list[Path]:
    """The JSON files of `folder` (none when there is no such folder); OSError when it may not
    be listed: the reader says so, where "none" would say the session holds nothing there."""
    try:
        with os.scandir(folder) as it:
            return sorted((Path(e.path) for e in it if e.name.endswith(".json") and e.is_file()), key=lambda p: p.name)
    except (FileNotFoundError, NotADirectoryError):
        return []


def blocked(folder: Path, storage: Path) -> Path:
    """The folder that keeps `folder` from being listed: itself, or the first folder above it, up
    to `storage`, that may not be searched (`part/` locked stops every `part/<message>/`)."""
    while folder != storage and folder.parent != folder:
        try:
            os.stat(folder)
            return folder
        except PermissionError:
            folder = folder.parent
        except OSError:
            return folder
    return folder
