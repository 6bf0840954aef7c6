"""Where rule literals occur in a text (Anchors). Which literals the engine reports itself is
the engine's side (_native.py): Anchors is given that set, so it depends on no rule."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

_CONTINUATION = bytes.maketrans(bytes(range(0x80, 0xC0)), b"\x80" * 0x40)


@functools.lru_cache(maxsize=256)
def _plan(literals: tuple[str, ...], native: frozenset[str], search_all: bool) -> tuple[
        tuple[str, ...], dict[str, tuple[str, ...]]]:
    """A rule's literals split once: those searched for in the text, and those the engine
    reports, by their first two characters (lower-cased, as `Anchors._buckets` keys them)."""
    searched = tuple(lit for lit in literals if search_all or lit not in native)
    by_head: dict[str, list[str]] = {}
    for lit in literals:
        if not search_all and lit in native:
            by_head.setdefault(lit[:2].lower(), []).append(lit)
    return searched, {head: tuple(lits) for head, lits in by_head.items()}


class Anchors:
    """Where literals occur in a text: found in its UTF-8 bytes (memchr-fast, and `bytes.lower`
    is ASCII-only so offsets do not move), returned as sorted str indices.

    Rare literals (`native`: _native.NATIVE_ANCHORS) are found by the engine in its own
    single pass when it can (`engine` = their positions); then they are not searched for
    here at all. `cased_only`: `native` holds only the cased literals, looked up without
    ignore_case; the any-case ones are searched here, mixed case included (what a text
    without engine anchors gets: a decoded view, see Redactor._view_anchors).
    """

    def __init__(self, text: str, data: bytes | None = None, engine: list[int] | None = None, *,
                 native: frozenset[str] = frozenset(), cased_only: bool = False) -> None:
        self.text = text
        self.data = text.encode("utf-8") if data is None else data
        self.engine = engine  # positions of the `native` literals, or None: search them here
        self._native = native  # the literals `engine` answers for
        self._cased_only = cased_only
        self.phone: list[int] | None = None  # where phone numbers may start, if the engine said
        # where card numbers and IBANs may stand (engine matches: start, end), if the engine said
        self.numbers: list[tuple[int, int]] | None = None
        # where name/value records may stand (engine matches: start, end), if the engine said
        self.pairs: list[tuple[int, int]] | None = None
        # where a short word for a secret starts a token's prefix (`api_…`, `pat-…`), if the engine said
        self.prefixes: list[int] | None = None
        # where a run of a dozen short lower-case words stands (engine matches), if the engine said
        self.words: list[tuple[int, int]] | None = None
        # where a postcode of a shape of its own may stand (`WC2B 3RH`), if the engine said
        self.postcodes: list[int] | None = None
        # where each of the rules' shapes stands (engine matches by shape name: start, end), if the engine said
        self.shapes: dict[str, list[tuple[int, int]]] | None = None
        self._lower: bytes | None = None
        self._marks: bytes | None = None
        self._by_head: dict[str, list[int]] | None = None
        self._found: dict[tuple[str, bool], list[int]] = {}
        # set by rules that met a secret name or URL whose value holds an escape
        self.want_json_view = False

    def shaped(self, name: str, fallback: re.Pattern[str]) -> list[tuple[int, int]]:
        """Where the rules' shape `name` stands (start, end): the engine's matches when it ran,
        else `fallback`'s, the same shape in Python's dialect (a decoded view, no engine)."""
        found = self.shapes.get(name) if self.shapes is not None else None
        return found if found is not None else [m.span() for m in fallback.finditer(self.text)]

    def find(self, literals: Iterable[str], *, ignore_case: bool = False) -> list[int]:
        out: list[int] = []
        if self.engine is None:
            for lit in literals:
                out += self._search(lit, ignore_case)
            out.sort()
            return out
        searched, by_head = _plan(tuple(literals), self._native, ignore_case and self._cased_only)
        for lit in searched:
            out += self._search(lit, ignore_case)
        if self.engine and by_head:
            # the engine's few places, each against the literals that begin as it does (a rule
            # asks for hundreds of literals: one look-up per literal cost more than this)
            text = self.text
            for head, cands in self._buckets().items():
                for lit in by_head.get(head, ()):
                    n = len(lit)
                    out += [i for i in cands if (text[i : i + n].lower() if ignore_case else text[i : i + n]) == lit]
        out.sort()
        return out

    def _buckets(self) -> dict[str, list[int]]:
        """Engine anchor positions by their first two chars (lower-cased)."""
        if self._by_head is None:
            self._by_head = {}
            for i in self.engine or ():
                self._by_head.setdefault(self.text[i : i + 2].lower(), []).append(i)
        return self._by_head

    def _search(self, lit: str, ignore_case: bool) -> list[int]:
        # rules share literals (`token`, `pass`, `key`…): each is searched once per text
        key = (lit, ignore_case)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._search_bytes(lit, ignore_case)
        return found

    def _search_bytes(self, lit: str, ignore_case: bool) -> list[int]:
        if ignore_case and self._lower is None:
            self._lower = self.data.lower()
        hay = self._lower if ignore_case and self._lower is not None else self.data
        needle = (lit.lower() if ignore_case else lit).encode("utf-8")
        found = []
        i = hay.find(needle)
        while i >= 0:
            found.append(i)
            i = hay.find(needle, i + 1)
        return self.chars(found)

    def chars(self, offsets: list[int]) -> list[int]:
        """Sorted byte offsets (at char starts) -> str indices."""
        if len(self.data) == len(self.text) or not offsets:
            return offsets
        if self._marks is None:  # every continuation byte becomes 0x80: counted in C below
            self._marks = self.data.translate(_CONTINUATION)
        out, prev, chars = [], 0, 0
        for b in offsets:
            chars += (b - prev) - self._marks.count(b"\x80", prev, b)
            prev = b
            out.append(chars)
        return out

