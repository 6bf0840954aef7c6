"""Secrets found by where they stand (redact/structure.py, redact/_known.py): each rule's
must-match samples are masked and its must-not-match samples come out unchanged
(tests/redaction_structure_samples.py); a secret known once is masked everywhere in the
session with one placeholder; masks are no wider than the secret."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from _small_logs import answer, call, result, user, write
from forsy.redact import Redactor
from forsy.redact._values import password_like
from forsy.run import RetraceOptions, retrace
from redaction_structure_samples import MUST_NOT_MATCH, samples
from secretgen import forms

SAMPLES = samples(seed=5)


@pytest.fixture(scope="module")
def red() -> Redactor:
    return Redactor()


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: f"{s.rule}:{s.template[:40]}")
def test_must_match(sample: object) -> None:
    red = Redactor()
    out = red.redact(sample.text)  # type: ignore[attr-defined]
    leaked = [s for s in sample.secrets if any(f in out for f in forms(s))]  # type: ignore[attr-defined]
    assert not leaked, out


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_must_match_other_values(seed: int) -> None:
    for sample in samples(seed):
        out = Redactor().redact(sample.text)
        assert not [s for s in sample.secrets if s in out], (sample.template, out)


@pytest.mark.parametrize("text", [t for ts in MUST_NOT_MATCH.values() for t in ts])
def test_must_not_match(red: Redactor, text: str) -> None:
    assert red.redact(text) == text


@pytest.mark.parametrize(("value", "expected"), [
    ("Spring2025!Deploy", True), ("f7DEiBGEyHrxeGvf", True), ("x9#kQ2mm", True), ("Lw6=_N^8REiz%eU", True),
    ("MyProject2", False), ("8080:80", False), ("no:cacheprovider", False), ("release-2024", False),
    ("env.CODEMIE_API_KEY", False), ("ya29.[alphanumeric-_]{100,}", False), ("net.ipv4.ip_forward=1", False),
    ("Configuration=Release", False), ("v1.2.3-rc1", False), ("/usr/local/bin", False), ("${DB_PASSWORD}", False),
    ("your_password", False), ("12345678", False), ("getPassword()", False), ("Control+Shift+T", False),
    ("Base64-encoded", False), ("PositionalIndexer2D", False), ("t?r.C0.ESC+", False), ("vfOpJqSME3", True),
])
def test_password_like(value: str, expected: bool) -> None:
    assert password_like(value) is expected


# ---------------------------------------------------------------- known once, masked everywhere
def test_a_secret_known_once_is_masked_later_with_the_same_placeholder() -> None:
    r = Redactor()
    tok = "w9n5m6OJYhDBqdI5zqLs18HmC7ntwQfgA5XzTwYP"
    first, title, later = r.redact_many([f"cat .env\nAPI_SECRET={tok}\n", f"Rotate {tok}", f"I replaced {tok}."])
    placeholder = re.search(r"\[CREDENTIAL_\d+\]", first)
    assert placeholder and tok not in title + later
    assert title == f"Rotate {placeholder.group()}" and later == f"I replaced {placeholder.group()}."


def test_learn_masks_a_secret_before_it_is_given() -> None:
    pw = "EGppdw0SvCPg*i0Q"
    texts = [f"why does {pw} show up in the log?", f"export DB_PASSWORD={pw}"]
    r = Redactor()
    r.learn(texts)
    out = r.redact_many(texts)
    assert pw not in "".join(out)
    assert out[0] == "why does [CREDENTIAL_1] show up in the log?" and out[1] == "export DB_PASSWORD=[CREDENTIAL_1]"


def test_learn_reads_secret_fields_of_records() -> None:
    r = Redactor()
    r.learn([{"password": "Summer2013!Lantern"}])
    assert r.redact("it says Summer2013!Lantern is invalid") == "it says [CREDENTIAL_1] is invalid"


def test_a_known_value_is_masked_in_its_written_forms_only_as_a_whole_word() -> None:
    r = Redactor()
    r.redact("mysql -u root -pQx7#mP2vLk9 shop")
    assert r.redact('{"msg": "pw Qx7#mP2vLk9"}') == '{"msg": "pw [CREDENTIAL_1]"}'
    assert r.redact("Qx7%23mP2vLk9") == "[CREDENTIAL_1]"  # URL-encoded
    assert r.redact("AQx7#mP2vLk9Z") == "AQx7#mP2vLk9Z"  # inside a longer word


@pytest.mark.parametrize("password", ["postgres", "admin", "12345678", "s3_aws_secret_access_key"])
def test_words_and_numbers_are_not_spread(password: str) -> None:
    """POSTGRES_PASSWORD=postgres: masked there, but `postgres` elsewhere is the database."""
    r = Redactor()
    assert password not in r.redact(f"POSTGRES_PASSWORD={password}")
    assert r.redact(f"psql -U {password} -h db") == f"psql -U {password} -h db"


# ---------------------------------------------------------------- masks no wider than the secret
@pytest.mark.parametrize(("url", "kept"), [
    ("postgres://app:y7wk*odmzGkn7ZCn-S@db.internal:5432/appdb", "@db.internal:5432/appdb"),
    ("lftp sftp://deploy:zw=UEP9s19A7,d9j@files.corp.io -e 'put'", "@files.corp.io -e 'put'"),
    ("https://bob:ufdRBfLNagbRfbkGcEdmPG5vm5WEvZE6w8QcytWM@github.com", "@github.com"),
])
def test_the_host_after_a_url_password_stays(red: Redactor, url: str, kept: str) -> None:
    out = red.redact(url)
    assert out.endswith(kept) and re.fullmatch(r".*:\[CREDENTIAL_\d+\]" + re.escape(kept), out), out


# ---------------------------------------------------------------- the pipeline learns the session first
def test_retrace_masks_a_secret_everywhere_in_the_session(tmp_path: Path) -> None:
    pw = "Vq8#Lm2xTr9!Kd"
    recs = [user(0, "u1", None, f"The deploy fails: is {pw} still right?"),
            call(1, "a1", "u1", "t1", "Bash", {"command": f"export DB_PASSWORD='{pw}' && ./deploy.sh"}),
            result(2, "r1", "a1", "t1", "deployed"),
            answer(3, "a2", "r1", f"Deployed with {pw}.")]
    logs = tmp_path / "logs"
    logs.mkdir()
    log = write(logs / "s.jsonl", recs)
    out = tmp_path / "out"
    retrace([log], RetraceOptions(out=out))
    blob = "\n".join(p.read_text("utf-8") for p in out.rglob("*") if p.is_file())
    assert not [f for f in forms(pw) if f in blob]
    assert "[CREDENTIAL_1]" in blob


def test_base64_decoded_to_a_password_shaped_like_a_setting_is_masked(red: Redactor) -> None:
    """`N2R=YOf9wD` reads as `name=value` to password_like; decoded on the command line it is a
    password all the same (a planted one leaked this way)."""
    b64 = "TjJSPVlPZjl3RA=="  # base64 of N2R=YOf9wD
    for text in (f"PW=$(base64 -d <<< {b64})", f"echo '{b64}' | base64 --decode"):
        assert b64 not in red.redact(text)
    assert red.redact("echo ZGF0YS0yMDI0LTAx | base64 -d") == "echo ZGF0YS0yMDI0LTAx | base64 -d"  # data-2024-01


def test_a_password_sent_to_a_prompt_is_masked_in_json_escaped_commands(red: Redactor) -> None:
    """An expect script inside a JSON tool call: the answer is read in the unescaped view."""
    import json

    command = 'expect -c "spawn sudo -k id; expect \\"*assword*\\"; send \\"Js0nPw!x\\\\r\\"; interact"'
    for text in (command, json.dumps({"command": command}), json.dumps({"input": json.dumps({"command": command})})):
        assert "Js0nPw!x" not in red.redact(text), text


@pytest.mark.parametrize("text", ["wallet private key {k}", "my private key is 0x{k}", "Private key: {k}"])
def test_a_private_key_named_in_prose_is_masked(red: Redactor, text: str) -> None:
    key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
    assert key not in red.redact(text.format(k=key))


@pytest.mark.parametrize("text", ["the private key file is ~/.ssh/id_rsa", "Generate a private key with openssl genrsa",
                                  "private key: see vault", "private keys are rotated monthly"])
def test_a_private_key_mentioned_in_prose_stays(red: Redactor, text: str) -> None:
    assert red.redact(text) == text
