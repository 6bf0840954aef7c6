"""Secrets kept as a name/value record: `{"name": "DB_PASSWORD", "value": X}`, or as a record
under the secret's name whose `value` field holds it.

Kubernetes and ECS environments (`env: - name: API_KEY / value: X`), HAR headers
(`{"name": "Authorization", "value": "Bearer X"}`), a browser's saved cookies
(`{"name": "sessionid", "value": X, "domain": …}`): the secret's name is one field's value and
the secret another's, so no `name = value` rule reads it. The name decides, as in an
assignment (`name_tier`); a header's name or a cookie's fields (a `domain` beside the value)
make the value a credential too. Name first, as these formats write it.

The other shape names the record by the secret and keeps the value in it: Terraform's outputs
(`"db_password": {"sensitive": true, "type": "string", "value": X}`), Spring Boot's `/env`
(`"spring.datasource.password": {"value": X, "origin": …}`), a YAML mapping of the same. A
record that says its value is sensitive (`"sensitive": true`) holds a secret whatever its name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ._base import CREDENTIAL, PLACEHOLDER, Hit, is_template
from ._values import _closing_quote, accept_value, is_doc_placeholder, name_tier

if TYPE_CHECKING:
    from ._anchors import Anchors

# The parts of a pair, written once for the engine's regex dialect (no look-around, no back
# reference, no case folding) and for Python's. A quote may be escaped (JSON inside a string);
# the engine is given escaped quotes as a quote and a blank (`_views.neutralise_escapes`).
# a key may name what it is the name or value of: CloudFormation's `ParameterKey`/`ParameterValue`,
# Elastic Beanstalk's `OptionName`/`Value` (the value key's prefix, if any, is the name key's)
_NAME_KEY = r"(?:(?:[A-Z][a-z]{1,15})?(?:Name|Key)|name|NAME|key|KEY)"
_VALUE_KEY = r"(?:(?:[A-Z][a-z]{1,15})?Value|value|VALUE)"
_Q = r"(?:\\{0,3}[\"'])?"  # a quote, maybe escaped (JSON inside a string), or none
_GAP = r"[ \t]{0,4},?(?:[ \t\r\n]|\\{1,3}[rnt]){0,60}(?:-[ \t]{1,4})?"  # blanks, a comma, a YAML dash
_NAME = r"[A-Za-z0-9_./-]{1,120}"  # `DB_PASSWORD`, `/prod/db/password` (an SSM parameter)


def _pattern(quote: str, field_guard: str) -> str:
    """Name field, up to three other scalar fields (`"Type": "SecureString"`), value field."""
    field = (field_guard + quote + r"[A-Za-z][A-Za-z0-9_]{0,30}" + quote + r"[ \t]{0,4}:[ \t]{0,4}" + quote
             + r"[^\"'\n\\,{}\[\]]{0,80}" + quote)
    return (_NAME_KEY + quote + r"[ \t]{0,4}[:=][ \t]{0,4}" + quote + "(?P<name>" + _NAME + ")" + quote
            + "(?P<between>(?:" + _GAP + field + "){0,3})" + _GAP + quote + _VALUE_KEY + quote + r"[ \t]{0,4}[:=]")


# The engine reports where a pair may stand; Python decides there, naming the parts, and does
# not cross into the next pair (another field named `name`, `key` or `value` ends the record)
PAIR_ANCHOR_PATTERN = "(" + _pattern(r"(?:\\{0,3}[\"'] ?)?", "").replace("(?P<name>", "(").replace(
    "(?P<between>", "(") + ")"
_PAIR = re.compile(_pattern(_Q, r"(?!" + _Q + "(?:" + _NAME_KEY[3:-1] + "|" + _VALUE_KEY[3:-1] + ")" + _Q
                            + r"[ \t]{0,4}[:=])") + r"[ \t]{0,4}")
_NAME_FIELD = re.compile(_NAME_KEY)
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
        if m is None or not _same_prefix(m.group()):
            continue
        name = m["name"]
        hit = _value(text, name, m.end(), secure="SecureString" in m["between"])
        if hit is not None:
            done = hit.end
            yield hit


_KEY_WORDS = re.compile(r"[A-Za-z]+")


def _same_prefix(record: str) -> bool:
    """`ParameterKey` … `ParameterValue`, `OptionName` … `Value`: not `ParameterKey` … `OtherValue`."""
    words = _KEY_WORDS.findall(record)
    name_key, value_key = words[0], words[-1]
    prefix = value_key[: -len("Value")] if value_key.endswith("Value") else ""
    return not prefix or name_key.startswith(prefix) and name_key[len(prefix) :] in ("Name", "Key")


def _starts(text: str, anchors: Anchors) -> Iterator[int]:
    if anchors.pairs is not None:  # the engine said where
        # its matches do not overlap, and one may run over several records (YAML has no
        # braces to stop it): every name field inside a match may begin a pair
        for s, e in anchors.pairs:
            yield from (m.start() for m in _NAME_FIELD.finditer(text, s, e))
        return
    for m in _PAIR.finditer(text):  # no engine report for this text (a short or decoded one)
        yield m.start()


def _value(text: str, name: str, pos: int, *, secure: bool = False) -> Hit | None:
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
    kind = _judge(name, value, quoted, text[start + len(value) :], secure)
    if kind is None:
        return None
    if name.lower() in ("authorization", "proxy-authorization") and " " in value:
        scheme = value.index(" ") + 1  # `Bearer X`: the scheme stays
        start, value = start + scheme, value[scheme:]
    return Hit(start, start + len(value), kind, "pair-secret")


def _judge(name: str, value: str, quoted: bool, after: str, secure: bool = False) -> str | None:
    """CREDENTIAL, PLACEHOLDER (documentation's stand-in) or None for the value of `name`;
    `secure`: the record says its value is secret (an SSM `SecureString`)."""
    if not value or is_template(value):
        return None
    if is_doc_placeholder(value):
        return PLACEHOLDER
    low = name.lower()
    if secure or low in HEADERS or _COOKIE_FIELDS.match(after[:600]):
        return CREDENTIAL  # a header's credential, a cookie's value (the cookie rule's reading)
    tier = name_tier(name)
    return CREDENTIAL if tier and accept_value(name, tier, value, quoted=quoted) else None


# ------------------------------------------------- a record under the secret's name: `"db_password": {"value": X}`
_WRAP_FIELD = (_Q + r"(?!" + _VALUE_KEY + r")[A-Za-z][A-Za-z0-9_]{0,30}" + _Q + r"[ \t]{0,4}:[ \t]{0,4}" + _Q
               + r"[^\"'\n\\,{}\[\]]{0,80}" + _Q)
# what stands before a `value` key: the record's name, its opening, up to three scalar fields
_WRAP_HEAD = re.compile(_Q + "(?P<name>" + _NAME + ")" + _Q + r"[ \t]{0,4}:[ \t]{0,4}\{?(?P<between>(?:" + _GAP
                        + _WRAP_FIELD + "){0,3})" + _GAP + _Q + r"\Z")
_WRAP_VALUE = re.compile(_VALUE_KEY + _Q + r"[ \t]{0,4}:[ \t]{0,4}")
_SENSITIVE = re.compile(r"sensitive" + _Q + r"[ \t]{0,4}:[ \t]{0,4}true", re.I)


def wrapped_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The `value` field of a record named for a secret, or that says its value is sensitive."""
    done = -1
    for i in anchors.find(("value",), ignore_case=True):
        if i < done or (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")):
            continue
        key = _WRAP_VALUE.match(text, i)
        if key is None:
            continue
        head = _WRAP_HEAD.search(text[max(0, i - 400) : i])
        if head is None or head["name"].lower() in _NOT_NAMES:
            continue
        secure = _SENSITIVE.search(head["between"]) is not None
        if not secure and not name_tier(head["name"]):
            continue
        hit = _value(text, head["name"], key.end(), secure=secure)
        if hit is not None:
            done = hit.end
            yield hit


_NOT_NAMES = frozenset({"name", "key", "value"})


def wrapped_value_key(name: str, record: dict[Any, Any]) -> str | None:
    """In a parsed record under the key `name`, the key of its value to mask whole, if the name
    says it is a secret or the record that it is sensitive (`"db_password": {"value": X}`)."""
    if len(record) > 6:
        return None
    key = next((k for k in ("value", "Value") if isinstance(record.get(k), str)), None)
    if key is None or any(isinstance(v, dict | list) for v in record.values()):
        return None
    secure = record.get("sensitive") is True
    if not secure and not name_tier(name):
        return None
    after = ", ".join(f'"{k}":' for k in record)
    return key if _judge(name, record[key], True, after, secure) == CREDENTIAL else None


def pair_value_key(record: dict[Any, Any]) -> str | None:
    """In a parsed name/value record, the key of the value to mask whole, if its name says it
    is a secret (`{"name": "API_KEY", "value": X}` -> "value")."""
    if len(record) > 12:
        return None  # a record of many fields is not a name/value pair
    name = next((record[k] for k in ("name", "Name", "key", "Key", "ParameterKey", "OptionName")
                 if isinstance(record.get(k), str)), None)
    key = next((k for k in ("value", "Value", "ParameterValue") if isinstance(record.get(k), str)), None)
    if name is None or key is None:
        return None
    after = ", ".join(f'"{k}":' for k in record)  # the fields beside it, as text (a cookie's `domain`)
    secure = any(record.get(k) == "SecureString" for k in ("Type", "type"))
    return key if _judge(name, record[key], True, after, secure) == CREDENTIAL else None
