"""Drafts the moment a session ends: forsy's hook in the agents' own settings.

    forsy hook install --agent claude-code    # ~/.claude/settings.json: SessionEnd, Stop, PreCompact
    forsy hook install --agent codex          # ~/.codex/config.toml: notify (the user's own chained)
    forsy hook install --agent gemini         # ~/.gemini/settings.json: SessionEnd, AfterAgent, PreCompress
    forsy hook status / forsy hook uninstall --agent …

Each agent runs `python -m forsy.hooks run --agent …` (`_run`): it returns at once and a
background process sweeps that one session into the store. Editing a settings file changes
forsy's entry only (`_json`, `_codex`); the file as the user had it is copied beside it first
(`<name>.forsy-backup`, or `.forsy-backup.N` when that name is taken), and `uninstall` gives
it back byte for byte when nothing else changed since, else removes forsy's entry alone.

Importing this package costs next to nothing (its names are loaded on first use): the
agent's hook imports it before anything else.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._files import log_path, read_log
    from ._run import run
    from ._settings import (
        AGENTS,
        Change,
        HookError,
        Status,
        hook_argv,
        hook_command,
        install,
        settings_path,
        status,
        uninstall,
    )

# name -> the module that has it (loaded on first use)
_WHERE = {**dict.fromkeys(["AGENTS", "Change", "HookError", "Status", "hook_argv", "hook_command", "install",
                           "settings_path", "status", "uninstall"], "_settings"),
          "run": "_run", "log_path": "_files", "read_log": "_files"}
__all__ = ["AGENTS", "Change", "HookError", "Status", "hook_argv", "hook_command", "install", "log_path", "read_log",
           "run", "settings_path", "status", "uninstall"]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'forsy.hooks' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"forsy.hooks.{where}"), name)
    globals()[name] = value
    return value
