"""Personal financial data: payment card numbers and bank account numbers (IBAN); and the
private keys of cryptocurrency wallets (WIF keys, extended private keys).

All carry a checksum, which is what tells them from the other long numbers of a log (ids,
timestamps, float digits, hashes): a card number is masked only when its issuer prefix is a
card network's and its Luhn sum holds, an IBAN only when its country's length and its mod-97
check hold. The networks' and banks' published test numbers (Stripe's `4242 4242 4242 4242`,
the IBAN of every textbook) are reported as placeholders, not masked, as a `your_password` is.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

from ._anchors import Anchors
from ._base import BANK_ACCOUNT, PAYMENT_CARD, PLACEHOLDER, PRIVATE_KEY, Hit

# 16 digits in fours (19 with a last group of up to three), or 4-6-5 (American Express) /
# 4-6-4 (Diners); one separator throughout (space, dash or none); where a run of digits begins
_CARD = re.compile(r"(?<!\d)(?:\d{4}(?P<s>[ -]?)\d{4}(?P=s)\d{4}(?P=s)\d{4}(?P<x>(?P=s)\d{1,3})?"
                   r"|\d{4}(?P<t>[ -]?)\d{6}(?P=t)\d{4,5})")
# issuer prefixes by length: Visa, Mastercard (51-55, 2221-2720), American Express, Discover,
# Diners Club, JCB, UnionPay, Maestro
_NETWORKS = re.compile(r"4|5[1-5]|2(?:22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)|3[47]|6011|65|64[4-9]|3(?:0[0-5]|[689])"
                       r"|35(?:2[89]|[3-8]\d)|62|5[06-9]|6[0-9]")
_CARD_LENGTHS = {"3": (14, 15, 16), "4": (16, 19), "5": (16,), "2": (16,), "6": (16, 19)}
_TEST_CARDS = frozenset({  # published by the networks and payment providers for tests
    "4242424242424242", "4000056655665556", "5555555555554444", "2223003122003222", "5200828282828210",
    "5105105105105100", "378282246310005", "371449635398431", "378734493671000", "6011111111111117",
    "6011000990139424", "6011000400000000", "3056930009020004", "36227206271667", "6555900000604105",
    "3566002020360505", "6200000000000005", "4111111111111111", "4012888888881881", "4222222222222",
    "5454545454545454", "4000000000000002", "4000000000009995", "4000002500003155", "30569309025904",
    "38520000023237", "6011601160116611", "5425233430109903", "2222420000001113", "4917610000000000",
})
_NOT_BEFORE = frozenset("_./+-") | frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


# The shapes, loosely, in the engine's regex dialect (no look-around, no back reference): the
# engine reports where they may stand in its one native pass, the rules below decide there
# (scanning every text for runs of digits in Python cost a third of the rules' time). A WIF key
# is reported with the character before it: reported wherever one may start inside a run of
# Base58 (`[5KL…]{51}` alone), redaction took twice as long; one at the very start of a text is
# looked for by `wallet_key` itself.
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
NUMBER_ANCHOR_PATTERN = (r"([0-9]{4}[ -]?[0-9]{4}[ -]?[0-9]{4}[ -]?[0-9]{2}|[0-9]{4}[ -]?[0-9]{6}[ -]?[0-9]{4}"
                         r"|[A-Z]{2}[0-9]{2} ?[A-Z0-9]{4} ?[A-Z0-9]{4}"
                         rf"|[^{_B58}][5KLc9][{_B58}]{{50}}|[xtyzuv]prv[{_B58}]{{107,108}})")
_LONGEST = 48  # characters past an engine match where one of them may still end (an IBAN of 34, spaced: 42)


def _regions(text: str, anchors: Anchors) -> Iterator[tuple[int, int]]:
    """Where to look: where the engine said one may stand, else the whole text. The engine's
    matches do not overlap, so one may begin inside an earlier match: each region runs from a
    match's start to _LONGEST past its end, and regions that meet are one."""
    if anchors.numbers is None:
        yield 0, len(text)
        return
    region: tuple[int, int] | None = None
    for s, e in anchors.numbers:
        if region is not None and s <= region[1]:
            region = (region[0], max(region[1], e + _LONGEST))
            continue
        if region is not None:
            yield region[0], min(len(text), region[1])
        region = (s, e + _LONGEST)
    if region is not None:
        yield region[0], min(len(text), region[1])


def payment_card(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A payment card number: a network's prefix and length, and its Luhn sum."""
    for lo, hi in _regions(text, anchors):
        pos = lo
        while (m := _CARD.search(text, pos, hi)) is not None:
            pos = m.end()
            s = m.start()
            # 19 digits, or the 16 before them: cards listed one after another, space-separated,
            # read as one 19-digit number first (the next card then begins after the 16)
            for e in (m.end(), m.start("x")) if m.group("x") else (m.end(),):
                digits = "".join(c for c in text[s:e] if c.isdigit())
                if (_alone(text, s, e) and len(digits) in _CARD_LENGTHS.get(digits[0], ())
                        and _NETWORKS.match(digits) and luhn(digits)):
                    test = digits in _TEST_CARDS or len(set(digits)) <= 3
                    yield Hit(s, e, PLACEHOLDER if test else PAYMENT_CARD, "payment-card")
                    pos = e
                    break


def _alone(text: str, s: int, e: int) -> bool:
    """Not a part of a longer number, word, decimal fraction or path (a CSV's commas are fine)."""
    if s and text[s - 1] in _NOT_BEFORE:
        return False
    after = text[e : e + 2]
    return not (after[:1].isalnum() or after[:1] == "_" or (after[:1] == "." and after[1:2].isdigit()))


def luhn(digits: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(digits)):
        n = int(c) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


# Two letters, two check digits, then the account in groups of four (or run together)
_IBAN = re.compile(r"(?<![A-Za-z0-9_])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?")
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29, "BY": 28,
    "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
    "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20,
    "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15,
    "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19,
    "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}
_TEST_IBANS = frozenset({  # the examples of the standard, the banks' guides and Wikipedia
    "DE89370400440532013000", "GB82WEST12345698765432", "GB29NWBK60161331926819", "GB33BUKB20201555555555",
    "FR1420041010050500013M02606", "FR7630006000011234567890189", "NL91ABNA0417164300", "NL02ABNA0123456789",
    "BE68539007547034", "CH9300762011623852957", "IT60X0542811101000000123456", "ES9121000418450200051332",
    "AT611904300234573201", "NO9386011117947", "SE4550000000058398257466", "DK5000400440116243",
})


def iban(text: str, anchors: Anchors) -> Iterator[Hit]:
    """An IBAN: its country's length and its mod-97 check."""
    for m in (m for lo, hi in _regions(text, anchors) for m in _IBAN.finditer(text, lo, hi)):
        s, e = m.span()
        if e < len(text) and (text[e].isalnum() or text[e] == "_"):
            continue
        value = m.group().replace(" ", "")
        if _IBAN_LENGTHS.get(value[:2]) != len(value) or not _mod97(value):
            continue
        yield Hit(s, e, PLACEHOLDER if value in _TEST_IBANS else BANK_ACCOUNT, "iban")


def _mod97(value: str) -> bool:
    moved = value[4:] + value[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


# A wallet's private key in Base58Check: WIF (a version byte 0x80, or 0xef on testnet, 32 bytes of
# key and 0x01 when its public key is compressed) and BIP 32 extended private keys (xprv, tprv
# and the SegWit forms: four version bytes, 74 bytes of chain code and key). The checksum (4 bytes
# of a double SHA-256) rules out any run that only looks like one: an address, a hash, base64.
_WALLET_KEY = re.compile(rf"(?<![{_B58}])(?:[5KLc9][{_B58}]{{50,51}}|[xtyzuv]prv[{_B58}]{{107,108}})(?![{_B58}])")
_WIF_VERSIONS = (b"\x80", b"\xef")
_XPRV_VERSIONS = frozenset(bytes.fromhex(v) for v in ("0488ade4", "04358394", "049d7878", "04b2430c", "044a4e28",
                                                      "045f18bc"))


def wallet_key(text: str, anchors: Anchors) -> Iterator[Hit]:
    """A WIF private key or an extended private key whose Base58Check checksum holds."""
    first = _WALLET_KEY.match(text) if anchors.numbers is not None and text[:1] in "5KLc9" else None
    found = (m for lo, hi in _regions(text, anchors) for m in _WALLET_KEY.finditer(text, lo, hi))
    for m in ([first] if first is not None else []) + list(found):
        payload = base58check(m.group())
        if payload is None:
            continue
        wif = len(payload) in (33, 34) and payload[:1] in _WIF_VERSIONS and (len(payload) == 33 or payload[-1] == 1)
        if wif or (len(payload) == 78 and payload[:4] in _XPRV_VERSIONS):
            yield Hit(m.start(), m.end(), PRIVATE_KEY, "wallet-key")


def base58check(value: str) -> bytes | None:
    """The payload of a Base58Check string whose checksum holds, else None."""
    n = 0
    for c in value:
        n = n * 58 + _B58.index(c)
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    raw = b"\0" * (len(value) - len(value.lstrip("1"))) + raw
    payload, check = raw[:-4], raw[-4:]
    return payload if len(raw) > 4 and hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4] == check else None
