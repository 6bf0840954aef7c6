"""Secrets kept as a name/value record: `{"name": "DB_PASSWORD", "value": X}`.

Kubernetes and ECS environments (`env: - name: API_KEY / value: X`), HAR headers
(`{"name": "Authorization", "value": "Bearer X"}`), a browser's saved cookies
(`{"name": "sessionid", "value": X, "domain": …}`): the secret's name is one field's value and
the secret another's, so no `name = value` rule reads it. The name decides, as in an
assignment (`name_tier`); a header's name or a cookie's fields (a `domain` beside the value)
make the value a credential too. Name first, as these formats write it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ._base import CREDENTIAL, PLACEHOLDER, Hit, is_template
from ._values import _closing_quote, accept_value, is_doc_placeholder, name_tier

if TYPE_CHECKING:
    from ._anchors import Anchors

# The engine reports where a pair may stand, in its regex dialect (no look-around, no back
# reference, no case folding): a name field, then within a few blanks or a YAML list dash the
# value field's key and separator. Escaped newlines count as blanks (JSON inside a string); the
# engine is given escaped quotes as a quote and a blank (`_views.neutralise_escapes`).
PAIR_ANCHOR_PATTERN = (r"((?:[Nn]ame|NAME|[Kk]ey|KEY)(?:\\{0,3}[\"'] ?)?[ \t]{0,4}[:=][ \t]{0,4}(?:\\{0,3}[\"'] ?)?"
                       r"[A-Za-z0-9_.-]{1,80}(?:\\{0,3}[\"'] ?)?[ \t]{0,4},?(?:[ \t\r\n]|\\{1,3}[rnt]){0,60}"
                       r"(?:-[ \t]{1,4})?(?:\\{0,3}[\"'] ?)?(?:[Vv]alue|VALUE)(?:\\{0,3}[\"'] ?)?[ \t]{0,4}[:=])")
# The same in Python, naming its parts (also where the engine did not look: see `_starts`)
_PAIR = re.compile(r"(?:[Nn]ame|NAME|[Kk]ey|KEY)(?:\\{0,3}[\"'])?[ \t]{0,4}[:=][ \t]{0,4}(?:\\{0,3}[\"'])?"
                   r"(?P<name>[A-Za-z0-9_.-]{1,80})(?:\\{0,3}[\"'])?[ \t]{0,4},?(?:[ \t\r\n]|\\{1,3}[rnt]){0,60}"
                   r"(?:-[ \t]{1,4})?(?:\\{0,3}[\"'])?(?:[Vv]alue|VALUE)(?:\\{0,3}[\"'])?[ \t]{0,4}[:=][ \t]{0,4}")
_OPENER = re.compile(r"\\{0,3}[\"']")
_BARE = re.compile(r"[^\s,}\]\"'\\]{1,1024}")
_COOKIE_FIELDS = re.compile(r"\A[^{}]{0,400}?(?:\\{0,3}[\"'])?(?:domain|httpOnly|sameSite|expires)(?:\\{0,3}[\"'])?"
                            r"[ \t]{0,4}:")
HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token"})


def pair_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The value of a name/value record whose name says it is a secret."""
    done = -1
    for start in _starts(text, anchors):
        if start < done or (start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")):
            continue  # `username`, `apikey`: another field
        m = _PAIR.match(text, start)
        if m is None:
            continue
        name = m["name"]
        hit = _value(text, name, m.end())
        if hit is not None:
            done = hit.end
            yield hit


def _starts(text: str, anchors: Anchors) -> Iterator[int]:
    if anchors.pairs is not None:  # the engine said where
        yield from (s for s, _ in anchors.pairs)
        return
    for m in _PAIR.finditer(text):  # no engine report for this text (a short or decoded one)
        yield m.start()


def _value(text: str, name: str, pos: int) -> Hit | None:
    opener = _OPENER.match(text, pos)
    if opener is not None:
        end = _closing_quote(text, opener.end(), opener.group())
        if end <= opener.end() or "\n" in text[opener.end() : end]:
            return None
        start, value, quoted = opener.end(), text[opener.end() : end], True
    else:
        bare = _BARE.match(text, pos)
        if bare is None:
            return None
        start, value, quoted = pos, bare.group(), False
    kind = _judge(name, value, quoted, text[start + len(value) :])
    if kind is None:
        return None
    if name.lower() in ("authorization", "proxy-authorization") and " " in value:
        scheme = value.index(" ") + 1  # `Bearer X`: the scheme stays
        start, value = start + scheme, value[scheme:]
    return Hit(start, start + len(value), kind, "pair-secret")


def _judge(name: str, value: str, quoted: bool, after: str) -> str | None:
    """CREDENTIAL, PLACEHOLDER (documentation's stand-in) or None for the value of `name`."""
    if not value or is_template(value):
        return None
    if is_doc_placeholder(value):
        return PLACEHOLDER
    low = name.lower()
    if low in HEADERS or _COOKIE_FIELDS.match(after[:600]):
        return CREDENTIAL  # a header's credential, a cookie's value (the cookie rule's reading)
    tier = name_tier(name)
    return CREDENTIAL if tier and accept_value(name, tier, value, quoted=quoted) else None


def pair_value_key(record: dict[Any, Any]) -> str | None:
    """In a parsed name/value record, the key of the value to mask whole, if its name says it
    is a secret (`{"name": "API_KEY", "value": X}` -> "value")."""
    if len(record) > 12:
        return None  # a record of many fields is not a name/value pair
    name = next((record[k] for k in ("name", "Name", "key", "Key") if isinstance(record.get(k), str)), None)
    key = next((k for k in ("value", "Value") if isinstance(record.get(k), str)), None)
    if name is None or key is None:
        return None
    after = ", ".join(f'"{k}":' for k in record)  # the fields beside it, as text (a cookie's `domain`)
    return key if _judge(name, record[key], True, after) == CREDENTIAL else None
