"""This machine's name as a sweeper writes it into a shared store (runs, sessions, the record of
each draft it stores), and as a page compares it with the sweeper a draft names."""

from __future__ import annotations

import os
import socket


def sweeper_name() -> str:
    """`FORSY_HOST`, else the machine's host name (two containers of one host name tell themselves
    apart by `FORSY_HOST`)."""
    return os.environ.get("FORSY_HOST") or socket.gethostname()
