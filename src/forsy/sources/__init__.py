"""Log sources behind one small registry: a new source is one module and one line in
`base.BUILTIN`.

A source is a class with:

* `name`: registry key (also the `source_kind` of its sessions);
* `sniff(path, head) -> bool`: can it read this file? `head` is the first 64 KiB;
* `discover(path) -> list[Path]`: the session files under a directory it recognises
  (empty when the directory is not of its kind), listing the folders below with `listing`,
  which says those it could not list;
* `read(path, ctx) -> list[Session]`: the sessions read from one session file.

Plugins can add sources through the `forsy.sources` entry point group, the same registry
the built-in ones use.
"""

from .base import (
    BUILTIN,
    ReadContext,
    ReadsBack,
    Source,
    available,
    describe_head,
    detect,
    has_scheme,
    load,
    read_back,
    read_head,
    registry,
)
from .lines import HEAD as HEAD_BYTES

__all__ = [
    "BUILTIN", "HEAD_BYTES", "ReadContext", "ReadsBack", "Source", "available", "describe_head", "detect",
    "has_scheme", "load", "read_back", "read_head", "registry",
]
