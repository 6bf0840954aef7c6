"""Where forsy keeps its settings and data, and what the user configured.

Three layers, later wins: the config file (TOML, in the platform's config folder, or the
file `FORSY_CONFIG` names), `FORSY_*` environment variables, then command-line flags (the
CLI passes them to `Config.with_flags`). Folders come from `platformdirs`, so forsy follows
each platform's convention (XDG on Linux, ~/Library on macOS, %APPDATA% on Windows).

The config file, every key optional:

    roots = ["~/.claude/projects", "~/work/agent-logs"]   # added to the default log roots
    histories = ["~/.zsh_history"]                        # merged into every session's timeline
    git = "~/src/project"                                 # its commits joined to the timeline
    store = "sqlite:///home/me/forsy.db"
    settle_seconds = 120
    redact = true
    llm_model = "ollama/llama3"
    llm_api_base = "http://localhost:11434"
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import platformdirs

from .errors import InputError

APP = "forsy"
DEFAULT_SETTLE_SECONDS = 120.0


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP))


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP))


def default_store_url(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    return env.get("FORSY_STORE") or f"sqlite:///{data_dir() / 'forsy.db'}"


def claude_home(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """Claude Code's folder: CLAUDE_CONFIG_DIR when set (as Claude Code reads it), else ~/.claude."""
    env = os.environ if env is None else env
    return Path(env["CLAUDE_CONFIG_DIR"]).expanduser() if env.get("CLAUDE_CONFIG_DIR") else \
        (home or Path.home()) / ".claude"


def codex_home(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """Codex's folder: CODEX_HOME when set (as codex reads it), else ~/.codex."""
    env = os.environ if env is None else env
    return Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else (home or Path.home()) / ".codex"


def default_log_roots(home: Path | None = None, env: Mapping[str, str] | None = None) -> list[Path]:
    """The folders where the agents forsy reads write their logs (whether or not they exist):
    Claude Code's (under CLAUDE_CONFIG_DIR when set, and ~/.claude) and Codex's (its sessions
    and the ones it archived, under CODEX_HOME when set, and ~/.codex), then each registered
    source's own roots (`sources.base.HasRoots`: its `default_roots` under the home folder,
    then the folders its agent's variables name), in registry order, without repeats."""
    from .sources import available

    home = home or Path.home()
    claude, codex = claude_home(env, home), codex_home(env, home)
    roots = [claude / "projects", home / ".claude" / "projects", codex / "sessions", codex / "archived_sessions",
             home / ".codex" / "sessions", home / ".codex" / "archived_sessions"]
    roots = list(dict.fromkeys(roots))
    env = os.environ if env is None else env
    for src in available():
        named = getattr(src, "env_roots", None)
        for p in [home / rel for rel in getattr(src, "default_roots", ())] + (named(env, home) if named else []):
            if p not in roots:
                roots.append(p)
    return roots


@dataclass(frozen=True)
class Config:
    roots: list[Path] = field(default_factory=list)  # extra log roots (the defaults are always swept)
    histories: list[Path] = field(default_factory=list)
    git: Path | None = None
    store: str | None = None
    settle_seconds: float = DEFAULT_SETTLE_SECONDS
    redact: bool = True
    llm_model: str | None = None
    llm_api_base: str | None = None
    reviewer: str | None = None  # "Name <email>" recorded with review actions (else FORSY_REVIEWER, git config)
    source: Path | None = None  # the config file read, if any

    def with_flags(self, **flags: object) -> Config:
        """This config with every flag the user gave (None = not given) on top."""
        given = {k: v for k, v in flags.items() if v is not None and v != []}
        return replace(self, **given)  # type: ignore[arg-type]


def config_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    return Path(env["FORSY_CONFIG"]).expanduser() if env.get("FORSY_CONFIG") else config_dir() / "config.toml"


def load_config(path: Path | None = None, env: Mapping[str, str] | None = None, *,
                required: bool = False) -> Config:
    """The config file (when it exists) with `FORSY_*` variables on top. A config file that
    exists but cannot be read or parsed is an error: silently ignoring it would sweep with
    settings the user did not choose. `required`: `path` is a file the user named (`--config`),
    so one that is not there is an error too (a typo would otherwise run with no config at
    all); the default file, or FORSY_CONFIG's, may be absent."""
    env = os.environ if env is None else env
    path = path or config_path(env)
    cfg = Config()
    if required and not path.is_file():
        raise InputError("no such config file" if not path.exists() else "the config file is not a file",
                         path=path)
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
            raise InputError(f"cannot read the config file: {e}", path=path) from None
        cfg = _from_toml(data, path)
    return _from_env(cfg, env)


def _paths(value: object, key: str, path: Path) -> list[Path]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise InputError(f"config key {key!r} must be a path or a list of paths", path=path)
    return [Path(v).expanduser() for v in items]


_KNOWN = {"roots", "histories", "git", "store", "settle_seconds", "redact", "llm_model", "llm_api_base", "reviewer"}


def _from_toml(data: dict[str, object], path: Path) -> Config:
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise InputError(f"unknown config key(s): {', '.join(unknown)}; known: {', '.join(sorted(_KNOWN))}",
                         path=path)
    cfg = Config(source=path)
    if "roots" in data:
        cfg = replace(cfg, roots=_paths(data["roots"], "roots", path))
    if "histories" in data:
        cfg = replace(cfg, histories=_paths(data["histories"], "histories", path))
    if "git" in data:
        git = _paths(data["git"], "git", path)
        if len(git) != 1:
            raise InputError("config key 'git' names one repository", path=path)
        cfg = replace(cfg, git=git[0])
    for key in ("store", "llm_model", "llm_api_base", "reviewer"):
        if key in data:
            if not isinstance(data[key], str):
                raise InputError(f"config key {key!r} must be a string", path=path)
            cfg = replace(cfg, **{key: data[key]})  # type: ignore[arg-type]
    if "settle_seconds" in data:
        cfg = replace(cfg, settle_seconds=settle_seconds(data["settle_seconds"], "config key 'settle_seconds'",
                                                         path))
    if "redact" in data:
        if not isinstance(data["redact"], bool):
            raise InputError("config key 'redact' must be true or false", path=path)
        cfg = replace(cfg, redact=data["redact"])
    return cfg


def settle_seconds(value: object, name: str, path: Path | None = None) -> float:
    """A settle window, wherever it is given (the config file, FORSY_SETTLE_SECONDS, `--settle`):
    a number of seconds, 0 or more. The same check for each, naming the one at fault: `nan`
    would compare false with every age and so disable the window, and `inf` would make every
    session wait for ever."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{name} must be a number of seconds >= 0, not {value!r}", path=path)
    if not math.isfinite(value) or value < 0:
        raise InputError(f"{name} must be a number of seconds >= 0, not {value:g}", path=path)
    return float(value)


def _from_env(cfg: Config, env: Mapping[str, str]) -> Config:
    def paths(name: str) -> list[Path]:
        return [Path(p).expanduser() for p in env[name].split(os.pathsep) if p]

    if env.get("FORSY_ROOTS"):
        cfg = replace(cfg, roots=paths("FORSY_ROOTS"))
    if env.get("FORSY_HISTORIES"):
        cfg = replace(cfg, histories=paths("FORSY_HISTORIES"))
    if env.get("FORSY_GIT"):
        cfg = replace(cfg, git=Path(env["FORSY_GIT"]).expanduser())
    if env.get("FORSY_STORE"):
        cfg = replace(cfg, store=env["FORSY_STORE"])
    if env.get("FORSY_SETTLE_SECONDS"):
        try:
            value = float(env["FORSY_SETTLE_SECONDS"])
        except ValueError:
            raise InputError(f"FORSY_SETTLE_SECONDS is not a number: {env['FORSY_SETTLE_SECONDS']!r}") from None
        cfg = replace(cfg, settle_seconds=settle_seconds(value, "FORSY_SETTLE_SECONDS"))
    if env.get("FORSY_NO_REDACT") in ("1", "true", "yes"):
        cfg = replace(cfg, redact=False)
    if env.get("FORSY_LLM_MODEL"):
        cfg = replace(cfg, llm_model=env["FORSY_LLM_MODEL"])
    if env.get("FORSY_LLM_API_BASE"):
        cfg = replace(cfg, llm_api_base=env["FORSY_LLM_API_BASE"])
    return cfg


def remember_reviewer(name: str, path: Path | None = None) -> Path:
    """Keep `name` as the config file's `reviewer` (asked once by `forsy review serve`): one line
    added at the top of the file (where a key is never inside a table), every other byte kept;
    a new file when there is none. A file that already names a reviewer is left as it is."""
    import json

    from ._atomic import replace_file

    path = path or config_path()
    old = path.read_bytes() if path.is_file() else b""
    if old:
        try:
            if "reviewer" in tomllib.loads(old.decode("utf-8")):
                raise InputError("the config file names a reviewer already; edit it there", path=path)
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
            raise InputError(f"cannot read the config file: {e}", path=path) from None
    line = f"reviewer = {json.dumps(name)}  # who reviews (forsy review serve asked)\n".encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, line + old)
    except OSError as e:
        raise InputError(f"cannot write the config file: {e.strerror or e}", path=path) from None
    return path

