"""Secret names run together without a separator: a password's short forms after what they are
for (`dbpw`, slapd's `rootpw`, `bindpw`, `adminpswd`, camelCase `ldapBindPw`), a key after what
it is for (`masterkey`, `appkey`, `hmackey`, `encryptionkey`: a machine-made value), an
HMAC's key by its own word (`WEBHOOK_HMAC`), credentials run together (`awscreds`), in env
files, YAML, JSON, CLI flags and config directives. Look-alikes: English words that end so
(`monkey`, `hotkey`), public and row keys (`pubkey`, `sortkey`), git's `signingkey` (a GPG
key's id), a short form inside a password (`-pS3cretPw`)."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor
from forsy.redact._values import name_tier

PW = "Tq!84vLm#2Ws"
TOKEN = "hN3kQ8wZ5rT1yU7iO2pA6sD4fG9jK0lX"


@pytest.mark.parametrize("text", [
    f"MYSQLPW={PW}",
    f"slapd:\n  rootpw: {PW}\n",
    f"bindpw {PW}\n",
    f'{{"ldapBindPw": "{PW}"}}',
    f"./setup --adminpswd {PW}",
    f"smtppswd='{PW}'",
    f"MASTERKEY={TOKEN}",
    f'appkey: "{TOKEN}"',
    f"--hmackey={TOKEN}",
    f"WEBHOOK_HMAC={TOKEN}",
    f'{{"awscreds": "{TOKEN}"}}',
])
def test_a_secret_under_a_run_together_name_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert PW not in out and TOKEN not in out, out


def test_a_parsed_record_under_run_together_names_is_masked() -> None:
    out = Redactor().redact_value({"dbpw": PW, "encryptionkey": TOKEN, "user": "app"})
    assert out == {"dbpw": "[CREDENTIAL_1]", "encryptionkey": "[CREDENTIAL_2]", "user": "app"}


def test_name_tiers_of_run_together_names() -> None:
    for name in ("dbpw", "DBPW", "rootpw", "bindpw", "adminpswd", "ldapBindPw", "rootPw"):
        assert name_tier(name) == 1, name
    for name in ("masterkey", "appkey", "hmackey", "encryptionkey", "WEBHOOK_HMAC", "awscreds"):
        assert name_tier(name) == 2, name  # the value must look machine-made
    for name in ("monkey", "hotkey", "pubkey", "sortkey", "signingkey", "primarykey", "-pS3cretPw", "oldpwd",
                 "keepass", "hmac_algorithm"):
        assert name_tier(name) == 0, name


def test_look_alikes_stay_beside_a_masked_one() -> None:
    text = f"DBPW={PW}\nhotkey: ctrl+shift+k\nsortkey: Kq8Zr3Lm9Xp2Vn7Kt4Wb6Yc1\nhmac: sha256\n"
    out = Redactor().redact(text)
    assert out == "DBPW=[CREDENTIAL_1]\nhotkey: ctrl+shift+k\nsortkey: Kq8Zr3Lm9Xp2Vn7Kt4Wb6Yc1\nhmac: sha256\n"
