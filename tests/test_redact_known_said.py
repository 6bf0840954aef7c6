"""Known once, masked everywhere, for a password a person made of words (redact/_known.py):
once a rule masks a value said to be a password (`my password is tangerine-velvet-88`, `--pass
X`, `PASSWORD=X`, `{"password": X}`, `mein Passwort ist X`), the value is masked wherever else it
stands in the session with no label (`note from user: X is the staging one`), though its parts
are words and the word tests keep such values from spreading.

Only a value distinctive as a whole spreads (10+ characters, words joined by `-` or a symbol,
with digits or a symbol), and only when a password's word stands before it: a lone word
(`password: postgres`), words alone (`read-only-mode`), a version or a region, a name in code
(`hashed_pw_2024`), a value shown masked, and a value after a token's or a secret's word (a
model's name `text-davinci-003`, a store's entry `existingSecret: postgres-secret-1`) stay
masked only where a rule found them."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor
from forsy.redact._known import said_password, said_whole

PW = "tangerine-velvet-88"
LATER = ["note from user: {} is the staging one", "again: {}", "{}", '{{"output": "staging={}"}}']

# where a rule finds the password, with a word for a password before it
SAID = [
    "mix phx.server doesnt start. my password is {} if you need the db.",
    "psql --pass {} -h db.internal", "mysql -u root --password={} app", "PASSWORD={}", "export DB_PASSWORD='{}'",
    '{{"password": "{}"}}', "password: {}", "the root pw is {}", "set the password to {}",
    "the password for the db is now {}", "requirepass {}",
    # other languages: the word for a password, and the verb that links it to its value
    "mi contraseña es {}", "mein Passwort ist {}", "mon mot de passe est {}", "a minha senha é {}",
    "heslo je {}", "hasło to {}", "lösenord är {}", "пароль это {}", "密码是{}", "パスワードは{}です",
]


@pytest.mark.parametrize("first", SAID)
def test_a_password_said_once_is_masked_where_it_stands_bare(first: str) -> None:
    texts = [first.format(PW), *(t.format(PW) for t in LATER)]
    out = Redactor().redact_values(texts)
    assert not any(PW in t for t in out), out
    assert all("[CREDENTIAL_1]" in t for t in out), out  # the same placeholder everywhere


@pytest.mark.parametrize("first", ["my password is {}", "psql --pass {} -h db", "mein Passwort ist {}"])
def test_one_redactor_masks_it_in_a_later_text(first: str) -> None:
    """`Redactor.redact` one text after the other (no `learn` first): learnt as it is found."""
    red = Redactor()
    assert PW not in red.redact(first.format(PW))
    assert red.redact(f"again: {PW}") == "again: [CREDENTIAL_1]"


def test_learnt_first_it_is_masked_before_it_is_said() -> None:
    red = Redactor()
    texts = [f"note from user: {PW} is the staging one", f"my password is {PW}"]
    red.learn(texts)
    assert not any(PW in red.redact(t) for t in texts)


@pytest.mark.parametrize("key", ["password", "db_pass", "SMTP_PSWD", "Passwort", "contraseña", "mot_de_passe"])
def test_a_field_named_for_a_password_teaches_its_value(key: str) -> None:
    out = Redactor().redact_values([{key: PW}, f"again: {PW}"])
    assert out[1] == "again: [CREDENTIAL_1]", out


@pytest.mark.parametrize("value", ["Blue-Monkey-42", "correct-horse-battery-7", "velvet!tangerine",
                                   "TANGERINE-VELVET-88", "7-velvet-tangerine", "contraseña-segura-77"])
def test_other_passwords_of_words_spread_too(value: str) -> None:
    out = Redactor().redact_values([f"PASSWORD={value}", f"note: {value} is the staging one"])
    assert out == ["PASSWORD=[CREDENTIAL_1]", "note: [CREDENTIAL_1] is the staging one"], out


# ---------------------------------------------------------------- what does not spread
# (the first text, masked by a rule; a later text holding the same value, which stays)
NOT_SPREAD = [
    ("password: postgres", "sudo -u postgres psql"),  # a lone word
    ("password: read-only-mode", "mount it in read-only-mode first"),  # words alone
    ("PASSWORD=correct-horse-battery-staple", "the correct-horse-battery-staple comic"),
    ("password: ubuntu-22-04", "runs-on: ubuntu-22-04"),  # a version, a region, a date
    ("password: us-east-1", "region us-east-1"),
    ("password: release-2024-05-01", "git tag release-2024-05-01"),
    ("password = hashed_pw_2024", "return hashed_pw_2024"),  # a name in code
    ("aws_secret_access_key=s3_aws_secret_access_key", "print(s3_aws_secret_access_key)"),
    ("password: very****pass", "shown as very****pass"),  # a value shown masked
    ("the token is text-davinci-003", "model text-davinci-003 answered"),  # a token's word
    ('enc = tiktoken.encoding_for_model("text-davinci-003")', "model text-davinci-003 answered"),
    ("existingSecret: postgres-secret-1", "see postgres-secret-1 in the chart"),  # a secret's word
    ("api_key: tangerine-velvet-88x", "see tangerine-velvet-88x"),
    ("my password is hunter2butlonger9", "hunter2butlonger9"),  # run together: a name's shape
]


@pytest.mark.parametrize(("first", "later"), NOT_SPREAD)
def test_a_value_not_distinctive_as_a_whole_or_not_said_stays_where_it_was(first: str, later: str) -> None:
    out = Redactor().redact_values([first, later])
    assert out[0] != first, "the rule masks it where it was said (else the case proves nothing)"
    assert out[1] == later, out


@pytest.mark.parametrize(("value", "whole"), [
    ("tangerine-velvet-88", True), ("Blue-Monkey-42", True), ("velvet!tangerine", True),
    ("blue-42-monkey-7", True), ("contraseña-segura-77", True),
    ("tangerine-88", False),  # one word
    ("read-only-mode", False), ("correct-horse-battery-staple", False),  # words alone
    ("release-2024-05-01", False), ("build-2024-05-nightly-3", False),  # a date, a build
    ("tangerine_velvet_88", False), ("PositionalIndexer2D", False),  # names in code
    ("db.velvet-88.internal", False), ("velvet/tangerine-88", False), ("10:22-velvet-tangerine", False),
    ("sk-1****cdef-velvet", False), ("velvet-8", False), ("secret", False),
])
def test_what_is_distinctive_as_a_whole(value: str, whole: bool) -> None:
    assert said_whole(value) is whole


@pytest.mark.parametrize(("text", "said"), [
    ("my password is X", True), ("psql --pass X", True), ('{"db_password": "X"}', True), ("PGPASSWORD=X", True),
    ("the password for the staging db is now X", True), ("pass: X", True), ("root密码为“X”", True),
    ("le mot de passe est « X »", True), ("비밀번호는 X", True),
    ("the token is X", False), ('tiktoken.encoding_for_model("X")', False), ("existingSecret: X", False),
    ("the password reset token is X", False), ("tests pass with X", False), ("mysql -u root -pX", False),
    ("the password is wrong, try X", False), ("el secreto es X", False), ("X", False),
])
def test_what_says_a_value_is_a_password(text: str, said: bool) -> None:
    assert said_password(text, text.index("X")) is said
