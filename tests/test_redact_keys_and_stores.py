"""A JSON Web Key's private members; a secret store fed on stdin; a Terraform variable's default
on one line; a statement's words are never a password's value."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

D = "X4cTteJY_gn4FYPsXB8rdXix5vwsg1FLN5E3EaG6RJoVH-HLLKD9M7dx5oo7GURknchnrRweUkC7hT5fJLM0WbFAKNLWY2vv7B6NqXSz"
P = "83i-7IvMGXoMXCskv73TKr8637FiO7Z27zv8oj6pbWUQyLPQBQxtPVnwD20R-60eTDmD2ujnMt5PoqMrm8RfmNhVWDtjjMmCMjOpSXicFHj7"
N = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3"


@pytest.mark.parametrize("escaped", [False, True])
def test_a_json_web_keys_private_members_are_masked(escaped: bool) -> None:
    key = {"kty": "RSA", "kid": "sig-1", "n": N, "e": "AQAB", "d": D, "p": P, "q": P[::-1], "dp": D[::-1],
           "dq": D[:40], "qi": P[:40]}
    text = json.dumps({"keys": [key]})
    if escaped:  # a tool's output kept as a JSON string
        text = json.dumps({"output": text})
    out = Redactor().redact(text)
    assert not [v for v in (D, P, P[::-1], D[::-1], D[:40], P[:40]) if v in out], out
    assert N in out and "AQAB" in out and "sig-1" in out  # the public members stay
    assert "[PRIVATE_KEY_1]" in out


def test_a_symmetric_keys_k_is_masked_and_a_public_key_kept() -> None:
    r = Redactor()
    assert r.redact('{"kty":"oct","kid":"hmac","k":"GawgguFyGrWKav7AX4VKUg"}') == (
        '{"kty":"oct","kid":"hmac","k":"[PRIVATE_KEY_1]"}')
    public = '{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}'
    assert r.redact(public) == public
    other = '{"type": "dp", "d": "not-a-key-at-all-just-text"}'  # no kty: not a key
    assert r.redact(other) == other


@pytest.mark.parametrize("template", [
    "gcloud secrets create db --data-file=- <<< '{pw}'",
    "echo -n '{pw}' | gcloud secrets versions add db --data-file=-",
    "printf '{pw}' | gcloud secrets versions add db --data-file=/dev/stdin",
])
def test_a_secret_store_fed_on_stdin_loses_the_value(template: str) -> None:
    pw = "GcpSecretPw!2024"
    out = Redactor().redact(template.format(pw=pw))
    assert pw not in out and "[CREDENTIAL_1]" in out, out


def test_a_terraform_variables_default_on_one_line_is_masked() -> None:
    r = Redactor()
    assert r.redact('variable "db_password" { default = "TfDefaultPw!" }') == (
        'variable "db_password" { default = "[CREDENTIAL_1]" }')
    kept = 'variable "region" { default = "eu-west-1" }'
    assert r.redact(kept) == kept


def test_a_statements_words_are_not_the_password() -> None:
    out = Redactor().redact("set password for 'bob'@'%' = PASSWORD('OldStyl3Pw')")
    assert out == "set password for 'bob'@'%' = PASSWORD('[CREDENTIAL_1]')"
