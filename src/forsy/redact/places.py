"""Where a person's machine or the person is: a device's hardware address, and a position on
Earth given to a few metres.

- A MAC (or Bluetooth) address, `3c:22:fb:9a:41:7e` or `3C-22-FB-9A-41-7E`, names one device
  for its life, wherever it goes (`ifconfig`, `ip link`, `ipconfig /all`, `arp -a`, a Wi-Fi
  scan's BSSID). Kind IP_ADDRESS (a machine's network address). Not a device's: all zeros,
  broadcast, multicast, and the addresses a host makes up (locally administered: Docker's
  `02:42:…`, a VM's or a phone's random one); six groups inside a longer run (a fingerprint's
  `16:27:ac:…` of sixteen) are not one.
- Coordinates: a latitude and a longitude of four decimals or more (about 10 m), as a pair after
  a word for a place (`Location: 51.507223, -0.127586`, `GPS 48.85837,2.29448`, a map's
  `/@51.5072,-0.1276,15z` or `?q=…`, right before it), or each after its own name (`"latitude": 51.507223`,
  `lat=…&lng=…`). Kind ADDRESS. A pair of numbers alone is no place (a tensor's
  `[0.1234, -0.5678]`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import ADDRESS, IP_ADDRESS, Hit

if TYPE_CHECKING:
    from ._anchors import Anchors

_HEX2 = "[0-9A-Fa-f]{2}"
# the engine's dialect: where six groups stand (Python checks the rest)
PLACE_SHAPES = {
    "mac": f"{_HEX2}[:-]{_HEX2}[:-]{_HEX2}[:-]{_HEX2}[:-]{_HEX2}[:-]{_HEX2}",
    "coordinates": r"-?[0-9]{1,2}\.[0-9]{4,}[ ]?[,;/ ][ ]?-?[0-9]{1,3}\.[0-9]{4,}",
    "labelled-coordinates": r"([Ll][Aa][Tt]|[Ll][Nn][Gg]|[Ll][Oo][Nn])[A-Za-z]{0,6}[\\\"' ]{0,4}[:=][\\\"' ]{0,4}"
                            r"-?[0-9]{1,3}\.[0-9]{4}",
}
_MAC = re.compile(rf"{_HEX2}(?P<s>[:-]){_HEX2}(?:(?P=s){_HEX2}){{4}}")
_HEX_CHARS = frozenset("0123456789abcdefABCDEF")
_PAIR = re.compile(r"(?P<lat>-?\d{1,2}\.(?P<a>\d{4,15}))[ \t]?[,;/ ][ \t]?(?P<lon>-?\d{1,3}\.(?P<b>\d{4,15}))")
# words for a place before the pair (on its line, up to 48 characters before), or a map link's
_PLACE_WORDS = re.compile(r"(?i)(?:\b(?:lat|latitude|lng|lon|long|longitude|gps|coords?|coordinates|location|loc|"
                          r"position|pos|geo|geolocation|place|map|maps|located|where)\b[^\n]{0,48}|"
                          r"[/=]@|/@|[?&](?:q|ll|query|center|destination|daddr|saddr)=|geo:)\Z")
# a number after a name of its own (`"latitude": 51.5072`, `lat=51.5072`, `lng: -0.1276`)
_LABELLED = re.compile(r"(?i)(?P<w>latitude|longitude|lat|lng|long|lon)(?:\\{0,3}[\"'])?[ \t]*[:=][ \t]*"
                       r"(?:\\{0,3}[\"'])?(?P<v>-?\d{1,3}\.\d{4,15})(?![\d.])")


def mac_address(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A device's hardware address (see the module)."""
    shapes = anchors.shapes
    starts = [s for s, _ in shapes["mac"]] if shapes is not None else [m.start() for m in _MAC.finditer(text)]
    for i in starts:
        m = _MAC.match(text, i)
        if m is None or (i > 0 and (text[i - 1] in _HEX_CHARS or text[i - 1] in ":-" or text[i - 1].isalnum())):
            continue
        end = m.end()
        if end < len(text) and (text[end].isalnum() or (text[end] in ":-" and text[end + 1 : end + 2] in _HEX_CHARS
                                                        and text[end + 1 : end + 2] != "")):
            continue  # a longer run (a fingerprint's sixteen groups, a hash)
        first = int(text[i : i + 2], 16)
        octets = {text[j : j + 2].lower() for j in range(i, end, 3)}
        if first & 0b11 or octets <= {"00"} or octets <= {"ff"}:
            continue  # multicast, broadcast, made up by its host, or none
        yield Hit(i, end, IP_ADDRESS, "mac-address")


def coordinates(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A latitude and longitude to a few metres: a pair after a word for a place, or each number
    after its own name (see the module)."""
    shapes = anchors.shapes
    pairs = [s for s, _ in shapes["coordinates"]] if shapes is not None else [m.start() for m in _PAIR.finditer(text)]
    for i in pairs:
        m = _PAIR.match(text, i)
        if m is None or (i > 0 and (text[i - 1].isdigit() or text[i - 1] == ".")):
            continue
        if m.end() < len(text) and (text[m.end()].isdigit() or text[m.end()] == "."):
            continue
        if m["a"].endswith("00") or m["b"].endswith("00"):
            continue  # a table's fixed decimals (`2.0100, 0.0000`), not a position's
        if abs(float(m["lat"])) <= 90 and abs(float(m["lon"])) <= 180 and _PLACE_WORDS.search(
                text, max(0, i - 64), i):
            yield Hit(m.start(), m.end(), ADDRESS, "coordinates")
    labelled = [s for s, _ in shapes["labelled-coordinates"]] if shapes is not None else [
        m.start() for m in _LABELLED.finditer(text)]
    for i in labelled:
        if i > 0 and (text[i - 1].isalpha() and not text.startswith("\\n", i - 2)):
            continue  # inside a word (`translate`, `template`)
        m = _LABELLED.match(text, i, i + 48)
        if m is None:
            continue
        limit = 90 if m["w"].lower().startswith("lat") else 180
        if abs(float(m["v"])) <= limit:
            yield Hit(m.start("v"), m.end("v"), ADDRESS, "coordinates")
