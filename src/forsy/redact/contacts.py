"""Personal data written so the other rules do not see its shape.

* An e-mail address written to escape harvesters: `jane [at] example [dot] com`,
  `jane(at)example.org`, `jane {at} mail {dot} co {dot} uk`. The `at` is bracketed (a bare
  ` at ` is a word of every sentence); the dots may be bracketed or not.
* A mailing address that is no street: a post office box (`P.O. Box 2517, Austin, TX 78762`,
  `Postfach 10 02 03`, `Apartado de correos 123`), and a Japanese address after its postal mark
  (`〒150-0041 東京都渋谷区神南1-2-3`), to the end of the address.
* A bank account number after its name (`account number`, `Kontonummer`, `numéro de compte`)
  when the name says it is a bank's, or a bank's word stands near it (`routing`, `sort code`,
  `IBAN`, `SWIFT`): `account number 9112047726` beside a routing number. An IBAN has its own rule.
* A home folder named by its owner's account: `~jonas/.config`, as the shell expands `~name`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import ADDRESS, BANK_ACCOUNT, EMAIL, PATH_USER, Hit
from .addresses import address_tail
from .personal import is_person_account

if TYPE_CHECKING:
    from ._anchors import Anchors

# ---------------------------------------------------------------- e-mail addresses written to escape harvesters
AT_ANCHORS = ("[at]", "(at)", "{at}", "<at>")
_OBF_AT = re.compile(r"[ \t]?(?:\[at\]|\(at\)|\{at\}|<at>)[ \t]?", re.IGNORECASE)
_OBF_LOCAL = re.compile(r"[\w.+-]{1,64}\Z")
_OBF_DOT = re.compile(r"[ \t]?(?:\[dot\]|\(dot\)|\{dot\}|<dot>|\.)[ \t]?", re.IGNORECASE)
_OBF_DOMAIN = re.compile(rf"[\w-]{{1,63}}(?:{_OBF_DOT.pattern}[\w-]{{1,63}}){{1,4}}", re.IGNORECASE)
# what ends such an address: a country's code, or a generic top-level domain people write to
# (`placeholders` after `{dot}` in a template's prose is no domain)
_OBF_TLD = re.compile(r"[A-Za-z]{2}|(?i:com|org|net|edu|gov|mil|int|info|biz|name|pro|io|dev|app|ai|co|me|xyz|online|"
                      r"site|tech|cloud|email|mail|eu|asia|science|systems|solutions|company|group|space|studio|"
                      r"design|digital|network|software|agency|academy|email|lab|page|blog|shop|store)")


def obfuscated_email(text: str, anchors: Anchors) -> Iterator[Hit]:
    """`name [at] domain [dot] tld`, `name(at)domain.tld`: the whole address."""
    done = -1
    for i in anchors.find(AT_ANCHORS, ignore_case=True):
        if i < done:
            continue
        at = _OBF_AT.match(text, i - 1 if i > 0 and text[i - 1] in " \t" else i)
        local = _OBF_LOCAL.search(text, max(0, i - 66), at.start()) if at else None
        domain = _OBF_DOMAIN.match(text, at.end()) if at else None
        if at is None or local is None or domain is None:
            continue
        tld = _OBF_DOT.split(domain.group())[-1]
        if not _OBF_TLD.fullmatch(tld) or local.group().strip(".") == "":
            continue
        done = domain.end()
        yield Hit(local.start(), domain.end(), EMAIL, "email-obfuscated")


# ---------------------------------------------------------------- post office boxes, a Japanese postal mark
BOX_ANCHORS = ("Box ", "BOX ", "Postfach ", "Apartado ", "Casilla ")  # reported by the engine (_native.py)
_PO_BOX = re.compile(r"(?<![\w.])(?:P\.?[ \t]?O\.?[ \t]?(?:Box|BOX)|Post Office Box|POST OFFICE BOX|Postfach|"
                     r"Apartado(?: de [Cc]orreos)?|Casilla(?: de [Cc]orreo)?)[ \t]+\d{1,6}(?:[ \t]\d{2}){0,2}\b")
_JP_POSTAL = re.compile(r"〒[ \t]?\d{3}-?\d{4}[ \t\u3000]?[^\s,;\"'`<>()\[\]{}|\\]{0,60}")


def mailing_address(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A post office box with the city and postcode after it; a Japanese address from its 〒."""
    done = -1
    for i in anchors.find((*BOX_ANCHORS, "〒")):
        if i < done:
            continue
        if text.startswith("〒", i):
            m = _JP_POSTAL.match(text, i)
            if m is not None:
                done = m.end()
                yield Hit(i, m.end(), ADDRESS, "mailing-address")
            continue
        m = _PO_BOX.search(text, max(0, i - 18), i + 40)
        if m is None or not m.start() <= i < m.end():
            continue
        done = address_tail(text, m.end())
        yield Hit(m.start(), done, ADDRESS, "mailing-address")


# ---------------------------------------------------------------- a bank account's number after its name
ACCOUNT_ANCHORS_RARE = ("kontonummer", "numéro de compte", "número de cuenta", "numero di conto",
                        "rekeningnummer")  # reported by the engine (_native.py)
# `account` with what names its number next (`account number`, `account no.`, `account #`): the word
# alone is in every other line of a log
ACCOUNT_ANCHORS = ("account n", "account #", "account#", "acct", "a/c", *ACCOUNT_ANCHORS_RARE)
_ACCOUNT_LABEL = re.compile(r"(?:(?P<bank>bank[ \t]+)?(?:account|acct|a/c)(?:[ \t]+(?:number|no\.?|nr\.?|#)|[ \t]?#)"
                            r"|(?P<named>kontonummer|numéro de compte|número de cuenta|numero di conto|rekeningnummer))"
                            r"[ \t]*(?:is[ \t]+|[:=#][ \t]*)?(?P<v>\d(?:[\d -]{4,22}\d))(?![\w.-]|,\d)", re.IGNORECASE)
_BANK_WORDS = re.compile(r"\b(?:routing|sort[ \t]code|iban|swift|bic|aba|bsb|ach|wire|bank|bankleitzahl|blz)\b",
                         re.IGNORECASE)


def bank_account(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A bank account's number after its name, beside a bank's word (or named a bank's)."""
    done = -1
    for i in anchors.find(ACCOUNT_ANCHORS, ignore_case=True):
        if i < done or (i > 0 and text[i - 1].isalnum()):
            continue
        m = _ACCOUNT_LABEL.match(text, i)
        if m is None:
            continue
        digits = sum(c.isdigit() for c in m["v"])
        near = text[max(0, i - 80) : m.end() + 80]
        if not 6 <= digits <= 17 or not (m["named"] or _BANK_WORDS.search(near)):
            continue
        done = m.end("v")
        yield Hit(m.start("v"), m.end("v"), BANK_ACCOUNT, "bank-account")


# ---------------------------------------------------------------- `~name/`: a home folder by its owner's name
# starts with its literal `~` (the regex engine looks for it as fast as a search would; `~/`, the
# most common, fails at once)
_TILDE_USER = re.compile(r"~(?P<v>[a-z_][a-z0-9_.-]{2,31})(?=/)")


def tilde_user(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The account in `~name/…` (the shell's way to name another user's home folder)."""
    for m in _TILDE_USER.finditer(text):
        i = m.start()
        if i > 0 and (text[i - 1].isalnum() or text[i - 1] in "~_-./"):
            continue  # `host/~name/`: a web page's path (a university's home pages), not a shell's
        if is_person_account(m["v"]):
            yield Hit(m.start("v"), m.end("v"), PATH_USER, "home-path")
