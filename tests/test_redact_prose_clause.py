"""A password named in a sentence whose value comes after the clause's verb or colon ("The
password for user bob has been set to X.", mysqld's "A temporary password is generated for
root@localhost: X"), and a config file's directive alone on its line (`requirepass X`):
masked (redact/prose.py, redact/rules.py). Times, words and commented directives stay."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor

PW = "Xq7!mPz2Lw9"

MASKED = [
    f"The password for user bob has been set to {PW}.",
    f"2024-05-01T10:22:31.123Z 6 [Note] [MY-010454] [Server] A temporary password is generated for "
    f"root@localhost: {PW}",
    f"Done. The new admin password for the staging server is now available as {PW}",
    f"requirepass {PW}",
    f"bind 127.0.0.1\nrequirepass {PW}\nport 6379\n",
]


@pytest.mark.parametrize("text", MASKED)
def test_the_value_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert PW not in out and "[CREDENTIAL_1]" in out, out


KEPT = [
    "The token was rotated at: 2024-05-01T10:22:31Z",
    "The password policy is: min 12 chars.",
    "password is required for user admin: see docs",
    "Your token expires in 3600s: refresh it",
    "The token count is 128000: fine",
    "password reset link sent. Then: Xq7!mPz2Lw9 is a different sentence",
    "requirepass foobared",
    f"# requirepass {PW}",
    "password reset",
]


@pytest.mark.parametrize("text", KEPT)
def test_times_words_and_other_sentences_stay(text: str) -> None:
    assert Redactor().redact(text) == text
