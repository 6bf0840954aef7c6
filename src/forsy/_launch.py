"""The `forsy` command as a shell starts it: before the command line's own modules are imported
(typer, rich, the commands: a third of a second), a retrace that will redact starts loading the
secret engine's rules. They load in native code without the GIL, so on the other core; on a
session of a few MB they were half the run, and they then waited for those imports too.

Only a plain reading of the words is used (the command line is parsed later, once): a guess that
is wrong costs a background build, never a different result; the command starts its own warm-up
again (once per process, so a right guess is not built twice).
"""

from __future__ import annotations

import sys
import threading

# the command that redacts what it is given unless told not to. Not `sweep`: run by cron, most
# of its runs find nothing new, and it starts the engine when it reaches a session to trace (an
# agent's hook runs as `python -m forsy.hooks`, which does the same)
_REDACTING = frozenset({"retrace"})
_NOT_NOW = frozenset({"--no-redact", "--help", "-h"})


def will_redact(argv: list[str]) -> bool:
    """Whether these words start a retrace that will redact: its name first, no option saying
    it will not (or asking only for help)."""
    return bool(argv) and argv[0] in _REDACTING and not _NOT_NOW.intersection(argv)


def _warm() -> None:
    from .redact import warm_engine

    warm_engine()


def main() -> None:
    if will_redact(sys.argv[1:]):
        threading.Thread(target=_warm, name="forsy-engine-start", daemon=True).start()
    from .cli import main as cli_main

    cli_main()
