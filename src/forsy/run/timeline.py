"""The `--history`/`--git` inputs of a run: read once (`timeline_inputs`), merged into each
session (`merge`), or traced on their own when the run names no session file."""

from __future__ import annotations

from dataclasses import dataclass

from .. import sources
from ..errors import UnsupportedFormat
from ..evidence import Session
from ..sources import ReadContext
from .options import RetraceOptions


@dataclass
class Timeline:
    history: list[Session]
    git: list[Session]


def timeline_inputs(options: RetraceOptions) -> Timeline:
    from ..sources.asciinema import AsciinemaSource
    from ..sources.git import read_git
    from ..sources.shell import ShellHistorySource

    shell, cast = ShellHistorySource(), AsciinemaSource()
    hist: list[Session] = []
    for h in options.history:
        head = sources.read_head(h)
        if cast.sniff(h, head):  # a terminal recording: its commands, as a history's
            hist.extend(cast.read_history(h, ReadContext(root=h.parent)))
            continue
        why = shell.refuses(h, head)
        if why:
            raise UnsupportedFormat(f"--history: {why}", path=h)
        hist.extend(shell.read(h, ReadContext(root=h.parent)))
    git = [read_git(options.git, since=options.since, until=options.until, ctx=ReadContext(root=options.git))] \
        if options.git else []
    return Timeline(hist, git)


def merge(agent: Session | None, tl: Timeline, options: RetraceOptions) -> Session:
    from ..rules import timeline

    return timeline.merge(agent, tl.history, tl.git, window=(options.since, options.until))
