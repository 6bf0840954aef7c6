"""One-time-password material named as such: an authenticator's seed and a list of recovery codes.

A TOTP/HOTP seed opens the second factor of an account for good: a value under a name that says
so (`MFA_TOTP_SEED=`, `otp_secret:`, `totpKey`, `2fa_secret`, `authenticator_key`: a word for a
one-time password or a second factor with `seed`, `secret` or `key`) is one when it is base32
(16 characters or more, as authenticators show it, in groups of four too) or hex (32 or more).
(`_values.name_tier` reads such a name as a secret's too: a record's field and a table's column.)

Recovery codes (`backup_codes`, `recoveryCodes`, `recovery codes:`, `scratch codes`) each open the
account once: after such a name, each code of the list that follows (quoted in brackets, or
on the lines below) is masked: 6 to 24 letters and digits with a digit, maybe parted by `-` or
a blank (`48213907`, `a1b2c-3d4e5`, `7f3k 9q2m`).

Both names are found by the engine (a shape of their own).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import CREDENTIAL, Hit

if TYPE_CHECKING:
    from ._anchors import Anchors

OTP_WORDS = frozenset({"otp", "totp", "hotp", "mfa", "2fa", "tfa", "twofa", "authenticator"})
_OTP = ("totp", "hotp", "otp", "mfa", "2fa", "tfa", "twofa", "authenticator")
_KINDS = ("seed", "secret", "key")
_CODES = ("backup", "recovery", "scratch")


def _cased(words: tuple[str, ...]) -> str:
    return "|".join(f"[{w[0].upper()}{w[0]}]{w[1:]}|{w.upper()}" for w in words)


# a word for the second factor, maybe more words (`MFA_TOTP_SEED`, `otp_shared_secret`), then the kind
_SEED_SHAPE = rf"(?:{_cased(_OTP)})[_.-]?(?:[A-Za-z0-9]{{1,16}}[_.-]?){{0,2}}(?:{_cased(_KINDS)})"
_CODES_SHAPE = rf"(?:{_cased(_CODES)})[ _-]?(?:[Cc]odes|CODES)"
OTP_SHAPES = {"otp-seed": _SEED_SHAPE, "recovery-codes": _CODES_SHAPE}
_SEED_RX = re.compile(_SEED_SHAPE)
_CODES_RX = re.compile(_CODES_SHAPE)
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+[a-z]+|\d+")

_ASSIGN = re.compile(r"\\{0,3}[\"']?[ \t]*(?:[:=]|=>)[ \t]*(?P<q>\\{0,3}[\"'])?")
_BASE32 = re.compile(r"[A-Za-z2-7]{4}(?:[ ]?[A-Za-z2-7]{4}){3,31}=*|[0-9a-fA-F]{32,128}")


def otp_seed(name: str) -> bool:
    """A name of an authenticator's seed: a one-time password's or a second factor's word with
    `seed`, `secret` or `key` (`MFA_TOTP_SEED`, `otpSecret`, `2fa_key`)."""
    words = [w.lower() for w in _NAME_WORDS.findall(name)]
    return any(w in OTP_WORDS for w in words) and any(w in _KINDS for w in words)


def otp_material(text: str, anchors: Anchors) -> Iterator[Hit]:
    """An authenticator's seed and recovery codes, after their names (see the module)."""
    for start, end in anchors.shaped("otp-seed", _SEED_RX):
        if start > 0 and text[start - 1].isalpha() and not text.startswith(("\\n", "\\t"), start - 2):
            continue  # inside a word
        while end < len(text) and (text[end].isalnum() or text[end] == "_"):
            end += 1  # the name goes on (`otp_secret_b32`)
        if not otp_seed(text[start:end]) or (m := _ASSIGN.match(text, end)) is None:
            continue
        v = _BASE32.match(text, m.end())
        if v is None or (v.end() < len(text) and (text[v.end()].isalnum() or text[v.end()] in "_-/.")):
            continue
        value = v.group().replace(" ", "")
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value) and len(set(value.upper())) >= 6:
            yield Hit(v.start(), v.end(), CREDENTIAL, "otp-seed")
    for start, end in anchors.shaped("recovery-codes", _CODES_RX):
        if start > 0 and text[start - 1].isalpha() and not text.startswith(("\\n", "\\t"), start - 2):
            continue
        yield from _codes(text, end)


# after the name: a list in brackets, the lines below, or codes on the line after `:`/`=`
_LIST_HEAD = re.compile(r"\\{0,3}[\"']?[ \t]*(?P<op>[:=]|=>)?[ \t]*(?P<open>\[|\\r?\\n|\r?\n)?")
_CODE = re.compile(r"(?<![\w-])(?:[A-Za-z0-9]{3,12}[- ](?=[A-Za-z0-9]{3,12}(?![\w-]))[A-Za-z0-9]{3,12}"
                   r"|[A-Za-z0-9]{6,16})(?![\w-])")
_ITEM_GAP = re.compile(r"(?:[ \t,]|\\{0,3}[\"']|\\[nrt]|\r?\n|[-*•][ \t]|\d{1,2}[.)][ \t])*")
_MAX_CODES = 32


def _codes(text: str, pos: int) -> Iterator[Hit]:
    """The codes of the list at `pos` (after the name): in brackets, or on the lines below."""
    head = _LIST_HEAD.match(text, pos)
    if head is None or not (head["op"] or head["open"]):
        return
    bracket = head["open"] == "["
    at, found = head.end(), 0
    while found < _MAX_CODES:
        gap = _ITEM_GAP.match(text, at)
        at = gap.end() if gap is not None else at
        m = _CODE.match(text, at)
        if m is None or not any(c.isdigit() for c in m.group()):
            return
        if m.group().isalpha() or (not bracket and m.group().isdigit() and len(m.group()) < 6):
            return
        found += 1
        yield Hit(m.start(), m.end(), CREDENTIAL, "recovery-code")
        at = m.end()
        if bracket and text[at : at + 8].lstrip(" \t\\\"'").startswith("]"):
            return
