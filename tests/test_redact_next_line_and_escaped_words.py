"""A secret's value on the line after its name, and a secret's name written with escaped letters.

Both hid the value from every rule: the rules looked for a value on the name's own line, and
for the name's own letters, while formatters move long values down (black's parentheses,
Prettier, YAML block scalars, shell and Python line continuations) and Python's `json.dumps`
writes every letter beyond ASCII as `\\uXXXX` (`{"密码": …}` is written `{"\\u5bc6\\u7801": …}`).
"""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

SECRET = "Tr0ub4dor&3xyzQ"
TOKEN = "q8Zt2LmW9vXk4RbN7cPd"


def _masked(text: str) -> str:
    return Redactor().redact(text)  # a new Redactor each time: nothing learnt from another case


@pytest.mark.parametrize("text", [
    f'password = \\\n    "{SECRET}"',  # Python line continuation
    f'db_password = (\n    "{SECRET}"\n)',  # black wraps a long value in parentheses
    f"password: |\n  {SECRET}\nuser: deploy",  # YAML literal block scalar
    f"password: >-\n  {SECRET}\n",  # YAML folded block scalar, chomping indicator
    f"password: |2\n    {SECRET}\n",  # YAML block scalar with an indentation indicator
    f"api_key:\n  {TOKEN}\n",  # YAML plain scalar on the next line
    f"PASSWORD=\\\n{SECRET}",  # shell line continuation
    f'"password":\n    "{SECRET}"',  # a formatter moved the value down
    f'password =\n  "{SECRET}"',
    f'{{"cmd": "cat config.yml", "out": "password: |\\n  {SECRET}\\n"}}',  # escaped newline in JSON text
], ids=["continuation", "parentheses", "yaml-literal", "yaml-folded", "yaml-indent", "yaml-plain",
        "shell-continuation", "json-moved", "assignment-moved", "escaped-newline"])
def test_a_value_on_the_next_line_is_masked(text: str) -> None:
    out = _masked(text)
    assert SECRET not in out and TOKEN not in out, out
    assert "[CREDENTIAL_1]" in out


@pytest.mark.parametrize("text", [
    "password:\n  type: string\n  format: password",  # an OpenAPI schema
    "password:\n  - required\n  - min:8",  # a YAML list of rules
    "api_key:\n  description: The API key used\n",
    "password: |\n  Please enter your password\n",  # words, not one value
    "token =\n    get_token(client)",  # code
    'secret = (\n    os.environ["SECRET"]\n)',
    "password = \\\n    config.password",  # a member, not a literal
    "password = \\\n    user_pass",  # a variable
    '"password":\n    "{{ vault_password }}"',  # a template
    "password:\n  ${DB_PASSWORD}",
    "api_key:\n  your-api-key-here",  # documentation's stand-in
    "password:\nnull",
    "token:\n  12345",
    "Password:\n\nThe next section explains",
    "secret:\n  name: my-secret\n  key: password",  # a Kubernetes secret reference
    "api_key:\n  valueFrom:\n    secretKeyRef:",
    '"token":\n  null,',
    "password=\\\n  $PASSWORD",
    f"- password\n- {SECRET}",  # no separator: a list, not an assignment
    f"the password\n{SECRET} is here",
    "password:\n  hunter2x",  # a bare word under a bare `name:` must look like a secret on its own
])
def test_what_is_not_a_value_on_the_next_line_stays(text: str) -> None:
    assert _masked(text) == text


def test_after_a_mark_the_next_line_is_the_value_as_on_the_name_s_line() -> None:
    # `|` and `\` say the value follows: a short password is read as it is after `password: `
    assert _masked("password: |\n  hunter2x\n") == "password: |\n  [CREDENTIAL_1]\n"
    assert _masked("password = \\\n    hunter2x") == "password = \\\n    [CREDENTIAL_1]"


@pytest.mark.parametrize("name", ["密码", "contraseña", "パスワード", "пароль", "Passwort"])
def test_a_name_python_wrote_with_ascii_escapes_is_read(name: str) -> None:
    dumped = json.dumps({name: SECRET})  # ensure_ascii: every letter beyond ASCII escaped
    assert "\\u" in dumped or name == "Passwort"
    out = _masked(f"$ cat settings.json\n{dumped}\n")
    assert SECRET not in out, out


@pytest.mark.parametrize("text", [
    f'{{"\\u0070assword": "{SECRET}"}}',  # an escaped ASCII letter hides the word
    f'{{"api_\\u006bey": "{TOKEN}"}}',
    f"echo \\u0070assword={SECRET}",
])
def test_a_name_with_escaped_ascii_letters_is_read(text: str) -> None:
    out = _masked(text)
    assert SECRET not in out and TOKEN not in out, out
    assert "\\u" in out  # masked in place: the escapes around the value are kept


def test_a_value_holding_escaped_letters_is_masked_whole() -> None:
    out = _masked(f'{{"password": "{SECRET}\\u00e9t\\u00e9"}}')
    assert SECRET not in out and "t\\u00e9" not in out, out


@pytest.mark.parametrize("text", [
    '{"msg": "caf\\u00e9 ouvert \\u2014 \\u5f00\\u95e8"}',  # escaped letters, nothing secret
    '{"html": "\\u003cb\\u003epassword\\u003c/b\\u003e"}',  # Go's escapes of <, > and &
    '{"note": "the \\u0070assword field is required"}',  # prose about a field
])
def test_escaped_text_with_no_secret_stays(text: str) -> None:
    assert _masked(text) == text


def test_a_record_with_escaped_text_is_masked_through_redact_value() -> None:
    dumped = json.dumps({"数据库密码": SECRET})
    rec = {"type": "tool_result", "content": [{"type": "text", "text": dumped}]}
    out = Redactor().redact_value(rec)
    assert SECRET not in json.dumps(out, ensure_ascii=False)
    assert out["type"] == "tool_result"
