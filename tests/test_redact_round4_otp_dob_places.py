"""One-time-password material named as such (redact/otp.py), a date of birth written as code
(redact/personal.birth_date), a Dutch or Flemish street (redact/addresses.nl_street), and a
placeholder in capitals that is not a secret (redact/_values.is_doc_placeholder)."""

from __future__ import annotations

import pytest

from forsy.redact import ADDRESS, BIRTH_DATE, CREDENTIAL, Redactor

MASKED = [
    # (text, what must be gone, kind)
    ("export GOOGLE_AUTHENTICATOR_SEED=KRSXG5CTMVRXEZLUKN2XAZLSONSWG4TF", ["KRSXG5CTMVRXEZLUKN2XAZLSONSWG4TF"],
     CREDENTIAL),
    ('{"mfaSeed": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"}', ["GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"], CREDENTIAL),
    ("hotp-seed: 4f1c9a7be02d5583c6a1f09e7b3d2c18a5e6f704", ["4f1c9a7be02d5583c6a1f09e7b3d2c18a5e6f704"],
     CREDENTIAL),
    ("recovery_codes: ['5812-3390', '7741-0926', '3305-8817']", ["5812-3390", "7741-0926", "3305-8817"], CREDENTIAL),
    ('"backupCodes": ["k7q2m9x4", "p3w8z1c6"]', ["k7q2m9x4", "p3w8z1c6"], CREDENTIAL),
    ("SCRATCH_CODES=62719305,80042117,11930465", ["62719305", "80042117", "11930465"], CREDENTIAL),
    ("dob = datetime.date(1968, 4, 2)", ["1968, 4, 2"], BIRTH_DATE),
    ("const birthDate = new Date(1991, 6, 14);", ["1991, 6, 14"], BIRTH_DATE),
    ("date_of_birth = LocalDate.of(1983, 12, 1);", ["1983, 12, 1"], BIRTH_DATE),
    ("Bezorgadres: Prinsengracht 263, 1016 GV Amsterdam", ["Prinsengracht 263", "1016 GV"], ADDRESS),
    ("ship to Van Baerlestraat 92-hs in Amsterdam", ["Van Baerlestraat 92-hs"], ADDRESS),
    ("adres: Coolsingel 40, 3011 AD Rotterdam", ["Coolsingel 40", "3011 AD"], ADDRESS),
]
LOOK_ALIKES = [
    "mfa_seed_count = 10", "totp_key_length: 20", "otp_secret = os.environ['OTP_SECRET']",
    "backup_codes = []", "backup_codes: 10", "recovery code: 8 digits", "recovery_codes_remaining = 8",
    "backup codes are printed once; keep them safe",
    "release_date = date(2024, 1, 2)", "birthday = date.today()",
    "PyData Amsterdam 2024", "laan 12 van", "Keypad 2 pressed",
    "DATABASE_URL=postgres://USER:PASSWORD@HOST:5432/DB", "mysql://root:DB_PASSWORD@db.internal/app",
    "redis://:YOUR_REDIS_TOKEN@cache:6379",
]


@pytest.mark.parametrize(("text", "gone", "kind"), MASKED)
def test_named_material_is_masked(text: str, gone: list[str], kind: str) -> None:
    out = Redactor().redact(text)
    assert f"[{kind}_" in out
    for g in gone:
        assert g not in out, out


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_stay(text: str) -> None:
    assert Redactor().redact(text) == text


def test_a_real_password_in_a_uri_is_still_masked() -> None:
    assert "Xk29vQp7" not in Redactor().redact("postgres://USER:Xk29vQp7@HOST:5432/DB")
