"""Where finished traces go: a sink takes one assembled trace at a time.

    Sink.write(trace) -> str    where it went (a folder path, a store id, …)

Built in: `FolderSink` (a trace folder per session, written atomically). The store and the
exporters are sinks too; a sink must not keep the traces it is given (a run hands
them over one at a time so memory stays bounded by the largest session).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..assemble import Assembled
    from ..evidence import Session


class Sink(Protocol):
    def write(self, assembled: Assembled, session: Session) -> str:
        """Store one trace; return where it went. Raises OutputError (never overwrites what
        it did not write)."""
        ...


from .folder import FolderSink, write_folder  # noqa: E402

__all__ = ["FolderSink", "Sink", "write_folder"]
