"""Names of secrets the vocabulary did not read: a password's short and misspelt forms (`DB_PW`,
`pswd`, `pword`, `passw`, `passwrd`), its words split (`pass_word`, `pass_phrase`), a secret word
followed by words of its own (`secret_sauce_value`, `secret_id`), and a signing key (a secret:
only a public key's kinds are spared). Look-alikes: names about a secret rather than holding one
(`secret_count`, `password_min_length`, `pw_hash_rounds`, `signing_algorithm`, `secret_name`), a
GPG key id, a short form inside a word, a constant's name."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor
from forsy.redact._values import name_tier


@pytest.mark.parametrize(("text", "secret"), [
    ("DB_PW=8&MMF1&ulMM^Cw", "8&MMF1&ulMM^Cw"),
    ("mysql:\n  root_pw: E@62@ch+n4xde*", "E@62@ch+n4xde*"),
    ('pswd = "ZiFZ3HLKv7$9"', "ZiFZ3HLKv7$9"),
    ("SMTP_PWORD=1bMZw$IMlvdp", "1bMZw$IMlvdp"),
    ("admin_passwrd: 7TP+Nbpjava+", "7TP+Nbpjava+"),
    ("passw: Qm4+zr8Kx!", "Qm4+zr8Kx!"),
    ('[server]\npass_word = "%UTqr8aFvnKb$n"', "%UTqr8aFvnKb$n"),
    ("pass_phrase: Tiramisu4821!", "Tiramisu4821!"),
    ("user=jane pw=8J+#SFNRwOfB^+", "8J+#SFNRwOfB^+"),
    ("secret_sauce_value: MlRdZQ9QsTXUuSnH6av1Ib8pp1xxXHU0", "MlRdZQ9QsTXUuSnH6av1Ib8pp1xxXHU0"),
    ("secret_id: 9aTqThgpWDWwOYNRopI5CIloFpb5US79", "9aTqThgpWDWwOYNRopI5CIloFpb5US79"),
    ("vault_secret_id: 9aTqThgpWDWwOYNRopI5CIloFpb5US79", "9aTqThgpWDWwOYNRopI5CIloFpb5US79"),
    ("JWT_SIGNING_KEY=uUYMjPeFXsRgZzCYTHY2IvGYF0eYF2ExFJgKLDL36awmUDt8",
     "uUYMjPeFXsRgZzCYTHY2IvGYF0eYF2ExFJgKLDL36awmUDt8"),
    ('signing_key: "qFdYtIboilEn2aEqdnON2ty+/zBxWWIrtjzieiIsS7A="', "qFdYtIboilEn2aEqdnON2ty+/zBxWWIrtjzieiIsS7A="),
    ('signingKey => "3LQHRhvGP2Aa83JVI0SBElWDKeVjgekzeSSp6fV",', "3LQHRhvGP2Aa83JVI0SBElWDKeVjgekzeSSp6fV"),
])
def test_a_secret_under_a_name_read_now_is_masked(text: str, secret: str) -> None:
    assert secret not in Redactor().redact(text)


def test_a_parsed_record_under_such_names_is_masked() -> None:
    record = {"DB_PW": "8&MMF1&ulMM^Cw", "secret_id": "9aTqThgpWDWwOYNRopI5CIloFpb5US79",
              "JWT_SIGNING_KEY": "uUYMjPeFXsRgZzCYTHY2IvGYF0eYF2ExFJgKLDL36awmUDt8", "pass_phrase": "Tiramisu4821!"}
    out = Redactor().redact_value(record)
    assert not any(v in repr(out) for v in record.values())


@pytest.mark.parametrize("text", [
    "secret_count: 3",
    "password_min_length: 12",
    "pw_hash_rounds=10",
    "signing_algorithm: RS256",
    "secret_name: db-credentials-prod-7f9a2c",
    "secret_arn: arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
    "secret_version: 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d",
    "signingKey: 3AA5C34371567BD2",
    "public_key: MCowBQYDK2VwAyEAqmL4xjN0lYkz8Vb3E2hXc7PQ1tW9rS5uR6yT0oI8aE=",
    "mysql -uroot -pS3cretPw appdb",  # `Pw` inside the password is no name
    "DEBUG=pw:api,pw:channel",
    "pass_context = jinja2.pass_context",
    'tenant_id = get_secret_str("AGENT365_TENANT_ID")',
    "if password == pw: return",
    "if not pw: return",
])
def test_names_about_a_secret_and_words_stay(text: str) -> None:
    out = Redactor().redact(text)
    if text.startswith("mysql"):
        assert out == "mysql -uroot -p[CREDENTIAL_1] appdb"
    else:
        assert out == text


def test_name_tiers_of_the_new_names() -> None:
    for name in ("DB_PW", "ROOT_PW", "SMTP_PWORD", "pass_word", "PassWord", "pass_phrase", "admin_passwrd"):
        assert name_tier(name) == 1, name
    for name in ("secret_sauce_value", "secret_id", "signing_key", "JWT_SIGNING_KEY", "pw", "pswd"):
        assert name_tier(name) == 2, name  # the value must look like a secret (`pw` alone is a word too)
    for name in ("secret_count", "password_min_length", "pw_hash_rounds", "signing_algorithm", "secret_name",
                 "password_hash", "pass_through", "public_key", "pubkey", "signingkey", "-pS3cretPw"):
        assert name_tier(name) == 0, name
