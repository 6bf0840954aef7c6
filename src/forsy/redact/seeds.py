"""A wallet's recovery phrase (BIP-39 mnemonic): 12 to 24 words, each of one of the standard
word lists. Whoever reads it holds the wallet, so it is masked whole wherever it stands (a
`MNEMONIC=` line, a JSON array of words, a numbered list, prose), with no label needed.

The word lists are the reference implementation's (the `mnemonic` package, Trezor's), read
once when first needed. Only the lists written in ASCII letters are read (English, Italian,
Czech, Portuguese): the engine finds where a run of a dozen short lower-case words stands
(SEED_ANCHOR_PATTERN), which is rare in logs, and each run found is looked up here. A run of
more than 24 listed words is a word list, not a phrase, and is kept.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from importlib import resources
from typing import TYPE_CHECKING

from ._base import PRIVATE_KEY, Hit

if TYPE_CHECKING:
    from ._anchors import Anchors

LANGUAGES = ("english", "italian", "czech", "portuguese")
SHORTEST, LONGEST = 12, 24  # the phrase lengths BIP-39 defines are 12, 15, 18, 21 and 24 words
# what stands between two words: spaces or newlines (raw or escaped), commas and quotes (a
# JSON array), a number and a dot or bracket (a numbered list), in any mix (`_GAP`; not `\s`,
# which takes the separator between the texts of a batch for a space). The engine
# looks only for runs with one separator repeated (a class of separators made its pass 8x
# slower): every way a phrase is written whole, one word after another.
_GAP = r"[ \t\r\n,\"'.)(0-9\\]{1,8}"
# 3 to 8 letters, as every word of the English, Czech and Portuguese lists (a 9th letter made
# the engine's pass 7x slower: it reported five times as many runs); an Italian phrase with a
# 9-letter word is found where no engine runs, as in a decoded view
_W = "[a-z]{3,8}"
# (the engine reads escaped text with `\n` as a newline and a space, `\"` as a quote and a space)
_SEPARATORS = (" ", ", ", "\\n ?", '" ?, ?" ?', " [0-9]{1,2}[.)] ", "\\n ?[0-9]{1,2}[.)] ")
SEED_ANCHOR_PATTERN = "(" + "|".join(f"(?:{_W}{sep}){{{SHORTEST - 1}}}{_W}" for sep in _SEPARATORS) + ")"
_ESCAPE = re.compile(r"\\[nrt]")
_WORD = re.compile(r"[A-Za-z]+")
_GAP_FULL = re.compile(_GAP)
_REACH = 24 * 16  # characters around an engine match where its phrase may go on


@functools.cache
def word_lists() -> tuple[frozenset[str], ...]:
    """The words of each list in LANGUAGES, then of all of them."""
    folder = resources.files("mnemonic") / "wordlist"
    lists = [frozenset((folder / f"{lang}.txt").read_text("utf-8").split()) for lang in LANGUAGES]
    return (*lists, frozenset().union(*lists))  # the last: all of them


def seed_phrase(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Each run of 12 to 24 words of one BIP-39 list, whole."""
    for lo, hi in _regions(text, anchors):
        yield from _phrases(text, lo, hi)


def _regions(text: str, anchors: Anchors) -> Iterator[tuple[int, int]]:
    """Where the engine said a run stands, widened by a phrase's length each side (its matches
    do not overlap: a long run is several), regions that meet joined; else the whole text."""
    if anchors.words is None:  # no engine report for this text
        yield 0, len(text)
        return
    region: tuple[int, int] | None = None
    for s, e in anchors.words:
        lo, hi = max(0, s - _REACH), min(len(text), e + _REACH)
        if region is not None and lo <= region[1]:
            region = (region[0], hi)
            continue
        if region is not None:
            yield region
        region = (lo, hi)
    if region is not None:
        yield region


def _phrases(text: str, lo: int, hi: int) -> Iterator[Hit]:
    window = _ESCAPE.sub("  ", text[lo:hi])  # `\n` between two words: not a letter of the next
    lists = word_lists()
    listed = lists[-1]  # every list's words
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(window)]
    if sum(w in listed for _, _, w in words) < SHORTEST:
        return
    n = 0
    while n < len(words):
        if words[n][2] not in listed:
            n += 1
            continue
        run = _run(window, words, n, lists)
        if SHORTEST <= len(run) <= LONGEST:
            yield Hit(lo + run[0][0], lo + run[-1][1], PRIVATE_KEY, "seed-phrase")
        n += max(1, len(run))


def _run(window: str, words: list[tuple[int, int, str]], n: int,
         lists: tuple[frozenset[str], ...]) -> list[tuple[int, int, str]]:
    """The longest run from word n whose words are all of one list, each gap a gap."""
    best: list[tuple[int, int, str]] = []
    for wl in lists[:-1]:
        run: list[tuple[int, int, str]] = []
        for k in range(n, len(words)):
            s, e, w = words[k]
            if w not in wl or (run and not _GAP_FULL.fullmatch(window, run[-1][1], s)):
                break
            run.append(words[k])
        best = max(best, run, key=len)
    return best
