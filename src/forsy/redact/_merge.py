"""Overlapping hits -> sorted, non-overlapping spans to mask."""

from __future__ import annotations

from bisect import bisect_right

from ._base import CREDENTIAL, EMAIL, PATH_USER, PERSON, PHONE, PLACEHOLDER_RE, PRIVATE_KEY, Hit

# When spans of different kinds overlap, the merged span takes the most sensitive kind
KIND_RANK = {PRIVATE_KEY: 0, CREDENTIAL: 1, EMAIL: 2, PHONE: 3, PERSON: 4, PATH_USER: 5}


# ---------------------------------------------------------------- merging
def resolve(text: str, hits: list[Hit]) -> list[Hit]:
    """Sorted, non-overlapping spans; hits that are only existing placeholders dropped."""
    if not hits:
        return []
    if "[" in text:
        placeholders = [m.span() for m in PLACEHOLDER_RE.finditer(text)]
        if placeholders:
            hits = [h for h in (_around_placeholders(text, h, placeholders) for h in hits) if h is not None]
    hits.sort(key=lambda h: (h.start, -h.end, KIND_RANK[h.kind]))
    merged: list[Hit] = []
    for h in hits:
        if merged and h.start < merged[-1].end:
            last = merged[-1]
            kind = min(last.kind, h.kind, key=KIND_RANK.__getitem__)
            rule = last.rule if kind == last.kind else h.rule
            merged[-1] = Hit(last.start, max(last.end, h.end), kind, rule)
        else:
            merged.append(h)
    return merged


def _around_placeholders(text: str, hit: Hit, placeholders: list[tuple[int, int]]) -> Hit | None:
    """Idempotence: a hit that is (mostly) a placeholder already is no hit; one that cuts
    into a placeholder is widened to hold it whole."""
    starts = [s for s, _ in placeholders]
    i = max(0, bisect_right(starts, hit.start) - 1)
    start, end = hit.start, hit.end
    residue = 0
    pos = start
    while i < len(placeholders) and placeholders[i][0] < end:
        s, e = placeholders[i]
        if e > start:
            residue += sum(c.isalnum() for c in text[pos:s]) if s > pos else 0
            pos = max(pos, e)
            start, end = min(start, s), max(end, e)
        i += 1
    if pos == hit.start:  # touches no placeholder
        return hit
    residue += sum(c.isalnum() for c in text[pos:end])
    return Hit(start, end, hit.kind, hit.rule) if residue >= 4 else None
