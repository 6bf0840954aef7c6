"""People named by the field that holds their name.

A record's field, a setting or an argument whose key names a person's name (`full_name`,
`firstName`, `last-name`, `given_name`, `surname`, `customer_name`, `Vorname`, `prénom`, any
casing or separator): its value is masked when it reads as a name (capitalised words, a
particle between them, or two to four CJK characters), not code (`first_name = row[0]`,
`display_name: str`), a stand-in (`John Doe`) or an organisation's (`Acme Corp`). A bare
`display_name` or `name` is not one: it names an app, a kernel, a channel as often as a person.

A name after a label for a contact person (`联系人：`, `姓名：`, `氏名：`, `이름:`,
`Ansprechpartner:`, `contact person:`), and a vCard's name properties (`FN:`, `N:` after
`BEGIN:VCARD`) are masked too.

The keys and labels are found by the engine (a shape of their own).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import PERSON, Hit
from .people import _NOT_PERSON_WORDS, _PARTICLES, _person

if TYPE_CHECKING:
    from ._anchors import Anchors

# the words that make a key name a person's name: a part of the name, or whose name it is
_NAME_PARTS = ("full", "first", "last", "given", "family", "middle", "legal", "maiden", "sur", "fore", "real",
               "birth", "preferred")
_OWNERS = ("customer", "patient", "employee", "contact", "recipient", "sender", "cardholder", "holder", "applicant",
           "passenger", "student", "client", "member", "person", "beneficiary", "guardian", "tenant", "buyer",
           "shipping", "billing", "signer")
_ONE_WORD = ("surname", "forename", "firstname", "lastname", "fullname", "vorname", "nachname", "prénom", "prenom",
             "apellido", "apellidos", "cognome", "achternaam", "voornaam", "efternamn", "fornavn", "etternavn")


def _cased(words: tuple[str, ...]) -> str:
    return "|".join(f"[{w[0].upper()}{w[0]}]{w[1:]}|{w.upper()}" for w in words)


# the engine's shape: a key and the `:`/`=` after it (its quote too), or a label and its colon
_KEY_SHAPE = (rf"(?:(?:{_cased(_NAME_PARTS + _OWNERS)})[ _-]?(?:[Nn]ames?|NAMES?)|{_cased(_ONE_WORD)})"
              r"\\{0,3}[\"']?[ \t]{0,4}[:=]")
_LABELS = ("联系人", "姓名", "收件人", "收货人", "负责人", "联络人", "聯絡人", "聯繫人", "氏名", "名前", "担当者",
           "이름", "성명", "담당자", "Ansprechpartner", "Kontaktperson", "contact person", "Contact person",
           "Contact Person")
NAME_FIELD_SHAPES = {"name-field": f"(?:{_KEY_SHAPE}|(?:{'|'.join(_LABELS)})[ \t]?(?::|：)|BEGIN:VCARD)"}
_SHAPE_RX = re.compile(NAME_FIELD_SHAPES["name-field"])

_KEY_WORDS = re.compile(r"[A-Z]?[a-zà-ÿ]+|[A-Z]+(?![a-z])")
_PART_SET = frozenset(_NAME_PARTS)
_OWNER_SET = frozenset(_OWNERS)
_ONE_SET = frozenset(_ONE_WORD)


@functools.lru_cache(maxsize=4096)
def name_key(key: str) -> int:
    """How many words a value under `key` must hold to be read as a name: 1 for a part of one
    (`first_name`, `surname`), 2 for a whole one (`full_name`, `customer_name`); 0: not a name's key."""
    words = [w.lower() for w in _KEY_WORDS.findall(key)]
    if not words:
        return 0
    if len(words) == 1:
        return 1 if words[0] in _ONE_SET else 0
    if words[-1] in ("name", "names") and words[-2] in _PART_SET:
        return 2 if words[-2] in ("full", "legal", "real", "birth", "preferred") else 1
    if words[-1] in ("name", "names") and words[-2] in _OWNER_SET:
        return 2
    return 1 if words[-1] in _ONE_SET else 0


# stand-ins documentation and tests write for a person
_STAND_INS = frozenset({"john doe", "jane doe", "john smith", "jane smith", "max mustermann", "erika mustermann",
                        "joe bloggs", "mario rossi", "jean dupont", "jan kowalski", "john", "jane", "doe", "smith",
                        "first", "last", "first last", "firstname lastname", "first name", "last name", "full name",
                        "your name", "test user", "test", "user", "name", "unknown", "anonymous", "max", "erika"})
_NAME_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['’.-](?=[^\W\d_]))*\.?")
_CJK_NAME = re.compile(r"[\u4e00-\u9fff]{2,4}|[\uac00-\ud7a3]{2,4}|[\u4e00-\u9fff\u3040-\u30ff]{1,4}[ 　]"
                       r"[\u4e00-\u9fff\u3040-\u30ff]{1,4}")


def reads_as_name(value: str, least: int = 2) -> bool:
    """`value` is a person's name: `least` to five capitalised words (particles between them, a
    `Last, First` comma), or a CJK name of two to four characters (its space too: `山田 太郎`)."""
    value = value.strip()
    if _CJK_NAME.fullmatch(value):
        return True
    if not 2 <= len(value) <= 80 or value.lower() in _STAND_INS:
        return False
    words = value.replace(",", " ").split()
    if not least <= len(words) <= 5 or value.count(",") > 1:
        return False
    for k, w in enumerate(words):
        if not _NAME_WORD.fullmatch(w) or w.lower() in _NOT_PERSON_WORDS:
            return False
        if not (w[0].isupper() or (w in _PARTICLES and 0 < k < len(words) - 1)) or (w.isupper() and len(w) > 3):
            return False
    return _person(value)


_VALUE = re.compile(r"[ \t]*(?:(?P<q>\\{0,3}[\"'])(?P<quoted>[^\"'\\\n<>]{1,80})(?P=q)"
                    r"|(?P<bare>[^\W\d_][^\n\r\\\"'#;,&<>{}\[\]()=:]{0,79}?)[ \t]*(?=$|[\n\r,;#}\]]|\\[nrt]))")
_KEY_START = re.compile(r"[\w-]{1,40}\Z")


def name_field(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The value of a key naming a person's name, a name after a contact label, a vCard's names."""
    for start, end in anchors.shaped("name-field", _SHAPE_RX):
        head = text[start:end]
        if head == "BEGIN:VCARD":
            yield from _vcard(text, end)
        elif head[-1] in ":：" and head.rstrip(" \t:：") in _LABELS:
            hit = _labelled(text, start, end)
            if hit is not None:
                yield hit
        else:
            hit = _keyed(text, start, end)
            if hit is not None:
                yield hit


def _keyed(text: str, start: int, end: int) -> Hit | None:
    key_m = _KEY_START.search(text, max(0, start - 40), start)
    key_start = key_m.start() if key_m is not None else start
    if key_start > 0 and text[key_start - 1] == "\\" and text[key_start] in "nrt":
        key_start += 1  # `\nfirst_name:` in JSON text: the escape is no part of the key
    key = text[key_start : end].rstrip(" \t:=\"'\\")
    least = name_key(key)
    if not least or text[end - 1] == "=" and text[end : end + 1] == "=":
        return None  # not a name's key (`username`), or a comparison (`first_name == "Ann"`)
    m = _VALUE.match(text, end)
    if m is None:
        return None
    group = "quoted" if m["quoted"] is not None else "bare"
    value = m[group].strip()
    if not reads_as_name(value, least):
        return None
    s = m.start(group) + (len(m[group]) - len(m[group].lstrip()))
    return Hit(s, s + len(value), PERSON, "name-field")


_AFTER_LABEL = re.compile(r"[ \t　]*(?P<v>[\u4e00-\u9fff]{2,4}(?![\u4e00-\u9fff])"
                          r"|[\uac00-\ud7a3]{2,4}(?![\uac00-\ud7a3])"
                          r"|[\u4e00-\u9fff\u3040-\u30ff]{1,4}[ 　][\u4e00-\u9fff\u3040-\u30ff]{1,4}"
                          r"(?![\u4e00-\u9fff\u3040-\u30ff])"
                          r"|(?:(?:Herr|Frau|Mr\.?|Mrs\.?|Ms\.?|Dr\.?)[ \t])?[^\W\d_][^\n\r\\,;|<>()]{1,60}?)"
                          r"(?=[ \t]*(?:$|[\n\r,;|<(，。、；]|\\[nrt]| - | – ))")


def _labelled(text: str, start: int, end: int) -> Hit | None:
    if start > 0 and text[start - 1].isalpha() and text[start - 1].isascii():
        return None
    m = _AFTER_LABEL.match(text, end)
    if m is None:
        return None
    value = re.sub(r"^(?:Herr|Frau|Mr\.?|Mrs\.?|Ms\.?|Dr\.?)[ \t]", "", m["v"])
    if not reads_as_name(value):
        return None
    return Hit(m.end("v") - len(value), m.end("v"), PERSON, "contact-name")


# a vCard's formatted name (`FN:`) and structured name (`N:Last;First;Middle;Prefix;Suffix`),
# parameters and a group before them allowed (`item1.FN;CHARSET=UTF-8:`)
_VCARD_NAME = re.compile(r"(?:^|(?<=\n)|(?<=\\n))(?:[\w-]{1,20}\.)?(?:FN|N)(?:;[^:\n\\]{0,80})?:"
                         r"(?P<v>[^\n\r\\]{1,200}?)[;\s]*(?=\r?\n|\\[rn]|$)", re.MULTILINE)
_VCARD_END = "END:VCARD"


def _vcard(text: str, pos: int) -> Iterator[Hit]:
    stop = text.find(_VCARD_END, pos, pos + 8000)
    stop = stop if stop >= 0 else min(len(text), pos + 8000)
    for m in _VCARD_NAME.finditer(text, pos, stop):
        value = m["v"].rstrip("; \t")
        words = value.replace(";", " ").split()
        if words and _person(" ".join(words)) and not any(w.lower() in _NOT_PERSON_WORDS for w in words):
            yield Hit(m.start("v"), m.start("v") + len(value), PERSON, "vcard-name")
