"""The values of an SQL INSERT are read as a record's fields: each is given its column's name
and masked as that field's value would be (a secret, a date of birth, a phone, a government
number), whatever its column's quoting, however many rows, raw or JSON-escaped; values of other
columns, placeholders and calls stay (redact/inserts.py)."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

MASKED = [
    ("INSERT INTO patients (name, dob) VALUES ('Jane Roe', '1984-03-12');",
     "INSERT INTO patients (name, dob) VALUES ('Jane Roe', '[BIRTH_DATE_1]');"),
    ("INSERT INTO users (email, ssn, password) VALUES ('a@x.io', '123-45-6789', 'hunter2!x'), "
     "('b@x.io', '078-05-1120', 'S3cret''s');",
     "INSERT INTO users (email, ssn, password) VALUES ('[EMAIL_1]', '[ID_NUMBER_1]', '[CREDENTIAL_1]'), "
     "('[EMAIL_2]', '[ID_NUMBER_2]', '[CREDENTIAL_2]');"),
    ("insert into `users` (`id`, `phone`, `api_key`) values (1, '+1 415 555 0134', 'k9Xz7Qp2Lm4Rt8Vw');",
     "insert into `users` (`id`, `phone`, `api_key`) values (1, '[PHONE_1]', '[CREDENTIAL_1]');"),
    ('INSERT OR REPLACE INTO "people" ("full_name", "date_of_birth", "passport_number") '
     "VALUES ('Al Bo', '1990-01-02 00:00:00', 'X1234567')",
     'INSERT OR REPLACE INTO "people" ("full_name", "date_of_birth", "passport_number") '
     "VALUES ('Al Bo', '[BIRTH_DATE_1]', '[ID_NUMBER_1]')"),
    ("INSERT INTO [dbo].[Accounts] ([Login], [Pwd]) VALUES (N'bob', 'Tr0ub4dor&3')",
     "INSERT INTO [dbo].[Accounts] ([Login], [Pwd]) VALUES (N'bob', '[CREDENTIAL_1]')"),
]
KEPT = [
    "INSERT INTO t (id, created_at, note) VALUES (1, NOW(), 'hello');",
    "INSERT INTO t (id, token_count, password_hint) VALUES (1, 42, 'my dog');",
    "cur.execute('INSERT INTO users (name, passport_number) VALUES (?, ?)', (name, num))",
    "INSERT INTO users (name, birth_date) VALUES ('Al', 'unknown')",
    "INSERT INTO users (name, password) VALUES ('Al', NULL)",
    "INSERT INTO users (name, password) VALUES ($1, $2)",
    "items.insert(0, x); INSERT INTO log (msg) VALUES ('dob 12')",
]


@pytest.mark.parametrize(("text", "masked"), MASKED)
def test_a_value_is_masked_as_its_columns_field(text: str, masked: str) -> None:
    assert Redactor().redact(text) == masked


@pytest.mark.parametrize("text", KEPT)
def test_values_of_other_columns_placeholders_and_calls_stay(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize("depth", [1, 2])
def test_an_insert_inside_json_is_read(depth: int) -> None:
    text = "INSERT INTO \"users\" (\"name\", \"ssn\", \"dob\") VALUES ('Bo', '123-45-6789', '1990-01-02')"
    wrapped = text
    for _ in range(depth):
        wrapped = json.dumps({"cmd": wrapped})
    out = Redactor().redact(wrapped)
    assert "123-45-6789" not in out and "1990-01-02" not in out and "'Bo'" in out
