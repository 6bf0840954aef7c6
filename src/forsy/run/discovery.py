"""Which session files a run reads: every file named, and the session files under every
folder named (`sources.walk`), each with its source; what is under a folder and not read is
said, with why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from .. import sources
from ..errors import InputError
from ..evidence import Session
from ..sources import ReadContext
from .options import RetraceOptions

# a file under a named folder that looks like a log (its name) and that no source reads
NOT_READ = "not a log format forsy reads"


def discover(paths: Iterable[Path], unread: list[tuple[Path, str]] | None = None,
             failed: list[InputError] | None = None) -> list[tuple[sources.Source, Path]]:
    """Every session file named by `paths` (files, session dirs, project dirs, folders of
    collected logs: `sources.walk`), with its source. `unread`, when given, gets what under a
    named folder was not read, and why: files that look like logs in no format forsy reads,
    folders the walk did not search. `failed`, when given, gets the error of each path named
    that gives nothing (missing, of no format forsy reads, a folder without sessions) when
    another path gives sessions: one path named wrong does not stop the others. Without it, or
    when no path gives any, the first such error is raised."""
    found: list[tuple[sources.Source, Path]] = []
    errors: list[InputError] = []
    for p in paths:
        try:
            found.extend(_named(p, unread))
        except InputError as e:
            errors.append(e)
    if errors and (failed is None or not found):
        raise errors[0]
    if failed is not None:
        failed.extend(errors)
    return found


def _named(p: Path, unread: list[tuple[Path, str]] | None) -> list[tuple[sources.Source, Path]]:
    """The session files of one path named (`discover`)."""
    from ..sources.walk import discover_tree

    if not p.exists() and not p.is_symlink():
        raise InputError("no such file or directory", path=p)
    try:
        is_dir = p.is_dir()
    except OSError as e:
        raise InputError(e.strerror or str(e), path=p) from None
    if not is_dir:
        return [(sources.detect(p), p)]
    tree = discover_tree(p, sources.available())
    if not tree.found:
        # what was there instead, so "nothing found" is not read as "nothing there"
        blocked = [why for _, why in tree.not_searched if why.startswith("not searched: ")]
        also = [f"{len(tree.unrecognised)} file(s) that look like logs, in no format forsy reads"] \
            if tree.unrecognised else []
        also += [f"{n} folder(s) or file(s) {why}" for why, n in Counter(blocked).most_common()]
        raise InputError("no session logs forsy reads were found in this directory"
                         + (f" ({'; '.join(also)})" if also else ""), path=p)
    if unread is not None:
        unread.extend((u, NOT_READ) for u in tree.unrecognised)
        unread.extend(tree.not_searched)
    return list(tree.found)


def read_sessions(paths: Sequence[str | Path], *, debug: bool = False) -> Iterator[Session]:
    """The sessions named by `paths`, read lazily one file at a time (not redacted)."""
    for src, path in discover([Path(p).expanduser() for p in paths]):
        yield from src.read(path, ReadContext(root=path.parent, debug=debug))


def read(paths: Iterable[Path], options: RetraceOptions) -> list[Session]:
    return list(read_sessions(list(paths), debug=options.debug))


def one_trace_expected(paths: Sequence[Path]) -> bool:
    """One session file (or only --history/--git): `-o` names the trace folder itself. A
    directory or several files: `-o` is always a parent, whatever is found in it today."""
    return not paths or (len(paths) == 1 and not paths[0].is_dir())
