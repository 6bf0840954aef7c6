"""What the session learns from: a password a person typed after the word for it in another
language and its linking verb, as after English's "password is" (redact/languages.py); a
password's last `!`; "the password is now X"; an AWS access key id of any capitals and digits
(redact/_tokens.py). Each is masked where it is said, and so wherever else it stands."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor

PW = "tangerine-velvet-88"


@pytest.mark.parametrize("template", [
    "mi contraseña es {}", "la contraseña era {}", "mein Passwort ist {}", "das Kennwort lautet {}",
    "mon mot de passe est {}", "a minha senha é {}", "wachtwoord is {}", "salasana on {}", "heslo je {}",
    "hasło to {}", "пароль это {}", "κωδικός είναι {}", "kata sandi adalah {}", "mật khẩu là {}",
    "סיסמה היא {}", "كلمة المرور هي {}", "Passwort {}",
])
def test_a_typed_password_after_the_linking_verb_is_masked(template: str) -> None:
    out = Redactor().redact_values([template.format(PW), f"again: {PW}"])
    assert PW not in str(out), out
    assert out[0] == template.format("[CREDENTIAL_1]") and out[1] == "again: [CREDENTIAL_1]", out


@pytest.mark.parametrize("text", [
    "Passwort für den build-2024-01",  # what the password is for, not a linking verb
    "das Passwort ist zu kurz", "la contraseña es incorrecta", "Das Passwort ist falsch!",
    "a senha é 2024-05-01",
])
def test_other_words_after_the_word_stay(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize("text", ["mi contraseña es Tang3rine!", "mein Passwort ist Sommer2024!"])
def test_a_passwords_last_exclamation_mark_is_masked_with_it(text: str) -> None:
    out = Redactor().redact(text)
    assert out.endswith("[CREDENTIAL_1]"), out


@pytest.mark.parametrize("text", ["my password is now {}", "the password for the db is now {}",
                                  "password for the db is still {}"])
def test_the_value_after_is_now_is_masked(text: str) -> None:
    assert Redactor().redact(text.format(PW)) == text.format("[CREDENTIAL_1]")


@pytest.mark.parametrize("text", ["the password for the db is now reset", "the password is still stored in vault"])
def test_words_after_is_now_stay(text: str) -> None:
    assert Redactor().redact(text) == text


# AWS issues base32 ids; made-up and mistyped ones have any capital or digit
KEY_ID = "AKIAO22XRV8C29YSHHEV"


@pytest.mark.parametrize("text", ["the key is {}", "{}", "aws_access_key_id = {}", "ASIA" + KEY_ID[4:] + " {}"])
def test_an_access_key_id_of_any_capitals_and_digits_is_masked(text: str) -> None:
    red = Redactor()
    out = red.redact_many([text.format(KEY_ID), f"again: {KEY_ID}"])
    assert "AKIA" not in " ".join(out) and "ASIA" not in " ".join(out), out
    assert out[1] == f"again: {out[0].split()[-1]}"  # the same placeholder where it was first


@pytest.mark.parametrize("text", ["AKIAO22XRV8C29YSHHEV9 is longer", "AKIA_O22XRV8C29YSHHE", "akiao22xrv8c29yshhev",
                                  "ASIA-PACIFIC-REGION-2024", "AKIAO22XRV8C29YSHH"])
def test_look_alikes_of_an_access_key_id_stay(text: str) -> None:
    assert Redactor().redact(text) == text
