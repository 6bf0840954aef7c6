"""Secrets kept as name/value records (redact/pairs.py): Kubernetes and ECS environments, HAR
headers, a browser's saved cookies; in text (YAML, JSON, JSON inside a string) and in parsed
records. The name decides; values generated; a new Redactor for each case."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor
from forsy.redact._anchors import Anchors
from forsy.redact.pairs import pair_secret
from secretgen import SecretGen

SAID = [
    "env:\n  - name: DB_PASSWORD\n    value: {}\n  - name: LOG_LEVEL\n    value: debug",
    'spec:\n  containers:\n  - env:\n    - name: "STRIPE_SECRET_KEY"\n      value: "{}"',
    '{{"environment": [{{"name": "API_KEY", "value": "{}"}}, {{"name": "PORT", "value": "80"}}]}}',
    '[{{"Name": "DB_PASSWORD", "Value": "{}"}}]',
    '{{"key": "GITHUB_TOKEN", "value": "{}"}}',
    '{{"cookies": [{{"name": "sessionid", "value": "{}", "domain": ".example.com", "path": "/"}}]}}',
    '"headers": [{{"name": "Authorization", "value": "Bearer {}"}}, {{"name": "Accept", "value": "*/*"}}]',
    '{{\\"name\\": \\"API_TOKEN\\", \\"value\\": \\"{}\\"}}',
    "env:\\n  - name: DB_PASSWORD\\n    value: {}\\n",
    "env:\n  - name: LOG_LEVEL\n    value: debug\n  - name: DB_PASSWORD\n    value: {}",
    '{{"Parameter": {{"Name": "/prod/db/password", "Type": "SecureString", "Value": "{}", "Version": 3}}}}',
    '{{"Name": "/app/url", "Type": "SecureString", "Value": "{}"}}',
    '{{"name": "API_KEY", "description": "the key", "value": "{}"}}',
    # a key naming what it is the name or value of: CloudFormation, Elastic Beanstalk
    '[{{"ParameterKey": "DbPassword", "ParameterValue": "{}"}}]',
    "Parameters:\n  - ParameterKey: MasterUserPassword\n    ParameterValue: {}\n",
    '{{"Namespace": "aws:elasticbeanstalk:application:environment", "OptionName": "DB_PASSWORD", "Value": "{}"}}',
]
NOT_SECRETS = [
    "env:\n  - name: LOG_LEVEL\n    value: debug\n  - name: PORT\n    value: \"8080\"",
    "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password",
    '{"name": "password", "value": "${DB_PASS}"}',
    '{"name": "api_key", "value": "your-api-key-here"}',
    '{"username": "admin", "value": "Zq8vR3tY6wP1nK4mX7cB"}',
    '{"name": "token_count", "value": "12"}',
    '{"Name": "/app/region", "Type": "String", "Value": "eu-west-1"}',
    '{"name": "LOG", "foo": "bar", "value": "Zq8vR3tY6wP1nK4"}',
    '[{"ParameterKey": "Environment", "ParameterValue": "prod"}]',
    '{"ParameterKey": "DbPassword", "OtherValue": "Zq8vR3tY6wP1nK4mX7cB"}',
    '{"UserName": "bob", "Value": "Zq8vR3tY6wP1nK4mX7cB"}',
]


def _secret(seed: int) -> str:
    while True:
        value = SecretGen(seed).github() if seed % 2 else SecretGen(seed).password()
        if not any(c in value for c in "\\\"'{}$ ,"):
            return value
        seed += 2


@pytest.mark.parametrize("template", SAID)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_value_of_a_secret_name_is_masked(template: str, seed: int) -> None:
    secret = _secret(seed)
    text = template.format(secret)
    out = Redactor().redact(text)
    assert secret not in out and "[CREDENTIAL_" in out, out
    assert out.split("[CREDENTIAL_")[0] == text.split(secret)[0], out  # the name and all before it stay


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_other_pairs_stay(text: str) -> None:
    assert [h for h in pair_secret(text, Anchors(text)) if h.kind == "CREDENTIAL"] == []
    assert "[CREDENTIAL_" not in Redactor().redact(text)


def test_the_rule_alone_finds_each_value() -> None:
    """Without the engine's report (a short or decoded text), the rule looks itself."""
    for template in SAID:
        text = template.format("Zq8vR3tY6wP1nK4mX7cB")
        assert [text[h.start : h.end] for h in pair_secret(text, Anchors(text))] == ["Zq8vR3tY6wP1nK4mX7cB"], text


def test_a_parsed_record_is_masked_whole() -> None:
    secret = _secret(3)
    record = {"taskDefinition": {"containerDefinitions": [{"environment": [
        {"name": "DB_PASSWORD", "value": secret}, {"name": "REGION", "value": "eu-west-1"}]}]}}
    out = Redactor().redact_value(record)
    env = out["taskDefinition"]["containerDefinitions"][0]["environment"]
    assert env[0]["value"].startswith("[CREDENTIAL_") and env[1] == {"name": "REGION", "value": "eu-west-1"}
    assert secret not in json.dumps(out)
    cookies = Redactor().redact_value({"cookies": [{"name": "sid", "value": secret, "domain": "x.com"}]})
    assert secret not in json.dumps(cookies)
    ssm = Redactor().redact_value({"Parameter": {"Name": "/app/url", "Type": "SecureString", "Value": secret}})
    assert ssm["Parameter"]["Value"].startswith("[CREDENTIAL_")
    password = _secret(4)  # not a token the engine knows on its own: the record's names decide
    cfn = Redactor().redact_value([{"ParameterKey": "DbPassword", "ParameterValue": password}])
    assert cfn[0]["ParameterValue"].startswith("[CREDENTIAL_") and cfn[0]["ParameterKey"] == "DbPassword"
    plain = {"Parameter": {"Name": "/app/region", "Type": "String", "Value": "eu-west-1"}}
    assert Redactor().redact_value(plain) == plain
