"""A token whose prefix names it a secret (`key-…`, `secret_…`, `tskey-auth-…`, `dckr_pat_…`,
`lin_api_…`, `pat-na1-…`), whatever service issued it.

Services mark their tokens with a prefix so scanners can find them, and many of those prefixes
hold a word that says what the token is: key, secret, token, pat, api, auth, pass. The engine
and `TOKEN_RULES` know the prefixes they were written for; this rule reads the convention, so a
service no list names is covered too: a prefix of up to four parts (split by `_`, `-` or
`.`), one of them such a word, then a run of at least 20 letters and digits that looks
machine-made. Identifiers (`msg_01…`, `toolu_01…`, `call_…`) carry no such word; names made of
words (`secret_key_base`, `api_key_for_the_service`) have no random run; a digest after a
prefix (`cache-key-<sha256>`) is hex only, and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ._anchors import Anchors
from ._base import CREDENTIAL, Hit, looks_random, past_escape

# Words that say a prefix's token is a secret (a part equal to one, or ending in key/token/secret)
_WORDS = frozenset({"key", "apikey", "api", "token", "tok", "tkn", "secret", "pat", "pass", "pwd", "pw", "auth",
                    "cred", "creds", "priv"})
_ENDINGS = ("key", "token", "secret")
# The common words are searched for once per text and shared with `assignment`. The short ones,
# common inside other words (`api.` in hosts, `pat` in `path`), would be found too often: the
# engine reports them in its one pass only where the shape of a token follows (its rule below,
# in its regex dialect; `Anchors.prefixes`), and where no engine runs they are searched here.
WORD_ANCHORS = ("pass", "pwd", "secret", "token", "key", "auth", "cred")
_SHORT = ("api", "pat", "tok", "tkn", "pw", "priv")
PREFIX_ANCHOR_PATTERN = ("((?:" + "|".join(v for w in _SHORT for v in dict.fromkeys((w, w.capitalize(), w.upper())))
                         + r")[_-](?:[A-Za-z0-9]{1,24}[_.-]){0,3}[A-Za-z0-9]{20})")
_SHORT_WORD = re.compile(r"(?:" + "|".join(_SHORT) + r")[_-]", re.IGNORECASE)
_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_SHAPE = re.compile(r"(?P<prefix>(?:[A-Za-z0-9]{1,24}[_.-]){1,4}?)(?P<run>[A-Za-z0-9]{20,512})"
                    r"(?:[_-][A-Za-z0-9]{1,512}){0,4}")
_HEX = re.compile(r"[0-9a-fA-F]+")
# from an anchor: the rest of its part, then prefix parts, then a run of 20 (the whole token:
# the token characters that follow, at most ~1 KB); the part before an anchor, read backwards
_TAIL = re.compile(r"[A-Za-z0-9]{0,21}[_.-](?:[A-Za-z0-9]{1,24}[_.-]){0,3}[A-Za-z0-9]{20}[A-Za-z0-9_.-]{0,1024}")
_LEFT = re.compile(r"[A-Za-z0-9_.-]{0,64}")
_SEPARATORS = re.compile(r"[_.-]")
_BEFORE = frozenset("/+=%\\")  # inside base64, a URL's path or an escape: not where a token starts


def _secret_part(part: str) -> bool:
    p = part.lower()
    return p in _WORDS or (len(p) > 3 and p.endswith(_ENDINGS))


def prefixed_token(text: str, anchors: Anchors) -> Iterator[Hit]:
    done = 0
    short = anchors.prefixes if anchors.prefixes is not None else [m.start() for m in _SHORT_WORD.finditer(text)]
    for i in sorted(anchors.find(WORD_ANCHORS, ignore_case=True) + short):
        # most anchors (`"input_tokens":`, `path`) have no 20-character run after them: one
        # match at the anchor rules them out before anything is sliced
        if i < done or (tail := _TAIL.match(text, i)) is None:
            continue
        end = done = tail.end()
        start = i - len(_LEFT.match(text[max(0, i - 65) : i][::-1]).group())  # type: ignore[union-attr]
        if start > 0 and text[start - 1] in _TOKEN_CHARS:
            continue  # a longer run than a prefix: not where a token starts
        moved = past_escape(text, start)  # `\nkey-…`, `%3Dkey-…`: the escape is not the token's
        if moved == start and start > 0 and text[start - 1] in _BEFORE:
            continue
        start = moved
        while end > start and text[end - 1] in "_.-":
            end -= 1
        m = _SHAPE.fullmatch(text, start, end)
        if m is None or not any(_secret_part(p) for p in _SEPARATORS.split(m["prefix"][:-1])):
            continue
        run = m["run"]
        if not _HEX.fullmatch(run) and looks_random(run, 20):
            yield Hit(m.start(), m.end(), CREDENTIAL, "prefixed-token")
