"""Known once, masked everywhere: a value masked as a secret anywhere in a session is masked
wherever else it stands in that session (a title, a later message, an earlier one when the
session was learnt first), with the same placeholder.

Only distinctive values spread: a bare word (`postgres` as the password of `postgres`) or a
number would mask ordinary text everywhere, so they stay masked only where a rule found them.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ._base import _ALNUM, _WORDY, CREDENTIAL, PRIVATE_KEY, Hit, is_template, left_ok, looks_random
from ._values import code_like, password_like

if TYPE_CHECKING:
    from ._anchors import Anchors

SPREAD_KINDS = frozenset({CREDENTIAL, PRIVATE_KEY})
MIN_LEN = 6
MAX_LEN = 4096
MAX_VALUES = 5000  # per Redactor: each value is one search of every text


def distinctive(value: str) -> bool:
    """A value that cannot be ordinary text: long enough, not a word, not a number, one line."""
    if not MIN_LEN <= len(value) <= MAX_LEN or value.isdigit() or "\n" in value or is_template(value):
        return False
    if _WORDY.fullmatch(value) or value.strip() != value or code_like(value):
        return False
    if "&#" in value or "&lt;" in value or "&gt;" in value:
        return False  # an HTML entity's digits are not a password's
    if not any(not c.isalnum() and c not in _WEAK for c in value) and (
            _wordy_parts(value) or _word_share(value) >= 0.7 or value.startswith("=")):
        return False  # `s3_aws_secret_access_key`, `PositionalIndexer2D`, `e.toLowerCase`: a name
        # another rule took for a value (such a slip is not spread over the session)
    return password_like(value, MIN_LEN) or (looks_random(value, 16) and _classes(value) >= 3) or (
        looks_random(value, 24))


_WEAK = frozenset("-_./:=")
# words in a value: `s3_aws_secret_access_key`, `PositionalIndexer2D`, `e.toLowerCase` are
# mostly words; a random token has only short runs of letters by chance
_WORD_RUN = re.compile(r"[A-Z]?[a-z]{2,}|[A-Z]{2,}(?![a-z])")


def _word_share(value: str) -> float:
    return sum(len(m) for m in _WORD_RUN.findall(value)) / len(value)


_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _wordy_parts(value: str) -> bool:
    """Made of words (of 3+ letters) and at most one number: an identifier, not a token."""
    parts = _PARTS.findall(value)
    alpha = [p for p in parts if p.isalpha()]
    return len(alpha) >= 1 and all(len(p) >= 3 for p in alpha) and len(parts) - len(alpha) <= 1


def _classes(value: str) -> int:
    return sum((any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value)))


_USER_PAIR = re.compile(r"[\w.@\\-]{1,64}:(?P<secret>[^\s:]{6,})")


def learnt_values(raw: str, decoded: str) -> set[str]:
    """What a masked value teaches: the value as written and as decoded, and the secret of a
    `user:secret` pair (`--auth=bob:X` masked whole: X alone is still that secret)."""
    out = {raw, decoded}
    for v in (raw, decoded):
        pair = _USER_PAIR.fullmatch(v)
        if pair is not None:
            out.add(pair["secret"])
    return out


def written_forms(value: str) -> set[str]:
    """How a value may be written in other text: raw, JSON-escaped once and twice, URL-encoded."""
    once = json.dumps(value, ensure_ascii=False)[1:-1]
    twice = json.dumps(once, ensure_ascii=False)[1:-1]
    return {value, once, twice, urllib.parse.quote(value, safe="")}


class KnownSecrets:
    """Whole-word occurrences of the secret values seen so far (a finder, like a rule)."""

    rule = "known-secret"

    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}  # written form -> kind
        self._ordered: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.kinds)

    def add(self, values: Iterable[tuple[str, str]]) -> bool:
        """Learn (kind, normalised value) pairs; True if anything new was learnt."""
        new = False
        for kind, value in values:
            if kind not in SPREAD_KINDS or len(self.kinds) >= MAX_VALUES or not distinctive(value):
                continue
            for form in written_forms(value):
                if form not in self.kinds:
                    self.kinds[form] = kind
                    new = True
        if new:
            self._ordered = tuple(sorted(self.kinds, key=len, reverse=True))
        return new

    def __call__(self, text: str, anchors: Anchors | None = None) -> Iterator[Hit]:
        """Occurrences in `text` (str.find per form: no byte copy of the text is needed)."""
        if not self._ordered:
            return
        starts: set[int] = set()
        for form in self._ordered:
            i = text.find(form)
            while i >= 0:
                starts.add(i)
                i = text.find(form, i + 1)
        taken = -1
        for i in sorted(starts):
            if i < taken:
                continue
            for form in self._ordered:  # longest first
                end = i + len(form)
                if text.startswith(form, i) and _bounded(text, i, end, form):
                    taken = end
                    yield Hit(i, end, self.kinds[form], self.rule)
                    break


def _bounded(text: str, i: int, end: int, form: str) -> bool:
    """Not a part of a longer word: `abc123` is not found in `xabc123y`."""
    left = form[0] not in _ALNUM or left_ok(text, i)
    right = form[-1] not in _ALNUM or end == len(text) or text[end] not in _ALNUM
    return left and right
