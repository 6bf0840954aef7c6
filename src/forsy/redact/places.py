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
  `/@51.5072,-0.1276,15z` or `?q=…`, right before it; a link's `~` or URL-encoded `%2C` between
  them), or each after its own name (`"latitude": 51.507223`, `lat=…&lng=…`, `startLat`; a
  name with any other word before it when its twin stands beside it: OpenStreetMap's
  `mlat=…&mlon=…`, not `flat=` or `epsilon=`). In degrees, minutes and seconds, or degrees with
  a hemisphere, a pair says it is a position by itself (`38°43'20.3"N 9°08'21.5"W`, exiftool's
  `38 deg 43' 20.28" N, 9 deg 8' 21.48" W`, `38.722300 N, 9.139300 W`). Kind ADDRESS. A pair of
  numbers alone is no place (a tensor's `[0.1234, -0.5678]`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import ADDRESS, IP_ADDRESS, Hit

if TYPE_CHECKING:
    from ._anchors import Anchors

_HEX2 = "[0-9A-Fa-f]{2}"
# the engine's dialect: where six groups stand (Python checks the rest); no capturing group (the
# engine reports a pattern's first group, not its whole match)
PLACE_SHAPES = {
    "mac": f"{_HEX2}[:-]{_HEX2}[:-]{_HEX2}[:-]{_HEX2}[:-]{_HEX2}[:-]{_HEX2}",
    "coordinates": r"-?[0-9]{1,2}\.[0-9]{4,}[ ]?(?:[,;/ ~]|%2[Cc])[ ]?-?[0-9]{1,3}\.[0-9]{4,}",
    # where a latitude with its hemisphere meets the longitude: `20.3"N 9°`, `.722300 N, 9.`
    "hemisphere-coordinates": r"(?:[0-9](?:\\{0,3}\"|''|'|[^\x00-\x7f]{1,3})|\.[0-9]{4,}) ?[NS],? ?[;/]? ?[0-9]{1,3}"
                              r"[^0-9A-Za-z,]",
    "labelled-coordinates": r"([Ll][Aa][Tt]|[Ll][Nn][Gg]|[Ll][Oo][Nn])[A-Za-z]{0,6}[\\\"' ]{0,4}[:=][\\\"' ]{0,4}"
                            r"-?[0-9]{1,3}\.[0-9]{4}",
}
_MAC = re.compile(rf"{_HEX2}(?P<s>[:-]){_HEX2}(?:(?P=s){_HEX2}){{4}}")
_HEX_CHARS = frozenset("0123456789abcdefABCDEF")
_PAIR = re.compile(r"(?P<lat>-?\d{1,2}\.(?P<a>\d{4,15}))[ \t]?(?:[,;/ ~]|%2[Cc])[ \t]?"
                   r"(?P<lon>-?\d{1,3}\.(?P<b>\d{4,15}))")
# words for a place before the pair (on its line, up to 48 characters before), or a map link's
_PLACE_WORDS = re.compile(r"(?i)(?:\b(?:lat|latitude|lng|lon|long|longitude|gps|coords?|coordinates|location|loc|"
                          r"position|pos|geo|geolocation|place|map|maps|located|where)\b[^\n]{0,48}|"
                          r"[/=]@|/@|[?&](?:q|ll|sll|query|center|destination|daddr|saddr|cp|pt|route|near|origin|"
                          r"waypoints|marker|markers|point)=|geo:)\Z")
# a number after a name of its own (`"latitude": 51.5072`, `lat=51.5072`, `lng: -0.1276`)
# the other of the two names (`mlat` and `mlon`): the first word's twin
_TWINS = {"lat": "(?:lon|lng|long|longitude)", "latitude": "(?:longitude|lon|lng)", "lon": "(?:lat|latitude)",
          "lng": "(?:lat|latitude)", "long": "(?:lat|latitude)", "longitude": "(?:latitude|lat)"}
_LABELLED = re.compile(r"(?i)(?P<w>latitude|longitude|lat|lng|long|lon)(?:\\{0,3}[\"'])?[ \t]*[:=][ \t]*"
                       r"(?:\\{0,3}[\"'])?(?P<v>-?\d{1,3}\.\d{4,15})(?![\d.])")


# one coordinate with its hemisphere: degrees, minutes and seconds (`38°43'20.3"N`, exiftool's
# `38 deg 43' 20.28" N`), degrees and decimal minutes (`38°43.3367'N`), decimal degrees (`38.7223° N`)
_DEG = r"(?:°|º|˚|[ \t]?deg)"
_MIN = "['′’]"
_SEC = r"(?:\\{0,3}\"|″|''|”)"


def _one(hemispheres: str) -> str:
    dms = rf"(?P<d{hemispheres}>\d{{1,3}})[ \t]?{_DEG}[ \t]?(?P<m{hemispheres}>\d{{1,2}})[ \t]?{_MIN}[ \t]?" \
          rf"(?P<s{hemispheres}>\d{{1,2}}(?:\.\d+)?)[ \t]?{_SEC}"
    ddm = rf"\d{{1,3}}[ \t]?{_DEG}[ \t]?\d{{1,2}}\.\d{{3,}}[ \t]?{_MIN}"
    dd = r"\d{1,3}\.\d{4,}[ \t]?" + _DEG + "?"
    return rf"(?P<{hemispheres}>(?:{dms}|{ddm}|{dd})[ \t]?[{hemispheres}])"


_HEMISPHERES = re.compile(rf"{_one('NS')}[ \t]*[,;/]?[ \t]*{_one('EW')}(?![A-Za-z])")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def mac_address(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A device's hardware address (see the module)."""
    for i, _ in anchors.shaped("mac", _MAC):
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
    for i, _ in anchors.shaped("coordinates", _PAIR):
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
    for i, _ in anchors.shaped("labelled-coordinates", _LABELLED):
        m = _LABELLED.match(text, i, i + 48)
        if m is None:
            continue
        if i > 0 and (text[i - 1].isalpha() and not text.startswith("\\n", i - 2)) and not _named(text, i, m["w"]):
            continue  # inside a word (`translate`, `template`, `epsilon`)
        limit = 90 if m["w"].lower().startswith("lat") else 180
        if abs(float(m["v"])) <= limit:
            yield Hit(m.start("v"), m.end("v"), ADDRESS, "coordinates")
    if anchors.shapes is None or anchors.shapes["hemisphere-coordinates"]:
        yield from _hemisphere_pairs(text, anchors)


def _named(text: str, i: int, word: str) -> bool:
    """Whether `word` at `i`, after other letters, still names a coordinate: after a word in
    camel case (`startLat`), or when its twin, with the same word before it, stands beside
    it with a number (`mlat=…&mlon=…`)."""
    if text[i - 1].islower() and word[0].isupper():
        return True
    j = i
    while j > 0 and i - j < 12 and text[j - 1].isalpha():
        j -= 1
    if j > 0 and text[j - 1].isalnum():
        return False
    twin = re.compile(rf"(?<![A-Za-z]){re.escape(text[j:i])}{_TWINS[word.lower()]}(?:\\{{0,3}}[\"'])?[ \t]*[:=]"
                      r"[ \t]*(?:\\{0,3}[\"'])?-?\d{1,3}\.\d{4}", re.IGNORECASE)
    return twin.search(text, max(0, j - 120), min(len(text), i + 160)) is not None


def _hemisphere_pairs(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A latitude and a longitude each with its hemisphere (see the module)."""
    shapes = anchors.shapes
    if shapes is None:
        found = list(_HEMISPHERES.finditer(text))
    else:
        found, done = [], -1
        for s, _ in shapes["hemisphere-coordinates"]:
            if s < done:
                continue
            m = next((m for m in _HEMISPHERES.finditer(text, max(0, s - 40), min(len(text), s + 60))
                      if m.start() <= s < m.end()), None)
            if m is not None:
                found.append(m)
                done = m.end()
    for m in found:
        lat, lon = _degrees(m, "NS"), _degrees(m, "EW")
        if lat is not None and lon is not None and lat <= 90 and lon <= 180:
            yield Hit(m.start(), m.end(), ADDRESS, "coordinates")


def _degrees(m: re.Match[str], hemispheres: str) -> float | None:
    """The degrees of one coordinate (None when its minutes or seconds are past 59)."""
    if m[f"d{hemispheres}"] is not None:
        minutes, seconds = int(m[f"m{hemispheres}"]), float(m[f"s{hemispheres}"])
        return None if minutes > 59 or seconds >= 60 else int(m[f"d{hemispheres}"]) + minutes / 60
    first = _NUMBER.search(m[hemispheres])
    return float(first.group()) if first is not None else None
