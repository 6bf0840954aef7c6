"""Text for running the sweep on a schedule: printed for the user to install, never
installed by forsy.

The job runs the sweep of the command that printed it: its store, its config file, and the
options it was given (`sweep_options`), every path made absolute (cron and systemd start
elsewhere, without the user's PATH or shell). Each line is quoted for what reads it: the
shell that cron hands the command to, with cron's own `%` rule on top; systemd's own command
line syntax, with its `%` specifiers and `$` variables."""

from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError


def forsy_command() -> str:
    """The `forsy` executable of this installation, as an absolute path (cron and systemd
    do not see the user's PATH), quoted for a shell."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "forsy" and argv0.is_file():
        return shlex.quote(str(argv0.resolve(strict=False).parent / "forsy"))
    found = shutil.which("forsy")
    if found:
        return shlex.quote(str(Path(found).resolve()))
    return f"{shlex.quote(sys.executable)} -m forsy.cli"


def _absolute(path: Path | str) -> str:
    return os.path.abspath(os.path.expanduser(path))


def _number(value: float) -> str:
    """A number as the command line reads it back exactly (`30`, not `30.0`)."""
    short = f"{value:g}"
    return short if math.isfinite(value) and float(short) == value else repr(value)


def sweep_options(*, roots: Sequence[Path] = (), config: Path | None = None, settle: float | None = None,
                  histories: Sequence[Path] = (), git: Path | None = None, now: bool = False,
                  no_redact: bool = False, llm: str | None = None, jobs: int | None = None,
                  quiet: bool = False) -> list[str]:
    """The words after `sweep --json --store URL` that make the scheduled sweep the one the
    printing command would run (None, empty, False: not given, left to the job's own config
    and defaults). Roots given stay the roots; none given: the job finds the agents' folders
    itself, so a folder that appears later is swept too."""
    words: list[str] = []
    if config is not None:
        words += ["--config", _absolute(config)]
    if settle is not None:
        words += ["--settle", _number(settle)]
    for h in histories:
        words += ["--history", _absolute(h)]
    if git is not None:
        words += ["--git", _absolute(git)]
    if llm:
        words += ["--llm", llm]
    if jobs is not None:
        words += ["--jobs", str(jobs)]
    words += [flag for flag, on in (("--now", now), ("--no-redact", no_redact), ("--quiet", quiet)) if on]
    return words + [_absolute(r) for r in roots]  # absolute: never read as an option


def _absolute_store(url: str) -> str:
    """A SQLite store named by a relative path, as the absolute one it names here (the job
    runs in another folder); any other URL as it is. Read as `store.open_store` reads it."""
    if url.startswith(("postgresql:", "postgres:")) or ("://" in url and not url.startswith("sqlite:")):
        return url
    path = url.removeprefix("sqlite:")
    if path != url:
        path = path[2:] if path.startswith("//") else path
        path = "/" + path.lstrip("/") if path.startswith("//") else path
    if not path or os.path.isabs(path):
        return url
    return f"sqlite://{_absolute(path)}"


def _words(store: str | None, options: Sequence[str]) -> list[str]:
    return [*shlex.split(forsy_command()), "sweep", "--json",
            *(["--store", _absolute_store(store)] if store else []), *options]


_PLAIN = re.compile(r"[\w@+=:,./-]+", re.ASCII)  # what neither a shell nor systemd reads specially


def _cron_word(word: str) -> str:
    """One word for a crontab line: quoted for `sh`, and every `%` escaped for cron, which
    turns a bare `%` into a line break (and the rest of the line into the job's stdin),
    inside quotes too. The escape `\\%` is put outside the shell's quotes (`'50'\\%'x'`): cron
    drops its backslash, and a backslash of the name just before it cannot pair with it."""
    if "\n" in word or "\r" in word:
        raise InputError("a crontab line cannot hold a line break; use --print-systemd, or a path without one",
                         path=word)
    if _PLAIN.fullmatch(word):
        return word
    return "'" + word.replace("'", "'\"'\"'").replace("%", "'\\%'") + "'"


def _systemd_word(word: str) -> str:
    """One word of an ExecStart= line: `%` doubled (a specifier otherwise) and `$` doubled (a
    variable otherwise), and anything beyond plain characters in double quotes, where
    systemd reads C escapes: a backslash, a quote or a control character escaped, a byte of
    a name that is not UTF-8 written `\\xNN` (the unit file is UTF-8)."""
    if _PLAIN.fullmatch(word):
        return word
    out = []
    for c in word:
        if c in '\\"':
            out.append("\\" + c)
        elif "\udc80" <= c <= "\udcff":  # a byte of a name that is not UTF-8 (surrogateescape)
            out.append(f"\\x{ord(c) - 0xDC00:02x}")
        elif not c.isprintable():
            out.append("".join(f"\\x{b:02x}" for b in c.encode()))
        else:
            out.append({"%": "%%", "$": "$$"}.get(c, c))
    return '"' + "".join(out) + '"'


def cron_line(store: str | None = None, every_minutes: int = 15, log: str = "$HOME/.forsy-sweep.log",
              options: Sequence[str] = ()) -> str:
    command = " ".join(_cron_word(w) for w in _words(store, options))
    return f"*/{every_minutes} * * * * {command} >> {log} 2>&1  # forsy: sweep agent logs into the store"


def systemd_units(store: str | None = None, every_minutes: int = 15, options: Sequence[str] = ()) -> str:
    command = " ".join(_systemd_word(w) for w in _words(store, options))
    return f"""# ~/.config/systemd/user/forsy-sweep.service
[Unit]
Description=forsy: sweep agent logs into the store of draft traces

[Service]
Type=oneshot
ExecStart={command}
Nice=10

# ~/.config/systemd/user/forsy-sweep.timer
[Unit]
Description=Run forsy sweep every {every_minutes} minutes

[Timer]
OnBootSec=5min
OnUnitActiveSec={every_minutes}min
Persistent=true

[Install]
WantedBy=timers.target

# then: systemctl --user daemon-reload && systemctl --user enable --now forsy-sweep.timer
"""
