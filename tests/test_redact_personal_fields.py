"""A phone number or a government number kept as a record's field: its key is its label.

The label rules read `phone: 06 12 34 56 78` and `SSN 123-45-6789`; a parsed record holds
`{"phone": "06 12 34 56 78"}`, where the value alone is a run of digits like any other. So a
field named for a phone or a government number is read as its value written after that name;
in JSON text a lower-case acronym (`"ssn":`) is a label too, as a quoted key.
"""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor
from forsy.redact.personal import field_label


@pytest.mark.parametrize(("key", "value", "kind"), [
    ("phone", "06 12 34 56 78", "PHONE"),
    ("phone_number", "0151 23456789", "PHONE"),
    ("mobilePhone", "347 123 4567", "PHONE"),
    ("tel", "+44 7700 900123", "PHONE"),
    ("telefono", "347 123 4567", "PHONE"),
    ("home_phone_number", "06 12 34 56 78", "PHONE"),
    ("handy_nr", "0151 23456789", "PHONE"),
    ("ssn", "123-45-6789", "ID_NUMBER"),
    ("social_security_number", "123-45-6789", "ID_NUMBER"),
    ("passport", "X1234567", "ID_NUMBER"),
    ("passportNumber", "X1234567", "ID_NUMBER"),
    ("dni", "12345678Z", "ID_NUMBER"),
    ("cpf", "123.456.789-09", "ID_NUMBER"),
    ("codice_fiscale", "RSSMRA85T10A562S", "ID_NUMBER"),
])
def test_a_field_named_for_it_is_masked(key: str, value: str, kind: str) -> None:
    red = Redactor()
    out = red.redact_value({"user": {key: value, "name_count": "3"}})
    assert out == {"user": {key: f"[{kind}_1]", "name_count": "3"}}
    assert red.report()["by_kind"] == {kind: 1}


@pytest.mark.parametrize(("key", "value"), [
    ("phone_count", "12"),  # not a number of a phone's length
    ("phoneNumber", "call me"),
    ("passport_no", "N/A"),
    ("microphone", "612 34 56 78"),  # not a field named for a phone (a number a phone field would mask)
    ("cell_count", "12345678"),  # a phone's word beside another: something else (a spreadsheet's cells)
    ("cell_id", "123456789"),
    ("mobile_version", "1234567890"),
    ("telegram_id", "123456789"),
    ("order_id", "123-45-6789"),
    ("ssn", "unknown"),
])
def test_what_is_no_phone_or_id_stays(key: str, value: str) -> None:
    assert Redactor().redact_value({key: value}) == {key: value}


def test_field_names() -> None:
    assert [field_label(k) for k in ("phone", "mobilePhone", "ssn", "passport_no", "username", "microphone")] == [
        "phone", "phone", "SSN", "passport no", None, None]


@pytest.mark.parametrize("escaped", [False, True])
def test_a_quoted_lower_case_acronym_is_a_label_in_json_text(escaped: bool) -> None:
    text = json.dumps({"ssn": "123-45-6789", "dni": "12345678Z"})
    if escaped:
        text = json.dumps({"output": text})[len('{"output": "') : -2]  # JSON inside a string
    out = Redactor().redact(text)
    assert "123-45-6789" not in out and "12345678Z" not in out, out


def test_a_lower_case_acronym_in_prose_is_no_label() -> None:
    text = "Polish: dni 2024 12345678 (days)"
    assert Redactor().redact(text) == text
