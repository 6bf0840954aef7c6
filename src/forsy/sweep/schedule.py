"""Text for running the sweep on a schedule: printed for the user to install, never
installed by forsy."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path


def forsy_command() -> str:
    """The `forsy` executable of this installation, as an absolute path (cron and systemd
    do not see the user's PATH)."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "forsy" and argv0.is_file():
        return str(argv0.resolve(strict=False).parent / "forsy")
    found = shutil.which("forsy")
    if found:
        return str(Path(found).resolve())
    return f"{shlex.quote(sys.executable)} -m forsy.cli"


def _args(store: str | None) -> str:
    return "sweep --json" + (f" --store {shlex.quote(store)}" if store else "")


def cron_line(store: str | None = None, every_minutes: int = 15, log: str = "$HOME/.forsy-sweep.log") -> str:
    return (f"*/{every_minutes} * * * * {forsy_command()} {_args(store)} >> {log} 2>&1"
            "  # forsy: sweep agent logs into the store")


def systemd_units(store: str | None = None, every_minutes: int = 15) -> str:
    return f"""# ~/.config/systemd/user/forsy-sweep.service
[Unit]
Description=forsy: sweep agent logs into the store of draft traces

[Service]
Type=oneshot
ExecStart={forsy_command()} {_args(store)}
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
