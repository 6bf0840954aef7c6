"""One switch for Python's cyclic garbage collector around work that builds many objects, and
one call that gives freed memory back to the system."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
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


def _load_trim() -> Callable[[int], int] | None:
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
        return trim
    except (OSError, AttributeError):  # not glibc (macOS, Windows, musl): nothing to give back
        return None


_TRIM: Callable[[int], int] | None = None
_TRIM_LOADED = False


def give_back() -> None:
    """Give the C heap's free memory back to the system after a large value is dropped.

    A large trace's long strings live in the C heap (anything over 512 bytes), and freeing
    them leaves that memory to the heap, not to the system; what is parsed next (provenance,
    the next file) is mostly small objects, which Python takes from fresh pages of its own. So
    the peak was the two together although only one was alive. glibc's `malloc_trim` returns
    the free pages; elsewhere this does nothing.
    """
    global _TRIM, _TRIM_LOADED
    if not _TRIM_LOADED:
        _TRIM, _TRIM_LOADED = _load_trim(), True
    if _TRIM is not None:
        _TRIM(0)
