"""A password's own characters must not cut it short or make it read as code: a quoted value runs
to its closing quote (`curl -u 'admin:P@ssw0rd!30'`, `mysql -p'Zq81(TdwZW1)x'`), an `@` in an
unquoted `curl -u` password is part of it, and a `(` makes a value code only when it is shaped
like a call (`get_password()`, `os.getenv(…`), not inside a literal (`Zq81(QMU2m0)x`).
Look-alikes: calls, subscripts, a uid:gid pair, a prompt for the password."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor


@pytest.mark.parametrize(("text", "secret"), [
    ("curl -u 'admin:P@ssw0rd!30' https://ci.acme.io", "P@ssw0rd!30"),
    ("curl -u deploy:8@eg5NwFD2D0wQ https://ci.acme.io/api/json", "8@eg5NwFD2D0wQ"),
    ('curl --user "deploy:khMBp9 QCJXqYx" https://x.io', "khMBp9 QCJXqYx"),
    ("curl -u 'deploy:8Dasp9\"Utbulex' https://x.io", '8Dasp9"Utbulex'),
    ("password: Zq81(QMU2m0)x", "Zq81(QMU2m0)x"),
    ("password = Zq81(QMU2m0)x", "Zq81(QMU2m0)x"),
    ("DB_PASSWORD=xEhh29[FDEEtfx", "xEhh29[FDEEtfx"),  # an open bracket is no subscript
    ("mysql -uroot -p'Zq81(TdwZW1)x' app", "Zq81(TdwZW1)x"),
    ("mysql -uroot -p'JZkEn9<znMDWtx' app", "JZkEn9<znMDWtx"),
    ('mysql -uroot -p"y7vsF9 Trok7zx" app', "y7vsF9 Trok7zx"),
])
def test_the_whole_password_is_masked(text: str, secret: str) -> None:
    out = Redactor().redact(text)
    assert secret not in out
    for part in (secret[:5], secret[-5:]):
        assert part not in out, out


@pytest.mark.parametrize("text", [
    "password = getpass()",
    "password = os.getenv(\"DB_PASSWORD\")",
    "password: get_secret(name).value",
    "password = hash(pw)[0:8]",
    "password = vault.read(path).data",
    "password = auth[2]",
    "docker run --user 1000:1000 img",
    "mysql -uroot -p app",
    '{"command": "mysql -u root -p", "description": "Run it"}',  # the quote ends a string: no value opens
    "{'command': 'mysql -u root -p', 'description': 'Run it'}",
])
def test_calls_and_look_alikes_stay(text: str) -> None:
    assert Redactor().redact(text) == text
