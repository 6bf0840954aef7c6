"""Secrets in forms of code and config the assignment rules did not read: a declared type
between a name and its `=`, R's `<-`, a Lisp call's quoted argument, a key element naming the
value element after it (property lists, Hadoop), a token given as a URL's user, a salt, a
passcode, an account's recovery codes and an authenticator's seed, and a machine-made value
after a word for "password" in another language. Each masked, in plain and JSON-escaped text;
the same shapes holding code, names or words stay as they are."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

PW = "Vr4#tLq9Wm2z"
TOKEN = "Hk3vQm9TzL2pWx8RnB4cJy6D"

MASKED = [
    f'fn main() {{ let api_token: &str = "{TOKEN}"; }}',
    f"static DB_PASSWORD: &'static str = \"{PW}\";",
    f'private val password: String = "{PW}"',
    f'var authToken: String? = "{TOKEN}"',
    f'export const apiToken: string | null = "{TOKEN}";',
    f'SECRET_TOKEN: ClassVar[str] = "{TOKEN}"',
    f'let mut token: String = "{TOKEN}".to_string();',
    f'db_password <- "{PW}"',
    f'  (setq gptel-api-key "{TOKEN}")',
    f'(defvar my-service-token "{TOKEN}")',
    f"<dict>\n  <key>Password</key>\n  <string>{PW}</string>\n</dict>",
    f"<property><name>hive.metastore.db.password</name><value>{PW}</value></property>",
    f"git push https://{TOKEN}@git.example.org/team/app.git main",
    f'HASHIDS_SALT="{TOKEN}"',
    f"encryption_salt: {TOKEN}",
    f"passcode = {PW}",
    f"Backup code: {TOKEN}",
    f"the TOTP seed is {TOKEN}",
    f"пароль：{TOKEN}",
]


@pytest.mark.parametrize("text", MASKED)
def test_the_secret_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert PW not in out and TOKEN not in out, out
    assert "[CREDENTIAL_1]" in out


@pytest.mark.parametrize("text", MASKED)
def test_the_secret_is_masked_in_json_escaped_text(text: str) -> None:
    """As a tool's arguments hold it: the text inside a JSON string."""
    escaped = json.dumps({"content": text})
    out = Redactor().redact(escaped)
    assert PW not in out and TOKEN not in out, out


KEPT = [
    "let token: &str = &config.token;",
    "    SEC_WEBSOCKET_KEY1: istr = hdrs.SEC_WEBSOCKET_KEY1,",
    "    password: Final = decoded.partition(':')[2]",
    "val password: String = System.getenv(\"DB_PASSWORD\")",
    "const apiToken: string = process.env.API_TOKEN ?? \"\";",
    "password: abc=def is not a declaration",  # YAML's value holds the `=` (masked whole, see below)
    "token <- Sys.getenv(\"GITHUB_TOKEN\")",
    "(setq gptel-api-key (getenv \"OPENAI_API_KEY\"))",
    "<key>CFBundleIdentifier</key>\n<string>org.example.widgets</string>",
    "<name>hive.metastore.uris</name><value>thrift://meta:9083</value>",
    "git clone https://git@github.com/acme/widgets.git",
    "https://jane.smith@example.org/calendar",
    "salt = os.urandom(16)",
    "bcrypt_salt_rounds: 12",
    "Use passcode login on shared tablets",
    "recovery code 3 of 10 used",
    "TOTP seed rotated yesterday",
    "пароль：Einstellungen",
]


@pytest.mark.parametrize("text", [t for t in KEPT if not t.startswith("password: abc=def")])
def test_code_names_and_words_stay(text: str) -> None:
    assert Redactor().redact(text) == text


def test_a_yaml_value_holding_an_equals_sign_is_masked_whole() -> None:
    """`: abc=def` without blanks around `=` is no declared type: the whole value is the secret."""
    out = Redactor().redact("password: abc=def")
    assert out == "password: [CREDENTIAL_1]"


def test_the_host_after_a_token_user_stays() -> None:
    out = Redactor().redact(f"git push https://{TOKEN}@git.example.org/team/app.git main")
    assert out == "git push https://[CREDENTIAL_1]@git.example.org/team/app.git main"


def test_the_token_is_known_once_masked_everywhere() -> None:
    """A secret masked in a typed declaration is masked bare in a later text of the session."""
    red = Redactor()
    texts = [f'let api_token: &str = "{TOKEN}";', f"curl -s 'https://api.example.org/v1?t={TOKEN[:4]}' # {TOKEN}"]
    red.learn(texts)
    out = red.redact_many(texts)
    assert all(TOKEN not in o for o in out), out


def test_an_encoded_value_teaches_its_secret_alone_in_a_batch_of_texts() -> None:
    """`APP_KEY=base64:X=` masks the value whole; X alone is learnt (base64's padding off) and
    masked where it stands bare, in the same batch of texts (scanned joined, then split back:
    the secret's span must survive the split) and later."""
    red = Redactor()
    texts = ["composer install", f"APP_KEY=base64:{TOKEN}=", f"key {TOKEN} copied", "done"]
    out = red.redact_many(texts)
    assert out[1] == "APP_KEY=[CREDENTIAL_1]"
    assert TOKEN not in out[2], out
    assert TOKEN not in red.redact(f"echo {TOKEN}")


@pytest.mark.parametrize("text", [
    f"poetry config pypi-token.testpypi {TOKEN}",
    f"auth.token.github={TOKEN}",
    f"mycli set credentials.token.prod {TOKEN}",
])
def test_a_hierarchical_key_whose_level_names_a_secret_holds_one(text: str) -> None:
    out = Redactor().redact(text)
    assert TOKEN not in out, out


@pytest.mark.parametrize("text", [
    "password.policy = strict",
    "token.expiry: 3600",
    "jwt.secret.expiration=86400",
    "git config credential.helper store",
])
def test_a_hierarchical_key_keeps_words_and_numbers(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize("text", [
    f"\x1b[1;33mDB_PASSWORD\x1b[0m = {PW}",
    f"  \x1b[36mapi_token\x1b[39m: \x1b[32m'{TOKEN}'\x1b[39m",
    f'export ADMIN_PASSWORD="${{ADMIN_PASSWORD:-{PW}}}"',
    f'API_TOKEN=${{API_TOKEN:={TOKEN}}}',
    f'if settings.api_token == "{TOKEN}":',
    f"assert cfg['password'] != '{PW}'",
])
def test_coloured_names_real_fallbacks_and_compared_literals_are_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert PW not in out and TOKEN not in out, out


@pytest.mark.parametrize("text", [
    "\x1b[31mpassword\x1b[0m: \x1b[1mrequired\x1b[0m",
    "${DB_PASSWORD:-changeme}",
    "${API_KEY:-your-api-key}",
    "if password == user_input:",
    'assert token == ""',
])
def test_stand_ins_variables_and_colour_alone_stay(text: str) -> None:
    red = Redactor()
    assert red.redact(text) == text


def test_a_secret_in_a_long_text_teaches_its_secret_alone() -> None:
    """A text longer than one scanning chunk: the secret found inside a wider mask after the
    first chunk is learnt alone too (its span moves with the chunk's offset)."""
    red = Redactor()
    long = "x = 1\n" * 200_000 + f"APP_KEY=base64:{TOKEN}=\n"  # past the first 1 MB chunk
    out = red.redact_many([long, f"again {TOKEN}"])
    assert TOKEN not in out[0] and TOKEN not in out[1], out[1]


@pytest.mark.parametrize("text", [
    f"wandb login {TOKEN}",
    f"openssl passwd -6 -salt Zx9 {PW}",
    f"mkpasswd -m sha-512 {PW}",
])
def test_a_password_given_to_a_hashing_or_login_command_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert PW not in out and TOKEN not in out, out


@pytest.mark.parametrize("text", ["wandb login --relogin", "openssl passwd -help", "wandb login first, then run"])
def test_their_options_and_prose_stay(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize("text", [
    f"echo {TOKEN} > ~/.config/acme/token",
    f'echo "{PW}" >> /run/secrets/db_password',
    f"printf '%s' {TOKEN} > .api_key",
    f"mkdir -p ~/.app && echo -n {TOKEN} > ~/.app/credentials && chmod 600 ~/.app/credentials",
])
def test_a_value_written_to_a_file_named_for_a_secret_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert PW not in out and TOKEN not in out, out


@pytest.mark.parametrize("text", [
    "echo done > status.txt",
    "echo 3 > ~/.cache/token_retries",
    "echo $TOKEN > ~/.token",
    "echo ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me > key.pub",
])
def test_other_writes_stay(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize("text", [
    f'let client = Client::builder().api_key("{TOKEN}").build()?;',
    f'OpenAI.builder().apiKey("{TOKEN}").build()',
    f'conn.with_auth_token("{TOKEN}")',
    f"user.setPassword('{PW}');",
    f"api_token: !!str {TOKEN}",
    f'ADMIN_PASSWORD <- "{PW}"',
])
def test_builder_calls_setters_and_tagged_values_are_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert PW not in out and TOKEN not in out, out


@pytest.mark.parametrize("text", [
    'token = getToken("github")',
    "hashPassword(input)",
    'env.secret("db-password")',
    "MasterUserPassword: !Ref DbPassword",
    'DBPassword: !Sub "{{resolve:secretsmanager:${DbSecret}:SecretString:password}}"',
    "wifi_password: !secret wifi_password",
])
def test_lookups_and_references_stay(text: str) -> None:
    assert Redactor().redact(text) == text
