"""HTTP headers that carry a credential under a name of their own: `X-Hub-Signature-256`,
`X-Slack-Signature`, `Stripe-Signature`, `X-Acme-Session`, `Mcp-Session-Id`, `X-Partner-Sig`.

A header's name is words joined by `-`. The assignment rule reads the names whose words are
those of any secret's name (`X-Vault-Token`, `X-Goog-Api-Key`, `X-Hasura-Admin-Secret`); a
header names two more kinds of credential with words no setting uses so: a request's
signature (a proof of the shared secret, replayable for as long as the server accepts it)
and a session (whoever holds its id is signed in). So a header-shaped name (`Word-Word`,
no `_` or `.`, not a `--flag`) with one of those words, and no word after it that makes it
about the credential (`-Algorithm`, `-Version`, `-Expires`, `-Input`), holds one: in a raw
request or response (`X-Signature: …`), `curl -H '…: …'`, a header dict (`{"X-Signature": …}`)
or a call that sets one (`setRequestHeader("X-Signature", …)`). The value must look machine-made
(a hash, a token, `sha256=<hex>`, `t=…,v1=<hex>`); an algorithm's prefix stays readable.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import _ALNUM, CREDENTIAL, PLACEHOLDER_RE, Hit, is_template, looks_random, past_escape
from ._values import ABOUT_WORDS, _closing_quote, name_tier, password_like

if TYPE_CHECKING:
    from ._anchors import Anchors

# Words that make a header's name one of a credential, beyond the words of any secret's name
# (name_tier reads those): a request's signature, a session
HEADER_WORDS = frozenset({"signature", "sig", "sign", "session", "hmac"})
# each word after a hyphen (a header's first word is `X-` or a vendor's), found in any case
HEADER_ANCHORS = ("-sig", "-session", "-hmac")
# the engine is given each any-case literal lower, capitalised and in capitals: a literal that
# starts with `-` has no capital of its own (`X-Signature`'s `-Sig`), so that form is given here
HEADER_ANCHORS_TITLE = tuple("-" + a[1:].capitalize() for a in HEADER_ANCHORS)
# after the word, a name may go on with these and still name the credential (`-Id` only after a session's)
_AFTER = frozenset({"id", "key", "token", "value", "v1", "v2", "header"})
_NAME_CHARS = _ALNUM | {"-"}
_NOT_BEFORE = _ALNUM | {"-", "_", "."}
_HASHES = frozenset({"sha", "sha1", "sha256", "sha512", "md5"})
_HEADER_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+")
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# the name's closing quote (a dict key, a subscript's, a call's argument), then what gives it its value
_QUOTED_SEP = re.compile(r"(?P<q>\\{0,3}[\"'])\]?[ \t]*(?::|=>|=|,)[ \t]*(?P<o>\\{0,3}[\"'])")
_LINE_SEP = re.compile(r"[ \t]*:[ \t]*")
_BARE = re.compile(r"[^\s\"'`\\<>]{1,4096}")
# an algorithm's name before the proof (`sha256=…`, Slack's `v0=…`): kept readable
_ALGORITHM = re.compile(r"(?i)(?:sha\d{0,3}|md5|v\d)=")


@functools.lru_cache(maxsize=1024)
def header_tier(name: str) -> int:
    """2 when `name` is a header's (words joined by `-`) naming a signature or a session, else 0."""
    if not _HEADER_NAME.fullmatch(name) or name_tier(name):
        return 0
    words = [w.lower() for w in _WORD.findall(name)]
    last = max((i for i, w in enumerate(words) if w in HEADER_WORDS), default=-1)
    if last < 0:
        return 0
    # the hash a proof is made with goes on its name (`X-Hub-Signature-256`, `X-Shopify-Hmac-Sha256`)
    rest = [w for w in words[last + 1 :] if w not in _HASHES]
    if any(w in ABOUT_WORDS for w in rest) or not all(w.isdigit() or w in _AFTER for w in rest):
        return 0
    if "id" in rest and words[last] != "session":
        return 0  # `X-Signature-Key-Id` names which key, not the proof
    return 2


def credential_header(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The value of a header named for a signature or a session (header_tier)."""
    done = -1
    for i in anchors.find(HEADER_ANCHORS, ignore_case=True):
        if i < done:
            continue
        start, end = i, i + 1
        while start > 0 and i - start < 64 and text[start - 1] in _NAME_CHARS:
            start -= 1
        while end < len(text) and end - i < 64 and text[end] in _NAME_CHARS:
            end += 1
        grown = start
        start = past_escape(text, start)  # `\nX-Signature:` in JSON text: the `n` is the escape's
        if start == grown and start > 0 and text[start - 1] in _NOT_BEFORE:
            continue  # inside a longer name (`my_x-session`, `a.b-sig`) or a flag (`--session-id`)
        name = text[start:end]
        if not header_tier(name):
            continue
        hit = _value(text, start, end)
        if hit is not None:
            done = hit.end
            yield hit


def _value(text: str, start: int, end: int) -> Hit | None:
    sep = _QUOTED_SEP.match(text, end)
    if sep is not None:  # `"X-Signature": "…"`, `("X-Signature", "…")`
        close = _closing_quote(text, sep.end(), sep["o"])
        if close < 0:
            return None
        return _checked(text, sep.end(), close)
    sep = _LINE_SEP.match(text, end)
    if sep is None or sep.end() == end:
        return None
    bare = _BARE.match(text, sep.end())
    if bare is None:
        return None
    vend = bare.end()
    while vend > bare.start() and text[vend - 1] in ",;":
        vend -= 1
    return _checked(text, bare.start(), vend)


def _checked(text: str, start: int, end: int) -> Hit | None:
    value = text[start:end]
    if not value or is_template(value) or PLACEHOLDER_RE.search(value):
        return None
    if (m := _ALGORITHM.match(value)) is not None and len(value) - m.end() >= 16:
        start, value = start + m.end(), value[m.end() :]
    if looks_random(value, 16) or password_like(value, 16):
        return Hit(start, end, CREDENTIAL, "credential-header")
    return None
