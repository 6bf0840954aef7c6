"""A person's government number after its name (redact/personal.government_id): social
security, passport, tax and national identity numbers, in the countries' own formats, masked
as ID_NUMBER; the name alone, a word holding it (`passports`, `ASIN`), a short code, a version
or a date is left."""

from __future__ import annotations

import pytest

from forsy.redact import ID_NUMBER, Redactor
from forsy.redact._anchors import Anchors
from forsy.redact._native import NATIVE_ANCHORS
from forsy.redact.personal import ID_KEY_LABELS, ID_LABELS, government_id

NUMBERS = [("my SSN is {}", "123-45-6789"), ("SSN: {}", "078-05-1120"), ("passport no. {}", "X1234567"),
           ("Passport number: {}", "533380006"), ("DNI {}", "12345678Z"), ("身份证号 {}", "11010519491231002X"),
           ("NIE: {}", "X1234567L"), ("CPF {}", "123.456.789-09"), ("PESEL {}", "44051401359"),
           ("Steuer-ID {}", "12 345 678 901"), ("codice fiscale {}", "RSSMRA85T10A562S"),
           ("Sozialversicherungsnummer: {}", "65170839J003"), ("マイナンバー {}", "1234 5678 9012"),
           # acronyms that are no word, in lower case, as people and code write them
           ("my ssn is {}", "123-45-6789"), ("ssn: {}", "078-05-1120"), ("ssn={}", "078051120"),
           ("patient pesel {}", "44051401359"), ("cpf: {}", "123.456.789-09"), ("itin# {}", "912-70-1234")]
NOT_IDS = ["passports expire", "SSNs are private", "ASIN B07XJ8C8F5", "dni 2024", "nie mehr 12345678",
           "passport photo size 35x45", "the passport is valid until 2030-01-01", "TIN can 12", "id number 42",
           "passport.authenticate('local')", "passport@0.7.0", "SELECT SIN(45) FROM t",
           "the order id number 4815162342 was paid", "className: 12345678", "classname = 12345678",
           "ssn: n/a", "ssn 2024", "Order 123-45-6789 shipped"]


@pytest.mark.parametrize(("template", "number"), NUMBERS)
def test_a_number_after_its_name_is_masked(template: str, number: str) -> None:
    text = template.format(number)
    assert Redactor().redact(text) == template.format(f"[{ID_NUMBER}_1]")
    assert [text[h.start : h.end] for h in government_id(text, Anchors(text))] == [number]


@pytest.mark.parametrize("text", NOT_IDS)
def test_what_is_no_government_number_stays(text: str) -> None:
    assert Redactor().redact(text) == text


def test_the_engine_reports_the_names() -> None:
    assert set(ID_LABELS) | set(ID_KEY_LABELS) <= NATIVE_ANCHORS
