"""Known once, masked everywhere: a value masked as a secret anywhere in a session is masked
wherever else it stands in that session (a title, a later message, an earlier one when the
session was learnt first), with the same placeholder.

Only distinctive values spread: a bare word (`postgres` as the password of `postgres`) or a
number would mask ordinary text everywhere, so they stay masked only where a rule found them.
A value said to be a password (`my password is tangerine-velvet-88`, `--pass X`, `{"passwort": X}`)
spreads when it is distinctive as a whole, though made of words (`said_whole`).
"""

from __future__ import annotations

import json
import os.path
import re
import urllib.parse
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import TYPE_CHECKING

from ._base import _ALNUM, _WORDY, CREDENTIAL, PRIVATE_KEY, Hit, is_template, left_ok, looks_random, wide
from ._values import PASSWORD_FORMS, code_like, name_tier, password_like
from .languages import ends_in_password_word, key_word

if TYPE_CHECKING:
    from ._anchors import Anchors

SPREAD_KINDS = frozenset({CREDENTIAL, PRIVATE_KEY})
MIN_LEN = 6
MAX_LEN = 4096
MAX_VALUES = 5000  # per Redactor: each value is one search of every text


def distinctive(value: str, *, said: bool = False) -> bool:
    """A value that cannot be ordinary text: long enough, not a word, not a number, one line.
    `said`: the value stands after a word for a password (`said_password`), and is then one
    too when the whole of it is distinctive (`said_whole`)."""
    if said and said_whole(value):
        return True
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


# A password a person made of words (`tangerine-velvet-88`, `Blue-Monkey-42`, `velvet!tangerine`)
# fails the word tests above, made for a name a rule took for a value. Said to be a password,
# it is one when the whole of it cannot be ordinary text:
# - 10 to 64 characters (`sha256`, `utf8mb4`, `v2-beta` are short);
# - a joiner or a symbol in it: no name in code (`s3_aws_secret_access_key`, `PositionalIndexer2D`,
#   `hashed_pw_2` after `password =`);
# - no `.`, `/`, `:`, `=`, `@` (a dotted name, a path, a time, a setting, an address), no blank,
#   no run of a symbol (a value shown masked: `very****pass`);
# - two words of 3+ letters, and one or two groups of digits or a symbol: not words alone
#   (`read-only-mode`, `not-set-yet`), not a version or a date (`ubuntu-22-04`, `us-east-1`,
#   `release-2024-05-01`).
# Said only: a model's name has this shape too (`text-davinci-003`, taken for a token's value).
_SAID_CHARS = re.compile(r"[\w!#&*+?~^-]+")
_SAID_JOINERS = frozenset("-!#&*+?~^")  # not `_`: a name in code is joined by it
_WORDS = re.compile(r"[A-Z]?[^\W\d_A-Z]{2,}|[A-Z]{3,}")  # `Blue`, `velvet`, `contraseña`, `TANGERINE`
_DIGITS = re.compile(r"\d+")
_MASK_RUN = re.compile(r"([^\w-])\1\1")  # a value shown masked: `very****pass`


def said_whole(value: str) -> bool:
    """A value said to be a password, distinctive as a whole though made of words."""
    if not 10 <= len(value) <= 64 or not _SAID_CHARS.fullmatch(value) or is_template(value):
        return False
    if not any(c in _SAID_JOINERS for c in value) or _MASK_RUN.search(value):
        return False
    digits = len(_DIGITS.findall(value))
    symbol = any(c in _SAID_JOINERS and c != "-" for c in value)
    return len(_WORDS.findall(value)) >= 2 and digits <= 2 and (digits >= 1 or symbol)


# What stands between a word for a password and its value: blanks, quotes, separators, and a
# few words of the clause (`my password is X`, `password for the staging db is X`, `mein Passwort
# ist X`, `root密码为X`); not a sentence's end nor a comma
_BETWEEN = " \t\r\n\"'`\\:=>-—–«“‘「『("
_LAST_NAME = re.compile(r"[\w.-]+\Z")
_WORDS_BACK = 8  # words of the clause between them, at most
# a password's name says so (`PASSWORD`, `--pass`, `dbpwd`, `SMTP_PSWD`, `psk`): a secret's alone
# names what a machine made as well (`SECRET_KEY`), or a store's entry (`existingSecret: db-creds-2`)
_PASSWORD_PART = re.compile(r"pass|pw|psw|psk", re.IGNORECASE)


def said_password(text: str, start: int) -> bool:
    """The value at `start` stands after a word for a password a person chose, as a name
    (`PASSWORD=`, `--pass`, `"db_password": "`) or in the clause before it, English or another
    language (`my password is`, `mot de passe est`, `密码是`), with no word for a token nearer
    (`the token is X`, `tiktoken.encoding_for_model("X")`): a rule found it as a password."""
    head = text[max(0, start - 96) : start]
    for _ in range(_WORDS_BACK):
        bare = head.rstrip(_BETWEEN)
        sep = head[len(bare) :]
        head = bare
        if ends_in_password_word(head) or _before_particle(head):
            return True
        m = _LAST_NAME.search(head)
        if m is None:
            return False
        name = m.group().lstrip("-.")
        tier = name_tier(name)
        if name.lower() == "pass" and not (m.group().startswith("-") or ":" in sep or "=" in sep):
            tier = 0  # a verb ("tests pass with X"), not a flag nor a label
        if (tier == 1 and _PASSWORD_PART.search(name)) or name.lower() in PASSWORD_FORMS:
            return True  # (`pw` alone is a password in prose: "the root pw is X")
        if tier or not name.isalpha():
            return False  # a token's or a secret's word, or no plain word of the clause
        head = head[: m.start()]
    return False


def _before_particle(head: str) -> bool:
    """`密码是`, `パスワードは`, `비밀번호는`: the word, and a particle of one or two characters."""
    return any(len(head) > k and all(wide(c) for c in head[-k:]) and ends_in_password_word(head[:-k]) for k in (1, 2))


def said_password_key(key: str) -> bool:
    """A record's key names a password a person chose (`password`, `db_pass`, `passwort`): its
    value, masked whole, is said to be one."""
    word = key_word(key)
    return (name_tier(key) == 1 and _PASSWORD_PART.search(key) is not None) or (
        word is not None and ends_in_password_word(word))


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


def said_values(text: str, start: int, end: int, decoded: str) -> list[tuple[str, bool]]:
    """`learnt_values` of the span masked at text[start:end], each with whether it was said to be
    a password (looked up only when a value of it may spread so: `said_whole`)."""
    values = learnt_values(text[start:end], decoded)
    said = any(said_whole(v) for v in values) and said_password(text, start)
    return [(v, said) for v in values]


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

    def add(self, values: Iterable[tuple[str, str, bool]]) -> bool:
        """Learn (kind, normalised value, said to be a password) triples; True if anything new
        was learnt."""
        new = False
        for kind, value, said in values:
            if kind not in SPREAD_KINDS or len(self.kinds) >= MAX_VALUES or not distinctive(value, said=said):
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
