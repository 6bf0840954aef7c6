"""A literal secret given to a call by its place, with no name beside it: the key of a signing
or encryption primitive (its first argument past an algorithm's name; a JWT call's second), a
connection's password (after host and user), keyring's stored password, a client built from
one token, a credential pair kept under a name. In Python, JS, Go, Java, Rust, PHP, Ruby and
in a JSON-escaped command. A test's `"secret"` given to `jwt.encode` is the key that code ran
with: masked. Look-alikes: a variable, an environment look-up (its literal is a name), an
algorithm or an encoding, the data signed, a UUID, a documentation placeholder (reported)."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

KEY = "p9Lq2Xv7Rk4Tz8Wm"
TOKEN = "Zq3Wm8Rt5Yn1Kp7Lx2Vb9Hc4Jd6Fg0Sa"


@pytest.mark.parametrize("text", [
    f'claims = jwt.decode(raw, "{KEY}", algorithms=["HS512"])',
    f"const ok = jwt.verify(req.token, '{KEY}');",
    f"token = JWT.encode(payload, '{KEY}', 'HS256')",  # Ruby
    f"$jwt = JWT::encode($claims, '{KEY}', 'HS256');",  # PHP
    f'signed, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte("{KEY}"))',
    f'm := hmac.New(sha512.New, []byte("{KEY}"))',
    f'digest = hmac.new("{KEY}".encode(), payload, "sha256").hexdigest()',
    f"crypto.createHmac('sha512', '{KEY}').update(body).digest('base64')",
    f'let mac = HmacSha256::new_from_slice(b"{KEY}").unwrap();',
    f'SecretKeySpec spec = new SecretKeySpec("{KEY}".getBytes(UTF_8), "HmacSHA256");',
    f'box = nacl.secret.SecretBox(b"{KEY}{KEY}")',
    f'aead = ChaCha20Poly1305(b"{KEY}{KEY}")',
    f'dk = hashlib.pbkdf2_hmac("sha256", b"{KEY}", salt, 600000)',
    f"const c = crypto.createCipheriv('aes-256-cbc', '{KEY}{KEY}', iv);",
    f'db = MySQLdb.connect("10.0.0.5", "report", "{KEY}", "sales")',
    f'Connection c = DriverManager.getConnection("jdbc:postgresql://db/app", "app", "{KEY}");',
    f'keyring.set_password("aws-vault", "ops", "{KEY}")',
    f'api = new Twilio("{TOKEN}")',
    f'sdk = Mailjet.Client("{TOKEN}")',
    f'SERVICE_CREDENTIALS = ["svc-ingest", "{KEY}!"]',
    json.dumps({"command": f"node -e \"console.log(jwt.sign({{a: 1}}, '{KEY}'))\""}),
])
def test_a_literal_secret_given_by_its_place_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert KEY not in out and TOKEN not in out, out
    assert "[CREDENTIAL_1]" in out


def test_a_fixture_key_given_to_a_primitive_is_masked_and_the_algorithm_stays() -> None:
    out = Redactor().redact('jwt.encode({"sub": "u1"}, "secret", algorithm="HS256")')
    assert out == 'jwt.encode({"sub": "u1"}, "[CREDENTIAL_1]", algorithm="HS256")'


@pytest.mark.parametrize("lookalike", [
    'jwt.encode(payload, os.getenv("JWT_SECRET"), algorithm="HS256")',
    "jwt.sign(claims, process.env.JWT_SECRET)",
    'hmac.new(key, b"the message body", hashlib.sha256)',
    'hmac.compare_digest(expected, "abc123def456")',
    'conn = sqlite3.connect("file.db")',
    'engine.connect("postgres", "report")',
    'u = uuid.UUID("0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f")',
    'Decimal("12345678901234567890.1234")',
    "jwt.decode(token, options={'verify_signature': False})",
])
def test_look_alikes_stay_beside_a_masked_one(lookalike: str) -> None:
    text = f'Fernet(b"{TOKEN}=")\n{lookalike}'
    out = Redactor().redact(text)
    assert TOKEN not in out
    assert out.endswith("\n" + lookalike), out


def test_a_documentation_placeholder_is_reported_not_masked() -> None:
    red = Redactor()
    out = red.redact(f'jwt.encode(p, "your-secret-key-here", algorithm="HS256")\nAES.new(b"{KEY}", AES.MODE_GCM)')
    assert "your-secret-key-here" in out and KEY not in out
    assert red.report()["placeholders"] == 1
