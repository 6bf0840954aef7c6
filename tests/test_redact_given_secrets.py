"""Secrets given to code and commands in forms where the value stands apart from any `name =`:
by position to a sign-in call (`auth=("bob", X)`: redact/logins.py), after their name to any
call (`define('DB_PASSWORD', X)`), into a subscript (`os.environ["DB_PASSWORD"] = X`), and
written to a secret store whatever their key (`fly secrets set KEY=X`: redact/cmdline.py).
Words, file names, placeholders, names and reads stay."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

PW = "Xq7!mPz2Lw9"
TOKEN = "Xq7mPz2Lw9KdXq7mPz2Lw9Kd"

GIVEN = [
    # by position to a sign-in call or keyword: the callee's or keyword's last word says so
    f'requests.post(url, auth=("bob", "{PW}"))',
    f'httpx.get(url, auth = ("bob", "{PW}"))',
    f"session.auth = HTTPBasicAuth('bob', '{PW}')",
    f'aiohttp.BasicAuth(user, "{PW}")',
    f'new NetworkCredential("bob", "{PW}")',
    f'UsernamePasswordCredentials(cfg["user"], "{PW}")',
    f'Credentials.basic("bob", "{PW}")',
    f'new PasswordAuthentication("bob", "{PW}".toCharArray())',
    f'smtp.login("bob@corp.io", "{PW}")',
    f'imaplib.IMAP4_SSL("imap.x.io").login("bob", "{PW}")',
    f'ldap.simple_bind_s("cn=admin,dc=x", "{PW}")',
    f'request.get(u).auth("bob", "{PW}").end()',
    # after its name, to any call
    f'config.set("db_password", "{PW}")',
    f"define('DB_PASSWORD', '{PW}');",
    f'props.setProperty("api_token", "{TOKEN}")',
    # into a subscript
    f'os.environ["DB_PASSWORD"] = "{PW}"',
    f"ENV['SECRET_KEY_BASE'] = '{TOKEN}'",
    f'settings["password"] = "{PW}"',
    # to a secret store: every value is a secret, whatever its key
    f"fly secrets set DATABASE_URL={TOKEN} STRIPE='{PW}'",
    f"doppler secrets set DB={PW}",
    f"vault kv put secret/app db={PW}",
    f"kubectl create secret generic app --from-literal=db={PW}",
    f"aws secretsmanager create-secret --name prod/db --secret-string '{PW}'",
    f'az keyvault secret set --vault-name v --name db --value "{PW}"',
]


@pytest.mark.parametrize("text", GIVEN)
def test_the_secret_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert PW not in out and TOKEN not in out, out
    assert "[CREDENTIAL_1]" in out


@pytest.mark.parametrize("text", GIVEN[:3] + GIVEN[12:14] + GIVEN[15:16])
def test_the_secret_is_masked_in_escaped_json(text: str) -> None:
    out = Redactor().redact(json.dumps({"command": text}))
    assert PW not in out and TOKEN not in out, out


KEPT = [
    'render_login(request, "login.html")',
    'login("Sign in", "Enter your password")',
    "requests.get(u, auth=(user, pw))",
    'HTTPBasicAuth("bob", os.environ["PW"])',
    'HTTPBasicAuth("bob", "your_password")',
    'auth=("bob", "")',
    "fn.bind(this, 'handler')",
    'setError("password", "Too short")',
    't("password", "Passwort")',
    'print("password", "is wrong")',
    'validate("password", "min_length")',
    'os.getenv("DB_PASSWORD", "")',
    'if creds["password"] == "":',
    "vault kv get secret/app",
    "fly secrets set FOO=$BAR",
    "kubectl create secret generic app --from-file=key=./k.pem",
    "kubectl get secret app -o yaml",
]


@pytest.mark.parametrize("text", KEPT)
def test_words_names_placeholders_and_reads_stay(text: str) -> None:
    assert Redactor().redact(text) == text
