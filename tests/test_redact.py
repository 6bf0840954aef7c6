"""Redaction: every rule must match what it is for and nothing else; the redactor must be
consistent, idempotent, offline, fail closed, and find >= 95% of fresh planted secrets."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
import urllib.parse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from _seed import TEST_SEED
from forsy.errors import RedactionError
from forsy.redact import (
    OVERLAP,
    UNSCANNABLE,
    EngineHit,
    KingfisherEngine,
    Redactor,
    chunks,
    user_names_from_paths,
)
from forsy.redact import rules as rr
from secretgen import SecretGen, forms

PLACEHOLDER = re.compile(r"\[[A-Z][A-Z0-9_]*\]")
SEED = TEST_SEED  # fixed, printed in the header; FORSY_TEST_SEED=N tries another


# ---------------------------------------------------------------- fixtures
@pytest.fixture
def engine(kingfisher_engine: KingfisherEngine) -> KingfisherEngine:
    """The real engine, built once per session offline (tests/conftest.py)."""
    return kingfisher_engine


@pytest.fixture
def red(engine: KingfisherEngine) -> Redactor:
    return Redactor(engine=engine)


class NoAnchors:
    """The real engine, minus its anchor reports: the rules then search for anchors themselves."""

    def __init__(self, inner: KingfisherEngine) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def reports_anchors(self) -> bool:
        return False

    def scan(self, data: bytes) -> Sequence[EngineHit]:
        return [h for h in self.inner.scan(data) if not h.rule.startswith("custom.forsy-anchor")]


class Failing:
    """An engine that breaks on every input, or only on inputs holding `trigger`."""

    name = "failing"
    reports_anchors = False

    def __init__(self, trigger: bytes = b"") -> None:
        self.trigger = trigger

    def scan(self, data: bytes) -> Sequence[EngineHit]:
        if self.trigger in data:
            raise RuntimeError("engine exploded")
        return []


def rule_hits(text: str) -> Iterator[tuple[str, str]]:
    """(rule, masked text) for forsy's own rules alone (no engine), anchors searched in Python."""
    anchors = rr.Anchors(text)
    for rule in rr.project_rules():
        for h in rule(text, anchors):
            yield h.rule, text[h.start : h.end]


# ---------------------------------------------------------------- per rule
G = SecretGen(seed=11)
PEM = G.pem()
MATCH: list[tuple[str, str, str]] = [
    ("aws-access-key-id", "the key AKIAIOSFODNN7EXAMPLE was rotated", "AKIAIOSFODNN7EXAMPLE"),
    ("aws-access-key-id", '{"AccessKeyId":"ASIAY34FZKBOKMUTVV7A"}', "ASIAY34FZKBOKMUTVV7A"),
    ("github-token", "GH_TOKEN=ghp_R4nd0mT0k3nV4lu3F0rT3st1ng0000abcdef", "ghp_R4nd0mT0k3nV4lu3F0rT3st1ng0000abcdef"),
    ("github-token", "x\\ngho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("github-fine-grained-pat", "github_pat_11ABCDEFG0123456789abc_" + "x1Y2z3" * 10,
     "github_pat_11ABCDEFG0123456789abc_" + "x1Y2z3" * 10),
    ("gitlab-token", "GITLAB_TOKEN: glpat-Abc123_def456-GHI789jk", "glpat-Abc123_def456-GHI789jk"),
    ("slack-token", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
     "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("slack-webhook", "POST https://hooks.slack.com/services/T0AAA0AAA/B0BBB0BBB/abcDEF123ghiJKL456mnoPQR",
     "T0AAA0AAA/B0BBB0BBB/abcDEF123ghiJKL456mnoPQR"),
    ("stripe-key", "stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe-key", "rk_test_51H8aBcDeFgHiJkLmNoPq", "rk_test_51H8aBcDeFgHiJkLmNoPq"),
    ("openai-key", "OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_T3BlbkFJ0aB1cD2eF3g",
     "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_T3BlbkFJ0aB1cD2eF3g"),
    ("openai-key", "key sk-aB3dE5fG7hJ9kL1mN3pQT3BlbkFJr5sT7uV9wX1yZ3bD5f",
     "sk-aB3dE5fG7hJ9kL1mN3pQT3BlbkFJr5sT7uV9wX1yZ3bD5f"),
    ("anthropic-key", "sk-ant-api03-" + "aB3_dE5-fG7h" * 8 + "AA", "sk-ant-api03-" + "aB3_dE5-fG7h" * 8 + "AA"),
    ("google-api-key", "https://maps.googleapis.com/x?key=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
     "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    ("slack-app-token", "SLACK_APP_TOKEN xapp-1-A0123BCDE4F-1234567890123-abcdef0123456789abcdef01234567",
     "xapp-1-A0123BCDE4F-1234567890123-abcdef0123456789abcdef01234567"),
    ("stripe-webhook-secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw ok", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
    ("google-oauth", "access ya29.a0AfH6SMBx3kL9_mQ2-Zr7TtYvWq8NpLs0Kd", "ya29.a0AfH6SMBx3kL9_mQ2-Zr7TtYvWq8NpLs0Kd"),
    ("google-oauth", "client 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", "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"),
    ("pypi-token", "T=pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACJXsicGVybWlzc2lvbnMi",
     "pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACJXsicGVybWlzc2lvbnMi"),
    ("dsn-key", "SENTRY_DSN=https://0123456789abcdef0123456789abcdef@o12345.ingest.sentry.io/678",
     "0123456789abcdef0123456789abcdef"),
    ("huggingface-token", "HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"),
    ("npm-token", "//registry.npmjs.org/:_authToken=npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A",
     "npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"),
    ("jwt", "Cookie-less: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("private-key", f"$ cat id_rsa\n{PEM}\n$ ls", PEM),
    ("private-key", json.dumps({"out": PEM})[9:-2], json.dumps(PEM)[1:-1]),
    ("url-password", "DATABASE_URL=postgres://app:s3cr3t-Pa55@db.internal:5432/app", "s3cr3t-Pa55"),
    ("url-password", "mongodb+srv://admin:Tr0ub4dor%263@cluster0.ab12c.mongodb.net/", "Tr0ub4dor%263"),
    ("url-password", "redis://:Sup3rSecretRedis@cache:6379/0", "Sup3rSecretRedis"),
    ("url-password", "git clone https://bob:p@ss@word9@git.example.com/r.git", "p@ss@word9"),
    ("auth-header", "Authorization: Bearer abc123def456ghi789jkl", "abc123def456ghi789jkl"),
    ("auth-header", '{"authorization": "Basic dXNlcjpwYXNzd29yZDEyMw=="}', "dXNlcjpwYXNzd29yZDEyMw=="),
    ("auth-scheme", "curl -H 'x: bearer Zx9Yw8Vu7Ts6Rq5Po4Nm' https://api", "Zx9Yw8Vu7Ts6Rq5Po4Nm"),
    ("cookie", "Cookie: session=Q6dDwxlGejkc5bJF; theme=dark", "Q6dDwxlGejkc5bJF"),
    ("cookie", "Set-Cookie: sid=9f8e7d6c5b4a; Path=/; HttpOnly", "9f8e7d6c5b4a"),
    ("mysql-password", "mysql -u root -pS3cretPass -h 127.0.0.1 shop", "S3cretPass"),
    ("mysql-password", "mysql -uroot -p'aX^q*A2h9Uz' -e 'show databases'", "aX^q*A2h9Uz"),
    ("curl-user", "curl -u admin:Adm1nS3cret! https://jenkins.local/api", "Adm1nS3cret!"),
    ("sshpass-password", "sshpass -p 'Hunter22' ssh deploy@host", "Hunter22"),
    ("openssl-pass", "openssl enc -aes256 -pass pass:MyS3cret -in a", "MyS3cret"),
    ("secret-assignment", "oh and my password is hunter2x, keep it safe", "hunter2x"),
    ("secret-assignment", '{"auth": {"user": "u", "pass": "p4ssw0rd!"}}', "p4ssw0rd!"),
    ("secret-assignment", 'password = "hunter2x"', "hunter2x"),
    ("secret-assignment", '{"username": "svc", "password": "Pl@in-Text 42"}', "Pl@in-Text 42"),
    ("secret-assignment", "database:\n  user: app\n  password: letMe1n!\n", "letMe1n!"),
    ("secret-assignment", "NODE_ENV=production\nDB_PASSWORD=plainword\n", "plainword"),
    ("secret-assignment", "mysqldump --user=admin --password=Dump3rPass shop", "Dump3rPass"),
    ("secret-assignment", "client_secret='GOCS-7f3a9b2c1d0e'", "GOCS-7f3a9b2c1d0e"),
    ("secret-assignment", "api_key: 0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"),
    ("secret-assignment", "--api-key 7da8712b56999b5e23c548d61fcbc512", "7da8712b56999b5e23c548d61fcbc512"),
    ("secret-assignment", 'config.access_token = "Zq8Lm3Nx7Pw2Rt5Vy9Ks4Hd6"', "Zq8Lm3Nx7Pw2Rt5Vy9Ks4Hd6"),
    ("secret-assignment", '{\\"password\\": \\"esc4ped-pw\\"}', "esc4ped-pw"),
    ("secret-assignment", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"),
    ("secret-assignment", "<config><password>Xml-Pa55word</password></config>", "Xml-Pa55word"),
    ("secret-assignment", "db:\n  password: letmein\n", "letmein"),
    ("secret-assignment", "data:\n  password: ZUJpZkduTXlIMWVM\n", "ZUJpZkduTXlIMWVM"),
    ("secret-assignment", "curl -d 'user=u&password==o9#NMhH' x", "o9#NMhH"),
    ("secret-assignment", "machine api.example.com login bob password netrcPa55", "netrcPa55"),
    ("secret-assignment", "| SECRET_KEY | fkGD252lM1WVQYNvtMfjZsTZ |", "fkGD252lM1WVQYNvtMfjZsTZ"),
    ("secret-assignment", "curl -d 'username=bob&password=F0rmPass!&remember=1' https://x", "F0rmPass!"),
    ("secret-assignment", "db_password: '$RI2ZQFDUGL8lkXDp'", "$RI2ZQFDUGL8lkXDp"),
    ("secret-assignment", "HEROKU_API_KEY=01234567-89ab-4cde-8f01-23456789abcd",
     "01234567-89ab-4cde-8f01-23456789abcd"),
    ("email", "Signed-off-by: Alice <alice.smith+git@example.co.uk>", "alice.smith+git@example.co.uk"),
    ("email", "echo x\\nbob@corp.io", "bob@corp.io"),
    ("phone", "call me at +1 415 555 0100 tomorrow", "+1 415 555 0100"),
    ("phone", "office: (212) 555-0147.", "(212) 555-0147"),
    ("phone", "tel +44 20 7946 0958", "+44 20 7946 0958"),
    ("phone", "cell 415-555-0199", "415-555-0199"),
    ("home-path", "open /Users/alice/Projects/app/main.py", "alice"),
    ("home-path", "cd /home/bob && ls", "bob"),
    ("home-path", r"C:\Users\carol\AppData\x.txt", "carol"),
    ("home-path", r'{"cwd": "C:\\Users\\dave\\src"}', "dave"),
]

NO_MATCH = [
    "request 6176a3ca-c534-42ec-8830-62fabf2d288b done",
    "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    '"integrity": "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="',
    "![img](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)",
    "version 1.2.3, v10.20.30-rc.1, python 3.11.7",
    "2024-05-01T12:34:56.789Z 1700000000 12:30:45",
    "listening on http://localhost:8080 and 127.0.0.1:5432",
    "src/app/main.py:1234:56: error",
    "@@ -12,7 +12,8 @@ def f():",
    "password = os.environ['DB_PASSWORD']",
    "token = get_token(session)",
    "max_tokens=4096, input_tokens: 1234",
    '{"input_tokens": 12, "output_tokens": 340, "cache_read_input_tokens": 9000}',
    "api_key=${OPENAI_API_KEY}",
    "DB_PASSWORD=$DB_PASSWORD and password: $(cat /run/secrets/pw)",
    "PromiseResolve = @Promise.@resolve.bind(@Promise)",
    'token: ${{ secrets.GITHUB_TOKEN }}',
    "def check_password(password: str) -> bool:",
    "Password: ********",
    "password: required",
    "f(password=password, token=token)",
    "password = pw; conn = connect(password=db_pass)",
    "creds = {'password': pw, 'user': user_name}",
    "if password==pw: return",
    "password: settings.db_password",
    "the token is invalid; basic authentication failed",
    "pip install scikit-learn; sk-learn is not a package",
    "/Users/Shared/data and /home/runner/work/repo",
    "icon@2x.png and logo@3x.svg",
    "git@github.com:org/repo.git",
    "Co-Authored-By: Claude <noreply@anthropic.com>",
    "npm i @types/node@18.11.9 lodash@4.17.21",
    "IP 192.168.1.100 and 10.0.0.1",
    "x = 1 + 123456789;",
    "total +12345 -678 lines",
    "Bearer token auth is configured",
    '"key": "value", "key": "Enter"',
    "Cookie: none",
    "the password is wrong; the token is invalid; PASS: test_login; pass: true",
    "The password was changed yesterday.",
    "ghp_ and sk- are prefixes",
]


@pytest.mark.parametrize(("rule", "text", "secret"), MATCH, ids=[f"{m[0]}-{i}" for i, m in enumerate(MATCH)])
def test_rule_matches(rule: str, text: str, secret: str) -> None:
    found = list(rule_hits(text))
    assert (rule, secret) in found, found


@pytest.mark.parametrize("text", NO_MATCH)
def test_rules_leave_lookalikes_alone(text: str, red: Redactor) -> None:
    assert list(rule_hits(text)) == []
    assert red.redact(text) == text  # the engine too


@pytest.mark.parametrize(("rule", "text", "secret"), MATCH, ids=[f"{m[0]}-{i}" for i, m in enumerate(MATCH)])
def test_redactor_masks_and_keeps_context(rule: str, text: str, secret: str, red: Redactor) -> None:
    out = red.redact(text)
    assert secret not in out
    assert PLACEHOLDER.search(out)
    # what is not masked is the original text, in order
    pieces = [p for p in PLACEHOLDER.split(out) if p]
    pos = 0
    for p in pieces:
        pos = text.index(p, pos) + len(p)


def test_name_tiers() -> None:
    assert rr.name_tier("DB_PASSWORD") == rr.name_tier("clientSecret") == rr.name_tier("passwd") == 1
    assert rr.name_tier("apiKey") == rr.name_tier("GITHUB_TOKEN") == rr.name_tier("x-api-key") == 2
    for name in ("max_tokens", "token_count", "secret_name", "keyboard", "monkey", "author", "password_hash",
                 "recv-keys", "cache_key", "publishable_key"):
        assert rr.name_tier(name) == 0, name


# ---------------------------------------------------------------- placeholders
def test_placeholders_are_typed_consistent_and_ordered(red: Redactor) -> None:
    a, b = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "glpat-Zz9Yy8Xx7Ww6Vv5Uu4Tt"
    out = red.redact(f"first {b} then {a} again {b}; mail x@y.org, x@y.org")
    assert out == "first [CREDENTIAL_1] then [CREDENTIAL_2] again [CREDENTIAL_1]; mail [EMAIL_1], [EMAIL_1]"
    assert red.redact(f"later {a}") == "later [CREDENTIAL_2]"  # same value, same placeholder, across calls
    for p in PLACEHOLDER.findall(out):
        assert re.fullmatch(r"\[[A-Z][A-Z0-9_]*\]", p)


def test_same_input_gives_byte_identical_output(engine: KingfisherEngine) -> None:
    corpus = [p.text for p in SecretGen(seed=5).planted(80)]
    one = [Redactor(engine=engine).redact_value(corpus) for _ in range(2)]
    assert one[0] == one[1]  # salts differ per instance; the numbering does not


def test_mapping_is_kept_as_salted_hashes_only(red: Redactor) -> None:
    secret = "sk_live_" + "9aZ8bY7cX6dW5eV4fU3gT2hS"
    assert secret not in red.redact(f"STRIPE={secret}")
    assert secret not in repr(vars(red)) and secret[8:] not in repr(vars(red))
    report = json.dumps(red.report())
    assert secret not in report and "[CREDENTIAL_1]" not in report


def test_idempotent(red: Redactor) -> None:
    gen = SecretGen(seed=SEED)
    texts = [p.text for p in gen.planted(150)] + gen.lookalikes(50)
    once = red.redact_many(texts)
    assert red.redact_many(once) == once, f"seed {SEED}"
    assert all(red.scan(t) == [] for t in once)
    assert Redactor(engine=red._engine).redact_many(once) == once  # a fresh redactor too


def test_report_counts(red: Redactor) -> None:
    red.redact("AKIAIOSFODNN7EXAMPLE alice@acme-mail.io, /home/zed/x")
    rep = red.report()
    assert rep["enabled"] is True and rep["engine"].startswith("kingfisher ")
    assert rep["engine"].endswith(" + forsy rules")
    assert rep["by_kind"] == {"CREDENTIAL": 1, "EMAIL": 1, "PATH_USER": 1}
    assert rep["by_rule"]["email"] == 1 and rep["unscannable"] == 0


# ---------------------------------------------------------------- escaped forms
def test_json_in_string_and_escaped_values(red: Redactor) -> None:
    pw = 'qu"ote\\back Sp4ce'
    args = json.dumps({"command": "deploy", "env": {"DB_PASSWORD": pw, "user": "app"}})
    record = {"type": "tool_use", "input": {"arguments": args}}
    out = red.redact_value(record)
    assert json.dumps(pw)[1:-1] not in json.dumps(out) and "Sp4ce" not in json.dumps(out)
    assert json.loads(out["input"]["arguments"])["env"]["user"] == "app"  # still valid JSON
    double = json.dumps({"input": json.dumps({"content": "export API_TOKEN=Zq8Lm3Nx7Pw2Rt5Vy9Ks4Hd6\n"})})
    assert "Zq8Lm3Nx7Pw2Rt5Vy9Ks4Hd6" not in red.redact(double)


def test_url_encoded_forms(red: Redactor) -> None:
    aws = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYzEXAMPLEKEY"
    q = "GET /cb?cfg=" + urllib.parse.quote(f"aws_secret_access_key={aws}", safe="") + " HTTP/1.1"
    out = red.redact(q)
    assert not any(f in out for f in forms(aws)) and out.startswith("GET /cb?cfg=aws_secret_access_key%3D")
    enc = "postgres%3A%2F%2Fapp%3As3cr3t%2BPa55%40db%3A5432%2Fx"
    assert "s3cr3t" not in red.redact(enc)
    assert "alice" not in red.redact("to=alice%40acme-mail.io&x=1")


def test_pem_blocks_multiline_escaped_and_truncated(red: Redactor) -> None:
    body_lines = [ln for ln in PEM.splitlines() if not ln.startswith("-----")]
    for text in (PEM, json.dumps(PEM), json.dumps(json.dumps(PEM)), PEM.rsplit("-----END", 1)[0] + "\n(truncated)"):
        out = red.redact(f"output:\n{text}\nend")
        assert "[PRIVATE_KEY_" in out
        assert not any(line in out for line in body_lines if len(line) >= 16)
        assert out.endswith("end")


def test_offsets_survive_non_ascii_and_chunk_borders(red: Redactor) -> None:
    tok = "ghp_" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8"
    text = "é✓😀 " * 3 + f"token {tok} ok"
    assert red.redact(text) == "é✓😀 " * 3 + "token [CREDENTIAL_1] ok"
    for n in (100, 500_000, 3_000_000):  # every window no longer than OVERLAP lies whole in one chunk
        text = ("line\n" * n)[:n]
        spans = list(chunks(text))
        assert spans[0][0] == 0 and spans[-1][0] + len(spans[-1][1]) == n
        for (s1, c1), (s2, _) in zip(spans, spans[1:], strict=False):
            assert s1 < s2 <= s1 + len(c1) - OVERLAP


class CountingEngine:
    """The real engine, counting what it is given."""

    def __init__(self, inner: KingfisherEngine) -> None:
        self.inner, self.scanned, self.largest = inner, 0, 0
        self.name, self.reports_anchors = inner.name, inner.reports_anchors

    def scan(self, data: bytes) -> Sequence[EngineHit]:
        self.scanned += len(data)
        self.largest = max(self.largest, len(data))
        return self.inner.scan(data)


def test_huge_line_and_nul_text_in_bounded_work(engine: KingfisherEngine) -> None:
    """Linear time without a clock: the engine and every rule see the text in pieces of at most
    CHUNK characters (so a rule's cost per piece is bounded, whatever the rule), and the pieces
    add up to the text plus their overlaps (< 10% more), so the work grows with the text."""
    from forsy.redact import CHUNK

    tok = "glpat-" + "Abc123_def456-GHI789jk"
    counting = CountingEngine(engine)
    red = Redactor(engine=counting)
    seen = {"chars": 0, "largest": 0}

    def counted(rule: Any) -> Any:
        def run(text: str, anchors: Any) -> Any:
            seen["chars"] += len(text)
            seen["largest"] = max(seen["largest"], len(text))
            return rule(text, anchors)
        return run

    red._rules = [counted(r) for r in red._rules]
    red._json_rules = [counted(r) for r in red._json_rules]
    rules = len(red._rules)
    for filler in ("a" * 20_000_000, "\x00" * 10_000_000, "eyJ-" * 200_000, "postgres://" * 50_000):
        counting.scanned = counting.largest = seen["chars"] = seen["largest"] = 0
        text = filler + f" {tok} "
        out = red.redact(text)
        assert tok not in out and out.startswith(filler[:1000])
        assert counting.largest <= CHUNK and seen["largest"] <= CHUNK
        assert counting.scanned <= 1.1 * len(text), (counting.scanned, len(text))
        assert seen["chars"] <= 1.1 * len(text) * rules, (seen["chars"], len(text), rules)


def test_secret_across_an_engine_chunk_border(red: Redactor) -> None:
    from forsy.redact import CHUNK

    tok = "sk_live_" + "Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9"
    text = "word " * ((CHUNK - 10) // 5) + tok + " tail"
    assert tok not in red.redact(text)


def test_lone_surrogates_and_invalid_text(red: Redactor) -> None:
    out = red.redact("bad \ud800 and \udfff then ghp_" + "Z" * 10 + "1a2b3c4d5e6f7g8h9i0j1k2l3m")
    out.encode("utf-8")  # valid text comes out
    assert "\ufffd" in out and "[CREDENTIAL_1]" in out
    assert red.redact("\ud83d\ude00 pair") == "\U0001f600 pair"


# ---------------------------------------------------------------- personal data
def test_personal_data(engine: KingfisherEngine) -> None:
    red = Redactor(engine=engine, user_names={"alice", "ci", "runner"}, extra_person_names={"Alice Smith",
                                                                                          "dependabot[bot]"})
    out = red.redact("Alice Smith (alice) ran /Users/alice/x as alice@laptop; ALICE SMITH agreed; Malice; "
                     "dependabot[bot] bumped it; runner ok")
    assert out == ("[PERSON_1] ([PATH_USER_1]) ran /Users/[PATH_USER_1]/x as [PATH_USER_1]@laptop; [PERSON_1] agreed; "
                   "Malice; dependabot[bot] bumped it; runner ok")


def test_user_names_from_paths() -> None:
    got = user_names_from_paths(["/Users/alice/x", "/home/bob", r"C:\Users\carol\y", "/home/runner/w", "/tmp/x"])
    assert got == {"alice", "bob", "carol"}


# ---------------------------------------------------------------- values
def test_redact_value_shapes_and_fields(red: Redactor) -> None:
    value = {
        "password": "correct horse battery staple",
        "pin_password": 4242,
        "headers": {"Authorization": "Bearer Zx9Yw8Vu7Ts6Rq5Po4Nm", "Cookie": "sid=abc123def; theme=dark"},
        "ghp_" + "K" * 30 + "1a2b3c": "key holds a token",
        "list": ["plain", 3, 2.5, None, True, ("tu", "ple")],
        "token_count": 12,
        "token": "abc",
    }
    out = red.redact_value(value)
    assert out["password"].startswith("[CREDENTIAL_") and out["pin_password"].startswith("[CREDENTIAL_")
    assert out["headers"]["Authorization"].startswith("Bearer [CREDENTIAL_")
    assert re.fullmatch(r"sid=\[CREDENTIAL_\d\]; theme=\[CREDENTIAL_\d\]", out["headers"]["Cookie"])
    assert "key holds a token" in out.values() and not any(k.startswith("ghp_") for k in out)
    assert out["list"] == ["plain", 3, 2.5, None, True, ("tu", "ple")]
    assert out["token_count"] == 12 and out["token"] == "abc"  # a short word is not a token


def test_redact_value_key_collision_raises(red: Redactor) -> None:
    with pytest.raises(RedactionError):
        red.redact_value({"Ann@acme-mail.io": 1, "ann@acme-mail.io": 2})  # one address, twice


def test_unknown_objects_fail_closed(red: Redactor) -> None:
    assert red.redact_value({"x": object()}) == {"x": UNSCANNABLE}
    assert red.report()["unscannable"] == 1


# ---------------------------------------------------------------- fail closed, offline
def test_engine_error_fails_closed() -> None:
    red = Redactor(engine=Failing())
    assert red.redact("anything at all, long enough") == UNSCANNABLE
    assert red.redact_value({"a": "some longer text", "b": 1}) == {"a": UNSCANNABLE, "b": 1}
    assert red.report()["unscannable"] == 2


def test_one_bad_string_does_not_take_its_batch() -> None:
    red = Redactor(engine=Failing(trigger=b"BOOM"))
    out = red.redact_many(["fine text one", "this has BOOM in it", "mail ann@acme-mail.io"])
    assert out == ["fine text one", UNSCANNABLE, "mail [EMAIL_1]"]
    assert red.report()["unscannable"] == 1


def test_engine_start_failure_is_a_redaction_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "kingfisher_sdk", None)  # as if the package were missing
    with pytest.raises(RedactionError, match="secret scanner could not start"):
        KingfisherEngine()


def test_anchor_paths_agree(engine: KingfisherEngine) -> None:
    """Engine-reported anchors and anchors searched in Python give the same output."""
    texts = [p.text for p in SecretGen(seed=SEED).planted(150)]
    assert Redactor(engine=engine).redact_many(texts) == Redactor(engine=NoAnchors(engine)).redact_many(texts)


def test_no_network_syscalls(tmp_path: Path) -> None:
    """Rule compilation and scanning make no network system call at all (native code included)."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace not installed")
    script = textwrap.dedent(f"""
        from pathlib import Path
        from forsy.redact import Redactor
        r = Redactor(cache_dir=Path({str(tmp_path / 'cache')!r}))
        assert "[CREDENTIAL_1]" in r.redact("t ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
    """)
    log = tmp_path / "trace"
    proc = subprocess.run([strace, "-f", "-e", "trace=network", "-o", str(log), sys.executable, "-c", script],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 and "ptrace" in proc.stderr:
        pytest.skip("ptrace not permitted here")
    assert proc.returncode == 0, proc.stderr
    calls = [ln for ln in log.read_text().splitlines() if re.search(r"\b(socket|connect|sendto|sendmsg)\(", ln)]
    assert not [c for c in calls if "AF_UNIX" not in c], calls


# ---------------------------------------------------------------- planted corpus
def test_planted_recall_and_no_false_positives(red: Redactor) -> None:
    gen = SecretGen(seed=SEED)
    planted = gen.planted(600)
    outs = red.redact_many([p.text for p in planted])
    missed = [p for p, out in zip(planted, outs, strict=True) if p.leaks(out)]
    assert all(p.leaks(p.text) for p in planted)  # each secret really was in its input
    recall = 1 - len(missed) / len(planted)
    assert recall >= 0.95, (SEED, [(m.kind, m.text[:120]) for m in missed[:10]])
    clean = SecretGen(seed=3).lookalikes(400)
    assert [c for c, out in zip(clean, red.redact_many(clean), strict=True) if c != out] == []


def test_secretgen_is_seedable_and_fresh() -> None:
    a, b, c = (SecretGen(seed=s).planted(20) for s in (1, 1, 2))
    assert a == b and a != c


@pytest.mark.parametrize("text", [
    "aws secretsmanager get-secret-value --secret-id "
    "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
    '"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf"',
    "arn:aws:secretsmanager:eu-west-1:123456789012:secret:my_app_secret-Ab12Cd",
    "arn:aws-cn:secretsmanager:cn-north-1:123456789012:secret:Zq8Zt2LmW9vXk4RbN7cPdQ-Ab12Cd",
])
def test_an_arn_names_a_secret_and_stays(text: str) -> None:
    """`…:secret:prod/db-AbCdEf` is a part of a resource's name (what `--secret-id` is given), not
    a `secret: value` pair: it was masked, and a person reviewing could not tell which secret."""
    assert Redactor().redact(text) == text


@pytest.mark.parametrize(("text", "value"), [
    ("password:Tr0ub4dor3xyz", "Tr0ub4dor3xyz"),
    ("urn:token:Zq8Zt2LmW9vXk4RbN7cPdQ", "Zq8Zt2LmW9vXk4RbN7cPdQ"),  # outside an ARN a random value is one
    ("x:password: Tr0ub4dor3xyz", "Tr0ub4dor3xyz"),  # spaced: an assignment
])
def test_a_value_after_a_colon_name_outside_an_arn_is_masked(text: str, value: str) -> None:
    assert value not in Redactor().redact(text)
