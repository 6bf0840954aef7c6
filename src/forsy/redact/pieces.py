"""A secret written in pieces: string literals joined by `+` (`"sk-" + "proj-…"`, a name's value
split to fit a line), and a token wrapped over lines (a long JWT or key a terminal or a
formatter broke, a value continued with a trailing backslash).

Joined literals are read as the one string they make: under a secret's name (the assignment
rule reads on past a `+`: `joined_after`), or when a token rule's prefix starts one that goes
on across a `+`, every piece is masked. A wrapped token: where a mask ends at its line's end,
after a backslash that continues the line or on a line a long token fills (40 characters or
more, and on while the lines are that long), the next line is the token's continuation when
it is one run of the token's characters that looks machine-made (`KCAnOFU2ajYeWq95OS4I`); the
mask goes on over it (a line of words, a `key: value`, a list's `- item` end it). A JWT a
terminal wrapped before any rule masked it is read across its lines (`wrapped_jwt`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import CREDENTIAL, PRIVATE_KEY, Hit, looks_random
from ._tokens import TOKEN_FINDER
from ._values import _OPEN_QUOTE, _closing_quote
from .prefixed import prefixed_token

if TYPE_CHECKING:
    from ._anchors import Anchors

_PLUS = re.compile(r"[ \t]*\+[ \t]*")
_MAX_PIECES = 16
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=:")
_CLOSING = re.compile(r"\\{0,3}[\"'`]")


def joined_after(text: str, pos: int) -> list[tuple[int, int]]:
    """The contents of the literals joined by `+` to one that closed just before `pos` (its
    closing quote's end): `"a" + "b" + "c"` at the first's end gives the spans of b and c."""
    out: list[tuple[int, int]] = []
    while len(out) < _MAX_PIECES and (plus := _PLUS.match(text, pos)) is not None and "+" in plus.group():
        opener = _OPEN_QUOTE.match(text, plus.end())
        if opener is None:
            break
        end = _closing_quote(text, opener.end(), opener.group())
        if end < 0 or "\n" in text[opener.end() : end]:
            break
        out.append((opener.end(), end))
        pos = end + len(opener.group())
    return out


def joined_literal(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A token cut by a `+` between literals (`"sk-" + "proj-…"`, `'xoxb-' + '…'`): the token
    rules' prefixes are where one may start (a name's joined value is the assignment's)."""
    starts = sorted({*anchors.find(TOKEN_FINDER.literals), *(anchors.prefixes or ())})
    done = -1
    for i in starts:
        if i < done:
            continue
        end = i
        while end < len(text) and end - i < 256 and text[end] in _TOKEN_CHARS:
            end += 1
        closing = _CLOSING.match(text, end)
        if closing is None or end == i:
            continue
        rest = joined_after(text, closing.end())
        if not rest:
            continue
        pieces = [(i, end), *rest]
        done = pieces[-1][1]
        joined = "".join(text[s:e] for s, e in pieces)
        if _token_across(joined, [e - s for s, e in pieces]):
            yield Hit(i, pieces[-1][1], CREDENTIAL, "joined-literal")


def _token_across(joined: str, lengths: list[int]) -> bool:
    """Whether the token rules find a token in the joined string that no one piece holds: only
    where a run of token characters of 16 or more goes on across a `+`."""
    from ._anchors import Anchors  # (a fresh text: no engine anchors)

    pos = 0
    for n in lengths[:-1]:
        pos += n
        lo = hi = pos
        while lo > 0 and pos - lo < 256 and joined[lo - 1] in _TOKEN_CHARS:
            lo -= 1
        while hi < len(joined) and hi - pos < 256 and joined[hi] in _TOKEN_CHARS:
            hi += 1
        if lo == pos or hi == pos or hi - lo < 16:
            continue
        run = joined[lo:hi]
        found = [*TOKEN_FINDER(run, Anchors(run)), *prefixed_token(run, Anchors(run))]
        if any(h.start < pos - lo < h.end for h in found):
            return True
    return False


# ---------------------------------------------------------------- wrapped tokens
_CONTINUED = re.compile(r"[ \t]*(?:\\\r?\n|\\\\\\n)[ \t]*")  # a backslash that continues the line (raw or in JSON)
_NEWLINE = re.compile(r"(?:\r?\n|\\r\\n|\\n)[ \t]*")
_PIECE = re.compile(r"[A-Za-z0-9+/_.~-]{8,4096}={0,2}(?=[ \t]*(?:\r?\n|\\|[\"'`]|\Z))")
WRAP_WIDTH = 40
_MAX_LINES = 64


def continued(text: str, hits: list[Hit]) -> list[Hit]:
    """Hits of secrets that go on over the next lines (see the module), widened over them."""
    out: list[Hit] = []
    for h in hits:
        if h.kind in (CREDENTIAL, PRIVATE_KEY) and h.end < len(text) and text[h.end] in " \t\\\r\n":
            end = _wrapped_end(text, h)
            if end > h.end:
                h = Hit(h.start, end, h.kind, h.rule, h.parts or ((h.start, h.end),))
        out.append(h)
    return out


def _wrapped_end(text: str, h: Hit) -> int:
    end = h.end
    width = end - max(h.start, text.rfind("\n", 0, end) + 1, text.rfind("\\n", 0, end) + 2)
    for _ in range(_MAX_LINES):
        explicit = _CONTINUED.match(text, end)
        brk = explicit or (_NEWLINE.match(text, end) if width >= WRAP_WIDTH else None)
        if brk is None:
            return end
        piece = _PIECE.match(text, brk.end())
        if piece is None or not (looks_random(piece.group(), 8) or _hex(piece.group())):
            return end
        end = piece.end()
        width = piece.end() - piece.start()  # a short line is a wrapped token's last
    return end


# a JWT a terminal wrapped before anything masked it: its start on one line, the rest on the next
JWT_ANCHORS = ("eyJ",)
_JWT_HEAD = re.compile(r"eyJ[A-Za-z0-9_-]{5,4000}\.(?:eyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?)?(?=\r?\n|\\r?\\n)")
_JWT_WHOLE = re.compile(r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{16,}")


def wrapped_jwt(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A JWT broken over lines (`eyJ….eyJ…` then the rest on the next lines): whole, over them."""
    for i in anchors.find(JWT_ANCHORS):
        head = _JWT_HEAD.match(text, i)
        if head is None or (i > 0 and (text[i - 1].isalnum() or text[i - 1] in "-_.")):
            continue
        parts, end = [head.group()], head.end()
        for _ in range(_MAX_LINES):
            brk = _NEWLINE.match(text, end)
            piece = _PIECE.match(text, brk.end()) if brk is not None else None
            if piece is None or "=" in piece.group():
                break
            parts.append(piece.group())
            end = piece.end()
            if _JWT_WHOLE.fullmatch("".join(parts)):
                yield Hit(i, end, CREDENTIAL, "wrapped-token")
                break


def _hex(value: str) -> bool:
    return len(value) >= 8 and all(c in "0123456789abcdefABCDEF" for c in value)
