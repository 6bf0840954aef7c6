"""Secrets inside hex: a config, a credential or a key file encoded whole (`xxd -p`, `.hex()`,
a `.env` value, a JSON field, upper-case hex, `\\x` escapes, `xxd -i`'s C array, `od -An -tx1`
bytes apart), found by the shape of hex that is text and decoded whatever the secret in it is;
a private key's DER in hex by its header. The whole run is masked. Look-alikes: hashes, commit
ids, UUIDs, digests, hex of text that holds no secret, of a binary file."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

PW = "Vb6!nRt2Qz8m"


def hx(text: str) -> str:
    return text.encode().hex()


def wrapped(h: str, width: int = 60) -> str:
    return "\n".join(h[i : i + width] for i in range(0, len(h), width))


ENV = hx(f"DB_HOST=db.internal\nDB_PASSWORD={PW}\n")
PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
       "QyNTUxOQAAACBq3Zx9Lm2Rt5Yn1Kp7Wm8Rt5Yn1Kp7Lx2Vb7Rt5Yn1KgAAAJj4c2Vl+HNl\n-----END OPENSSH PRIVATE KEY-----\n")
# PKCS#8 DER of an Ed25519 key: version 0, the algorithm, then the key's 32 bytes
DER = "302e020100300506032b657004220420" + "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"


@pytest.mark.parametrize(("text", "run"), [
    (f"APP_SETTINGS={ENV}", ENV),  # an .env file in hex, as a variable
    (json.dumps({"settings_hex": hx(f'{{"smtp_password": "{PW}"}}')}), hx(f'{{"smtp_password": "{PW}"}}')),
    (f"$ xxd -p .env\n{wrapped(ENV)}", ENV[60:120]),  # wrapped over lines of 60
    (f"echo {hx(f'password={PW}').upper()} | xxd -r -p", hx(f"password={PW}").upper()),
    (f"url = bytes.fromhex('{hx(f'mysql://app:{PW}@db.internal/shop')}')", hx(f"mysql://app:{PW}@db.internal/shop")),
    ("printf '" + "".join(f"\\x{b:02x}" for b in f"token={PW}".encode()) + "'", f"\\x{ord(PW[0]):02x}"),
    ("const uint8_t k[] = {" + ", ".join(f"0x{b:02x}" for b in f"secret: {PW}".encode()) + "};", "0x56, 0x62"),
    ("$ od -An -tx1 pw.txt\n " + " ".join(f"{b:02x}" for b in f"pass {PW}".encode()), "56 62 36 21"),
    (f"$ xxd -p ~/.ssh/id_ed25519 | head -3\n{wrapped(hx(PEM))[:183]}", hx(PEM)[60:120]),
    (f"$ xxd -p key.der\n{DER}", DER),
])
def test_a_secret_in_hex_is_masked_whole(text: str, run: str) -> None:
    out = Redactor().redact(text)
    assert run not in out and PW not in out, out
    assert "[CREDENTIAL_1]" in out or "[PRIVATE_KEY_1]" in out


@pytest.mark.parametrize("lookalike", [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  dist/app-1.0.tar.gz",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "trace 4bf92f3577b34da6a3ce929d0e0e4736 span 00f067aa0ba902b7",
    "id: 123e4567-e89b-12d3-a456-426614174000",
    "image: ghcr.io/acme/api@sha256:6f2a9e4c8b0d1f3e5a7c9b2d4f6e8a0c1b3d5f7e9a2c4b6d8f0e1a3c5b7d9f2e",
    f"msg = bytes.fromhex('{hx('Hello! The build passed on the second try.')}')",
    f"$ echo {hx('passenger list: 12 rows, 3 columns')} | xxd -r -p",
    "$ xxd -p /bin/true | head -1\n7f454c4602010100000000000000000003003e0001000000a0230000000000",
    "expected = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'  # RFC 4231 case 2",
])
def test_hex_that_holds_no_secret_stays_beside_one(lookalike: str) -> None:
    text = f"SETTINGS={ENV}\n{lookalike}"
    out = Redactor().redact(text)
    assert ENV not in out and PW not in out
    assert out.endswith("\n" + lookalike), out
