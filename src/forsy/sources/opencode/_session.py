"""One OpenCode session read from its info file and the messages and parts the storage folder
keeps for it (`_build`), as a thread: the main session, or a subagent's session read with it."""

from __future__ import annotations

from pathlib import Path

from ...errors import InputError
from ...evidence import Session, SessionMeta
from .. import ReadContext, read_head
from .._side import why
from ..lines import source_name
from . import _layout, _rules
from ._build import DEFAULT_TITLE, Builder, Thread
from ._emit import get
from ._files import load


def read_thread(path: Path, ctx: ReadContext, storage: Path | None, actor: str, parent: str | None) -> Thread:
    """The session of the info file `path`, its events by `actor`; `parent`: the actor that gave
    a subagent's session its task (None for a session read as the main one: a subagent's read
    alone has its task given by "agent")."""
    if not read_head(path).strip(b"\xef\xbb\xbf \t\r\n"):
        # OpenCode cannot load a session whose info is empty either (Storage.read fails on it)
        raise InputError("an empty OpenCode session file: no session info to read", path=path)
    sid = path.stem  # the writer's key: its files are found by the name, whatever the info says
    s = Session("opencode", sid, [], {}, [], SessionMeta(agent="opencode"))
    name = source_name(path, ctx.root)
    rec = load(path, name, lambda d: "session", s, ctx.limits, "the session's info file")
    info = rec.data if rec is not None else {}
    if rec is not None:
        s.mark(rec.ev.id, "metadata", _rules.SESSION)
    if isinstance(info.get("id"), str) and info["id"] != sid:
        s.warn("session-id", f"the session's info names id {info['id']!r}, its file {sid!r}: read by the file's name, "
               "as OpenCode finds its messages", name, None)
    _facts(s, info)
    up = info.get("parentID")
    if isinstance(up, str) and up:
        s.meta.extra["parent_session"] = up
        parent = parent or "agent"  # a subagent's session read alone: its user words are its task
    if storage is None:
        s.warn("no-storage", "the session's file is not in OpenCode's storage folder (storage/session/<project>/), "
               "so its messages (storage/message/<id>/) cannot be found: nothing of its work is read", name, None)
        return Thread(s, actor)
    b = Builder(s, storage, actor, parent, ctx)
    revert = get(info, "revert", "messageID")
    try:
        files = _layout.messages(storage, sid)
    except OSError as e:  # the session's work is there: none of it can be read
        where = _layout.blocked(storage / "message" / sid, storage).relative_to(storage).as_posix()
        raise InputError(f"its messages ({where}/) could not be read: {why(e)}", path=path) from None
    if not files:
        s.warn("no-messages", f"no messages of this session in the storage folder (message/{sid}/)", name, None)
    for m in files:
        if isinstance(revert, str) and m.stem == revert:
            # the person undid the work from here on (session/revert.ts): OpenCode hides these
            # messages, and deletes them when the next prompt is sent
            b.abandoned = True
        b.message(m)
    if isinstance(revert, str) and not b.abandoned:
        s.warn("revert-unknown", f"the session was reverted to message {revert}, which is not among its messages: "
               "nothing is flagged abandoned", name, None)
    return Thread(s, actor, b.tools.spawned, b.tools.tasks)


def _facts(s: Session, info: dict[str, object]) -> None:
    meta = s.meta
    version, directory, title = info.get("version"), info.get("directory"), info.get("title")
    if isinstance(version, str) and version:
        meta.agent_version = version
    if isinstance(directory, str) and directory:
        meta.cwd = directory
    if isinstance(title, str) and title.strip() and not DEFAULT_TITLE.match(title):
        meta.extra["ai_title"] = title  # the title agent named the session (session/prompt.ts ensureTitle)
    project = info.get("projectID")
    if isinstance(project, str) and project:
        meta.extra["project_id"] = project
    revert = info.get("revert")
    if isinstance(revert, dict) and isinstance(revert.get("messageID"), str):
        meta.extra["reverted_from"] = {k: v for k, v in revert.items() if k in ("messageID", "partID")}
