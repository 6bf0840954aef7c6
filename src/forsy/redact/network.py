"""Network addresses: an IP address on the public internet says where a person or their machine
is (`curl ifconfig.me`, `ssh root@…`, a server's log of who connected), so it is masked.

What stays: addresses no one owns publicly (private, loopback, link-local, shared, reserved,
documentation, multicast: `ipaddress` says which), the public DNS resolvers (they identify no
one), a version number written like an address (`ppft==1.7.6.8`, `pyerfa-2.0.1.5-cp39`,
`version 1.2.3.4`) and the address a named host resolved to (`archive.ubuntu.com
(91.189.91.82)`: the name is already in clear, and it is a service's, not a person's).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import IP_ADDRESS, Hit, left_ok

if TYPE_CHECKING:
    from ._anchors import Anchors

# Public resolvers, any-cast: the same address for everyone who uses them
_RESOLVERS = frozenset({
    "8.8.8.8", "8.8.4.4", "1.1.1.1", "1.0.0.1", "9.9.9.9", "149.112.112.112", "208.67.222.222", "208.67.220.220",
    "2001:4860:4860::8888", "2001:4860:4860::8844", "2606:4700:4700::1111", "2606:4700:4700::1001",
    "2620:fe::fe", "2620:fe::9",
})

# An IPv4 address's last three octets start with a dot: a literal, so Python's regex engine
# searches for it fast (a pattern starting with `\d` is tried at every character); `ipaddress`
# then refuses octets over 255 and leading zeros
_V4_TAIL = re.compile(r"\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\w-]|\.\d)")
_V4_HEAD = re.compile(r"\d{1,3}\Z")
# A global IPv6 unicast address starts with a group 2000–3fff, written whole, then a colon: the
# colon is this search's literal start (a look-behind first would be tried at every character)
_V6_SEAM = re.compile(r":(?<=[23][0-9a-fA-F]{3}:)[0-9a-fA-F]{0,4}:")
_V6 = re.compile(r"[23][0-9a-fA-F]{3}:[0-9a-fA-F:]{2,35}(?![\w:]|\.\d)")
# before a version, not an address: `==`, `>=`, `~=`, `^`, `~`, `v`
_VERSION_MARKS = ("==", ">=", "<=", "~=", "!=", "^", "~")
_VERSION_WORD = re.compile(r"(?:version|release)[\w\"']{0,12}[\s:=\"']{1,4}\Z", re.IGNORECASE)
# `name (address)`: the address a host name resolved to (apt, curl -v, ping, traceroute)
_RESOLVED = re.compile(r"(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\.? \(\Z")


def ip_address(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Public IPv4 and IPv6 addresses (not versions, resolvers, or a named host's address)."""
    for m in _V4_TAIL.finditer(text):
        head = _V4_HEAD.search(text, max(0, m.start() - 3), m.start())
        if head is None:
            continue
        start = head.start()
        if not left_ok(text, start) or (start > 0 and text[start - 1] in "._") or _versionish(text, start):
            continue
        if _public(text[start:m.end()]) and not _RESOLVED.search(text, max(0, start - 80), start):
            yield Hit(start, m.end(), IP_ADDRESS, "ip-address")
    for m in _V6_SEAM.finditer(text):
        start = m.start() - 4
        if (start > 0 and text[start - 1] in ":._") or not left_ok(text, start):
            continue
        full = _V6.match(text, start)
        if full is None:
            continue
        value = full.group().rstrip(":") if not full.group().endswith("::") else full.group()
        if not _valid(value) and ":" in value:  # curl -v: `Trying 2606:…:1946:443...`, the port after a colon
            value = value.rsplit(":", 1)[0]
        if _public(value) and not _RESOLVED.search(text, max(0, start - 80), start):
            yield Hit(start, start + len(value), IP_ADDRESS, "ip-address")


def _versionish(text: str, start: int) -> bool:
    before = text[max(0, start - 2):start]
    if before.endswith(_VERSION_MARKS) or before[-1:] in ("v", "V"):
        return True
    if before[-1:] == "-" and start >= 2 and text[start - 2].isalnum():  # `name-1.2.3.4`: a package file
        return True
    return _VERSION_WORD.search(text, max(0, start - 24), start) is not None


def _valid(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def _public(value: str) -> bool:
    if value in _RESOLVERS or not _valid(value):
        return False
    addr = ipaddress.ip_address(value)
    return addr.is_global and not addr.is_multicast
