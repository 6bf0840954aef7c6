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


# A password a person typed is often lower-case letters and digits: right after the word for
# it, or after its verb, it is masked too (it was not: only mixed-case or symbol-bearing values)
TYPED = "hunter2butlonger9"

TYPED_MASKED = [
    f"we used password {TYPED} for deploy",
    f"my password {TYPED}",
    f"the password is {TYPED}.",
    f"the db password changed to {TYPED}",
    f"The password for user bob has been set to {TYPED}.",
    f"the passphrase: {TYPED}",
    f"the password for ubuntu2204 is {TYPED}",  # the host's name is not taken for the password
    f"user bob pass {TYPED}",  # a user just before makes "pass" a label
]

# the most common password a person makes: a capitalised word and a number
SEASON = "Winter2025"
SEASON_MASKED = [f"password {SEASON}", f"set the password to {SEASON} for bob", f"login bob, pass {SEASON}",
                 f"user bob pass {SEASON}", f"pwd {SEASON}"]


@pytest.mark.parametrize("text", SEASON_MASKED)
def test_a_word_and_a_year_after_the_word_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert SEASON not in out and "[CREDENTIAL_1]" in out, out


@pytest.mark.parametrize("text", TYPED_MASKED)
def test_a_typed_lower_case_password_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert TYPED not in out and "[CREDENTIAL_1]" in out, out
    assert "ubuntu2204" in out or "ubuntu2204" not in text


TYPED_KEPT = [
    "password hashing with argon2id",  # a hash's name: short
    "password sha256 digest",
    "the password column is utf8mb4",
    "password reset for account12345 requested",  # a word between: not the password's place
    "my password manager holds server2204 logins",
    "the user tests pass quickly",  # "pass" a verb: no user named before it
    "Login flow, pass 3 of 5",
    "user bob passed Winter2025 exams",
    "the Winter2025 release notes mention the password",  # not after the word
    "the password is required_for_login",  # joined words without two digits
    "set the password to gpt-4o-mini",
    "the password to user-service-v2",
]


@pytest.mark.parametrize("text", TYPED_KEPT)
def test_names_and_numbers_near_the_word_stay(text: str) -> None:
    assert Redactor().redact(text) == text


# words and digits joined by `-` or `_`, as password managers and people make them: the same
# rule as run together (it was masked only after a label, `pwd is X`, not after "password to")
JOINED = ["I changed my password to tangerine-velvet-88", "the password is river_stone_2024",
          "password 42-purple-monkey-dishwasher"]


@pytest.mark.parametrize("text", JOINED)
def test_a_typed_password_joined_by_hyphens_is_masked(text: str) -> None:
    value = text.rsplit(" ", 1)[1]
    out = Redactor().redact(text)
    assert value not in out and out.endswith("[CREDENTIAL_1]"), out
