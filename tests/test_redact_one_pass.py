"""Redactor.redact_values (a session masked with each string scanned once) gives what
learning first and then redacting value by value gives; Redactor.rescan finds what slipped
into a value about to be written without scanning again what the redactor returned."""

from __future__ import annotations

import random
from typing import Any

import pytest

from forsy.redact import Redactor
from forsy.redact._base import Hit
from redaction_structure_samples import samples

PW = "EGppdw0SvCPg*i0Q"
TOKEN = "ghp_" + "Zq4" * 12


def _values(seed: int) -> list[Any]:
    """A session's worth of strings and records: secrets given late and used early, secret
    fields, cookie headers, keys that hold secrets, nested lists, the rule samples."""
    rng = random.Random(seed)
    texts: list[Any] = [s.text for s in samples(seed)]
    texts += [f"why does {PW} show up?", {"cmd": f"echo {PW}", "n": 3, "ok": True, "x": None},
              {"password": "Summer2013!Lantern", "user": "ada"}, "it says Summer2013!Lantern is invalid",
              {"headers": {"Cookie": "session=9f8e7d6c5b4a39281716a5b4c3d2e1f0"}},
              {f"key {TOKEN}": "a key that is a secret"}, [[f"deep {TOKEN}"], ("tuple", PW)],
              "plain text with nothing in it", "", f"export DB_PASSWORD={PW}"]
    rng.shuffle(texts)
    return texts


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_redact_values_is_learn_then_redact_each(seed: int) -> None:
    values = _values(seed)
    before = Redactor()
    before.learn(values)
    expected = [before.redact_value(v) for v in values]
    one = Redactor()
    assert one.redact_values(values) == expected
    assert one.report() == before.report()
    assert PW not in repr(expected) and TOKEN not in repr(expected)


def test_redact_values_numbers_placeholders_in_the_order_of_the_values() -> None:
    out = Redactor().redact_values([f"first {TOKEN}", {"later": f"export DB_PASSWORD={PW}"}, f"again {PW}"])
    assert out == ["first [CREDENTIAL_1]", {"later": "export DB_PASSWORD=[CREDENTIAL_2]"}, "again [CREDENTIAL_2]"]


def test_a_value_too_deep_to_walk_fails_closed_alone() -> None:
    deep: list[Any] = []
    node = deep
    for _ in range(5000):
        node.append([])
        node = node[0]
    red = Redactor()
    assert red.redact_values([f"a {TOKEN}", deep, "fine"]) == ["a [CREDENTIAL_1]", "[UNSCANNABLE_TEXT]", "fine"]
    assert red.report()["unscannable"] == 1


class _Exploding:
    """An engine that fails on one input: the text holding it fails closed, its batch does not."""

    name, reports_anchors = "exploding", False

    def scan(self, data: bytes) -> list[Any]:
        if b"BOOM" in data:
            raise RuntimeError("engine failure")
        return []


def test_an_engine_failure_takes_one_string_not_its_batch() -> None:
    red = Redactor(engine=_Exploding())
    out = red.redact_values(["before", "BOOM goes the engine", {"k": f"export DB_PASSWORD={PW}"}])
    assert out == ["before", "[UNSCANNABLE_TEXT]", {"k": "export DB_PASSWORD=[CREDENTIAL_1]"}]


# ---------------------------------------------------------------- rescan
def test_rescan_of_what_the_redactor_returned_finds_nothing() -> None:
    red = Redactor()
    out = red.redact_values(_values(4))
    assert red.rescan({"steps": out, "title": "a new string without secrets"}) is None


def test_rescan_masks_a_new_string_that_holds_a_secret() -> None:
    red = Redactor()
    out = red.redact_values([f"given {TOKEN}", "clean"])
    joined = {"steps": out, "summary": f"a rule joined two parts: ghp_{'Zq4' * 6}{'Zq4' * 6}"}
    fixed = red.rescan(joined)
    assert fixed is not None and TOKEN not in repr(fixed)
    assert fixed["summary"] == "a rule joined two parts: [CREDENTIAL_1]"


def test_rescan_scans_outputs_again_once_a_secret_is_learnt_after_them() -> None:
    red = Redactor()
    early = red.redact(f"why does {PW} show up?")  # not yet known: returned as it was
    assert PW in early
    red.redact(f"export DB_PASSWORD={PW}")  # learnt now
    fixed = red.rescan({"text": early})
    assert fixed == {"text": "why does [CREDENTIAL_1] show up?"}


def test_rescan_masks_a_secret_field_and_a_key() -> None:
    red = Redactor()
    assert red.rescan({"args": {"password": "Summer2013!Lantern"}}) == {"args": {"password": "[CREDENTIAL_1]"}}
    fixed = red.rescan({f"k {TOKEN}": 1})
    assert fixed is not None and TOKEN not in repr(fixed)


def test_rescan_empties_its_record_of_outputs() -> None:
    """The record holds references to every string returned: it must not grow for ever."""
    red = Redactor()
    out = red.redact_values(["a", "b", f"c {TOKEN}"])
    assert red.rescan(out) is None
    assert red._outputs == set()


def test_scan_agrees_with_rescan_on_documentation_placeholders() -> None:
    """A stand-in like `your_password` is kept by redact and is not a reason to redo a value."""
    red = Redactor()
    text = red.redact('password = "your_password"')
    assert [h for h in red.scan(text) if isinstance(h, Hit)] == []
    assert red.rescan({"text": text + " "}) is None


def test_only_redact_values_keeps_a_record_of_outputs() -> None:
    """A long-lived redactor (the review server's) redacts records one by one: none is kept."""
    red = Redactor()
    red.redact_many(["a", f"b {TOKEN}"])
    red.redact_value({"k": "v"})
    assert red._outputs == set()
