"""Secrets named in another language (redact/languages.py): a password given after the word for
it in German, Chinese, Russian, Japanese… is masked, whatever value the generator makes; the
word alone, or a word after it, is left as it is; the engine reports every form of the words."""

from __future__ import annotations

import re

import pytest

from forsy.redact import Redactor
from forsy.redact._anchors import Anchors
from forsy.redact._native import NATIVE_ANCHORS
from forsy.redact.languages import ANCHORS, PASSWORD_WORDS, TOKEN_WORDS, language_secret
from secretgen import SecretGen, forms

# `{}` is where the password goes; the label and the words around it must stay
SAID = [
    "Das Datenbankpasswort ist {}", "Passwort lautet: {}", "KENNWORT={}", "wachtwoord: {}", "Lösenord: {}",
    "passord er {}", "salasana on {}", "le mot de passe est « {} »", "Mot de passe : {}", "la contraseña es {}",
    "Contraseña: '{}'", "a senha é {}", "Senha do banco: {}", "hasło: {}", "Hasło to {}", "heslo je {}",
    "jelszó: {}", "Şifre: {}", "пароль: {}", "Пароль — {}", "мой пароль {}", "ПАРОЛЬ={}", "κωδικός: {}",
    "mật khẩu là {}", "kata sandi: {}", "数据库密码是{}，请保存", "密码：{}", "密碼為 {}", "root密码为“{}”",
    "パスワードは{}です", "パスワード：「{}」", "비밀번호는 {} 입니다", "비밀번호: {}", "รหัสผ่าน: {}",
    "पासवर्ड: {}", "סיסמה: {}", "كلمة المرور: {}", "رمز عبور: {}", '{{"passwort": "{}"}}',
    '{{\\"Passwort\\": \\"{}\\"}}', "\\nPasswort: {}\\n",
    # names in code, with the words that qualify them after (as these languages order them)
    'passwort_datenbank = "{}"', 'contrasena_db = "{}"', "SENHA_ADMIN={}", 'mot_de_passe = "{}"', "motdepasse={}",
    'db.kennwort: "{}"', 'secreto = "{}"',
]
# A token's word: only a machine-made value follows it as a secret
TOKEN_SAID = ["API密钥是{}", "令牌：{}", "トークン: {}", "액세스 토큰: {}", "токен: {}",
              'clave_api = "{}"', "CLAVE_API={}", 'chiave_segreta = "{}"', 'geheimer_schluessel = "{}"',
              "jeton_api: {}", "API-Schlüssel: {}", '{{"clave": "{}"}}']
# The word, and no secret after it
NOT_SECRETS = [
    "Passwort: falsch", "Das Passwort ist zu kurz", "密码错误，请重试", "パスワードを忘れた", "Passwortmanager",
    "wachtwoord vergeten?", "пароль неверный", "Пароль: 12345", "le mot de passe est incorrect", "senha: ********",
    "密码：******", "Passwort: ${DB_PASSWORD}", "la parola è bella", "Passwort: <dein-passwort>",
    "API密钥在环境变量中", "令牌：abc", "Passwort-Manager", "passwörter", "Compass: north", "haslo: tajne",
    "Passwort: Sommer", "Kennwort ändern: Einstellungen → Konto", "密码长度至少8位",
    "passwort_laenge = 12", "SENHA_ADMIN=${SENHA}", "la clave es muy importante", "la clave del problema es X",
    "Schlüsselwort: foo", 'clave_primaria = "id_usuario"', "la chiave è 42", "el secreto es que no hay atajos",
    "il segreto: pazienza",
]


@pytest.fixture
def red() -> Redactor:
    """A new Redactor for each case: one that learnt a value in an earlier case would mask it
    wherever it stands, whether the rule found it or not."""
    return Redactor()


def _password(gen: SecretGen) -> str:
    """A generated password that reads as one on its own (the rule's condition), without
    a backslash or a quote (which end a value in escaped text)."""
    while True:
        value = gen.password()
        if value[0].isalnum() and not any(c in value for c in "\\\"'`$<>{}") and any(c.isdigit() for c in value):
            return value


@pytest.mark.parametrize("template", SAID)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_password_after_the_word_is_masked(red: Redactor, template: str, seed: int) -> None:
    secret = _password(SecretGen(seed))
    text = template.format(secret)
    out = red.redact(text)
    assert not [f for f in forms(secret) if f in out], out
    # only the value is masked: the label, the words and the escapes around it stay
    assert re.sub(r"\[CREDENTIAL_\d+\]", lambda _: secret, out) == text, out


@pytest.mark.parametrize("template", TOKEN_SAID)
def test_a_token_after_its_word_is_masked(red: Redactor, template: str) -> None:
    token = SecretGen(7).github()
    out = red.redact(template.format(token))
    assert token not in out and "[CREDENTIAL_" in out, out


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_the_word_alone_is_no_secret(red: Redactor, text: str) -> None:
    assert red.redact(text) == text


def test_the_rule_alone_finds_the_value_exactly() -> None:
    """The rule, without the engine (Anchors searching each form itself), gives the value's span."""
    secret = "Zq8vR3tY6wP1"
    for template in SAID:
        text = template.format(secret)
        hits = list(language_secret(text, Anchors(text)))
        assert [text[h.start : h.end] for h in hits] == [secret], (template, hits)
        assert hits[0].rule == "language-secret"


def test_the_engine_reports_every_form_of_every_word() -> None:
    """Searching ~150 forms one by one costs a pass over the text each: the engine reports
    them all in its single pass, lower case, Capitalised and UPPER."""
    for word in (*PASSWORD_WORDS, *TOKEN_WORDS):
        for form in (word, word.capitalize(), word.upper()):
            assert form in ANCHORS and form in NATIVE_ANCHORS, form


def test_a_password_in_a_record_is_masked_where_it_stands(red: Redactor) -> None:
    """A session's values (`redact_values`, scanned together and by the engine) as one text alone."""
    secret = _password(SecretGen(4))
    records = [{"message": {"content": f"Hier ist das Passwort: {secret} für die Datenbank"}},
               {"message": {"content": f"请用这个密码：{secret}"}}]
    out = red.redact_values(records)
    assert secret not in str(out)
    assert out[0]["message"]["content"].startswith("Hier ist das Passwort: [CREDENTIAL_")
    assert out[0]["message"]["content"].endswith(" für die Datenbank")


# A record's field named in another language: the value, never scanned with its name beside it
FIELDS = ["passwort", "Kennwort", "db_senha", "contraseña", "数据库密码", "密码", "パスワード", "пароль", "hasło",
          "datenbankpasswort", "mot de passe"]
NOT_FIELDS = [("passwortmanager", "Zq8vR3tY6wP1"), ("parola", "casa"), ("passwort", "falsch"), ("令牌", "abc"),
              ("名前", "Zq8vR3tY6wP1"), ("passwort", "${DB_PASSWORD}"), ("senha", "********")]


@pytest.mark.parametrize("key", FIELDS)
def test_a_field_named_in_another_language_is_masked(red: Redactor, key: str) -> None:
    secret = _password(SecretGen(9))
    out = red.redact_value({"tool_input": {key: secret, "user": "anna"}})
    assert out["tool_input"][key].startswith("[CREDENTIAL_") and out["tool_input"]["user"] == "anna", out


def test_a_token_field_takes_a_machine_made_value(red: Redactor) -> None:
    token = SecretGen(8).github()
    assert red.redact_value({"令牌": token}) != {"令牌": token}


@pytest.mark.parametrize(("key", "value"), NOT_FIELDS)
def test_a_field_whose_value_is_no_secret_stays(red: Redactor, key: str, value: str) -> None:
    assert red.redact_value({key: value}) == {key: value}


# Letters and digits run together after a label: a password as a person makes one, masked as
# English's `password: X` is (these were kept: no symbol, so not "password-like")
HUMAN_MADE = ["contraseña: {}", "senha: {}", "hasło: {}", "mật khẩu: {}", "Passwort = {}", "пароль: {}",
              "Contraseña: '{}'"]


@pytest.mark.parametrize("template", HUMAN_MADE)
@pytest.mark.parametrize("value", ["MiClave2024", "Sommer2023", "tortuga77x", "Haslo123"])
def test_a_password_of_letters_and_digits_after_a_label_is_masked(red: Redactor, template: str,
                                                                  value: str) -> None:
    out = red.redact(template.format(value))
    assert value not in out and "[CREDENTIAL_1]" in out, out


@pytest.mark.parametrize("text", ["Passwort: 2.1.0", "senha: 10:22", "hasło: 2024-05-01",
                                  "Kennwort ändern in Windows10", "contraseña: tortuga", "Passwort: v2"])
def test_versions_times_and_words_after_the_label_stay(red: Redactor, text: str) -> None:
    assert red.redact(text) == text
