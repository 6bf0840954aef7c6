"""The project a chat belongs to, from the marker file Gemini CLI writes beside `chats/`."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ...evidence import Session
from .._side import unreadable

PROJECT_ROOT = ".project_root"  # projectRegistry.ts: the project's folder, beside chats/ (2026)


def project_root(path: Path, project_hash: object, s: Session) -> None:
    """The working directory: the project's root as `.project_root` beside `chats/` names it,
    when its sha256 is the chat's `projectHash` (getProjectHash), so it is this chat's project.
    Since the project folders are named by the project (2026) this file says which root it is;
    the chat itself holds only the hash."""
    marker = path.parent.parent / PROJECT_ROOT
    if path.parent.name != "chats" or not isinstance(project_hash, str) or not marker.is_file():
        return
    try:
        with marker.open("rb") as f:
            root = f.read(4097).decode("utf-8").strip()
    except OSError as e:
        unreadable(s, s.files[0].path if s.files else None, PROJECT_ROOT, e, "the session's working folder is not "
                   "known")
        return
    except UnicodeDecodeError:
        return
    if root and len(root) <= 4096 and hashlib.sha256(root.encode("utf-8")).hexdigest() == project_hash:
        s.meta.cwd = root
        s.meta.extra["cwd_from"] = f"{PROJECT_ROOT} beside chats/ (its sha256 is the chat's projectHash)"
