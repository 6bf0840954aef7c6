"""A config, key file or credential encoded whole in base64 (a Kubernetes Secret's `data:`, an
env var holding an `.env` file or a JSON key, a JSON-escaped tool output, a value wrapped at 76
columns) is decoded where an encoded word of a secret's name stands in it, read by every rule,
and masked whole when one finds a secret there; what the redactor records says so
(`encoded-secret`), never the value. Look-alikes: encoded text that holds a secret's word but
no secret, random bytes (an image), a JWT (the token rule's)."""

from __future__ import annotations

import base64
import json
import random

from forsy.redact import Redactor


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


ENV = "APP_ENV=prod\nSTRIPE_SECRET_KEY=rk9QmW2xLp7Tz4Vn8Bc1\nREDIS_PASSWORD=Hq4!mZ8#Lw2v\n"
JSON_CONFIG = json.dumps({"db": {"user": "svc", "password": "Hq4!mZ8#Lw2v"}, "region": "eu"})


def test_an_encoded_env_file_is_masked_whole_and_recorded() -> None:
    red = Redactor()
    text = f"apiVersion: v1\nkind: Secret\ndata:\n  app.env: {b64(ENV)}\n"
    out = red.redact(text)
    assert out == "apiVersion: v1\nkind: Secret\ndata:\n  app.env: [CREDENTIAL_1]\n"
    assert red.report()["by_rule"] == {"encoded-secret": 1}


def test_an_encoded_json_config_in_escaped_tool_output_is_masked() -> None:
    text = json.dumps({"stdout": f"APP_CONFIG={b64(JSON_CONFIG)}\nexit 0"})
    out = Redactor().redact(text)
    assert b64(JSON_CONFIG)[:40] not in out and "[CREDENTIAL_1]" in out


def test_an_encoded_config_wrapped_over_lines_is_masked_over_them() -> None:
    wrapped = base64.encodebytes((ENV * 3).encode()).decode()  # 76 columns, as `base64` prints it
    out = Redactor().redact(f"$ base64 .env\n{wrapped}")
    assert out.startswith("$ base64 .env\n[CREDENTIAL_1]"), out
    assert not any(line in out for line in wrapped.split())


def test_an_encoded_urlsafe_config_without_padding_is_masked() -> None:
    blob = base64.urlsafe_b64encode(f"token={'Zq3Wm8Rt5Yn1Kp7Lx2Vb9Hc4'}&user=x".encode()).decode().rstrip("=")
    assert Redactor().redact(f"state={blob}") == "state=[CREDENTIAL_1]"


def test_encoded_text_without_a_secret_random_bytes_and_a_jwt_stay() -> None:
    prose = b64("Tokens and passwords are explained in the security guide, chapter four.")
    image = base64.b64encode(random.Random(7).randbytes(6000)).decode()
    text = f"CONFIG_B64={b64(ENV)}\nDOC_B64={prose}\nlogo: data:image/png;base64,{image}\n"
    out = Redactor().redact(text)
    assert out == f"CONFIG_B64=[CREDENTIAL_1]\nDOC_B64={prose}\nlogo: data:image/png;base64,{image}\n"
