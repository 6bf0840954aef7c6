"""Secrets that are short codes, found by their label: an authenticator's seed (`TOTP seed:
JBSWY3DPEHPK3PXP`, or in the groups apps show it in, `jbsw y3dp ehpk 3pxp`), a second factor's
backup codes, a PIN, a card's security code.

Each is too short or too plain to be found without its label, and each opens an account or a
card on its own, for good. A one-time code (`MFA code: 482913`) is gone in seconds: not one of
them. A name in code (`TOTP_SECRET=…`, `pin_code = …`) is the assignment rule's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._base import CREDENTIAL, PAYMENT_CARD, Hit, after_escape

if TYPE_CHECKING:
    from ._anchors import Anchors

# each is rare in logs, so the engine reports them in its pass (_native.py); matched in any case
CODE_ANCHORS = ("totp", "2fa", "mfa", "otp ", "otp_", "otp-", "authenticator", "two-factor", "two factor",
                "backup code", "recovery code", "scratch code", "emergency code", "backup_code", "recovery_code",
                "pin:", "pin=", "pin =", "pin is", "pin to", "pin code", "pin number", "passcode", "cvv", "cvc", "csc",
                "security code")
# matched as written: `PIN` in capitals is rare in logs and starts most ways a PIN is named
# (`PIN 4821`, `the PIN code is …`); `pin` alone is inside `mapping`, `spinner`, `ping`
CODE_ANCHORS_CASED = ("PIN",)

_GAP = r"[ \t]*(?:(?:is|was|are)[ \t]+)?[:=]?[ \t]*"
# a seed: base32 (A-Z, 2-7), 16 to 64 letters, run together or in groups of four
_SEED = re.compile(
    r"(?:totp|otp|2fa|mfa|two[ -]factor|authenticator(?:[ _-]app)?)[ _-]?"
    r"(?:secret[ _-]?key|secret|seed|setup[ _-]key|key)"
    + _GAP + r"(?P<v>[A-Z2-7]{4}(?: ?[A-Z2-7]{4}){3,15}|[a-z2-7]{4}(?: ?[a-z2-7]{4}){3,15})=*(?![\w-])",
    re.IGNORECASE)
# backup codes: a list after the label, one code a word (a digit in each), on its line or the next
_CODES = re.compile(
    r"(?:(?:2fa|mfa|two[ -]factor)[ _-])?(?:backup|recovery|scratch|emergency)[ _-]codes?" + _GAP
    + r"(?:\r?\n|\\n)?[ \t]*(?:[-*][ \t]+|\d{1,2}[.)][ \t]+)?", re.IGNORECASE)
_CODE = re.compile(r"(?=[A-Za-z-]*\d)[A-Za-z0-9]{3,6}(?:-[A-Za-z0-9]{3,6})?(?![\w-])")
_CODE_SEP = re.compile(r"(?:[ \t]*[,;][ \t]*|[ \t]+|[ \t]*(?:\r?\n|\\n)[ \t]*(?:[-*][ \t]+|\d{1,2}[.)][ \t]+)?)")
_MAX_CODES = 24
# a PIN is also set "to" its value ("changed my pin to 4821"), which a code or a seed is not
# (a sentence may end right after the code: `My PIN is 6907.`; `1234.5`, `1234.txt` are not codes)
_CODE_END = r"(?![\w:/-]|\.\w)"
_PIN = re.compile(r"(?:pin(?:[ _-]?(?:code|number))?|passcode)[ \t]*(?:(?:is|was|are|to)[ \t]+)?[:=]?[ \t]*"
                  r"(?P<v>\d{4,8})" + _CODE_END, re.IGNORECASE)
_CVV = re.compile(r"(?:cvv2?|cvc2?|csc|(?:card[ \t]+)?security[ \t]+code)" + r"[ \t]*(?:(?:is|was)[ \t]+)?[:=#]?[ \t]*"
                  r"(?P<v>\d{3,4})" + _CODE_END, re.IGNORECASE)


def code_secret(text: str, anchors: Anchors) -> Iterator[Hit]:
    """An authenticator seed, backup codes, a PIN or a card's security code after its label."""
    done = -1
    for i in sorted({*anchors.find(CODE_ANCHORS, ignore_case=True), *anchors.find(CODE_ANCHORS_CASED)}):
        if i < done:
            continue
        start = i
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_") and not after_escape(text, start):
            continue  # inside a word (`mapping:`, `pinned`): not the label
        for pattern, kind in ((_SEED, CREDENTIAL), (_PIN, CREDENTIAL), (_CVV, PAYMENT_CARD)):
            m = pattern.match(text, start, start + 200)
            if m is not None:
                done = m.end("v")
                yield Hit(m.start("v"), m.end("v"), kind, "code-secret")
                break
        else:
            m = _CODES.match(text, start, start + 200)
            if m is not None and (hit := _code_list(text, m.end())) is not None:
                done = hit.end
                yield hit


def _code_list(text: str, pos: int) -> Hit | None:
    """The run of codes from pos: one span from the first code to the last."""
    start = end = pos
    for n in range(_MAX_CODES):
        if n:
            sep = _CODE_SEP.match(text, end)
            if sep is None or sep.end() == end:
                break
            at = sep.end()
        else:
            at = pos
        m = _CODE.match(text, at)
        if m is None:
            break
        if n == 0:
            start = m.start()
        end = m.end()
    return Hit(start, end, CREDENTIAL, "code-secret") if end > start else None
