"""Known once, masked everywhere: a value masked as a secret anywhere in a session is masked
wherever else it stands in that session (a title, a later message, an earlier one when the
session was learnt first), with the same placeholder.

Only distinctive values spread: a bare word (`postgres` as the password of `postgres`) or a
number would mask ordinary text everywhere, so they stay masked only where a rule found them.
"""

from __future__ import annotations

import json
import os.path
import re
import urllib.parse
from collections.abc import Iterable, Iterator
from itertools import islice
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
# `db=X`, `--password=X`: a name, `=`, the value (one word: a longer text is not one pair)
_NAMED = re.compile(r"-{0,2}[A-Za-z_][\w.-]{0,63}=(?P<secret>\S{6,})")
# a URL's user info: `postgres://user:X@host/db`, masked whole by an engine rule
_USERINFO = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\s:/?#@]{0,128}:(?P<secret>[^\s/?#@]{6,256})@")
# what stands around a value in the text a rule masked with it: blanks, quotes, brackets, a
# separator before it (`-p:X`), punctuation after it (`X',` of a decoded view's span, widened
# to whole escapes)
_BEFORE = " \t\r\n\"'`([{<:="
_AFTER = " \t\r\n\"'`)]}>,;.:"
# a line of a key block's body: base64 or hex, alone on its line (real or escaped newlines)
_BODY_LINE = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_LINE_BREAK = re.compile(r"\r?\n|(?:\\{1,3}r)?\\{1,3}n")
MAX_LINES = 64  # of one block: each line learnt is one more search of every text


def learnt_values(raw: str, decoded: str) -> set[str]:
    """What a masked value teaches: the value as written and as decoded, and the secret alone
    where the mask is wider than it (a rule may mask more than the value, a field is masked
    whole): the secret of a `user:secret` pair (`--auth=bob:X` masked whole: X alone is still
    that secret), of a `name=X` pair and of a URL's user info; the value without the quotes,
    brackets and separators around it (`'X'`, `:X`, `X',`); the first and the last word of a
    mask holding blanks (`X) and retried` of a value running on, `Bearer X`); the lines of a
    key block's body. Only distinctive ones spread (KnownSecrets.add)."""
    out = {raw, decoded}
    for v in (raw, decoded):
        out |= _inner(v)
    return out


def _inner(value: str) -> set[str]:
    if _LINE_BREAK.search(value.strip()):  # a block: its body's lines (its labels and headers are no secret)
        lines = (line.strip() for line in _LINE_BREAK.split(value))
        return set(islice((line for line in lines if _BODY_LINE.fullmatch(line)), MAX_LINES))
    words = value.split()
    out = {_trim(value)}
    if len(words) > 1:
        out |= {_trim(words[0]), _trim(words[-1])}
    for v in (value, *out):
        for pattern in (_USER_PAIR, _NAMED, _USERINFO):
            m = pattern.fullmatch(v) if pattern is not _USERINFO else pattern.match(v)
            if m is not None:
                out.add(m["secret"])
    return out


def _trim(value: str) -> str:
    return value.lstrip(_BEFORE).rstrip(_AFTER)


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
        # what is searched: the forms of one value share their start (`ab/c` and `ab%2Fc`), so
        # where that start is distinctive it is searched once for all of them (a key's body
        # lines are many values: each search is one more pass over every text)
        self._heads: set[str] = set()

    def __bool__(self) -> bool:
        return bool(self.kinds)

    def add(self, values: Iterable[tuple[str, str]]) -> bool:
        """Learn (kind, normalised value) pairs; True if anything new was learnt."""
        new = False
        for kind, value in values:
            if kind not in SPREAD_KINDS or len(self.kinds) >= MAX_VALUES or not distinctive(value):
                continue
            forms = written_forms(value)
            head = os.path.commonprefix(list(forms))  # not a word: `postgres` of a URI would be found everywhere
            self._heads.update([head] if distinctive(head) else forms)
            for form in forms:
                if form not in self.kinds:
                    self.kinds[form] = kind
                    new = True
        if new:
            self._ordered = tuple(sorted(self.kinds, key=len, reverse=True))
        return new

    def __call__(self, text: str, anchors: Anchors | None = None) -> Iterator[Hit]:
        """Occurrences in `text` (str.find per head: no byte copy of the text is needed)."""
        if not self._ordered:
            return
        starts: set[int] = set()
        for head in self._heads:
            i = text.find(head)
            while i >= 0:
                starts.add(i)
                i = text.find(head, i + 1)
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
