"""What tools print, where the name and the value are not written `name = value` on one line:
an interpreter's echo, a store's listing, a record under a secret's name, a one-column query,
a device's configuration, a signing tool's key file. Each rule's own samples (none of the
held-out sets'), with the look-alikes that must stay."""

from __future__ import annotations

import pytest

from forsy.redact import Redactor

SECRET = "q8Zr2LmX0vPw7TnK4sBd"
PASSWORD = "Tr0ub4dor&3horse!"


def _masked(text: str, value: str) -> bool:
    out = Redactor().redact(text)
    return value not in out


@pytest.mark.parametrize("text", [
    # an interpreter's prompt, the expression naming the secret, its echo on the next line
    f">>> config.DB_PASSWORD\n'{SECRET}'",
    f'In [12]: os.getenv("GITLAB_TOKEN")\nOut[12]: \'{SECRET}\'',
    f'> Sys.getenv("WEBHOOK_SECRET")\n[1] "{SECRET}"',
    f"iex(3)> Application.get_env(:app, :api_token)\n\"{SECRET}\"",
    # a store of secrets, and fresh random bytes, print a secret whatever it is called
    f"$ keyring get pypi upload\n{SECRET}",
    f"$ kwallet-query -r smtp kdewallet\n{SECRET}",
    f"$ pwgen -s 20 1\n{SECRET}",
    f"$ head -c 15 /dev/urandom | base64\n{SECRET}",
    f"$ aws secretsmanager get-secret-value --secret-id x --query SecretString --output text\n{SECRET}",
])
def test_what_a_command_or_an_interpreter_prints_is_masked(text: str) -> None:
    assert _masked(text, SECRET)


def test_a_printed_password_with_an_equals_sign_inside_is_masked_and_a_printed_record_is_left_to_its_rules() -> None:
    assert _masked("$ cat /run/secrets/smtp_password\nVq*81x=Lm0zQ\n", "Vq*81x=Lm0zQ")
    assert _masked("$ cat /run/secrets/smtp_password\nVq*81x=Lm0zQ\n", "Lm0zQ")
    text = "$ printenv DB_PASSWORD_FILE\nmode=file\n"
    assert Redactor().redact(text) == text


@pytest.mark.parametrize("text", [
    ">>> len(config.DB_PASSWORD)\n17",
    "In [2]: settings.TOKEN_TTL\nOut[2]: 3600",
    "$ git checkout fix/auth-timeout\nSwitched to branch 'fix/auth-timeout'",
    "$ keyring --help\nusage: keyring [-h] [-p KEYRING_PATH]",
    ">>> token_count\n'many'",
])
def test_what_prints_no_secret_stays(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize("text", [
    # a record under the secret's name, its value in a `value` field: JSON, YAML, escaped JSON
    f'{{"smtp_password": {{"type": "string", "value": "{PASSWORD}"}}}}',
    f'"app.mail.password": {{\n    "value": "{PASSWORD}",\n    "origin": "env"\n}}',
    f"admin_secret:\n  sensitive: true\n  value: {PASSWORD}\n",
    # a record that says its value is sensitive, whatever its name
    f'{{"endpoint_url": {{"sensitive": true, "value": "{PASSWORD}"}}}}',
    f'"{{\\"api_token\\": {{\\"value\\": \\"{SECRET}\\"}}}}"',
])
def test_the_value_of_a_record_named_for_a_secret_is_masked(text: str) -> None:
    value = SECRET if SECRET in text else PASSWORD
    assert _masked(text, value)


def test_a_parsed_record_under_a_secrets_name_has_its_value_masked_and_learnt() -> None:
    r = Redactor()
    out = r.redact_value({"outputs": {"smtp_password": {"type": "string", "value": PASSWORD},
                                      "region": {"type": "string", "value": "eu-west-1"},
                                      "bucket": {"sensitive": True, "value": "acme-private-bucket-7"}}})
    assert out["outputs"]["smtp_password"]["value"] != PASSWORD
    assert out["outputs"]["region"]["value"] == "eu-west-1"
    assert out["outputs"]["bucket"]["value"] != "acme-private-bucket-7"
    assert PASSWORD not in r.redact(f"later: {PASSWORD}")  # learnt: masked wherever it stands


@pytest.mark.parametrize("text", [
    '{"db_port": {"type": "number", "value": "5432"}}',
    '"password": {"type": "string", "minLength": 12, "description": "the account password"}',
    '"app.mail.host": {\n  "value": "smtp.example.com"\n}',
    'token_limit:\n  value: "4096"\n',
])
def test_a_record_whose_name_or_value_is_no_secret_stays(text: str) -> None:
    assert Redactor().redact(text) == text


@pytest.mark.parametrize("text", [
    f" secret_token\n----------------------\n {SECRET}\n(1 row)",
    f"+----------------+\n| passwd         |\n+----------------+\n| {PASSWORD} |\n+----------------+\n1 row in set",
])
def test_a_one_column_query_of_a_secret_column_is_masked(text: str) -> None:
    value = SECRET if SECRET in text else PASSWORD
    assert _masked(text, value)


def test_a_one_column_query_of_another_column_and_a_heading_stay() -> None:
    for text in (" email_count\n-------------\n 12\n(1 row)",
                 "Password policy\n---------------\nAt least 12 characters.",
                 "Password\n--------\nChoose one you have not used before."):
        assert Redactor().redact(text) == text


@pytest.mark.parametrize("text", [
    f"username backup privilege 1 secret 0 {PASSWORD}",
    f"tacacs-server host 10.1.1.1 key 7 {SECRET}",
    f"  key-string 0 {SECRET}",
    f"set snmp community {SECRET} authorization read-only",
    f"snmp-server community {SECRET} RW 10",
    # a store's key alone on its line and its value on the next (etcd, consul, redis-cli)
    f"/prod/payments/stripe_secret\n{SECRET}\n",
    f'1) "replica-password"\n2) "{PASSWORD}"',
    # a label of words, a box's cells, a comma inside a value a person chose
    f"    Key Material           : {PASSWORD}",
    f"│ access_token │ {SECRET} │",
    f"wifi_password: {PASSWORD},x9",
])
def test_device_lines_listings_and_labels_are_masked(text: str) -> None:
    value = SECRET if SECRET in text else PASSWORD
    out = Redactor().redact(text)
    assert value not in out and value.split(",")[0] not in out


@pytest.mark.parametrize("text", [
    "snmp-server location rack 4",
    "the community 0 members were notified",
    "service password-encryption",
    "/prod/payments/stripe_secret\n(not set)\n",
    '1) "maxclients"\n2) "10000"',
    "    public key: " + "AbC1" * 11,
    "sort key: created_at_desc_2024",
    "f(password=pw, retries=3)",
])
def test_their_look_alikes_stay(text: str) -> None:
    assert Redactor().redact(text) == text


def test_a_signing_tools_secret_key_file_is_masked_and_its_public_key_stays() -> None:
    key = "RWRTY0Iy" + "Q" * 20 + SECRET + "x9" * 30
    assert _masked(f"untrusted comment: signify secret key\n{key}\n", key)
    assert _masked(f'"untrusted comment: rsign encrypted secret key\\n{key}\\n"', key)
    public = f"untrusted comment: minisign public key 12AB\nRWQ{SECRET}{SECRET}\n"
    assert Redactor().redact(public) == public


@pytest.mark.parametrize(("text", "value"), [
    (f"remember_token={SECRET}; Path=/; Expires=Wed, 09 Jun 2027 10:18:14 GMT; HttpOnly", SECRET),
    (f'assert response.headers["set-cookie"] == "csrftoken={SECRET}; SameSite=Lax"', SECRET),
    (f"The deploy token you pasted earlier ({SECRET}) has expired.", SECRET),
    (f"sid={SECRET}; Path=/; Secure", SECRET),  # a name that is no secret's: the attributes say cookie
    (f"_gh_sess={SECRET}; path=/; secure; HttpOnly; SameSite=Lax", SECRET),
])
def test_a_cookie_without_its_header_and_a_token_in_parentheses_are_masked(text: str, value: str) -> None:
    assert _masked(text, value)


@pytest.mark.parametrize("text", [
    "Content-Type: text/html; charset=utf-8",
    "Path=/; HttpOnly",
    "The token you pasted earlier (see above) has expired.",
    "the secret (42) is a number",
])
def test_cookie_and_parenthesis_look_alikes_stay(text: str) -> None:
    assert Redactor().redact(text) == text
