"""A literal key or password given to a call by its place, as the callee decides, in more
languages and shapes: a keyed primitive that computes at once (Ruby's `OpenSSL::HMAC.hexdigest`,
Python's `hmac.digest`), one built as a class (C#'s `new HMACSHA256(…)`), an API that takes the
data first (PHP's `hash_hmac`, `openssl_encrypt`, CryptoJS), a key object built from its
material (`SymmetricSecurityKey`, Rust's `EncodingKey::from_secret`, WebCrypto's `importKey`),
a JWT builder's `.sign(…)` at the end of its chain, a connection's class (PHP's `new mysqli`,
FTP clients), Go's DSN (`user:pw@tcp(host)`), a user-and-password value; the literal wrapped in
what makes it bytes (`Encoding.UTF8.GetBytes`, `new TextEncoder().encode`, `.toByteArray()`,
`.as_ref()`, `.getBytes(StandardCharsets.UTF_8)`). Look-alikes: a variable, a hash with no key,
an algorithm given by code (`OpenSSL::Digest.new('sha256')`), bytes that are no key."""

from __future__ import annotations

import json

import pytest

from forsy.redact import Redactor

KEY = "Wq4Lz8Rn2Tv6Xp0K"
PW = "Hx7!pQ2mLr9z"


@pytest.mark.parametrize("text", [
    f"digest = OpenSSL::HMAC.hexdigest('sha256', '{KEY}', data)",  # Ruby
    f"mac = OpenSSL::HMAC.digest(OpenSSL::Digest.new('sha256'), \"{KEY}\", body)",
    f"tag = hmac.digest(b'{KEY}', msg, 'sha256')",
    f'using var h = new HMACSHA256(Encoding.UTF8.GetBytes("{KEY}"));',  # C#
    f'var m = new HMACSHA1(Encoding.ASCII.GetBytes("{KEY}"));',
    f"$sig = hash_hmac('sha512', $body, '{KEY}');",  # PHP: the data first
    f"$c = openssl_decrypt($blob, 'aes-128-cbc', '{KEY}', 0, $iv);",
    f'const s = CryptoJS.HmacSHA512(payload, "{KEY}").toString();',
    f"const c = CryptoJS.AES.encrypt(JSON.stringify(doc), '{KEY}').toString();",
    f'var k = new SymmetricSecurityKey(Encoding.UTF8.GetBytes("{KEY}{KEY}"));',
    f'let enc = EncodingKey::from_secret("{KEY}".as_ref());',
    f"let dec = DecodingKey::from_secret(b\"{KEY}\");",
    f"const k = await crypto.subtle.importKey('raw', new TextEncoder().encode('{KEY}'), alg, false, ['sign']);",
    f"const t = await new SignJWT(c)\n  .setProtectedHeader({{ alg: 'HS256' }})\n"
    f"  .sign(new TextEncoder().encode('{KEY}'));",
    f'String t = Jwts.builder().setSubject(id).signWith(SignatureAlgorithm.HS512, "{KEY}").compact();',
    f'Key k = Keys.hmacShaKeyFor("{KEY}{KEY}".getBytes(StandardCharsets.UTF_8));',
    f'val spec = SecretKeySpec("{KEY}".toByteArray(Charsets.UTF_8), "HmacSHA256")',  # Kotlin
    f"s = URLSafeTimedSerializer('{KEY}', salt='email-confirm')",
    f'mac.init(new SecretKeySpec("{KEY}".getBytes(StandardCharsets.UTF_8), "HmacSHA256"));',  # Java
    json.dumps({"command": f"ruby -e \"puts OpenSSL::HMAC.hexdigest('SHA1', '{KEY}', ARGV[0])\" x"}),
])
def test_a_key_given_by_its_place_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert KEY not in out, out
    assert "[CREDENTIAL_1]" in out


@pytest.mark.parametrize("text", [
    f"$db = new mysqli('db.internal', 'shop', '{PW}', 'shop');",  # PHP
    f"$db = new mysqli(\"10.0.0.7\", \"report\", \"{PW}\");",
    f"ftp = ftplib.FTP('files.corp.net', 'upload', '{PW}')",
    f"ftps = FTP_TLS('files.corp.net', 'upload', '{PW}')",
    f"Net::FTP.open('files.corp.net', 'upload', '{PW}') do |ftp|",  # Ruby
    f'db, err := sql.Open("mysql", "shop:{PW}@tcp(10.0.0.7:3306)/shop?parseTime=true")',  # Go's DSN
    f'dsn := "report:{PW}@unix(/var/run/mysqld/mysqld.sock)/sales"',
    f'u := url.UserPassword("deploy", "{PW}")',
    f'var auth = new UsernamePasswordAuthenticationToken("ops", "{PW}");',
])
def test_a_password_given_by_its_place_is_masked(text: str) -> None:
    out = Redactor().redact(text)
    assert PW not in out, out


@pytest.mark.parametrize("lookalike", [
    "digest = OpenSSL::HMAC.hexdigest('sha256', secret_key, data)",
    "mac = OpenSSL::HMAC.digest(OpenSSL::Digest.new('sha256'), key, body)",
    "var h = new HMACSHA256(keyBytes);",
    "$sig = hash_hmac('sha256', $payload, $secret);",
    "$db = new mysqli($host, $user, $pass, $db);",
    "hash = Digest::SHA256.hexdigest('a file to fingerprint')",
    'byte[] body = Encoding.UTF8.GetBytes("Hello, world");',
    "const t = await new SignJWT(c).setProtectedHeader({ alg: 'HS256' }).sign(secret);",
    "let k = EncodingKey::from_secret(cfg.secret.as_bytes());",
    'w.Write([]byte("hello from the handler"))',
    'ftp = ftplib.FTP("files.corp.net")',
    'db, err := sql.Open("mysql", dsn)',
])
def test_look_alikes_stay_beside_a_masked_key(lookalike: str) -> None:
    text = f"sig = OpenSSL::HMAC.hexdigest('sha256', '{KEY}', data)\n{lookalike}"
    out = Redactor().redact(text)
    assert KEY not in out
    assert out.endswith("\n" + lookalike), out


def test_the_data_signed_stays_and_the_key_after_it_is_masked() -> None:
    out = Redactor().redact(f'CryptoJS.HmacSHA256("the message body", "{KEY}")')
    assert out == 'CryptoJS.HmacSHA256("the message body", "[CREDENTIAL_1]")'
