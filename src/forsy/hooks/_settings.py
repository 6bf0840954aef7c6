"""Installing, removing and reporting forsy's hook in the agents' settings files (see the
package's docstring)."""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import _files

AGENTS = ("claude-code", "codex", "gemini")


class HookError(Exception):
    """A settings file forsy will not edit (it would lose something), with why."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


@dataclass
class Change:
    agent: str
    path: Path
    changed: bool
    message: str
    backup: Path | None = None


@dataclass
class Status:
    agent: str
    path: Path
    exists: bool
    installed: list[str] = field(default_factory=list)  # the events (Codex: "notify") forsy's hook is on
    command: str | None = None
    chained: list[str] | None = None  # Codex: the user's own notify, run first
    backup: Path | None = None
    warnings: list[str] = field(default_factory=list)


def settings_path(agent: str) -> Path:
    """The user-level settings file each agent reads."""
    if agent == "claude-code":
        from ..config import claude_home

        return claude_home() / "settings.json"
    if agent == "codex":
        from ..config import codex_home

        return codex_home() / "config.toml"
    if agent == "gemini":
        return Path.home() / ".gemini" / "settings.json"
    raise ValueError(f"unknown agent {agent!r}; one of {', '.join(AGENTS)}")


def hook_argv(agent: str) -> list[str]:
    """What the agent runs: this Python, so the hook works whatever the agent's PATH."""
    return [sys.executable, "-m", "forsy.hooks", "run", "--agent", agent]


def hook_command(agent: str) -> str:
    return shlex.join(hook_argv(agent))


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise HookError(f"cannot read it: {e.strerror or e}", path) from None


def _text(data: bytes | None, path: Path) -> str:
    try:
        return (data or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise HookError("it is not UTF-8 text", path) from None


def _edited(agent: str, text: str, path: Path) -> tuple[str, bool, frozenset[str]]:
    """The file with forsy's entry; whether forsy's entry was there before; what the edit creates."""
    from . import _codex, _json

    try:
        if agent == "codex":
            return _codex.add(text, hook_argv(agent)), _codex.installed(text) is not None, frozenset()
        doc = _json.parse(text)
        was = bool(_json.installed(doc))
        hooks = doc.get("hooks") or {}
        created = frozenset(([] if "hooks" in doc else ["hooks"])
                            + [f"hooks.{e}" for e in _json.EVENTS[agent] if e not in hooks])
        _json.remove(doc)
        _json.add(doc, agent, hook_command(agent))
        return _json.dumps(doc, text), was, created
    except (_codex.ConfigError, _json.SettingsError) as e:
        raise HookError(str(e), path) from None


def install(agent: str, path: Path | None = None) -> Change:
    """Add forsy's hook to the agent's settings (`path`, default `settings_path(agent)`).
    Twice is once: a file that has forsy's entry already is not written again."""
    path = Path(os.path.abspath(path or settings_path(agent)))
    old = _read(path)
    text = _text(old, path)
    new, was, created = _edited(agent, text, path)
    if new == text and old is not None:
        return Change(agent, path, False, "already installed")
    state = _files.load_state()
    key = str(path)
    prev = state.get(key) if was else None
    bak: Path | None = None
    if prev is not None:  # forsy's entry is there, from an older Python: the first install's record holds
        bak = Path(str(prev["backup"])) if prev.get("backup") else None
        created = frozenset(str(c) for c in prev.get("created", []))  # type: ignore[attr-defined]
    data = new.encode("utf-8")
    made: Path | None = None
    try:
        if prev is None and old is not None:
            bak = made = _files.backup(path, old)
        # recorded before the file is written: what uninstall needs is never missing
        state[key] = {"agent": agent, "backup": str(bak) if bak else None, "sha256": _files.sha256(data),
                      "created": sorted(created), "new_file": old is None if prev is None else prev.get("new_file")}
        _files.save_state(state)
    except OSError as e:
        if made is not None:
            made.unlink(missing_ok=True)  # made by this call a moment ago: nothing is changed after all
        raise HookError(f"cannot keep a backup or forsy's record of the install: {e.strerror or e} "
                        f"({e.filename or _files.data_dir()}); nothing changed", path) from None
    try:
        _files.write(path, data)
    except OSError as e:
        raise HookError(f"cannot write it: {e.strerror or e}", path) from None
    from ._codex import chained

    own = chained(new) if agent == "codex" else None
    msg = "installed" + (f"; your own notify program {own} runs first, as before" if own else "")
    return Change(agent, path, True, msg, bak)


def uninstall(agent: str, path: Path | None = None) -> Change:
    """Remove forsy's hook: the user's file back byte for byte when nothing else changed since
    install (its backup is then removed: it holds the same bytes), else forsy's entry alone."""
    from . import _codex, _json

    path = Path(os.path.abspath(path or settings_path(agent)))
    old = _read(path)
    if old is None:
        return Change(agent, path, False, "not installed (no such file)")
    text = _text(old, path)
    state = _files.load_state()
    rec = state.get(str(path))
    try:
        if agent == "codex":
            if _codex.installed(text) is None:
                _forget(state, path)
                return Change(agent, path, False, "not installed")
            new = _codex.remove(text)
        else:
            doc = _json.parse(text)
            if not _json.installed(doc):
                _forget(state, path)
                return Change(agent, path, False, "not installed")
            _json.remove(doc, frozenset(str(c) for c in (rec or {}).get("created", [])))  # type: ignore[attr-defined]
            new = _json.dumps(doc, text)
    except (_codex.ConfigError, _json.SettingsError) as e:
        raise HookError(str(e), path) from None
    bak = Path(str(rec["backup"])) if rec and rec.get("backup") else None
    untouched = rec is not None and rec.get("sha256") == _files.sha256(old)
    msg = "uninstalled"
    try:
        if untouched and rec is not None and rec.get("new_file"):
            path.unlink()  # forsy made this file, and nothing but forsy's entry is in it
            msg = "uninstalled (the file forsy had created is removed)"
        else:
            if untouched and bak is not None and (orig := _read(bak)) is not None:
                new = _text(orig, bak)  # the user's very bytes
            _files.write(path, new.encode("utf-8"))
            if bak is not None and _read(bak) == new.encode("utf-8"):
                bak.unlink()
                bak = None
            elif bak is not None:
                msg += f"; the file as it was before install is kept in {bak}"
    except OSError as e:
        raise HookError(f"cannot write it: {e.strerror or e}", path) from None
    _forget(state, path)
    return Change(agent, path, True, msg, bak)


def _forget(state: dict[str, dict[str, object]], path: Path) -> None:
    state.pop(str(path), None)
    try:
        _files.save_state(state)
    except OSError:
        pass  # a stale record is harmless: the next install finds no entry of forsy's and starts afresh


def status(agent: str, path: Path | None = None) -> Status:
    from . import _codex, _json

    path = Path(os.path.abspath(path or settings_path(agent)))
    rec = _files.load_state().get(str(path)) or {}
    st = Status(agent, path, path.exists(), backup=Path(str(rec["backup"])) if rec.get("backup") else None)
    try:
        text = _text(_read(path), path)
        if agent == "codex":
            argv = _codex.installed(text)
            if argv is not None:
                st.installed, st.command = ["notify"], shlex.join(argv[:6])
                st.chained = _codex.chained(text)
        else:
            doc = _json.parse(text)
            got = _json.installed(doc)
            st.installed = sorted(got)
            st.command = next(iter(got.values()), None)
            missing = [e for e in _json.EVENTS[agent] if e not in got]
            if got and missing:
                st.warnings.append(f"forsy's hook is missing on {', '.join(missing)}: run install again")
            cfg = doc.get("hooksConfig")
            if agent == "gemini" and isinstance(cfg, dict) and cfg.get("enabled") is False:
                st.warnings.append("hooksConfig.enabled is false in this file: Gemini CLI runs no hook")
            if agent == "claude-code" and doc.get("disableAllHooks") is True:
                st.warnings.append("disableAllHooks is true in this file: Claude Code runs no hook")
    except HookError as e:
        st.warnings.append(e.message)
    except (_codex.ConfigError, _json.SettingsError) as e:
        st.warnings.append(str(e))
    if st.command is not None:
        python = shlex.split(st.command)[0]
        if not os.access(python, os.X_OK):
            st.warnings.append(f"the hook's Python {python} is gone: run install again")
    return st


__all__ = ["AGENTS", "Change", "HookError", "Status", "hook_argv", "hook_command", "install", "settings_path",
           "status", "uninstall"]
