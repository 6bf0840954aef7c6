"""The session's facts from aider's start-up and settings messages (main.py, models.py,
repo.py): `Aider v…`, `Main model: … with … edit format`, `Model:`, `Models:`, `Weak model:`,
`Editor model:`, `Git repo:`, `Repo-map:`, and before any input the command line.
"""

from __future__ import annotations

import re

from ...evidence import SessionMeta

VERSION = re.compile(r"Aider v(\S+)\Z")
MODEL = re.compile(r"(Main model|Model|Models|Weak model|Editor model): (.+?)\Z")
WITH_FORMAT = re.compile(r"(\S+) with (\S+) edit format(?:, weak model (\S+))?")
SETTING = re.compile(r"(Git repo|Repo-map): (.+?)\Z")
COMMAND_LINE = re.compile(r"\S*[/\\]aider(?:\.exe)?(?: .*)?\Z|aider(?: .*)?\Z")


def setting(meta: SessionMeta, t: str, started: bool) -> bool:
    """Copy the facts of settings message `t` into `meta` (the first of each kind is kept);
    True when it was one. `started`: an input or reply was seen (a command line is then none)."""
    if (v := VERSION.match(t)) is not None:
        meta.agent_version = meta.agent_version or v.group(1)
    elif (md := MODEL.match(t)) is not None:
        w = WITH_FORMAT.match(md.group(2))
        model = w.group(1) if w else md.group(2).strip()
        if md.group(1) in ("Main model", "Model", "Models"):
            if model not in meta.models:
                meta.models.append(model)
            if w:
                meta.extra.setdefault("edit_format", w.group(2))
                if w.group(3):
                    meta.extra.setdefault("weak_model", w.group(3))
        else:
            meta.extra.setdefault(md.group(1).lower().replace(" ", "_"), model)
    elif (st := SETTING.match(t)) is not None:
        meta.extra.setdefault(st.group(1).lower().replace("-", "_").replace(" ", "_"), st.group(2))
    elif not started and "\n" not in t and COMMAND_LINE.match(t):
        meta.extra.setdefault("command", t)
    else:
        return False
    return True


def setting_text(text: str) -> bool:
    """A start-up or settings line: never a shell command aider asks about."""
    return any(p.match(text) for p in (VERSION, MODEL, SETTING, COMMAND_LINE))
