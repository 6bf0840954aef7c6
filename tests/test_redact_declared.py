"""Values their writer declared secret, or gave as the default of something named for one
(redact/declared.py), and a Basic credential built by piping `user:secret` to base64
(redact/structure.py): masked; other defaults, switch labels and references stay."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

PW = "Xq7!mPz2Lw9"
TOKEN = "Xq7mPz2Lw9KdXq7mPz2Lw9Kd"

MASKED = [
    f'- run: echo "::add-mask::{TOKEN}"',
    f"echo ::add-mask::{PW}",
    f'variable "db_password" {{\n  type    = string\n  default = "{PW}"\n}}',
    f'variable "admin" {{\n  type      = string\n  sensitive = true\n  default   = "{PW}"\n}}',
    f"Parameters:\n  DBPassword:\n    Type: String\n    NoEcho: true\n    Default: {PW}\n",
    f"Parameters:\n  MasterUser:\n    Type: String\n    NoEcho: true\n    Default: '{PW}'\n",
    f"on:\n  workflow_dispatch:\n    inputs:\n      api_token:\n        description: the token\n"
    f"        default: {TOKEN}\n",
    f'{{\n  "Parameters": {{\n    "DbPassword": {{\n      "Type": "String",\n      "Default": "{PW}"\n    }}\n  }}\n}}',
    f"printf 'bob:{PW}' | base64",
    f'echo -n "admin:{PW}" | base64 -w0',
    f'curl -H "Authorization: Basic $(echo -n bob:{PW} | base64)" https://x.io',
]


@pytest.mark.parametrize("text", MASKED)
def test_the_value_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert PW not in out and TOKEN not in out, out
    assert "[CREDENTIAL_1]" in out


@pytest.mark.parametrize("text", [MASKED[0], MASKED[2], MASKED[7]])
def test_the_value_is_masked_in_escaped_json(text: str) -> None:
    out = Redactor().redact(json.dumps({"content": text}))
    assert PW not in out and TOKEN not in out, out


KEPT = [
    'variable "region" {\n  default = "eu-west-1a"\n}',
    'variable "db_password" {\n  type = string\n}',
    'variable "db_password" {\n  default = ""\n}',
    "Parameters:\n  DBUser:\n    Type: String\n    Default: admin_user\n",
    "inputs:\n  api_token:\n    description: the token\n    default: ${{ secrets.API_TOKEN }}\n",
    "password:\n  type: boolean\n  default: false\n",
    "switch (kind) {\n  case 1:\n    break;\n  default:\n    return token_x9Q2;\n}",
    "export default { token: process.env.TOKEN }",
    "echo ::add-mask::$TOKEN",
    "echo 'hello world' | base64",
    "echo -n 'user:$PASSWORD' | base64",
    "defaults:\n  run:\n    shell: bash\n",
]


@pytest.mark.parametrize("text", KEPT)
def test_other_defaults_labels_and_references_stay(text: str) -> None:
    assert Redactor().redact(text) == text
