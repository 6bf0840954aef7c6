"""Mail and directory sign-ins a transcript shows (SMTP, IMAP, POP3, LDAP over SASL): the base64
of a PLAIN message (`[authzid]\\0user\\0password`) and the base64 answer to a LOGIN exchange's
password challenge (`334 UGFzc3dvcmQ6`, "Password:"), wherever the client's debug output put them."""

from __future__ import annotations

import base64
import random
import string

import pytest

from forsy.redact import Redactor


def _pw(seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(string.ascii_letters + string.digits + "!#%&") for _ in range(14))


def _b64(raw: str) -> str:
    return base64.b64encode(raw.encode()).decode()


@pytest.mark.parametrize(("template", "raw"), [
    ("C: AUTH PLAIN {v}\nS: 235 2.7.0 Authentication successful", "\0bob@example.org\0{pw}"),
    ("send: 'AUTH PLAIN {v}\\r\\n'\nreply: b'235 2.7.0 Accepted\\r\\n'", "\0bob\0{pw}"),  # smtplib's debug
    ("a1 AUTHENTICATE PLAIN\n+\n{v}\na1 OK", "admin\0bob\0{pw}"),  # IMAP, the message on its own line
    ('{{"output": "send: \'AUTH PLAIN {v}\\\\r\\\\n\'"}}', "\0bob\0{pw}"),  # in a JSON-escaped tool output
    ("AUTH LOGIN\n334 VXNlcm5hbWU6\n{u}\n334 UGFzc3dvcmQ6\n{v}\n235 2.7.0 ok", "{pw}"),
])
def test_the_sign_in_is_masked(template: str, raw: str) -> None:
    for seed in range(5):
        pw = _pw(seed)
        v = _b64(raw.format(pw=pw))
        text = template.format(v=v, u=_b64("bob@example.org"))
        out = Redactor().redact(text)
        assert v not in out and out == text.replace(v, "[CREDENTIAL_1]"), out


@pytest.mark.parametrize("text", [
    "AUTH PLAIN\n334\n",  # the server's empty challenge, nothing sent yet
    "250-AUTH LOGIN PLAIN XOAUTH2\n250 OK",  # the mechanisms a server offers
    "the PLAIN text version of the mail",
    "AUTH PLAIN dGVzdA==",  # no user and password in it
    "334 VXNlcm5hbWU6\nYm9i",  # the user name, after the "Username:" challenge
    "PLAINTEXT AGJvYgBodW50ZXIy",  # another word
])
def test_what_is_no_sign_in_stays(text: str) -> None:
    assert Redactor().redact(text) == text
