"""A secret's name and its value joined by words or by other marks than `=` and `:`: "set
DB_PASSWORD to X", "POSTGRES_PASSWORD is set to X", "add API_KEY with value X", `password -> X`,
`password — X`, a no-break space after the colon, a full-width colon. As after "is", the value
must not be a plain word. Look-alikes: a place ("add DB_PASSWORD to the .env file"), words, a
documentation placeholder, a return type."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor


@pytest.mark.parametrize(("text", "secret"), [
    ("set DB_PASSWORD to ^ROL2X7rc+Ioo*", "^ROL2X7rc+Ioo*"),
    ("Please change the password to Kx7#mQ2vLp9!", "Kx7#mQ2vLp9!"),
    ("POSTGRES_PASSWORD is set to RUUnMamrHpp0dhyk6PHa", "RUUnMamrHpp0dhyk6PHa"),
    ("postgres-1  | POSTGRES_PASSWORD is set to ess3e8Bdpo7E3LYw", "ess3e8Bdpo7E3LYw"),
    ("the admin password is now set to Qw3rty#2024x", "Qw3rty#2024x"),
    ("Add OPENAI_API_KEY with value v43t0WcbO2n9WkXF7Qb9qfUOQDMSNc94pb7w68C5 to the repo secrets",
     "v43t0WcbO2n9WkXF7Qb9qfUOQDMSNc94pb7w68C5"),
    ("password -> ZDNz^uE*JdDY?6", "ZDNz^uE*JdDY?6"),
    ("password — 6dWHdUE*Vx$Rc%", "6dWHdUE*Vx$Rc%"),
    ("password → 6dWHdUE*Vx$Rc%", "6dWHdUE*Vx$Rc%"),
    ("password:\u00a0r&%M1dyUzxh#B#", "r&%M1dyUzxh#B#"),
    ("password:\\u00a06#loLsv8QuzC*H", "6#loLsv8QuzC*H"),  # the no-break space JSON-escaped
    ("password\uff1aIGAH53U4uAY1%2", "IGAH53U4uAY1%2"),
    ("DB_PASSWORD\uff1dIGAH53U4uAY1%2", "IGAH53U4uAY1%2"),
])
def test_the_value_after_a_prose_or_unusual_separator_is_masked(text: str, secret: str) -> None:
    assert secret not in Redactor().redact(text)


@pytest.mark.parametrize("text", [
    "Add DB_PASSWORD to the .env file",
    "Add DB_PASSWORD to prod-config.yaml",
    "set DB_PASSWORD to your-password-here",
    "The password is set correctly",
    "POSTGRES_PASSWORD is required",
    "password -> hashed",
    "Set the API_KEY with value from the vault",
    "fn password() -> String",
    "token -> Token",
    "note:\u00a0hello world",
])
def test_places_words_and_code_stay(text: str) -> None:
    assert Redactor().redact(text) == text
