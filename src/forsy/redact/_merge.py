"""Overlapping hits -> sorted, non-overlapping spans to mask."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator

from ._base import (
    ADDRESS,
    BANK_ACCOUNT,
    BIRTH_DATE,
    CREDENTIAL,
    EMAIL,
    ID_NUMBER,
    IP_ADDRESS,
    PATH_USER,
    PAYMENT_CARD,
    PERSON,
    PHONE,
    PLACEHOLDER,
    PLACEHOLDER_RE,
    PRIVATE_KEY,
    Hit,
)
from ._known import SPREAD_KINDS
from .pieces import continued

# When spans of different kinds overlap, the merged span takes the most sensitive kind
KIND_RANK = {PRIVATE_KEY: 0, CREDENTIAL: 1, PAYMENT_CARD: 2, BANK_ACCOUNT: 3, ID_NUMBER: 4, BIRTH_DATE: 5, EMAIL: 6,
             PHONE: 7, ADDRESS: 8, IP_ADDRESS: 9, PERSON: 10, PATH_USER: 11, PLACEHOLDER: 12}
# forsy rules that find exactly the secret part of what an engine rule matches whole: a
# connection string's password (not host, port, database), curl's `user:PASSWORD`
EXACT_RULES = frozenset({"url-password", "curl-user"})
# placeholders that stand where an engine rule sees a secret (`postgres://u:your_password@db`)
URI_PLACEHOLDER_RULES = frozenset({"url-password", "shell-default"})


# ---------------------------------------------------------------- merging
def resolve(text: str, hits: list[Hit]) -> list[Hit]:
    """Sorted, non-overlapping spans; hits that are only existing placeholders dropped."""
    if not hits:
        return []
    if "[" in text:
        placeholders = [m.span() for m in PLACEHOLDER_RE.finditer(text)]
        if placeholders:
            hits = [h for h in (_around_placeholders(text, h, placeholders) for h in hits) if h is not None]
    if any(h.rule in EXACT_RULES or h.kind == PLACEHOLDER for h in hits):
        hits = narrowest(text, hits)
    stand_ins = [h for h in hits if h.kind == PLACEHOLDER]
    if stand_ins:
        hits = [h for h in hits if h.kind != PLACEHOLDER]
    hits.sort(key=lambda h: (h.start, -h.end, KIND_RANK[h.kind]))
    merged = _merge(continued(text, _merge(hits)))  # a token wrapped over lines: masked over them
    if stand_ins:  # reported only where nothing is masked
        kept = [p for p in _merge(sorted(stand_ins, key=lambda h: (h.start, -h.end)))
                if not any(m.start < p.end and p.start < m.end for m in merged)]
        merged = sorted(merged + kept, key=lambda h: h.start)
    return merged


def narrowest(text: str, hits: list[Hit]) -> list[Hit]:
    """Engine spans that hold a forsy span of exactly the secret give way to it; engine spans
    over a URI whose password is a documentation placeholder are dropped."""
    exact = sorted((h for h in hits if h.rule in EXACT_RULES and h.kind == CREDENTIAL), key=lambda h: h.start)
    stand_ins = sorted((h for h in hits if h.kind == PLACEHOLDER and h.rule in URI_PLACEHOLDER_RULES),
                       key=lambda h: h.start)

    def inside(h: Hit, spans: list[Hit]) -> Iterator[Hit]:
        """The spans that start in h and end in it (bisect: linear in the spans, not quadratic)."""
        i = bisect_left([s.start for s in spans], h.start) if len(spans) > 8 else 0
        while i < len(spans) and spans[i].start < h.end:
            if spans[i].start >= h.start and spans[i].end <= h.end:
                yield spans[i]
            i += 1

    def wider(h: Hit) -> bool:
        if not h.rule.startswith("kingfisher:"):
            return False
        if any(e.end - e.start < h.end - h.start for e in inside(h, exact)):
            return True
        # over the URI, or the placeholder alone (`postgres://USER:PASSWORD@HOST`: the engine's span is
        # the password's, which url_password read as documentation's slot)
        return any(s.start == h.start or "://" in text[h.start : h.end] for s in inside(h, stand_ins))

    def host(h: Hit) -> bool:
        """An "email" whose `@` follows a URL's password is `password@host`: the host stays."""
        return h.kind == EMAIL and any(e.rule == "url-password" and e.start <= h.start < e.end <= h.end
                                       for e in exact)

    return [h for h in hits if not wider(h) and not host(h)]


def _merge(hits: list[Hit]) -> list[Hit]:
    merged: list[Hit] = []
    for h in hits:
        if merged and h.start < merged[-1].end:
            last = merged[-1]
            kind = min(last.kind, h.kind, key=KIND_RANK.__getitem__)
            rule = last.rule if kind == last.kind else h.rule
            merged[-1] = Hit(last.start, max(last.end, h.end), kind, rule, _found(last) + _found(h))
        else:
            merged.append(h)
    return merged


def _found(h: Hit) -> tuple[tuple[int, int], ...]:
    """The secrets' spans the rules found in h: its parts once merged, else its own span.
    (A wider span from one rule must not hide the precise one another rule found.)"""
    if h.parts:
        return h.parts
    return ((h.start, h.end),) if h.kind in SPREAD_KINDS else ()


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
