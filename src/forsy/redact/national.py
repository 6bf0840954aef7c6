"""National identity numbers whose check digits hold, after a word naming them.

A country's number has a shape of its own and a check that its issuer computes (a sum modulo
97, 11, 23, 31; Luhn's): a number of that shape after the number's name (`personnummer
850709-9805`, `NIR : 1 84 12 75 108 042 36`, `codice_fiscale: RSSMRA85T10A562S`, `{"bsn":
…}`) is a person's when its check holds; a record's id or a count after the same words fails
it nine times in ten or more. The countries: France (NIR), Italy (codice fiscale), Sweden
(personnummer), Norway (fødselsnummer), Finland (henkilötunnus), Denmark (CPR: its modulo-11
check was given up in 2007, so only its date is checked, after its own name only), Spain (DNI,
NIE), the Netherlands (BSN, the 11-proef), Belgium (rijksregisternummer), Poland (PESEL).

The names are found by the engine (a shape of its own, so they cost the anchor rule nothing);
a record's field named so is read after its name (`national_key`, via `personal.field_label`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ._base import ID_NUMBER, Hit
from .finance import luhn

if TYPE_CHECKING:
    from ._anchors import Anchors


def _date_ok(day: int, month: int) -> bool:
    return 1 <= day <= 31 and 1 <= month <= 12


def _digits(value: str) -> str:
    return "".join(c for c in value if c.isalnum())


# ---------------------------------------------------------------- the checks
def _fr_nir(value: str) -> bool:
    """France's NIR: sex, year, month, department (Corsica's `2A`/`2B`), commune, order, and a key
    of 97 - (the 13 digits mod 97)."""
    d = _digits(value).upper()
    if len(d) != 15:
        return False
    corsica = {"2A": "19", "2B": "18"}.get(d[5:7])
    body = d[:5] + corsica + d[7:13] if corsica else d[:13]
    if not body.isdigit() or not d[13:].isdigit():
        return False
    month = int(d[3:5])
    return (1 <= month <= 12 or 20 <= month <= 42 or 50 <= month <= 99) and 97 - int(body) % 97 == int(d[13:])


_CF_ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                   (1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8,
                    12, 14, 16, 10, 22, 25, 24, 23), strict=True))


def _it_cf(value: str) -> bool:
    """Italy's codice fiscale: 15 characters and a check letter from their values (odd places by
    a table, even ones by their rank), modulo 26."""
    v = value.upper()
    if len(v) != 16:
        return False
    total = sum(_CF_ODD[c] if k % 2 == 0 else (int(c) if c.isdigit() else ord(c) - 65) for k, c in enumerate(v[:15]))
    return chr(65 + total % 26) == v[15]


def _se_personnummer(value: str) -> bool:
    """Sweden's personnummer (`YYMMDD-NNNC`, the century maybe before it): a date (its day + 60
    in a samordningsnummer) and a Luhn digit over the ten."""
    d = _digits(value)[-10:]
    if len(d) != 10 or not d.isdigit():
        return False
    day = int(d[4:6])
    return _date_ok(day - 60 if day > 60 else day, int(d[2:4])) and luhn(d)


def _no_fodselsnummer(value: str) -> bool:
    """Norway's fødselsnummer: a date (a D-number's day + 40, an H-number's month + 40) and two
    check digits modulo 11."""
    d = _digits(value)
    if len(d) != 11 or not d.isdigit():
        return False
    n = [int(c) for c in d]
    day, month = int(d[:2]) % 40, int(d[2:4]) % 40
    if not _date_ok(day, month):
        return False
    k1 = 11 - sum(a * b for a, b in zip((3, 7, 6, 1, 8, 9, 4, 5, 2), n, strict=False)) % 11
    k2 = 11 - sum(a * b for a, b in zip((5, 4, 3, 2, 7, 6, 5, 4, 3, 2), n, strict=False)) % 11
    return (k1 % 11) == n[9] and (k2 % 11) == n[10]


_FI_CHECK = "0123456789ABCDEFHJKLMNPRSTUVWXY"


def _fi_hetu(value: str) -> bool:
    """Finland's henkilötunnus (`DDMMYY-NNNC`, the century's sign `+ - A…F U…Y`): a date and a
    check character of the nine digits modulo 31."""
    v = value.upper()
    if len(v) != 11 or not (v[:6] + v[7:10]).isdigit():
        return False
    return _date_ok(int(v[:2]), int(v[2:4])) and _FI_CHECK[int(v[:6] + v[7:10]) % 31] == v[10]


def _dk_cpr(value: str) -> bool:
    """Denmark's CPR number (`DDMMYY-NNNN`): a date (no check digit since 2007)."""
    d = _digits(value)
    return len(d) == 10 and d.isdigit() and _date_ok(int(d[:2]), int(d[2:4]))


_ES_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def _es_dni(value: str) -> bool:
    """Spain's DNI (8 digits and a letter) or NIE (X, Y or Z, 7 digits, a letter): the letter is
    the number modulo 23."""
    v = _digits(value).upper()
    if len(v) != 9 or not v[-1].isalpha():
        return False
    body = str("XYZ".index(v[0])) + v[1:8] if v[0] in "XYZ" else v[:8]
    return body.isdigit() and _ES_LETTERS[int(body) % 23] == v[-1]


def _nl_bsn(value: str) -> bool:
    """The Netherlands' BSN: 9 digits that pass the 11-proef (weights 9…2, the last -1)."""
    d = _digits(value)
    if len(d) != 9 or not d.isdigit() or d == "0" * 9:
        return False
    return sum(int(c) * w for c, w in zip(d, (9, 8, 7, 6, 5, 4, 3, 2, -1), strict=True)) % 11 == 0


def _be_rrn(value: str) -> bool:
    """Belgium's rijksregisternummer (`YY.MM.DD-NNN.CC`): 97 - (the 9 digits mod 97), a `2`
    before them for those born from 2000."""
    d = _digits(value)
    if len(d) != 11 or not d.isdigit() or int(d[2:4]) > 12:
        return False
    check = int(d[9:])
    return 97 - int(d[:9]) % 97 == check or 97 - int("2" + d[:9]) % 97 == check


def _pl_pesel(value: str) -> bool:
    """Poland's PESEL: a date (the century in the month: + 20, 40, 60, 80) and a weighted check."""
    d = _digits(value)
    if len(d) != 11 or not d.isdigit():
        return False
    if not _date_ok(int(d[4:6]), int(d[2:4]) % 20):
        return False
    total = sum(int(c) * w for c, w in zip(d, (1, 3, 7, 9, 1, 3, 7, 9, 1, 3), strict=False))
    return (10 - total % 10) % 10 == int(d[10])


# each country's shape (right after the name and its gap) and check
_SHAPES: dict[str, tuple[re.Pattern[str], Callable[[str], bool]]] = {
    "fr": (re.compile(r"[12][ .]?\d\d[ .]?\d\d[ .]?(?:\d\d|2[AaBb])[ .]?\d{3}[ .]?\d{3}[ .]?\d\d"), _fr_nir),
    "it": (re.compile(r"[A-Za-z]{6}[0-9LMNP-V]{2}[ABCDEHLMPRSTabcdehlmprst][0-9LMNP-V]{2}[A-Za-z][0-9LMNP-V]{3}"
                      r"[A-Za-z]"), _it_cf),
    "se": (re.compile(r"(?:19|20)?\d{6}[-+ ]?\d{4}"), _se_personnummer),
    "no": (re.compile(r"\d{6}[ ]?\d{5}"), _no_fodselsnummer),
    "fi": (re.compile(r"\d{6}[-+A-FU-Ya-fu-y]\d{3}[0-9A-Ya-y]"), _fi_hetu),
    "dk": (re.compile(r"\d{6}-?\d{4}"), _dk_cpr),
    "es": (re.compile(r"(?:\d{8}|[XYZxyz][- ]?\d{7})[- ]?[A-Za-z]"), _es_dni),
    "nl": (re.compile(r"\d{9}|\d{4}\.\d\d\.\d{3}|\d{3}[ .]\d{3}[ .]\d{3}"), _nl_bsn),
    "be": (re.compile(r"\d\d[.]?\d\d[.]?\d\d[-. ]?\d{3}[.]?\d\d"), _be_rrn),
    "pl": (re.compile(r"\d{11}"), _pl_pesel),
}
# checks strong enough for a generic name (`national id`): one number in 23 or fewer passes them
_STRONG = ("fr", "it", "fi", "be", "es", "no")

# the numbers' names, each with the countries whose number it names
_NAMES: dict[str, tuple[str, ...]] = {
    "nir": ("fr",), "sécurité sociale": ("fr",), "securite sociale": ("fr",), "numéro insee": ("fr",),
    "codice fiscale": ("it",), "cod fisc": ("it",),
    "personnummer": ("se", "no", "dk"), "personnr": ("se",), "samordningsnummer": ("se",),
    "fødselsnummer": ("no",), "fodselsnummer": ("no",), "foedselsnummer": ("no",),
    "henkilötunnus": ("fi",), "henkilotunnus": ("fi",), "hetu": ("fi",), "personbeteckning": ("fi",),
    "cpr": ("dk",), "cpr nummer": ("dk",), "cpr nr": ("dk",),
    "dni": ("es",), "nie": ("es",), "nif": ("es",), "documento nacional de identidad": ("es",),
    "bsn": ("nl",), "burgerservicenummer": ("nl",), "sofinummer": ("nl",), "sofi nummer": ("nl",),
    "rijksregisternummer": ("be",), "rijksregister": ("be",), "registre national": ("be",), "insz": ("be",),
    "niss": ("be",), "numéro national": ("be",), "national register number": ("be",),
    "pesel": ("pl",),
    "national id": _STRONG, "national identity number": _STRONG, "national identification number": _STRONG,
    "personal identity number": ("se", *_STRONG), "personal id number": _STRONG,
}
# short names that are words elsewhere (German `nie`, Polish `dni`, English `cpr`): in capitals,
# or in lower case only as a key (`"dni": …`, `cpr=`); their numbers' checks decide the rest
_SHORT = frozenset({"nir", "hetu", "cpr", "dni", "nie", "nif", "bsn", "insz", "niss", "pesel"})


def _variants(name: str) -> set[str]:
    words = name.split(" ")
    out = {name, name.capitalize(), name.upper(), " ".join(w.capitalize() for w in words)}
    if len(words) > 1:
        out |= {"_".join(words), "-".join(words), "_".join(words).upper(),
                words[0] + "".join(w.capitalize() for w in words[1:]), "".join(w.capitalize() for w in words)}
    return out


# longest first, then by their letters: the engine's rule file must be the same in every process (its
# compiled form is cached by the file's hash; a set's order changes with each process's hash seed)
_FORMS = sorted({v for n in _NAMES for v in _variants(n)}, key=lambda v: (-len(v), v))
_BY_FORM = {v: n for n in _NAMES for v in _variants(n)}
# the engine's shape: the names as written (the Python fallback reads the same alternation)
NATIONAL_SHAPES = {"national-id": "(?:" + "|".join(_FORMS) + ")"}  # (the names hold no regex character)
_NAME_RX = re.compile(NATIONAL_SHAPES["national-id"])
_GAP = re.compile(r"(?:[^\w\n]|_){0,6}(?:(?:is|är|er|est|es|è|é|ist|:|#|n°|no\.?|nr\.?|number|nummer|numero|número|"
                  r"numéro|id)(?:[^\w\n]|_){0,4}){0,2}")
_KEY_END = re.compile(r"\\{0,3}[\"']?[ \t]*[:=]")


def national_id(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A national number of one of the countries above after its name, its check holding."""
    done = -1
    for start, end in anchors.shaped("national-id", _NAME_RX):
        form = text[start:end]
        name = _BY_FORM.get(form)
        if name is None or start < done:
            continue
        if start > 0 and text[start - 1].isalnum() and not text.startswith(("\\n", "\\t"), start - 2):
            continue  # inside a word: `personnummers`, `BSNL`
        if end < len(text) and text[end].isalpha():
            continue
        if name in _SHORT and form.islower() and not _KEY_END.match(text, end):
            continue  # `dni 12`, `nie mehr`: a word, not the number's key
        gap = _GAP.match(text, end)
        at = gap.end() if gap is not None else end
        hit = _checked(text, at, _NAMES[name])
        if hit is not None:
            done = hit.end
            yield hit


def _checked(text: str, at: int, countries: tuple[str, ...]) -> Hit | None:
    for country in countries:
        rx, check = _SHAPES[country]
        m = rx.match(text, at)
        if m is None or (m.end() < len(text) and (text[m.end()].isalnum() or text[m.end()] in "_-/")):
            continue
        if check(m.group()):
            return Hit(m.start(), m.end(), ID_NUMBER, "national-id")
    return None


@functools.lru_cache(maxsize=4096)
def national_key(key: str) -> str | None:
    """The name a record's field `key` gives a national number (`personnummer`, `codiceFiscale`,
    `BSN`), for the rule above to read its value after, or None."""
    flat = re.sub(r"[\s_.'-]+", " ", re.sub(r"([a-z])([A-Z])", r"\1 \2", key)).strip().lower()
    return flat if flat in _NAMES else None
