"""The parts every redaction rule is made of: kinds, hits, value checks, anchored regex rules.

Each rule is small and named; it yields `Hit`s (str offsets of the secret itself, never
the surrounding name or header, so the context stays readable). Rules are written to
run in linear time: every regex is anchored on a literal or a short keyword, repeats
are bounded, and a rule only runs when one of its trigger literals occurs in the text.

Escaped and encoded forms: token rules accept a left boundary of `\\n`, `\\t`, `\\u00XX`
or `%XX`, because agent logs keep text JSON-escaped or URL-encoded; the redactor also
scans decoded views of such text (_views.py).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._anchors import Anchors

CREDENTIAL = "CREDENTIAL"
PRIVATE_KEY = "PRIVATE_KEY"
EMAIL = "EMAIL"
PHONE = "PHONE"
PERSON = "PERSON"
PATH_USER = "PATH_USER"
PAYMENT_CARD = "PAYMENT_CARD"
BANK_ACCOUNT = "BANK_ACCOUNT"
ID_NUMBER = "ID_NUMBER"  # a person's government number: social security, passport, tax, national id
BIRTH_DATE = "BIRTH_DATE"  # a person's date of birth, after its name
IP_ADDRESS = "IP_ADDRESS"  # an address on the public internet: where a person or their machine is
ADDRESS = "ADDRESS"  # a postal address: where a person lives or receives mail
# Not masked: a documentation placeholder where a secret would be (`your_password`,
# `changeme`, `${VAR:-default}`); reported, so a reviewer knows one was seen.
PLACEHOLDER = "PLACEHOLDER"

MASKED_KINDS = (CREDENTIAL, PRIVATE_KEY, EMAIL, PHONE, PERSON, PATH_USER, PAYMENT_CARD, BANK_ACCOUNT, ID_NUMBER,
                BIRTH_DATE, IP_ADDRESS, ADDRESS)
# One numbered placeholder the redactor writes, its kind and number as groups: `[CREDENTIAL_3]`
NUMBERED_PLACEHOLDER_RE = re.compile(r"\[(" + "|".join(MASKED_KINDS) + r")_(\d+)\]")
# Placeholders this module writes; text already holding them must come out unchanged.
# (`[PATH_USER]` unnumbered: the form older traces hold)
PLACEHOLDER_RE = re.compile(r"\[(?:(?:" + "|".join(MASKED_KINDS) + r")_\d+|PATH_USER|UNSCANNABLE_TEXT)\]")


@dataclass(frozen=True, slots=True)
class Hit:
    """A span of text (str indices) to mask, with its kind and the rule that found it.

    `parts`: where hits overlapped and were merged into this one, the spans the rules found
    of a secret (a credential or key) in it, each as found: the secret alone is learnt from
    them (_known.py), not only the wider span masked. Not part of a hit's identity."""

    start: int
    end: int
    kind: str
    rule: str
    parts: tuple[tuple[int, int], ...] = field(default=(), compare=False, repr=False)


Finder = Callable[[str, "Anchors"], Iterator[Hit]]


# ---------------------------------------------------------------- value checks
def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    if n == 0:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


_WORDY = re.compile(r"[a-z]+(?:[_\-.][a-z]+)*|[A-Z]+(?:_[A-Z]+)*|[A-Z]?[a-z]+(?:[A-Z][a-z]+)+")
# `$VAR`, `${VAR}`, `$(cmd)`, `$HOME/…`, `%(name)s`, `{{ var }}`, `<your-key>`, `****`, `xxxx`, `[MASKED]`…
# (a literal that merely starts with "$", like "$*Aw9" or "$RI2Zq8", is not one)
# cmd's `%VAR%` and PowerShell's `$env:VAR` are references too.
_TEMPLATE = re.compile(r"^(?:\$(?:\{|\(|(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*)(?:$|/))|%\(|%s|\{\{|\{%|"
                       r"<[A-Za-z_ -]*>?$|\*{3,}|x{4,}$|X{4,}$|\.{3}|…|\[[A-Z_]+\]$|"
                       r"%[A-Za-z_][A-Za-z0-9_]*%$|\$[Ee][Nn][Vv]:)")


def is_template(value: str) -> bool:
    """A variable reference, template slot or mask rather than a literal secret."""
    return bool(_TEMPLATE.match(value)) or bool(PLACEHOLDER_RE.fullmatch(value))


_TOKEN_CHARS = re.compile(r"[A-Za-z0-9._~+/=:%-]+")


def looks_random(value: str, min_len: int = 12) -> bool:
    """Machine-made value (token-like): long, token chars only, mixed classes, enough entropy, not words."""
    if len(value) < min_len or is_template(value) or _WORDY.fullmatch(value) or not _TOKEN_CHARS.fullmatch(value):
        return False
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                   any(c.isdigit() for c in value)))
    if classes < 2 or value.isdigit():
        return False
    return entropy(value) >= 3.0


# ---------------------------------------------------------------- anchored regex rules
# Python's regex engine is slow (10-20 MB/s) on patterns that start with a lookbehind or
# an alternation; str.find is ~2 GB/s. So every rule is anchored on literals: find them,
# check the left boundary in Python, then `pattern.match` at that position.
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
RB = r"(?![A-Za-z0-9])"


def after_escape(text: str, i: int) -> bool:
    """Right after a JSON-escaped newline or tab (`\\npassword`): a word starts here."""
    return i >= 2 and text[i - 2] == "\\" and text[i - 1] in "nrt"


def past_escape(text: str, start: int) -> int:
    """Where a name or token found from `start` back really begins: past the letter of a `\\n`
    escape in JSON text (`\\nPASSWORD=…`) or past a `%XX` escape (`%3Dkey-…`)."""
    if start >= 1 and text[start - 1] == "\\" and text[start : start + 1] in ("n", "r", "t"):
        return start + 1
    if start >= 1 and text[start - 1] == "%" and _HEX2.fullmatch(text, start, start + 2):
        return start + 2
    return start


_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")


def line_start(text: str, i: int) -> int:
    """Where the line holding `i` starts: after a real or a JSON-escaped newline, looking at most
    400 characters back (from there when neither is found)."""
    lo = max(0, i - 400)
    j = text.rfind("\n", lo, i)
    k = text.rfind("\\n", lo, i)
    return max(j + 1 if j >= 0 else lo, k + 2 if k >= 0 else lo)


def wide(c: str) -> bool:
    """A character of a script written without spaces between words (CJK, kana, Hangul, Thai)
    or a full-width form: a word of it needs no blank around it."""
    return c >= "\u0e00" and not ("\u0f00" <= c < "\u2e80")


def longest_at(text: str, i: int, longest_first: tuple[str, ...]) -> str | None:
    """Which of a rule's words (sorted longest first) starts at `i`: the longest, so that
    `cell` is not read where `cellulare` stands."""
    return next((w for w in longest_first if text.startswith(w, i)), None)


def left_ok(text: str, i: int) -> bool:
    """A token may start here: after a non-alphanumeric char, or after an escape that ends
    in one ("\\nghp_…" in JSON text, "%3Dghp_…" URL-encoded, "\\u0022ghp_…")."""
    if i == 0 or text[i - 1] not in _ALNUM:
        return True
    c = text[i - 1]
    if i >= 2 and text[i - 2] == "\\" and c in "nrt":
        return True
    if i >= 3 and text[i - 3] == "%" and c in _HEX and text[i - 2] in _HEX:
        return True
    return i >= 6 and text[i - 6 : i - 4] == "\\u" and all(ch in _HEX for ch in text[i - 4 : i])



@dataclass(frozen=True)
class RegexRule:
    """A regex tried where one of its literals occurs; group `v` (or the match) is the secret."""

    name: str
    kind: str
    pattern: re.Pattern[str]
    literals: tuple[str, ...]
    accept: Callable[[str], bool] | None = None
    ignore_case: bool = False
    bounded: bool = True  # the literal must start a token (see left_ok)

    def __call__(self, text: str, anchors: Anchors) -> Iterator[Hit]:
        skip = -1
        for i in anchors.find(self.literals, ignore_case=self.ignore_case):
            if i >= skip and (not self.bounded or left_ok(text, i)):
                hit, skip = self.try_at(text, i)
                if hit is not None:
                    yield hit

    def try_at(self, text: str, i: int) -> tuple[Hit | None, int]:
        """The hit at i, if any, and where the next attempt of this rule may start.

        After a failure inside a very long token-char run, the rest of the run is skipped:
        "eyJ-eyJ-eyJ-…" would otherwise cost a long scan per anchor (quadratic time)."""
        m = self.pattern.match(text, i)
        if m is not None:
            start, stop = m.span("v") if "v" in self.pattern.groupindex else m.span()
            if start >= 0 and (self.accept is None or self.accept(text[start:stop])):
                return Hit(start, stop, self.kind, self.name), m.end()
        run = _TOKEN_RUN.match(text, i)
        return None, run.end() if run is not None and run.end() - i > 512 else i + 1


_TOKEN_RUN = re.compile(r"[A-Za-z0-9_-]*+")


class TokenRules:
    """All token-prefix rules, run at the positions of their prefixes (found in one pass)."""

    def __init__(self, rules: tuple[RegexRule, ...]) -> None:
        self.rules = rules
        self.literals = tuple(dict.fromkeys(lit for r in rules for lit in r.literals))
        self.by_literal: dict[str, list[RegexRule]] = {}
        for r in rules:
            for lit in r.literals:
                self.by_literal.setdefault(lit, []).append(r)
        self.lengths = sorted({len(lit) for lit in self.literals})

    def __call__(self, text: str, anchors: Anchors) -> Iterator[Hit]:
        skip: dict[str, int] = {}
        for i in anchors.find(self.literals):
            bounded = left_ok(text, i)
            for n in self.lengths:
                for rule in self.by_literal.get(text[i : i + n], ()):
                    if i >= skip.get(rule.name, -1) and (bounded or not rule.bounded):
                        hit, skip[rule.name] = rule.try_at(text, i)
                        if hit is not None:
                            yield hit


def _rx(name: str, pattern: str, literals: tuple[str, ...], *, ignore_case: bool = False,
        accept: Callable[[str], bool] | None = None, kind: str = CREDENTIAL, bounded: bool = True) -> RegexRule:
    flags = re.IGNORECASE if ignore_case else 0
    return RegexRule(name, kind, re.compile(pattern, flags), literals, accept, ignore_case, bounded)


def _token_like(v: str) -> bool:
    return looks_random(v, 16)

