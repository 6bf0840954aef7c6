"""A JSON Web Key's private members (RFC 7517, 7518, 8037): an RSA key's `d`, `p`, `q`, `dp`,
`dq`, `qi`, an EC or OKP key's `d`, a symmetric (`oct`) key's `k`. Whoever holds them holds the
key, as with a PEM block; the public members (`n`, `e`, `x`, `y`, `kid`) stay.

A JWK is a flat JSON object with a `kty` member: its members are read between the braces
around that `kty` (raw, or JSON-escaped in a string, as a tool's output holds it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import PRIVATE_KEY, Hit

if TYPE_CHECKING:
    from ._anchors import Anchors

JWK_ANCHORS = ("kty",)  # rare in logs; the engine reads an escaped quote as a quote and a blank
_OBJECT = 16384  # how far a key's braces are looked for (an RSA-4096 key's members are ~3 KB)
_PRIVATE = re.compile(r'\\{0,3}"(?:d|p|q|dp|dq|qi|k)\\{0,3}"[ \t]*:[ \t]*\\{0,3}"(?P<v>[A-Za-z0-9_-]{16,})\\{0,3}"')


def jwk_private(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The private members of each JSON Web Key."""
    done = -1
    for i in anchors.find(JWK_ANCHORS):
        if i < done or not (text[i - 1 : i] == '"' and text.startswith(("kty\"", "kty\\\""), i)):
            continue  # the member's name, quoted (raw or escaped)
        start = text.rfind("{", max(0, i - _OBJECT), i)
        end = text.find("}", i, i + _OBJECT)
        if start < 0 or end < 0 or "}" in text[start:i]:
            continue  # not the object `kty` is a member of
        for m in _PRIVATE.finditer(text, start, end):
            yield Hit(m.start("v"), m.end("v"), PRIVATE_KEY, "jwk-private")
        done = end
