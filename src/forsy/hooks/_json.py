"""Claude Code's and Gemini CLI's settings.json: forsy's command hook added to, or removed
from, a few lifecycle events, everything else in the file left as it is.

Both agents read the same shape (`hooks.<Event>` is a list of groups, each with an optional
`matcher` and a `hooks` list of `{"type": "command", "command": …}`), hand the hook the event
as JSON on stdin and run every group of an event. Forsy adds one group of its own per event,
at the end, without a matcher (lifecycle events match all). Its entry is known by the command
(`-m forsy.hooks run --agent …`), not by its place: the user may move it.

The file is written back with the indentation and key order it had (JSON objects keep their
order through `json.loads`); `uninstall` gives back the user's bytes when nothing else
changed (the backup install made) and otherwise removes forsy's entries only.
"""

from __future__ import annotations

import json
import re
from typing import Any

# forsy's command as install writes it, and as a user may write it by hand
MARKS = (" -m forsy.hooks run --agent ", "forsy hook run --agent ")

# Claude Code: SessionEnd when a session ends (exit, /clear, logout), Stop when the agent
# finishes answering (a session still going: its draft grows), PreCompact before the context
# is summarised (what is compacted away is still in the transcript, but the session may end
# by a kill before SessionEnd). Gemini CLI: the same moments are SessionEnd, AfterAgent (once
# per turn, after the final answer) and PreCompress.
EVENTS = {"claude-code": ("SessionEnd", "Stop", "PreCompact"),
          "gemini": ("SessionEnd", "AfterAgent", "PreCompress")}


class SettingsError(Exception):
    """The settings file cannot be edited without losing something of the user's."""


def is_forsy(hook: object) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and \
        any(m in hook["command"] for m in MARKS)


def parse(text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        doc = json.loads(text)
    except ValueError as e:
        # Gemini CLI strips comments before parsing its settings; forsy would drop them on
        # writing, so it does not write at all
        raise SettingsError(f"not plain JSON (comments, or a syntax error: {e}); add forsy's hook by hand "
                            "(docs/hooks.md)") from None
    if not isinstance(doc, dict):
        raise SettingsError("the settings file is not a JSON object")
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError("its `hooks` is not an object")
    for event in EVENTS["claude-code"] + EVENTS["gemini"]:
        if event in hooks and not isinstance(hooks[event], list):
            raise SettingsError(f"its `hooks.{event}` is not a list")
    return doc


def _events(hooks: dict[str, Any]) -> list[str]:
    """The keys of `hooks` that hold groups (Gemini CLI before 0.26 kept `enabled` and
    `disabled` in the same object: those are left alone)."""
    return [k for k, v in hooks.items() if isinstance(v, list)]


def installed(doc: dict[str, Any]) -> dict[str, str]:
    """Event -> forsy's command there."""
    out: dict[str, str] = {}
    hooks = doc.get("hooks") or {}
    for event in _events(hooks):
        for g in hooks[event]:
            for h in (g.get("hooks") or []) if isinstance(g, dict) else []:
                if is_forsy(h):
                    out[event] = h["command"]
    return out


def add(doc: dict[str, Any], agent: str, command: str) -> None:
    """Forsy's group on each of the agent's events (after the user's), where it is not already."""
    hooks = doc.setdefault("hooks", {})
    for event in EVENTS[agent]:
        groups = hooks.setdefault(event, [])
        entry: dict[str, Any] = {"type": "command", "command": command}
        if agent == "gemini":
            entry["name"] = "forsy"  # how Gemini names the hook in its logs and `/hooks`
        groups.append({"hooks": [entry]})


def remove(doc: dict[str, Any], created: frozenset[str] = frozenset()) -> int:
    """Remove forsy's entries; a group left empty goes, and so does an event list (or the
    `hooks` object) left empty when install created it (`created`: "hooks", "hooks.<Event>")."""
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return 0
    n = 0
    for event in _events(hooks):
        kept = []
        for g in hooks[event]:
            inner = g.get("hooks") if isinstance(g, dict) else None
            if isinstance(inner, list) and any(is_forsy(h) for h in inner):
                rest = [h for h in inner if not is_forsy(h)]
                n += len(inner) - len(rest)
                if not rest:
                    continue
                g = {**g, "hooks": rest}
            kept.append(g)
        hooks[event] = kept
        if not kept and f"hooks.{event}" in created:
            del hooks[event]
    if not hooks and "hooks" in created:
        del doc["hooks"]
    return n


def dumps(doc: dict[str, Any], like: str) -> str:
    """`doc` as JSON, indented as `like` is (2 spaces when it has no indented line), ending
    with a newline when `like` did (or was empty)."""
    m = re.search(r"\n([ \t]+)\S", like)
    indent: str | int | None = m.group(1) if m else (None if like.strip() and "\n" not in like.strip() else 2)
    text = json.dumps(doc, indent=indent, ensure_ascii=False)
    return text + ("\n" if like.endswith("\n") or not like else "")
