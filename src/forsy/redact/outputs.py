"""Secrets in what tools print, where the name and the value are not written `name = value`.

* A network device's configuration (Cisco IOS, NX-OS, Arista EOS, and the like) gives a secret
  positionally after its keyword and the number of its encoding: `username admin password 0 X`,
  `enable secret 5 X`, `tacacs-server key 7 X`, `key-string 0 X`. The number says it is this
  syntax (0 is the clear text; 7 a reversible encoding; 5, 8, 9 hashes): all are masked. An
  SNMP community is the password of SNMP: `snmp-server community X RO`, `set snmp community X`.
* A store's key on one line and its value alone on the next: `etcdctl get /app/secrets/api_key`,
  `consul kv get -detailed`, redis-cli's numbered replies (`1) "requirepass"` then `2) "X"`). The
  key names the secret (its last part, as `name_tier` reads names); the value must look like a
  secret on its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import CREDENTIAL, Hit, is_template, line_start, looks_random
from ._values import name_tier, password_like

if TYPE_CHECKING:
    from ._anchors import Anchors

DEVICE_ANCHORS = ("password ", "secret ", "key ")
DEVICE_ANCHORS_RARE = ("key-string ", "community ")  # reported by the engine (_native.py)
_DEVICE = re.compile(r"(?<![\w-])(?:(?P<kw>password|secret|key|key-string|authentication-key)[ \t]+[05789]"
                     r"|(?P<snmp>community))[ \t]+(?P<v>[^\s\"'`\\]{1,256})", re.IGNORECASE)
_NUMBERED = re.compile(r"(?:password|secret|key|key-string)[ \t]+[05789][ \t]", re.IGNORECASE)
_SNMP_LINE = re.compile(r"\bsnmp(?:-server)?\b[^\n\\]{0,40}\Z", re.IGNORECASE)


def device_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A secret a device's configuration line gives after its keyword and encoding number, or
    an SNMP community."""
    done = -1
    for i in anchors.find(DEVICE_ANCHORS + DEVICE_ANCHORS_RARE, ignore_case=True):
        if i < done or (text[i] in "pPsSkK" and not _NUMBERED.match(text, i)):
            continue  # a keyword without its encoding's number after it: most are prose (`the key to`)
        m = _DEVICE.match(text, i)
        if m is None or is_template(m["v"]):
            continue
        if m["snmp"] is not None and _SNMP_LINE.search(text, max(0, i - 48), i) is None:
            continue  # a community of people, not of SNMP
        done = m.end()
        yield Hit(m.start("v"), m.end("v"), CREDENTIAL, "device-secret")


# ---------------------------------------------------------------- a key's value on the next line
NEXT_LINE_ANCHORS = ("pass", "secret", "token", "key", "pwd", "cred", "auth")
# a reply's number (`1) `, redis-cli) and a quote may stand before the key and before its value
_KEY_LINE = re.compile(r"(?P<n>[ \t]*(?:\d{1,3}\)[ \t]+)?)(?P<q>\"?)(?P<k>[/\w.:-]{1,200})(?P=q)[ \t]*"
                       r"(?:\r?\n|\\n)")
_KEY_END = re.compile(r"[/\w.:-]{0,200}\"?[ \t]*(?:\r?\n|\\n)")
_VALUE_LINE = re.compile(r"[ \t]*(?:\d{1,3}\)[ \t]+)?(?P<q>\"?)(?P<v>[^\s\"]{6,512})(?P=q)[ \t]*(?=\r?\n|\\n|\Z)")


def next_line_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The value alone on the line after a line that is only a key naming a secret."""
    done = -1
    for i in anchors.find(NEXT_LINE_ANCHORS, ignore_case=True):
        if i < done or _KEY_END.match(text, i) is None:
            continue  # most words for a secret go on in their line (`input_tokens": 12`): cheaply ruled out
        key = _KEY_LINE.match(text, line_start(text, i))
        if key is None or not key.start("k") <= i < key.end("k"):
            continue
        done = key.end()
        name = re.split(r"[/:]", key["k"])[-1]
        value = _VALUE_LINE.match(text, key.end())
        if not name or not name_tier(name) or value is None:
            continue
        v = value["v"]
        if is_template(v) or not (looks_random(v, 16) or password_like(v, 8)) or v.startswith(("/", "http")):
            continue
        done = value.end()
        yield Hit(value.start("v"), value.end("v"), CREDENTIAL, "next-line-secret")
