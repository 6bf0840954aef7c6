"""Short secrets found by their label (redact/codes.py): an authenticator's seed, backup codes,
a PIN, a card's security code; and a text shorter than the engine reads still gets every rule."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor
from forsy.redact._anchors import Anchors
from forsy.redact.codes import code_secret

SEED = "JBSWY3DPEHPK3PXP"


@pytest.mark.parametrize(("text", "secret"), [
    (f"TOTP seed: {SEED}", SEED),
    (f"otp secret: {SEED}MZXW", f"{SEED}MZXW"),
    ("2FA secret key: JBSW Y3DP EHPK 3PXP", "JBSW Y3DP EHPK 3PXP"),
    ("your authenticator key is jbsw y3dp ehpk 3pxp", "jbsw y3dp ehpk 3pxp"),
    ("Two-factor setup key: GEZDGNBVGY3TQOJQGEZDGNBV", "GEZDGNBVGY3TQOJQGEZDGNBV"),
    ("2FA backup codes: 8472-1935 5521-0087 3390-4412", "8472-1935 5521-0087 3390-4412"),
    ("recovery codes: a1b2-c3d4, e5f6-g7h8", "a1b2-c3d4, e5f6-g7h8"),
    ("Backup codes:\n1. 8472 1935\n2. 5521 0087\nKeep them safe.", "8472 1935\n2. 5521 0087"),
    ("GitHub recovery codes:\\n- 1a2b3-4c5d6\\n- 7e8f9-0a1b2", "1a2b3-4c5d6\\n- 7e8f9-0a1b2"),
    ("pin: 4821", "4821"),
    ("PIN=4821", "4821"),
    ("my pin is 4821", "4821"),
    ("I changed my pin to 4417 yesterday", "4417"),
    ("reset the PIN to 902114", "902114"),
    ("the PIN code is 482913", "482913"),
    ("PIN 4821", "4821"),
    ("passcode: 120384", "120384"),
    ("CVV 737", "737"),
    ("cvc: 737", "737"),
    ("card security code 7373", "7373"),
])
def test_a_labelled_code_is_masked(text: str, secret: str) -> None:
    out = Redactor().redact(text)
    at = text.index(secret)
    assert out[:at] == text[:at] and out.endswith(text[at + len(secret):]), out  # the label and the rest stay
    assert secret not in out and "_1]" in out, out
    hits = list(code_secret(text, Anchors(text)))  # the rule alone, searching its own literals
    assert [text[h.start:h.end] for h in hits] == [secret], hits


@pytest.mark.parametrize("text", [
    "MFA code: 482913",  # a one-time code, gone in seconds
    "pin: 13 (GPIO)", "GPIO PIN 13", "pinMode(13, OUTPUT)", "mapping: 1234", "spin: 1234", "PING 8.8.8.8",
    "SPIN 1234", "PINNED 2024", "backup codes are stored in 1Password", "recovery codes: see the vault",
    "Use the TOTP secret from the env", "security code review 2024", "csc.exe 2019", "the mfa key rotation 2024",
    "totp: enabled", "authenticator app: Google Authenticator",
    "pin to 1.26.4", "pin to v2024", "set pin to 13 (GPIO)",
])
def test_words_and_numbers_that_are_no_code_are_kept(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize("text", ["CVV 737", "pw=X9!k", "PIN 482"])
def test_a_text_too_short_for_the_engine_gets_every_rule(text: str) -> None:
    """The engine reads texts of 8 characters and more; a shorter one was given no engine
    anchors at all, so every rule whose words the engine finds saw none in it."""
    r = Redactor()
    assert r.redact(text) == r.redact(text + " ")[:-1]
