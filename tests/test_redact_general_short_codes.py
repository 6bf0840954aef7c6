"""A PIN or a card's security code at the end of a sentence (`My PIN is 6907.`): the full stop
after it kept it from being read. Look-alikes: a decimal, a file name, a version."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor


@pytest.mark.parametrize(("text", "code"), [
    ("My PIN is 6907.", "6907"),
    ("My bank card PIN is 6907.", "6907"),
    ("The CVV is 847.", "847"),
    ("CVC: 4821. Expiry next year.", "4821"),
    ("The PIN is 6907, keep it safe", "6907"),
])
def test_a_code_that_ends_a_sentence_is_masked(text: str, code: str) -> None:
    out = Redactor().redact(text)
    assert code not in out
    assert out.endswith((".", "safe", "year."))


@pytest.mark.parametrize("text", [
    "PIN 1234.5 kg",
    "pin: 1234.txt",
    "CVV 123.45",
])
def test_decimals_and_names_stay(text: str) -> None:
    assert Redactor().redact(text) == text
