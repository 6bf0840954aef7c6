"""Payment card numbers and IBANs are masked when their checksum holds, grouped or run together,
in prose, in a CSV line, in JSON; the long numbers a log is full of (ids, millisecond and
nanosecond times, float digits, hashes, a number that fails its checksum) are not; the networks'
and banks' published test numbers are reported as placeholders and kept.

The numbers below were made for these tests: each card's last digit is its Luhn check digit and
each IBAN's two digits its ISO 13616 check, worked out by hand (and checked below by a second,
independent formula). The engine here finds nothing: what is masked is forsy's own rules."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pytest

from forsy.redact import Redactor
from forsy.redact._engine import NUMBER_ANCHOR_RULE, EngineHit
from forsy.redact.finance import NUMBER_ANCHOR_PATTERN

VISA, MASTERCARD, AMEX, VISA_OTHER = "4556737586899855", "5238123456789018", "345678901234564", "4132987654321018"
DE, GB, FR, NL = ("DE44500105175407324931", "GB56NWBK60161331926818", "FR3830006000019876543210178",
                  "NL39RABO0300065264")


class Nothing:
    name = "nothing"
    reports_anchors = False

    def scan(self, data: bytes) -> Sequence[EngineHit]:
        return []


class Numbering(Nothing):
    """An engine that reports, as the real one does in its native pass, where card numbers and
    IBANs may stand: the leftmost matches of its pattern that do not overlap."""

    name = "numbering"
    reports_anchors = True

    def scan(self, data: bytes) -> Sequence[EngineHit]:
        return [EngineHit(NUMBER_ANCHOR_RULE, m.start(), m.end())
                for m in re.finditer(NUMBER_ANCHOR_PATTERN.encode(), data)]


ENGINES = ["no engine", "scripted anchors", "kingfisher"]


@pytest.fixture(params=ENGINES)
def make(request: pytest.FixtureRequest) -> Any:
    """A fresh Redactor: on an engine that finds nothing (the rules scan every text), or on the
    real engine, which reports where numbers may stand in its native pass (the rules look only
    there): the same answers either way."""
    if request.param == "kingfisher":
        engine = request.getfixturevalue("kingfisher_engine")
        return lambda: Redactor(engine=engine)
    if request.param == "scripted anchors":
        return lambda: Redactor(engine=Numbering())
    return red


def red() -> Redactor:
    return Redactor(engine=Nothing())


def luhn_ok(digits: str) -> bool:  # the doubling table, not the arithmetic the rule uses
    doubled = "0246813579"
    return sum(int(doubled[int(c)]) if i % 2 else int(c) for i, c in enumerate(reversed(digits))) % 10 == 0


def iban_ok(value: str) -> bool:  # piecewise mod 97, as the standard describes it
    rest = 0
    for c in value[4:] + value[:4]:
        for d in str(int(c, 36)):
            rest = (rest * 10 + int(d)) % 97
    return rest == 1


def test_the_numbers_here_are_what_they_claim() -> None:
    assert all(luhn_ok(c) for c in (VISA, MASTERCARD, AMEX, VISA_OTHER))
    assert all(iban_ok(i) for i in (DE, GB, FR, NL))


def groups(value: str, sizes: Sequence[int], sep: str = " ") -> str:
    out, at = [], 0
    for n in sizes:
        out.append(value[at:at + n])
        at += n
    return sep.join(out)


@pytest.mark.parametrize("text, masked", [
    (f"card {groups(VISA, [4, 4, 4, 4])} exp 12/28", "card [PAYMENT_CARD_1] exp 12/28"),
    (f"card {groups(VISA, [4, 4, 4, 4], '-')}.", "card [PAYMENT_CARD_1]."),
    (f"{VISA}", "[PAYMENT_CARD_1]"),
    (f"Jane Doe,{MASTERCARD},2029-01", "Jane Doe,[PAYMENT_CARD_1],2029-01"),
    (f'{{"pan": "{groups(AMEX, [4, 6, 5])}"}}', '{"pan": "[PAYMENT_CARD_1]"}'),
    (f"IBAN {groups(DE, [4, 4, 4, 4, 4, 2])} (Jane)", "IBAN [BANK_ACCOUNT_1] (Jane)"),
    (f"iban={GB};", "iban=[BANK_ACCOUNT_1];"),
    (f"{groups(FR, [4, 4, 4, 4, 4, 4, 3])}\n", "[BANK_ACCOUNT_1]\n"),
    (f"to {NL} by Friday", "to [BANK_ACCOUNT_1] by Friday"),
])
def test_a_card_number_or_iban_is_masked(text: str, masked: str, make: Any) -> None:
    r = make()
    assert r.redact(text) == masked
    kind, rule = ("PAYMENT_CARD", "payment-card") if "PAYMENT" in masked else ("BANK_ACCOUNT", "iban")
    assert (r.report()["by_kind"], r.report()["by_rule"]) == ({kind: 1}, {rule: 1})


def test_one_number_written_two_ways_is_one_placeholder(make: Any) -> None:
    r = make()
    assert r.redact(f"{groups(VISA, [4, 4, 4, 4])} / {VISA} / {MASTERCARD}") == \
        "[PAYMENT_CARD_1] / [PAYMENT_CARD_1] / [PAYMENT_CARD_2]"
    assert r.redact(f"{groups(DE, [4, 4, 4, 4, 4, 2])} and {DE}") == "[BANK_ACCOUNT_1] and [BANK_ACCOUNT_1]"


@pytest.mark.parametrize("text", [
    VISA[:-1] + str((int(VISA[-1]) + 1) % 10),  # the check digit wrong
    "1771864834000 1732700000123456789",  # times in milliseconds and nanoseconds
    "-38.300000000000004, 0.4000000000000006",  # float digits
    f"order 9{VISA}",  # a longer number
    f"id_{VISA} {VISA}abc v{VISA}",  # parts of words
    f"sha {VISA}{MASTERCARD}",  # a run of 32 digits
    "1234 5678 9012 3456",  # no network begins with 1
    "3530 1113 3330 0000x",  # glued to a letter
    f"{VISA}_2", f"{VISA}x-", f"{MASTERCARD}.5",  # a name, a word, a decimal go on after it
    DE[:-1] + str((int(DE[-1]) + 1) % 10),  # IBAN check wrong
    DE + "1",  # IBAN too long for its country
    "XX44500105175407324931",  # no such country
    f"ref{DE}", f"{DE}abc", f"{GB}_1",  # inside a word or a name
])
def test_numbers_that_are_not_one_stay(text: str, make: Any) -> None:
    r = make()
    assert r.redact(text) == text
    assert not {"PAYMENT_CARD", "BANK_ACCOUNT"} & set(r.report()["by_kind"])


@pytest.mark.parametrize("text", [
    "4242 4242 4242 4242", "4111111111111111", "5555555555554444", "378282246310005",
    "DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432", "4444 4444 4444 4448",
])
def test_published_test_numbers_are_placeholders_kept(text: str, make: Any) -> None:
    r = make()
    assert r.redact(text) == text
    assert (r.report()["by_kind"], r.report()["placeholders"]) == ({}, 1)  # seen, said, kept


def test_a_card_after_a_run_the_engine_matched_first_is_found(make: Any) -> None:
    """The engine reports matches that do not overlap: in `12345 <card>` its match begins in the
    first run and ends inside the card; the card is looked for from there on all the same."""
    r = make()
    text = f"ref 12345 {groups(VISA, [4, 4, 4, 4])} and 9 {groups(MASTERCARD, [4, 4, 4, 4])}"
    assert r.redact(text) == "ref 12345 [PAYMENT_CARD_1] and 9 [PAYMENT_CARD_2]"


def test_many_numbers_in_one_text(make: Any) -> None:
    rows = "\n".join(f"{i},{VISA if i % 2 else MASTERCARD},{DE if i % 3 else GB},{1771864834000 + i}"
                     for i in range(200))
    out = make().redact(rows)
    assert out.count("[PAYMENT_CARD_1]") + out.count("[PAYMENT_CARD_2]") == 200
    assert out.count("[BANK_ACCOUNT_1]") + out.count("[BANK_ACCOUNT_2]") == 200
    assert "1771864834199" in out and VISA not in out and GB not in out


def test_a_number_refused_does_not_stop_the_search(make: Any) -> None:
    text = f"order 9{VISA}, id {VISA}_x, then {groups(MASTERCARD, [4, 4, 4, 4])} and {DE}1, {DE}x then {GB}"
    assert make().redact(text) == \
        f"order 9{VISA}, id {VISA}_x, then [PAYMENT_CARD_1] and {DE}1, {DE}x then [BANK_ACCOUNT_1]"


def test_few_distinct_digits_is_a_test_number_and_four_are_a_card(make: Any) -> None:
    three, four = "4000000000407777", "4444444010202121"  # Luhn sums hold (checked above's way)
    assert luhn_ok(three) and luhn_ok(four)
    r = make()
    assert r.redact(f"{three} {four}") == f"{three} [PAYMENT_CARD_1]"
    assert r.report()["placeholders"] == 1


def test_numbers_far_apart_and_close_together_in_one_text(make: Any) -> None:
    """Where the engine's matches lie far apart each is looked at; close together, as one stretch."""
    far = f"{VISA} " + "x" * 500 + f" {DE} " + "y" * 500 + f" {groups(AMEX, [4, 6, 5])}"
    assert make().redact(far) == "[PAYMENT_CARD_1] " + "x" * 500 + " [BANK_ACCOUNT_1] " + "y" * 500 + \
        " [PAYMENT_CARD_2]"
    close = f"{groups(VISA, [4, 4, 4, 4])} {groups(MASTERCARD, [4, 4, 4, 4])} {groups(FR, [4, 4, 4, 4, 4, 4, 3])}"
    assert make().redact(close) == "[PAYMENT_CARD_1] [PAYMENT_CARD_2] [BANK_ACCOUNT_1]"
