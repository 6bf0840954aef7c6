"""One switch for Python's cyclic garbage collector around work that builds many objects."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while one file is read, traced and written.

    A large log keeps millions of objects alive until its trace is written (records,
    events, drafts, provenance), and every full collection walks all of them: a third of
    the CPU of a 100 MB session (bench/README.md), and the share grows with the log. What
    forsy builds holds almost no reference cycles (under 1,000 cyclic objects left by a
    30 MB session), and reference counting still frees everything else as it goes, so
    memory does not grow. Collection resumes, if it was on, when the file is done.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
