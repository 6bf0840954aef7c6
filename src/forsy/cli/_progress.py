"""The progress line of `forsy retrace`: stage, bytes done of bytes total, the session in hand.

Drawn on stderr only when stderr is a terminal and the run is not `--quiet`; on a pipe or in
a log file nothing is printed (the one summary line at the end says what happened). Bytes are
file sizes; within a file the bar moves by stage (reading, redacting, segmenting, writing),
which is what forsy knows without counting bytes twice. It is redrawn at each of those
events, not by a timer thread: a run with no thread of its own may use the second core for
a large session (forsy._aside), which a process with threads must not fork for.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

from rich.progress import BarColumn, DownloadColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from ._output import err, safe

if TYPE_CHECKING:
    from ..run import ProgressEvent

# the share of a file's bytes counted as done when it enters each stage
_SHARE = {"reading": 0.0, "redacting": 0.35, "segmenting": 0.6, "writing": 0.85, "done": 1.0}


class ProgressLine:
    def __init__(self, *, enabled: bool) -> None:
        self.bar = Progress(TextColumn("{task.fields[stage]:<10}"), BarColumn(bar_width=30), DownloadColumn(),
                            TextColumn("{task.fields[files]}"), TimeElapsedColumn(),
                            TextColumn("{task.fields[name]}"), console=err, transient=True, auto_refresh=False,
                            disable=not (enabled and err.is_terminal))
        self.task: TaskID | None = None

    def __enter__(self) -> ProgressLine:
        self.bar.__enter__()
        self.task = self.bar.add_task("retrace", total=None, stage="starting", files="", name="")
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.bar.__exit__(t, e, tb)

    def __call__(self, ev: ProgressEvent) -> None:
        if self.task is None:
            return
        done = ev.bytes_done + int(ev.file_bytes * _SHARE[ev.stage])
        name = ev.path.rsplit("/", 1)[-1]
        self.bar.update(self.task, total=max(ev.bytes_total, 1), completed=min(done, ev.bytes_total),
                        stage=ev.stage, files=f"session {ev.index}/{ev.files}", name=safe(name[-60:]),
                        refresh=True)
