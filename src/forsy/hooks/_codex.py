"""Codex: its `notify` program in ~/.codex/config.toml, and the rollout a notification is about.

Codex runs `notify` (an argv list, a top-level key) after every turn, with one JSON argument
appended: `{"type": "agent-turn-complete", "thread-id", "turn-id", "cwd", "input-messages",
"last-assistant-message", …}`. It runs one program only, so a user's own `notify` is kept
running through forsy's: forsy's argv carries it (`--chain '<its argv as JSON>'`) and runs
it with the same argument first.

The config is edited as text, never re-serialised: forsy's lines go between two marker
comments, and the user's `notify` lines, when there are some, stay in place behind a
`# forsy-chained: ` prefix. `uninstall` removes the block and the prefixes: the file's bytes
come back as they were. Every edit is checked by parsing the result (`tomllib`): the other
keys must be what they were, `notify` what forsy meant.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from ._json import MARKS

BEGIN = "# >>> forsy hook: `forsy hook uninstall --agent codex` removes this block and restores the lines below it"
END = "# <<< forsy hook"
CHAINED = "# forsy-chained: "
_KEY = re.compile(r"""^[ \t]*(notify|"notify"|'notify')[ \t]*=""")
_TABLE = re.compile(r"^[ \t]*\[")


class ConfigError(Exception):
    """The config cannot be edited without losing or changing something of the user's."""


def _loads(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"not valid TOML: {e}") from None


def _notify_lines(lines: list[str], value: object) -> tuple[int, int] | None:
    """Where the top-level `notify = …` is (first line, one past its last), found by parsing
    the lines from its key on until they give the value the whole file gives."""
    for i, line in enumerate(lines):
        if _TABLE.match(line):
            return None  # past the top level: keys below belong to tables
        if _KEY.match(line):
            for j in range(i + 1, len(lines) + 1):
                try:
                    if tomllib.loads("".join(lines[i:j])).get("notify") == value:
                        return i, j
                except tomllib.TOMLDecodeError:
                    continue
            return None
    return None


def _block(lines: list[str]) -> tuple[int, int] | None:
    """forsy's block (BEGIN to END, inclusive, as a line range) with the chained lines after it."""
    for i, line in enumerate(lines):
        if line.rstrip("\r\n") == BEGIN:
            for j in range(i + 1, len(lines)):
                if lines[j].rstrip("\r\n") == END:
                    k = j + 1
                    while k < len(lines) and lines[k].startswith(CHAINED):
                        k += 1
                    return i, k
            raise ConfigError("forsy's block has no end marker; fix the file by hand")
    return None


def chained(text: str) -> list[str] | None:
    """The user's own notify program that forsy's block keeps running, if any."""
    lines = text.splitlines(keepends=True)
    b = _block(lines)
    if b is None:
        return None
    own = "".join(ln[len(CHAINED):] for ln in lines[b[0]:b[1]] if ln.startswith(CHAINED))
    value = _loads(own).get("notify") if own else None
    return [str(v) for v in value] if isinstance(value, list) else None


def installed(text: str) -> list[str] | None:
    """forsy's notify argv when its block is in the file."""
    lines = text.splitlines(keepends=True)
    if _block(lines) is None:
        return None
    value = _loads(text).get("notify")
    return [str(v) for v in value] if isinstance(value, list) else None


def remove(text: str) -> str:
    """The config without forsy's block, the user's notify lines un-prefixed."""
    lines = text.splitlines(keepends=True)
    b = _block(lines)
    if b is None:
        return text
    i, k = b
    j = next(n for n in range(i, k) if lines[n].rstrip("\r\n") == END)
    out = lines[:i] + [ln[len(CHAINED):] for ln in lines[j + 1:k]] + lines[k:]
    return "".join(out)


def add(text: str, argv: list[str]) -> str:
    """The config with forsy's `notify` (`argv`, plus `--chain` with the user's own notify when
    there is one), checked by parsing. A config that already has forsy's block has it replaced."""
    text = remove(text)
    old = _loads(text)
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    user = old.get("notify")
    at, own = 0, []
    if user is not None:
        if not isinstance(user, list) or not all(isinstance(v, str) for v in user) or not user:
            raise ConfigError("its `notify` is not a list of strings; forsy leaves it alone")
        if any(m in " " + " ".join(user) + " " for m in MARKS):  # forsy chained to itself would run twice
            raise ConfigError("its `notify` runs forsy's hook already (written by hand); nothing done")
        where = _notify_lines(lines, user)
        if where is None:
            raise ConfigError("cannot tell which lines hold its `notify`; add forsy's by hand (docs/hooks.md)")
        at, end = where
        own = [CHAINED + ln for ln in lines[at:end]]
        if not own[-1].endswith("\n"):
            own[-1] += nl
        argv = [*argv, "--chain", json.dumps(user)]
        del lines[at:end]
    block = [BEGIN + nl, "notify = " + json.dumps(argv) + nl, END + nl, *own]
    new = "".join(lines[:at] + block + lines[at:])
    got = _loads(new)
    if got.get("notify") != argv or {k: v for k, v in got.items() if k != "notify"} != \
            {k: v for k, v in old.items() if k != "notify"}:
        raise ConfigError("editing it would change more than `notify`; add forsy's by hand (docs/hooks.md)")
    return new


# ---------------------------------------------------------------------- the rollout
def find_rollout(payload: dict[str, Any], sessions: Path | None = None) -> Path | None:
    """The rollout of the notification's thread: Codex names it
    `sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl` (the day it started, so a
    session resumed days later is found by the walk). Without a thread id (older Codex),
    the newest rollout whose `session_meta` names the notification's `cwd`."""
    from ..config import codex_home

    sessions = sessions or codex_home() / "sessions"
    thread = payload.get("thread-id")
    if isinstance(thread, str) and re.fullmatch(r"[0-9A-Za-z-]{8,64}", thread):
        by_day = sorted(sessions.glob("*/*/*/rollout-*"), reverse=True)  # newest day first
        for p in by_day + sorted(sessions.rglob("rollout-*"), reverse=True):
            if p.name.endswith((f"-{thread}.jsonl", f"-{thread}.jsonl.zst")):
                return p
        return None
    cwd = payload.get("cwd")
    if not isinstance(cwd, str):
        return None
    newest = sorted(sessions.rglob("rollout-*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)[:50]
    for p in newest:
        meta = _session_meta(p)
        # a subagent's thread (`source.subagent`) is read with its parent's rollout, not alone
        if meta.get("cwd") == cwd and not (isinstance(meta.get("source"), dict) and "subagent" in meta["source"]):
            return p
    return None


def _session_meta(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            first = json.loads(f.readline(1 << 20) or b"{}")
    except (OSError, ValueError):
        return {}
    meta = first.get("payload") if isinstance(first, dict) else None
    return meta if isinstance(meta, dict) else {}
