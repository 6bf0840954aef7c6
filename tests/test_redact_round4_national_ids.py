"""National identity numbers whose check holds, after a word naming them or in a field named
for them (redact/national.py): France's NIR, Italy's codice fiscale, Sweden's personnummer,
Norway's fødselsnummer, Finland's henkilötunnus, Denmark's CPR, Spain's DNI/NIE, the
Netherlands' BSN, Belgium's rijksregisternummer, Poland's PESEL. A number failing its check,
a name alone, or a word holding the name is left."""

from __future__ import annotations

import pytest

from forsy.redact import ID_NUMBER, Redactor
from forsy.redact._anchors import Anchors
from forsy.redact.national import NATIONAL_SHAPES, national_id, national_key

NUMBERS = [
    ("numéro de sécu (NIR) : {}", "2 91 03 69 123 456 53"),
    ("CODICE_FISCALE: {}", "BNCGLI90A41H501E"),
    ("codiceFiscale={}", "BNCGLI90A41H501E"),
    ("Personnummer: {}", "900314-1232"),
    ("personnummer {}", "19900314-1232"),
    ("fødselsnummer: {}", "15038500047"),
    ("henkilötunnus {}", "010594-123W"),
    ("HETU: {}", "010594-123W"),
    ("CPR-nummer: {}", "150385-1234"),
    ("dni: {}", "87654321X"),
    ("documento nacional de identidad {}", "Y7654321G"),
    ("burgerservicenummer {}", "123456708"),
    ("Rijksregisternummer: {}", "90.02.01-997.04"),
    ("Pesel: {}", "90021512347"),
]
# the same shapes whose check fails, the names alone, words holding them, numbers elsewhere
NOT_IDS = [
    "personnummer 900314-1233", "codiceFiscale=BNCGLI90A41H501A", "burgerservicenummer 123456709",
    "fødselsnummer: 15038500048", "henkilötunnus 010594-123X", "Pesel: 90021512348", "NIR : 2 91 03 69 123 456 54",
    "Rijksregisternummer: 90.02.01-997.05", "CPR-nummer: 350385-1234", "dni 87654321X are days",
    "the personnummer field is required", "personnummers 900314-1232", "BSNL 123456708",
    "order 900314-1232 shipped", "cpr 150385-1234 training", "hetu_enabled = true",
]


@pytest.mark.parametrize(("template", "number"), NUMBERS)
def test_a_checked_number_after_its_name_is_masked(template: str, number: str) -> None:
    text = template.format(number)
    out = Redactor().redact(text)
    assert number not in out and f"[{ID_NUMBER}_1]" in out


@pytest.mark.parametrize("text", NOT_IDS)
def test_what_fails_its_check_or_has_no_name_stays(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize(("template", "number"), NUMBERS)
def test_the_rule_reads_the_text_alone(template: str, number: str) -> None:
    """Without the engine's shapes (a decoded view) the rule finds the names itself."""
    text = template.format(number)
    assert [text[h.start : h.end] for h in national_id(text, Anchors(text))] == [number]


def test_a_field_named_for_the_number_is_read_after_its_name() -> None:
    record = {"personnummer": "900314-1232", "codiceFiscale": "BNCGLI90A41H501E", "BSN": "123456708",
              "henkilotunnus": "010594-123W", "order_id": "900314-1232"}
    out = Redactor().redact_value(record)
    assert out["order_id"] == "900314-1232"
    assert all(v.startswith(f"[{ID_NUMBER}_") for k, v in out.items() if k != "order_id")
    assert national_key("fodselsnummer") == "fodselsnummer" and national_key("order_number") is None


def test_the_names_are_an_engine_shape_of_their_own() -> None:
    from forsy.redact._engine import SHAPE_ANCHOR_PATTERNS
    assert SHAPE_ANCHOR_PATTERNS["national-id"] == NATIONAL_SHAPES["national-id"]
