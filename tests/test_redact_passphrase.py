"""A passphrase after a label (`password: correct horse battery staple`): the words to the line's
end are the value, masked whole. The first word alone was masked and the rest of the passphrase
left readable. (Not learnt: words are no value to look for elsewhere, `_known.distinctive`.)
Look-alikes: a capitalised description, a value then a remark in brackets, a phrase longer
than a passphrase."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor

PHRASE = "correct horse battery staple"


@pytest.mark.parametrize("text", [
    f"password: {PHRASE}",
    f"username: bob password: {PHRASE}",
    f"Password: {PHRASE}\nnext: line",
    f"passphrase: {PHRASE} 42",
    f"wifi_password: {PHRASE}\\nssid: home",  # JSON-escaped line end
])
def test_a_passphrase_is_masked_whole(text: str) -> None:
    r = Redactor()
    out = r.redact(text)
    assert not any(w in out for w in PHRASE.split()), out
    assert "[CREDENTIAL_1]" in out
    assert r.redact("a correct answer") == "a correct answer"  # its words are not learnt as secrets


@pytest.mark.parametrize(("text", "kept"), [
    ("aws_secret_access_key: AWS secret access key", "secret access key"),  # a description: not made wider
    ("password: hunter (see the vault)", "(see the vault)"),  # the value, then a remark
    (f"password: {PHRASE} and then five more words to go", "and then five more words to go"),  # too long
])
def test_what_is_not_a_passphrase_is_not_made_one(text: str, kept: str) -> None:
    assert kept in Redactor().redact(text)
