"""How texts are cut and joined for the scan: long texts in overlapping chunks, short ones in
batches joined by a separator, and the hits of a joined text given back to each text."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate

from ._base import Hit

# Kingfisher is scanned in chunks this long (chars) that overlap by more than the longest
# secret it matches, so a secret on a chunk border is whole in one of them.
CHUNK = 1 << 20
OVERLAP = 80 << 10
# Many short strings are scanned as one text (one engine call, one pass of each rule),
# joined by a separator that no rule matches across: a line holding only a control char.
SEPARATOR = "\n\x1e\n"
BATCH_CHARS = 1 << 16


def batches(texts: list[str]) -> Iterator[list[str]]:
    """Consecutive groups of texts of about BATCH_CHARS in all (a longer text goes alone)."""
    batch: list[str] = []
    size = 0
    for t in texts:
        if batch and size + len(t) > BATCH_CHARS:
            yield batch
            batch, size = [], 0
        batch.append(t)
        size += len(t) + len(SEPARATOR)
    if batch:
        yield batch


def distribute(hits: list[Hit], lengths: list[int]) -> list[list[Hit]]:
    """Hits in the joined text -> hits per text (a hit across a separator is cut in parts)."""
    per: list[list[Hit]] = [[] for _ in lengths]
    if not hits:
        return per
    starts = list(accumulate((n + len(SEPARATOR) for n in lengths[:-1]), initial=0))
    for h in hits:
        i = max(0, bisect_right(starts, h.start) - 1)
        while i < len(starts) and starts[i] < h.end:
            lo, hi = max(h.start, starts[i]) - starts[i], min(h.end, starts[i] + lengths[i]) - starts[i]
            if hi > lo:  # the secrets found in it (Hit.parts) go with it, in this text's offsets
                parts = tuple((a - starts[i], b - starts[i]) for a, b in h.parts
                              if starts[i] <= a and b <= starts[i] + lengths[i])
                per[i].append(Hit(lo, hi, h.kind, h.rule, parts))
            i += 1
    return per


def chunks(text: str) -> Iterator[tuple[int, str]]:
    """Overlapping chunks (offset, text) for the engine, cut after a newline where possible."""
    n = len(text)
    if n <= CHUNK:
        yield 0, text
        return
    start = 0
    while True:
        end = min(n, start + CHUNK)
        if end < n:
            nl = text.rfind("\n", end - OVERLAP, end)
            if nl > start:
                end = nl + 1
        yield start, text[start:end]
        if end >= n:
            return
        start = end - OVERLAP

