"""What the hooks keep on disk besides the agents' settings: the log of hook runs, the record
of what `install` wrote (so `uninstall` can give the user's file back as it was), and the
backups beside the settings files. Stdlib only at import: the hook's foreground loads this."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

LOG_NAME = "hook.log"
STATE_NAME = "hooks-installed.json"
LOG_KEEP_BYTES = 1 << 20  # the log is cut to its newer half past this: a hook runs at every turn


def data_dir() -> Path:
    from ..config import data_dir as forsy_data_dir

    return forsy_data_dir()


def log_path() -> Path:
    return data_dir() / LOG_NAME


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def log(agent: str, event: str, status: str, session: str, message: str) -> None:
    """One line per hook run in forsy's data folder: time, agent, event, ok|failed|skipped,
    the session file (or what named it), why. Never raises: the hook must not fail on it."""
    fields = [now_iso(), agent, event or "-", status, session or "-", message]
    line = "\t".join(f.replace("\t", " ").replace("\n", " ").replace("\r", " ") for f in fields) + "\n"
    try:
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8", errors="backslashreplace") as f:
            f.write(line)
            big = f.tell() > LOG_KEEP_BYTES
        if big:
            _shrink(path)
    except OSError:
        pass


def _shrink(path: Path) -> None:
    from .._atomic import replace_file

    data = path.read_bytes()
    half = data[len(data) // 2:]
    replace_file(path, half[half.find(b"\n") + 1:])


def read_log(limit: int = 200) -> list[list[str]]:
    """The last `limit` lines of the log, split into their fields."""
    try:
        text = log_path().read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [line.split("\t", 5) for line in text.splitlines()[-limit:] if line.count("\t") >= 5]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_state() -> dict[str, dict[str, object]]:
    """Per settings file (absolute path): what install wrote there (`sha256`), the backup it
    made (`backup`, or None when the file did not exist before)."""
    try:
        data = json.loads((data_dir() / STATE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_state(state: dict[str, dict[str, object]]) -> None:
    from .._atomic import replace_file

    path = data_dir() / STATE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, (json.dumps(state, indent=2, sort_keys=True) + "\n").encode())


def backup(path: Path, data: bytes) -> Path:
    """Copy `data` (the file as the user had it) beside `path` under a name no file has yet:
    a backup the user (or an earlier install) made is never overwritten."""
    n = 0
    while True:
        cand = path.with_name(f"{path.name}.forsy-backup" + (f".{n}" if n else ""))
        try:
            fd = os.open(cand, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            n += 1
            continue
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return cand


def write(path: Path, data: bytes) -> None:
    """Replace the settings file atomically, keeping its permission bits."""
    from .._atomic import replace_file

    path = Path(os.path.realpath(path))  # a settings file linked from a dotfiles folder stays a link
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, data)
    if mode is not None:
        os.chmod(path, mode)
