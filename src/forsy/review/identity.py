"""Who is reviewing: recorded with every edit and action, so it is never guessed.

In order: the `--reviewer` flag, `FORSY_REVIEWER`, the config file's `reviewer`, then git's
`user.name` and `user.email`
(`Name <email>`). With none of them the action is refused: an anonymous approval would be a
claim nobody made.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping

from ..errors import InputError


def _git(key: str) -> str:
    try:
        out = subprocess.run(["git", "config", "--get", key], capture_output=True, text=True, timeout=5,
                             check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def reviewer(flag: str | None = None, env: Mapping[str, str] | None = None, configured: str | None = None) -> str:
    env = os.environ if env is None else env
    if configured is None:
        from ..config import load_config

        try:
            configured = load_config(env=env).reviewer
        except InputError:
            configured = None  # a broken config file is reported by the commands that need it
    for given in (flag, env.get("FORSY_REVIEWER"), configured):
        if given and given.strip():
            return clean(given)
    name, email = _git("user.name"), _git("user.email")
    if name or email:
        return clean(f"{name} <{email}>" if name and email else name or email)
    raise InputError("who is reviewing? give --reviewer 'Name <email>', set FORSY_REVIEWER, "
                     "or set git config user.name and user.email")


def clean(who: str) -> str:
    """A reviewer's name as recorded: white space folded; one printable line, 200 characters at most."""
    who = " ".join(who.split())
    if len(who) > 200 or not who.isprintable():
        raise InputError("a reviewer's name is one printable line of at most 200 characters")
    return who
