"""A secret's value cut short by what it holds or how it is written: an unclosed bracket in a
bare value (`DB_PASSWORD=abc(123`: no quote cut it, so it is no call), pieces of a password
after its first with blanks between (`password = Mk4 9z!Q`), literals joined by `+` under a
secret's name or making a token across the `+`, a token continued over lines (a trailing
backslash, a wrap by width), a JWT wrapped before anything masked it. Look-alikes: a call, a
group, a comment, words after the value, a greeting built with `+`, a line after a short
token, a command after an env assignment."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

JWT = ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQ4MjEiLCJyb2xlIjoiYWRtaW4iLCJpYXQiOjE3MTgxMDAwMDB9"
       ".Zk3mQ9vLx2Rt8Wn4Yp1Hc7Jd5Fg0SaBb6Ne3Ku9Ir4")


@pytest.mark.parametrize(("text", "secret"), [
    ("SMTP_PASSWORD=k7w(Qz94mR", "k7w(Qz94mR"),
    ("db:\n  password: pV7z(Q2m#x\n", "pV7z(Q2m#x"),
    ("mein Passwort ist: Lr8(Tq2vW", "Lr8(Tq2vW"),
    ("[client]\npassword = Mk4 9z!Q\n", "9z!Q"),
    ("passphrase: Blue7 Harbor! 42Kite\n", "42Kite"),
    ('private_token = "Zq3Wm8Rt5Yn1" + "Kp7Lx2Vb9Hc4"', "Kp7Lx2Vb9Hc4"),
    ("const k = 'xoxb-' + '2048-91827364-Zq3Wm8Rt5Yn1Kp7Lx2Vb';", "Zq3Wm8Rt5Yn1Kp7Lx2Vb"),
    ("auth_token: Zq3Wm8Rt5Yn1Kp7Lx2Vb9\\\n  Hc4Jd6Fg0SaQw2Er5Ty8\n", "Hc4Jd6Fg0SaQw2Er5Ty8"),
    (json.dumps({"command": "export API_TOKEN=Zq3Wm8Rt5Yn1Kp7Lx2Vb9\\\nHc4Jd6Fg0SaQw2Er5Ty8"}),
     "Hc4Jd6Fg0SaQw2Er5Ty8"),
    (f"session_token: {JWT[:60]}\n{JWT[60:]}\n", JWT[60:]),
    (f"$ cat token.txt\n{JWT[:50]}\n{JWT[50:]}\n", JWT[50:]),
])
def test_the_whole_secret_is_masked(text: str, secret: str) -> None:
    out = Redactor().redact(text)
    assert secret not in out, out


@pytest.mark.parametrize("lookalike", [
    "password = get_secret(name,",
    "$env:DB_PASSWORD = (Get-Content secret.txt)",
    "password: hunter2x9 # the old one",
    'greeting = "Hello, " + "world" + "!"',
    "DB_PASSWORD=Zq81mPx04L ./migrate.sh --all",
    "API_KEY=Zq3Wm8Rt5Yn1Kp7Lx2Vb\nNEXT_STEP=deploy",
])
def test_what_follows_a_value_is_not_taken_for_it(lookalike: str) -> None:
    text = f"DB_PASSWORD=Ux2(Mq9wZ\n{lookalike}"
    out = Redactor().redact(text)
    assert "Ux2(Mq9wZ" not in out
    tail = out.split("\n", 1)[1]
    # the look-alike's own secret, if it has one, is masked; the words around it stay
    for word in ("get_secret(name,", "(Get-Content secret.txt)", "# the old one", '"Hello, " + "world" + "!"',
                 "./migrate.sh --all", "NEXT_STEP=deploy"):
        if word in lookalike:
            assert word in tail, tail
