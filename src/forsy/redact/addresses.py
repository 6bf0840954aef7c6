"""Where a person lives or receives mail: a postal address.

Found by the shape a street takes in the places agents' users write from, not by a list of
streets: a house number and a named street with its type (`742 Evergreen Terrace`, `10 Downing
Street`, `Musterstraße 12`, `Hauptstr. 5`, `12 rue de la Paix`, `Calle Mayor 5`), with the city
and postcode that follow it on the line (`, Springfield, IL 62704`, `, 10115 Berlin`); a
number, words and a town before a postcode of a shape of its own (`116 Kingsway, London WC2B
3RH`) or a US state's code and ZIP (`4821 Willow Creek, Boulder, CO 80302`); and whatever
follows a label for one (`home address:`, `shipping address:`, `Anschrift:`, `dirección:`)
when it holds a number and words. An IP, MAC, memory, e-mail or listen address is no postal
address and stays.
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
_NAME = f"{_WORD}(?:-{_WORD})*"  # a street's name may be joined words (`Champs-Élysées`)
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
# French, Spanish, Italian, Portuguese: the number, the type (written small or capitalised:
# `12 rue de la Paix`, `12 Rue de Rivoli`), then the name
_ROMANCE = ("rue", "avenue", "boulevard", "chemin", "allée", "impasse", "quai", "calle", "avenida", "viale", "piazza",
            "rua", "praça")
_ROMANCE_TYPES = "|".join(f"[{t[0]}{t[0].upper()}]{t[1:]}" for t in _ROMANCE)
_ROMANCE_STREET = re.compile(
    rf"(?<![\w.-])\d{{1,4}}(?:[ \t]?(?:bis|ter))?,?[ \t]+(?:{_ROMANCE_TYPES})[ \t]+"
    rf"(?:(?:de|du|des|la|le|del|della|di|do|da|d')[ \t']*)*{_NAME}"
    rf"(?:[ \t]+{_NAME}){{0,3}}")
# Spanish, Catalan, Italian, Portuguese: the type (capitalised, as an address writes it), the
# name, then the number (`Calle Mayor 5`, `Via Roma 10`, `Carrer de Mallorca 401`, `Rua Augusta 100`)
_TYPE_FIRST = ("Calle", "Avenida", "Paseo", "Plaza", "Camino", "Carrer", "Avinguda", "Via", "Viale", "Corso", "Piazza",
               "Largo", "Rua", "Praça", "Travessa", "Estrada")
_PARTICLE = r"(?:de|del|dels|de la|della|dei|degli|di|da|do|dos|das|d')[ \t']*"
_TYPE_FIRST_STREET = re.compile(
    rf"(?<![\w.-])(?:{'|'.join(_TYPE_FIRST)})[ \t]+(?:{_PARTICLE})*{_NAME}(?:[ \t]+(?:{_PARTICLE})?{_NAME}){{0,3}}"
    r",?[ \t]+(?:n\.?[º°o]?[ \t]*)?\d{1,4}[A-Za-z]?(?![\w:/-]|\.\d)")
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
                  *(f" {t} " for t in _ROMANCE),
                  *(f" {t.capitalize()} " for t in _ROMANCE if t not in ("avenue", "boulevard")),  # ` Avenue` above
                  *(f"{t} " for t in _TYPE_FIRST))  # found where the street begins, the line's start too
# A postcode whose shape is its own (the UK's `WC2B 3RH`, Canada's `K1A 0B1`), rare in logs, so
# the engine reports where one stands (`Anchors.postcodes`); written with its space, as on an
# envelope. Before it on its line, a house number, the street's words (a street with no type:
# `116 Kingsway`) and the town make an address whatever the street's name.
# The same for a US ZIP after its state's code (`CA 94043`): a ZIP alone is any five digits, a
# state's code and a ZIP after a number, a street and a town (`1600 Amphitheatre Pkwy, Mountain
# View, CA 94043`, `4821 Willow Creek, Boulder, CO 80302`) is an address whatever the street's type.
# (not `ID` and `PR`: a log's `ID 12345`, `PR 12345` name a record and a pull request; an Idaho or a
# Puerto Rico address is found by its street's type)
_US_STATES = ("AL AK AZ AR CA CO CT DE DC FL GA HI IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY "
              "NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY").split()
_US_STATE = "|".join(_US_STATES)
POSTCODE_ANCHOR_PATTERN = (r"([A-Z]{1,2}[0-9][A-Z0-9]? [0-9][A-Z]{2}|[A-Z][0-9][A-Z] [0-9][A-Z][0-9]"
                           rf"|(?:{_US_STATE}) [0-9]{{5}})")
# the UK's postcode areas (and the Crown dependencies'), the letters an inward code never uses
# (C I K M O V); Canada's first letters (never D F I O Q U W Z): `X86 4GB` is no postcode
_UK_AREAS = ("AB AL B BA BB BD BH BL BN BR BS BT CA CB CF CH CM CO CR CT CV CW DA DD DE DG DH DL DN DT DY E EC EH "
             "EN EX FK FY G GL GU GY HA HD HG HP HR HS HU HX IG IM IP IV JE KA KT KW KY L LA LD LE LL LN LS LU M ME "
             "MK ML N NE NG NN NP NR NW OL OX PA PE PH PL PO PR RG RH RM S SA SE SG SK SL SM SN SO SP SR SS ST SW SY "
             "TA TD TF TN TQ TR TS TW UB W WA WC WD WF WN WR WS WV YO ZE").split()
_UK_AREA = "|".join(sorted(_UK_AREAS, key=len, reverse=True))
_POSTCODE_AT = re.compile(rf"(?:(?:{_UK_AREA})\d[A-Z\d]? \d[ABD-HJLNP-UW-Z]{{2}}|[ABCEGHJ-NPRSTVXY]\d[A-Z] \d[A-Z]\d"
                          rf"|(?:{_US_STATE}) \d{{5}}(?:-\d{{4}})?)(?![\w-])")
_BEFORE_POSTCODE = re.compile(
    rf"(?:(?<![\w.#:/-])|(?<=\\[nrt]))\d{{1,5}}[A-Za-z]?,?[ \t]+{_WORD}(?:[ \t]+{_WORD}){{0,3}}"
    rf"(?:,[ \t]*{_WORD}(?:[ \t]+{_WORD}){{0,2}}){{1,2}}(?:,?[ \t]+[A-Z]{{2}})?,?[ \t]+\Z")
_POSTCODE_REACH = 120  # characters before a postcode where its address may begin


# a postcode's second half, found fast (a literal blank first) where the engine reported none
_INWARD = re.compile(r" \d[A-Z][A-Z\d]")
_STATE_ZIP = re.compile(rf"(?:{_US_STATE}) \d{{5}}")


def _postcodes(text: str, anchors: Anchors) -> list[int]:
    if anchors.postcodes is not None:
        return anchors.postcodes
    # where a postcode may start before its second half (its match and left edge are checked once, below)
    return sorted({*(i for m in _INWARD.finditer(text) for i in range(max(0, m.start() - 4), m.start() - 1)),
                   *(m.start() for m in _STATE_ZIP.finditer(text))})


def postcode_address(text: str, anchors: Anchors) -> Iterator[Hit]:
    """An address found by its postcode: number, street, town and the postcode, on one line."""
    for i in _postcodes(text, anchors):
        code = _POSTCODE_AT.match(text, i)
        if code is None or (i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_-")):
            continue
        line = max(text.rfind("\n", 0, i) + 1, text.rfind("\\n", 0, i) + 2, i - _POSTCODE_REACH, 0)
        m = _BEFORE_POSTCODE.search(text, line, i)
        if m is not None:
            yield Hit(m.start(), code.end(), ADDRESS, "postcode-address")


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
        for pattern in (_EN_STREET, _DE_STREET, _ROMANCE_STREET, _TYPE_FIRST_STREET):
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


# ---------------------------------------------------------------- Dutch and Flemish streets
# The street's type joined to its name (`Keizersgracht`, `Van Baerlestraat`, `Oudegracht`,
# `Coolsingel`), the number after it (`318`, `12a`, `231-bis`, `7 hs`), and maybe the postcode of
# four digits and two capitals and the town (`, 1016 EZ Amsterdam`): a shape of the engine's own
# (not `dam`, `pad`, `hof`, `haven`, `markt`: `Amsterdam 2024`, `Keypad 2` end so too)
_NL_TYPES = ("straat", "gracht", "laan", "plein", "kade", "dijk", "singel", "steeg", "dreef", "burgwal", "plantsoen",
             "weg")
ADDRESS_SHAPES = {"nl-street": f"[a-z](?:{'|'.join(dict.fromkeys(_NL_TYPES))}) [1-9][0-9]{{0,3}}"}
_NL_SHAPE = re.compile(ADDRESS_SHAPES["nl-street"])
_NL_STREET = re.compile(
    rf"(?:(?:[{_UP}][{_LOW}]+|van|de|der|den|het|'s)[ \t]){{0,3}}[{_UP}][{_LOW}]*"
    rf"(?:{'|'.join(dict.fromkeys(_NL_TYPES))})[ \t][1-9]\d{{0,3}}(?:[ \t]?[a-zA-Z](?![\w])|-\d{{1,4}}|-[a-z]{{1,4}}"
    r"|[ \t](?:hs|bis|bg|I{1,3})\b)?")
_NL_TAIL = re.compile(rf",?[ \t]+[1-9]\d{{3}}[ \t]?(?!SA|SD|SS)[A-Z]{{2}}(?:[ \t]+{_WORD}(?:[ -]{_WORD}){{0,2}})?\b")


def nl_street(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A Dutch or Flemish street and its number, the postcode and town after it (see above)."""
    done = -1
    for start, _end in anchors.shaped("nl-street", _NL_SHAPE):
        if start < done:
            continue
        line = max(0, text.rfind("\n", 0, start) + 1, start - 80)
        m = next((m for m in _NL_STREET.finditer(text, line, min(len(text), start + 40))
                  if m.start() <= start < m.end()), None)
        if m is None or (m.start() > 0 and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_/.-")):
            continue
        if m.end() < len(text) and (text[m.end()].isalnum() or text[m.end()] in "_.:/"):
            continue  # `Hofweg 12.5`, a version, a path: no house number
        tail = _NL_TAIL.match(text, m.end())
        end = done = tail.end() if tail is not None else address_tail(text, m.end())
        yield Hit(m.start(), end, ADDRESS, "street-address")
