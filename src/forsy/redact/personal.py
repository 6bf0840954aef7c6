"""Personal data: email addresses, phone numbers, account names in home paths, given names."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import unquote

from ._base import _ALNUM, BIRTH_DATE, EMAIL, ID_NUMBER, PATH_USER, PHONE, Hit, left_ok, longest_at, wide
from ._values import FILE_EXTENSIONS
from .national import national_key

if TYPE_CHECKING:
    from ._anchors import Anchors

# ---------------------------------------------------------------- emails
# Letters and digits of any script (`[^\W_]`): addresses may be internationalised (RFC 6531:
# `jürgen.müller@bücher.de`); an ASCII-only walk masked `mü[EMAIL]` and left the rest
_EMAIL_DOMAIN = re.compile(
    r"@(?P<d>[^\W_](?:[\w-]{0,62}[^\W_])?(?:\.[^\W_](?:[\w-]{0,62}[^\W_])?)*"
    r"\.(?P<tld>[^\W\d_]{2,24}))(?![\w-]|\.[^\W_]|/)"
)
_LOCAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")
# Not personal: machine senders, the role addresses of organisations (`support@vendor.com`) and
# the local parts documentation writes (`your-email@…`)
_EMAIL_LOCAL_SKIP = frozenset({
    "git", "noreply", "no-reply", "donotreply", "do-not-reply", "mailer-daemon",
    "support", "help", "info", "contact", "sales", "security", "abuse", "postmaster", "hostmaster", "webmaster",
    "hello", "team", "billing", "privacy", "legal", "press", "feedback", "notifications", "newsletter",
    "marketing", "careers", "jobs", "office", "enquiries", "inquiries", "partners", "alerts", "bounce", "bounces",
    "your-email", "youremail", "your.email", "your_email", "your.name", "yourname", "you", "email", "someone",
    "username", "user.name", "firstname.lastname", "first.last",
})
# Documentation and test domains (RFC 2606, RFC 6761) and the stand-ins documentation uses. Not
# `email.com`: a public mail provider (mail.com's), whose users' addresses are people's
_DOC_TLDS = frozenset({"test", "invalid", "local", "localhost", "example"})
_DOC_DOMAINS = frozenset({"example.com", "example.org", "example.net", "company.com", "domain.com",
                          "yourdomain.com", "yourcompany.com", "mydomain.com", "mycompany.com"})
# `unit@instance.service` is a systemd unit, not an address
_UNIT_SUFFIXES = frozenset({"service", "socket", "target", "timer", "mount", "automount", "swap", "path", "slice",
                            "scope", "device"})
# `user@host` after ssh, scp, rsync… on the same command line is a login, not an address
_SSH_COMMAND = re.compile(r"(?:^|[\s(`'\"])(?:ssh|scp|sftp|rsync|mosh|autossh|ssh-copy-id|sshfs|ssh-keyscan)[ \t]"
                          r"[^\n;&|#]*$")



def email(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Email addresses: the domain is matched by regex, the local part by walking left.

    Not followed by "/": "pkg@scope.io/name" is a package path, not an address."""
    if "@" not in text:
        return
    for m in _EMAIL_DOMAIN.finditer(text):
        tld = m.group("tld").lower()
        if (tld in FILE_EXTENSIONS and not _country_domain(m.group("d"), tld)) or tld in _UNIT_SUFFIXES or (
                _doc_domain(m.group("d").lower(), tld)):
            continue
        start = _local_start(text, m.start())
        local = text[start : m.start()]
        if not local or local.endswith(".") or local.lower() in _EMAIL_LOCAL_SKIP:
            continue  # ("Promise.@resolve" is code, not an address)
        if _ssh_target(text, start):
            continue
        yield Hit(start, m.end(), EMAIL, "email")


def _country_domain(domain: str, tld: str) -> bool:
    """`wp.pl`, `sapo.pt`, `mts.rs`: a country's domain whose code is also a file extension
    (Poland's and Perl's `.pl`); `icon@2x.png`-like names have no word before the extension."""
    label = domain[: -len(tld) - 1].rsplit(".", 1)[-1]
    return len(tld) == 2 and sum(c.isalpha() for c in label) >= 2


def _doc_domain(domain: str, tld: str) -> bool:
    if tld in _DOC_TLDS or domain in _DOC_DOMAINS:
        return True
    return domain.endswith((".example.com", ".example.org", ".example.net"))


def _ssh_target(text: str, start: int) -> bool:
    window = text[max(0, start - 200) : start]
    # the command starts after the last separator (after both chars of a JSON-escaped "\\n")
    ends = [j + len(c) for c in ("\n", ";", "&", "|", "#", "\\n") if (j := window.rfind(c)) >= 0]
    return _SSH_COMMAND.search(window[max(ends, default=0) :]) is not None


def _local_start(text: str, at: int) -> int:
    start = at
    while start > 0 and at - start < 64 and (text[start - 1] in _LOCAL_CHARS or (
            not text[start - 1].isascii() and text[start - 1].isalnum())):
        start -= 1
    # "\nalice@…" (JSON escape) or "%0Aalice@…" (URL escape): the escape is not the address
    if start >= 1 and text[start - 1] == "\\" and start < at and text[start] in "nrtbf":
        start += 1
    elif start >= 1 and text[start - 1] == "%" and re.match(r"[0-9A-Fa-f]{2}", text[start : start + 2]):
        start += 2
    while start < at and text[start] in ".+-":
        start += 1
    return start


# ---------------------------------------------------------------- phone numbers
# Conservative: an international "+CC …" number of 8-15 digits with separators (or 10+ digits
# compact), or a North-American number written with the usual punctuation. Not inside a
# longer token (versions, hashes, timestamps, ports: the boundary checks).
# (possessive digit groups: a long digit run has one way to be split, not thousands)
_PHONE_INTL = re.compile(r"\+(?P<v>[1-9]\d{0,2}+(?:[ .\-]?\(\d{1,4}+\))?(?:[ .\-]?\d{1,5}+){1,5})(?![\w\-+/]|[.:]\d)")
_PHONE_NANP = re.compile(r"[2-9]\d\d(?P<s>[\-.])[2-9]\d\d(?P=s)\d{4}(?![\w\-+/]|[.:]\d)")
_PHONE_PAREN = re.compile(r"\([2-9]\d\d\)[ \-.]?[2-9]\d\d[\-.]\d{4}(?![\w\-+/]|[.:]\d)")
# A national number in its country's groups (`020 7946 0958`, `06 12 34 56 78`, `07700 900123`):
# the trunk 0, then 10-12 digits in all, in 2-5 groups of 2-8 parted by blanks. No other number a
# log prints has that shape alone: a table's row or a hex dump goes on with more groups, an IBAN's
# groups follow a digit, a date or a time has fewer digits or other separators. Groups parted by
# `-` (`090-1234-5678`) only after a phone's word (`labelled_phone`): `-` parts every ISO date
# (`2026-01-05`), which the engine would report thousands of times in a session
_PHONE_NATIONAL = re.compile(r"(?<![\w.:/+\-,])(?<!\d[ \-])0[1-9]\d{0,4}+(?: \d{2,8}+){1,4}(?![\w.:/\-,]|[ \-]\d)")
_ASCENDING = "0123456789"
_NOT_BEFORE_PHONE = frozenset("_+/=.-:") | _ALNUM


def phone(text: str, anchors: Anchors) -> Iterator[Hit]:
    """Phone numbers in international or NANP notation, or a national one in its groups."""
    native = anchors.phone
    if native is not None:  # the engine found where numbers may start: match only there
        matches = [m for i in native for rx in _PHONES if (m := rx.match(text, i)) is not None]
    else:
        matches = [m for rx in _PHONES for m in rx.finditer(text)]
    for m in matches:
        if m.re is _PHONE_INTL:
            digits = sum(c.isdigit() for c in m.group("v"))
            if not (8 <= digits <= 15 and (not m.group("v").isdigit() or digits >= 10)):
                continue
        elif m.re is _PHONE_NATIONAL and (not 10 <= sum(c.isdigit() for c in m.group()) <= 12
                                          or all(g in _ASCENDING for g in m.group().split(" "))):
            continue  # `0123 0123456`, `01 23 45 67 89`: counting, or the book's example
        if _phone_left(text, m.start()):
            yield Hit(m.start(), m.end(), PHONE, "phone")


_PHONES = (_PHONE_INTL, _PHONE_NANP, _PHONE_PAREN, _PHONE_NATIONAL)
# The same shapes, loosely, in the engine's regex dialect (no look-around): it reports where
# one may start, _PHONES decide.
PHONE_ANCHOR_PATTERN = (r"(\+[1-9][0-9 .()-]{7,24}|[2-9][0-9]{2}[-.][2-9][0-9]{2}[-.][0-9]{4}|\([2-9][0-9]{2}\)"
                        r"|0[1-9][0-9]{0,4} [0-9]{2,5})")


def _phone_left(text: str, i: int) -> bool:
    return i == 0 or text[i - 1] not in _NOT_BEFORE_PHONE or (text[i - 1] in _ALNUM and left_ok(text, i))


# A national number (`06 12 34 56 78`, `030 1234567`, `090-1234-5678`) has no shape of its own:
# only after a word for a phone, in the languages agents are used in, is it one
_PHONE_WORDS = ("tel:", "tel.", "tel ", "phone", "mobile", "cell", "telefon", "handy", "téléphone", "tél", "portable",
                "teléfono", "móvil", "celular", "telefone", "telefono", "cellulare", "telefoon", "mobiel", "whatsapp",
                "WhatsApp", "телефон", "тел.", "电话", "手机", "手機", "電話", "携帯", "전화", "휴대폰",
                # a vCard's TEL property (`TEL;TYPE=cell:`), WhatsApp's link (`wa.me/<number>`)
                "TEL;", "wa.me/")
PHONE_LABELS = tuple(dict.fromkeys(v for w in _PHONE_WORDS for v in (w, w.capitalize(), w.upper())))
_PHONE_LONGEST = tuple(sorted(PHONE_LABELS, key=len, reverse=True))
_LABEL_GAP = re.compile(r"[^\d\n+]{0,24}?(?=\+?\(?\d)")
_DATE = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}")
_NATIONAL = re.compile(r"\+?\(?\d{1,5}\)?(?:[ \-/.]?\(?\d{1,5}\)?){1,6}(?![\w\-+/]|[.:]\d)")


def labelled_phone(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A phone number in a country's own notation, after a word for a phone (`Tel: 06 12 34 56 78`)."""
    done = -1
    for i in anchors.find(PHONE_LABELS):
        word = longest_at(text, i, _PHONE_LONGEST)
        if word is None:
            continue
        end = i + len(word)
        if i < done or (i > 0 and text[i - 1].isalpha() and text[i - 1].isascii()) or (
                word[-1].isalpha() and not wide(word[-1]) and end < len(text) and text[end].isalpha()):
            continue  # `Intel `, `hotel:`, `telephony`, `mobiles` (a CJK label goes on: `電話番号`)
        gap = _LABEL_GAP.match(text, end)
        m = _NATIONAL.match(text, gap.end()) if gap is not None else None
        if m is None:
            continue
        value = m.group()
        digits = sum(c.isdigit() for c in value)
        groups = [g for g in re.split(r"[ \-/.()]+", value) if g]
        if not 8 <= digits <= 15 or ("." in value and min(len(g) for g in groups) < 2) or _DATE.fullmatch(value):
            continue  # a count, a version (`10.2.3.4567`), a date
        done = m.end()
        yield Hit(m.start(), m.end(), PHONE, "phone-labelled")


# A person's government number (social security, passport, tax, national identity card): its
# formats are the countries' own, so only after the number's name is one masked. Acronyms in
# capitals (`DNI`, not Polish `dni`, "days"; `NIE`, not German `nie`, "never"; in lower case as a
# record's key, or when they are no word: below); no bare
# "id number", which names a record's id as often as a person's.
_ID_WORDS = ("social security number", "social security no", "passport number", "passport no", "passport",
             "national id", "id card number", "driver's license", "driving licence", "tax id",
             "personalausweis", "ausweisnummer", "steuer-id", "Steuer-ID", "steueridentifikationsnummer",
             "sozialversicherungsnummer", "numéro de sécurité sociale", "numéro fiscal", "pasaporte",
             "codice fiscale", "身份证号", "身份证", "护照号", "护照", "パスポート番号", "マイナンバー", "주민등록번호",
             "여권번호", "паспорт", "снилс", "national insurance number", "national insurance no", "NI number",
             "aadhaar", "aadhar", "pan card", "permanent account number")
_ID_ACRONYMS = ("SSN", "SIN", "DNI", "NIE", "NIF", "CPF", "PESEL", "BSN", "NINO", "TIN", "ITIN", "ИНН", "СНИЛС")


def _cases(phrase: str) -> tuple[str, ...]:
    """The ways a name is written: as given, capitalised, in capitals; a name of several words
    also in title case, with its last word in lower case (`National Insurance number`), and with
    its first word in capitals (`PAN card`, `PAN Card`)."""
    out = [phrase, phrase.capitalize(), phrase.upper()]
    words = phrase.split(" ")
    if len(words) > 1:
        title = [w.capitalize() for w in words]
        out += [" ".join(title), " ".join([*title[:-1], words[-1]]), " ".join([words[0].upper(), *words[1:]]),
                " ".join([words[0].upper(), *title[1:]])]
    return tuple(out)


ID_LABELS = tuple(dict.fromkeys((*(v for w in _ID_WORDS for v in _cases(w)), *_ID_ACRONYMS)))
# an acronym in lower case names the number only as a record's key (`"ssn": …`; `dni 2024` is
# Polish for days): the engine reports it with its closing quote (`sin` alone is in every
# `using`), which it reads as `"` where the text holds `\"`: both are literals of the rule
# Those that are no word of any language are labels in lower case too when a label's gap
# follows (`ssn: 123-45-6789`, `my ssn is …`): reported with that character (`ssn` alone is in
# every `classname`)
LOWER_ACRONYMS = ("ssn", "itin", "pesel", "cpf", "bsn")
ID_KEY_LABELS = (*(f"{a.lower()}{q}" for a in _ID_ACRONYMS for q in ('"', '\\"')),
                 *(f"{a}{c}" for a in LOWER_ACRONYMS for c in (":", " ", "=", "#")))
_KEY_ACRONYM = re.compile(r'(\w+)\\?"')
_ID_LONGEST = tuple(sorted(ID_LABELS, key=len, reverse=True))
_ID_GAP = re.compile(r"(?:[^\w\n]|_){0,6}(?:(?:is|ist|est|es|é|:|#|no\.?|nr\.?|number|nummer|número|numéro|是|为)"
                     r"(?:[^\w\n]|_){0,4}){0,2}")
_KEY_END = re.compile(r'\\{0,3}"[ \t]*:')
_ID_VALUE = re.compile(r"[A-Z0-9](?:[A-Z0-9]|[ .\-/](?=[A-Z0-9])){5,23}(?![\w\-/]|[.:]\d)")


def government_id(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A government number after its name: `SSN: 123-45-6789`, `passport no. X1234567`,
    `DNI 12345678Z`, `身份证号 11010519491231002X`."""
    done = -1
    found = anchors.find(ID_KEY_LABELS)
    keys = {i: m.group(1) for i in found if text[i - 1 : i] == '"' and (m := _KEY_ACRONYM.match(text, i))}
    lower = {i: word for i in found if i not in keys and (word := _lower_acronym(text, i)) is not None}
    for i in sorted({*anchors.find(ID_LABELS), *keys, *lower}):
        word = keys.get(i) or lower.get(i) or longest_at(text, i, _ID_LONGEST)
        if word is None:
            continue
        end = i + len(word)
        if i < done or (i > 0 and text[i - 1].isalnum() and not wide(word[0])) or (
                end < len(text) and text[end].isalpha() and text[end].isascii()):
            continue  # inside a word: `passports`, `SSNs`, `ASIN`
        if i in keys and not _KEY_END.match(text, end):
            continue  # a lower-case acronym is a label only as a quoted key
        gap = _ID_GAP.match(text, end)
        m = _ID_VALUE.match(text, gap.end() if gap is not None else end)
        if m is None:
            continue
        value = m.group()
        # after a name of several words the number's own shape may hold fewer digits (India's PAN: 4)
        if sum(c.isdigit() for c in value) < (4 if " " in word else 5) or _DATE.fullmatch(value):
            continue  # a word, a short code, a date
        done = m.end()
        yield Hit(m.start(), m.end(), ID_NUMBER, "government-id")


def _lower_acronym(text: str, i: int) -> str | None:
    word = next((a for a in LOWER_ACRONYMS if text.startswith(a, i)), None)
    return word if word is not None and text[i + len(word) : i + len(word) + 1] in (":", " ", "=", "#") else None


# A person's date of birth: a whole date (with its year) after the date's name. A date alone
# is a log's own (a commit's, a release's); after these names it is a person's.
_BIRTH_WORDS = ("date of birth", "birth date", "birthdate", "birthday", "born on", "born", "geburtsdatum",
                "geboren am", "date de naissance", "né le", "née le", "fecha de nacimiento", "data di nascita",
                "nato il", "nata il", "data de nascimento", "geboortedatum", "data urodzenia", "doğum tarihi",
                "дата рождения", "出生日期", "生日", "生年月日", "생년월일")
BIRTH_LABELS = tuple(dict.fromkeys((*(v for w in _BIRTH_WORDS for v in (w, w.capitalize(), w.upper())),
                                    "DOB", "D.O.B.", "dob", "Dob",  # and as names in code and records:
                                    "date_of_birth", "dateOfBirth", "DateOfBirth", "birth_date", "birthDate",
                                    "BirthDate", "DATE_OF_BIRTH", "BIRTH_DATE")))
_BIRTH_LONGEST = tuple(sorted(BIRTH_LABELS, key=len, reverse=True))
_BIRTH_GAP = re.compile(r"[^\w\n]{0,6}(?:(?:is|was|ist|est|es|é|:|on|am|le|il|是|为|は)[^\w\n]{0,4}){0,2}")
_MONTHS = ("jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
           "|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?")
_YEAR = r"(?:19|20)\d\d"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])"  # the longest first: a date is read whole
_MONTH = r"(?:1[0-2]|0?[1-9])"
_BIRTH_BODY = (
    rf"(?:{_YEAR}[-/.]{_MONTH}[-/.]{_DAY}"  # 1984-03-12
    rf"|{_DAY}[-/.]{_DAY}[-/.]{_YEAR}"  # 12/03/1984, 03/12/1984, 12.03.1984
    rf"|{_DAY}(?:st|nd|rd|th)?\.? (?:{_MONTHS})\.?,? {_YEAR}"  # 12 March 1984
    rf"|(?:{_MONTHS})\.? {_DAY}(?:st|nd|rd|th)?,? {_YEAR}"  # March 12, 1984
    rf"|{_YEAR}年{_MONTH}月{_DAY}日"  # 1984年3月12日
    rf"|{_YEAR}년 ?{_MONTH}월 ?{_DAY}일)")
_BIRTH_DATE = re.compile(_BIRTH_BODY + r"(?![\w/.-]\d|\d)", re.IGNORECASE)  # not a part of a longer number
_BIRTH_DATE_ALONE = re.compile(_BIRTH_BODY, re.IGNORECASE)


def birth_date(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A whole date after a name for a date of birth: `DOB: 12/03/1984`, `born on March 12,
    1984`, `Geburtsdatum: 12.03.1984`, `生年月日：1984年3月12日`; not `born in 1984`, not a
    format (`DOB: YYYY-MM-DD`), not a date elsewhere."""
    done = -1
    for i in anchors.find(BIRTH_LABELS):
        word = longest_at(text, i, _BIRTH_LONGEST)
        if word is None:
            continue
        end = i + len(word)
        if i < done or (i > 0 and text[i - 1].isalnum() and not wide(word[0])) or (
                end < len(text) and text[end].isalpha() and text[end].isascii() and not wide(word[-1])):
            continue  # inside a word: `firstborn`, `DOBLE`, `reborn`
        gap = _BIRTH_GAP.match(text, end)
        at = gap.end() if gap is not None else end
        m = _BIRTH_DATE.match(text, at) or _code_date(text, at)
        if m is None:
            continue
        done = m.end()
        yield Hit(m.start("v") if "v" in m.re.groupindex else m.start(), m.end(), BIRTH_DATE, "birth-date")


# A date of birth written as code: a date's constructor with the year, month and day
# (`date(1979, 11, 23)`, `datetime.date(year=1985, month=3, day=12)`, `new Date(1985, 2, 12)`,
# `LocalDate.of(1985, 3, 12)`, `DateTime.new(1985, 3, 12)`): its arguments are the date
_CODE_DATE = re.compile(r"(?:new[ \t]+)?(?:[A-Za-z_][\w]*(?:\.|::))*(?:date|datetime|Date|DateTime|LocalDate|"
                        r"DateOnly|make_date|MakeDate)(?:\.(?:of|new|date))?\([ \t]*"
                        rf"(?P<v>(?:year[ \t]*=[ \t]*)?{_YEAR},[ \t]*(?:month[ \t]*=[ \t]*)?\d{{1,2}},[ \t]*"
                        r"(?:day[ \t]*=[ \t]*)?\d{1,2})(?=[ \t]*[,)])")


def _code_date(text: str, at: int) -> re.Match[str] | None:
    return _CODE_DATE.match(text, at) if text[at : at + 1].isalpha() else None


_BIRTH_KEYS = frozenset(re.sub(r"[\s_.-]", "", w.lower()) for w in (*_BIRTH_WORDS, "dob"))


@functools.lru_cache(maxsize=4096)
def birth_key(key: str) -> bool:  # keys repeat in every record of a log: asked once each
    return re.sub(r"[\s_.-]", "", key.lower()) in _BIRTH_KEYS


_DATE_TIME = re.compile(r"[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?")


def birth_date_field(key: str, value: object) -> bool:
    """A record's field named for a date of birth (`dob`, `date_of_birth`, `birthDate`,
    `Geburtsdatum`) whose value is a whole date (a time after it too, as databases write one)."""
    if not isinstance(value, str) or not birth_key(key):
        return False
    value = value.strip()
    m = _BIRTH_DATE_ALONE.match(value)
    return m is not None and (m.end() == len(value) or _DATE_TIME.fullmatch(value, m.end()) is not None)


# A record's field named for a phone or a government number: its value is read as if written
# after that name (`{"phone": "06 12 34 56 78"}` as `phone: 06 12 34 56 78`), by the rules above
_PHONE_KEYS = frozenset({"phone", "tel", "telephone", "mobile", "cell", "cellphone", "handy", "telefon", "telefono",
                         "teléfono", "telefone", "telefoon", "whatsapp", "fax", "celular", "movil", "móvil"})
# words a phone field's name may hold beside the phone's: `phone_number`, `home_phone`, `mobile_no`
_PHONE_QUALIFIERS = frozenset({"number", "no", "num", "nr", "nummer", "numero", "número", "home", "work", "office",
                               "private", "business", "primary", "contact", "personal", "emergency", "main"})
_ID_KEYS = {re.sub(r"[\s_.'-]", "", w.lower()): w for w in (*_ID_WORDS, *_ID_ACRONYMS)} | {
    "passportnumber": "passport number", "passportno": "passport no", "socialsecurity": "social security number",
    "nationalidnumber": "national id", "taxidnumber": "tax id", "driverslicensenumber": "driver's license"}


@functools.lru_cache(maxsize=4096)
def field_label(key: str) -> str | None:
    """The name a record's field `key` gives its value, for the label rules (`phone`, `SSN`,
    `passport number`), or None: `phone_number`, `mobilePhone`, `ssn`, `passport_no`."""
    words = [w.lower() for w in _KEY_WORDS.findall(key)]
    if any(w in _PHONE_KEYS for w in words) and all(w in _PHONE_KEYS or w in _PHONE_QUALIFIERS for w in words):
        return "phone"  # `cell_count`, `cell_id`, `mobile_version` name something else
    return _ID_KEYS.get("".join(words)) or national_key(key)


_KEY_WORDS = re.compile(r"[A-Z]?[a-zà-ÿ]+|[A-Z]+(?![a-z])|[^\W\d_]+")


# ---------------------------------------------------------------- home paths
_SEPS = ("/", "\\/", "\\")
_HOME_AT = r"(?:Users|home)\$?(?:\\/|/|\\{1,4})"  # `home$`: a Windows share of home folders
# a name's characters: a URL's %XX escapes too (`file:///C:/Users/Sven%20Larsson/`), and an
# apostrophe between letters (`o'brien`)
_NAME_CHARS = r"(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2}|'(?=[A-Za-z]))"
_NAME_WORD = rf"[A-Za-z0-9_]{_NAME_CHARS}{{0,63}}"
_HOME_NAME = re.compile(_HOME_AT + rf"(?P<v>{_NAME_WORD})" r"(?=$|\\|/|[\s\"'`:;,)\]}>|])")
# a Windows account of several words (`C:\Users\Sven Larsson\`): the words up to a separator or
# a closing quote are one name (its first word alone would leave the surname in the text)
_HOME_NAMES = re.compile(_HOME_AT + rf"(?P<v>{_NAME_WORD}(?: {_NAME_WORD}){{1,3}})" r"(?=\\|/|[\"'`])")
GENERIC_ACCOUNTS = frozenset({
    "shared", "public", "default", "user", "username", "you", "yourname", "your-name", "your_name", "me", "runner",
    "ubuntu", "root", "admin", "ec2-user", "vagrant", "node", "app", "circleci", "jenkins", "travis", "docker",
    "codespace", "vscode", "linuxbrew", "guest", "nobody", "name", "example", "foo", "bar", "john", "jane",
    "johndoe", "developer", "dev", "all users", "default user", "defaultapppool",
})


def home_path_user(text: str, anchors: Anchors) -> Iterator[Hit]:
    """The account name in /Users/NAME, /home/NAME, C:\\Users\\NAME (also JSON-escaped)."""
    for i in anchors.find(("Users", "home")):
        if i == 0 or text[i - 1] not in "/\\":  # a path component, not a word
            continue
        m = _HOME_NAMES.match(text, i) or _HOME_NAME.match(text, i)
        if m is None or not is_person_account(unquote(m.group("v"))) or _url_route(text, i):
            continue
        yield Hit(m.start("v"), m.end("v"), PATH_USER, "home-path")


# Home-directory names that are not people: service accounts, documentation placeholders,
# names already anonymised, and folders (`/home/Downloads` is a mistake worth seeing)
_NOT_PEOPLE_PARTS = frozenset({
    "agent", "bot", "svc", "service", "daemon", "runner", "worker", "deploy", "deployer", "build", "builder", "ci",
    "jenkins", "gitlab", "github", "actions", "ftp", "sftp", "www", "web", "data", "backup", "mail", "postgres",
    "mysql", "redis", "nginx", "apache", "git", "gitea", "wechat", "steam", "minecraft", "odoo", "oracle", "hadoop",
    "spark", "kafka", "elastic", "grafana", "prometheus", "jupyter", "ansible", "linux", "pi", "debian", "centos",
    "fedora", "kali", "alpine", "opc", "azureuser", "bitnami", "ec2", "administrator", "operator", "system",
    "server", "host", "test", "tests", "testing", "tester", "sample", "samples", "demo", "example", "examples",
    "anonymous", "anon", "placeholder", "dummy", "fake", "redacted", "someone", "somebody", "project", "projects",
    "your", "yourusername", "yourname", "username", "user", "users", "myuser", "myname", "downloads",
    "documents", "desktop", "library", "pictures", "music", "movies", "videos", "applications", "templates",
    "credentials", "workspace", "workspaces", "repos", "src", "bin", "lib", "tmp", "temp", "config", "share",
})
_ACCOUNT_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_URL_ROUTE = re.compile(r"(?:https?|wss?)://[^/\s\"'`<>]+/")


def is_person_account(name: str) -> bool:
    """An account name that may be a person's (masked), not a service account, placeholder or folder."""
    low = name.lower()
    if len(low) < 3 or low in GENERIC_ACCOUNTS or low.startswith(("your", "my-", "my_")):
        return False
    if any(p.lower() in _NOT_PEOPLE_PARTS for p in _ACCOUNT_PARTS.findall(name)):
        return False
    # `ftpuser`, `appuser`, `testuser`: a short service word before "user"
    return not (low.endswith("user") and len(low) <= 8)


def _url_route(text: str, i: int) -> bool:
    """`http://host:5678/home/credentials`: a route of a web address, not a home directory."""
    lo = max(0, i - 300)
    token = max(text.rfind(c, lo, i) for c in " \t\n\"'`<>(")
    return _URL_ROUTE.search(text, max(lo, token + 1), i) is not None



# ---------------------------------------------------------------- given names
class WordList:
    """Whole-word occurrences of given strings (user names, git author names)."""

    def __init__(self, words: list[str], kind: str, rule: str, *, ignore_case: bool) -> None:
        self.kind, self.rule = kind, rule
        forms = {w for word in words for w in ((word, word.lower(), word.upper(), word.title()) if ignore_case
                                               else (word,))}
        self.words = tuple(sorted(forms, key=len, reverse=True))

    def __call__(self, text: str, anchors: Anchors) -> Iterator[Hit]:
        taken = -1
        for i in anchors.find(self.words):
            if i < taken:
                continue
            for w in self.words:  # longest first
                end = i + len(w)
                if text.startswith(w, i) and (left_ok(text, i) and (i == 0 or text[i - 1] != "_")) and (
                        end == len(text) or text[end] not in _WORD):
                    taken = end
                    yield Hit(i, end, self.kind, self.rule)
                    break


_WORD = _ALNUM | {"_"}

