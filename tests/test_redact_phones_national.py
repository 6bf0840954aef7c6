"""Phone numbers in a country's own notation (redact/personal.labelled_phone): no shape tells
`06 12 34 56 78` from other digits, so after a word for a phone, in the languages agents are
used in, a number of 8 to 15 digits is masked; a count, a version, a date or a word that only
contains the label (`Intel`, `hotel`, `telemetry`) is not."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor
from forsy.redact._anchors import Anchors
from forsy.redact._native import NATIVE_ANCHORS
from forsy.redact.personal import PHONE_LABELS, labelled_phone

NUMBERS = [("tel {}", "06 12 34 56 78"), ("Tel.: {}", "030 1234567"), ("Handy: {}", "0151 23456789"),
           ("téléphone : {}", "06.12.34.56.78"), ("电话：{}", "010-12345678"), ("手机 {}", "13800138000"),
           ("携帯 {}", "090-1234-5678"), ("전화 {}", "010-1234-5678"), ("Телефон: {}", "8 (495) 123-45-67"),
           ("Mobile number: {}", "07700 900123"), ("teléfono {}", "612 34 56 78"), ("WhatsApp {}", "0612345678"),
           ("cellulare {}", "333 123 4567")]  # `cell` begins it: the longest word is the label
NOT_PHONES = ["Intel 12900K cores 16", "mobile app version 10.2.3.4567", "phone calls in 2024: 1234",
              "hotel: 0612345678", "telemetry 1234567890", "mobile: 768", "the phone is 2024-01-15 dated",
              "phone 15.01.2024", "cell 42"]


@pytest.mark.parametrize(("template", "number"), NUMBERS)
def test_a_number_after_a_word_for_a_phone_is_masked(template: str, number: str) -> None:
    text = template.format(number)
    assert Redactor().redact(text) == template.format("[PHONE_1]")
    assert [text[h.start : h.end] for h in labelled_phone(text, Anchors(text))] == [number]


@pytest.mark.parametrize("text", NOT_PHONES)
def test_digits_that_are_no_phone_stay(text: str) -> None:
    assert Redactor().redact(text) == text


def test_the_engine_reports_the_labels() -> None:
    assert set(PHONE_LABELS) <= NATIVE_ANCHORS


# A national number in its country's groups after no word for a phone ("call me on", "ring", "my
# number is" in any language): the trunk 0 and 10-12 digits in groups are its shape (personal._PHONE_NATIONAL)
UNLABELLED = [("call me on {} tomorrow", "020 7946 0958"), ("ring {} after six", "07700 900123"),
              ("my number is {}", "06 12 34 56 78"), ("erreichbar unter {}", "030 1234567"),
              ("({})", "0151 2345 6789")]
NOT_NATIONAL = ["row 06 12 34 56 78 90 12 of the table", "0000020 000002 000076 000001", "on 2024 05 12 at 10 30",
                "IBAN DE89 3704 0044 0532 0130 00", "ids 06 12 34", "v0.12 345 6789", "hotel: 0612345678",
                "sizes 0 12 34 56 78 90", "1 020 7946 0958", "x-020 7946 0958",
                "# [0123 0123456] [012]", "01 23 45 67 89",  # counting, and the book's example
                "090-1234-5678 on 2026-01-05"]  # groups parted by `-`: a phone only after its word


@pytest.mark.parametrize(("template", "number"), UNLABELLED)
def test_a_national_number_in_its_groups_is_masked_without_a_label(template: str, number: str) -> None:
    assert Redactor().redact(template.format(number)) == template.format("[PHONE_1]")


@pytest.mark.parametrize("text", NOT_NATIONAL)
def test_digits_in_groups_that_are_no_national_number_stay(text: str) -> None:
    assert Redactor().redact(text) == text
