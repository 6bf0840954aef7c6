"""A record's fields, as redact_value walks them: which are masked whole (a secret's, a date of
birth's), which are read after the name their key gives them (a phone's, a government
number's, a cookie header's), and the strings to scan, in order (`collect`)."""

from __future__ import annotations

from typing import Any

from ..jsontext import valid_text
from ._values import accept_value, name_tier
from .browser import typed_value_key
from .headers import header_tier
from .languages import key_word, secret_field
from .namefields import name_key
from .pairs import pair_value_key, wrapped_value_key
from .personal import birth_date_field, birth_key, field_label

COOKIE_PREFIX = "Cookie: "
AUTHORIZATION_PREFIX = "Authorization: "


def collect(value: Any, out: list[str], fields: list[tuple[str, str]] | None = None, under: str | None = None) -> None:
    """First walk of redact_value: the strings to scan, in order (and, for `learn`, the
    values of secret fields, which are masked whole and never scanned). `under`: the key
    the value stands under, if any."""
    if isinstance(value, str):
        out.append(valid_text(value))
    elif isinstance(value, dict):
        pair = value_key(value, under)  # `{"name": "API_KEY", "value": X}`: X is masked whole
        for k, v in value.items():
            if isinstance(k, str):
                out.append(valid_text(k))
            if isinstance(k, str) and (k == pair or is_secret_field(k, v)):
                if fields is not None:
                    fields.append((k, valid_text(str(v))))
                continue  # masked whole, never scanned
            if isinstance(k, str) and birth_date_field(k, v):
                continue  # masked whole, never scanned (nor learnt)
            prefix = field_prefix(k, v)
            if prefix is not None:
                out.append(prefix + valid_text(v))  # scanned after its name, which is cut off again
            else:
                collect(v, out, fields, k if isinstance(k, str) else None)
    elif isinstance(value, list | tuple):
        for v in value:
            collect(v, out, fields)


def value_key(record: dict[Any, Any], under: str | None) -> str | None:
    """The key of a record's value masked whole: a name/value pair's (`{"name": "API_KEY",
    "value": X}`), the `value` of a record under a secret's name (`"db_password": {"value": X}`),
    or the text a browser tool types into a password's field."""
    pair = pair_value_key(record)
    if pair is None and under is not None:
        pair = wrapped_value_key(under, record)
    if pair is None:  # `{"element": "Password textbox", "text": X}`: typed into a password's field
        pair = typed_value_key(record)
    return pair


def field_prefix(key: Any, value: Any) -> str | None:
    """What a field's value is read after, when its key is the value's label: a header dict's
    cookie (`Cookie: X`, the cookie rule's context) or credential (`Authorization: X`), a phone
    or a government number (`{"phone": X}` read as `phone: X`); None for any other field."""
    if not isinstance(key, str) or not isinstance(value, str):
        return None
    if is_cookie_field(key, value):
        return COOKIE_PREFIX
    if key.lower() in ("authorization", "proxy-authorization"):  # `{"Authorization": "SSWS X"}`: read as the header
        return AUTHORIZATION_PREFIX
    label = field_label(key)
    if label is None and name_key(key):
        return f"{key}: "  # `{"givenName": X}` read as `givenName: X` (namefields.name_field)
    return None if label is None else f"{label}: "


def is_cookie_field(key: Any, value: Any) -> bool:
    return isinstance(key, str) and len(key) in (6, 10) and isinstance(value, str) and key.lower() in (
        "cookie", "set-cookie")


def names_field(key: str) -> bool:
    """`key` names a field whose value a rule may mask: a secret (in any language), a date of
    birth, a phone, a government number (the value still decides: `is_secret_field`...)."""
    return bool(name_tier(key)) or key_word(key) is not None or birth_key(key) or field_label(key) is not None


def is_secret_field(key: str, value: Any) -> bool:
    """A dict entry whose key names a secret and whose value is a literal of it."""
    tier = name_tier(key) or header_tier(key)  # (`X-Hub-Signature-256`: a header's name for a proof)
    if not tier:  # a name in another language (`passwort`, `密码`): the value must look like a secret
        return isinstance(value, str) and secret_field(key, value)
    if isinstance(value, str):
        return accept_value(key, tier, value.strip(), quoted=True)
    # a numeric password or PIN is still a password; numeric "token" fields are counts
    return tier == 1 and isinstance(value, int | float) and not isinstance(value, bool)
