"""Where a person lives or receives mail: a postal address.

Found by the shape a street takes in the places agents' users write from, not by a list of
streets: a house number and a named street with its type (`742 Evergreen Terrace`, `10 Downing
Street`, `Musterstraße 12`, `Hauptstr. 5`, `12 rue de la Paix`), with the city and postcode that
follow it on the line (`, Springfield, IL 62704`, `, 10115 Berlin`); and whatever follows a label
for one (`home address:`, `shipping address:`, `Anschrift:`, `dirección:`) when it holds a number
and words. An IP, MAC, memory, e-mail or listen address is no postal address and stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import ADDRESS, Hit

if TYPE_CHECKING:
    from ._anchors import Anchors

_UP = "A-ZÀ-ÖØ-Þ"
_LOW = "a-zß-öø-ÿ"
_WORD = f"[{_UP}][{_LOW}]+"
# English street types (written out or abbreviated, capitalised as in an address)
_EN_TYPES = ("Street", "Avenue", "Road", "Boulevard", "Lane", "Drive", "Terrace", "Court", "Place", "Way", "Crescent",
             "Parkway", "Highway", "Square")
_EN_SHORT = ("St", "Ave", "Rd", "Blvd", "Ln", "Dr", "Ct", "Pl")  # with their dot, if written
_EN_STREET = re.compile(
    rf"(?<![\w.#-])\d{{1,5}}[A-Za-z]?[ \t]+(?:(?:[NSEW]\.?|North|South|East|West)[ \t]+)?(?:{_WORD}[ \t]+){{1,3}}"
    rf"(?:(?:{'|'.join(_EN_TYPES)})\b|(?:{'|'.join(_EN_SHORT)})\b\.?)(?:[ \t]+(?:NW|NE|SW|SE|N|S|E|W)\b)?"
    rf"(?:,?[ \t]+(?:Apt|Suite|Unit|#)\.?[ \t]*[\w-]{{1,6}})?")
# German and neighbours: the type joined to the name, the number after it
_DE_STREET = re.compile(
    rf"(?<![\w-])(?:{_WORD}[ -])?[{_UP}][{_LOW}]*(?:straße|strasse|str\.|gasse|weg|allee|platz|damm)"
    r"[ \t]+\d{1,4}[a-z]?\b")
# French, Spanish, Italian, Portuguese: the number, the type, then the name
_ROMANCE_STREET = re.compile(
    rf"(?<![\w.-])\d{{1,4}}(?:[ \t]?(?:bis|ter))?,?[ \t]+(?:rue|avenue|boulevard|chemin|allée|impasse|quai|"
    rf"calle|avenida|viale|piazza|rua|praça)[ \t]+(?:(?:de|du|des|la|le|del|della|di|do|da|d')[ \t']*)*{_WORD}"
    rf"(?:[ \t]+{_WORD}){{0,3}}")
# what may follow a street on its line: the city, a state or region, the postcode, the country
_POSTCODE = (r"(?:\d{5}(?:-\d{4})?|[A-Z]\d[A-Z][ \t]?\d[A-Z]\d|"  # US ZIP, Canada
             r"[A-Z]{1,2}\d[A-Z\d]?[ \t]?\d[A-Z]{2})\b")  # UK
_TAIL = re.compile(rf"(?:,[ \t]*(?:(?:\d{{4,5}}[ \t]+)?{_WORD}(?:[ \t]+{_WORD}){{0,2}}(?:[ \t]+[A-Z]{{2}}\b)?"
                   rf"(?:[ \t]+{_POSTCODE})?|[A-Z]{{2}}[ \t]+{_POSTCODE})){{1,3}}")
# each ends a street's name: with the blank before it (` Street`, not `Streetwise`; ` rue `, not
# `true `), the abbreviations with what follows them; matched as written (`St`, not `st`)
STREET_ANCHORS = (" Street", " Avenue", " Road", " Boulevard", " Lane", " Drive", " Terrace", " Court", " Place",
                  " Crescent", " Parkway", " Highway", " Square",
                  *(f" {a}{c}" for a in (*_EN_SHORT, "Way") for c in " .,\n"),
                  "straße ", "strasse ", "str. ", "gasse ", "weg ", "allee ", "platz ", "damm ",
                  " rue ", " avenue ", " boulevard ", " chemin ", " allée ", " impasse ", " quai ", " calle ",
                  " avenida ", " viale ", " piazza ", " rua ", " praça ")
# a label, and the value to the line's end: a number and two words at least, nothing of a network
# `address` in any case (searched here: common in code, so costly for the engine to report);
# the other languages' words are rare, so the engine's (_native.py)
LABEL_ANCHORS = ("Anschrift", "Adresse", "adresse", "dirección", "Dirección", "endereço", "Endereço", "indirizzo",
                 "Indirizzo")
_NOT_POSTAL = re.compile(r"(?:ip|mac|email|e-mail|mail|bind|listen|memory|web|server|remote|local|base|return|"
                         r"wallet|contract|proxy|host|public|private|physical|virtual|load|store|http|url|ipv[46]|"
                         r"network|net|broadcast|gateway|node|peer|socket|from|to|reply-to|sender|recipient)"
                         r"[ _-]?$", re.IGNORECASE)
_LABEL_VALUE = re.compile(r"[ \t]*(?:[:=][ \t]*|is[ \t]+)[\"']?(?P<v>[^\n\r\"'\\|<>{}]{6,160})")
_HAS_NUMBER = re.compile(r"(?<![\w.:])\d{1,5}[A-Za-z]?(?![\w.:])")
_TWO_WORDS = re.compile(rf"{_WORD}.*\b[{_UP}{_LOW}]{{2,}}")
_NETWORKISH = re.compile(r"[:/@]|0x|\d+\.\d+")


def address_tail(text: str, end: int) -> int:
    """Where an address that ends at `end` ends with the city, region and postcode after it."""
    tail = _TAIL.match(text, end)
    return tail.end() if tail is not None else end


def street_address(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Each street with its number, and the city and postcode after it; each labelled address."""
    done = -1
    for i in anchors.find(STREET_ANCHORS):
        if i < done:
            continue
        for pattern in (_EN_STREET, _DE_STREET, _ROMANCE_STREET):
            m = pattern.search(text, max(0, i - 100), min(len(text), i + 120))
            if m is None or not m.start() <= i < m.end() + 1:
                continue
            end = done = address_tail(text, m.end())
            yield Hit(m.start(), end, ADDRESS, "street-address")
            break
    for i in sorted({*anchors.find(("address",), ignore_case=True), *anchors.find(LABEL_ANCHORS)}):
        if i < done or (i > 0 and text[i - 1].isalnum()):
            continue
        word_end = i + next((len(a) for a in LABEL_ANCHORS if text.startswith(a, i)), len("address"))
        if word_end < len(text) and (text[word_end].isalnum() or text[word_end] == "_"):
            continue  # `addresses`, `address_book`, `addressed`
        lead = text[max(0, i - 16):i]
        if _NOT_POSTAL.search(lead):
            continue  # `IP address:`, `mac_address=`, `email address is`
        m = _LABEL_VALUE.match(text, word_end)
        if m is None:
            continue
        value = m["v"].rstrip(" \t.,;")
        if _NETWORKISH.search(value) or not _HAS_NUMBER.search(value) or not _TWO_WORDS.search(value):
            continue
        done = m.start("v") + len(value)
        yield Hit(m.start("v"), done, ADDRESS, "labelled-address")
